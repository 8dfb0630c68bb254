"""How an agent's strength grows with its budget: a round robin between copies of one agent with
different budgets, rated jointly, plotted as Elo against budget.

    python experiments/strength_vs_budget.py
    python experiments/strength_vs_budget.py --game konane --agent alphabeta --param nodes \\
        --budgets 1000,3000,10000,30000,100000 --games 40

Prints the standings and writes ``elo_vs_budget.png`` into the run folder (which also holds the
tournament's own report plots and database; the same command resumes it).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_arena import arena  # noqa: E402
from board_arena.arena.tournament.report import format_report  # noqa: E402
from board_arena.commandline import OneLineParser, int_list, positive_int, run_script  # noqa: E402


def main(argv=None) -> None:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="kalah", help="game and parameters (default kalah)")
    parser.add_argument("--agent", default="mcts", help="the agent (default mcts)")
    parser.add_argument("--param", default="iterations", help="its budget parameter (default iterations)")
    parser.add_argument("--budgets", type=int_list, default=[100, 300, 1000, 3000, 10000], help="comma-separated budgets")
    parser.add_argument("--games", type=positive_int, default=40, help="games per pairing (default 40)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="run folder (default: arena-runs/<game>-<agent>-budgets-<hash>)")
    args = parser.parse_args(argv)

    budgets = args.budgets
    specs = [f"{args.agent}:{args.param}={b}" for b in budgets]
    settings = arena.TournamentSettings.create(args.game, specs, games=args.games, seed=args.seed)
    out = args.out or settings.default_out_dir()
    run = arena.run_tournament(settings, out)
    ratings = run.ratings(anchor=specs[0])
    print(format_report(run.settings, run.games, ratings))

    elo = np.array([ratings.elo_of(s) for s in specs])
    low = elo - np.array([ratings.low[ratings.names.index(s)] for s in specs])
    high = np.array([ratings.high[ratings.names.index(s)] for s in specs]) - elo
    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    ax.errorbar(budgets, elo, yerr=[low, high], fmt="o-", capsize=4)
    ax.set_xscale("log")
    ax.set_xlabel(f"{args.agent} {args.param} per move")
    ax.set_ylabel(f"Elo (95% interval), {specs[0]} = 0")
    ax.grid(alpha=0.3)
    ax.set_title(f"{args.agent} on {settings.game}: strength against budget ({len(run.games)} games)", fontsize=10)
    FigureCanvasAgg(fig)
    path = os.path.join(out, "elo_vs_budget.png")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    print(f"\nElo against {args.param}: " + ", ".join(f"{b}: {e:+.0f}" for b, e in zip(budgets, elo)))
    print(f"Plot: {path}")


if __name__ == "__main__":
    run_script(main, "strength_vs_budget.py")
