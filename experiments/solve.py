"""Solve a game from its start position to its exact value, or compute the Kalah table of Irving,
Donkers and Uiterwijk ("Solving Kalah", 2000).

    python experiments/solve.py --game kalah:pits=6,seeds=4,empty_capture=true --endgame 20
    python experiments/solve.py --game konane-classic:size=6
    python experiments/solve.py --kalah-table --limit 1800 --out kalah_table.md

One game: prints the first player's final margin under perfect play (Kalah: store difference;
capture-scored Konane: capture difference; a game without a margin: win, draw or loss), a best
first move, the positions searched, the null-window searches of MTD(f) and the time
(board_arena/agents/solver.py). ``--endgame K`` loads (building it once, with a progress bar) the Kalah endgame
database of every position with at most K seeds on the board (board_arena/engines/mancala/endgame.py).

``--kalah-table``: solves Kalah(m, n) under Irving's rules (``empty_capture=true``) for the pits
and seeds asked, in order of size, each within ``--limit`` seconds (a game that does not finish
is reported with the bounds proven, and the larger n of the same m are skipped); prints each
result beside the published margin (experiments/data/kalah_irving2000.json) and writes the table
to a Markdown file. Benchmarks: run on one core, ``taskset -c 1 python experiments/solve.py ...``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path
from typing import NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_arena import (
    agents,  # noqa: E402
    engines,  # noqa: E402
)
from board_arena.agents.solver import new_solver_table, solve  # noqa: E402
from board_arena.engines.mancala import endgame  # noqa: E402
from board_arena.files import check_writable, write_text_whole  # noqa: E402

PUBLISHED = Path(__file__).resolve().parent / "data" / "kalah_irving2000.json"


def published_margins() -> dict[tuple[int, int], int | None]:
    """(pits, seeds) -> the published first-player margin (see the data file for what is in it)."""
    data = json.loads(PUBLISHED.read_text())
    return {(e["pits"], e["seeds"]): e["margin"] for e in data["entries"]}


def describe(margin: int, has_margin: bool) -> str:
    if not has_margin:
        return {1: "win", 0: "draw", -1: "loss"}[margin]
    if margin == 0:
        return "draw"
    return f"{'win' if margin > 0 else 'loss'} by {abs(margin)}"


def endgame_for(state, seeds: int | None, *, progress: bool = True):
    """The endgame database of ``seeds`` seeds for ``state``'s variant (Kalah), built once."""
    if seeds is None:
        return None
    return state.game.endgame_database(state, seeds, build_missing=True, progress=progress)


def solve_one(args) -> None:
    name, params = agents.parse_spec(args.game)
    game = engines.make(name, **params)
    state = game.new_initial_state(args.seed)
    db = endgame_for(state, args.endgame)
    warm_up(state, db)
    table = new_solver_table(args.table_mb)
    table[:] = 0  # touch the pages now: the kernel's page faults are not the search's time
    solution = solve(state, table=table, endgame=db, time=args.limit)
    mover = game.player_names[state.current_player]
    if not solution.exact:
        print(f"{game!r}: not solved in {args.limit:g} s; the first player's margin is in "
              f"[{solution.lower}, {solution.upper}] ({solution.nodes:,} positions)")
        return
    print(f"{game!r}: a {describe(solution.margin, solution.has_margin)} for {mover} (the first to move), "
          f"e.g. with {state.format_move(solution.move)}")
    print(f"proof: {solution.nodes:,} positions, {solution.searches} null-window searches, {solution.seconds:.2f} s "
          f"({solution.cpu_seconds:.2f} s of processor time)"
          + (f", endgame database <= {db[1]} seeds" if db else ""))


def warm_up(state, db) -> None:
    """Compiles (or loads from the cache) the solver for this game before any clock starts."""
    solve(state, table_mb=0.01, endgame=db, nodes=10)


