"""The sequential probability ratio test of a match between two agents, on game pairs.

The test is the generalized SPRT (GSPRT) that fastchess and fishtest run, after Michel Van den
Bergh's notes on the pentanomial model and on normalized Elo: the two seat-swapped games of one
start form a pair, and a pair scores 0, 1/2, 1, 3/2 or 2 points for the first agent (the five
outcomes of the *pentanomial* distribution). Scoring pairs rather than games takes the
correlation between the two games of a start into account (a start that favours one seat makes
one win and one loss, not two independent results), which makes the test need fewer games than
one on the trinomial win/draw/loss counts.

The hypotheses are H0: the Elo difference is ``elo0`` and H1: it is ``elo1``. The log-likelihood
ratio is that of the two maximum-likelihood distributions over the five pair outcomes under the
constraint of each hypothesis (the Lagrange-multiplier solution of Van den Bergh's proposition:
``p_i = phat_i / (1 + theta (a_i - s))`` with ``theta`` chosen so the ``p_i`` sum to 1), times
the number of pairs. The test stops with H1 when the LLR reaches ``log((1 - beta) / alpha)`` and
with H0 when it falls to ``log(beta / (1 - alpha))`` (Wald's bounds).

Two Elo models, as in fastchess: ``logistic`` (the default: Elo is the usual logistic function of
the expected score, ``s = 1 / (1 + 10^(-elo / 400))``) and ``normalized`` (Elo in units of the
pair score's spread, ``t = (mu - 1/2) / sigma``, scaled by ``sqrt(2) * ln(10) / 800``, which does
not depend on the draw rate; its maximum-likelihood distribution is found by the fixed-point
iteration of Van den Bergh's notes on normalized Elo).

Empty outcome classes are counted as 0.001 of a pair before the fit (as fastchess does), so that
the logarithms stay finite.

Example:
    >>> test = Sprt.parse("elo0=0,elo1=10")
    >>> [round(b, 2) for b in test.bounds]
    [-2.94, 2.94]
    >>> test.decision(test.llr([10, 60, 200, 80, 30]))  # a clear edge for the first agent
    'H1'
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np
from numpy.typing import ArrayLike

if TYPE_CHECKING:  # annotations only: settings imports this module
    from board_arena.arena.tournament.settings import ScheduledGame, TournamentSettings
    from board_arena.arena.tournament.store import GameResult

__all__ = ["Sprt", "SprtWatch", "sprt_of", "PAIR_SCORES", "pentanomial", "pair_stats", "format_sprt", "pairs_of"]

#: A pair's score for the first agent, as a fraction of the pair's two points.
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
#: Weight of an outcome class no pair fell in (fastchess's regularisation).
EMPTY_CLASS = 1e-3
#: Elo per unit of the normalized t-value (800 / ln 10).
ELO_PER_T = 800.0 / math.log(10.0)
Z95 = 1.959963984540054

MODELS = ("logistic", "normalized")
MAX_NORMALIZED_ELO = 200


def elo_to_score(elo: ArrayLike) -> np.ndarray:
    """Expected score of a player ``elo`` points stronger (logistic model)."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo, float) / 400.0))


def score_to_elo(score: ArrayLike) -> np.ndarray:
    """The logistic Elo difference of an expected score in (0, 1)."""
    clipped = np.clip(np.asarray(score, float), 1e-12, 1 - 1e-12)
    return 400.0 * np.log10(clipped / (1.0 - clipped))


def _elo_or_infinite(score: float) -> float:
    """The logistic Elo of ``score``; a score of 0 or 1 (or beyond, for an interval's bound) is an
    infinite difference, which no finite Elo fits."""
    return -math.inf if score <= 0 else math.inf if score >= 1 else float(score_to_elo(score))


