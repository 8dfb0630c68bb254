"""The HTTP server of ``arena serve``: JSON over the standard library's threaded server.

Routes (every error is a 4xx with ``{"error": one line}``):

- ``GET /`` and ``GET /static/<file>``: the page; only the files shipped in ``static/`` are
  served, looked up by name in a listing made at start (no path from a request touches the disk).
- ``GET /games/<family>.js``: the drawing of a registered game family (the file its ``Game``
  class declares as ``web_drawing``, beside its module); a game without one is drawn by the page
  as its text rendering with a button per legal click.
- ``GET /api/catalog``: games, presets, parameters, drawings, agents and default opponents.
- ``POST /api/games`` ``{game, params, seats: [spec or null, spec or null], seed, random_side}``:
  a new game (``null`` is the person's seat; two specs make a spectator game; ``random_side``
  swaps the seats or not by the seed); returns its view.
- ``GET /api/games/<id>``: the view; ``POST /api/games/<id>/move`` ``{move}`` (notation) or
  ``{clicks}`` (the names of the board elements clicked, which the game's ``move_from_clicks``
  turns into its notation); ``POST .../agent`` (the agent to move plays); ``POST .../hint``; ``POST .../undo``;
  ``GET .../record``: the game record (replays with ``arena replay``).
- ``GET /api/runs``, ``GET /api/runs/<name>``, ``GET /api/runs/<name>/plot/<file>``,
  ``GET /api/runs/<name>/games/<id>``: finished tournament runs of the runs folder.

Games idle longer than ``idle_seconds`` are forgotten, and at most ``max_games`` are kept (the
least recently used go first), so abandoned pages cost nothing.
"""

from __future__ import annotations

import json
import os
import random
import re
import secrets
import threading
import time
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from board_arena import agents, engines
from board_arena.engines.game import State

__all__ = ["GameServer", "make_server", "serve"]

STATIC_DIR = Path(__file__).with_name("static")
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png"}
MAX_BODY = 64 * 1024
PLOTS = ("elo.png", "scores.png", "history.png")
#: The opponent offered first, by perfect information (strong, about half a second a move).
DEFAULT_OPPONENTS = {True: "alphabeta:time=0.5", False: "ismcts:time=0.5"}


