"""How long games last, by the rule that ends them: the evidence behind a ply cap.

    python experiments/game_lengths.py                                  # the Morabaraba presets
    python experiments/game_lengths.py --game morabaraba-9 --agents random,greedy --games 100

Plays self-play games of each agent with a ply cap far above any game that ends by the rules
(``--cap``, default 10,000 plies), and prints per agent the median, 99th percentile and longest
length of the games that ended by a rule, how many reached the cap (games that shuffle forever:
nobody can or will make progress), and the count of each end reason. A game's default ply cap
(``max_plies``) should sit well above the longest game that ends by a rule.

Options:
  --game NAME[:params]   a game (repeatable; default: morabaraba and morabaraba-9)
  --agents SPEC,...      agent specs for self-play (default: random, greedy, alphabeta:depth=3,
                         mcts:iterations=1000)
  --games N              games per agent and game for random and greedy (default 200); searches
                         play a tenth of that (at least 10)
  --cap N                the ply cap of the measuring games (default 10,000)
  --seed N               seed of the starts and agents (default 0)
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_arena import (
    agents,  # noqa: E402
    engines,  # noqa: E402
)
from board_arena.arena.tournament.settings import derive_seed, split_agent_list  # noqa: E402
from board_arena.commandline import OneLineParser, positive_int, run_script

CHEAP = ("random", "greedy")


def measure(game, spec: str, games: int, seed: int):
    """Lengths of the games that ended by a rule, games stopped by the cap, and end reasons."""
    lengths, capped, reasons = [], 0, Counter()
    for g in range(games):
        players = [agents.make_agent(spec, seed=derive_seed(seed, spec, g, seat)) for seat in (0, 1)]
        final = agents.play_game(game, players, seed=derive_seed(seed, "start", g))
        reasons[final.end_reason] += 1
        if final.end_reason == engines.PLY_CAP:
            capped += 1
        else:
            lengths.append(final.ply)
    return np.array(lengths), capped, reasons


def main(argv=None) -> None:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", action="append", help="game and parameters (repeatable)")
    parser.add_argument("--agents", default="random,greedy,alphabeta:depth=3,mcts:iterations=1000")
    parser.add_argument("--games", type=positive_int, default=200)
    parser.add_argument("--cap", type=positive_int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for text in args.game or ["morabaraba", "morabaraba-9"]:
        name, params = agents.parse_spec(text, kind="game")
        default_cap = engines.make(name, **params).params.get("max_plies")
        if default_cap is None:
            capped_games = [g for g in engines.available_games() if "max_plies" in engines.make(g).params]
            raise ValueError(f"{name} has no ply cap: its games always end by its rules (games with one: {', '.join(capped_games)})")
        game = engines.make(name, **{**params, "max_plies": args.cap})
        print(f"{text} (measured with max_plies={args.cap}; default cap {default_cap})")
        longest = 0
        for spec in split_agent_list(args.agents):
            games = args.games if spec.split(":")[0] in CHEAP else max(10, args.games // 10)
            lengths, capped, reasons = measure(game, spec, games, args.seed)
            if len(lengths):
                longest = max(longest, int(lengths.max()))
                spread = f"median {np.median(lengths):.0f}, 99th percentile {np.percentile(lengths, 99):.0f}, longest {lengths.max()}"
            else:
                spread = "no game ended by a rule"
            ends = ", ".join(f"{reason} {count}" for reason, count in reasons.most_common())
            print(f"  {spec:24} {games} games: {spread}; reached the cap: {capped} ({ends})")
        print(f"  longest game ended by a rule: {longest} plies")


if __name__ == "__main__":
    run_script(main, "game_lengths.py")
