"""The searches of ``arena serve``, off the request threads: warm worker processes, and the
policy that says which agent specs a page may ask for.

Why worker processes (rather than kernels compiled without the interpreter lock):

- A search must stop when its game is abandoned, undone or replaced, within a fraction of a
  second. A process can be killed at any instant; a thread inside a compiled kernel cannot be
  stopped from outside (the kernels check a deadline given when they start, by value).
- The kernels belong to the agents and the games, which the arena also runs: releasing the lock
  in them (``nogil``) would still leave the Python between kernel calls (iterative deepening,
  the MCTS driver) contending with the server's threads, and would change code every agent
  shares for one consumer of it.
- A worker's memory (transposition tables) and faults stay in the worker: a search that goes
  wrong costs a process, never the server.

Why warm. Workers are forked from a *template* process that imported the package once and
loads the kernels of every (game, agent) pair searched so far (after the first search of a
pair, from numba's cache), so that a worker - one of the first, or one that replaces a killed
worker - starts in milliseconds with the machine code in memory, never compiling while a person
waits. A worker keeps the agents it has made (one per spec, as the arena's
:class:`arena.tournament.worker.GamePlayer` keeps one per agent) and resets each before a search with the
seed of that move (:func:`move_seed`): any worker may search any move of any game, so no game
waits for another's worker, and every agent move of a game replays from the game's seed.
Workers run at a lower priority (``nice``) than the server, whose threads then answer at once
even when every core searches.

Where ``fork`` does not exist (Windows), workers are spawned and load their kernels themselves.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Iterable

import numpy as np

from board_arena import agents, engines
from board_arena.ugi.host import register_engines

__all__ = [
    "AgentPolicy",
    "SearchJob",
    "SearchPool",
    "SearchBusy",
    "Ticket",
    "move_seed",
]

#: Agents a worker keeps at most (the least recently used goes first).
KEPT_AGENTS = 8
#: How much longer than its budget a search may run before its worker is killed: the budget
#: times STOP_FACTOR plus STOP_GRACE seconds (a loaded machine overshoots a little).
STOP_FACTOR = 1.25
STOP_GRACE = 1.0
#: The niceness added to the workers, so that the server's own threads keep answering.
WORKER_NICENESS = 5


def move_seed(seed: int, seat: int, ply: int, hint: bool = False) -> int:
    """The seed an agent is reset with before it searches ``ply`` of a game of seed ``seed``
    from ``seat`` (a hint has its own): independent streams from one seed, so that each agent
    move replays from the game's seed alone, whichever worker searched it."""
    words = [seed, seat, ply] + ([1] if hint else [])
    return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0] >> np.uint64(1))


# -- what a page may ask for -------------------------------------------------------------------


