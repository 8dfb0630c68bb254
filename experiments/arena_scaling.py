"""How a tournament's throughput scales with ``--concurrency``, and that it does not change the
results: the same tournament is played with 1 and with 2 worker processes (whole wall time,
process start-up included), and the stored games compared. With ``--ray``, each is also played on
Ray actors at the same number of workers (a Ray instance started here once, before the timing, as a
cluster would already be running; actor start and warm-up are timed).

    python experiments/arena_scaling.py
    python experiments/arena_scaling.py --game kalah --agents greedy,mcts:iterations=200 --games 400
    python experiments/arena_scaling.py --ray --concurrency 2 --repeat 3
    python experiments/arena_scaling.py --ray --concurrency 2 --agents greedy,mcts:iterations=2000 --games 1500

Also prints how many kernels the worker processes compiled after their one warm-up (0 expected:
every game after the first runs on already loaded machine code).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import arena  # noqa: E402
from arena.settings import split_agent_list  # noqa: E402


def comparable(run):
    return [{k: v for k, v in r.items() if k not in ("time0", "time1", "finished_at")} for r in run.records()]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="kalah")
    parser.add_argument("--agents", default="greedy,mcts:iterations=300")
    parser.add_argument("--games", type=int, default=600, help="games per pairing")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--ray", action="store_true", help="also play each on a local Ray instance at the same number of workers")
    parser.add_argument("--repeat", type=int, default=1, help="play each this many times and report the median rate")
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
    print(f"{args.game}, {' vs '.join(settings.agents)}, {settings.total_games} games, median of {args.repeat}")
    rates: dict = {}
    runs = {}
    for attempt in range(args.repeat):
        for concurrency in args.concurrency:
            for backend in backends:
                out = f"{scratch.name}/{backend}-{concurrency}-{attempt}"
                start = time.perf_counter()
                run = arena.run_tournament(settings, out, concurrency, progress=False, cluster="ray" if backend == "ray" else None)
                elapsed = time.perf_counter() - start
                rates.setdefault((backend, concurrency), []).append(len(run.games) / elapsed)
                runs[backend, concurrency] = run
                compiled = "-" if run.worker_compilations is None else run.worker_compilations
                print(f"{backend:4} concurrency {concurrency}: {elapsed:6.2f} s, {rates[backend, concurrency][-1]:7.1f} games/s, kernels compiled by workers after warm-up: {compiled}")
    median = {key: statistics.median(values) for key, values in rates.items()}
    first = ("pool", args.concurrency[0])
    for key in median:
        if key != first:
            same = comparable(runs[key]) == comparable(runs[first])
            print(f"{key[0]} at {key[1]} vs pool at {first[1]}: {median[key] / median[first]:.2f}x ({median[key]:.1f} vs {median[first]:.1f} games/s); identical results: {same}")
    scratch.cleanup()


if __name__ == "__main__":
    main()
