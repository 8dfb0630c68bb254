"""Simulations per second of ``mcts`` with 1, 2, ... threads (root parallelism: one tree per
thread, the kernels run without the interpreter lock), from the start position.

    python experiments/mcts_threads.py --game kalah --threads 1,2 --simulations 400000 --repeats 3

Prints, per thread count, the median over the repeats of the simulations per second of wall time
and per second of processor time (summed over the threads: what the search costs, whatever the
machine's load), and the wall speed-up over one thread. On a machine shared with other work the
wall figures depend on the load: read them beside ``uptime``.
"""

from __future__ import annotations

import os
import statistics
import time

from board_arena import agents, engines
from board_arena.commandline import OneLineParser, int_list, positive_int, run_script


def main() -> None:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kalah", help="game spec (default kalah)")
    parser.add_argument("--threads", type=int_list, default=[1, 2], help="thread counts, comma-separated (default 1,2)")
    parser.add_argument("--simulations", type=positive_int, default=400_000, help="simulations per search (shared by the threads)")
    parser.add_argument("--repeats", type=positive_int, default=3, help="searches per thread count (default 3)")
    parser.add_argument("--agent", default="mcts", help="the mcts spec (default: the defaults)")
    args = parser.parse_args()
    state = engines.make(args.game).new_initial_state(seed=0)
    counts = args.threads
    print(f"{args.game}, {args.agent}, {args.simulations:,} simulations a search, median of {args.repeats}; "
          f"load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print(f"{'threads':>7}  {'wall sims/s':>12}  {'CPU sims/s':>12}  {'wall speed-up':>13}")
    base = None
    for threads in counts:
        agent = agents.make_agent(f"{args.agent}:threads={threads}" if ":" not in args.agent
                                  else f"{args.agent},threads={threads}", seed=0)
        agent.warm_up(state.game)
        wall, cpu = [], []
        for _ in range(args.repeats):
            start_wall, start_cpu = time.perf_counter(), time.process_time()
            info = agent.search(state, agents.Limit(iterations=args.simulations))
            wall.append(info.simulations / (time.perf_counter() - start_wall))
            cpu.append(info.simulations / (time.process_time() - start_cpu))
        rate = statistics.median(wall)
        base = base or rate
        print(f"{threads:>7}  {rate:>12,.0f}  {statistics.median(cpu):>12,.0f}  {rate / base:>12.2f}x")


if __name__ == "__main__":
    run_script(main, "mcts_threads.py")