@dataclass(frozen=True)
class AgentPolicy:
    """The agent specs a page may ask for, decided from what each parameter declares it does
    (:attr:`agents.AgentParam.effect`), never from its name:

    ========== ==========================================================================
    effect     from a page
    ========== ==========================================================================
    setting    any value the parameter allows
    work       any value the parameter allows; the search is stopped at ``max_move_time``
    seconds    at most ``max_move_time``
    memory_mb  at most ``max_table_mb`` (the agent's default too)
    file       refused (it would name a file on this machine for the server to read)
    database   the default only (it would build a database on this machine's disk)
    undeclared the default only
    ========== ==========================================================================
    """

    max_move_time: float = 10.0
    max_table_mb: float = 64.0
    #: The longest spec taken.
    max_spec_length: int = 200

    def check(self, spec: Any) -> agents.Agent:
        """The agent that ``spec`` makes (seed 0), once every parameter is within the policy.

        Raises:
            ValueError: a malformed spec, an unknown agent or parameter, a value out of range or
                outside the policy (one line saying what is allowed).
        """
        if not isinstance(spec, str) or len(spec) > self.max_spec_length:
            raise ValueError(f"an agent spec is a string of at most {self.max_spec_length} characters")
        name, given = agents.parse_spec(spec)
        cls = agents.agent_class(name)
        declared = {p.name: p for p in cls.PARAMS}
        for key, text in given.items():
            param = declared.get(key)
            if param is None:
                continue  # make_agent names the parameters that exist
            value = param.validate(name, text)
            if param.effect in ("file", "database", None) and value != param.default:
                what = {"file": "names a file on the server's machine", "database": "builds a database on the server's disk",
                        None: "declares no effect"}[param.effect]
                raise ValueError(f"{name}: {key} {what}, so a page may not set it; {self.allowed(cls)}")
        agent = agents.make_agent(spec, seed=0)
        for param in cls.PARAMS:
            value = agent.params[param.name]
            if param.effect == "seconds" and value is not None and value > self.max_move_time:
                raise ValueError(
                    f"{name}: {param.name}={value:g} is over the server's {self.max_move_time:g} s a move "
                    f"(arena serve --max-move-time); {self.allowed(cls)}"
                )
            if param.effect == "memory_mb" and value is not None and value > self.max_table_mb:
                default = " (the default)" if param.name not in given else ""
                raise ValueError(
                    f"{name}: {param.name}={value:g}{default} is over the server's {self.max_table_mb:g} MiB "
                    f"(arena serve --max-table-mb); {self.allowed(cls)}"
                )
        return agent

    def allowed(self, cls: type[agents.Agent]) -> str:
        """What a page may set for agents of ``cls``, in a few words."""
        parts = []
        for param in cls.PARAMS:
            if param.effect == "seconds":
                parts.append(f"{param.name} up to {self.max_move_time:g}")
            elif param.effect == "memory_mb":
                parts.append(f"{param.name} up to {self.max_table_mb:g}")
            elif param.effect in ("setting", "work"):
                parts.append(param.name)
        return f"a page may set {', '.join(parts)}" if parts else f"a page may use {cls.name} with its defaults only"

    def param_note(self, param: agents.AgentParam) -> str:
        """What a page may set for ``param`` (for the catalog)."""
        return {
            "setting": "any allowed value",
            "work": f"any allowed value; a search is stopped after {self.max_move_time:g} s",
            "seconds": f"at most {self.max_move_time:g}",
            "memory_mb": f"at most {self.max_table_mb:g}",
            "file": "not from a page",
            "database": "not from a page",
        }.get(param.effect or "", "not from a page")

    def seconds_allowed(self, agent: agents.Agent) -> float:
        """How long a search of ``agent`` may run before it is stopped: its own time per move
        when it declares one, else the server's cap."""
        budgets = [agent.params[p.name] for p in agent.PARAMS if p.effect == "seconds" and agent.params[p.name] is not None]
        return min(budgets + [self.max_move_time])



# -- the jobs ----------------------------------------------------------------------------------


@dataclass
class SearchJob:
    """One search for a worker: the position (as its state record, its seed and its moves), the
    seat to move and the agent (a spec within the policy, and the seed of this move)."""

    game: str
    params: dict[str, Any]
    buffer: np.ndarray
    seed: int | None
    moves: list[int]
    custom_start: bool
    seat: int
    spec: str
    agent_seed: int
    id: int = 0

    @classmethod
    def of(cls, state: engines.State, seat: int, spec: str, agent_seed: int) -> "SearchJob":
        """The job of searching ``state`` (the game's state, not a view) for ``seat``."""
        return cls(state.game.name, dict(state.game.params), state.buffer.copy(), state.seed, list(state.history),
                   state.custom_start, seat, spec, agent_seed)


class SearchBusy(RuntimeError):
    """Every search slot is taken (the message says how many there are)."""


@dataclass(eq=False)
class _Worker:
    pid: int
    connection: Connection
    process: Any = None  # a spawned worker's Process (no fork)
    ticket: "Ticket | None" = None
    dying: bool = False

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@dataclass(eq=False)
class Ticket:
    """A search under way: ``done`` is set once it has ended, with ``info`` (the agent's
    :class:`agents.SearchInfo`) or ``error`` (one line; ``stopped`` when it was stopped, and why)."""

    job: SearchJob
    seconds_allowed: float
    state: str = "waiting"  # waiting (the worker warms up), searching, done
    info: agents.SearchInfo | None = None
    error: str | None = None
    stopped: bool = False
    started: float | None = None
    done: threading.Event = field(default_factory=threading.Event)
    worker: _Worker | None = None
    #: Set by the first request that has used the outcome (others waiting for it then just look).
    consumed: bool = False

    @property
    def kill_after(self) -> float:
        return self.seconds_allowed * STOP_FACTOR + STOP_GRACE

    def wait(self, timeout: float) -> bool:
        return self.done.wait(timeout)


