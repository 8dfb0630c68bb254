"""The HTTP server of ``arena serve``: JSON over the standard library's threaded server.

Routes (every error is a 4xx or 5xx with ``{"error": one line}``):

- ``GET /?token=T``: the page (``T`` is printed by ``arena serve``; the page keeps it in a
  cookie, so that a reload works); ``GET /static/<file>``: the files shipped in ``static/``,
  looked up by name in a listing made at start (no path from a request touches the disk).
- ``GET /games/<family>.js``: the drawing of a registered game family (the file its web board
  class declares as ``drawing``, beside its module); a game without one is drawn by the page
  as its text rendering with a button per legal click.
- ``GET /api/catalog``: games, presets, parameters, drawings, agents (with what a page may set
  of each parameter) and default opponents. ``GET /api/status``: searches, games, connections.
- ``POST /api/games`` ``{game, params, seats: [spec or null, spec or null], seed, random_side,
  replaces}``: a new game (``null`` is the person's seat; two specs make a spectator game;
  ``random_side`` swaps the seats or not by the seed; ``replaces``: the id of the page's
  previous game, which is dropped and its search stopped); returns its view.
- ``GET /api/games/<id>``: the view; ``DELETE /api/games/<id>``: the game is dropped (a page
  that closes says so); ``POST /api/games/<id>/move`` ``{move}`` (notation) or ``{clicks}`` (the
  names of the board elements clicked, which ``game.web.move_from_clicks`` turns into its
  notation); ``POST .../agent`` (the agent to move plays: the answer comes when it has moved);
  ``POST .../hint``; ``POST .../undo`` (also while the agent thinks: its search stops);
  ``GET .../record``: the game record (replays with ``arena replay``).
- ``GET /api/runs``, ``GET /api/runs/<name>`` (standings, crosstable, SPRT, progress and the
  games in progress of a run being played), ``GET /api/runs/<name>/plot/<file>``,
  ``GET /api/runs/<name>/games/<id>`` (a stored game, or one in progress, move by move).

Searches run in worker processes (:mod:`arena.web.searches`): a request thread waits for its
search without the interpreter lock, so every other request is answered meanwhile. A search
stops when its game is dropped, undone, replaced or forgotten, when every request waiting for it
has gone (the page was closed), or when it runs past the server's time per move.

Security, for a tool that listens on this machine: it binds loopback unless told otherwise (and
never every interface); a request whose ``Host`` is not the server's address is refused (DNS
rebinding), as is one whose ``Origin`` or ``Sec-Fetch-Site`` says it comes from another page
(another site, or another port of this machine); every ``/api/`` request carries the token
(``X-Arena-Token``, or for a plain GET such as an image the page's cookie), so another user of
this machine cannot use a server they did not start; state-changing requests carry it in the
header, which no other page can set. Bodies are JSON objects of at most ``MAX_BODY`` bytes,
``MAX_JSON_DEPTH`` deep, with a ``Content-Length`` (a body declared otherwise is refused before
it is read). A connection has ``READ_SECONDS`` to send its request; at most
``max_connections`` are open (the oldest still sending its request is closed to let a new one
in); connection resets are handled quietly. Games idle longer than ``idle_seconds`` are
forgotten, and at most ``max_games`` are kept (the least recently used go first).
"""

from __future__ import annotations

import ipaddress
import json
import random
import re
import secrets
import select
import socket
import sys
import threading
import time
import traceback
import webbrowser
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from board_arena import agents, engines
from board_arena.arena.web.runs import Malformed, NotFound, RunBrowser
from board_arena.arena.web.searches import (
    AgentPolicy,
    SearchPool,
    Ticket,
    outside_modules,
)
from board_arena.arena.web.sessions import DEFAULT_OPPONENTS, GameSession, RequestError
from board_arena.commandline import interrupt_handled
from board_arena.ugi.host import registered_engines

__all__ = ["GameServer", "ArenaHTTPServer", "make_server", "serve", "check_host", "json_depth_ok", "RequestError"]

