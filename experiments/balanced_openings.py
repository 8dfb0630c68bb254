"""Balanced openings: random openings kept only when their exact value is near zero.

    python experiments/balanced_openings.py --game kalah --plies 8 --bound 2 --count 100 \\
        --out experiments/data/kalah_balanced_openings.txt --workers 2 --solve-seconds 30

Chess engine testers (fastchess, cutechess) play from opening books whose positions an engine
evaluated and kept within a window: near equal in the classic 8-move books, a modest edge for one
side in the UHO books. A random start is often already decided, and a seat-swapped pair from a
decided start scores 1-1 between any two agents that convert a won position: the match then
measures the openings, not the agents. Kalah can do better than an engine's evaluation: its
openings are solved exactly.

The candidates are the random openings an arena run draws (``--openings random:N``, seed
``--seed``, in pair order: candidate ``i`` is the opening of pair ``i`` of a run of two agents
with that seed, so ``--seed 0`` gives exactly the openings of ``experiments/gauntlet.py``'s
runs). Each distinct candidate is solved (``board_arena/agents/solver.py``, with the largest
endgame database in the cache folder, at most ``--solve-seconds`` of processor time; a first look
of a few seconds proves most unbalanced candidates so, and only the others are solved on); those whose
final margin, under perfect play from the opening, lies within ``[-bound, +bound]`` are written
to ``--out`` in order, each after a comment line with its value and its pair, until ``--count``
are found. The file is an openings file (``arena run --openings FILE``, ``gauntlet.py
--openings FILE``): pairs take its lines in order.

Every solved value is kept in ``--values`` (JSON, the format of ``gauntlet.py``'s
``opening-values.json``: the bounds of the margin by game and moves), so running again, or with
a larger ``--count``, solves only new candidates; a candidate not solved within the budget is
left out (and counted). Printed: how many candidates were won, drawn, lost and balanced for the
first player. Bad arguments are one line and status 2.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from board_arena import engines  # noqa: E402
from board_arena.arena.tournament.openings import MAX_RANDOM_PLIES, Openings  # noqa: E402
from board_arena.arena.tournament.settings import derive_seed, parse_game_spec  # noqa: E402
from board_arena.commandline import OneLineParser, script_status  # noqa: E402
from board_arena.engines import contract  # noqa: E402

#: Candidates drawn at most per opening kept (a bound that almost nothing meets stops here).
MAX_TRIES_PER_OPENING = 50
#: Processor seconds of the first, short solve of each candidate: it proves most unbalanced ones
#: unbalanced (a bound of the margin beyond ``--bound``: the winning side's line is found early,
#: the proof that nothing better exists is the dear part), and only the others are solved on,
#: with what it proved kept in the table.
FIRST_LOOK_SECONDS = 4.0
#: Before any solve, an estimate of the margin (the solver's iterative-deepening MTD(f) to this
#: depth, a fraction of a second); a candidate estimated more than ``ESTIMATE_SLACK`` beyond the
#: bound is not solved (Kalah(6,4): the depth-16 estimate was within 5 seeds of the exact value
#: in the 8 openings of 4 random plies solved, within 2 in 6; of 8 plies, within 1 in 4 of 4).
#: The openings kept are solved exactly all the same; the filter only spends the solver's time
#: where a balanced value is likely.
ESTIMATE_DEPTH = 16
ESTIMATE_SLACK = 3


def candidate(game: engines.Game, plies: int, seed: int, pair: int) -> str:
    """The moves of the random opening of ``pair`` in a run of two agents with seed ``seed`` and
    ``--openings random:PLIES`` (arena.TournamentSettings.start_position), in notation."""
    game_seed = derive_seed(seed, "start", 0, pair)
    state = game.new_initial_state(game_seed)
    played = Openings(random_plies=plies).play(state, pair, derive_seed(game_seed, "opening"))
    return " ".join(move for _, move in played)


def value_key(game: engines.Game, moves: str) -> str:
    """The key of an opening's value in a values file (as gauntlet.py's opening-values.json)."""
    return f"{game!r} {moves}"


# Per worker process: the game, the solver's table and the endgame database, made once.
_WORKER: dict = {}


def _init_worker(game_spec: str, bound: int, table_mb: float, solve_seconds: float, prefilter: bool) -> None:
    name, params = parse_game_spec(game_spec)
    _WORKER.clear()
    _WORKER.update(spec=(game_spec, bound, table_mb, solve_seconds, prefilter), game=engines.make(name, **params),
                   bound=bound, table=None, db=None, table_mb=table_mb, seconds=solve_seconds, prefilter=prefilter)


def _estimate(state: engines.State) -> int:
    """Player 0's final margin as the solver's first estimate sees it (ESTIMATE_DEPTH plies)."""
    from board_arena.agents.solver import (
        CONTROL_SIZE,
        STAT_SIZE,
        estimate,
        new_solver_table,
    )

    data = state.data[0] if state.data.ndim else state.data
    sign = 1 if contract.current_player(data) == 0 else -1
    low, high = (int(v) for v in contract.margin_bounds(data))
    lower, upper = (low, high) if sign == 1 else (-high, -low)
    db, k = _WORKER["db"] if _WORKER["db"] is not None else (np.zeros(0, np.int8), -1)
    if "guess_table" not in _WORKER:
        _WORKER["guess_table"] = new_solver_table(64)
    change = estimate(data, _WORKER["guess_table"], ESTIMATE_DEPTH, db, k, 0, lower, upper, 2**62, 0,
                      np.zeros(STAT_SIZE, np.int64), np.zeros(CONTROL_SIZE, np.int64))
    return int(contract.margin(data)) + sign * int(change)


def solve_opening(moves: str) -> tuple[str, list[int] | None]:
    """Bounds [lower, upper] of player 0's final margin after ``moves``: equal when solved, else
    (the first look proved it unbalanced, or the budget ran out) what was proven; None: not
    solved, its estimate being far from balanced."""
    from board_arena.agents.solver import new_solver_table, solve

    game = _WORKER["game"]
    state = game.new_initial_state(0)
    for token in moves.split():
        state.apply(state.parse_move(token))
    if _WORKER["table"] is None:
        _WORKER["table"] = new_solver_table(_WORKER["table_mb"])
        if game.endgame is not None:
            _WORKER["db"] = game.endgame.database(state, game.endgame.default_size(state), build_missing=True)
    bound, seconds = _WORKER["bound"], _WORKER["seconds"]
    if _WORKER["prefilter"] and abs(_estimate(state)) > bound + ESTIMATE_SLACK:
        return moves, None
    first = min(FIRST_LOOK_SECONDS, seconds)
    solution = solve(state, table=_WORKER["table"], endgame=_WORKER["db"], cpu_time=first)
    if not solution.exact and -bound <= solution.upper and solution.lower <= bound and seconds > first:
        solution = solve(state, table=_WORKER["table"], endgame=_WORKER["db"], cpu_time=seconds - first)
    return moves, [solution.lower, solution.upper]


def balanced_openings(game_spec: str, plies: int, bound: int, count: int, seed: int, values: dict[str, list[int]],
                      *, workers: int = 1, table_mb: float = 1024.0, solve_seconds: float = 60.0,
                      prefilter: bool = True, on_solved=None) -> tuple[list[tuple[str, int, int]], dict[str, int]]:
    """The first ``count`` distinct candidates (in pair order) whose exact value for player 0 lies
    within ``[-bound, bound]``, as (moves, value, pair); and the tally of every distinct candidate
    looked at: ``won``, ``drawn``, ``lost`` (for player 0), ``undecided``, ``balanced``, and
    ``estimated unbalanced`` (with ``prefilter``: not solved, the solver's estimate lying more than
    ESTIMATE_SLACK beyond the bound). A candidate proven unbalanced in a first short solve is not
    solved on (its value is known only as a bound beyond ``bound``).

    ``values`` (key: :func:`value_key`) holds the bounds already known and receives the new ones;
    ``on_solved()`` is called after each new one (to save them). Solves run on ``workers``
    processes, each with its own table of ``table_mb`` MiB.

    Raises:
        ValueError: a game with hidden information, or bad counts.
    """
    name, params = parse_game_spec(game_spec)
    game = engines.make(name, **params)
    if not game.perfect_information:
        raise ValueError(f"{game.name} has hidden information: its openings cannot be solved")
    if not 1 <= plies <= MAX_RANDOM_PLIES:
        raise ValueError(f"--plies must be from 1 to {MAX_RANDOM_PLIES}, not {plies}")
    if bound < 0 or count < 1 or workers < 1:
        raise ValueError("--bound must be at least 0, --count and --workers at least 1")

    def candidates() -> Iterator[tuple[int, str]]:
        seen: set[str] = set()
        for pair in range(count * MAX_TRIES_PER_OPENING):
            moves = candidate(game, plies, seed, pair)
            if moves not in seen:
                seen.add(moves)
                yield pair, moves

    tally = dict.fromkeys(("won", "drawn", "lost", "undecided", "balanced", "estimated unbalanced"), 0)
    estimated_far: set[str] = set()  # not solved: their estimates lie far beyond the bound
    kept: list[tuple[str, int, int]] = []
    pool = None
    try:
        stream = candidates()
        while len(kept) < count:
            batch = [c for _, c in zip(range(4 * workers), stream)]
            if not batch:
                break
            todo = [moves for _, moves in batch if value_key(game, moves) not in values and moves not in estimated_far]
            if todo and workers > 1 and pool is None:
                pool = multiprocessing.get_context("fork").Pool(workers, _init_worker, (game_spec, bound, table_mb, solve_seconds, prefilter))
            if todo:
                if pool is None:
                    if _WORKER.get("spec") != (game_spec, bound, table_mb, solve_seconds, prefilter):  # a new table for new settings
                        _init_worker(game_spec, bound, table_mb, solve_seconds, prefilter)
                    solved = map(solve_opening, todo)
                else:
                    solved = pool.imap(solve_opening, todo)
                for moves, bounds in solved:
                    if bounds is None:
                        estimated_far.add(moves)
                        continue
                    values[value_key(game, moves)] = bounds
                    if on_solved is not None:
                        on_solved()
            for pair, moves in batch:
                if moves in estimated_far:
                    tally["estimated unbalanced"] += 1
                    continue
                lower, upper = values[value_key(game, moves)]
                kind = "won" if lower > 0 else "lost" if upper < 0 else "drawn" if lower == upper == 0 else "undecided"
                tally[kind] += 1
                if lower == upper and abs(lower) <= bound and len(kept) < count:
                    tally["balanced"] += 1
                    kept.append((moves, lower, pair))
    finally:
        if pool is not None:
            pool.terminate()
    return kept, tally


def write_openings(path: Path, game_spec: str, plies: int, bound: int, seed: int, kept: list[tuple[str, int, int]],
                   prefilter: bool = True) -> None:
    """The openings file: a header, then per opening a comment with its value and the line."""
    lines = [
        f"# {game_spec} openings for arena run --openings (one per line, in the game's notation): the first",
        f"# {len(kept)} random:{plies} openings of seed {seed} (in pair order, distinct) whose exact final margin",
        f"# for the first player lies within [-{bound}, +{bound}]; written by experiments/balanced_openings.py",
        f"# (candidates estimated more than {ESTIMATE_SLACK} seeds beyond the bound were not solved)." if prefilter
        else "# (every candidate solved).",
    ]
    for moves, value, pair in kept:
        lines += [f"# pair {pair}: {value:+d}", moves]
    path.write_text("\n".join(lines) + "\n")


def parse_args(argv):
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="kalah", help="the game, with parameters if any (default kalah)")
    parser.add_argument("--plies", type=int, default=4, help="random plies per opening (default 4)")
    parser.add_argument("--bound", type=int, default=2, help="the largest |exact margin| kept (default 2)")
    parser.add_argument("--count", type=int, default=100, help="openings to keep (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="the seed of the run whose openings are drawn (default 0)")
    parser.add_argument("--out", required=True, help="the openings file to write")
    parser.add_argument("--values", help="JSON file of the solved values, read and extended (default: OUT.values.json)")
    parser.add_argument("--workers", type=int, default=1, help="solving processes (default 1)")
    parser.add_argument("--no-prefilter", dest="prefilter", action="store_false",
                        help=f"solve every candidate (default: not those whose depth-{ESTIMATE_DEPTH} estimate lies more than "
                        f"{ESTIMATE_SLACK} beyond the bound)")
    parser.add_argument("--table-mb", type=float, default=1024.0, help="the solver's table per process, MiB (default 1024)")
    parser.add_argument("--solve-seconds", type=float, default=60.0,
                        help="processor seconds per opening at most (default 60); an opening not solved is left out")
    args = parser.parse_args(argv)
    if not 1 <= args.plies <= MAX_RANDOM_PLIES:
        parser.error(f"--plies must be from 1 to {MAX_RANDOM_PLIES}, not {args.plies}")
    if args.bound < 0:
        parser.error(f"--bound must be at least 0, not {args.bound}")
    if args.count < 1 or args.workers < 1:
        parser.error("--count and --workers must be at least 1")
    if not 0 < args.table_mb <= 16384:
        parser.error(f"--table-mb must be more than 0 and at most 16384, not {args.table_mb:g}")
    if not args.solve_seconds > 0:
        parser.error(f"--solve-seconds must be more than 0, not {args.solve_seconds:g}")
    try:
        name, params = parse_game_spec(args.game)
        game = engines.make(name, **params)
    except (ValueError, KeyError) as error:
        parser.error(str(error).strip("'\""))
    if not game.perfect_information:
        parser.error(f"{game.name} has hidden information: its openings cannot be solved")
    args.values = Path(args.values or f"{args.out}.values.json")
    return args


def main(argv=None) -> int:
    return script_status("balanced_openings.py", parse_args, run, argv,
                         "interrupted (the values solved so far are kept; run again to go on)")


def run(args) -> int:
    values: dict[str, list[int]] = json.loads(args.values.read_text()) if args.values.is_file() else {}

    def save() -> None:
        args.values.write_text(json.dumps(values, indent=0))

    try:
        kept, tally = balanced_openings(args.game, args.plies, args.bound, args.count, args.seed, values,
                                        workers=args.workers, table_mb=args.table_mb,
                                        solve_seconds=args.solve_seconds, prefilter=args.prefilter, on_solved=save)
    finally:
        save()
    write_openings(Path(args.out), args.game, args.plies, args.bound, args.seed, kept, args.prefilter)
    looked = sum(tally[k] for k in ("won", "drawn", "lost", "undecided"))
    print(f"{len(kept)} openings within [-{args.bound}, +{args.bound}] of {looked} distinct candidates solved "
          f"(for the first player: {tally['won']} won, {tally['drawn']} drawn, {tally['lost']} lost, "
          f"{tally['undecided']} undecided within {args.solve_seconds:g} s; "
          f"{tally['estimated unbalanced']} more not solved, estimated unbalanced) -> {args.out}")
    return 0 if len(kept) == args.count else 1


if __name__ == "__main__":
    sys.exit(main())
