"""The morris databases: what each sector holds, what it cost, and what it is worth in play.

    python experiments/morris_databases.py --game nine-mens-morris --stones 12
    python experiments/morris_databases.py --game morabaraba --stones 12
    python experiments/morris_databases.py --game morabaraba --stones 12 --match 200

Builds the sectors that are missing from the cache folder (board_arena/engines/morabaraba/
retrograde.py, on every core, with a progress bar), then prints one row per sector (the mover's
cows against the opponent's): its positions up to the board's 16 symmetries, the share that the
mover wins, draws and loses under perfect play, the longest win and loss (plies to the next
decisive event), the processor time its build took (a sector is built with its mirror sector
``o-m``; the time is the pair's), positions per processor second, and the file's size; then the
totals and this process's peak memory.

``--match N``: alpha-beta with the databases (``alphabeta:time=T,endgame=K``) against alpha-beta
without (``alphabeta:time=T``) from N random positions with ``K - 2`` to ``K`` cows on the board
(``K``: ``--stones``; six at the least) and none in hand (both sides with at least four where there
are eight or more, the game not over), each played twice with the sides swapped, at ``--move-time``
seconds a move (0.1), two games at a time: the database side's score with its 95% interval, the
start positions' values under perfect play (the databases'), in how many games each side scored
less than its value (a mistake that cost the result: never the database side's), and how the
games ended. Every random choice flows from ``--seed``. Bad arguments are one line and
status 2.
"""

from __future__ import annotations

import multiprocessing
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_arena import agents, engines  # noqa: E402
from board_arena.arena.tournament.report import score_interval  # noqa: E402
from board_arena.arena.tournament.settings import parse_game_spec  # noqa: E402
from board_arena.commandline import OneLineParser, positive_int, script_status  # noqa: E402
from board_arena.engines import datafile  # noqa: E402
from board_arena.engines.morabaraba import retrograde  # noqa: E402
from board_arena.engines.morabaraba.board import POINT_NAMES  # noqa: E402
from board_arena.engines.morabaraba.sectors import LOST_NOW, NO_POSITION  # noqa: E402

PROG = "morris_databases.py"


def parse_args(argv=None):
    parser = OneLineParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="nine-mens-morris", help="nine-mens-morris or morabaraba (or a variant)")
    parser.add_argument("--stones", type=int, default=8, help="the most cows on the board (default 8)")
    parser.add_argument("--threads", type=positive_int, default=None, help="build threads (default: every core)")
    parser.add_argument("--match", type=positive_int, default=None, help="play N random positions twice (see above)")
    parser.add_argument("--move-time", type=float, default=0.1, help="seconds a move in the match (0.1)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        name, raw = parse_game_spec(args.game)
        args.game = engines.make(name, **raw)
        if args.game.family != "morabaraba":
            parser.error(f"--game must be a morris game, not {args.game.name}")
        retrograde.rules_of(args.game)
        retrograde.check_stones(args.game, args.stones)
    except ValueError as error:
        parser.error(str(error))
    if args.match is not None and args.stones < 7:
        parser.error(f"--match plays positions of --stones - 2 (six at the least) to --stones cows: give --stones 7 or "
                     f"more, not {args.stones}")
    if not 0 < args.move_time <= 60:
        parser.error(f"--move-time must be in (0, 60] seconds, not {args.move_time}")
    return args


def sector_rows(game, stones: int) -> list[list[str]]:
    rules = retrograde.rules_of(game)
    rows = [["sector", "positions", "wins", "draws", "losses", "longest win", "longest loss", "build CPU s",
             "positions/CPU s", "file MB"]]
    totals = [0, 0.0, 0]
    for m, o in retrograde.sector_list(stones, int(game.params["cows"])):
        path = retrograde.sector_path(rules, m, o)
        codes = datafile.read(path, retrograde.FILE_KIND, retrograde.FORMAT_VERSION, {}, np.dtype(np.int16))
        header = datafile.read_header(path, retrograde.FILE_KIND)
        real = codes[codes != NO_POSITION]
        wins = real[real > 0]
        losses = real[(real < 0)]
        n = len(real)
        pair = retrograde.sector_size(m, o) + (retrograde.sector_size(o, m) if m != o else 0)
        cpu = float(header.get("build_cpu_seconds", 0.0))
        first = m <= o  # the pair's time once, on its first sector
        rows.append([f"{m}-{o}", f"{n:,}", f"{len(wins) / n:.1%}", f"{(real == 0).sum() / n:.1%}", f"{len(losses) / n:.1%}",
                     str(int(wins.max())) if len(wins) else "-",
                     str(int(np.abs(losses[losses != LOST_NOW].astype(np.int64)).max())) if (losses != LOST_NOW).any() else "-",
                     f"{cpu:.1f}" if first else "(pair)", f"{pair / cpu:,.0f}" if first and cpu > 0 else "",
                     f"{path.stat().st_size / 1e6:.1f}"])
        totals[0] += n
        totals[1] += cpu if first else 0.0
        totals[2] += path.stat().st_size
    rows.append(["all", f"{totals[0]:,}", "", "", "", "", "", f"{totals[1]:.1f}", "", f"{totals[2] / 1e6:.1f}"])
    return rows


def table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip() for r in rows)


