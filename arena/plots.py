"""Plots of a run, written as PNG files into its folder: Elo with 95% intervals, the score of every
pairing as a heatmap, and the ratings as the games accumulate. Drawn with matplotlib's object API
(no pyplot state, no display needed)."""

from __future__ import annotations

import os

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from arena.ratings import Ratings, fit_ratings
from arena.report import describe_settings
from arena.settings import TournamentSettings
from arena.store import GameResult

__all__ = ["write_plots", "PLOT_FILES"]

PLOT_FILES = ("elo.png", "scores.png", "history.png")


def _save(fig: Figure, path: str) -> None:
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=120, bbox_inches="tight")


def _title(settings: TournamentSettings, n_games: int) -> str:
    return f"{describe_settings(settings)}\n{n_games} games played"


def plot_elo(settings, ratings: Ratings, n_games: int, path: str) -> None:
    order = [i for i in ratings.order() if not np.isnan(ratings.elo[i])][::-1]  # best on top
    names = [ratings.names[i] for i in order]
    elo = ratings.elo[order]
    low = elo - ratings.low[order]
    high = ratings.high[order] - elo
    fig = Figure(figsize=(8, 1.2 + 0.5 * len(names)))
    ax = fig.add_subplot()
    ax.errorbar(elo, range(len(names)), xerr=[low, high], fmt="o", capsize=4, color="tab:blue")
    for y, value in enumerate(elo):
        ax.annotate(f"{value:+.0f}", (value, y), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=9)
    ax.set_yticks(range(len(names)), names)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("Elo (95% interval)" + (f", {ratings.anchor} = 0" if ratings.anchor else ", mean 0"))
    ax.margins(y=0.3)
    ax.set_title(_title(settings, n_games), fontsize=9)
    _save(fig, path)


def plot_scores(settings, games: list[GameResult], ratings: Ratings, path: str) -> None:
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
    fig = Figure(figsize=(size + 1.5, size))
    ax = fig.add_subplot()
    image = ax.imshow(share * 100, vmin=0, vmax=100, cmap="RdYlGn")
    for i in range(len(names)):
        for j in range(len(names)):
            if played[i, j]:
                ax.text(j, i, f"{100 * share[i, j]:.0f}%\n({played[i, j]:.0f})", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    fig.colorbar(image, ax=ax, label="score % of the agent against the opponent (games)")
    ax.set_title(_title(settings, len(games)), fontsize=9)
    _save(fig, path)


def plot_history(settings, games: list[GameResult], ratings: Ratings, path: str, points: int = 25) -> None:
    """Ratings refitted (without intervals) after more and more games, in schedule order."""
    names = list(ratings.names)
    ordered = sorted(games, key=lambda g: g.id)
    marks = sorted({max(2, int(round(len(ordered) * k / points))) for k in range(1, points + 1)})
    marks = [m for m in marks if m <= len(ordered)]
    history = []
    for m in marks:
        subset = [(g.player0, g.player1, g.score_for(0)) for g in ordered[:m]]
        history.append(fit_ratings(subset, names, anchor=ratings.anchor, intervals=False).elo)
    fig = Figure(figsize=(8, 4.5))
    ax = fig.add_subplot()
    history = np.array(history)
    for i, name in enumerate(names):
        ax.plot(marks, history[:, i], marker=".", label=name)
    ax.set_xlabel("games played")
    ax.set_ylabel("Elo")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    ax.set_title(_title(settings, len(games)), fontsize=9)
    _save(fig, path)


def write_plots(settings: TournamentSettings, games: list[GameResult], ratings: Ratings, out_dir: str) -> list[str]:
    """Writes the three plots into ``out_dir``; returns their paths (none before two games)."""
    if len(games) < 2:
        return []
    paths = [os.path.join(out_dir, name) for name in PLOT_FILES]
    plot_elo(settings, ratings, len(games), paths[0])
    plot_scores(settings, games, ratings, paths[1])
    plot_history(settings, games, ratings, paths[2])
    return paths
