"""The terminal report of a run: standings with joint Elo and 95% intervals, the crosstable, the
first-player win rate, game lengths and thinking time per move."""

from __future__ import annotations

import math
import os
import sys
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, TextIO

import numpy as np

from board_arena import engines
from board_arena.arena.statistics.ratings import Ratings
from board_arena.arena.statistics.sprt import format_sprt
from board_arena.arena.tournament.openings import format_openings
from board_arena.arena.tournament.settings import TournamentSettings
from board_arena.arena.tournament.store import GameResult
from board_arena.arena.tournament.verify import failed_seat

if TYPE_CHECKING:  # annotations only: tournament imports this module
    from board_arena.arena.tournament.run import Run

__all__ = [
    "crosstable_rows",
    "describe_settings",
    "format_report",
    "print_report",
    "score_interval",
    "standings_rows",
    "write_report",
]


def write_report(run: Run, anchor: str | None = None, plots: bool = True) -> str:
    """The report of a run as ``arena report`` prints it, after writing its plots (elo.png,
    scores.png, history.png) into the run's folder; the same for a run started from Python.

    Args:
        run: an :class:`arena.Run` (from :func:`arena.run_tournament` or :func:`arena.load_run`).
        anchor: the agent rated 0 (default: mean rating 0).
        plots: write the plots (the text then ends with their paths).

    Raises:
        ValueError: ``anchor`` is not an agent of the run, or has played no game yet.
    """
    ratings = run.ratings(anchor=anchor)
    written = _write_plots(run, ratings) if plots else None
    return _report_text(run, ratings) + (f"\n{written}" if written else "")


def print_report(run: Run, anchor: str | None = None, plots: bool = True, file: TextIO | None = None) -> None:
    """Prints the report of a run (:func:`write_report`'s text) as soon as it is computed, then,
    when ``plots``, writes the plots and prints their paths: drawing them (matplotlib, slow to
    import and draw) never delays the report. A reader that stops early (``arena report DIR |
    head``) still gets the plots written.

    Raises:
        ValueError: ``anchor`` is not an agent of the run, or has played no game yet.
    """
    out = file or sys.stdout
    ratings = run.ratings(anchor=anchor)
    try:
        print(_report_text(run, ratings), file=out, flush=True)
    except BrokenPipeError:
        if plots:
            _write_plots(run, ratings)
        raise
    written = _write_plots(run, ratings) if plots else None
    if written:
        print(written, file=out, flush=True)


def _report_text(run: Run, ratings: Ratings) -> str:
    lines = [format_report(run.settings, run.games, ratings)]
    if run.invalid:
        named = "; ".join(str(g) for g in run.invalid[:3]) + ("; ..." if len(run.invalid) > 3 else "")
        lines.append(f"Left out: {len(run.invalid)} stored games that fail verification ({named}): see arena verify {run.out_dir}")
    lines.append(f"Results: {os.path.join(run.out_dir, 'results.sqlite')}")
    return "\n".join(lines)


def _write_plots(run: Run, ratings: Ratings) -> str | None:
    """Writes the plots; the line that says where they went, or why a folder that cannot take
    them (read-only, a full disk) has none: that costs the plots, never the report."""
    # Imported here, when plots are asked for: matplotlib is slow to import.
    from board_arena.arena.tournament.plots import write_plots

    try:
        paths = write_plots(run.settings, run.games, ratings, run.out_dir)
    except OSError as error:
        return f"Plots: not written, {run.out_dir} cannot take them ({error.strerror or error})"
    return f"Plots: {', '.join(paths)}" if paths else None


def describe_settings(settings: TournamentSettings) -> str:
    """The settings in one line, as the report and the plots head them
    (:meth:`TournamentSettings.describe`)."""
    return settings.describe()


def _table(rows: list[list[str]], align: str) -> list[str]:
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [cell.rjust(w) if a == "r" else cell.ljust(w) for cell, w, a in zip(row, widths, align)]
        out.append("  ".join(cells).rstrip())
    return out


def score_interval(scores: list[float]) -> tuple[float, float, float]:
    """Mean score and its 95% interval ``(mean, low, high)``, always inside [0, 1]: the Wilson
    score interval on the effective number of games, which the draws raise (a draw is half a
    point with no spread: ``n * m(1 - m) / variance`` games of pure wins and losses carry the same
    information). Where the games do not vary (a sweep, all draws) the plain game count is used,
    so such a pairing still gets an honest, non-zero width."""
    n = len(scores)
    mean = sum(scores) / n
    variance = sum((x - mean) ** 2 for x in scores) / n
    effective = n * mean * (1.0 - mean) / variance if variance > 0 else n
    z2 = 1.96**2
    centre = (mean + z2 / (2 * effective)) / (1 + z2 / effective)
    spread = math.sqrt(z2 * mean * (1 - mean) / effective + z2 * z2 / (4 * effective**2)) / (1 + z2 / effective)
    return mean, max(0.0, centre - spread), min(1.0, centre + spread)


def standings_rows(ratings: Ratings) -> list[list[str]]:
    """The standings as the report prints them: a header row, then one row per agent, best first
    (``arena serve`` shows the same cells)."""
    rows = [["Rank", "Agent", "Elo", "95% interval", "Games", "Score", "Draws"]]
    for rank, i in enumerate(ratings.order(), start=1):
        played = max(ratings.games[i], 1)
        rows.append(
            [
                str(rank),
                ratings.names[i],
                "-" if np.isnan(ratings.elo[i]) else f"{ratings.elo[i]:+.0f}",
                "-" if np.isnan(ratings.elo[i]) else f"[{ratings.low[i]:+.0f}, {ratings.high[i]:+.0f}]",
                f"{ratings.games[i]:.0f}",
                f"{100 * ratings.points[i] / played:.1f}%",
                f"{100 * ratings.draws[i] / played:.1f}%",
            ]
        )
    return rows


