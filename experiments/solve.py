"""Solve a game from its start position to its exact value, or compute the Kalah table of Irving,
Donkers and Uiterwijk ("Solving Kalah", 2000).

    python experiments/solve.py --game kalah:pits=6,seeds=4,empty_capture=true
    python experiments/solve.py --game kalah:pits=6,seeds=5,empty_capture=true --endgame 24 --threads 2
    python experiments/solve.py --game konane-classic:size=6
    python experiments/solve.py --kalah-table --out kalah_table.md

One game: prints the first player's final margin under perfect play (Kalah: store difference;
capture-scored Konane: capture difference; a game without a margin: win, draw or loss), a best
first move, the positions searched, the null-window searches of MTD(f), and the time: processor
time (summed over the threads) and wall-clock time beside it (board_arena/agents/solver.py).
``--limit`` counts processor time, so whether a solve finishes does not depend on the machine's
load. ``--endgame K`` loads (building it once, on every core, with a progress bar) the Kalah
endgame database of every position with at most K seeds on the board
(board_arena/engines/mancala/endgame.py). ``--book`` reads the variant's book of solved
positions from the cache folder and adds this solve's expensive proofs to it, the proven bounds
of a solve that ran out of time (or was stopped with Ctrl-C) too, so that the next run goes on
from there (off by default: a timing is then of the search alone).

``--kalah-table``: solves Kalah(m, n) under Irving's rules (``empty_capture=true``) for the pits
and seeds asked, in order of size, each within ``--limit`` seconds of processor time (a game that
does not finish is reported with the bounds proven, and the larger n of the same m are skipped);
prints each result beside the published one (experiments/data/kalah_irving2000.json: the result
of every entry, the margin where the paper gives it) and writes the table to a Markdown file.
Benchmarks: ``taskset -c 1 python experiments/solve.py ...`` keeps a one-thread solve on one core.

Every bad argument is one line and status 2 (checked before any work, the output file's folder
included); Ctrl-C is one line and status 130.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_arena import (  # noqa: E402
    agents,
    engines,
)
from board_arena.agents.solver import MAX_THREADS, Book, new_solver_table, solve  # noqa: E402
from board_arena.commandline import (  # noqa: E402
    OneLineParser,
    ignoring_interrupts,
    interrupt_handled,
)
from board_arena.engines.mancala import endgame  # noqa: E402
from board_arena.files import write_text_whole  # noqa: E402

PUBLISHED = Path(__file__).resolve().parent / "data" / "kalah_irving2000.json"
PROG = "solve.py"


def published_results() -> dict[tuple[int, int], tuple[str, int | None]]:
    """(pits, seeds) -> the published (result, margin) of the first player (margin None where the
    paper gives the result only)."""
    data = json.loads(PUBLISHED.read_text())
    return {(e["pits"], e["seeds"]): (e["result"], e["margin"]) for e in data["entries"]}


def describe(margin: int, has_margin: bool) -> str:
    if not has_margin:
        return {1: "win", 0: "draw", -1: "loss"}[margin]
    if margin == 0:
        return "draw"
    return f"{'win' if margin > 0 else 'loss'} by {abs(margin)}"


def endgame_for(state, seeds: int | None, *, progress: bool = True, rebuild: bool = False):
    """The endgame database of ``seeds`` seeds for ``state``'s variant (Kalah), built once."""
    if not seeds:
        return None
    return state.game.endgame.database(state, seeds, build_missing=True, progress=progress, rebuild=rebuild)


def timing(solution) -> str:
    return f"{solution.cpu_seconds:.2f} s of processor time ({solution.seconds:.2f} s wall, {solution.threads} thread" \
           f"{'s' if solution.threads > 1 else ''})"