def random_positions(game, stones: int, count: int, seed: int) -> list[str]:
    """``count`` position strings of ``stones - 2`` (six at the least) to ``stones`` cows on the
    board (at least four a side, or three where the cows are fewer than eight), none in hand, the
    game not over."""
    rng = np.random.default_rng(seed)
    found: list[str] = []
    while len(found) < count:
        total = int(rng.integers(max(6, stones - 2), stones + 1))
        least = min(4, total // 2)
        white = int(rng.integers(least, total - least + 1))
        points = rng.permutation(24)[:total]
        mover = int(rng.integers(2))
        # The plies of a game that placed every cow and then moved until ``mover`` is to move.
        plies = 2 * int(game.params["cows"]) + mover
        state = game.position(white=[POINT_NAMES[p] for p in points[:white]], black=[POINT_NAMES[p] for p in points[white:]],
                              in_hand=(0, 0), to_move=mover, plies=plies)
        if not state.is_terminal():
            found.append(state.fen())
    return found


def play(job):
    """One game from a position string: the database side in ``seat``; its score and the end."""
    name, params, stones, fen, seat, move_time, seed = job
    game = engines.make(name, **params)
    state = game.from_fen(fen)
    with_db = agents.make_agent(f"alphabeta:time={move_time},endgame={stones}", seed=seed)
    without = agents.make_agent(f"alphabeta:time={move_time}", seed=seed + 1)
    while not state.is_terminal():
        mover = with_db if state.current_player == seat else without
        state.apply_legal(mover.select_move(state))
    outcome = state.outcome()
    score = 0.5 if outcome == 0 else (1.0 if (outcome > 0) == (seat == 0) else 0.0)
    return score, state.end_reason or "", state.ply


def run(args) -> int:
    game, stones = args.game, args.stones
    started, cpu = time.perf_counter(), time.process_time()
    retrograde.load(game, stones, build_missing=True, progress=True, threads=args.threads)
    print(f"{game.name}: the databases of every position after placing with at most {stones} cows on the board "
          f"(ready in {time.perf_counter() - started:.1f} s, {time.process_time() - cpu:.1f} s of processor time here)\n")
    print(table(sector_rows(game, stones)))
    print(f"\npeak memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")
    if args.match is None:
        return 0
    fens = random_positions(game, stones, args.match, args.seed)
    jobs = [(game.name, dict(game.params), stones, fen, seat, args.move_time, args.seed + 2 * i)
            for i, fen in enumerate(fens) for seat in (0, 1)]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        results = pool.map(play, jobs, chunksize=1)
    scores = [score for score, _, _ in results]
    mean, low, high = score_interval(scores)
    # What perfect play gives the database side in each game: it must never score less.
    database = game.endgame.database(game.from_fen(fens[0]), stones)
    owed, for_mover = [], {1: 0, 0: 0, -1: 0}
    for fen in fens:
        state = game.from_fen(fen)
        result = game.endgame.perfect_play(state, database).result
        owed += [(1 + result) / 2, (1 - result) / 2]  # the database side in seat 0, then in seat 1
        for_mover[int(result) if state.current_player == 0 else -int(result)] += 1
    short_with = sum(score < due for score, due in zip(scores, owed))
    short_without = sum(score > due for score, due in zip(scores, owed))
    ends: dict[str, int] = {}
    for _, end, _ in results:
        ends[end] = ends.get(end, 0) + 1
    print(f"\nalphabeta:time={args.move_time},endgame={stones} against alphabeta:time={args.move_time}, {len(fens)} random "
          f"positions of {max(6, stones - 2)} to {stones} cows, each played with both sides: score {mean:.1%} [{low:.1%}, {high:.1%}] "
          f"over {len(scores)} games ({scores.count(1.0)} won, {scores.count(0.5)} drawn, {scores.count(0.0)} lost; "
          f"median {int(np.median([p for _, _, p in results]))} plies)")
    print(f"the start positions under perfect play: {for_mover[1]} won, {for_mover[0]} drawn, {for_mover[-1]} lost for "
          f"the mover; games where a side scored less than its value: {short_with} with the databases, "
          f"{short_without} without")
    print("ends: " + ", ".join(f"{n} x {end}" for end, n in sorted(ends.items(), key=lambda item: -item[1])))
    return 0


def main(argv=None) -> int:
    return script_status(PROG, parse_args, run, argv)


if __name__ == "__main__":
    sys.exit(main())
