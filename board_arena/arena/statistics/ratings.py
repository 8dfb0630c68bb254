"""Elo ratings fitted jointly over all games, with 95% profile-likelihood intervals.

The model is Bradley-Terry: agent ``i`` scores against ``j`` with expectation
``g_i / (g_i + g_j)``, a draw counting half a win; Elo is ``400 log10 g``. Ratings are fitted
jointly (who played whom matters), as Ordo and BayesElo do, rather than the per-player pooled
score that cutechess prints.

Why not the plain maximum-likelihood fit with a virtual draw per pairing and a bootstrap (roughly
what BayesElo and Ordo do): on lopsided tournaments such a prior pulls strong and weak agents
toward the middle and the bootstrap refits with the same pull, so the 95% intervals miss the
true rating far more often than one time in twenty. Instead:

* the estimate maximises the likelihood penalised by Jeffreys' prior, ``1/2 log det I(theta)``
  (Firth, "Bias reduction of maximum likelihood estimates", Biometrika 1993): finite for a
  perfect score, and with its first-order bias removed rather than shrunk toward 0;
* each agent's interval is where the penalised profile likelihood stays within the chi-square
  bound (Heinze and Schemper's recommendation for Firth's logistic regression): asymmetric where
  the data are, and wide where an agent won or lost (nearly) everything.

``experiments/rating_coverage.py`` measures the coverage on synthetic tournaments with known
ratings.

    >>> from board_arena.arena.statistics.ratings import fit_ratings
    >>> ratings = fit_ratings([("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10)
    >>> round(ratings.elo_of("a") - ratings.elo_of("b"))  # 3:1 odds
    185
    >>> [round(x) for x in ratings.interval("a")]  # asymmetric, relative to the mean
    [35, 158]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:  # pandas is optional: imported when a DataFrame is asked for
    import pandas

__all__ = ["Ratings", "AgentArray", "fit_ratings", "expected_score", "rating_history", "import_pandas"]

ELO_PER_NEPER = 400.0 / np.log(10.0)
#: The 95% point of the chi-square distribution with one degree of freedom (1.96 squared).
CHI2_95 = 3.841458820694124


def expected_score(elo_difference: float) -> float:
    """Expected score of a player rated ``elo_difference`` above the opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


class AgentArray(np.ndarray):
    """One value per agent: a numpy array in the order of ``names`` (arithmetic, positions,
    ``np.isnan``) that is also read as a mapping from agent name to value (``elo["mcts"]``,
    ``dict(elo)``, ``elo.items()``). Iterating gives the values, as for any array.

    Example:
        >>> elo = AgentArray([12.5, -12.5], ["mcts", "random"])
        >>> elo["mcts"], dict(elo), (elo - 10).tolist()
        (12.5, {'mcts': 12.5, 'random': -12.5}, [2.5, -22.5])
        >>> (elo - 10)["random"]  # one value per agent: still by name
        -22.5
    """

    names: tuple[str, ...]

    def __new__(cls, values: Any, names: Sequence[str]) -> "AgentArray":
        array = np.asarray(values, dtype=np.float64).view(cls)
        if array.shape != (len(names),):
            raise ValueError(f"{len(names)} agents but values of shape {array.shape}")
        array.names = tuple(names)
        return array

    def __array_finalize__(self, obj: Any) -> None:
        # The names follow the values only where there is one value per agent (a + b, a * 2).
        names = getattr(obj, "names", ())
        self.names = names if self.shape == (len(names),) else ()

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return float(np.asarray(self)[self._index(key)])
        return np.asarray(self)[key]  # positions and slices give a plain array (or a number)

    def _index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(f"no agent {name!r}; agents: {', '.join(self.names)}") from None

    def keys(self) -> tuple[str, ...]:
        """The agents' names, in order."""
        return self.names

    def items(self) -> list[tuple[str, float]]:
        """``(name, value)`` per agent, in order."""
        return [(name, float(value)) for name, value in zip(self.names, np.asarray(self))]

    def get(self, name: str, default: Any = None) -> Any:
        """The value of agent ``name``, or ``default`` for a name that is not an agent."""
        return self[name] if name in self.names else default

    def __contains__(self, item: Any) -> bool:
        return item in self.names if isinstance(item, str) else bool(np.asarray(self).__contains__(item))