def solve_one(args) -> None:
    name, params = agents.parse_spec(args.game, kind="game")
    game = engines.make(name, **params)
    state = game.new_initial_state(args.seed)
    if args.endgame and game.endgame is None:
        raise ValueError(f"--endgame: {game.name} has no endgame databases")
    if args.endgame:
        game.endgame.check_size(args.endgame)
    built = time.perf_counter()
    db = endgame_for(state, args.endgame, progress=not args.quiet, rebuild=args.rebuild_endgame)
    built = time.perf_counter() - built
    book = Book(game) if args.book else None
    warm_up(state, db)
    table = new_solver_table(args.table_mb)
    table[:] = 0  # touch the pages now: the kernel's page faults are not the search's time
    try:
        solution = solve(state, table=table, endgame=db, cpu_time=args.limit or None, threads=args.threads, book=book,
                         guess=args.guess)
    except KeyboardInterrupt:
        if book is not None:  # what the search proved until Ctrl-C is kept for the next run
            print(f"\n{PROG}: saving the book (a second Ctrl-C waits for it)", file=sys.stderr)
            with ignoring_interrupts():
                book.harvest(table)
                book.save()
        raise
    mover = game.player_names[state.current_player]
    extras = (f", endgame database <= {db[1]} seeds (loaded or built in {built:.1f} s)" if db else "") + \
             (f", book of {len(book):,} positions" if book is not None else "")
    if not solution.exact:
        print(f"{game!r}: not solved within {args.limit:g} s of processor time; the first player's margin is in "
              f"[{solution.lower}, {solution.upper}] ({solution.nodes:,} positions, {timing(solution)}{extras})")
    else:
        print(f"{game!r}: a {describe(solution.margin, solution.has_margin)} for {mover} (the first to move), "
              f"e.g. with {state.format_move(solution.move)}")
        print(f"proof: {solution.nodes:,} positions, {solution.searches} null-window searches, {timing(solution)}{extras}")
    if args.counters:
        print(counters_line(solution))
    if book is not None:
        path = book.save()
        print(f"book: {len(book):,} positions ({book.solved():,} solved, the rest with proven bounds) in {path}")


def counters_line(solution) -> str:
    """The search's shape: per player to move, the positions that failed high on the first move
    searched (the share) and on a later one, those whose every move was searched; cutoffs by a
    child's known bounds; table probes found and stores that replaced another position."""
    c = solution.counters
    parts = []
    for p in (0, 1):
        cuts = c["cut_first_p" + str(p)] + c["cut_later_p" + str(p)]
        parts.append(f"player {p}: {cuts:,} cut ({c['cut_first_p' + str(p)] / max(1, cuts):.1%} on the first move), "
                     f"{c['all_p' + str(p)]:,} all-moves")
    return (f"search shape: {'; '.join(parts)}; {c['etc_cuts']:,} cut by a child's known bounds; table: "
            f"{c['probe_hits'] / max(1, c['probes']):.1%} of {c['probes']:,} probes found, "
            f"{c['evictions'] / max(1, c['stores']):.1%} of {c['stores']:,} stores replaced another position")


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
    published = published_results()
    rows = []
    pits_list = numbers("--pits", args.pits)
    seeds_list = numbers("--seeds", args.seeds)
    db_pits = set(numbers("--db-pits", args.db_pits)) if args.db_pits else set()
    for pits in pits_list:
        if pits > 8:
            raise ValueError(f"--pits: Kalah has 1..8 pits a row, not {pits}")
    for seeds in seeds_list:
        if seeds > 10:
            raise ValueError(f"--seeds: Kalah has 1..10 seeds a pit, not {seeds}")
    limit = f"{args.limit:g} s of processor time each" if args.limit else "no time limit"
    print(f"Kalah(m, n) under Irving's rules, {args.threads} thread{'s' if args.threads > 1 else ''}, {limit}, "
          f"table {args.table_mb:g} MiB")
    table = new_solver_table(args.table_mb)
    table[:] = 0
    for pits in pits_list:
        gave_up = False
        for seeds in seeds_list:
            game = engines.make("kalah", pits=pits, seeds=seeds, empty_capture=True)
            state = game.new_initial_state()
            expected = published.get((pits, seeds), (None, None))
            if gave_up:
                rows.append(Row(pits, seeds, None, None, expected, "skipped (a smaller n did not finish)"))
                continue
            k = default_endgame_seeds(pits, 2 * pits * max(seeds_list), args.db_entries) if pits in db_pits else None
            built = time.perf_counter()
            db = endgame_for(state, k, progress=not args.quiet, rebuild=args.rebuild_endgame)
            built = time.perf_counter() - built
            warm_up(state, db)
            table[:] = 0
            solution = solve(state, table=table, endgame=db, cpu_time=args.limit or None, threads=args.threads)
            if solution.exact:
                agree = verdict(solution.margin, expected)
            else:
                agree = "not finished"
                gave_up = True
            row = Row(pits, seeds, solution, k, expected, agree, built if db else 0.0)
            rows.append(row)
            print(row.line(), flush=True)
    agreed = sum(row.agree == "yes" for row in rows)
    print(f"{agreed} of {len(rows)} agree with the published results")
    if args.out:
        write_text_whole(args.out, markdown(rows, args))
        print(f"wrote {args.out}")


