"""How a tournament's throughput scales with ``--concurrency``, and that it does not change the
results: the same tournament is played with 1 and with 2 worker processes (whole wall time,
process start-up included), and the stored games and per-move logs compared. With ``--ray``, each
is also played on Ray actors at the same number of workers (a Ray instance started here once,
before the timing, as a cluster would already be running; actor start and warm-up are timed).

    python experiments/arena_scaling.py
    python experiments/arena_scaling.py --game kalah --agents greedy,mcts:iterations=200 --games 400
    python experiments/arena_scaling.py --ray --concurrency 2 --move-log on --repeats 3
    python experiments/arena_scaling.py --ray --concurrency 2 --move-log on --agents greedy,mcts:iterations=2000 --games 1500

Also prints how many kernels the worker processes compiled after their one warm-up (0 expected:
every game after the first runs on already loaded machine code).

What the per-move log (board_arena/arena/tournament/movelog.py: every move's search stored with its game) costs: with
``--move-log both`` (the default) every local tournament is played with and without the log
(``ARENA_MOVE_LOG=0``), the repeats interleaved so that a change in the machine's load falls on
both alike, and the median throughputs and their ratio are printed: by wall time, and by CPU time
(this process and its finished worker processes), which other programs on a shared machine
disturb less. Ray workers do not see this process's environment, so Ray plays with the log only.

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

from board_arena import arena  # noqa: E402
from board_arena.arena.tournament.settings import split_agent_list  # noqa: E402
from board_arena.commandline import OneLineParser, positive_int, run_script  # noqa: E402


def comparable(run):
    games = [{k: v for k, v in r.items() if k not in ("time0", "time1", "finished_at")} for r in run.records()]
    moves = [{k: v for k, v in r.items() if k != "seconds"} for r in run.moves()]
    return games, moves


def cpu_seconds() -> float:
    """CPU time of this process and of its worker processes that have ended."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def main(argv=None) -> None:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="kalah")
    parser.add_argument("--agents", default="greedy,mcts:iterations=300")
    parser.add_argument("--games", type=positive_int, default=600, help="games per pairing")
    parser.add_argument("--concurrency", type=positive_int, nargs="+", default=[1, 2])
    parser.add_argument("--ray", action="store_true", help="also play each on a local Ray instance at the same number of workers (with the move log)")
    parser.add_argument(
        "--move-log", choices=("on", "off", "both"), default="both", help="play with the per-move log, without, or both (default)"
    )
    parser.add_argument("--repeats", type=positive_int, default=3, help="tournaments per setting; the median is printed (default 3)")
    args = parser.parse_args(argv)
    settings = arena.TournamentSettings.create(args.game, split_agent_list(args.agents), games=args.games, seed=1)
    scratch = tempfile.TemporaryDirectory(prefix="arena-scaling-")
    # Compile everything once before timing, as a user's second run would find it.
    warm = arena.TournamentSettings.create(args.game, settings.agents, games=2)
    arena.run_tournament(warm, f"{scratch.name}/warm", 1, False)
    backends = ["pool"]
    if args.ray:
        import ray  # pip install -e ".[ray]"

        ray.init(include_dashboard=False, log_to_driver=False, logging_level="ERROR", object_store_memory=200 * 1024 * 1024, runtime_env={"env_vars": {"PYTHONPATH": str(Path(__file__).resolve().parent.parent)}})
        backends.append("ray")
    print(f"{args.game}, {' vs '.join(settings.agents)}, {settings.total_games} games, median of {args.repeats}")
    logs = {"on": [True], "off": [False], "both": [False, True]}[args.move_log]
    # Every setting played: (backend, concurrency, move log on); Ray only with the log (see above).
    keys = [(backend, concurrency, log) for concurrency in args.concurrency for backend in backends for log in logs if backend == "pool" or log]
    seconds = {key: [] for key in keys}
    cpu = {key: [] for key in keys}
    runs = {}
    for repeat in range(args.repeats):
        for key in keys:
            backend, concurrency, log = key
            os.environ["ARENA_MOVE_LOG"] = "1" if log else "0"  # read by every local game (arena.tournament.movelog)
            out = f"{scratch.name}/{backend}-{concurrency}-log-{log}-{repeat}"
            start, start_cpu = time.perf_counter(), cpu_seconds()
            runs[key] = arena.run_tournament(settings, out, concurrency, progress=False, cluster="ray" if backend == "ray" else None)
            seconds[key].append(time.perf_counter() - start)
            cpu[key].append(cpu_seconds() - start_cpu)
    os.environ.pop("ARENA_MOVE_LOG", None)
    rates = {}
    for key in keys:
        backend, concurrency, log = key
        elapsed = statistics.median(seconds[key])
        rates[key] = len(runs[key].games) / elapsed
        compiled = "-" if runs[key].worker_compilations is None else runs[key].worker_compilations
        spread = ", ".join(f"{t:.2f}" for t in seconds[key])
        print(
            f"{backend:4} concurrency {concurrency}, move log {'on ' if log else 'off'}: {elapsed:6.2f} s ({spread}), "
            f"{rates[key]:7.1f} games/s; CPU {statistics.median(cpu[key]):6.2f} s; kernels compiled by workers after warm-up: {compiled}"
        )
    if len(logs) == 2:
        for concurrency in args.concurrency:
            on, off = ("pool", concurrency, True), ("pool", concurrency, False)
            ratio = rates[on] / rates[off]
            cpu_ratio = statistics.median(cpu[off]) / statistics.median(cpu[on])
            print(
                f"concurrency {concurrency}: throughput with the log / without = {ratio:.3f} by wall time "
                f"(the log costs {100 * (1 - ratio):+.1f}%), {cpu_ratio:.3f} by CPU time ({100 * (1 - cpu_ratio):+.1f}%)"
            )
    for key in keys:
        backend, concurrency, log = key
        first = ("pool", args.concurrency[0], log)
        if key != first:
            same = comparable(runs[key]) == comparable(runs[first])
            print(
                f"{backend} at {concurrency} vs pool at {first[1]} (move log {'on' if log else 'off'}): "
                f"{rates[key] / rates[first]:.2f}x ({rates[key]:.1f} vs {rates[first]:.1f} games/s); identical results: {same}"
            )
    scratch.cleanup()


if __name__ == "__main__":
    run_script(main, "arena_scaling.py")