# -- the pool ----------------------------------------------------------------------------------


class SearchPool:
    """Runs searches on up to ``max_searches`` worker processes at once.

    :meth:`submit` hands a job to an idle worker (forking one when needed) and returns its
    :class:`Ticket` at once, or refuses with :class:`SearchBusy`; :meth:`stop` ends a search by
    killing its worker (a new one takes its place at the next search); a search that runs past
    its budget (:attr:`Ticket.kill_after`) is stopped the same way. One thread of the server
    reads every worker's pipe; nothing here holds the interpreter lock while a search runs. A
    worker keeps the agents it made while their declared tables fit in ``keep_mb``.
    """

    def __init__(self, max_searches: int = 2, keep_mb: float = 256.0, modules: Iterable[str] = (), plugins: Iterable[str] = (),
                 ugi_engines: Iterable[dict[str, Any]] = ()):
        if max_searches < 1:
            raise ValueError(f"max_searches must be at least 1, not {max_searches}")
        self.max_searches = max_searches
        #: The memory that the tables of the agents a worker keeps between searches may take.
        self.keep_mb = keep_mb
        self.modules = list(modules)
        self.plugins = list(plugins)
        #: The engine programs the workers register (board_arena.ugi.host.EngineDefinition.to_dict).
        self.ugi_engines = list(ugi_engines)
        self._lock = threading.Lock()  # the workers and tickets
        self._template_lock = threading.Lock()  # the template's pipe: one request at a time
        self._template: Any = None
        self._template_connection: Connection | None = None
        self._template_ready = False
        self._warmed: set[tuple[str, str, str]] = set()
        self._to_warm: list[SearchJob] = []  # pairs the template is to load, when its pipe is free
        self._workers: list[_Worker] = []
        self._ids = itertools.count(1)
        self._wake_read: socket.socket | None = None  # made by start(): a pool never started holds no file
        self._wake_write: socket.socket | None = None
        self._closed = False
        self._reader: threading.Thread | None = None
        #: Searches stopped, by reason ("abandoned", "over time", ...), for the status page.
        self.stopped: dict[str, int] = {}

    # -- life ----------------------------------------------------------------------------------

    def start(self) -> None:
        """Starts the template process (it imports the package in the background) and the
        thread that reads the workers."""
        if self._reader is not None:
            return
        self._wake_read, self._wake_write = socket.socketpair()
        if hasattr(os, "fork"):
            self._start_template()
        self._reader = threading.Thread(target=self._read, name="search-pool", daemon=True)
        self._reader.start()

    def close(self) -> None:
        """Stops every search and worker, and the template."""
        self._closed = True
        self._wake()
        # The reader first: it closes the connection of a worker that ends, and two threads
        # closing one connection would close its descriptor twice (the second time maybe
        # another file's, reopened under the same number).
        if self._reader is not None:
            self._reader.join(timeout=5)
            self._reader = None
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            if worker.ticket is not None:
                self._finish(worker.ticket, error="the server stopped", stopped=True)
            worker.kill()
        for worker in workers:
            worker.connection.close()
            if worker.process is not None:
                worker.process.join(timeout=5)
        with self._template_lock:
            if self._template is not None:
                self._template.kill()
                self._template.join(timeout=5)
                self._template = None
            if self._template_connection is not None:
                self._template_connection.close()
                self._template_connection = None
        for end in (self._wake_read, self._wake_write):
            if end is not None:
                end.close()

    # -- searches ------------------------------------------------------------------------------

    def running(self) -> int:
        """Searches under way."""
        with self._lock:
            return sum(1 for w in self._workers if w.ticket is not None)

    def status(self) -> dict[str, Any]:
        """The pool as the status page shows it."""
        with self._lock:
            return {
                "max_searches": self.max_searches,
                "searching": sum(1 for w in self._workers if w.ticket is not None),
                "workers": [{"pid": w.pid, "busy": w.ticket is not None} for w in self._workers if not w.dying],
                "stopped": dict(self.stopped),
            }

    def submit(self, job: SearchJob, seconds_allowed: float) -> Ticket:
        """Starts ``job`` on an idle worker; the ticket's ``done`` is set when it ends.

        Raises:
            SearchBusy: ``max_searches`` searches are under way.
        """
        ticket = Ticket(job, seconds_allowed)
        job.id = next(self._ids)
        if self._reader is None:
            self.start()
        with self._lock:
            if self._closed:
                raise SearchBusy("the server is stopping")
            if sum(1 for w in self._workers if w.ticket is not None) >= self.max_searches:
                raise SearchBusy(
                    f"the server runs {self.max_searches} searches at once (arena serve --max-searches), "
                    "all busy now: try again in a moment"
                )
            worker = next((w for w in self._workers if w.ticket is None and not w.dying), None)
            if worker is not None:
                worker.ticket = ticket  # taken; a new worker is taken when it is made
        if worker is None:
            worker = self._new_worker()  # outside the lock: a fork may wait for the template
            with self._lock:
                if self._closed:
                    worker.kill()
                    raise SearchBusy("the server is stopping")
                worker.ticket = ticket
                self._workers.append(worker)
        ticket.worker = worker
        try:
            worker.connection.send(job)
        except OSError:
            self._lose(worker, "its worker could not be reached")
        self._wake()
        return ticket

    def stop(self, ticket: Ticket, reason: str) -> None:
        """Ends the search of ``ticket`` at once (its worker is killed; the search slot is free
        when this returns). Nothing happens to a search that has ended."""
        with self._lock:
            worker = ticket.worker
            if ticket.done.is_set() or worker is None or worker.ticket is not ticket:
                return
            worker.ticket = None
            worker.dying = True  # the reader drops it at its end of file
            self.stopped[reason] = self.stopped.get(reason, 0) + 1
        worker.kill()
        self._finish(ticket, error=f"the search was stopped: {reason}", stopped=True)
        self._wake()
        # A replacement is made now, in the background, so that the next search finds it ready.
        threading.Thread(target=self._replenish, name="search-pool-replace", daemon=True).start()

    def _replenish(self) -> None:
        with self._lock:
            if self._closed or sum(1 for w in self._workers if not w.dying) >= self.max_searches:
                return
        try:
            worker = self._new_worker()
        except SearchBusy:
            return
        with self._lock:
            keep = not self._closed and sum(1 for w in self._workers if not w.dying) < self.max_searches
            if keep:
                self._workers.append(worker)
        if not keep:
            worker.kill()
            worker.connection.close()

    # -- the reader thread ---------------------------------------------------------------------

    def _wake(self) -> None:
        try:
            if self._wake_write is not None:
                self._wake_write.send(b"x")
        except OSError:
            pass

    def _read(self) -> None:
        """Reads what the workers send; stops searches past their time; drops dead workers."""
        wake = self._wake_read
        assert wake is not None
        while not self._closed:
            with self._lock:
                by_connection = {w.connection: w for w in self._workers}
            try:
                ready = wait([*by_connection, wake], timeout=0.1)
            except OSError:
                continue  # a connection closed under the wait: look again
            for item in ready:
                if item is wake:
                    try:
                        wake.recv(4096)
                    except OSError:
                        pass
                    continue
                worker = by_connection[item]  # type: ignore[index]
                try:
                    while worker.connection.poll():
                        self._message(worker, worker.connection.recv())
                except (EOFError, OSError):
                    self._lose(worker, "its worker process ended")
            self._stop_late_searches()
            self._send_warm_requests()

    def _message(self, worker: _Worker, message: tuple) -> None:
        kind, job_id = message[0], message[1]
        ticket = worker.ticket
        if ticket is None or ticket.job.id != job_id:
            return  # a search stopped meanwhile
        if kind == "started":
            ticket.state = "searching"
            ticket.started = time.monotonic()
            self._warm_template(ticket.job)
        elif kind == "done":
            with self._lock:
                worker.ticket = None
            self._finish(ticket, info=message[2])
        elif kind == "failed":
            with self._lock:
                worker.ticket = None
            self._finish(ticket, error=message[2])

    def _stop_late_searches(self) -> None:
        now = time.monotonic()
        with self._lock:
            late = [w.ticket for w in self._workers if w.ticket is not None and w.ticket.started is not None
                    and now - w.ticket.started > w.ticket.kill_after]
        for ticket in late:
            self.stop(ticket, f"it ran past {ticket.seconds_allowed:g} s, the most a search may take here")

    def _lose(self, worker: _Worker, why: str) -> None:
        with self._lock:
            ours = worker in self._workers  # else another thread lost it and closes it
            if ours:
                self._workers.remove(worker)
            ticket, worker.ticket = worker.ticket, None
        if ticket is not None:
            self._finish(ticket, error=f"the search failed: {why}")
        if not ours:
            return
        worker.kill()
        worker.connection.close()
        if worker.process is not None:
            worker.process.join(timeout=1)

    @staticmethod
    def _finish(ticket: Ticket, info: agents.SearchInfo | None = None, error: str | None = None, stopped: bool = False) -> None:
        if ticket.done.is_set():
            return
        ticket.info, ticket.error, ticket.stopped = info, error, stopped
        ticket.state = "done"
        ticket.done.set()

    # -- workers and their template ------------------------------------------------------------

    def _start_template(self) -> None:
        context = multiprocessing.get_context("spawn")  # a fresh interpreter: no thread of ours
        mine, theirs = context.Pipe(duplex=True)
        self._template = context.Process(
            target=_template_main, args=(theirs, self.modules, self.plugins, self.ugi_engines), name="arena-serve-template", daemon=True
        )
        self._template.start()
        theirs.close()
        self._template_connection = mine
        self._template_ready = False

    def _new_worker(self) -> _Worker:
        if not hasattr(os, "fork"):
            return self._spawn_worker()
        from multiprocessing.reduction import recv_handle

        with self._template_lock:
            for attempt in (1, 2):
                connection = self._template_connection
                try:
                    assert connection is not None
                    if not self._template_ready:
                        if connection.recv() != "ready":
                            raise EOFError
                        self._template_ready = True
                    connection.send(("fork", self.keep_mb))
                    handle = recv_handle(connection)
                    pid = connection.recv()
                    return _Worker(pid, Connection(handle))
                except (EOFError, OSError, AssertionError):
                    if attempt == 2 or self._closed:
                        raise SearchBusy("the server could not start a search process") from None
                    # The template died (killed, out of memory): a new one, whose warm-up starts over.
                    if self._template is not None:
                        self._template.kill()
                    self._warmed.clear()
                    self._to_warm.clear()
                    self._start_template()
        raise AssertionError("unreachable")

    def _spawn_worker(self) -> _Worker:
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe(duplex=True)
        process = context.Process(
            target=_spawned_worker_main, args=(theirs, self.modules, self.plugins, self.keep_mb, self.ugi_engines), daemon=True
        )
        process.start()
        theirs.close()
        return _Worker(process.pid or 0, mine, process)

    def _warm_template(self, job: SearchJob) -> None:
        """After a worker has loaded a (game, agent) pair's kernels, which numba has then cached,
        the template loads them too, so that workers forked later have them (asked when its pipe
        is free: the reader thread never waits for a fork)."""
        key = (job.game, repr(sorted(job.params.items())), agents.parse_spec(job.spec)[0])
        if key not in self._warmed:
            self._warmed.add(key)
            self._to_warm.append(job)

    def _send_warm_requests(self) -> None:
        if not self._to_warm or not self._template_lock.acquire(blocking=False):
            return
        try:
            while self._to_warm and self._template_connection is not None:
                job = self._to_warm.pop()
                self._template_connection.send(("warm", job.game, job.params, job.spec))
        except OSError:
            pass
        finally:
            self._template_lock.release()