def verdict(margin: int, expected: tuple[str | None, int | None]) -> str:
    """'yes' when the computed margin has the published result (and margin, where published)."""
    result, published_margin = expected
    if result is None:
        return "unpublished"
    ours = "W" if margin > 0 else "L" if margin < 0 else "D"
    if ours != result or (published_margin is not None and published_margin != margin):
        return "NO"
    return "yes"


class Row:
    """One game of the table."""

    def __init__(self, pits, seeds, solution, k, expected, agree, built=0.0):
        self.pits, self.seeds, self.solution, self.k, self.expected, self.agree, self.built = (
            pits, seeds, solution, k, expected, agree, built)

    def cells(self) -> tuple[str, str]:
        s = self.solution
        got = "-" if s is None else f"{s.margin:+d}" if s.exact else f"in [{s.lower}, {s.upper}]"
        result, margin = self.expected
        pub = "?" if result is None else result + (f" {margin:+d}" if margin is not None else "")
        return got, pub

    def line(self) -> str:
        got, pub = self.cells()
        s = self.solution
        work = "" if s is None else f"{s.nodes:>15,} positions {s.cpu_seconds:8.1f} s cpu ({s.seconds:.1f} s wall)"
        db = f"  db<={self.k} (loaded or built in {self.built:.0f} s)" if self.k else ""
        return f"Kalah({self.pits},{self.seeds}): {got:>14}  published {pub:>6}  {self.agree:<12} {work}{db}"


