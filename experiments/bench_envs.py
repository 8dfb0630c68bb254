"""Steps per second of the learning environments, on one core.

    python experiments/bench_envs.py                 # Kalah(6,4), N = 4096
    python experiments/bench_envs.py --game konane --num-envs 1024

Prints: the batched environment's random self-play (``BatchedEnv.step_random``: a random legal
action, the move, the observation and the mask of every game, in one compiled call) and the same
with the actions drawn in a separate call (``step(random_actions())``), as medians of repeated
timings; then the PettingZoo AEC wrapper's cost per step (``e.step`` plus ``e.last``, random
legal actions) and the ratio. Compilation happens before any clock starts.
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np

from board_arena.commandline import OneLineParser, positive_int, run_script
from board_arena.envs import BatchedEnv


def batched(name: str, num_envs: int, repeats: int, steps: int, fused: bool) -> tuple[float, float]:
    """Median steps per second of wall time and of the process's CPU time (the two differ when
    other processes share the core: the CPU-time rate is what one core of its own would give)."""
    env = BatchedEnv(name, num_envs=num_envs, seed=0)
    for _ in range(3):
        env.step_random() if fused else env.step(env.random_actions())  # compile, warm up
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        for _ in range(steps):
            if fused:
                env.step_random()
            else:
                env.step(env.random_actions())
        wall.append(steps * num_envs / (time.perf_counter() - start))
        cpu.append(steps * num_envs / (time.process_time() - start_cpu))
    return statistics.median(wall), statistics.median(cpu)


def pettingzoo_step_seconds(name: str, steps: int) -> float:
    from board_arena.envs.pettingzoo_env import env as aec_env

    e = aec_env(name)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    done_steps = 0
    start = None
    while done_steps < steps + 100:
        if done_steps == 100:
            start = time.perf_counter()  # after the first 100 steps (compilation)
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.reset()
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        done_steps += 1
    return (time.perf_counter() - start) / steps


def main() -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="kalah")
    parser.add_argument("--num-envs", type=positive_int, default=4096)
    parser.add_argument("--steps", type=positive_int, default=200, help="batched steps per timing")
    parser.add_argument("--repeats", type=positive_int, default=7)
    parser.add_argument("--pz-steps", type=positive_int, default=20_000)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"{args.game}, N = {args.num_envs}, one core; load average {os.getloadavg()[0]:.1f} (noisy when > 0)")
    fused, fused_cpu = batched(args.game, args.num_envs, args.repeats, args.steps, fused=True)
    print(
        f"batched random self-play, step_random():       {fused / 1e6:6.2f} M steps/s of wall time, "
        f"{fused_cpu / 1e6:6.2f} M per CPU second (medians of {args.repeats})"
    )
    split, split_cpu = batched(args.game, args.num_envs, args.repeats, args.steps, fused=False)
    print(
        f"batched, step(random_actions()):               {split / 1e6:6.2f} M steps/s of wall time, "
        f"{split_cpu / 1e6:6.2f} M per CPU second"
    )
    per_step = pettingzoo_step_seconds(args.game, args.pz_steps)
    print(f"PettingZoo AEC wrapper, step + last:           {per_step * 1e6:6.1f} us/step ({1 / per_step:,.0f} steps/s)")
    print(f"batched / PettingZoo:                          {fused * per_step:6.0f}x")


if __name__ == "__main__":
    run_script(main, "bench_envs.py")