# -- the processes -----------------------------------------------------------------------------


def _load(modules: list[str], plugins: list[str], ugi_engines: list[dict[str, Any]]) -> None:
    """Makes the server's games and agents from outside the package known here, and its engine
    programs."""
    import importlib

    from board_arena.agents.base import load_agent_entry_points
    from board_arena.agents.plugins import load_plugins

    load_agent_entry_points()
    engines.load_game_entry_points()
    load_plugins(plugins)
    register_engines(ugi_engines)
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # a module of the server's own (its __main__): its games stay unknown here
            pass


def _template_main(connection: Connection, modules: list[str], plugins: list[str], ugi_engines: list[dict[str, Any]]) -> None:
    """The template: imports the package, loads kernels when asked, forks workers; single
    threaded, so that a fork copies nothing half-done."""
    from multiprocessing.reduction import send_handle

    from board_arena.arena.tournament.worker import die_with_parent, warm_up_game

    # No PR_SET_PDEATHSIG here: it fires when the *thread* that started this process ends, and a
    # request thread may restart the template. The template ends at the end of file on its pipe
    # (the server gone); its workers die with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps the workers
    _load(modules, plugins, ugi_engines)
    _renice()
    connection.send("ready")
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        if message[0] == "warm":
            _, name, params, spec = message
            try:
                game = engines.make(name, **params)
                agents.make_agent(spec, seed=0).warm_up(game)
                warm_up_game(game)
            except Exception:  # the worker that searched reported it; the template just stays colder
                pass
        elif message[0] == "fork":
            keep_mb = message[1]
            ours, theirs = socket.socketpair()
            pid = os.fork()
            if pid == 0:  # the worker
                try:
                    connection.close()
                    ours.close()
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    die_with_parent()  # with the template, which dies with the server
                    _worker_main(Connection(theirs.detach()), keep_mb)
                finally:
                    os._exit(0)
            theirs.close()
            try:
                send_handle(connection, ours.fileno(), 0)
                connection.send(pid)
            except OSError:
                return
            finally:
                ours.close()


