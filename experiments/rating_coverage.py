"""How often the arena's 95% rating intervals cover the true rating, on synthetic tournaments
with known ratings (round robins simulated from the Bradley-Terry model, with draws).

    python experiments/rating_coverage.py                 # every shape, 400 tournaments each
    python experiments/rating_coverage.py --reps 100 --shape lopsided-8

Options: ``--reps`` tournaments per shape (default 400), ``--shape`` one of the shapes below
(default: all), ``--seed`` (default 0). Prints, per shape, the coverage of every agent and overall,
and the median time of one fit with its intervals. Nominal is 0.95; the arena promises at least
0.93 for every agent.
"""

from __future__ import annotations

import time

import numpy as np

from board_arena.arena.statistics.ratings import fit_ratings
from board_arena.commandline import OneLineParser, positive_int, run_script

#: name: (true ratings, games per pairing)
SHAPES = {
    "even-4": ([0, 0, 0, 0], 20),
    "two-200": ([0, 200], 20),
    "spread-200-4": ([0, 200, 400, 600], 20),
    "spread-400-4": ([0, 400, 800, 1200], 40),
    "spread-300-6": ([0, 300, 600, 900, 1200, 1500], 30),
    "lopsided-8": (list(np.linspace(-600, 600, 8)), 30),
}


def simulate(true, games, rng, draw_share=0.4):
    """Results of a round robin: each game a win, draw or loss with expected score from the true
    ratings; draws take ``draw_share`` of the room the expected score leaves (more between equals)."""
    names = [f"agent{i}" for i in range(len(true))]
    results = []
    for i in range(len(true)):
        for j in range(i + 1, len(true)):
            p = 1.0 / (1.0 + 10.0 ** (-(true[i] - true[j]) / 400.0))
            draw = draw_share * 2.0 * min(p, 1.0 - p)
            outcome = rng.choice(3, size=games, p=[p - draw / 2.0, draw, 1.0 - p - draw / 2.0])
            results += [(names[i], names[j], (1.0, 0.5, 0.0)[o]) for o in outcome]
    return names, results


def coverage(true, games, reps, seed=0):
    """(coverage per agent, median seconds per fit) over ``reps`` simulated tournaments."""
    rng = np.random.default_rng(seed)
    true = np.asarray(true, dtype=float)
    centred = true - true.mean()
    hits = np.zeros(len(true))
    seconds = []
    for _ in range(reps):
        names, results = simulate(true, games, rng)
        start = time.perf_counter()
        ratings = fit_ratings(results, names)
        seconds.append(time.perf_counter() - start)
        hits += (ratings.low <= centred) & (centred <= ratings.high)
    return hits / reps, float(np.median(seconds))


def main() -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=positive_int, default=400, help="tournaments per shape (default 400)")
    parser.add_argument("--shape", choices=sorted(SHAPES), help="one shape (default: all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulation (default 0)")
    args = parser.parse_args()
    print(f"95% intervals, {args.reps} tournaments per shape; coverage per agent (in the order of the true ratings)")
    for name in [args.shape] if args.shape else SHAPES:
        true, games = SHAPES[name]
        per_agent, seconds = coverage(true, games, args.reps, args.seed)
        agents = " ".join(f"{c:.3f}" for c in per_agent)
        print(
            f"{name:<14} {len(true)} agents, {games} games/pairing: min {per_agent.min():.3f}, "
            f"overall {per_agent.mean():.3f}  [{agents}]  fit {1000 * seconds:.0f} ms"
        )


if __name__ == "__main__":
    run_script(main, "rating_coverage.py")