@dataclass
class Ratings:
    """Fitted ratings, one entry per agent in ``names`` order: each figure an :class:`AgentArray`,
    an array that is also a mapping by name (``ratings.elo["mcts"]``, ``dict(ratings.elo)``).

    Example:
        >>> ratings = fit_ratings([("a", "b", 1.0)] * 3 + [("a", "b", 0.0)])
        >>> round(ratings.elo["a"]), list(ratings.games.keys()), dict(ratings.games)
        (74, ['a', 'b'], {'a': 4.0, 'b': 4.0})
    """

    names: list[str]
    elo: AgentArray  # relative to the anchor (or the mean); NaN for an agent without games
    low: AgentArray  # 95% interval, same reference (equal to elo when intervals were not asked)
    high: AgentArray
    games: AgentArray
    points: AgentArray  # wins + draws / 2
    draws: AgentArray
    anchor: str | None  # None: the mean rating is 0

    def __post_init__(self) -> None:
        for name in ("elo", "low", "high", "games", "points", "draws"):
            setattr(self, name, AgentArray(getattr(self, name), self.names))

    def elo_of(self, name: str) -> float:
        return float(self.elo[self.names.index(name)])

    def interval(self, name: str) -> tuple[float, float]:
        """The 95% interval ``(low, high)`` of an agent's rating (not symmetric in general)."""
        i = self.names.index(name)
        return float(self.low[i]), float(self.high[i])

    def order(self) -> list[int]:
        """Agent indices, best first (agents without games, unrated, last)."""
        return sorted(range(len(self.names)), key=lambda i: (np.isnan(self.elo[i]), -np.nan_to_num(self.elo[i])))

    def to_records(self) -> list[dict[str, Any]]:
        """One plain dict per agent, best first: ``rank, agent, elo, low, high, games, points,
        draws, score`` (``score`` the share of points; None for an agent without games, whose
        ``elo``, ``low`` and ``high`` are None too).

        Example:
            >>> ratings = fit_ratings([("a", "b", 1.0), ("a", "b", 0.5), ("b", "a", 0.0)])
            >>> [(r["rank"], r["agent"], r["games"], r["points"]) for r in ratings.to_records()]
            [(1, 'a', 3, 2.5), (2, 'b', 3, 0.5)]
        """
        records = []
        for rank, i in enumerate(self.order(), start=1):
            rated = not np.isnan(self.elo[i])
            games = int(self.games[i])
            records.append(
                {
                    "rank": rank,
                    "agent": self.names[i],
                    "elo": float(self.elo[i]) if rated else None,
                    "low": float(self.low[i]) if rated else None,
                    "high": float(self.high[i]) if rated else None,
                    "games": games,
                    "points": float(self.points[i]),
                    "draws": int(self.draws[i]),
                    "score": float(self.points[i]) / games if games else None,
                }
            )
        return records

    def to_dataframe(self) -> pandas.DataFrame:
        """:meth:`to_records` as a pandas DataFrame indexed by agent (needs ``pip install pandas``).

        Raises:
            ImportError: pandas is not installed.
        """
        return import_pandas("to_dataframe", "to_records()").DataFrame(self.to_records()).set_index("agent")


def import_pandas(method: str, instead: str) -> Any:
    """pandas, which the DataFrame methods need (an optional library, and a heavy import: only
    when one is called).

    Raises:
        ImportError: pandas is not installed (the message names ``instead``, which needs nothing).
    """
    try:
        import pandas
    except ImportError:
        raise ImportError(
            f'{method} needs pandas: pip install pandas, or pip install -e ".[notebook]" ({instead} needs nothing)'
        ) from None
    return pandas


