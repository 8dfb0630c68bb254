"""Speed benchmarks, one core, each figure the median of several timed runs.

    python experiments/bench.py                 # every game
    python experiments/bench.py --games kalah --repeats 7

Prints, per game: random full-game playouts per second from the start position, and the same for
OpenSpiel's C++ implementation of that game where it has one (``pip install open_spiel``, or
``pip install -e ".[bench]"``; its playouts run inside C++), with the ratio measured in the same
run. Then the import + warm-up time of a fresh process that finds every kernel in numba's cache.

Random games need not last as long in both engines, so the table also gives the mean game length
(our plies; OpenSpiel's actions, from random games played through pyspiel) and the ratio of the
rates per ply ("per ply"): playouts per second times the game length, ours over OpenSpiel's.

nine men's morris against OpenSpiel's ``nine_mens_morris``: the same rules where they matter here
(no diagonals, 9 men, flying at three, shooting from a mill only when every opponent man stands
in mills, a loss with two men or no move, a draw after 200 turns, a shot belonging to its turn;
``tests/test_morabaraba.py`` checks the legal moves and results of both, move for move).
The differences: OpenSpiel makes the shot a separate action of the same player, so a uniformly
random player picks a mill-forming move as often as any other and then a target, while ours
picks among (move, shot) pairs, where a mill-forming move comes once per target. Our random games
therefore shoot more and end sooner (about 80 plies against OpenSpiel's 145 turns, 153 actions):
compare the per-ply ratio as well as the playout ratio. (Also, OpenSpiel ends a game as a loss
for the mover when a mill is formed while the opponent has no man on the board; here the move
then shoots nothing. Random play almost never meets that case.)
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engines  # noqa: E402
from engines import contract  # noqa: E402
from engines._jit import rng_from_seed  # noqa: E402


@dataclass(frozen=True)
class Case:
    label: str
    game: str
    params: dict = field(default_factory=dict)
    openspiel: str | None = None  # the same rules in OpenSpiel, if it has them


CASES = [
    Case("kalah (6,4)", "kalah", {}, "mancala"),
    Case("mancala (6,4)", "mancala"),
    Case("morabaraba", "morabaraba"),
    Case("morabaraba-9", "morabaraba-9"),
    Case("nine men's morris", "nine-mens-morris", {}, "nine_mens_morris"),
]


def median_rate(run, repeats: int, seconds: float) -> float:
    """Median over ``repeats`` timed calls of ``run(n)`` (which does n units of work) of units/s,
    with n calibrated so that a call lasts about ``seconds``."""
    n = 1
    while True:  # calibrate (this also warms up)
        start = time.perf_counter()
        run(n)
        elapsed = time.perf_counter() - start
        if elapsed > seconds / 4:
            break
        n *= 4
    n = max(1, int(n * seconds / elapsed))
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        run(n)
        rates.append(n / (time.perf_counter() - start))
    return statistics.median(rates)


def our_playouts(case: Case, repeats: int, seconds: float) -> tuple[float, float]:
    state = engines.make(case.game, **case.params).new_initial_state(seed=0)
    rng = rng_from_seed(0)
    plies = contract.random_playouts(state.data, 1000, rng) / 1000
    rate = median_rate(lambda n: contract.random_playouts(state.data, n, rng), repeats, seconds)
    return rate, plies


def openspiel_playouts(name: str, repeats: int, seconds: float) -> tuple[float, float] | None:
    """OpenSpiel's C++ random playouts from the start: an ``MCTSBot`` limited to one simulation,
    whose ``RandomRolloutEvaluator(n)`` then plays ``n`` random games from the root in C++.
    Returns the rate and the mean actions per random game (200 games played through pyspiel)."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    state = game.new_initial_state()

    def run(n):
        evaluator = pyspiel.RandomRolloutEvaluator(n, 0)
        pyspiel.MCTSBot(game, evaluator, 2.0, 1, 10**6, False, 0, False).step(state)

    choose = random.Random(0)
    actions = 0
    for _ in range(200):
        game_state = game.new_initial_state()
        while not game_state.is_terminal():
            game_state.apply_action(choose.choice(game_state.legal_actions()))
            actions += 1
    return median_rate(run, repeats, seconds), actions / 200


WARM_START = textwrap.dedent(
    """
    import time
    start = time.perf_counter()
    import numpy as np
    import engines
    from engines import contract
    from engines._jit import rng_from_seed
    for name in {games!r}:
        state = engines.make(name).new_initial_state(seed=0)
        contract.random_playouts(state.data, 1, rng_from_seed(0))
        state.apply(state.legal_moves()[0])
        str(state)
    print(time.perf_counter() - start)
    """
)


def warm_start_seconds(games: list[str]) -> tuple[float, float]:
    """Import + warm-up time of a first and of a second fresh process (the second finds every
    kernel in the cache that the first wrote, if it had to)."""
    code = WARM_START.format(games=games)
    times = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
        times.append(float(done.stdout.strip()))
    return times[0], times[1]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(c.game for c in CASES), help="comma-separated games")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure (median)")
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one timed run")
    args = parser.parse_args(argv)
    wanted = args.games.split(",")
    unknown = [g for g in wanted if g not in {c.game for c in CASES}]
    if unknown:
        parser.error(f"no benchmark for {', '.join(unknown)}; benchmarks: {', '.join(c.game for c in CASES)}")
    cases = [c for c in CASES if c.game in wanted]

    print(f"one core, median of {args.repeats} runs of ~{args.seconds:g} s; cpu {os.cpu_count()} cores seen")
    print()
    print(
        f"{'game':<18} {'playouts/s':>12} {'plies':>7}   {'OpenSpiel C++':>26} {'actions':>7} "
        f"{'ratio':>7} {'per ply':>7}"
    )
    for case in cases:
        rate, plies = our_playouts(case, args.repeats, args.seconds)
        reference = openspiel_playouts(case.openspiel, args.repeats, args.seconds) if case.openspiel else None
        if reference:
            ref_rate, ref_length = reference
            ref_text = f"{case.openspiel} {ref_rate:,.0f}"
            ratios = f"{ref_length:>7.1f} {rate / ref_rate:>6.2f}x {rate * plies / (ref_rate * ref_length):>6.2f}x"
        else:
            ref_text, ratios = "-", f"{'-':>7} {'-':>7} {'-':>7}"
        print(f"{case.label:<18} {rate:>12,.0f} {plies:>7.1f}   {ref_text:>26} {ratios}")
    print()
    first, warm = warm_start_seconds([c.game for c in cases])
    print(f"import + warm-up of a fresh process: first {first:.2f} s, warm (kernels from cache) {warm:.2f} s")


if __name__ == "__main__":
    main()
