"""Solve a game from its start position with the alpha-beta solver and print the exact value.

    python experiments/solve.py --game konane-classic:size=4
    python experiments/solve.py --game kalah:pits=3,seeds=3,empty_capture=true

Prints the value for the first player (win, draw or loss, with the best move), the depth the
proof needed, the positions searched and the time.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import agents  # noqa: E402
import engines  # noqa: E402


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", required=True, help="game and parameters, e.g. konane-classic:size=4")
    parser.add_argument("--seed", type=int, default=0, help="seed of the start position (random openings) and of the solver's tie-breaks")
    parser.add_argument("--table-mb", type=float, default=256.0, help="transposition table size")
    args = parser.parse_args(argv)
    name, params = agents.parse_spec(args.game)
    game = engines.make(name, **params)
    state = game.new_initial_state(args.seed)
    solver = agents.make_agent(f"alphabeta:solve=true,table_mb={args.table_mb:g}", seed=args.seed)
    move = solver.select_move(state)
    info = solver.last_search
    if not info.exact:
        print(f"{game!r}: not proven within the solver's depth limit ({info.summary()})")
        return
    outcome = {1: "win", 0: "draw", -1: "loss"}[round(info.value)]
    mover = game.player_names[state.current_player]
    print(f"{game!r}: a {outcome} for {mover} (the first to move), e.g. with {state.format_move(move)}")
    print(f"proof: depth {info.depth}, {info.nodes:,} positions, {info.seconds:.2f} s")


if __name__ == "__main__":
    main()