def default_endgame_seeds(pits: int, most_seeds: int, max_entries: float) -> int:
    """The largest database of ``pits`` pits within ``max_entries`` positions, and no larger than
    the ``most_seeds`` of the largest game it is for (one database serves every n of an m)."""
    k = 0
    while k + 1 <= min(most_seeds, 63) and endgame.database_size(pits, k + 1) <= max_entries:
        k += 1
    return k


def kalah_table(args) -> None:
    published = published_margins()
    rows = []
    pits_list = numbers("--pits", args.pits)
    seeds_list = numbers("--seeds", args.seeds)
    db_pits = set(numbers("--db-pits", args.db_pits)) if args.db_pits else set()
    print(f"Kalah(m, n) under Irving's rules, one process, limit {args.limit:g} s each, table {args.table_mb:g} MiB")
    table = new_solver_table(args.table_mb)
    table[:] = 0
    for pits in pits_list:
        gave_up = False
        for seeds in seeds_list:
            game = engines.make("kalah", pits=pits, seeds=seeds, empty_capture=True)
            state = game.new_initial_state()
            if gave_up:
                rows.append((pits, seeds, None, None, None, "skipped (a smaller n did not finish)", 0, 0.0, None, 0.0, 0.0))
                continue
            k = default_endgame_seeds(pits, 2 * pits * max(seeds_list), args.db_entries) if pits in db_pits else None
            built = time.perf_counter()
            db = endgame_for(state, k, progress=not args.quiet)
            built = time.perf_counter() - built
            warm_up(state, db)
            table[:] = 0
            solution = solve(state, table=table, endgame=db, time=args.limit)
            expected = published.get((pits, seeds))
            if solution.exact:
                agree = "unconfirmed" if expected is None else ("yes" if expected == solution.margin else "NO")
            else:
                agree = "not finished"
                gave_up = True
            row = (pits, seeds, solution.margin, (solution.lower, solution.upper), expected, agree, solution.nodes,
                   solution.seconds, k, built if db else 0.0, solution.cpu_seconds)
            rows.append(row)
            print(format_row(row), flush=True)
    text = markdown(rows, args)
    if args.out:
        write_text_whole(args.out, text)
        print(f"wrote {args.out}")


def numbers(option: str, text: str) -> list[int]:
    """A comma-separated list of positive whole numbers, e.g. ``1,2,3``."""
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise ValueError(f"{option} takes positive whole numbers separated by commas, e.g. 1,2,3; got {text!r}")
    return values


def format_row(row) -> str:
    pits, seeds, margin, bounds, expected, agree, nodes, seconds, k, built, cpu = row
    got = f"{margin:+d}" if margin is not None else (f"in [{bounds[0]}, {bounds[1]}]" if bounds else "-")
    pub = "?" if expected is None else f"{expected:+d}"
    return (f"Kalah({pits},{seeds}): {got:>14}  published {pub:>4}  {agree:<12} {nodes:>15,} positions "
            f"{seconds:8.1f} s ({cpu:.1f} s cpu)" + (f"  db<={k} (loaded or built in {built:.0f} s)" if k else ""))


