"""Results stored as the games finish, in an SQLite database in the run's folder (stdlib
``sqlite3``: one file, no server), so that nothing finished is ever lost and a run resumes."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import sqlite3
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Iterator, Sequence

import numpy as np

from board_arena.arena.tournament.movelog import add_moves_view
from board_arena.arena.tournament.settings import TournamentSettings

__all__ = ["GameResult", "StoredGames", "RunStore", "RunLock", "DB_NAME", "row_checksum", "check_run_folder"]

DB_NAME = "results.sqlite"
#: Seat 0's result (1, 0, -1) as records and messages write it.
RESULT_TEXT = {1.0: "1-0", 0.0: "1/2-1/2", -1.0: "0-1"}
LOCK_NAME = "run.lock"
#: Marks an arena database in its header (``PRAGMA application_id``): "ARNA".
APPLICATION_ID = 0x41524E41
_OUR_TABLES = {"settings", "games"}
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
    finished_at TEXT NOT NULL,
    searches TEXT,               -- JSON per-move log, one array per ply (arena.tournament.movelog); NULL before logs
    move_ids BLOB,               -- the moves as the engine's ids (int64, little-endian): the replay's input
    checksum TEXT                -- BLAKE2b of the row but the log (see row_checksum); NULL before checksums
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
    #: What the search reported for each ply (see :mod:`arena.tournament.movelog`), as played; a game loaded
    #: from the database leaves it None (read it with ``RunStore.searches`` or ``Run.moves``).
    searches: list[list[Any]] | None = None
    #: The moves as the engine's move ids, as played; a game loaded from the database leaves it
    #: None (the verification of :mod:`arena.tournament.verify` reads them in bulk).
    move_ids: list[int] | None = None

    def score_for(self, seat: int) -> float:
        """The seat's tournament score: 1 win, 0.5 draw, 0 loss."""
        value = self.result if seat == 0 else -self.result
        return (value + 1.0) / 2.0