STATIC_DIR = Path(__file__).with_name("static")
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}
#: The largest request body read, in bytes.
MAX_BODY = 64 * 1024
#: The deepest nesting of arrays and objects a body may have.
MAX_JSON_DEPTH = 32
#: Seconds a connection has to send its whole request (the request line, headers and body).
READ_SECONDS = 10.0
#: Connections open at once, at most (fewer where the process may open few files).
MAX_CONNECTIONS = 256
#: After a refused request whose body was not read, the most of it read and dropped (seconds,
#: bytes) before the connection closes, so that the refusal reaches a client still sending.
LINGER = (1.0, 1 << 20)
#: Headers of every answer: no caching, no sniffing, no framing by other pages, no referrer.
SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
}
TOKEN_HEADER = "X-Arena-Token"


class GameServer:
    """The games, searches and runs a server holds; thread-safe (one lock per game, one for the
    table of games).

    Args:
        runs_dir: the folder of tournament runs shown.
        idle_seconds: games idle longer are forgotten.
        max_games: games kept at most (the least recently used go first).
        max_searches: searches at once (worker processes).
        max_move_time: seconds per move an agent spec may ask for (and the longest a search runs).
        max_table_mb: MiB of table an agent spec may ask for.
    """

    def __init__(self, runs_dir: str = "arena-runs", idle_seconds: float = 1800.0, max_games: int = 200,
                 max_searches: int = 2, max_move_time: float = 10.0, max_table_mb: float = 64.0):
        self.runs = RunBrowser(runs_dir)
        self.idle_seconds = idle_seconds
        self.max_games = max_games
        self.policy = AgentPolicy(max_move_time=max_move_time, max_table_mb=max_table_mb)
        self.pool = SearchPool(max_searches, keep_mb=4 * max_table_mb, modules=outside_modules(), plugins=_plugins(),
                               ugi_engines=[engine.to_dict() for engine in registered_engines().values()])
        self.sessions: dict[str, GameSession] = {}
        self.table_lock = threading.Lock()
        self.static_files = {p.name: p for p in STATIC_DIR.iterdir() if p.is_file() and p.suffix in CONTENT_TYPES}
        #: The secret every /api/ request carries (see the module docstring).
        self.token = secrets.token_urlsafe(24)

    @property
    def runs_dir(self) -> str:
        return self.runs.runs_dir

    def start(self) -> None:
        """Starts the search processes (in the background: the first search waits for them)."""
        self.pool.start()

    def close(self) -> None:
        """Stops every search and the search processes."""
        self.pool.close()

    # -- games ---------------------------------------------------------------------------------

    def catalog(self) -> dict[str, Any]:
        def param(p, agent=False):
            data = {"name": p.name, "default": p.default, "doc": p.doc, "allowed": p.allowed(),
                    "type": p.type.__name__, "choices": list(p.choices) if p.choices else None}
            if agent:
                data["from_page"] = self.policy.param_note(p)
            return data

        games = []
        for name in engines.available_games():
            cls = engines.game_class(name)
            preset = cls.PRESETS[name]
            games.append({
                "name": name, "family": cls.family, "summary": cls.summary,
                "perfect_information": cls.perfect_information,
                "drawing": f"/games/{cls.family}.js" if cls.web_class.drawing else None,
                "params": [{**param(p), "default": preset.get(p.name, p.default)} for p in cls.PARAMS],
                "default_opponent": DEFAULT_OPPONENTS[cls.perfect_information],
                "help": engines.make(name).notation.help_text(),
            })
        agent_list = []
        for name in agents.available_agents():
            agent_cls = agents.agent_class(name)
            agent_list.append({"name": name, "summary": agent_cls.summary, "hidden_information": agent_cls.plays_hidden_information,
                               "sees_everything": agent_cls.sees_everything, "params": [param(p, True) for p in agent_cls.PARAMS],
                               "from_page": self.policy.allowed(agent_cls)})
        limits = {"max_move_time": self.policy.max_move_time, "max_table_mb": self.policy.max_table_mb,
                  "max_searches": self.pool.max_searches}
        return {"games": games, "agents": agent_list, "limits": limits}

    def status(self) -> dict[str, Any]:
        with self.table_lock:
            games = len(self.sessions)
            thinking = sum(1 for s in self.sessions.values() if s.search is not None)
        return {"games": games, "max_games": self.max_games, "games_searching": thinking, "searches": self.pool.status()}

    def new_game(self, body: dict) -> tuple[str, GameSession]:
        name = body.get("game")
        if not isinstance(name, str) or name not in engines.available_games():
            raise RequestError(400, f"unknown game {str(name)[:40]!r}; games: {', '.join(engines.available_games())}")
        params = body.get("params") or {}
        if not isinstance(params, dict):
            raise RequestError(400, "params must be an object of variant parameters")
        seats = body.get("seats", [None, None])
        if not isinstance(seats, list) or len(seats) != 2 or not all(s is None or isinstance(s, str) for s in seats):
            raise RequestError(400, "seats must be two entries, each an agent spec or null for you")
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise RequestError(400, "seed must be an integer from 0 to 2**63 - 1")
        replaces = body.get("replaces")
        if replaces is not None and not isinstance(replaces, str):
            raise RequestError(400, "replaces must be the id of the game this one replaces")
        if body.get("random_side"):
            # The person's side drawn from the game's seed, as arena play --first random does.
            if random.Random(seed).randrange(2) == 1:
                seats = seats[::-1]
        try:
            game = engines.make(name, **params)
            if seats == [None, None]:
                seats = [None, DEFAULT_OPPONENTS[game.perfect_information]]
            session = GameSession(game, seats, seed, self.policy)
        except RequestError:
            raise
        except ValueError as error:
            raise RequestError(400, _one_line(error)) from None
        if replaces:
            self.drop(replaces, "the page started another game")
        session_id = secrets.token_urlsafe(12)
        with self.table_lock:
            forgotten = self._forget_idle()
            self.sessions[session_id] = session
        for old in forgotten:
            self._stop(old, "the game was forgotten (idle, or too many games)")
        return session_id, session

    def session(self, session_id: str) -> GameSession:
        with self.table_lock:
            session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(404, f"no game {session_id!r}: it ended long ago or the server restarted; start a new game")
        session.last_used = time.monotonic()
        return session

    def drop(self, session_id: str, reason: str) -> bool:
        """Forgets a game and stops its search; False when there was no such game."""
        with self.table_lock:
            session = self.sessions.pop(session_id, None)
        if session is None:
            return False
        self._stop(session, reason)
        return True

    def _stop(self, session: GameSession, reason: str) -> None:
        with session.lock:
            session.stop_search(self.pool, reason)

    def _forget_idle(self) -> list[GameSession]:
        """Drops the games idle too long, then the least recently used beyond ``max_games - 1``
        (with the table lock held); returns them, whose searches the caller stops."""
        now = time.monotonic()
        gone = [k for k, s in self.sessions.items() if now - s.last_used > self.idle_seconds]
        while len(self.sessions) - len(gone) >= self.max_games:
            gone.append(min((k for k in self.sessions if k not in gone), key=lambda k: self.sessions[k].last_used))
        return [self.sessions.pop(k) for k in gone]

    def drawing(self, family: str) -> Path:
        """The drawing file of a registered game family (only files that a game class declares)."""
        for cls in engines.game_classes():
            if cls.family == family:
                try:
                    path = cls.web_class.drawing_file()
                except ValueError as error:
                    raise RequestError(404, str(error)) from None
                if path is not None:
                    return path
        raise RequestError(404, f"no drawing of a game family {family!r}")

    # -- runs ----------------------------------------------------------------------------------

    def run_names(self) -> list[str]:
        return self.runs.names()