def _solve_theta(probs: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """The root ``theta`` of ``sum_i probs_i phi_i / (1 + theta phi_i) = 0``, by bisection (the
    sum decreases in theta between its poles, so the root is unique). Shapes ``(..., 5)`` in,
    ``(...)`` out: many tests are solved at once."""
    low = -1.0 / phi.max(axis=-1)
    high = -1.0 / phi.min(axis=-1)
    for _ in range(48):  # 2^-48 of the bracket: far below any difference the test sees
        mid = 0.5 * (low + high)
        value = (probs * phi / (1.0 + mid[..., None] * phi)).sum(axis=-1)
        above = value > 0  # the root lies higher
        low = np.where(above, mid, low)
        high = np.where(above, high, mid)
    return 0.5 * (low + high)


def _mle_with_mean(probs: np.ndarray, score: float) -> np.ndarray:
    """The distribution over the pair scores with mean ``score`` closest in likelihood to the
    observed frequencies ``probs`` (Van den Bergh's proposition on the constrained MLE)."""
    phi = PAIR_SCORES - score
    theta = _solve_theta(probs, np.broadcast_to(phi, probs.shape))
    return probs / (1.0 + theta[..., None] * phi)


def _mle_with_t(probs: np.ndarray, t: float) -> np.ndarray:
    """The distribution over the pair scores with normalized ``(mu - 1/2) / sigma = t`` closest in
    likelihood to ``probs``: a fixed-point iteration from the uniform distribution, each step a
    constrained MLE on the linearised constraint (Van den Bergh's notes on normalized Elo)."""
    p = np.full(probs.shape, 1.0 / len(PAIR_SCORES))
    for _ in range(20):
        mu = (p * PAIR_SCORES).sum(axis=-1, keepdims=True)
        sigma = np.sqrt((p * (PAIR_SCORES - mu) ** 2).sum(axis=-1, keepdims=True))
        phi = PAIR_SCORES - 0.5 - 0.5 * t * sigma * (1.0 + ((PAIR_SCORES - mu) / sigma) ** 2)
        theta = _solve_theta(probs, phi)
        new = probs / (1.0 + theta[..., None] * phi)
        done = np.abs(new - p).max() < 1e-7
        p = new
        if done:
            break
    return p


@dataclass(frozen=True)
class Sprt:
    """An SPRT of H0: Elo difference ``elo0`` against H1: ``elo1``, with false-positive rate
    ``alpha`` (accepting H1 when H0 holds) and false-negative rate ``beta``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"SPRT elo0 must be less than elo1, not {self.elo0:g} and {self.elo1:g}")
        if not (-1000 <= self.elo0 and self.elo1 <= 1000):
            raise ValueError("SPRT Elo bounds must lie within -1000 and 1000")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 0.5:
                raise ValueError(f"SPRT {name} must be between 0 and 0.5, not {getattr(self, name):g}")
        if self.model not in MODELS:
            raise ValueError(f"SPRT model must be one of {', '.join(MODELS)}, not {self.model!r}")
        if self.model == "normalized" and not (-MAX_NORMALIZED_ELO <= self.elo0 and self.elo1 <= MAX_NORMALIZED_ELO):
            # Beyond about 230 normalized Elo the constrained fit from the uniform start has no
            # solution (the LLR would be nan); tests use a few normalized Elo.
            raise ValueError(f"SPRT bounds of the normalized model must lie within -{MAX_NORMALIZED_ELO} and {MAX_NORMALIZED_ELO}")

    @classmethod
    def parse(cls, text: str) -> "Sprt":
        """``elo0=0,elo1=10[,alpha=0.05][,beta=0.05][,model=logistic|normalized]``.

        Raises:
            ValueError: a malformed or out-of-range value (the message shows the form).
        """
        form = "write --sprt elo0=0,elo1=10[,alpha=0.05,beta=0.05,model=logistic|normalized]"
        values: dict[str, Any] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, sep, value = item.partition("=")
            key = key.strip()
            if not sep or key not in ("elo0", "elo1", "alpha", "beta", "model") or key in values:
                raise ValueError(f"bad SPRT setting {item[:30]!r}: {form}")
            if key == "model":
                values[key] = value.strip()
                continue
            try:
                number = float(value)
            except ValueError:
                raise ValueError(f"SPRT {key} must be a number, not {value.strip()[:24]!r}: {form}") from None
            if not math.isfinite(number):
                raise ValueError(f"SPRT {key} must be finite, not {value.strip()!r}")
            values[key] = number
        if "elo0" not in values or "elo1" not in values:
            raise ValueError(f"SPRT needs elo0 and elo1: {form}")
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        model = "" if self.model == "logistic" else f", {self.model}"
        return f"elo0={self.elo0:g}, elo1={self.elo1:g}, alpha={self.alpha:g}, beta={self.beta:g}{model}"

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's bounds on the LLR: (accept H0 at or below, accept H1 at or above)."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 against H0 given pentanomial ``counts`` (pairs scoring
        0, 1/2, 1, 3/2, 2 for the first agent)."""
        return float(self.llrs(np.asarray(counts, float)[None])[0])

    def llrs(self, counts: np.ndarray) -> np.ndarray:
        """:meth:`llr` of many count vectors at once: ``counts`` ``(..., 5)`` gives ``(...)``."""
        counts = np.asarray(counts, float)
        regular = np.where(counts > 0, counts, EMPTY_CLASS)
        total = regular.sum(axis=-1)
        probs = regular / total[..., None]
        if self.model == "logistic":
            p0 = _mle_with_mean(probs, float(elo_to_score(self.elo0)))
            p1 = _mle_with_mean(probs, float(elo_to_score(self.elo1)))
        else:
            # Pair scores spread sqrt(2) times less than game scores: the same normalized Elo
            # per game is sqrt(2) times larger a t-value per pair.
            p0 = _mle_with_t(probs, math.sqrt(2) * self.elo0 / ELO_PER_T)
            p1 = _mle_with_t(probs, math.sqrt(2) * self.elo1 / ELO_PER_T)
        llr = total * (probs * (np.log(p1) - np.log(p0))).sum(axis=-1)
        # No pair yet: no evidence either way.
        return np.where(counts.sum(axis=-1) > 0, llr, 0.0)

    def decision(self, llr: float) -> str | None:
        """``"H1"`` (the first agent is at least ``elo1`` stronger, within the error rates),
        ``"H0"`` (at most ``elo0``) or None (keep playing)."""
        low, high = self.bounds
        return "H1" if llr >= high else "H0" if llr <= low else None


def sprt_of(settings: TournamentSettings) -> Sprt:
    """The SPRT of a run.

    Raises:
        ValueError: the run has none.
    """
    if settings.sprt is None:
        raise ValueError("the run has no SPRT (--sprt)")
    return Sprt(**settings.sprt)


def pairs_of(settings: TournamentSettings, games: Iterable[GameResult]) -> list[tuple[GameResult, GameResult]]:
    """The complete seat-swapped pairs among ``games``: ``(first, second)`` results of the same
    start and pairing, both stored (with concurrency pairs complete out of order; a lone game
    waits for its partner). Needs ``settings.swap``."""
    per_round = len(settings.pairings)
    by_id = {g.id: g for g in games}
    pairs = []
    for g in games:
        round_, p = divmod(g.id, per_round)
        if round_ % 2 == 0:
            partner = by_id.get(g.id + per_round)
            if partner is not None:
                pairs.append((g, partner))
    return pairs


def pentanomial(settings: TournamentSettings, games: Iterable[GameResult], agent: str | None = None) -> list[int]:
    """Counts of the complete pairs by the score of ``agent`` (default: the first agent) in them:
    ``[0, 1/2, 1, 3/2, 2]`` points."""
    agent = agent or settings.labels[0]
    counts = [0] * 5
    for first, second in pairs_of(settings, games):
        points = 0.0
        for g in (first, second):
            points += g.score_for(0) if g.player0 == agent else g.score_for(1)
        counts[round(2 * points)] += 1
    return counts


@dataclass(frozen=True)
class PairStats:
    """What the pentanomial counts say about the first agent against the second."""

    pairs: int
    score: float  # mean points per game
    elo: float
    elo_low: float
    elo_high: float
    los: float  # likelihood of superiority: the probability that the first agent is stronger


def pair_stats(counts: Sequence[float]) -> PairStats:
    """Elo difference with its 95% interval and the LOS, from pentanomial ``counts`` (the normal
    approximation on the mean pair score, whose variance the pairs' spread gives: fastchess's
    pentanomial Elo).

    Example:
        >>> s = pair_stats([0, 0, 10, 0, 0])  # ten pairs won once each way
        >>> (s.score, s.elo, s.los)
        (0.5, 0.0, 0.5)
    """
    pairs = np.asarray(counts, float)
    n = pairs.sum()
    if n == 0:
        return PairStats(0, math.nan, math.nan, math.nan, math.nan, math.nan)
    probs = pairs / n
    score = float((probs * PAIR_SCORES).sum())
    variance = float((probs * (PAIR_SCORES - score) ** 2).sum())
    error = math.sqrt(variance / n)
    elo, low, high = (_elo_or_infinite(x) for x in (score, score - Z95 * error, score + Z95 * error))
    if error > 0:
        los = 0.5 * (1 + math.erf((score - 0.5) / (math.sqrt(2) * error)))
    else:  # every pair scored the same
        los = 0.5 if score == 0.5 else float(score > 0.5)
    return PairStats(int(n), score, elo, low, high, los)


class SprtWatch:
    """The SPRT of a run kept up to date as games come back (in any order): pairs are counted in
    schedule order only, each once it and every pair before it are complete, so the test decides
    after the same pairs whatever the concurrency and however the games were timed, and a
    report or resume that replays the stored games reaches the same verdict. ``decision`` is
    ``"H0"``, ``"H1"`` or None."""

    def __init__(self, settings: TournamentSettings, games: Iterable[GameResult] = ()):
        self.settings = settings
        self.test = sprt_of(settings)
        self.first = settings.labels[0]
        self.per_round = len(settings.pairings)
        self.counts = [0] * 5
        self.waiting: dict[int, float] = {}  # pair start id -> first agent's points in the game in
        self.complete: dict[int, float] = {}  # pair start id -> the pair's points, not yet counted
        self.next_pair = 0  # start id of the next pair to count
        self.decision: str | None = None
        self.decided_after: int | None = None  # pairs counted when the test decided
        self.decided_llr: float | None = None  # the LLR that crossed the bound
        for g in games:
            self.add(g)

    @classmethod
    def for_run(cls, settings: TournamentSettings, games: Iterable[GameResult]) -> "SprtWatch | None":
        """The watch of a run with an SPRT; None for a run without."""
        return cls(settings, games) if settings.sprt else None

    def add(self, result: GameResult) -> None:
        """Counts a finished game (its pair once complete, in schedule order)."""
        points = result.score_for(0) if result.player0 == self.first else result.score_for(1)
        round_ = result.id // self.per_round
        key = result.id - (round_ % 2) * self.per_round  # the id of the pair's first game
        if key not in self.waiting:
            self.waiting[key] = points
            return
        self.complete[key] = self.waiting.pop(key) + points
        while self.decision is None and self.next_pair in self.complete:
            self.counts[round(2 * self.complete.pop(self.next_pair))] += 1
            # Pairs are the games of an even round and the next (odd) round, pairing by pairing.
            self.next_pair += 1
            if self.next_pair % self.per_round == 0:
                self.next_pair += self.per_round
            llr = self.test.llr(self.counts)
            self.decision = self.test.decision(llr)
            if self.decision:
                self.decided_after, self.decided_llr = sum(self.counts), llr

    def until_decided(self, todo: Iterable[ScheduledGame]) -> Iterator[ScheduledGame]:
        """The games of ``todo`` up to the decision (checked before each game is handed out)."""
        for scheduled in todo:
            if self.decision:
                return
            yield scheduled


def sprt_state(settings: TournamentSettings, games: list[GameResult]) -> tuple[float, str | None, list[int]]:
    """(LLR, decision or None, pentanomial counts) of the run's SPRT over its complete pairs."""
    test = sprt_of(settings)
    counts = pentanomial(settings, games)
    llr = test.llr(counts)
    return llr, test.decision(llr), counts


def format_sprt(settings: TournamentSettings, games: list[GameResult]) -> list[str]:
    """The SPRT section of a report, e.g. ``LLR 2.98 (-2.94, 2.94) H1 accepted``."""
    test = sprt_of(settings)
    llr, _, counts = sprt_state(settings, games)
    watch = SprtWatch(settings, games)
    low, high = test.bounds
    a, b = settings.labels
    verdict = {"H1": "H1 accepted", "H0": "H0 accepted", None: "undecided"}[watch.decision]
    if watch.decision:
        verdict += f" after {watch.decided_after} pairs"
        # Games handed out before the decision (a pair or two per worker) are played out and
        # stored; the figures below count them, the verdict does not.
        late = len(games) - 2 * (watch.decided_after or 0)
        if late > 0:
            verdict += f"; with the {late} games in flight then, played out: LLR {llr:.2f}"
        llr = watch.decided_llr if watch.decided_llr is not None else llr
    elif len(games) >= settings.total_games:
        verdict += f" after the most games, {settings.total_games} (raise --games to go on)"
    stats = pair_stats(counts)
    lines = [f"SPRT of {a} against {b} ({test}):", f"  LLR {llr:.2f} ({low:.2f}, {high:.2f}) {verdict}"]
    if stats.pairs:
        draws = sum(1 for g in games if g.result == 0.0)
        lines.append(
            f"  Elo difference {a} - {b}: {stats.elo:+.1f} [{stats.elo_low:+.1f}, {stats.elo_high:+.1f}] (95%, from the pairs), "
            f"LOS {100 * stats.los:.1f}%, draw ratio {100 * draws / len(games):.1f}% of games"
        )
    lines.append(
        f"  Pentanomial [0, 0.5, 1, 1.5, 2] points for {a}: {counts} ({stats.pairs} complete pairs)"
    )
    return lines
