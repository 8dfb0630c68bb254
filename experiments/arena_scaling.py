"""How a tournament's throughput scales with ``--concurrency``, and that it does not change the
results: the same tournament is played with 1 and with 2 worker processes (whole wall time,
process start-up included), and the stored games compared.

    python experiments/arena_scaling.py
    python experiments/arena_scaling.py --game kalah --agents greedy,mcts:iterations=200 --games 400

Also prints how many kernels the worker processes compiled after their one warm-up (0 expected:
every game after the first runs on already loaded machine code).
"""

from __future__ import annotations

import argparse
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
    args = parser.parse_args(argv)
    settings = arena.TournamentSettings.create(args.game, split_agent_list(args.agents), games=args.games, seed=1)
    scratch = tempfile.TemporaryDirectory(prefix="arena-scaling-")
    # Compile everything once before timing, as a user's second run would find it.
    warm = arena.TournamentSettings.create(args.game, settings.agents, games=2)
    arena.run_tournament(warm, f"{scratch.name}/warm", 1, False)
    print(f"{args.game}, {' vs '.join(settings.agents)}, {settings.total_games} games")
    rates = {}
    runs = {}
    for concurrency in args.concurrency:
        out = f"{scratch.name}/concurrency-{concurrency}"
        start = time.perf_counter()
        run = arena.run_tournament(settings, out, concurrency, progress=False)
        elapsed = time.perf_counter() - start
        rates[concurrency] = len(run.games) / elapsed
        runs[concurrency] = run
        compiled = "-" if run.worker_compilations is None else run.worker_compilations
        print(f"concurrency {concurrency}: {elapsed:6.2f} s, {rates[concurrency]:7.1f} games/s, kernels compiled by workers after warm-up: {compiled}")
    first = args.concurrency[0]
    for concurrency in args.concurrency[1:]:
        same = comparable(runs[concurrency]) == comparable(runs[first])
        print(f"speed-up {concurrency} vs {first}: {rates[concurrency] / rates[first]:.2f}x; identical results: {same}")
    scratch.cleanup()


if __name__ == "__main__":
    main()
