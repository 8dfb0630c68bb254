"""Elo ratings fitted jointly over all games, with 95% intervals from a parametric bootstrap.

The model is Bradley-Terry: agent ``i`` scores against ``j`` with expectation
``g_i / (g_i + g_j)``, a draw counting half a win; Elo is ``400 log10 g``. The maximum-likelihood
strengths come from Hunter's MM iteration ("MM algorithms for generalized Bradley-Terry models",
Annals of Statistics 2004), which is what Ordo and BayesElo fit too, rather than the per-player
pooled-score Elo that cutechess prints (which ignores who played whom). A weak prior, one virtual
draw per pairing that played (BayesElo's prior is two), keeps ratings finite when an agent wins or
loses every game.

Intervals: the fitted model is sampled again (the parametric bootstrap of Ordo ``-s``): every
pairing's games are replayed as wins, draws and losses with the fitted expected score and the
pairing's own draw rate, the ratings refitted, and the 2.5 and 97.5 percentiles kept.

    >>> from arena.ratings import fit_ratings
    >>> ratings = fit_ratings([("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10, bootstrap=200)
    >>> round(ratings.elo_of("a") - ratings.elo_of("b"))  # 3:1 odds, softened by the prior
    185
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

__all__ = ["Ratings", "fit_ratings", "expected_score"]

ELO_PER_NEPER = 400.0 / np.log(10.0)


def expected_score(elo_difference: float) -> float:
    """Expected score of a player rated ``elo_difference`` above the opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


@dataclass
class Ratings:
    """Fitted ratings, one entry per agent in ``names`` order (arrays)."""

    names: list[str]
    elo: np.ndarray  # anchored; NaN for an agent without games
    low: np.ndarray  # 95% interval, anchored
    high: np.ndarray
    games: np.ndarray
    points: np.ndarray  # wins + draws / 2
    draws: np.ndarray
    anchor: str | None  # None: the mean rating is 0

    def elo_of(self, name: str) -> float:
        return float(self.elo[self.names.index(name)])

    def margin(self, i: int) -> float:
        """Half the width of the 95% interval (the '±' of a table)."""
        return float((self.high[i] - self.low[i]) / 2.0)

    def order(self) -> list[int]:
        """Agent indices, best first (agents without games, unrated, last)."""
        return sorted(range(len(self.names)), key=lambda i: (np.isnan(self.elo[i]), -np.nan_to_num(self.elo[i])))


def _pairing_tables(results, names):
    k = len(names)
    index = {name: i for i, name in enumerate(names)}
    n = np.zeros((k, k))  # games between i and j (symmetric)
    points = np.zeros((k, k))  # points of i against j
    draws = np.zeros((k, k))
    for a, b, score in results:
        i, j = index[a], index[b]
        if i == j:
            raise ValueError(f"a game of {a!r} against itself cannot be rated")
        if score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game's score is 0, 0.5 or 1, not {score!r}")
        n[i, j] += 1
        n[j, i] += 1
        points[i, j] += score
        points[j, i] += 1.0 - score
        if score == 0.5:
            draws[i, j] += 1
            draws[j, i] += 1
    return n, points, draws


def _mm_fit(n, wins, iterations=10_000, tolerance=1e-10):
    """Log-strengths maximising the Bradley-Terry likelihood, for a batch of score vectors.

    n: games[k, k]; wins: points[batch, k] (each row one data set). Returns log g[batch, k] with
    mean 0 per row.
    """
    batch, k = wins.shape
    log_g = np.zeros((batch, k))
    for _ in range(iterations):
        g = np.exp(log_g)
        denominator = (n[None, :, :] / (g[:, :, None] + g[:, None, :])).sum(axis=2)
        new = np.log(wins) - np.log(denominator)
        new -= new.mean(axis=1, keepdims=True)
        change = np.abs(new - log_g).max()
        log_g = new
        if change < tolerance:
            break
    return log_g