class RequestError(ValueError):
    """A bad request: its HTTP status and a one-line reason."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status


class GameSession:
    """One game on the server: its state, who sits where, and what the agents said."""

    def __init__(self, game: engines.Game, seats: list[str | None], seed: int):
        self.game = game
        self.seed = seed
        self.specs = seats
        self.agents = [None if spec is None else agents.make_agent(spec, seed=seed + seat) for seat, spec in enumerate(seats)]
        for agent in self.agents:
            if agent is not None:
                agent.check_game(game)
                if agent.sees_everything and not game.perfect_information and None in seats:
                    raise RequestError(400, f"{agent.name} sees your hidden tiles; choose an honest opponent")
        humans = [seat for seat, spec in enumerate(seats) if spec is None]
        if len(humans) == 2:
            raise RequestError(400, "at least one seat must be an agent (seats: [spec or null, spec or null])")
        self.human = humans[0] if humans else None
        self.state = game.new_initial_state(seed)
        self.undo_stack: list[tuple[State, int]] = []  # position and log length before each person's move
        self.log: list[dict[str, Any]] = []  # every move: player, notation, search summary
        self.lock = threading.Lock()
        self.last_used = time.monotonic()
        self.warmed = False

    # -- what the page sees --------------------------------------------------------------------

    def seen_state(self) -> State:
        """The person's view in a hidden-information game that goes on; the whole state otherwise
        (a spectator sees both hands, as on television)."""
        if self.game.perfect_information or self.human is None or self.state.is_terminal():
            return self.state
        return self.state.view(self.human)

    def reveals_all(self) -> bool:
        """True when the page may know everything (seed, record): nothing is hidden, nobody
        plays in person, or the game is over."""
        return self.game.perfect_information or self.human is None or self.state.is_terminal()

    def view(self, session_id: str) -> dict[str, Any]:
        """What the page draws: the board, the moves as clicks, what to mark and say."""
        state = self.state
        seen = self.seen_state()
        game = self.game
        terminal = state.is_terminal()
        to_move = None if terminal else state.current_player
        human_turn = to_move is not None and to_move == self.human
        moves = [{"name": seen.format_move(m), "clicks": game.move_clicks(seen, m)} for m in seen.legal_moves()] if human_turn else []
        return {
            "id": session_id,
            "game": self.game.name,
            "family": self.game.family,
            "params": dict(self.game.params),
            # The seed of a hidden-information game holds the deal: a person sees it at the end.
            "seed": self.seed if self.reveals_all() else None,
            "record_ready": self.reveals_all(),
            "seats": self.specs,
            "human": self.human,
            **drawing_data(seen),
            "status": game.status_line(state),
            "moves": moves,
            "prompts": _prompts(seen, moves),
            "buttons": [list(button) for button in game.click_buttons],
            "agent_to_move": to_move is not None and self.agents[to_move] is not None,
            "log": self.log,
            "can_undo": bool(self.undo_stack),
            "result": self._result() if terminal else None,
        }

    def _result(self) -> str:
        text = self.game.result_text(self.state)
        reason = self.state.end_reason
        if self.human is not None:
            winner = self.state.winner
            verdict = "Draw." if winner is None else ("You win!" if winner == self.human else "The agent wins.")
            text = f"{verdict} {text}"
        return f"{text}; {reason}" if reason and reason not in text else text

    # -- actions -------------------------------------------------------------------------------

    def play_person(self, body: dict) -> None:
        state = self.state
        if state.is_terminal():
            raise RequestError(409, "the game is over")
        if state.current_player != self.human:
            raise RequestError(409, "it is not your turn: the agent is to move")
        seen = self.seen_state()
        if "move" in body:
            text = body["move"]
            if not isinstance(text, str) or not text.strip() or len(text) > 200:
                raise RequestError(400, "move must be a non-empty string in the game's notation")
        elif "clicks" in body:
            clicks = body["clicks"]
            if not isinstance(clicks, list) or not clicks or len(clicks) > 20 or not all(isinstance(c, str) and len(c) < 20 for c in clicks):
                raise RequestError(400, "clicks must be a non-empty list of board element names")
            try:
                text = self.game.move_from_clicks(seen, clicks)
            except ValueError as error:
                raise RequestError(422, str(error)) from None
        else:
            raise RequestError(400, 'give {"move": "<notation>"} or {"clicks": [...]}')
        try:
            move = seen.parse_move(text)
            if not seen.is_legal(move):
                raise engines.IllegalMoveError(self.game.illegal_reason(seen, move) or "illegal")
        except ValueError as error:
            raise RequestError(422, f"{text}: {error}") from None
        before = state.copy()
        name = state.format_move(move)
        state.apply(move)
        self.undo_stack.append((before, len(self.log)))
        self.log.append({"player": before.current_player, "move": name, "by": "you", "summary": None})

    def play_agent(self) -> None:
        state = self.state
        if state.is_terminal():
            raise RequestError(409, "the game is over")
        seat = state.current_player
        agent = self.agents[seat]
        if agent is None:
            raise RequestError(409, "it is your turn, not the agent's")
        if not self.warmed:
            for a in self.agents:
                if a is not None:
                    a.warm_up(self.game)
            self.warmed = True
        found = agent.search(agent.observe(state, seat))
        name = state.format_move(found.move)
        state.apply(found.move)
        self.log.append({"player": seat, "move": name, "by": self.specs[seat], "summary": found.summary()})

    def hint(self) -> dict[str, Any]:
        if self.human is None or self.state.is_terminal() or self.state.current_player != self.human:
            raise RequestError(409, "a hint is for your turn")
        spec = self.specs[1 - self.human] or DEFAULT_OPPONENTS[self.game.perfect_information]
        adviser = agents.make_agent(spec, seed=self.seed + 1000 + self.state.ply)
        if adviser.sees_everything:
            adviser = agents.make_agent(DEFAULT_OPPONENTS[self.game.perfect_information], seed=self.seed)
        seen = self.seen_state()
        found = adviser.search(seen)
        return {"move": seen.format_move(found.move), "clicks": self.game.move_clicks(seen, found.move), "summary": found.summary()}

    def undo(self) -> None:
        if not self.undo_stack:
            raise RequestError(409, "nothing to undo: you have not moved yet")
        self.state, length = self.undo_stack.pop()
        del self.log[length:]

    def record(self) -> str:
        if not self.reveals_all():
            raise RequestError(409, "the record of a game with hidden tiles is given at the end: it holds the deal")
        players = [spec or "human" for spec in self.specs]
        return self.state.record(players=players, finished=self.state.is_terminal()).to_json() + "\n"


class GameServer:
    """The games and runs a server holds; thread-safe (one lock per game, one for the table)."""

    def __init__(self, runs_dir: str = "arena-runs", idle_seconds: float = 1800.0, max_games: int = 500):
        self.runs_dir = runs_dir
        self.idle_seconds = idle_seconds
        self.max_games = max_games
        self.sessions: dict[str, GameSession] = {}
        self.table_lock = threading.Lock()
        self.static_files = {p.name: p for p in STATIC_DIR.iterdir() if p.is_file() and p.suffix in CONTENT_TYPES}

    # -- games ---------------------------------------------------------------------------------

    def catalog(self) -> dict[str, Any]:
        def param(p):
            return {"name": p.name, "default": p.default, "doc": p.doc, "allowed": p.allowed(),
                    "type": p.type.__name__, "choices": list(p.choices) if p.choices else None}

        games = []
        for name in engines.available_games():
            cls = engines.game_class(name)
            preset = cls.PRESETS[name]
            games.append({
                "name": name, "family": cls.family, "summary": cls.summary,
                "perfect_information": cls.perfect_information,
                "drawing": f"/games/{cls.family}.js" if cls.web_drawing else None,
                "params": [{**param(p), "default": preset.get(p.name, p.default)} for p in cls.PARAMS],
                "default_opponent": DEFAULT_OPPONENTS[cls.perfect_information],
                "help": engines.make(name).help_text(),
            })
        agent_list = []
        for name in agents.available_agents():
            agent_cls = agents.agent_class(name)
            agent_list.append({"name": name, "summary": agent_cls.summary, "hidden_information": agent_cls.plays_hidden_information,
                               "sees_everything": agent_cls.sees_everything, "params": [param(p) for p in agent_cls.PARAMS]})
        return {"games": games, "agents": agent_list}

    def new_game(self, body: dict) -> tuple[str, GameSession]:
        name = body.get("game")
        if not isinstance(name, str) or name not in engines.available_games():
            raise RequestError(400, f"unknown game {name!r}; games: {', '.join(engines.available_games())}")
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
            raise RequestError(400, "seed must be a non-negative integer")
        if body.get("random_side"):
            # The person's side drawn from the game's seed, as arena play --first random does.
            if random.Random(seed).randrange(2) == 1:
                seats = seats[::-1]
        try:
            game = engines.make(name, **params)
            if seats == [None, None]:
                seats = [None, DEFAULT_OPPONENTS[game.perfect_information]]
            session = GameSession(game, seats, seed)
        except RequestError:
            raise
        except ValueError as error:
            raise RequestError(400, str(error)) from None
        session_id = secrets.token_urlsafe(12)
        with self.table_lock:
            self._forget_idle()
            self.sessions[session_id] = session
        return session_id, session

    def session(self, session_id: str) -> GameSession:
        with self.table_lock:
            session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(404, f"no game {session_id!r}: it ended long ago or the server restarted; start a new game")
        session.last_used = time.monotonic()
        return session

    def _forget_idle(self) -> None:
        now = time.monotonic()
        for key in [k for k, s in self.sessions.items() if now - s.last_used > self.idle_seconds]:
            del self.sessions[key]
        while len(self.sessions) >= self.max_games:
            oldest = min(self.sessions, key=lambda k: self.sessions[k].last_used)
            del self.sessions[oldest]

    def drawing(self, family: str) -> Path:
        """The drawing file of a registered game family (only files that a game class declares)."""
        for cls in engines.game_classes():
            if cls.family == family:
                try:
                    path = cls.drawing_file()
                except ValueError as error:
                    raise RequestError(404, str(error)) from None
                if path is not None:
                    return path
        raise RequestError(404, f"no drawing of a game family {family!r}")

    # -- runs ----------------------------------------------------------------------------------

    def run_names(self) -> list[str]:
        if not os.path.isdir(self.runs_dir):
            return []
        return sorted(n for n in os.listdir(self.runs_dir) if os.path.isfile(os.path.join(self.runs_dir, n, "results.sqlite")))

    def _run_dir(self, name: str) -> str:
        if name not in self.run_names():  # only folders of the listing, never a path from the request
            raise RequestError(404, f"no run {name!r} in {self.runs_dir}")
        return os.path.join(self.runs_dir, name)

    def run_summary(self, name: str) -> dict[str, Any]:
        from board_arena.arena.report import describe_settings, format_report
        from board_arena.arena.tournament import load_run

        run = load_run(self._run_dir(name))
        ratings = run.ratings()
        standings = []
        for rank, i in enumerate(ratings.order(), start=1):
            elo = ratings.elo[i]
            standings.append({"rank": rank, "agent": ratings.names[i], "elo": None if elo != elo else round(float(elo)),
                              "interval": None if elo != elo else [round(float(ratings.low[i])), round(float(ratings.high[i]))],
                              "games": int(ratings.games[i]), "score": float(ratings.points[i]), "draws": int(ratings.draws[i])})
        games = [{"id": g.id, "players": [g.player0, g.player1], "result": g.result, "score": g.score,
                  "plies": g.plies, "end_reason": g.end_reason} for g in run.games]
        plots = [p for p in PLOTS if os.path.isfile(os.path.join(run.out_dir, p))]
        return {"name": name, "settings": describe_settings(run.settings), "standings": standings, "games": games,
                "plots": plots, "report": format_report(run.settings, run.games, ratings)}

    def run_game(self, name: str, game_id: int) -> dict[str, Any]:
        from board_arena.arena.tournament import load_run

        run = load_run(self._run_dir(name))
        try:
            record = run.game_record(game_id)
        except ValueError as error:
            raise RequestError(404, str(error)) from None
        states = list(record.positions())
        positions = [{**drawing_data(state, layout=False), "move": move} for state, move in states]
        final = states[-1][0]
        game = final.game
        return {"game": record.game, "family": game.family, "players": record.metadata["players"],
                "positions": positions, "layout": game.board_layout(),
                "result": _with_reason(game.result_text(final), final.end_reason)}

    def run_plot(self, name: str, plot: str) -> Path:
        if plot not in PLOTS:
            raise RequestError(404, f"no plot {plot!r}; plots: {', '.join(PLOTS)}")
        path = Path(self._run_dir(name)) / plot
        if not path.is_file():
            raise RequestError(404, f"run {name!r} has no {plot}")
        return path


def _with_reason(text: str, reason: str | None) -> str:
    return f"{text}; {reason}" if reason and reason not in text else text


def drawing_data(state: State, layout: bool = True) -> dict[str, Any]:
    """What a drawing of ``state`` is made from (see ``static/boards.js``): the board, the
    variant's layout (unless ``layout`` is false: a replay sends it once), the groups to mark
    after the last move, and for a game without a drawing of its own its text rendering."""
    game = state.game
    data: dict[str, Any] = {"board": state.board(), "highlights": game.highlights(state)}
    if layout:
        data["layout"] = game.board_layout()
    if game.web_drawing is None:
        data["text"] = state.render()
    return data


def _prompts(state: State, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The game's words for the clicks made so far, for each start of a legal move's clicks
    that has any (``Game.click_prompt``)."""
    starts = sorted({tuple(m["clicks"][:i]) for m in moves for i in range(1, len(m["clicks"]))})
    prompts = []
    for clicks in starts:
        text = state.game.click_prompt(state, list(clicks))
        if text:
            prompts.append({"clicks": list(clicks), "text": text})
    return prompts


