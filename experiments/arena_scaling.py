"""How a tournament's throughput scales with ``--concurrency``, and that it does not change the
results: the same tournament is played with 1 and with 2 worker processes (whole wall time,
process start-up included), and the stored games compared.

    python experiments/arena_scaling.py
    python experiments/arena_scaling.py --game kalah --agents greedy,mcts:iterations=200 --games 400

Also prints how many kernels the worker processes compiled after their one warm-up (0 expected:
every game after the first runs on already loaded machine code).

What the per-move log (arena/movelog.py: every move's search stored with its game) costs: with
``--move-log both`` (the default) every tournament is played with and without the log
(``ARENA_MOVE_LOG=0``), the repeats interleaved so that a change in the machine's load falls on
both alike, and the median throughputs and their ratio are printed: by wall time, and by CPU time
(this process and its finished worker processes), which other programs on a shared machine
disturb less.

    python experiments/arena_scaling.py --concurrency 1 --repeats 5
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import arena  # noqa: E402
from arena.settings import split_agent_list  # noqa: E402


def comparable(run):
    games = [{k: v for k, v in r.items() if k not in ("time0", "time1", "finished_at")} for r in run.records()]
    moves = [{k: v for k, v in r.items() if k != "seconds"} for r in run.moves()]
    return games, moves


def cpu_seconds() -> float:
    """CPU time of this process and of its worker processes that have ended."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="kalah")
    parser.add_argument("--agents", default="greedy,mcts:iterations=300")
    parser.add_argument("--games", type=int, default=600, help="games per pairing")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    parser.add_argument(
        "--move-log", choices=("on", "off", "both"), default="both", help="play with the per-move log, without, or both (default)"
    )
    parser.add_argument("--repeats", type=int, default=3, help="tournaments per setting; the median is printed (default 3)")
    args = parser.parse_args(argv)
    settings = arena.TournamentSettings.create(args.game, split_agent_list(args.agents), games=args.games, seed=1)
    scratch = tempfile.TemporaryDirectory(prefix="arena-scaling-")
    # Compile everything once before timing, as a user's second run would find it.
    warm = arena.TournamentSettings.create(args.game, settings.agents, games=2)
    arena.run_tournament(warm, f"{scratch.name}/warm", 1, False)
    print(f"{args.game}, {' vs '.join(settings.agents)}, {settings.total_games} games, median of {args.repeats}")
    logs = {"on": [True], "off": [False], "both": [False, True]}[args.move_log]
    rates = {}
    runs = {}
    for concurrency in args.concurrency:
        seconds = {log: [] for log in logs}
        cpu = {log: [] for log in logs}
        for repeat in range(args.repeats):
            for log in logs:
                os.environ["ARENA_MOVE_LOG"] = "1" if log else "0"  # read by every game (arena.movelog)
                out = f"{scratch.name}/concurrency-{concurrency}-log-{log}-{repeat}"
                start, start_cpu = time.perf_counter(), cpu_seconds()
                run = arena.run_tournament(settings, out, concurrency, progress=False)
                seconds[log].append(time.perf_counter() - start)
                cpu[log].append(cpu_seconds() - start_cpu)
                runs[concurrency, log] = run
        for log in logs:
            elapsed = statistics.median(seconds[log])
            rates[concurrency, log] = len(runs[concurrency, log].games) / elapsed
            run = runs[concurrency, log]
            compiled = "-" if run.worker_compilations is None else run.worker_compilations
            spread = ", ".join(f"{t:.2f}" for t in seconds[log])
            print(
                f"concurrency {concurrency}, move log {'on ' if log else 'off'}: {elapsed:6.2f} s ({spread}), "
                f"{rates[concurrency, log]:7.1f} games/s; CPU {statistics.median(cpu[log]):6.2f} s; "
                f"kernels compiled by workers after warm-up: {compiled}"
            )
        if len(logs) == 2:
            ratio = rates[concurrency, True] / rates[concurrency, False]
            cpu_ratio = statistics.median(cpu[False]) / statistics.median(cpu[True])
            print(
                f"concurrency {concurrency}: throughput with the log / without = {ratio:.3f} by wall time "
                f"(the log costs {100 * (1 - ratio):+.1f}%), {cpu_ratio:.3f} by CPU time ({100 * (1 - cpu_ratio):+.1f}%)"
            )
    first = args.concurrency[0]
    for concurrency in args.concurrency[1:]:
        for log in logs:
            same = comparable(runs[concurrency, log]) == comparable(runs[first, log])
            print(
                f"speed-up {concurrency} vs {first} (move log {'on' if log else 'off'}): "
                f"{rates[concurrency, log] / rates[first, log]:.2f}x; identical results: {same}"
            )
    os.environ.pop("ARENA_MOVE_LOG", None)
    scratch.cleanup()


if __name__ == "__main__":
    main()