def _resample(n, draws, elo, samples, seed):
    """Points of every agent in ``samples`` tournaments replayed from the fitted model: each
    pairing's games as wins, draws and losses with the fitted expected score and the pairing's
    own draw rate. Returns points[samples, k]."""
    rng = np.random.default_rng(seed)
    k = len(elo)
    g = 10.0 ** (elo / 400.0)
    expected = g[:, None] / (g[:, None] + g[None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        p_draw = np.where(n > 0, draws / n, 0.0)
    p_win = np.clip(expected - p_draw / 2.0, 0.0, 1.0)
    p_loss = np.clip(1.0 - expected - p_draw / 2.0, 0.0, 1.0)
    sampled = np.zeros((samples, k))
    for i in range(k):
        for j in range(i + 1, k):
            games = int(n[i, j])
            if games == 0:
                continue
            probabilities = np.array([p_win[i, j], p_draw[i, j], p_loss[i, j]])
            outcome = rng.multinomial(games, probabilities / probabilities.sum(), size=samples)
            points_ij = outcome[:, 0] + 0.5 * outcome[:, 1]
            sampled[:, i] += points_ij
            sampled[:, j] += games - points_ij
    return sampled


def fit_ratings(
    results: Iterable[tuple[str, str, float]],
    names: Sequence[str] | None = None,
    anchor: str | None = None,
    bootstrap: int = 1000,
    prior_draws: float = 1.0,
    seed: int = 0,
) -> Ratings:
    """Fits Elo ratings to game results.

    Args:
        results: ``(agent, opponent, score of agent)`` per game, score 1, 0.5 or 0.
        names: the agents, in the order wanted (default: order of first appearance).
        anchor: an agent fixed at 0 Elo; None fixes the mean at 0.
        bootstrap: parametric bootstrap samples for the 95% intervals (0: none, intervals = elo).
        prior_draws: virtual draws added to every pairing that played.
        seed: of the bootstrap's random generator.

    Raises:
        ValueError: unknown anchor, a bad score, or fewer than two agents.
    """
    results = list(results)
    if names is None:
        names = list(dict.fromkeys(name for a, b, _ in results for name in (a, b)))
    names = list(names)
    if len(names) < 2:
        raise ValueError("ratings need games between at least two agents")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not an agent of these games; agents: {', '.join(names)}")
    n, points, draws = _pairing_tables(results, names)
    # Agents without a game yet (an interrupted first round) have no rating: fit the others.
    active = np.flatnonzero(n.sum(axis=1) > 0)
    if anchor is not None and names.index(anchor) not in active:
        raise ValueError(f"anchor {anchor!r} has played no game yet")
    sub = np.ix_(active, active)
    met = n[sub] > 0
    n_prior = n[sub] + prior_draws * met
    points_prior = points[sub] + 0.5 * prior_draws * met
    anchor_at = None if anchor is None else int(np.flatnonzero(active == names.index(anchor))[0])

    def to_elo(log_g):
        elo = log_g * ELO_PER_NEPER
        shift = elo[..., anchor_at] if anchor_at is not None else elo.mean(axis=-1)
        return elo - np.asarray(shift)[..., None]

    elo = np.full(len(names), np.nan)
    low = np.full(len(names), np.nan)
    high = np.full(len(names), np.nan)
    if len(active):
        fitted = to_elo(_mm_fit(n_prior, points_prior.sum(axis=1)[None, :]))[0]
        elo[active] = fitted
        low[active] = high[active] = fitted
        if bootstrap > 0 and len(active) > 1:
            resampled = _resample(n[sub], draws[sub], fitted, bootstrap, seed)
            prior_points = (0.5 * prior_draws * met).sum(axis=1)
            replicate = to_elo(_mm_fit(n_prior, resampled + prior_points[None, :]))
            low[active], high[active] = np.percentile(replicate, [2.5, 97.5], axis=0)
            low = np.fmin(low, elo)
            high = np.fmax(high, elo)
    return Ratings(
        names=names,
        elo=elo,
        low=low,
        high=high,
        games=n.sum(axis=1),
        points=points.sum(axis=1),
        draws=draws.sum(axis=1),
        anchor=anchor,
    )
