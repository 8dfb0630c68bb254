"""Plots of a run, written as PNG files into its folder: Elo with 95% intervals, the score of every
pairing as a heatmap, and the ratings with their 95% bands as the games accumulate. Drawn with
matplotlib's object API (no pyplot state, no display needed).

Every ``plot_*`` function returns its matplotlib ``Figure`` (a notebook shows it) and takes an
optional ``ax`` to draw into (a subplot of the caller's figure) and an optional ``path`` to save
the figure to::

    from board_arena.arena.tournament.plots import plot_elo
    figure = plot_elo(run.settings, run.ratings(), len(run.games))
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from board_arena.arena.statistics.ratings import Ratings, rating_history
from board_arena.arena.tournament.settings import TournamentSettings
from board_arena.arena.tournament.store import GameResult

__all__ = ["write_plots", "PLOT_FILES", "plot_elo", "plot_scores", "plot_history"]

PLOT_FILES = ("elo.png", "scores.png", "history.png")


def _save(fig: Figure, path: str | None) -> Figure:
    """Saves ``fig`` to ``path`` whole or not at all (a full disk leaves the previous file, not a
    truncated one): drawn into a temporary file beside it, renamed into place.

    Raises:
        OSError: the file cannot be written.
    """
    if path is not None:
        if not isinstance(fig.canvas, FigureCanvasAgg):  # a notebook's figure keeps its own canvas
            FigureCanvasAgg(fig)
        partial = f"{path}.partial"
        try:
            fig.savefig(partial, dpi=120, bbox_inches="tight", format=os.path.splitext(path)[1][1:] or "png")
            os.replace(partial, path)
        finally:
            if os.path.exists(partial):
                os.unlink(partial)
    return fig


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> tuple[Figure, Axes]:
    """The caller's axes and their figure, or a new figure of ``figsize`` with one axes."""
    if ax is not None:
        figure = ax.figure
        while not isinstance(figure, Figure):  # axes of a subfigure: the figure that holds it
            figure = figure.figure
        return figure, ax
    fig = Figure(figsize=figsize)
    return fig, fig.add_subplot()


def _title(settings: TournamentSettings, n_games: int) -> str:
    return f"{settings.describe()}\n{n_games} games played"


def plot_elo(settings: TournamentSettings, ratings: Ratings, n_games: int, path: str | None = None, ax: Axes | None = None) -> Figure:
    """Each agent's Elo with its 95% interval, best on top."""
    order = [i for i in ratings.order() if not np.isnan(ratings.elo[i])][::-1]  # best on top
    names = [ratings.names[i] for i in order]
    elo = ratings.elo[order]
    low = elo - ratings.low[order]
    high = ratings.high[order] - elo
    fig, ax = _axes(ax, (8, 1.2 + 0.5 * len(names)))
    ax.errorbar(elo, range(len(names)), xerr=[low, high], fmt="o", capsize=4, color="tab:blue")
    for y, value in enumerate(elo):
        ax.annotate(f"{value:+.0f}", (value, y), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=9)
    ax.set_yticks(range(len(names)), names)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("Elo (95% interval)" + (f", {ratings.anchor} = 0" if ratings.anchor else ", mean 0"))
    ax.margins(y=0.3)
    ax.set_title(_title(settings, n_games), fontsize=9)
    return _save(fig, path)


def plot_scores(
    settings: TournamentSettings, games: list[GameResult], ratings: Ratings, path: str | None = None, ax: Axes | None = None
) -> Figure:
    """The score of every agent (row) against every opponent (column), as a heatmap."""
    names = [ratings.names[i] for i in ratings.order()]
    index = {n: i for i, n in enumerate(names)}
    points = np.zeros((len(names), len(names)))
    played = np.zeros_like(points)
    for g in games:
        a, b = index[g.player0], index[g.player1]
        points[a, b] += g.score_for(0)
        points[b, a] += g.score_for(1)
        played[a, b] += 1
        played[b, a] += 1
    with np.errstate(invalid="ignore"):
        share = np.where(played > 0, points / np.maximum(played, 1), np.nan)
    size = 2.5 + 0.8 * len(names)
    fig, ax = _axes(ax, (size + 1.5, size))
    image = ax.imshow(share * 100, vmin=0, vmax=100, cmap="RdYlGn")
    for i in range(len(names)):
        for j in range(len(names)):
            if played[i, j]:
                ax.text(j, i, f"{100 * share[i, j]:.0f}%\n({played[i, j]:.0f})", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("opponent (each cell: the agent's score %, and the games played)")
    ax.set_ylabel("agent")
    fig.colorbar(image, ax=ax, label="agent's score %")  # short: a long label outgrows the bar
    ax.set_title(_title(settings, len(games)), fontsize=9)
    return _save(fig, path)


def plot_history(
    settings: TournamentSettings,
    games: list[GameResult],
    ratings: Ratings,
    path: str | None = None,
    points: int = 20,
    ax: Axes | None = None,
    history: list[dict[str, Any]] | None = None,
) -> Figure:
    """The ratings refitted after more and more games (in schedule order), each with its 95%
    interval as a band (:func:`arena.statistics.ratings.rating_history`; give its rows as ``history`` to
    draw them without refitting). The legend lists the agents best first; an agent's line starts
    once its games compare it with the others."""
    names = list(ratings.names)
    if history is None:
        ordered = sorted(games, key=lambda g: g.id)
        results = [(g.player0, g.player1, g.score_for(0)) for g in ordered]
        history = rating_history(results, names, anchor=ratings.anchor, points=points)
    fig, ax = _axes(ax, (8, 4.5))
    for name in (names[i] for i in ratings.order()):  # drawn, and so listed in the legend, best first
        rows = [r for r in history if r["agent"] == name]
        if not rows:
            continue
        marks = [r["games"] for r in rows]
        (line,) = ax.plot(marks, [r["elo"] for r in rows], marker=".", label=name)
        ax.fill_between(marks, [r["low"] for r in rows], [r["high"] for r in rows], color=line.get_color(), alpha=0.15, linewidth=0)
    ax.set_xlabel("games played")
    ax.set_ylabel("Elo (95% interval as a band)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    ax.set_title(_title(settings, len(games)), fontsize=9)
    return _save(fig, path)


def write_plots(settings: TournamentSettings, games: list[GameResult], ratings: Ratings, out_dir: str) -> list[str]:
    """Writes the three plots into ``out_dir``; returns their paths (none before two games)."""
    if len(games) < 2:
        return []
    paths = [os.path.join(out_dir, name) for name in PLOT_FILES]
    plot_elo(settings, ratings, len(games), paths[0])
    plot_scores(settings, games, ratings, paths[1])
    plot_history(settings, games, ratings, paths[2])
    return paths
