"""Results stored as the games finish, in an SQLite database in the run's folder (stdlib
``sqlite3``: one file, no server), so that nothing finished is ever lost and a run resumes."""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone

from arena.settings import TournamentSettings

__all__ = ["GameResult", "RunStore", "DB_NAME"]

DB_NAME = "results.sqlite"
#: The layout of the database; a run written with another layout is refused, never misread.
SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,      -- the game's place in the schedule
    player0 TEXT NOT NULL,       -- agent label in seat 0 (moves first unless the rules say)
    player1 TEXT NOT NULL,
    spec0 TEXT NOT NULL,         -- agent specs
    spec1 TEXT NOT NULL,
    game_seed INTEGER NOT NULL,  -- start of the game (deal, opening)
    seed0 INTEGER NOT NULL,      -- agent seeds
    seed1 INTEGER NOT NULL,
    moves TEXT NOT NULL,         -- JSON list, the game's notation
    result REAL NOT NULL,        -- seat 0's result: 1 win, 0 draw, -1 loss
    score INTEGER NOT NULL,      -- seat 0's margin (store, capture or pip difference)
    plies INTEGER NOT NULL,
    time0 REAL NOT NULL,         -- seconds spent choosing moves, per seat
    time1 REAL NOT NULL,
    moves0 INTEGER NOT NULL,     -- moves chosen, per seat
    moves1 INTEGER NOT NULL,
    end_reason TEXT NOT NULL,    -- 'rules', 'ply cap', or what stopped the game ('error in seat 1: ...')
    finished_at TEXT NOT NULL
);
"""


@dataclass
class GameResult:
    """A finished game as stored (one row of ``games``)."""

    id: int
    player0: str
    player1: str
    spec0: str
    spec1: str
    game_seed: int
    seed0: int
    seed1: int
    moves: list[str]
    result: float
    score: int
    plies: int
    time0: float
    time1: float
    moves0: int
    moves1: int
    end_reason: str = "rules"
    finished_at: str = ""

    def score_for(self, seat: int) -> float:
        """The seat's tournament score: 1 win, 0.5 draw, 0 loss."""
        value = self.result if seat == 0 else -self.result
        return (value + 1.0) / 2.0


class RunStore:
    """The database of one run folder."""

    def __init__(self, out_dir: str):
        self.out_dir = out_dir
        self.path = os.path.join(out_dir, DB_NAME)
        self._connection: sqlite3.Connection | None = None

    def exists(self) -> bool:
        return os.path.isfile(self.path)

    @contextmanager
    def _connect(self):
        """This store's connection (opened once per process), in a transaction that commits on
        success. Write-ahead logging lets worker processes write while others read; a commit
        survives a crash of the program (``synchronous=NORMAL``), and waiting writers queue."""
        try:
            if self._connection is None:
                self._connection = sqlite3.connect(self.path, timeout=60)
                self._connection.execute("PRAGMA journal_mode=WAL")
                self._connection.execute("PRAGMA synchronous=NORMAL")
            with self._connection:
                yield self._connection
        except sqlite3.Error as error:
            raise ValueError(f"cannot use the results database {self.path}: {error}") from None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def open(self, settings: TournamentSettings) -> None:
        """Creates the database with ``settings``, or checks that an existing one has the same.

        Raises:
            ValueError: the folder holds a run with other settings (the message lists them).
        """
        try:
            os.makedirs(self.out_dir, exist_ok=True)
        except OSError as error:
            raise ValueError(f"cannot create the run folder {self.out_dir}: {error.strerror or error}") from None
        with self._connect() as db:
            db.executescript(_SCHEMA)
            row = db.execute("SELECT value FROM settings WHERE key = 'tournament'").fetchone()
            if row is None:
                db.execute("INSERT INTO settings VALUES ('schema', ?)", (SCHEMA_VERSION,))
                db.execute("INSERT INTO settings VALUES ('tournament', ?)", (settings.to_json(),))
                return
        stored = self.settings()
        if stored != settings:
            raise ValueError(
                f"{self.out_dir} holds a run with other settings ({'; '.join(stored.differences(settings))}); "
                "give the same settings to resume it, or another --out"
            )

    def settings(self) -> TournamentSettings:
        """The settings of the run in this folder.

        Raises:
            ValueError: there is no run here.
        """
        if not self.exists():
            raise ValueError(f"no arena run in {self.out_dir!r} (no {DB_NAME})")
        with self._connect() as db:
            rows = dict(db.execute("SELECT key, value FROM settings").fetchall())
        if rows.get("schema") != SCHEMA_VERSION or "tournament" not in rows:
            raise ValueError(
                f"{self.path} was written by another version of board-arena (layout "
                f"{rows.get('schema', 'unknown')}, this version reads {SCHEMA_VERSION}); give another --out"
            )
        try:
            return TournamentSettings.from_json(rows["tournament"])
        except (ValueError, TypeError, KeyError) as error:
            raise ValueError(f"{self.path} holds settings this version cannot read ({error})") from None

    def finished_ids(self) -> set[int]:
        with self._connect() as db:
            return {row[0] for row in db.execute("SELECT id FROM games")}

    def add(self, result: GameResult) -> None:
        """Stores a finished game (committed at once)."""
        row = asdict(result)
        row["moves"] = json.dumps(result.moves)
        row["finished_at"] = result.finished_at or datetime.now(timezone.utc).isoformat(timespec="seconds")
        names = ", ".join(row)
        marks = ", ".join(f":{k}" for k in row)
        with self._connect() as db:
            db.execute(f"INSERT OR REPLACE INTO games ({names}) VALUES ({marks})", row)

    def games(self) -> list[GameResult]:
        """Every finished game, in schedule order."""
        with self._connect() as db:
            cursor = db.execute("SELECT * FROM games ORDER BY id")
            columns = [c[0] for c in cursor.description]
            rows = cursor.fetchall()
        results = []
        for row in rows:
            data = dict(zip(columns, row))
            data["moves"] = json.loads(data["moves"])
            results.append(GameResult(**data))
        return results