def crosstable_rows(settings: TournamentSettings, names: list[str], games: list[GameResult]) -> list[list[str]]:
    """The crosstable as the report prints it: wins-draws-losses of each row agent against each
    column agent, a header row of ``names`` first; a pairing the schedule never plays is blank."""
    wdl = {(a, b): [0, 0, 0] for a in names for b in names}
    for g in games:
        for seat, (me, other) in enumerate(((g.player0, g.player1), (g.player1, g.player0))):
            points = g.score_for(seat)
            wdl[me, other][0 if points == 1 else 1 if points == 0.5 else 2] += 1
    # A pairing that the schedule never plays (a gauntlet's) stays blank; one not played yet is 0-0-0.
    scheduled = {frozenset((settings.labels[i], settings.labels[j])) for i, j in settings.pairings}
    rows = [[""] + names]
    for a in names:
        rows.append(
            [a]
            + [
                "-" if a == b else "{}-{}-{}".format(*wdl[a, b]) if frozenset((a, b)) in scheduled else ""
                for b in names
            ]
        )
    return rows


def format_report(settings: TournamentSettings, games: list[GameResult], ratings: Ratings) -> str:
    """The whole report as text."""
    total = settings.total_games
    lines = [f"Tournament: {describe_settings(settings)}", f"Games: {len(games)} of {total} played", ""]
    if not games:
        return "\n".join(lines + ["No game finished yet."])

    reference = f"{ratings.anchor} (rated 0)" if ratings.anchor else "the agents' mean"
    lines += [f"Standings (Elo against {reference}; Bradley-Terry, Firth-penalised, 95% profile-likelihood intervals):"]
    lines += _table(standings_rows(ratings), "rlrrrrr") + [""]

    names = [ratings.names[i] for i in ratings.order()]
    lines += ["Crosstable (wins-draws-losses of the row agent against the column agent):"]
    lines += _table(crosstable_rows(settings, names, games), "l" + "r" * len(names)) + [""]

    lines += ["Pairings (score of the first agent, 95% Wilson interval on the games' spread):"]
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            scores = [g.score_for(0 if g.player0 == a else 1) for g in games if {g.player0, g.player1} == {a, b}]
            if not scores:
                continue
            mean, low, high = score_interval(scores)
            rows.append([f"{a} vs {b}", f"{100 * mean:.1f}%", f"[{100 * low:.1f}%, {100 * high:.1f}%]", f"({len(scores)} games)"])
    lines += _table(rows, "lrrr") + [""]
    if settings.sprt:
        lines += format_sprt(settings, games) + [""]

    n = len(games)
    # Who moves first is seat 0 in most games, but the holder of the greatest tile in dominoes.
    game = settings.make_game()
    first: Counter[float] = Counter()
    for g in games:
        opener = game.new_initial_state(g.game_seed).current_player
        first[g.result if opener == 0 else -g.result] += 1
    lines.append(
        f"First player (the one who moves first): wins {100 * first[1.0] / n:.1f}%, "
        f"draws {100 * first[0.0] / n:.1f}%, losses {100 * first[-1.0] / n:.1f}%"
    )
    if settings.openings:
        lines += format_openings(settings, games)
    plies = [g.plies for g in games]
    lines.append(f"Game length: {sum(plies) / n:.1f} plies on average (shortest {min(plies)}, longest {max(plies)})")
    seconds: dict[str, float] = defaultdict(float)
    moves: Counter[str] = Counter()
    for g in games:
        seconds[g.player0] += g.time0
        seconds[g.player1] += g.time1
        moves[g.player0] += g.moves0
        moves[g.player1] += g.moves1
    per_move = ", ".join(f"{name} {1000 * seconds[name] / max(moves[name], 1):.2f} ms" for name in names)
    lines.append(f"Time per move: {per_move}")
    lines += format_end_reasons(games)
    return "\n".join(lines)


#: Distinct end reasons a report lists at most (the most frequent; a reason that holds a
#: measured time is distinct in every game).
MAX_END_REASONS = 12
#: The kinds of end a game stored by the arena may have besides "rules", as its reason begins.
_END_KINDS = ("lost on time", "crash", "error", "illegal move", engines.PLY_CAP, "adjudicated")


def format_end_reasons(games: list[GameResult]) -> list[str]:
    """The games that did not end by the rules: how many of each kind (lost on time, crash,
    error, illegal move, ply cap, adjudicated) and by whom, then the most frequent reasons as stored."""
    reasons = Counter(g.end_reason for g in games if g.end_reason != "rules")
    if not reasons:
        return []
    kinds: dict[str, Counter[str]] = {}
    for g in games:
        if g.end_reason == "rules":
            continue
        kind = next((k for k in _END_KINDS if g.end_reason.startswith(k)), "other")
        seat = failed_seat(g.end_reason)
        kinds.setdefault(kind, Counter())[(g.player0, g.player1)[seat] if seat is not None else ""] += 1
    lines = ["Games not ended by the rules:"]
    for kind, who in kinds.items():
        by = ", ".join(f"{name} {count}" for name, count in who.most_common() if name)
        lines.append(f"  {kind}: {sum(who.values())}" + (f" ({by})" if by else ""))
    lines += [f"  {count} x {reason}" for reason, count in reasons.most_common(MAX_END_REASONS)]
    if len(reasons) > MAX_END_REASONS:
        lines.append(f"  ... and {len(reasons) - MAX_END_REASONS} other reasons (arena export lists every game's)")
    return lines
