"""The arena as a UGI host: an engine program, named in an engines file, plays as an agent.

An engine is described once (:class:`EngineDefinition`: its command, working folder, the
options it is sent, the games it plays, its timeouts) and registered under its name
(:func:`register_engines`), after which its name is an agent spec like any other
(``--agents mcts,myengine``, ``myengine:depth=6``): the agent is a :class:`UgiEngine`, which
starts the program, speaks UGI with it over its standard input and output, and turns each
``bestmove`` into a move of ours. Engines are described in a TOML file (:func:`load_engines_file`,
``--engines FILE``); a run stores the definitions of the engines it plays in its settings, so
that its worker processes, Ray actors and a resumed run rebuild the same engines.

The arena judges with its own rules: an engine's move that does not parse or is not legal loses
the game, as does an engine that cannot be started, exits, hangs, or answers with lines that are
not UGI (:class:`EngineFault`, whose message carries the engine's last lines of standard error).
A process is kept from game to game (``uginewgame`` between games) and started again after a
fault; it dies with the process that started it.
"""

from __future__ import annotations

import atexit
import collections
import ctypes
import json
import math
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import asdict, dataclass, field
from typing import IO, Any, ClassVar, Iterable

from board_arena.agents.base import (
    DEPTH,
    NODES,
    TIME,
    Agent,
    Limit,
    SearchInfo,
    agent_registry,
    register_agent,
)
from board_arena.engines import Game, State, shown

__all__ = [
    "EngineDefinition",
    "EngineFault",
    "UgiEngine",
    "load_engines_file",
    "register_engines",
    "registered_engines",
    "engine_registry",
    "restore_engine_registry",
    "engine_definitions_used",
    "parse_info",
    "DEFAULT_MOVE_TIME",
    "LOG_FOLDER",
]

#: Seconds per move when neither the spec, the arena nor a clock gives an engine a budget (UGI
#: has no search without one but ``go infinite``, which never ends by itself).
DEFAULT_MOVE_TIME = 1.0
#: The run folder's subfolder of protocol logs (one file per engine and game).
LOG_FOLDER = "ugi-logs"
#: The longest line read from an engine (longer ones are not UGI: a fault).
MAX_LINE_BYTES = 1 << 16
#: The most lines an engine may send while it searches for one move (``info`` lines included).
MAX_LINES_PER_MOVE = 100_000
#: Lines of an engine's standard output held unread at most: a flood between two commands
#: fills it, and the engine is then at fault.
MAX_PENDING_LINES = 10_000
#: Characters of each standard error line kept in a fault's message.
MAX_STDERR_CHARS = 200
#: Seconds an engine is given to quit before its process group is killed.
QUIT_SECONDS = 0.5

_KEYS = {
    "command": "the program and its arguments: a list of strings, or one string split as a shell would",
    "args": "more arguments (a list of strings)",
    "dir": "the working folder (relative to the engines file's folder; default that folder)",
    "options": "a table of UGI options, each sent as setoption name N value V",
    "games": "the games it plays (a list of names; default any)",
    "log": "true: write each game's protocol log into the run folder's ugi-logs",
    "ready_timeout": "seconds to answer ugi with ugiok, and isready with readyok (default 10)",
    "search_timeout": "seconds a search with no time limit may take (go depth, go nodes; default 60)",
    "stop_grace": "seconds past its time before the engine is sent stop, and again before it is killed (default 0.5)",
    "stderr_lines": "lines of standard error kept for a fault's message (default 10)",
}


class EngineFault(RuntimeError):
    """An engine failed (could not start, exited, hung, sent what is not UGI, played no legal
    move): the game it was playing is lost. The message names the engine, what happened, and
    ends with the last lines it wrote on standard error."""