def _plugins() -> list[str]:
    """The plugins this process loaded (the search processes load them too)."""
    from board_arena.agents.plugins import loaded_plugins, plugin_name

    return [plugin_name(name) for name in loaded_plugins()]


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def json_depth_ok(raw: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether the arrays and objects of the JSON text ``raw`` nest at most ``limit`` deep
    (checked before parsing: the parser recurses once per level)."""
    depth = 0
    in_string = escaped = False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return False
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return True


# -- connections -------------------------------------------------------------------------------


@dataclass
class _Connection:
    since: float  # when it opened, or began its current phase
    reading: bool = True  # still sending its request (the janitor closes it after READ_SECONDS)
    unread_body: bool = False  # refused before its body was read: linger before closing


class ArenaHTTPServer(ThreadingHTTPServer):
    """The threaded server, with the bounds and quiet of the module docstring (made by
    :func:`make_server`); ``url`` is the page's address with the token."""

    # A burst of connections (a page's files, many players, a reset storm) must queue, not be refused.
    request_queue_size = 1024
    daemon_threads = True
    games: GameServer
    allowed_hosts: frozenset[str]
    allowed_origins: frozenset[str]
    verbose: bool
    url: str

    def __init__(self, address: tuple[str, int], handler: type, max_connections: int):
        self.max_connections = max_connections
        self.read_seconds = READ_SECONDS
        self.connections: dict[socket.socket, _Connection] = {}
        self.connections_lock = threading.Lock()
        self._closing = threading.Event()
        super().__init__(address, handler)
        self._janitor = threading.Thread(target=self._close_slow_connections, name="arena-serve-janitor", daemon=True)
        self._janitor.start()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            if len(self.connections) >= self.max_connections:
                reading = [(c.since, s) for s, c in self.connections.items() if c.reading]
                if not reading:  # every connection is being answered: this one waits its turn
                    self._shutdown(request)
                    request.close()
                    return
                _, oldest = min(reading, key=lambda pair: pair[0])
                self._shutdown(oldest)  # its thread ends at once, quietly
                del self.connections[oldest]
            self.connections[request] = _Connection(time.monotonic())
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            connection = self.connections.pop(request, None)
        if connection is not None and connection.unread_body:
            _linger(request)
        super().shutdown_request(request)

    def mark(self, request: Any, reading: bool, unread_body: bool | None = None) -> None:
        with self.connections_lock:
            connection = self.connections.get(request)
            if connection is not None:
                connection.reading = reading
                connection.since = time.monotonic()
                if unread_body is not None:
                    connection.unread_body = unread_body

    def _close_slow_connections(self) -> None:
        while not self._closing.wait(0.5):
            now = time.monotonic()
            with self.connections_lock:
                slow = [s for s, c in self.connections.items() if c.reading and now - c.since > self.read_seconds]
            for request in slow:
                self._shutdown(request)

    @staticmethod
    def _shutdown(request: Any) -> None:
        try:
            request.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, OSError):  # a reset, a timeout, a closed connection: the client's business
            if self.verbose:
                print(f"arena serve: connection from {client_address[0]}: {_one_line(error)}", file=sys.stderr, flush=True)
            return
        print(f"arena serve: error: {type(error).__name__}: {_one_line(error) if error else ''}", file=sys.stderr, flush=True)
        if self.verbose:
            traceback.print_exc()

    def server_close(self) -> None:
        self._closing.set()
        super().server_close()
        with self.connections_lock:
            open_now = list(self.connections)
        for request in open_now:
            self._shutdown(request)
        self.games.close()


