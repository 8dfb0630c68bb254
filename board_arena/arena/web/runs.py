"""The tournament runs of ``arena serve``'s runs folder, finished or being played: their
standings, crosstable and SPRT as ``arena report`` computes them, their stored games, and the
games in progress that a running ``arena run`` publishes (:mod:`arena.tournament.live`).

Nothing here writes in a run folder: the database is read through a read-only connection
(:class:`arena.tournament.store.RunStore` ``readonly``), and a run's summary is computed again only when
its database files have changed since the last look (a page polls every second).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from board_arena import engines
from board_arena.arena.tournament.live import read_live
from board_arena.arena.tournament.store import DB_NAME

__all__ = ["RunBrowser", "PLOTS"]

PLOTS = ("elo.png", "scores.png", "history.png")
#: Runs whose summaries are kept (the least recently asked for go first).
KEPT_SUMMARIES = 16


class NotFound(ValueError):
    """What a request named is not there (the message says what is)."""


class Malformed(ValueError):
    """What a request named is there but cannot be shown (a live file whose moves are not the
    game's; the message says why)."""


@dataclass
class _Cached:
    key: tuple
    summary: dict[str, Any]
    run: Any  # the arena.tournament.run.Run it was made from


class RunBrowser:
    """The runs of one folder. Thread-safe."""

    def __init__(self, runs_dir: str):
        self.runs_dir = runs_dir
        self._lock = threading.Lock()
        self._cache: dict[str, _Cached] = {}

    def names(self) -> list[str]:
        """The run folders (those holding a results database), sorted."""
        try:
            entries = os.listdir(self.runs_dir)
        except OSError:
            return []
        return sorted(n for n in entries if os.path.isfile(os.path.join(self.runs_dir, n, DB_NAME)))

    def listing(self) -> list[dict[str, Any]]:
        """Each run's name and whether it is being played now."""
        return [{"name": name, "running": read_live(os.path.join(self.runs_dir, name))["running"]} for name in self.names()]

    def folder(self, name: str) -> str:
        """The folder of run ``name``: only folders of the listing, never a path from a request.

        Raises:
            NotFound: no such run.
        """
        if name not in self.names():
            raise NotFound(f"no run {name!r} in {self.runs_dir}")
        return os.path.join(self.runs_dir, name)

    def _files_key(self, folder: str) -> tuple:
        """What changes when the run's database does: the database file and its write-ahead log."""
        key: list[tuple[int, int] | None] = []
        for suffix in ("", "-wal"):
            try:
                stat = os.stat(os.path.join(folder, DB_NAME + suffix))
                key.append((stat.st_mtime_ns, stat.st_size))
            except OSError:
                key.append(None)
        return tuple(key)

    def _load(self, name: str) -> _Cached:
        from board_arena.arena.tournament.run import load_run

        folder = self.folder(name)
        key = self._files_key(folder)
        with self._lock:
            cached = self._cache.get(name)
        if cached is not None and cached.key == key:
            return cached
        run = load_run(folder)
        cached = _Cached(key, _summary(name, run), run)
        with self._lock:
            self._cache.pop(name, None)
            self._cache[name] = cached
            while len(self._cache) > KEPT_SUMMARIES:
                self._cache.pop(next(iter(self._cache)))
        return cached

    def summary(self, name: str) -> dict[str, Any]:
        """The run as the page shows it: settings, progress, standings (the report's cells),
        crosstable, SPRT, games, plots, the report's text, and whether it is being played, with
        its games in progress.

        Raises:
            NotFound: no such run.
            ValueError: the folder holds no readable run (the message says why).
        """
        cached = self._load(name)
        live = read_live(self.folder(name))
        finished = {g["id"] for g in cached.summary["games"]}
        in_progress = [
            {"id": g["game_id"], "players": g["players"], "plies": len(g["moves"])}
            for g in live["games"]
            if g["game_id"] not in finished
        ]
        plots = [p for p in PLOTS if os.path.isfile(os.path.join(self.folder(name), p))] if not live["running"] else []
        return {**cached.summary, "running": live["running"], "in_progress": in_progress, "plots": plots}

    def game(self, name: str, game_id: int) -> dict[str, Any]:
        """A game of the run, move by move: a stored one (``over`` true), or one in progress.

        Raises:
            NotFound: the run has no such game, stored or in progress.
            Malformed: the game in progress has moves that are not the game's.
        """
        cached = self._load(name)
        run = cached.run
        if any(g.id == game_id for g in run.games):
            record = run.game_record(game_id)
            over = True
            end_reason = record.metadata.get("end_reason", "rules")
        else:
            entry = next((g for g in read_live(self.folder(name))["games"] if g["game_id"] == game_id), None)
            if entry is None:
                done = len(run.games)
                raise NotFound(f"no game {game_id} in run {name!r}, finished or in progress ({done} finished)")
            record = engines.GameRecord(run.settings.game, dict(run.settings.game_params), entry["game_seed"],
                                        list(entry["moves"]), {"players": entry["players"]})
            over = False
            end_reason = None
        try:
            states = list(record.positions())
        except ValueError as error:  # a live file whose moves are not this game's
            raise Malformed(f"game {game_id} in progress of run {name!r} cannot be shown: {error}") from None
        final = states[-1][0]
        game = final.game
        if not over:
            result = None
        elif final.is_terminal():  # by the rules, or a draw by the ply cap
            result = _with_reason(game.result_text(final), final.end_reason)
        else:  # lost by an agent's failure
            result = end_reason
        return {
            "game": record.game, "id": game_id, "family": game.family, "players": record.metadata["players"],
            "positions": [{**drawing_data(state, layout=False), "move": move} for state, move in states],
            "layout": game.web.layout(), "over": over, "result": result,
        }

    def plot(self, name: str, plot: str) -> Path:
        """The file of one of the run's plots.

        Raises:
            NotFound: no such plot.
        """
        if plot not in PLOTS:
            raise NotFound(f"no plot {plot!r}; plots: {', '.join(PLOTS)}")
        path = Path(self.folder(name)) / plot
        if not path.is_file():
            raise NotFound(f"run {name!r} has no {plot}")
        return path


def _summary(name: str, run: Any) -> dict[str, Any]:
    """What the page shows of a run's stored games (the live part is added per request)."""
    from board_arena.arena.statistics.sprt import format_sprt
    from board_arena.arena.tournament.report import (
        crosstable_rows,
        describe_settings,
        format_report,
        standings_rows,
    )

    settings = run.settings
    ratings = run.ratings()
    names = [ratings.names[i] for i in ratings.order()]
    games = [{"id": g.id, "players": [g.player0, g.player1], "result": g.result, "score": g.score,
              "plies": g.plies, "end_reason": g.end_reason} for g in run.games]
    return {
        "name": name,
        "settings": describe_settings(settings),
        "done": len(run.games),
        "total": settings.total_games,
        "standings": standings_rows(ratings) if run.games else [],
        "crosstable": crosstable_rows(settings, names, run.games) if run.games else [],
        "sprt": format_sprt(settings, run.games) if settings.sprt else [],
        "games": games,
        "report": format_report(settings, run.games, ratings),
    }


def _with_reason(text: str, reason: str | None) -> str:
    return f"{text}; {reason}" if reason and reason not in text else text


def drawing_data(state: engines.State, layout: bool = True) -> dict[str, Any]:
    """What a drawing of ``state`` is made from (see ``static/boards.js``): the board, the
    variant's layout (unless ``layout`` is false: a replay sends it once), the groups to mark
    after the last move, and for a game without a drawing of its own its text rendering."""
    game = state.game
    data: dict[str, Any] = {"board": state.board(), "highlights": game.web.highlights(state)}
    if layout:
        data["layout"] = game.web.layout()
    if game.web.drawing is None:
        data["text"] = state.render()
    return data