class Handler(BaseHTTPRequestHandler):
    """One request; the routes are in the module docstring."""

    server_version = "board-arena"
    games: GameServer  # set by make_server on a subclass
    quiet = True

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        if not self.quiet:
            super().log_message(format, *args)

    def do_GET(self):
        self._dispatch("GET")

    def do_POST(self):
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        try:
            path = urlsplit(self.path).path
            body = self._body() if method == "POST" else {}
            self._route(method, path, body)
        except RequestError as error:
            self._json({"error": str(error)}, error.status)
        except BrokenPipeError:
            pass
        except Exception as error:  # a bug: one line for the page, the server goes on
            self._json({"error": f"internal error: {type(error).__name__}: {error}"}, 500)

    def _body(self) -> dict:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise RequestError(400, "Content-Length is not a number") from None
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read
            raise RequestError(413, f"request body of {length} bytes is too large; at most {MAX_BODY}")
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise RequestError(400, "the request body is not JSON") from None
        if not isinstance(body, dict):
            raise RequestError(400, "the request body must be a JSON object")
        return body

    def _route(self, method: str, path: str, body: dict) -> None:
        g = self.games
        if method == "GET" and path == "/favicon.ico":
            return self._send(b"", "image/x-icon", 204)
        if method == "GET" and path in ("/", "/index.html"):
            return self._file(g.static_files["index.html"])
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
        if method == "POST" and path == "/api/games":
            session_id, session = g.new_game(body)
            with session.lock:
                return self._json(session.view(session_id), 201)
        match = re.fullmatch(r"/api/games/([A-Za-z0-9_-]{1,64})(?:/(move|agent|hint|undo|record))?", path)
        if match:
            session_id, action = match.groups()
            session = g.session(session_id)
            allowed = "GET" if action in (None, "record") else "POST"
            if method != allowed:
                raise RequestError(405, f"{path} takes {allowed}")
            with session.lock:  # one action at a time per game; other games go on
                if action == "record":
                    return self._send(session.record().encode(), "application/json", 200,
                                      {"Content-Disposition": f'attachment; filename="{session.game.name}-{session.seed}.json"'})
                if action == "hint":
                    return self._json(session.hint())
                if action == "move":
                    session.play_person(body)
                elif action == "agent":
                    session.play_agent()
                elif action == "undo":
                    session.undo()
                return self._json(session.view(session_id))
        if method == "GET" and path == "/api/runs":
            return self._json({"runs_dir": g.runs_dir, "runs": g.run_names()})
        match = re.fullmatch(r"/api/runs/([A-Za-z0-9_.:,=+-]{1,200})(?:/plot/([a-z]+\.png)|/games/([0-9]{1,9}))?", path)
        if method == "GET" and match:
            name, plot, game_id = match.groups()
            if plot:
                return self._file(g.run_plot(name, plot))
            if game_id:
                return self._json(g.run_game(name, int(game_id)))
            return self._json(g.run_summary(name))
        raise RequestError(404 if method == "GET" else 405, f"no route {method} {path}")

    def _file(self, path: Path) -> None:
        self._send(path.read_bytes(), CONTENT_TYPES[path.suffix], 200)

    def _json(self, data: Any, status: int = 200) -> None:
        self._send(json.dumps(data).encode(), "application/json", status)

    def _send(self, payload: bytes, content_type: str, status: int, headers: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)


class _Server(ThreadingHTTPServer):
    # The standard library listens with a backlog of 5: a page's bursts and many players at
    # once would see connections reset.
    request_queue_size = 128
    daemon_threads = True


def make_server(host: str = "127.0.0.1", port: int = 0, games: GameServer | None = None, quiet: bool = True) -> ThreadingHTTPServer:
    """A server bound to ``host:port`` (port 0: a free one; read ``server.server_port``), not yet
    serving: call ``serve_forever`` (tests run it in a thread)."""
    handler = type("BoundHandler", (Handler,), {"games": games or GameServer(), "quiet": quiet})
    return _Server((host, port), handler)


def serve(host: str = "127.0.0.1", port: int = 0, runs_dir: str = "arena-runs", open_browser: bool = True) -> int:
    """Runs the server until Ctrl-C (the ``arena serve`` command)."""
    server = make_server(host, port, GameServer(runs_dir), quiet=False)
    url = f"http://{host}:{server.server_port}/"
    print(f"Serving board-arena on {url} (Ctrl-C to stop)", flush=True)
    if open_browser:
        try:
            webbrowser.open(url)
        except webbrowser.Error:
            pass
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nStopped.")
    finally:
        server.server_close()
    return 0