def _spawned_worker_main(
    connection: Connection, modules: list[str], plugins: list[str], keep_mb: float, ugi_engines: list[dict[str, Any]]
) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _load(modules, plugins, ugi_engines)
    _renice()
    _worker_main(connection, keep_mb)


def _renice() -> None:
    if hasattr(os, "nice"):
        try:
            os.nice(WORKER_NICENESS)
        except OSError:
            pass


def _table_mb(agent: agents.Agent) -> float:
    """The memory an agent's declared tables take, in MiB."""
    return float(sum(agent.params[p.name] or 0 for p in agent.PARAMS if p.effect == "memory_mb"))


def _worker_main(connection: Connection, keep_mb: float) -> None:
    """A worker: searches each job sent, one at a time; None (or the pipe closing) ends it. It
    keeps the agents it made (at most KEPT_AGENTS, their tables within ``keep_mb``)."""
    kept: OrderedDict[str, agents.Agent] = OrderedDict()
    games: dict[tuple[str, str], engines.Game] = {}
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            key = (job.game, repr(sorted(job.params.items())))
            game = games.get(key) or games.setdefault(key, engines.make(job.game, **job.params))
            agent = kept.pop(job.spec, None) or agents.make_agent(job.spec, seed=job.agent_seed)
            kept[job.spec] = agent
            while len(kept) > 1 and (len(kept) > KEPT_AGENTS or sum(map(_table_mb, kept.values())) > keep_mb):
                kept.popitem(last=False)
            agent.reset(job.agent_seed)
            state = engines.State(game, job.buffer, job.seed, job.moves, job.custom_start)
            seen = agent.observe(state, job.seat)
            agent.warm_up(game)  # compiles or loads before the clock starts
            connection.send(("started", job.id))
            info = agent.search(seen)
            connection.send(("done", job.id, info))
        except (EOFError, OSError):
            return
        except Exception as error:  # the agent's failure is the page's one line
            text = " ".join(str(error).split()) or type(error).__name__
            try:
                connection.send(("failed", job.id, f"{job.spec} failed: {text}"))
            except OSError:
                return


def outside_modules() -> list[str]:
    """The modules outside the package that define the registered games and agents (a test's
    game, a user's), which the search processes import too."""
    classes = [*engines.game_classes(), *(agents.agent_class(n) for n in agents.available_agents())]
    return sorted({c.__module__ for c in classes if not c.__module__.startswith("board_arena.") and c.__module__ != "__main__"})