def markdown(rows, args) -> str:
    lines = [
        "# Kalah(m, n) solved under the rules of Irving, Donkers and Uiterwijk (2000)",
        "",
        "The first player's final margin under perfect play (store difference; + the first player wins).",
        f"Computed by `experiments/solve.py --kalah-table` on {platform.machine()}, one process, "
        f"{args.limit:g} s limit each, {args.table_mb:g} MiB table; `db` is the endgame database used "
        "(every position with at most that many seeds on the board). Published: "
        "experiments/data/kalah_irving2000.json ('?': not confirmed here).",
        "",
        "| m | n | margin | published | agrees | positions | search s | cpu s | db | db load/build s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for pits, seeds, margin, bounds, expected, agree, nodes, seconds, k, built, cpu in rows:
        got = f"{margin:+d}" if margin is not None else (f"in [{bounds[0]}, {bounds[1]}]" if bounds else "-")
        pub = "?" if expected is None else f"{expected:+d}"
        lines.append(f"| {pits} | {seeds} | {got} | {pub} | {agree} | {nodes:,} | {seconds:.1f} | {cpu:.1f} | {k or '-'} | {built:.0f} |")
    return "\n".join(lines) + "\n"


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments end the script with one line and status 2 (no usage block)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def most_table_mb() -> float:
    """The largest --table-mb: the machine's memory (a table that does not fit would only swap),
    or 1 TiB where the memory cannot be read."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (ValueError, OSError, AttributeError):
        return 2.0**20


def check_arguments(args, parser) -> None:
    """Every argument checked before any work starts (a database built or a game solved): one
    line and status 2 for the first that is wrong, saying what is allowed."""
    if bool(args.kalah_table) == bool(args.game):
        parser.error("give --game NAME[:param=value,...] or --kalah-table (one of them)")
    most = most_table_mb()
    if not (math.isfinite(args.table_mb) and 0.001 <= args.table_mb <= most):
        parser.error(f"--table-mb must be from 0.001 to {most:,.0f} MiB (this machine's memory), not {args.table_mb:g}")
    if not (math.isfinite(args.limit) and 0 <= args.limit <= 10**7):
        parser.error(f"--limit must be from 0 (no limit) to 10,000,000 seconds, not {args.limit:g}")
    if not (math.isfinite(args.db_entries) and 1 <= args.db_entries <= endgame.MAX_BUILD_POSITIONS):
        parser.error(f"--db-entries must be from 1 to {endgame.MAX_BUILD_POSITIONS:,} positions, not {args.db_entries:g}")
    try:
        if args.kalah_table:
            if args.endgame is not None:
                raise ValueError("--endgame goes with --game (--kalah-table picks its databases: --db-pits, --db-entries)")
            for pits in numbers("--pits", args.pits):
                for seeds in numbers("--seeds", args.seeds):
                    engines.make("kalah", pits=pits, seeds=seeds, empty_capture=True)
            if args.db_pits:
                numbers("--db-pits", args.db_pits)
            if args.out is not None:
                check_writable(args.out, "--out")
        else:
            if args.out is not None:
                raise ValueError("--out goes with --kalah-table (one game's result is printed)")
            name, params = agents.parse_spec(args.game)
            game = engines.make(name, **params)
            if args.endgame is not None:
                game.check_endgame_size(args.endgame)
    except ValueError as error:
        parser.error(str(error))


def main(argv=None) -> None:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", help="game and parameters, e.g. konane-classic:size=6")
    parser.add_argument("--kalah-table", action="store_true", help="compute the table of Irving et al.")
    parser.add_argument("--pits", default="1,2,3,4,5,6", help="--kalah-table: the m to solve")
    parser.add_argument("--seeds", default="1,2,3,4,5", help="--kalah-table: the n to solve")
    parser.add_argument("--limit", type=float, default=1800.0, help="seconds per game (default 1800; 0: no limit)")
    parser.add_argument("--endgame", type=int, default=None, help="Kalah: endgame database of K seeds")
    parser.add_argument("--db-entries", type=float, default=6e8,
                        help="--kalah-table: the largest endgame database to build, in positions (bytes)")
    parser.add_argument("--db-pits", default="5,6",
                        help="--kalah-table: the m whose games use an endgame database (the smaller solve fast without)")
    parser.add_argument("--out", default=None, help="--kalah-table: Markdown file to write")
    parser.add_argument("--seed", type=int, default=0, help="seed of the start position (random openings)")
    parser.add_argument("--table-mb", type=float, default=1024.0, help="transposition table size (MiB)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    check_arguments(args, parser)
    try:
        if args.kalah_table:
            kalah_table(args)
        else:
            solve_one(args)
    except ValueError as error:  # bad input: an unknown game or parameter, a database too large
        parser.error(str(error))


if __name__ == "__main__":
    main()
