"""The games in progress of a tournament run, published beside its database for anyone to watch
(``arena serve`` shows them move by move while ``arena run`` plays): the run folder's ``live/``.

- ``live/run.json``: ``{"pid", "host", "started"}`` of the run's process, written when the run
  starts and removed when it ends (a run killed outright leaves it, with a pid that is gone).
- ``live/<pid>.json``: one file per process that plays games (a worker, or the run's own
  process with ``--in-process``), written by that process alone: the game it plays, with its
  moves so far (``{"pid", "game_id", "players", "game_seed", "moves", "to_move", "over"}``).

Every file is replaced whole (written aside, then renamed), so a reader never sees half of one;
none of them is the database, whose one writer stays the run's process. A player writes before
a search starts, when the last write is ``LIVE_SECONDS`` old or the agent to move searches for
``SLOW_SEARCH`` or more (its times smoothed over its moves; a write is cheap), and when a game
ends after such a search: quick games cost a write per ``LIVE_SECONDS``, slow agents a write per move, and a watcher never waits
through a long search for the move played before it.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
from datetime import datetime, timezone
from typing import Any, Sequence

__all__ = ["LIVE_FOLDER", "LiveRun", "LiveWriter", "read_live"]

LIVE_FOLDER = "live"
RUN_FILE = "run.json"
#: The longest a game's published moves lag behind its play, for agents that move quickly.
LIVE_SECONDS = 0.2
#: A search at least this long is slow enough to write the position before each one.
SLOW_SEARCH = 0.01


def _replace(path: str, data: dict[str, Any]) -> None:
    """Writes ``data`` as JSON to ``path`` whole (aside, then renamed over it); on a failure (a
    full disk) nothing is left aside."""
    aside = f"{path}.{os.getpid()}.tmp"
    try:
        with open(aside, "w", encoding="utf-8") as handle:
            json.dump(data, handle, separators=(",", ":"))
        os.replace(aside, path)
    except OSError:
        if os.path.exists(aside):
            os.remove(aside)
        raise


class LiveRun:
    """The run's side of ``live/``: :meth:`begin` when the run starts playing (clears what a
    killed run left), :meth:`end` when it stops (removes the folder)."""

    def __init__(self, out_dir: str):
        self.folder = os.path.join(out_dir, LIVE_FOLDER)

    def begin(self) -> None:
        """Raises ValueError when the folder cannot be written (a full disk), leaving none."""
        shutil.rmtree(self.folder, ignore_errors=True)
        started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        try:
            os.makedirs(self.folder, exist_ok=True)
            _replace(os.path.join(self.folder, RUN_FILE), {"pid": os.getpid(), "host": socket.gethostname(), "started": started})
        except OSError as error:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise ValueError(f"cannot write in the run folder {os.path.dirname(self.folder)}: {error.strerror or error}") from None

    def end(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class LiveWriter:
    """A player's side of ``live/``: :meth:`position` before each search and once a game is
    over (``to_move`` None). A failure to write (a full disk) never stops the games: the page
    then shows less."""

    def __init__(self, folder: str):
        self.path = os.path.join(folder, f"{os.getpid()}.json")
        self.last_write = -float("inf")
        self.searching: str | None = None  # the agent whose search the last call announced
        self.since = 0.0  # when that search began
        #: The search time of each agent (by label), smoothed over its moves, kept from game to game.
        self.search_seconds: dict[str, float] = {}

    def position(self, game_id: int, players: Sequence[str], game_seed: int, moves: Sequence[str], to_move: int | None) -> None:
        """The game ``game_id`` between ``players`` (labels by seat) has reached ``moves``, and
        the agent in seat ``to_move`` is about to search (None: the game is over)."""
        # Called before every move of every game: kept to a few operations.
        now = time.monotonic()
        finished = -1.0  # how long the agent that has just moved searches, smoothed (-1: none)
        if self.searching is not None:
            # Halfway to the last time: one search slowed by a busy machine makes no agent slow.
            last = self.search_seconds.get(self.searching, now - self.since)
            finished = self.search_seconds[self.searching] = (last + now - self.since) / 2
        if to_move is None:  # the last move came after a long search: show it now
            self.searching = None
            slow = finished >= SLOW_SEARCH
        else:  # an agent not seen yet counts as slow
            self.searching = agent = players[to_move]
            self.since = now
            slow = self.search_seconds.get(agent, SLOW_SEARCH) >= SLOW_SEARCH
        if not slow and now - self.last_write < LIVE_SECONDS:
            return
        self.last_write = now
        data = {"pid": os.getpid(), "game_id": game_id, "players": list(players), "game_seed": game_seed,
                "moves": list(moves), "to_move": to_move, "over": to_move is None}
        try:
            _replace(self.path, data)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process of that pid
        return True
    return True


def _is_int(value: Any) -> bool:
    return type(value) is int


def _well_formed(entry: Any) -> bool:
    """Whether ``entry`` has the shape :meth:`LiveWriter.position` writes (the moves are checked
    against the rules where they are shown)."""
    return (
        isinstance(entry, dict)
        and all(_is_int(entry.get(key)) for key in ("pid", "game_id", "game_seed"))
        and entry["pid"] > 0 and entry["game_id"] >= 0
        and isinstance(entry.get("players"), list) and len(entry["players"]) == 2
        and all(isinstance(p, str) for p in entry["players"])
        and isinstance(entry.get("moves"), list) and all(isinstance(m, str) for m in entry["moves"])
        and (entry.get("to_move") is None or entry.get("to_move") in (0, 1))
    )


def read_live(out_dir: str) -> dict[str, Any]:
    """What ``live/`` of a run folder says, read without writing anything: ``{"running": bool,
    "started": str or None, "games": [the games in progress, by id]}``. A run counts as
    running while its process lives (on this machine); a player's file counts while its
    process lives; a file that is not a player's is skipped."""
    folder = os.path.join(out_dir, LIVE_FOLDER)
    try:
        with open(os.path.join(folder, RUN_FILE), encoding="utf-8") as handle:
            run = json.load(handle)
        running = run.get("host") == socket.gethostname() and _alive(int(run["pid"]))
    except (OSError, ValueError, KeyError, TypeError):
        return {"running": False, "started": None, "games": []}
    games: dict[int, dict[str, Any]] = {}
    if running:
        for name in os.listdir(folder):
            if not name.endswith(".json") or name == RUN_FILE:
                continue
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as handle:
                    entry = json.load(handle)
                if not _well_formed(entry) or not _alive(entry["pid"]):
                    continue  # not a player's file (written by hand, or by something else)
                game_id = entry["game_id"]
            except (OSError, ValueError):
                continue  # removed or replaced while read: the next look finds it whole
            # A game replayed after its worker died is in two files: the longer one is the newer.
            if game_id not in games or len(entry["moves"]) > len(games[game_id]["moves"]):
                games[game_id] = entry
    return {"running": running, "started": run.get("started"), "games": [games[i] for i in sorted(games)]}