def _linger(request: socket.socket) -> None:
    """Stops sending, then reads and drops what the client still sends (a bounded amount, for a
    bounded time) before the connection closes: closing with unread data would reset the
    connection, and the client could lose the refusal it has not read yet."""
    seconds, most = LINGER
    try:
        request.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + seconds
        while most > 0:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            request.settimeout(left)
            chunk = request.recv(min(most, 65536))
            if not chunk:
                return
            most -= len(chunk)
    except OSError:
        pass


def _readable(sock: socket.socket) -> bool:
    """Whether ``sock`` has something to read (or has closed), without waiting."""
    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
        return bool(poller.poll(0))
    return bool(select.select([sock], [], [], 0)[0])


class Handler(BaseHTTPRequestHandler):
    """One request; the routes are in the module docstring."""

    server_version = "board-arena"
    sys_version = ""
    server: ArenaHTTPServer

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.read_seconds)  # each read and write of the connection

    @property
    def games(self) -> GameServer:
        return self.server.games

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        if self.server.verbose:
            super().log_request(code, size)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        if self.server.verbose:  # a malformed request, a timeout: the client's business
            super().log_message(format, *args)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        self.server.mark(self.connection, reading=False)
        # A body not read (a refusal comes first) is drained before the connection closes.
        declared = self.headers.get("Content-Length")
        self._body_read = method == "GET" or (not self.headers.get("Transfer-Encoding") and (
            declared is None and method == "DELETE" or (declared or "").strip() == "0"))
        try:
            url = urlsplit(self.path)
            self._check_origin(method, url.path)
            if url.path.startswith("/api/"):
                self._check_token(method)
            body = self._body() if method != "GET" else {}
            self._route(method, url.path, parse_qs(url.query), body)
        except RequestError as error:
            self._json({"error": str(error)}, error.status)
        except NotFound as error:
            self._json({"error": str(error)}, 404)
        except Malformed as error:
            self._json({"error": str(error)}, 422)
        except OSError:
            self.close_connection = True  # the client went away, or a file vanished under a run
        except Exception as error:  # a bug: one line for the page and the log, the server goes on
            print(f"arena serve: internal error on {method} {self.path[:200]}: {type(error).__name__}: {_one_line(error)}",
                  file=sys.stderr, flush=True)
            if self.server.verbose:
                traceback.print_exc()
            self._json({"error": f"internal error: {type(error).__name__}: {_one_line(error)}"}, 500)
        finally:
            if not self._body_read:
                self.close_connection = True
                self.server.mark(self.connection, reading=False, unread_body=True)

    # -- who may ask ---------------------------------------------------------------------------

    def _check_origin(self, method: str, path: str) -> None:
        host = (self.headers.get("Host") or "").strip().lower()
        if host not in self.server.allowed_hosts:
            raise RequestError(403, f"Host {host[:80]!r} is not this server's address; open the address arena serve printed")
        origin = self.headers.get("Origin")
        if origin is not None and origin.strip().lower() not in self.server.allowed_origins:
            raise RequestError(403, f"requests from other pages are refused (Origin {origin[:80]!r})")
        site = self.headers.get("Sec-Fetch-Site")
        navigation = method == "GET" and path in ("/", "/index.html") and self.headers.get("Sec-Fetch-Mode") == "navigate"
        if site is not None and site not in ("same-origin", "none") and not navigation:
            raise RequestError(403, f"requests from other pages are refused (Sec-Fetch-Site {site[:40]!r})")

    def _cookie_name(self) -> str:
        return f"arena_token_{self.server.server_port}"

    def _cookie_token(self) -> str | None:
        for part in (self.headers.get("Cookie") or "").split(";"):
            key, _, value = part.strip().partition("=")
            if key == self._cookie_name():
                return value
        return None

    def _check_token(self, method: str) -> None:
        given = self.headers.get(TOKEN_HEADER)
        if given is None and method == "GET":
            given = self._cookie_token()  # an image or a download link: the page's cookie
        if given is None or not secrets.compare_digest(given.encode(), self.games.token.encode()):
            where = "the X-Arena-Token header" if method != "GET" else "the X-Arena-Token header or the page's cookie"
            raise RequestError(403, f"missing or wrong token ({where}); reload the page from the address arena serve printed")

    # -- the body ------------------------------------------------------------------------------

    def _body(self) -> dict:
        if self.headers.get("Transfer-Encoding"):
            raise RequestError(411, "a body must be sent with a Content-Length, not in chunks")
        declared = self.headers.get("Content-Length")
        if declared is None:
            if self.command != "POST":  # a DELETE has no body
                self._body_read = True
                return {}
            raise RequestError(411, "a POST needs a Content-Length (0 for no body)")
        if not re.fullmatch(r"[0-9]{1,12}", declared.strip()):
            raise RequestError(400, f"Content-Length must be a number of bytes from 0 to {MAX_BODY}, not {declared[:20]!r}")
        length = int(declared)
        if length > MAX_BODY:
            raise RequestError(413, f"request body of {length} bytes is too large; at most {MAX_BODY}")
        if length and (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
            raise RequestError(415, "a request body must be JSON (Content-Type: application/json)")
        self.server.mark(self.connection, reading=True)  # the janitor watches a slow body too
        raw = self.rfile.read(length) if length else b""
        self.server.mark(self.connection, reading=False)
        if len(raw) < length:
            self.close_connection = True
            raise OSError("the body ended early")
        self._body_read = True
        if not raw.strip():
            return {}
        if not json_depth_ok(raw):
            raise RequestError(400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise RequestError(400, "the request body is not JSON") from None
        if not isinstance(body, dict):
            raise RequestError(400, "the request body must be a JSON object")
        return body

    # -- the routes ----------------------------------------------------------------------------

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: dict) -> None:
        g = self.games
        if method == "GET" and path == "/favicon.ico":
            return self._send(b"", "image/x-icon", 204)
        if method == "GET" and path in ("/", "/index.html"):
            return self._page(query)
        match = re.fullmatch(r"/static/([A-Za-z0-9_.-]+)", path)
        if method == "GET" and match:
            if match.group(1) not in g.static_files:
                raise RequestError(404, f"no file {match.group(1)!r}")
            return self._file(g.static_files[match.group(1)])
        match = re.fullmatch(r"/games/([A-Za-z0-9_-]{1,64})\.js", path)
        if method == "GET" and match:
            return self._file(g.drawing(match.group(1)))
        if method == "GET" and path == "/api/catalog":
            return self._json(g.catalog())
        if method == "GET" and path == "/api/status":
            status = g.status()
            with self.server.connections_lock:
                status["connections"] = len(self.server.connections)
            return self._json(status)
        if method == "POST" and path == "/api/games":
            session_id, session = g.new_game(body)
            with session.lock:
                return self._json(session.view(session_id), 201)
        match = re.fullmatch(r"/api/games/([A-Za-z0-9_-]{1,64})(?:/(move|agent|hint|undo|record))?", path)
        if match:
            session_id, action = match.groups()
            return self._game(method, path, session_id, action, body)
        if method == "GET" and path == "/api/runs":
            return self._json({"runs_dir": g.runs_dir, "runs": g.runs.listing()})
        match = re.fullmatch(r"/api/runs/([^/]{1,600})(?:/plot/([a-z]+\.png)|/games/([0-9]{1,9}))?", path)
        if method == "GET" and match:
            quoted, plot, game_id = match.groups()
            # Percent-encoded by the page (a space, "<" or a quote in a folder's name); only a name
            # of the listing is ever opened (arena.web.runs.RunFolders.folder).
            try:
                name = unquote(quoted, errors="strict")
            except UnicodeDecodeError:
                raise RequestError(400, "a run's name must be percent-encoded UTF-8") from None
            if plot:
                return self._file(g.runs.plot(name, plot))
            if game_id:
                return self._json(g.runs.game(name, int(game_id)))
            return self._json(g.runs.summary(name))
        raise RequestError(404 if method == "GET" else 405, f"no route {method} {path[:200]}")

    def _page(self, query: dict[str, list[str]]) -> None:
        """The page, for a request that holds the token (in the address, or the cookie the
        page set); the token goes into the page, which sends it with every API request."""
        token = self.games.token
        given = (query.get("token") or [""])[0] or self._cookie_token()
        if given is None or not secrets.compare_digest(given.encode(), token.encode()):
            raise RequestError(403, "open the address that arena serve printed: it holds the token of this server")
        page = self.games.static_files["index.html"].read_text(encoding="utf-8").replace("{{token}}", token)
        cookie = f"{self._cookie_name()}={token}; Path=/; HttpOnly; SameSite=Strict"
        self._send(page.encode(), CONTENT_TYPES[".html"], 200, {"Set-Cookie": cookie})

    def _game(self, method: str, path: str, session_id: str, action: str | None, body: dict) -> None:
        g = self.games
        if action is None and method == "DELETE":
            if not g.drop(session_id, "the page left the game"):
                raise RequestError(404, f"no game {session_id!r}")
            return self._json({"dropped": session_id})
        allowed = "GET" if action in (None, "record") else "POST"
        if method != allowed:
            raise RequestError(405, f"{path} takes {allowed}" + (" (or DELETE)" if action is None else ""))
        session = g.session(session_id)
        if action == "record":
            with session.lock:
                text = session.record()
            disposition = f'attachment; filename="{session.game.name}-{session.seed}.json"'
            return self._send(text.encode(), "application/json", 200, {"Content-Disposition": disposition})
        if action in ("agent", "hint"):
            with session.lock:  # one action at a time per game; other games go on
                ticket = session.start_agent_move(g.pool) if action == "agent" else session.start_hint(g.pool)
                session.waiters += 1
            if not self._await(session, ticket):
                return  # nobody to answer: the page has gone
            with session.lock:
                if action == "hint":
                    return self._json(session.finish_hint(ticket))
                session.finish_agent_move(ticket)
                return self._json(session.view(session_id))
        with session.lock:
            if action == "move":
                session.play_person(body, g.pool)
            elif action == "undo":
                session.undo(g.pool)
            return self._json(session.view(session_id))

    def _await(self, session: GameSession, ticket: Ticket) -> bool:
        """Waits for ``ticket`` without the interpreter lock, watching the client: when every
        request waiting for a search has gone (the page closed or reloaded), the search stops.
        Returns False when this request's client has gone."""
        gone = False
        try:
            while not ticket.wait(0.1):
                if _readable(self.connection):
                    try:
                        gone = self.connection.recv(1, socket.MSG_PEEK) == b""
                    except OSError:
                        gone = True
                    if gone:
                        return False
            return True
        finally:
            with session.lock:
                session.waiters -= 1
                if gone and session.waiters == 0 and session.search is ticket:
                    session.stop_search(self.games.pool, "nobody waits for it: the page was closed or reloaded")

    # -- answers -------------------------------------------------------------------------------

    def _file(self, path: Path) -> None:
        self._send(path.read_bytes(), CONTENT_TYPES[path.suffix], 200)

    def _json(self, data: Any, status: int = 200) -> None:
        self._send(json.dumps(data).encode(), "application/json", status)

    def _send(self, payload: bytes, content_type: str, status: int, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for key, value in {**SECURITY_HEADERS, **(headers or {})}.items():
            self.send_header(key, value)
        if self.close_connection or not self._body_read:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)


def _address_names(host: str, port: int) -> frozenset[str]:
    """The ``Host`` values that name a server bound to ``host:port``."""
    names = {host.lower()}
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        address = None
    if address is not None:
        names = {f"[{address}]" if address.version == 6 else str(address)}
        if address.is_loopback:
            names |= {"localhost", "127.0.0.1", "[::1]"} if address.version == 6 else {"localhost", str(address)}
    with_port = {f"{name}:{port}" for name in names}
    return frozenset(with_port | (names if port == 80 else set()))


def check_host(host: str) -> None:
    """Refuses an address that would listen on every interface.

    Raises:
        ValueError: ``host`` is empty or a wildcard address (one line).
    """
    try:
        wildcard = not host.strip() or ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        wildcard = host.strip() == "*"
    if wildcard:
        raise ValueError(
            f"--host {host!r} would listen on every interface; give 127.0.0.1 (the default: this machine only) "
            "or one address of this machine"
        )


def _connection_cap() -> int:
    """MAX_CONNECTIONS, or a quarter of the files this process may open if that is fewer."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY:
            return max(16, min(MAX_CONNECTIONS, soft // 4))
    except (ImportError, ValueError, OSError):
        pass
    return MAX_CONNECTIONS


def make_server(host: str = "127.0.0.1", port: int = 0, games: GameServer | None = None, verbose: bool = False,
                max_connections: int | None = None) -> ArenaHTTPServer:
    """A server bound to ``host:port`` (port 0: a free one; read ``server.server_port``), with its
    search processes started, not yet serving: call ``serve_forever`` (tests run it in a
    thread); ``server.url`` is the page's address with the token. ``server_close`` stops the
    searches too. ``max_connections`` defaults to MAX_CONNECTIONS (fewer where the process may
    open few files).

    Raises:
        ValueError: ``host`` is empty or a wildcard address.
        OSError: the address cannot be bound.
    """
    check_host(host)
    games = games or GameServer()
    server_class: type[ArenaHTTPServer] = type(
        "BoundServer", (ArenaHTTPServer,), {"address_family": socket.AF_INET6 if ":" in host else socket.AF_INET}
    )
    server = server_class((host.strip("[]"), port), Handler, max_connections or _connection_cap())
    server.games = games
    server.verbose = verbose
    bound = server.server_address[1]
    server.allowed_hosts = _address_names(host.strip("[]"), bound)
    server.allowed_origins = frozenset(f"http://{name}" for name in server.allowed_hosts)
    shown = f"[{host.strip('[]')}]" if ":" in host else host
    server.url = f"http://{shown}:{bound}/?token={games.token}"
    games.start()
    return server


def serve(host: str = "127.0.0.1", port: int = 0, runs_dir: str = "arena-runs", open_browser: bool = True,
          verbose: bool = False, **limits: Any) -> int:
    """Runs the server until Ctrl-C (the ``arena serve`` command); ``limits`` are
    :class:`GameServer`'s (``max_searches``, ``max_move_time``, ``max_table_mb``, ``max_games``)."""
    games = GameServer(runs_dir, **limits)
    server = make_server(host, port, games, verbose=verbose)
    url = server.url
    try:
        loopback = ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        print(f"arena serve: listening on {host}, not only this machine: anyone who can reach it and has the "
              "address below (with its token) can play and read the runs", file=sys.stderr)
    print(f"Serving board-arena on {url} (Ctrl-C to stop)", flush=True)
    if open_browser:
        try:
            webbrowser.open(url)
        except webbrowser.Error:
            pass
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        interrupt_handled()
        print("\nStopped.")
    finally:
        server.server_close()
    return 0