@dataclass(frozen=True)
class EngineDefinition:
    """How to run one engine. ``command`` is the program and its arguments (the program found
    on ``PATH`` unless it names a file), ``directory`` its working folder (None: the arena's),
    ``options`` the UGI options set at start, ``games`` the games it plays (empty: any),
    ``log`` whether each game's protocol log is written. Timeouts are in seconds."""

    name: str
    command: tuple[str, ...]
    directory: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    games: tuple[str, ...] = ()
    log: bool = False
    ready_timeout: float = 10.0
    search_timeout: float = 60.0
    stop_grace: float = 0.5
    stderr_lines: int = 10

    def __post_init__(self) -> None:
        if not self.name or not all(c.isalnum() or c in "-_." for c in self.name):
            raise ValueError(f"engine name {shown(self.name)}: use letters, digits, '-', '_' and '.'")
        if not self.command or not all(isinstance(word, str) and word for word in self.command):
            raise ValueError(f"engine {self.name!r}: command must name a program, e.g. command = ['./my-engine', '--ugi']")
        for key in ("ready_timeout", "search_timeout", "stop_grace"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value <= 86400.0 or math.isnan(value):
                raise ValueError(f"engine {self.name!r}: {key} must be a number of seconds above 0 and at most 86400, not {shown(value)}")
        if isinstance(self.stderr_lines, bool) or not isinstance(self.stderr_lines, int) or not 0 <= self.stderr_lines <= 1000:
            raise ValueError(f"engine {self.name!r}: stderr_lines must be an integer from 0 to 1000, not {shown(self.stderr_lines)}")
        for key, value in self.options.items():
            if not isinstance(key, str) or not isinstance(value, str) or not key or any(c in key + value for c in "\r\n"):
                raise ValueError(f"engine {self.name!r}: option {shown(key)} must have a name and a one-line value")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values, as a run's settings store them (:meth:`from_dict` reads them)."""
        data = asdict(self)
        data["command"] = list(self.command)
        data["games"] = list(self.games)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EngineDefinition":
        """The definition :meth:`to_dict` wrote."""
        return cls(**{**data, "command": tuple(data["command"]), "games": tuple(data.get("games", ())),
                      "options": dict(data.get("options", {}))})

    def plays(self, game: Game) -> bool:
        """Whether the engine plays ``game`` (its ``games``, or any when none are listed)."""
        return not self.games or game.name in self.games


def load_engines_file(path: str) -> list[EngineDefinition]:
    """The engines described in the TOML file ``path`` (or JSON, for a name ending ``.json``,
    with the same tables as objects): one table per engine, named by it::

        [engines.myengine]
        command = ["./my-engine", "--ugi"]
        options = { Hash = 64 }

    A relative program path (one with a ``/``) and ``dir`` are taken from the file's folder,
    which is also the working folder by default.

    Raises:
        ValueError: no such file, not TOML, or a key or value that is not allowed (one line:
            the file, the engine and what is allowed).
    """
    as_json = path.endswith(".json")
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read().decode("utf-8")) if as_json else _toml_module().loads(handle.read().decode("utf-8"))
    except FileNotFoundError:
        raise ValueError(f"engines file {path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"engines file {path}: a folder, not a file") from None
    except OSError as error:
        raise ValueError(f"engines file {path}: cannot read it: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ValueError(f"engines file {path}: not UTF-8 text") from None
    except ValueError as error:  # json.JSONDecodeError and tomllib.TOMLDecodeError are ValueErrors
        raise ValueError(f"engines file {path}: not {'JSON' if as_json else 'TOML'}: {error}") from None
    if not isinstance(data, dict):
        data = {}
    unknown = [key for key in data if key != "engines"]
    tables = data.get("engines")
    if unknown or not isinstance(tables, dict) or not tables:
        raise ValueError(f"engines file {path}: describe each engine in a table [engines.NAME] with a command, e.g. "
                         f'[engines.myengine] then command = ["./my-engine"]')
    folder = os.path.dirname(os.path.abspath(path))
    try:
        return [_definition(name, table, folder) for name, table in tables.items()]
    except ValueError as error:
        raise ValueError(f"engines file {path}: {error}") from None


def _toml_module() -> Any:
    """The TOML reader: the standard library's (Python 3.11 and later) or the ``tomli`` package.

    Raises:
        ValueError: neither is there (the file can be written as JSON instead).
    """
    try:
        import tomllib

        return tomllib
    except ImportError:
        try:
            import tomli

            return tomli
        except ImportError:
            raise ValueError("reading TOML needs Python 3.11 or the tomli package; or write the engines file as JSON "
                             "(FILE.json, the same tables as objects)") from None


def _definition(name: str, table: Any, folder: str) -> EngineDefinition:
    """One engine's table of an engines file, its paths taken from ``folder``."""
    if not isinstance(table, dict):
        raise ValueError(f"engine {name!r} must be a table ([engines.{name}]), not a value")
    unknown = [key for key in table if key not in _KEYS]
    if unknown:
        listed = "; ".join(f"{key}: {what}" for key, what in _KEYS.items())
        raise ValueError(f"engine {name!r} has no key {unknown[0]!r}; keys: {listed}")
    command = table.get("command")
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as error:
            raise ValueError(f"engine {name!r}: command {shown(command)}: {error}") from None
    args = table.get("args", [])
    if not isinstance(command, list) or not command or not all(isinstance(w, str) for w in command):
        raise ValueError(f"engine {name!r}: {_KEYS['command']}")
    if not isinstance(args, list) or not all(isinstance(w, str) for w in args):
        raise ValueError(f"engine {name!r}: args must be a list of strings")
    program = command[0]
    if os.sep in program and not os.path.isabs(program):
        program = os.path.normpath(os.path.join(folder, program))
    directory = table.get("dir", ".")
    if not isinstance(directory, str):
        raise ValueError(f"engine {name!r}: dir must be a folder's path")
    directory = os.path.normpath(os.path.join(folder, directory))
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise ValueError(f"engine {name!r}: options must be a table, e.g. options = {{ Hash = 64 }}")
    games = table.get("games", [])
    if isinstance(games, str):
        games = [games]
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
        raise ValueError(f"engine {name!r}: games must be a list of game names")
    log = table.get("log", False)
    if not isinstance(log, bool):
        raise ValueError(f"engine {name!r}: log must be true or false")
    numbers = {key: table[key] for key in ("ready_timeout", "search_timeout", "stop_grace", "stderr_lines") if key in table}
    return EngineDefinition(
        name=name, command=(program, *command[1:], *args), directory=directory,
        options={str(k): _option_text(v) for k, v in options.items()}, games=tuple(games), log=log, **numbers,
    )


def _option_text(value: Any) -> str:
    """An option's value as ``setoption`` writes it (``true``, ``64``, ``0.5``, text)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float, str)):
        return str(value)
    raise ValueError(f"an option's value is a string, a number or true/false, not {shown(value)}")


# -- the registry of engines ---------------------------------------------------------------------

_ENGINES: dict[str, type["UgiEngine"]] = {}


def register_engines(definitions: Iterable[EngineDefinition | dict[str, Any]]) -> list[str]:
    """Makes each engine an agent under its name (a class of :class:`UgiEngine` per engine);
    returns the names. An engine registered again takes its new definition.

    Raises:
        ValueError: a name that an agent already has.
    """
    names = []
    registry = agent_registry()
    for definition in definitions:
        if isinstance(definition, dict):
            definition = EngineDefinition.from_dict(definition)
        name = definition.name
        known = _ENGINES.get(name)
        if known is not None and known.definition == definition:
            names.append(name)
            continue
        if name in registry and known is None:
            raise ValueError(f"engine name {name!r} is an agent's already: name the engine otherwise")
        summary = f"UGI engine: {shlex.join(definition.command)}"
        engine_class = type(f"UgiEngine[{name}]", (UgiEngine,), {"name": name, "definition": definition, "summary": summary,
                                                                "__module__": __name__})
        _ENGINES[name] = register_agent(engine_class)  # type: ignore[assignment]
        names.append(name)
    return names


def engine_registry() -> dict[str, type["UgiEngine"]]:
    """A copy of the engines registered in this process, for :func:`restore_engine_registry`
    (as :func:`agents.agent_registry` is for agents: tests register engines and forget them)."""
    return dict(_ENGINES)


def restore_engine_registry(saved: dict[str, type["UgiEngine"]]) -> None:
    """Puts back the engines :func:`engine_registry` copied."""
    _ENGINES.clear()
    _ENGINES.update(saved)


def registered_engines() -> dict[str, EngineDefinition]:
    """The engines registered in this process, by name."""
    return {name: cls.definition for name, cls in _ENGINES.items()}


def engine_definitions_used(agents: Iterable[Agent]) -> tuple[dict[str, Any], ...]:
    """The definitions (as :meth:`EngineDefinition.to_dict`) of the engines among ``agents``,
    once each: what a run stores so that its other processes register them too."""
    found: dict[str, dict[str, Any]] = {}
    for agent in agents:
        if isinstance(agent, UgiEngine):
            found.setdefault(agent.definition.name, agent.definition.to_dict())
    return tuple(found.values())


# -- the engine's process ------------------------------------------------------------------------

_EOF = object()  # the engine closed its standard output
_OVERLONG = object()  # a line longer than MAX_LINE_BYTES
_FLOODED = object()  # more than MAX_PENDING_LINES lines unread

#: Every engine process running, so that none outlives the arena.
_RUNNING: "weakref.WeakSet[_EngineProcess]" = weakref.WeakSet()


class _EngineProcess:
    """One running engine program: its pipes, a thread reading each of its outputs (so that
    neither fills and blocks it), the last lines of its standard error, and the game's protocol
    log when one is kept."""

    def __init__(self, definition: EngineDefinition):
        self.definition = definition
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=definition.stderr_lines)
        self.lines: queue.Queue[Any] = queue.Queue()
        self.log: IO[str] | None = None
        self.log_started = 0.0
        self._log_lock = threading.Lock()
        self.alive = False
        try:
            self.process = subprocess.Popen(
                list(definition.command), cwd=definition.directory, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True, preexec_fn=_die_with_parent if _PRCTL else None,
            )
        except FileNotFoundError:
            missing = definition.command[0] if definition.directory is None or os.path.isdir(definition.directory) else definition.directory
            raise EngineFault(f"engine {definition.name!r} cannot be started: {missing}: no such file or folder") from None
        except PermissionError:
            raise EngineFault(f"engine {definition.name!r} cannot be started: {definition.command[0]}: not executable") from None
        except OSError as error:
            raise EngineFault(f"engine {definition.name!r} cannot be started: {definition.command[0]}: {error.strerror or error}") from None
        self.alive = True
        _RUNNING.add(self)
        assert self.process.stdout is not None and self.process.stderr is not None
        threading.Thread(target=self._read_stdout, args=(self.process.stdout,), daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, args=(self.process.stderr,), daemon=True)
        self._stderr_reader.start()

    def _read_stdout(self, stream: IO[bytes]) -> None:
        lines = self.lines
        skipping = False
        try:
            while True:
                raw = stream.readline(MAX_LINE_BYTES)
                if not raw:
                    break
                if not raw.endswith(b"\n"):
                    if len(raw) >= MAX_LINE_BYTES and not skipping:
                        lines.put(_OVERLONG)
                    skipping = len(raw) >= MAX_LINE_BYTES
                    if skipping:
                        continue
                elif skipping:  # the end of an overlong line
                    skipping = False
                    continue
                if lines.qsize() >= MAX_PENDING_LINES:
                    lines.put(_FLOODED)
                    break
                line = raw.decode("utf-8", "replace").strip()
                self._log("<", line)
                lines.put(line)
        except (OSError, ValueError):
            pass
        lines.put(_EOF)

    def _read_stderr(self, stream: IO[bytes]) -> None:
        tail = self.stderr_tail
        try:
            while True:
                raw = stream.readline(MAX_LINE_BYTES)
                if not raw:
                    return
                line = raw.decode("utf-8", "replace").rstrip()
                tail.append(line[:MAX_STDERR_CHARS] + ("..." if len(line) > MAX_STDERR_CHARS else ""))
                self._log("2", line[:MAX_STDERR_CHARS])
        except (OSError, ValueError):
            return

    def send(self, line: str) -> None:
        """Writes one command to the engine (a fault if it has gone)."""
        self._log(">", line)
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(line.encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self.fault(f"exited ({self.exit_text()}) before it read {shown(line)}") from None

    def receive(self, deadline: float, waiting_for: str) -> str | None:
        """The engine's next line, or None when ``deadline`` (``time.monotonic``) passes first."""
        timeout = deadline - time.monotonic()
        try:
            item = self.lines.get(timeout=max(0.0, timeout)) if timeout > 0 else self.lines.get_nowait()
        except queue.Empty:
            return None
        if isinstance(item, str):
            return item
        if item is _OVERLONG:
            raise self.fault(f"sent a line of more than {MAX_LINE_BYTES:,} bytes while {waiting_for}")
        if item is _FLOODED:
            raise self.fault(f"sent more than {MAX_PENDING_LINES:,} lines that were not read while {waiting_for}")
        self.lines.put(_EOF)  # every later read sees the end too
        raise self.fault(f"exited ({self.exit_text()}) while {waiting_for}")

    def exit_text(self) -> str:
        """How the process ended (``exit code 3``, ``killed by SIGSEGV``), waiting a little for it."""
        try:
            code = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "its output closed, the process still running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                pass
        return f"exit code {code}"

    def fault(self, what: str) -> EngineFault:
        """The fault ``what`` of this engine, with its last lines of standard error; the process
        is killed (the engine is started again for its next game)."""
        self._log("!", what)
        self.kill()
        # What it wrote as it died (a traceback after a flood, say) is read to the end first.
        self._stderr_reader.join(timeout=2.0)
        tail = [line for line in self.stderr_tail if line.strip()]
        said = f"; last stderr lines: {' | '.join(tail)}" if tail else "; nothing on stderr"
        return EngineFault(f"engine {self.definition.name!r} {what}{said}")

    def kill(self) -> None:
        """Kills the engine's whole process group (it runs in a session of its own)."""
        if not self.alive:
            return
        self.alive = False
        _RUNNING.discard(self)
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass
        try:
            self.process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        self.close_log()

    def quit(self) -> None:
        """Asks the engine to quit, then kills whatever is left of its process group."""
        if not self.alive:
            return
        try:
            self.send("quit")
            self.process.wait(timeout=QUIT_SECONDS)
        except (EngineFault, subprocess.TimeoutExpired):
            pass
        self.kill()

    # -- the protocol log

    def open_log(self, path: str) -> None:
        """Writes every line sent and received from now on to ``path`` (the previous log closed)."""
        self.close_log()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with self._log_lock:
            self.log = open(path, "w", encoding="utf-8")
            self.log_started = time.monotonic()
            self.log.write(f"# {self.definition.name}: {shlex.join(self.definition.command)}\n"
                           "# seconds, then > sent, < received, 2 standard error, ! the arena's verdict\n")

    def close_log(self) -> None:
        with self._log_lock:
            if self.log is not None:
                self.log.close()
                self.log = None

    def _log(self, direction: str, line: str) -> None:
        if self.log is None:
            return
        with self._log_lock:
            if self.log is not None:
                self.log.write(f"{time.monotonic() - self.log_started:10.3f} {direction} {line}\n")
                self.log.flush()


def _kill_every_engine() -> None:
    """At exit (a run's end, Ctrl-C, an error): no engine process outlives the arena."""
    for engine in list(_RUNNING):
        engine.kill()


atexit.register(_kill_every_engine)

_PR_SET_PDEATHSIG = 1
try:  # looked up here: the child between fork and exec calls it and nothing else
    _PRCTL: Any = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent() -> None:
    """In the engine's process before it runs: SIGKILL when the process that started it dies
    (a worker killed by the pool for a hang takes its engines with it)."""
    _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)


# -- the agent ---------------------------------------------------------------------------------


def parse_info(line: str, info: SearchInfo) -> None:
    """Reads an ``info`` line's ``depth``, ``nodes``, ``time`` and ``score`` into ``info``.
    ``score cp C`` is the value C/1000 clipped to [-1, 1]; ``score mate N`` a proven win (N > 0)
    or loss. Fields that do not parse are left as they were (``info string`` ends the line).

    Example:
        >>> info = SearchInfo(move=0)
        >>> parse_info("info depth 7 nodes 12000 score cp 250 pv a b", info)
        >>> info.depth, info.nodes, info.value, info.exact
        (7, 12000, 0.25, False)
        >>> parse_info("info depth 9 score mate -3", info)
        >>> info.value, info.exact
        (-1.0, True)
    """
    words = line.split()
    i = 1
    while i < len(words):
        word = words[i]
        try:
            if word == "string":
                return
            if word == "depth":
                info.depth = int(words[i + 1])
            elif word == "nodes":
                info.nodes = int(words[i + 1])
            elif word == "score" and words[i + 1] == "cp":
                info.value, info.exact = max(-1.0, min(1.0, int(words[i + 2]) / 1000)), False
                i += 1
            elif word == "score" and words[i + 1] == "mate":
                info.value, info.exact = (1.0 if int(words[i + 2]) > 0 else -1.0), True
                i += 1
        except (IndexError, ValueError):
            pass
        i += 1


#: The first words of the lines an engine may send (UGI's replies; ``info`` during a search).
REPLIES = frozenset({"id", "option", "ugiok", "readyok", "info", "bestmove", "response"})


class _ProcessSlot:
    """Where an agent keeps its engine's process (apart from the agent, so that the agent's
    finalizer holds this and not the agent)."""

    process: _EngineProcess | None = None

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()


class UgiEngine(Agent):
    """An engine program as an agent (a class per engine, made by :func:`register_engines`).

    Before each search the engine is sent ``position`` (the start and the moves since, see
    :func:`board_arena.ugi.protocol.position_line`) and ``go`` with the budget: under a clock
    (``Limit.remaining``) ``go p1time T p2time T p1inc I p2inc I`` in milliseconds, the engine
    budgeting its clock itself; else ``go movetime``, ``go depth``, ``go nodes`` for those
    limits (``DEFAULT_MOVE_TIME`` when there is none). Its ``info`` lines fill
    :attr:`last_search`; its ``bestmove`` is read in our notation. Any fault raises
    :class:`EngineFault`, which loses the game; the process is then started again for the next.
    """

    definition: ClassVar[EngineDefinition]
    PARAMS = (TIME, DEPTH, NODES)
    #: An engine plays hidden-information games too: it is told only what its seat sees.
    plays_hidden_information = True

    def observe(self, state: State, player: int) -> State:
        """The game's state itself: the host, not the agent, keeps the hidden part hidden, since
        what it sends is the seat's view (``position deal ...``, :mod:`board_arena.ugi.dominoes`),
        which needs the game's record (the tiles the seat drew) to be written."""
        return state

    def _what_it_may_see(self, state: State) -> State:
        return state

    def __init__(self, seed: int | None = None, **params: Any):
        self._slot = _ProcessSlot()
        #: The engine's ``id name``, once it has said it.
        self.engine_id: str | None = None
        #: Seconds an overrun may take beyond the arena's margin (set by the arena for a run).
        self.margin: float | None = None
        self._new_game = True
        super().__init__(seed=seed, **params)
        weakref.finalize(self, self._slot.kill)  # a collected agent's engine quits

    def check_game(self, game: Game) -> None:
        if not self.definition.plays(game):
            raise ValueError(f"engine {self.name!r} plays {', '.join(self.definition.games)}, not {game.name}")

    def reset(self, seed: int | None = None) -> None:
        """Forgets the game: the next search is preceded by ``uginewgame``. (The seed is ours:
        an engine's own randomness is its own.)"""
        super().reset(seed)
        self._new_game = True

    def warm_up(self, game: Game) -> None:
        """Nothing to compile: the engine is started when it first plays (:meth:`begin_game`)."""

    def time_budget(self, limit: Limit) -> float | None:
        """The move time alone: under a clock the engine is sent both clocks and budgets them."""
        return limit.time

    def begin_game(self, log_path: str | None = None, margin: float | None = None) -> None:
        """Gets the engine ready for a game (started if it is not running, ``uginewgame``,
        ``isready``), so that no clock runs while it starts; ``log_path``: write the game's
        protocol log there; ``margin``: the arena's time margin (the engine is stopped within
        it). The arena calls it before each game; a search without it starts the engine too.

        Raises:
            EngineFault: the engine could not be started or did not answer in time.
        """
        self.margin = margin
        running = self._slot.process is not None and self._slot.process.alive
        engine = self._running(log_path)
        if log_path is not None and running:
            engine.open_log(log_path)
        if self._new_game:
            self._ready(engine, "uginewgame")
            self._new_game = False

    def end_game(self) -> None:
        """The game is over: its protocol log is closed."""
        if self._slot.process is not None:
            self._slot.process.close_log()

    def close(self) -> None:
        """Quits the engine's process (it is started again if the agent plays on)."""
        if self._slot.process is not None:
            self._slot.process.quit()
            self._slot.process = None

    def _running(self, log_path: str | None = None) -> _EngineProcess:
        """The engine's process, started (``ugi``, its options, ``isready``) if it is not running;
        a process started here logs to ``log_path`` when given."""
        if self._slot.process is not None and self._slot.process.alive:
            return self._slot.process
        self._slot.process = None
        engine = _EngineProcess(self.definition)
        if log_path is not None:
            engine.open_log(log_path)
        deadline = time.monotonic() + self.definition.ready_timeout
        engine.send("ugi")
        while True:
            line = engine.receive(deadline, "waiting for ugiok")
            if line is None:
                raise engine.fault(f"did not answer ugi with ugiok within {self.definition.ready_timeout:g} s")
            if line == "ugiok":
                break
            if line.startswith("id name "):  # anything else before ugiok is a banner, as UCI engines print
                self.engine_id = line[len("id name "):].strip()
        for key, value in self.definition.options.items():
            engine.send(f"setoption name {key} value {value}")
        self._slot.process = engine
        self._ready(engine)
        self._new_game = True
        return engine

    def _ready(self, engine: _EngineProcess, before: str | None = None) -> None:
        """Sends ``before`` (if any) and ``isready``, and waits for ``readyok``."""
        if before is not None:
            engine.send(before)
        engine.send("isready")
        deadline = time.monotonic() + self.definition.ready_timeout
        while True:
            line = engine.receive(deadline, "waiting for readyok")
            if line is None:
                raise engine.fault(f"did not answer isready with readyok within {self.definition.ready_timeout:g} s")
            if line == "readyok":
                return
            self._check_reply(engine, line, "waiting for readyok")

    def _check_reply(self, engine: _EngineProcess, line: str, waiting_for: str) -> None:
        if line and line.split(None, 1)[0] not in REPLIES:
            raise engine.fault(f"sent a line that is not UGI while {waiting_for}: {shown(line[:80])}")

    def _go_line(self, state: State, limit: Limit) -> tuple[str, float]:
        """The ``go`` command for ``limit`` and the seconds the search may take before the
        engine is sent ``stop``."""
        grace = self._grace()
        words = ["go"]
        if limit.remaining is not None:
            mover = state.current_player
            own = max(0.0, limit.remaining)
            other = own if limit.opponent_remaining is None else max(0.0, limit.opponent_remaining)
            clocks = (own, other) if mover == 0 else (other, own)
            increment = limit.increment or 0.0
            words += [f"p1time {_ms(clocks[0])}", f"p2time {_ms(clocks[1])}", f"p1inc {_ms(increment)}", f"p2inc {_ms(increment)}"]
            allowed = own + grace
            if limit.time is not None:
                words.append(f"movetime {_ms(limit.time)}")
                allowed = min(allowed, limit.time + grace)
        else:
            allowed = self.definition.search_timeout
            if limit.time is not None:
                words.append(f"movetime {_ms(limit.time)}")
                allowed = limit.time + grace
            if limit.depth is not None:
                words.append(f"depth {limit.depth}")
            if limit.nodes is not None:
                words.append(f"nodes {limit.nodes}")
            if len(words) == 1:
                words.append(f"movetime {_ms(DEFAULT_MOVE_TIME)}")
                allowed = DEFAULT_MOVE_TIME + grace
        return " ".join(words), allowed

    def _grace(self) -> float:
        """Seconds past its time before ``stop``, and again before the kill: within the arena's
        margin (a quarter each), so that the engine, not its worker, is stopped."""
        grace = self.definition.stop_grace
        return grace if self.margin is None else max(0.001, min(grace, self.margin / 4))

    def _select(self, state: State, limit: Limit) -> SearchInfo:
        from board_arena.ugi.protocol import position_line

        if self._new_game or self._slot.process is None or not self._slot.process.alive:
            self.begin_game(margin=self.margin)
        engine = self._running()
        go, allowed = self._go_line(state, limit)
        engine.send(position_line(state.game, state, state.current_player))  # the mover's view only
        engine.send(go)
        info = SearchInfo(move=-1)
        deadline = time.monotonic() + allowed
        stopped = False
        lines = 0
        while True:
            line = engine.receive(deadline, f"searching ({go})")
            if line is None:
                if stopped:
                    raise engine.fault(f"hung in {shown(go)}: no bestmove {allowed + self._grace():.3g} s after it, "
                                       f"nor {self._grace():.3g} s after stop; killed")
                engine.send("stop")
                stopped, deadline = True, time.monotonic() + self._grace()
                continue
            lines += 1
            if lines > MAX_LINES_PER_MOVE:
                raise engine.fault(f"sent more than {MAX_LINES_PER_MOVE:,} lines for one move ({go})")
            word = line.split(None, 1)[0] if line else ""
            if word == "info":
                parse_info(line, info)
            elif word == "bestmove":
                break
            elif word:
                self._check_reply(engine, line, f"searching ({go})")
        words = line.split()
        if len(words) < 2:
            raise engine.fault("sent bestmove without a move")
        text = words[1]
        try:
            info.move = state.parse_move(text)
        except ValueError as error:
            raise engine.fault(f"played {shown(text)}, which is not a legal move here: {error}") from None
        return info

    def __repr__(self) -> str:
        return f"make_agent({self.spec!r}, seed={self.seed})  # UGI engine {shlex.join(self.definition.command)}"


def _ms(seconds: float) -> int:
    """Milliseconds, as UGI counts time."""
    return max(0, int(round(seconds * 1000)))