class RunStore:
    """The database of one run folder. A store opened ``readonly`` (every reading command) never
    changes the file: SQLite opens it read-only and no pragma is set."""

    def __init__(self, out_dir: str, readonly: bool = False):
        self.out_dir = out_dir
        self.path = os.path.join(out_dir, DB_NAME)
        self.readonly = readonly
        self._connection: sqlite3.Connection | None = None

    def exists(self) -> bool:
        """Whether the folder holds a database (of any program)."""
        return os.path.isfile(self.path)

    def _new_connection(self, readonly: bool) -> sqlite3.Connection:
        if readonly:
            # SQLite reads a WAL database read-only also from a folder it cannot write in (a copy
            # of a run, a read-only mount): tests/arena/test_report.py checks it.
            return sqlite3.connect(f"{Path(self.path).resolve().as_uri()}?mode=ro", uri=True, timeout=60)
        connection = sqlite3.connect(self.path, timeout=60)
        # Write-ahead logging lets readers read while the run writes; a commit survives a crash of
        # the program (synchronous=NORMAL).
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """This store's connection (opened once per process), in a transaction that commits on
        success."""
        try:
            if self._connection is None:
                self._connection = self._new_connection(self.readonly)
            with self._connection:
                yield self._connection
        except sqlite3.Error as error:
            hint = "" if "full" in str(error) else full_disk(self.out_dir)
            raise ValueError(f"cannot use the results database {self.path}: {error}{hint}") from None

    def close(self) -> None:
        """Closes the connection (a store opens it again when next used)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def check_ours(self) -> None:
        """Refuses a database that another program wrote, reading it read-only (so a refused
        file is left exactly as it was).

        Raises:
            ValueError: the file is not an SQLite database, or not an arena one.
        """
        try:
            connection = self._new_connection(readonly=True)
            try:
                application_id = connection.execute("PRAGMA application_id").fetchone()[0]
                tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            finally:
                connection.close()
        except sqlite3.Error as error:
            if full_disk(self.out_dir):  # SQLite's "disk I/O error": it could not make its files
                raise ValueError(f"cannot read the results database {self.path}: {error}{full_disk(self.out_dir)}") from None
            raise ValueError(f"{self.path} is not an arena results database ({error}); {self._elsewhere()}") from None
        # An arena database, or an empty file; earlier versions did not set the application id.
        if application_id == APPLICATION_ID or not tables or (application_id == 0 and tables == _OUR_TABLES):
            return
        what = f"application id {application_id:#x}" if application_id else f"tables {', '.join(sorted(tables))}"
        raise ValueError(f"{self.path} belongs to another program ({what}), not board-arena: {self._elsewhere()}")

    def _elsewhere(self) -> str:
        """What to do about a folder this store cannot use: a run reads another, a run writes elsewhere."""
        return "give the folder of an arena run" if self.readonly else "give another --out"

    def open(self, settings: TournamentSettings, grow: bool = True) -> TournamentSettings:
        """Creates the database with ``settings``, or checks that an existing one holds the same
        run; returns the run's settings. With ``grow``, a run that differs only by more games per
        pairing is extended (its games keep their ids and seeds: the schedule goes round by round).

        Raises:
            ValueError: the folder holds another program's database, or a run with other
                settings (the message lists them), or fewer games than it has already.
        """
        if self.readonly:
            raise ValueError("a read-only store cannot open a run for writing")
        make_run_folder(self.out_dir)
        if self.exists():
            self.check_ours()
        with self._connect() as db:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.executescript(_SCHEMA)
            add_moves_view(db)
            columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
            for name, kind in (("move_ids", "BLOB"), ("checksum", "TEXT")):
                if name not in columns:  # a run stored before them: its games keep NULL there
                    db.execute(f"ALTER TABLE games ADD COLUMN {name} {kind}")
            row = db.execute("SELECT value FROM settings WHERE key = 'tournament'").fetchone()
            if row is None:
                db.execute("INSERT INTO settings VALUES ('schema', ?)", (SCHEMA_VERSION,))
                db.execute("INSERT INTO settings VALUES ('tournament', ?)", (settings.to_json(),))
                return settings
        stored = self.settings()
        if stored == settings:
            return settings
        _check_same_run(self.out_dir, stored, settings, grow)
        with self._connect() as db:  # more games per pairing: the run grows
            db.execute("UPDATE settings SET value = ? WHERE key = 'tournament'", (settings.to_json(),))
        return settings

    def settings(self) -> TournamentSettings:
        """The settings of the run in this folder.

        Raises:
            ValueError: there is no run here.
        """
        if not self.exists():
            raise ValueError(f"no arena run in {self.out_dir!r} (no {DB_NAME})")
        if self.readonly:
            self.check_ours()
            if os.path.getsize(self.path) == 0:
                raise ValueError(f"no arena run in {self.out_dir!r} ({DB_NAME} is empty)")
        with self._connect() as db:
            rows = dict(db.execute("SELECT key, value FROM settings").fetchall())
        if rows.get("schema") != SCHEMA_VERSION or "tournament" not in rows:
            raise ValueError(
                f"{self.path} was written by another version of board-arena (layout "
                f"{rows.get('schema', 'unknown')}, this version reads {SCHEMA_VERSION}); {self._elsewhere()}"
            )
        try:
            return TournamentSettings.from_json(rows["tournament"])
        except (ValueError, TypeError, KeyError) as error:
            raise ValueError(f"{self.path} holds settings this version cannot read ({error})") from None

    def finished_ids(self) -> set[int]:
        """The ids of the games stored."""
        with self._connect() as db:
            return {row[0] for row in db.execute("SELECT id FROM games")}

    def add(self, result: GameResult) -> None:
        """Stores a finished game (committed at once)."""
        self.add_many([result])

    def add_many(self, results: list[GameResult]) -> None:
        """Stores finished games in one transaction (committed at once), each with its move ids
        and its checksum (:func:`row_checksum`)."""
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        rows = []
        for result in results:
            row = {name: getattr(result, name) for name in _GAME_COLUMNS}
            for name, kind in _COLUMN_TYPES.items():
                row[name] = kind(row[name])
            row["moves"] = json.dumps(result.moves)
            row["finished_at"] = result.finished_at or now
            row["searches"] = None if result.searches is None else json.dumps(result.searches, separators=(",", ":"), default=_plain)
            row["move_ids"] = None if result.move_ids is None else np.asarray(result.move_ids, MOVE_ID_DTYPE).tobytes()
            row["checksum"] = row_checksum([row[name] for name in _GAME_COLUMNS], row["move_ids"])
            rows.append(row)
        if not rows:
            return
        names = ", ".join(rows[0])
        marks = ", ".join(f":{k}" for k in rows[0])
        with self._connect() as db:
            db.executemany(f"INSERT OR REPLACE INTO games ({names}) VALUES ({marks})", rows)

    def games(self) -> list[GameResult]:
        """Every finished game, in schedule order, without its per-move log (``searches`` stays
        None: a run may hold a million games, and their logs would take several times the memory
        of the rest; :meth:`searches` reads them). Not verified: :func:`arena.load_run` verifies
        (:mod:`arena.tournament.verify`)."""
        return self.read_games().games

    def read_games(self) -> StoredGames:
        """Every finished game, in schedule order (as :meth:`games`), with what its verification
        needs: the move ids of every game in one array and whether each row's checksum holds."""
        with self._connect() as db:
            columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
            extra = [name if name in columns else "NULL" for name in ("move_ids", "checksum")]
            rows = db.execute(f"SELECT {', '.join(_GAME_COLUMNS + tuple(extra))} FROM games ORDER BY id").fetchall()
        count = len(_GAME_COLUMNS)
        games = []
        blobs = []
        lengths = np.zeros(len(rows), np.int64)
        has_ids = np.zeros(len(rows), np.bool_)
        checksum = np.full(len(rows), CHECKSUM_MISSING, np.int8)
        for i, row in enumerate(rows):
            values, blob, stored = row[:count], row[count], row[count + 1]
            data = dict(zip(_GAME_COLUMNS, values))
            try:
                data["moves"] = json.loads(data["moves"])
            except (TypeError, ValueError):
                data["moves"] = None  # not JSON: the verification says so
            games.append(GameResult(**data))
            if isinstance(blob, bytes) and len(blob) % 8 == 0:
                blobs.append(blob)
                lengths[i] = len(blob) // 8
                has_ids[i] = True
            if stored is not None:
                checksum[i] = CHECKSUM_OK if stored == row_checksum(values, blob) else CHECKSUM_FAILED
        offsets = np.zeros(len(rows) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        move_ids = np.frombuffer(b"".join(blobs), MOVE_ID_DTYPE).astype(np.int64)
        return StoredGames(games, move_ids, offsets, has_ids, checksum)

    def searches(self, ids: list[int] | None = None) -> dict[int, list[list[Any]] | None]:
        """The per-move log of every finished game (or of the games ``ids``), by game id; None
        for a game stored without one (see :mod:`arena.tournament.movelog`)."""
        with self._connect() as db:
            if "searches" not in {row[1] for row in db.execute("PRAGMA table_info(games)")}:
                found = db.execute("SELECT id FROM games").fetchall()  # a run stored before the logs
                return {game_id: None for (game_id,) in found if ids is None or game_id in ids}
            if ids is None:
                found = db.execute("SELECT id, searches FROM games").fetchall()
            else:
                marks = ", ".join("?" * len(ids))
                found = db.execute(f"SELECT id, searches FROM games WHERE id IN ({marks})", list(ids)).fetchall()
        return {game_id: None if text is None else json.loads(text) for game_id, text in found}


#: The columns of ``games`` that :meth:`RunStore.games` reads as they are (all but the per-move
#: log, and the move ids, which it reads in bulk); the checksum covers them and the move ids.
_GAME_COLUMNS = tuple(name for name in GameResult.__dataclass_fields__ if name not in ("searches", "move_ids"))
#: How a value is stored, so that a checksum computed before the insert is the one of the values
#: read back (``result`` 1 and 1.0 are one REAL).
_COLUMN_TYPES: dict[str, Any] = {
    **dict.fromkeys(("id", "game_seed", "seed0", "seed1", "score", "plies", "moves0", "moves1"), int),
    **dict.fromkeys(("result", "time0", "time1"), float),
}
#: Move ids as stored: little-endian int64 (the same bytes on every machine).
MOVE_ID_DTYPE = np.dtype("<i8")
#: ``StoredGames.checksum``: the row's checksum holds, fails, or was never stored (a run written
#: before checksums).
CHECKSUM_OK, CHECKSUM_FAILED, CHECKSUM_MISSING = 1, 0, -1


def row_checksum(values: Sequence[Any], move_ids: bytes | None) -> str:
    """The checksum of a stored game: BLAKE2b (128 bits) of its columns as stored (``values`` in
    the order of the table's columns but the log, the moves as their JSON text) and its move ids.
    It catches a row changed after it was written, by hand or by another program; the replay
    (:mod:`arena.tournament.verify`) catches a row that was wrong when it was written."""
    digest = hashlib.blake2b("\x1f".join(map(str, values)).encode(), digest_size=16)
    if move_ids is not None:
        digest.update(move_ids)
    return digest.hexdigest()


@dataclass
class StoredGames:
    """The games of a run as :meth:`RunStore.read_games` reads them, for :mod:`arena.tournament.verify`."""

    games: list[GameResult]
    #: The move ids of every game, concatenated: game ``i``'s are ``move_ids[offsets[i]:offsets[i + 1]]``.
    move_ids: np.ndarray
    offsets: np.ndarray
    #: False for a game stored without move ids (before they were stored): its notation is replayed.
    has_ids: np.ndarray
    #: CHECKSUM_OK, CHECKSUM_FAILED or CHECKSUM_MISSING per game.
    checksum: np.ndarray


def _plain(value: Any) -> Any:
    """A number that ``json`` does not know (a numpy scalar an agent reported) as a plain one."""
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not a number a search log can hold")


def _check_same_run(out_dir: str, stored: TournamentSettings, settings: TournamentSettings, grow: bool) -> None:
    """Raises the ValueError of :meth:`RunStore.open` unless ``settings`` resume the run stored
    (``stored``), or grow it (more games per pairing) when ``grow``."""
    if stored == settings:
        return
    differences = stored.differences(settings)
    if grow and all(d.startswith("games:") for d in differences):
        if settings.games < stored.games:
            raise ValueError(
                f"{out_dir} holds a run of {stored.games} games per pairing; it can grow, not shrink "
                f"(give --games {stored.games} or more to extend it, or another --out)"
            )
        return
    raise ValueError(
        f"{out_dir} holds a run with other settings ({'; '.join(differences)}); "
        "give the same settings to resume it, or another --out"
    )


def check_run_folder(out_dir: str, settings: TournamentSettings) -> None:
    """Raises the ValueError that opening ``out_dir`` for ``settings`` would (a file in its
    place, a folder that cannot be made, another program's database, another run), without
    writing anything: ``arena run`` checks before it says where the run goes."""
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise ValueError(f"cannot create the run folder {out_dir}: a file has that name (give another --out)")
    store = RunStore(out_dir, readonly=True)
    if not store.exists():
        ancestor = os.path.abspath(out_dir or ".")
        while not os.path.exists(ancestor):
            ancestor = os.path.dirname(ancestor)
        if not os.path.isdir(ancestor) or not os.access(ancestor, os.W_OK | os.X_OK):
            raise ValueError(f"cannot create the run folder {out_dir}: {ancestor} is not a folder this process can write in")
        return
    try:
        store.check_ours()
        with store._connect() as db:
            tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "settings" in tables:
            _check_same_run(out_dir, store.settings(), settings, grow=True)
    finally:
        store.close()


def full_disk(folder: str) -> str:
    """`` (its disk is full)`` when the disk that holds ``folder`` has less than a MiB free, for
    the messages of errors that SQLite reports without saying why."""
    try:
        free = shutil.disk_usage(folder or ".").free
    except OSError:
        return ""
    return " (its disk is full)" if free < 1 << 20 else ""


def make_run_folder(out_dir: str) -> None:
    """Creates ``out_dir`` if needed; ValueError saying why it cannot be."""
    try:
        os.makedirs(out_dir or ".", exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot create the run folder {out_dir}: {error.strerror or error}") from None


class RunLock:
    """An exclusive lock on a run folder for the time a run writes to it (an OS file lock on
    ``run.lock``, released by the OS if the process dies), so two runs started on one folder do
    not both play every game. The file says who holds it."""

    def __init__(self, out_dir: str):
        self.path = os.path.join(out_dir, LOCK_NAME)
        self._handle: IO[str] | None = None
        #: Whether this lock made the folder (it did not exist).
        self.made_folder = False
        #: Set when the run could not start: a folder this lock made is removed on release.
        self.discard_made_folder = False

    def __enter__(self) -> "RunLock":
        folder = os.path.dirname(self.path)
        self.made_folder = not os.path.isdir(folder or ".")
        made_file = not os.path.exists(self.path)
        make_run_folder(folder)
        try:
            handle = open(self.path, "a+", encoding="utf-8")
        except OSError as error:
            raise ValueError(f"cannot write in the run folder {folder}: {error.strerror or error}") from None
        if not _try_lock(handle):
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            raise ValueError(
                f"{folder} is in use by another arena run ({holder}); wait for it to end, or give another --out"
            )
        try:
            handle.seek(0)
            handle.truncate()
            started = datetime.now(timezone.utc).isoformat(timespec="seconds")
            handle.write(f"pid {os.getpid()} on {socket.gethostname()}, started {started}\n")
            handle.flush()
        except OSError as error:  # a full disk: the folder is left as it was found
            _close_quietly(handle)
            if made_file:
                os.remove(self.path)
            if self.made_folder:
                os.rmdir(folder)
            raise ValueError(f"cannot write in the run folder {folder}: {error.strerror or error}") from None
        self._handle = handle
        return self

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            self._handle.truncate(0)
            self._handle.close()  # closing releases the lock
            self._handle = None
            if self.made_folder and self.discard_made_folder:
                shutil.rmtree(os.path.dirname(self.path), ignore_errors=True)


def _close_quietly(handle: IO[str]) -> None:
    """Closes ``handle``, whose buffered writes a full disk refuses (they are dropped)."""
    try:
        handle.close()
    except OSError:
        pass


def _try_lock(handle: IO[str]) -> bool:
    """Takes the lock on the open file ``handle`` without waiting; False when another process
    holds it."""
    try:
        if sys.platform == "win32":
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