def markdown(rows, args) -> str:
    limit = f"{args.limit:g} s of processor time" if args.limit else "no"
    lines = [
        "# Kalah(m, n) solved under the rules of Irving, Donkers and Uiterwijk (2000)",
        "",
        "The first player's final margin under perfect play (store difference; + the first player wins).",
        f"Computed by `experiments/solve.py --kalah-table` on {platform.machine()}, {args.threads} thread(s), "
        f"{limit} limit each, {args.table_mb:g} MiB table; `db` is the endgame database used "
        "(every position with at most that many seeds on the board). Published: the result (W, D, L) "
        "and, where the paper gives it, the margin (experiments/data/kalah_irving2000.json).",
        "",
        "| m | n | margin | published | agrees | positions | cpu s | wall s | db | db load/build s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        got, pub = row.cells()
        s = row.solution
        nodes, cpu, wall = ("-", "-", "-") if s is None else (f"{s.nodes:,}", f"{s.cpu_seconds:.1f}", f"{s.seconds:.1f}")
        lines.append(f"| {row.pits} | {row.seeds} | {got} | {pub} | {row.agree} | {nodes} | {cpu} | {wall} | "
                     f"{row.k or '-'} | {row.built:.0f} |")
    return "\n".join(lines) + "\n"


def numbers(option: str, text: str) -> list[int]:
    """A comma-separated list of positive whole numbers, e.g. ``1,2,3``."""
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise ValueError(f"{option} takes positive whole numbers separated by commas, e.g. 1,2,3; got {text!r}")
    return values


def _memory_mb() -> float:
    """The machine's memory in MiB (infinite where the platform does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**20
    except (AttributeError, ValueError, OSError):
        return float("inf")


def check_args(parser: argparse.ArgumentParser, args) -> None:
    """Every argument checked before any work: one line and status 2 for the first bad one."""
    if not (args.kalah_table or args.game):
        parser.error("give --game or --kalah-table")
    if args.kalah_table and args.game:
        parser.error("give --game or --kalah-table, not both")
    if args.kalah_table and args.endgame is not None:
        parser.error("--endgame goes with --game (--kalah-table picks its databases with --db-entries and --db-pits)")
    if args.kalah_table and args.guess is not None:
        parser.error("--guess goes with --game (each game of the table has its own value)")
    if args.game and args.out:
        parser.error("--out goes with --kalah-table (a --game solve prints its result)")
    if not args.limit >= 0 or args.limit == float("inf"):
        parser.error(f"--limit must be seconds of processor time >= 0 (0: no limit), not {args.limit:g}")
    if not 0 < args.table_mb <= _memory_mb() / 2:
        parser.error(f"--table-mb must be more than 0 and at most half the machine's memory "
                     f"({_memory_mb() / 2:,.0f} MiB), not {args.table_mb:g}")
    if not 1 <= args.threads <= MAX_THREADS:
        parser.error(f"--threads must be 1..{MAX_THREADS}, not {args.threads}")
    if args.endgame is not None and not 0 <= args.endgame <= endgame.MAX_DB_SEEDS:
        parser.error(f"--endgame must be 0..{endgame.MAX_DB_SEEDS} seeds on the board, not {args.endgame}")
    if not args.db_entries > 0 or args.db_entries > endgame.MAX_BUILD_POSITIONS:
        parser.error(f"--db-entries must be more than 0 and at most {endgame.MAX_BUILD_POSITIONS:,}, not {args.db_entries:g}")
    if args.out:
        folder = Path(args.out).resolve().parent
        if Path(args.out).is_dir():
            parser.error(f"--out {args.out} is a folder: give a file name")
        if not folder.is_dir() or not os.access(folder, os.W_OK):
            parser.error(f"--out {args.out}: the folder {folder} does not exist or cannot be written")
    for option in ("pits", "seeds", "db_pits"):
        if args.kalah_table and getattr(args, option):
            try:
                numbers("--" + option.replace("_", "-"), getattr(args, option))
            except ValueError as error:
                parser.error(str(error))


def main(argv=None) -> int:
    parser = OneLineParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", help="game and parameters, e.g. konane-classic:size=6")
    parser.add_argument("--kalah-table", action="store_true", help="compute the table of Irving et al.")
    parser.add_argument("--pits", default="1,2,3,4,5,6", help="--kalah-table: the m to solve")
    parser.add_argument("--seeds", default="1,2,3,4,5", help="--kalah-table: the n to solve")
    parser.add_argument("--limit", type=float, default=1800.0,
                        help="seconds of processor time per game, summed over the threads (default 1800; 0: no limit)")
    parser.add_argument("--threads", type=int, default=1, help=f"threads searching at once, 1..{MAX_THREADS} (default 1)")
    parser.add_argument("--endgame", type=int, default=None, help="Kalah: endgame database of K seeds")
    parser.add_argument("--rebuild-endgame", action="store_true", help="build the endgame database again (a damaged file)")
    parser.add_argument("--book", action="store_true", help="read and add to the variant's book of solved positions")
    parser.add_argument("--db-entries", type=float, default=6e8,
                        help="--kalah-table: the largest endgame database to build, in positions (bytes)")
    parser.add_argument("--db-pits", default="5,6",
                        help="--kalah-table: the m whose games use an endgame database (the smaller solve fast without)")
    parser.add_argument("--out", default=None, help="--kalah-table: Markdown file to write")
    parser.add_argument("--seed", type=int, default=0, help="seed of the start position (random openings)")
    parser.add_argument("--table-mb", type=float, default=1024.0, help="table of proven bounds, MiB (default 1024)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument("--guess", type=int, default=None,
                        help="--game: the first player's margin that MTD(f) tests first, in place of iterative-deepening "
                             "estimates (a direct proof of a known value: with 2 threads, 'at least it' and 'not more' at "
                             "once); a wrong guess costs time, never correctness")
    parser.add_argument("--counters", action="store_true", help="--game: print the search's shape (cutoffs, table use)")
    try:
        args = parser.parse_args(argv)
        check_args(parser, args)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 2
    try:
        if args.kalah_table:
            kalah_table(args)
        else:
            solve_one(args)
        return 0
    except (ValueError, OSError) as error:  # bad input: an unknown game or parameter, a database that fails its checks
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        interrupt_handled()
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