def _pairing_tables(results: list[tuple[str, str, float]], names: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


class _PenalisedModel:
    """Bradley-Terry log-likelihood with Jeffreys' penalty over the strengths ``theta``
    (natural log units), and its maximisation under linear constraints ``C theta = b``."""

    def __init__(self, n: np.ndarray, points: np.ndarray):
        self.n = n  # games[i, j], symmetric
        self.points = points  # points of i against j
        self.k = len(n)

    def _parts(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        d = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-d))  # expected score of i against j
        w = self.n * p * (1.0 - p)
        laplacian = np.diag(w.sum(axis=1)) - w  # the Fisher information
        grounded = np.zeros((self.k, self.k))  # its inverse with agent 0 held fixed (the gauge)
        grounded[1:, 1:] = np.linalg.inv(laplacian[1:, 1:])
        diagonal = np.diag(grounded)
        # Leverage of each pairing: its share of the information (an effective resistance).
        h = w * (diagonal[:, None] + diagonal[None, :] - 2.0 * grounded)
        return d, p, laplacian, h

    def value(self, theta: np.ndarray) -> float:
        d, _, laplacian, _ = self._parts(theta)
        log_p = -np.logaddexp(0.0, -d)
        sign, log_det = np.linalg.slogdet(laplacian[1:, 1:])
        return float(np.sum(self.points * log_p) + 0.5 * log_det) if sign > 0 else -np.inf

    def gradient_and_information(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Firth's modified score (the score of the data with ``h/2`` added to each pairing's
        points and ``h`` to its games) and the information of the augmented data."""
        _, p, _, h = self._parts(theta)
        games = self.n + h
        gradient = (self.points + h / 2.0 - games * p).sum(axis=1)
        w = games * p * (1.0 - p)
        return gradient, np.diag(w.sum(axis=1)) - w

    def maximise(
        self, theta: np.ndarray, constraints: np.ndarray, targets: np.ndarray, iterations: int = 100
    ) -> tuple[np.ndarray, float]:
        """The maximum of the penalised likelihood over ``constraints @ theta == targets``, by
        Newton steps in the null space of the constraints with a backtracking line search;
        returns (theta, value)."""
        theta = theta + np.linalg.lstsq(constraints, targets - constraints @ theta, rcond=None)[0]
        _, _, vt = np.linalg.svd(constraints)
        null = vt[len(constraints) :].T  # directions that keep the constraints
        value = self.value(theta)
        for _ in range(iterations if null.shape[1] else 0):
            gradient, information = self.gradient_and_information(theta)
            projected = null.T @ gradient
            if np.abs(projected).max() < 1e-9:
                break
            step = null @ np.linalg.solve(null.T @ information @ null, projected)
            scale = 1.0
            while True:
                candidate = theta + scale * step
                candidate_value = self.value(candidate)
                if candidate_value >= value - 1e-12 or scale < 1e-6:
                    break
                scale /= 2.0
            if candidate_value < value - 1e-12:
                break
            theta, value = candidate, candidate_value
            if scale * np.abs(step).max() < 1e-10:
                break
        return theta, value


def _profile_bound(
    model: _PenalisedModel, theta_hat: np.ndarray, best: float, gauge: np.ndarray, agent: int, direction: float, se: float
) -> float:
    """The rating of ``agent`` (natural units, the gauge's reference) at which the penalised
    profile likelihood has dropped by CHI2_95 / 2 on one side of the estimate."""
    constraints = np.vstack([gauge, np.eye(model.k)[agent]])
    estimate = theta_hat[agent] - gauge @ theta_hat
    drop = best - CHI2_95 / 2.0
    warm = theta_hat

    def excess(v: float) -> float:  # > 0 inside the interval, < 0 outside
        nonlocal warm
        warm, value = model.maximise(warm, constraints, np.array([0.0, v]))
        return value - drop

    inside, inside_excess = estimate, CHI2_95 / 2.0
    step = max(2.0 * se, 0.05)
    outside = estimate + direction * step
    outside_excess = excess(outside)
    for _ in range(40):  # widen until the bound is passed (a perfect score has a long tail)
        if outside_excess < 0:
            break
        inside, inside_excess = outside, outside_excess
        step *= 2.0
        outside = estimate + direction * step
        outside_excess = excess(outside)
    else:
        return outside
    for _ in range(60):  # regula falsi (Illinois) between a point inside and one outside
        guess = outside - outside_excess * (outside - inside) / (outside_excess - inside_excess)
        guess_excess = excess(guess)
        if abs(guess_excess) < 1e-6 or abs(outside - inside) < 1e-6:
            return guess
        if guess_excess < 0:
            outside, outside_excess = guess, guess_excess
            inside_excess /= 2.0
        else:
            inside, inside_excess = guess, guess_excess
            outside_excess /= 2.0
    return guess


def fit_ratings(
    results: Iterable[tuple[str, str, float]],
    names: Sequence[str] | None = None,
    anchor: str | None = None,
    intervals: bool = True,
) -> Ratings:
    """Fits Elo ratings to game results (penalised maximum likelihood, see the module docstring).

    Args:
        results: ``(agent, opponent, score of agent)`` per game, score 1, 0.5 or 0.
        names: the agents, in the order wanted (default: order of first appearance).
        anchor: an agent fixed at 0 Elo; None fixes the mean at 0.
        intervals: compute the 95% profile-likelihood intervals (otherwise low = high = elo).

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
    elo = np.full(len(names), np.nan)
    low = np.full(len(names), np.nan)
    high = np.full(len(names), np.nan)
    if len(active) >= 2:
        sub = np.ix_(active, active)
        games, scored = n[sub].copy(), points[sub].copy()
        if not _connected(games > 0):
            # Groups that never met cannot be compared: link every pair by a hundredth of a
            # drawn game, so that the fit exists (and the intervals say how little is known).
            unmet = (games == 0) & ~np.eye(len(active), dtype=bool)
            games += 0.01 * unmet
            scored += 0.005 * unmet
        model = _PenalisedModel(games, scored)
        k = len(active)
        gauge = np.full(k, 1.0 / k) if anchor is None else np.eye(k)[int(np.flatnonzero(active == names.index(anchor))[0])]
        theta, best = model.maximise(np.zeros(k), gauge[None, :], np.zeros(1))
        fitted = theta - gauge @ theta
        elo[active] = fitted * ELO_PER_NEPER
        low[active] = high[active] = elo[active]
        if intervals:
            _, information = model.gradient_and_information(theta)
            covariance = np.linalg.pinv(information)
            for a in range(k):
                if anchor is not None and gauge[a] == 1.0:
                    continue  # the anchor is 0 by definition
                spread = np.eye(k)[a] - gauge
                se = float(np.sqrt(max(spread @ covariance @ spread, 1e-12)))
                bounds = [_profile_bound(model, theta, best, gauge, a, d, se) for d in (-1.0, 1.0)]
                low[active[a]], high[active[a]] = np.array(bounds) * ELO_PER_NEPER
    return Ratings(
        names=names,
        elo=AgentArray(elo, names),
        low=AgentArray(low, names),
        high=AgentArray(high, names),
        games=AgentArray(n.sum(axis=1), names),
        points=AgentArray(points.sum(axis=1), names),
        draws=AgentArray(draws.sum(axis=1), names),
        anchor=anchor,
    )


def _connected(adjacent: np.ndarray) -> bool:
    seen = {0}
    todo = [0]
    while todo:
        i = todo.pop()
        for j in np.flatnonzero(adjacent[i]):
            if int(j) not in seen:
                seen.add(int(j))
                todo.append(int(j))
    return len(seen) == len(adjacent)


def _linked(results: Sequence[tuple[str, str, float]], root: str) -> set[str]:
    """The agents that ``results`` link to ``root`` through games (``root`` included)."""
    opponents: dict[str, set[str]] = {}
    for a, b, _ in results:
        opponents.setdefault(a, set()).add(b)
        opponents.setdefault(b, set()).add(a)
    seen, todo = {root}, [root]
    while todo:
        for other in opponents.get(todo.pop(), ()):
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def rating_history(
    results: Sequence[tuple[str, str, float]],
    names: Sequence[str] | None = None,
    anchor: str | None = None,
    points: int = 20,
    intervals: bool = True,
) -> list[dict[str, Any]]:
    """Ratings refitted on growing prefixes of ``results`` (in the order given: a run's schedule
    order), as rows ``{"games", "agent", "elo", "low", "high"}``: how the ratings and their 95%
    intervals settle as games accumulate. An agent has rows from the first prefix in which its
    games link it to the anchor (without one, to the first game's agents): before, its rating
    would be a convention, not a measurement.

    Args:
        results: ``(agent, opponent, score of agent)`` per game, as for :func:`fit_ratings`.
        names, anchor, intervals: as for :func:`fit_ratings` (without intervals, low = high = elo).
        points: prefixes at most, evenly spread up to all the games (the first has 2 games).

    Example:
        >>> games = [("a", "b", 1.0), ("b", "a", 0.5)] * 10
        >>> rows = rating_history(games, points=4, intervals=False)
        >>> sorted({r["games"] for r in rows}), len(rows)
        ([5, 10, 15, 20], 8)
    """
    results = list(results)
    names = list(names) if names is not None else list(dict.fromkeys(n for a, b, _ in results for n in (a, b)))
    marks = sorted({max(2, int(round(len(results) * k / points))) for k in range(1, points + 1)})
    # With an anchor, the history starts once the anchor has played (it is 0 by definition).
    start = next((i + 1 for i, (a, b, _) in enumerate(results) if anchor in (a, b)), len(results) + 1) if anchor else 0
    rows = []
    for mark in (m for m in marks if start <= m <= len(results)):
        fitted = fit_ratings(results[:mark], names, anchor=anchor, intervals=intervals)
        # An agent is drawn once it is compared with the others: it has played, and its games
        # link it to the anchor (or to the first game's agents). A group that has not met them
        # yet has a rating only by convention (about 0, with a band as wide as the penalty allows).
        compared = _linked(results[:mark], anchor or results[0][0])
        for i, name in enumerate(names):
            if name in compared and not np.isnan(fitted.elo[i]):
                rows.append(
                    {"games": mark, "agent": name, "elo": float(fitted.elo[i]), "low": float(fitted.low[i]), "high": float(fitted.high[i])}
                )
    return rows
