"""Per-move logs: what each agent's search reported for every move of every stored game.

A game's log is one compact JSON array in the ``searches`` column of the ``games`` table, written
with the game in the same insert (so a stored game always has its whole log, and an interrupted
run resumes with complete logs). Entry ``i`` belongs to ply ``i`` (``moves[i]``)::

    [seat, value, exact, depth, nodes, simulations, seconds]   a move an agent chose
    [seat]                                                      a move no agent chose (an opening ply)

``value`` is the search's estimate for the mover in [-1, 1], ``exact`` whether it is a proven
result; fields an agent does not report are ``null`` (see :class:`agents.SearchInfo`). Arrays
rather than one object per move keep the log small and quick to write: the log costs the single
writer of a run little beside the game itself.

SQL users read the logs through the view ``moves`` (one row per ply of every stored game)::

    SELECT agent, avg(depth), avg(nodes) FROM moves WHERE NOT opening GROUP BY agent;

and Python users through :meth:`arena.Run.moves`. A run stored before the logs existed has no
``searches``: its plies come out with the move and nulls.

The environment variable ``ARENA_MOVE_LOG=0`` turns the log off (games are stored with a null
``searches``), to measure what it costs (``experiments/arena_scaling.py --move-log both``).
"""

from __future__ import annotations

import os
import sqlite3
from typing import TYPE_CHECKING, Any, Iterable

from board_arena.agents import SearchInfo

if TYPE_CHECKING:  # annotations only: store imports this module
    from board_arena.arena.tournament.store import GameResult

__all__ = ["SEARCH_FIELDS", "MOVE_COLUMNS", "logging_moves", "search_entry", "opening_entry", "move_rows", "search_note", "add_moves_view"]

#: The fields of a search, in the order of a log entry after the seat.
SEARCH_FIELDS = ("value", "exact", "depth", "nodes", "simulations", "seconds")
#: The columns of the ``moves`` view and of :meth:`arena.Run.moves`, in order.
MOVE_COLUMNS = ("game_id", "ply", "seat", "agent", "move", "opening") + SEARCH_FIELDS


def logging_moves() -> bool:
    """Whether games are played with their per-move log (unless ``ARENA_MOVE_LOG=0``; read for
    every game, so that worker processes started later follow the parent's environment)."""
    return os.environ.get("ARENA_MOVE_LOG", "1") != "0"


def search_entry(seat: int, info: SearchInfo | None) -> list[Any]:
    """The log entry of a move chosen by an agent in ``seat`` whose ``last_search`` is ``info``
    (None: the agent reported nothing, every field is null). Values are rounded to 6 decimals
    (seconds to the microsecond): more digits would only lengthen the log."""
    if info is None:
        return [seat, None, None, None, None, None, None]
    value = info.value
    return [
        seat,
        None if value is None else round(float(value), 6),
        bool(info.exact),
        info.depth,
        info.nodes,
        info.simulations,
        None if info.seconds is None else round(info.seconds, 6),
    ]


def opening_entry(seat: int) -> list[Any]:
    """The log entry of a move that no agent chose (a ply of an opening), played by ``seat``."""
    return [seat]


def move_rows(games: Iterable[GameResult], searches: dict[int, list[list[Any]] | None] | None = None) -> list[dict[str, Any]]:
    """One dict per ply of every game (``arena.GameResult``), with the keys of ``MOVE_COLUMNS``;
    the logs are the games' own or ``searches`` (by game id).

    The agent of a ply is the one in its seat (also for an opening ply, which it did not choose:
    ``opening`` is True there). A game stored without a log gives its moves with every other field
    None.
    """
    rows = []
    nulls = dict.fromkeys(SEARCH_FIELDS)
    for g in games:
        players = (g.player0, g.player1)
        log = g.searches if g.searches is not None else (searches or {}).get(g.id) or ()
        for ply, move in enumerate(g.moves):
            row = {"game_id": g.id, "ply": ply, "seat": None, "agent": None, "move": move, "opening": None}
            entry = log[ply] if ply < len(log) else None
            if entry:
                seat = entry[0]
                row["seat"] = seat
                row["agent"] = players[seat]
                row["opening"] = len(entry) == 1
                row.update(zip(SEARCH_FIELDS, entry[1:]) if len(entry) > 1 else nulls)
                if row["exact"] is not None:
                    row["exact"] = bool(row["exact"])
            else:
                row.update(nulls)
            rows.append(row)
    return rows


def search_note(searches: list[list[Any]] | None, ply: int) -> str:
    """What the search of ``ply`` reported, for a line of ``arena replay``:
    ``"  [depth 6, 29 nodes, 50 simulations, value -0.11, 0.00 s]"``, ``"  [opening]"`` for a move
    no agent chose in a run, or ``""`` without a log."""
    entry = searches[ply] if searches and ply < len(searches) else None
    if not entry:
        return ""
    if len(entry) == 1:
        return "  [opening]"
    value, exact, depth, nodes, simulations, seconds = entry[1:]
    info = SearchInfo(0, value, bool(exact), depth, nodes, simulations, seconds or 0.0)
    return f"  [{info.summary()}]"


#: One row per ply of every stored game; the search fields are null for an opening ply and for a
#: game stored before the logs existed (whose seat is unknown, too).
_MOVES_VIEW = """
CREATE VIEW IF NOT EXISTS moves AS
SELECT
    g.id AS game_id,
    CAST(m.key AS INTEGER) AS ply,
    json_extract(s.value, '$[0]') AS seat,
    CASE json_extract(s.value, '$[0]') WHEN 0 THEN g.player0 WHEN 1 THEN g.player1 END AS agent,
    m.value AS move,
    CASE WHEN s.value IS NULL THEN NULL ELSE json_array_length(s.value) = 1 END AS opening,
    json_extract(s.value, '$[1]') AS value,
    json_extract(s.value, '$[2]') AS exact,
    json_extract(s.value, '$[3]') AS depth,
    json_extract(s.value, '$[4]') AS nodes,
    json_extract(s.value, '$[5]') AS simulations,
    json_extract(s.value, '$[6]') AS seconds
FROM games AS g
JOIN json_each(g.moves) AS m
LEFT JOIN json_each(g.searches) AS s ON s.key = m.key
"""


def add_moves_view(db: sqlite3.Connection) -> None:
    """Gives the ``games`` table of ``db`` its ``searches`` column if it has none (a run stored
    before the logs existed: its games keep a null log) and creates the ``moves`` view."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    if "searches" not in columns:
        db.execute("ALTER TABLE games ADD COLUMN searches TEXT")
    try:
        db.execute(_MOVES_VIEW)
    except sqlite3.OperationalError:
        pass  # an SQLite built without its JSON functions (before 3.38, optional): no view, the run still works
