"""Worker pools: where a tournament's games are played, while the run's own process alone writes
its database. One scheduler, :meth:`WorkerPool.play`, serves every backend; a backend only starts
a worker, sends it a batch, receives what comes back, notices its death and stops it:

- :class:`ProcessPool`: worker processes on this machine, forked where that is safe (one at
  ``--concurrency 1``: a crash costs a game, never the run).
- :class:`InlinePool`: this process, one game at a time (``--in-process``: for a profiler or a
  debugger, without isolation).
- :class:`arena.tournament.cluster.RayPool`: Ray actors on a cluster's nodes.

Every backend gives the same games for the same settings (each game has its own seeds, and a
worker's agents are reset with them: :class:`arena.tournament.worker.GamePlayer`). What the scheduler does
for all of them, and why:

- **Batches** sized from the measured wall time of the batches so far (about ``BATCH_SECONDS``
  each, one game until a batch has come back): cheap games travel many at a time, so that the
  round trip to a worker stays small next to the play; expensive ones one at a time. An SPRT run
  sends one pair at a time (``TournamentSettings.max_batch``), so that few games are in flight
  when it decides.
- **In flight**: each worker holds at most ``IN_FLIGHT`` batches, so the next one is already there
  when it finishes one. Workers start only while games wait for them (a run of one game starts
  one worker), each with a first batch before any gets a second.
- **Retry**: a worker that dies (killed, out of memory, its node gone) costs only its unfinished
  games: they go back to the front of the queue, a new worker takes its place, and a game that
  came back once is never yielded again. After ``MAX_LOSSES`` deaths that no agent explains the
  pool gives up with :class:`WorkerLost` (finished games are stored: the same command resumes).
- **Isolation** (where the backend has a :class:`arena.tournament.worker.TurnBoard`: worker processes, and
  each Ray actor, which plays on a :class:`ProcessPool` of one), as cutechess and fastchess
  isolate engines: a worker that dies while an agent searches (a crash in a plugin's native
  code, ``os.abort()``) plays that game again once on a new worker, which tells a crash from an
  outside kill; if it dies in that game again, the agent that was searching loses it (end
  reason ``crash in seat S (spec): ...``) and the tournament goes on. A search that overruns
  its move time, or its clock (``--tc``), by more than the margin (``--tc-margin``) has its
  worker killed and replaced, and loses on time (``lost on time in seat S (spec): ...``). An
  agent that raises, or returns late, loses in its worker (:meth:`arena.tournament.worker.GamePlayer.play`).
- **Interrupts**: every worker ignores SIGINT (the run's process alone handles Ctrl-C, so no worker
  prints a traceback), and when the generator ends, fails, is interrupted or closed, every worker
  is stopped at once, further interrupts ignored until they are gone.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import ForkContext, SpawnContext
from typing import Any, ClassVar, Iterable, Iterator, Union

from board_arena.arena.tournament.live import LiveWriter
from board_arena.arena.tournament.settings import ScheduledGame, TournamentSettings
from board_arena.arena.tournament.store import GameResult
from board_arena.arena.tournament.worker import (
    CompileCounter,
    GamePlayer,
    Turn,
    TurnBoard,
    forfeit,
    start_worker_process,
    warm_up_agents,
    warm_up_game,
)
from board_arena.commandline import ignoring_interrupts

__all__ = ["WorkerPool", "InlinePool", "ProcessPool", "WorkerLost", "WorkerDied", "BatchDone", "READY", "worker_context"]


class WorkerLost(RuntimeError):
    """Workers kept dying (the games they held were played again each time, until the pool gave
    up), or none could be started."""


class WorkerDied(Exception):
    """What a backend raises when it finds a worker gone; the message says why (an exit code)."""


@dataclass(frozen=True)
class BatchDone:
    """A worker's report after a batch: how many games it held, the wall time they took there,
    and the kernels the worker has compiled since its warm-up (expected: 0)."""

    games: int
    seconds: float
    compilations: int


#: A backend's message that a worker has warmed up and takes batches (Ray actors start
#: asynchronously; the other backends' workers take batches at once).
READY = "ready"
Message = Union[GameResult, BatchDone, str]


@dataclass(eq=False)
class Slot:
    """A worker as the scheduler keeps it: the backend's ``handle`` and what the worker holds."""

    handle: Any
    ready: bool = True
    held: dict[int, ScheduledGame] = field(default_factory=dict)  # sent and not yet back, by id
    batches: int = 0  # sent and not yet done
    compilations: int = 0  # as last reported
    timed_out: bool = False  # killed by the scheduler: an agent overran its time


class _Queue:
    """The games to hand out: those of a worker that died first, then the rest of ``todo``, which
    is consumed lazily (a schedule may be long, and an SPRT ends it once it decides)."""

    def __init__(self, todo: Iterable[ScheduledGame]):
        self.todo = iter(todo)
        self.retry: deque[ScheduledGame] = deque()

    def take(self, size: int) -> list[ScheduledGame]:
        batch: list[ScheduledGame] = []
        while len(batch) < size and self.retry:
            batch.append(self.retry.popleft())
        for game in self.todo if len(batch) < size else ():
            batch.append(game)
            if len(batch) >= size:
                break
        return batch

    def holds(self, count: int) -> bool:
        """Whether at least ``count`` games wait (drawn from ``todo`` into the queue as needed)."""
        for game in self.todo if len(self.retry) < count else ():
            self.retry.append(game)
            if len(self.retry) >= count:
                break
        return len(self.retry) >= count

    def put_back(self, games: Iterable[ScheduledGame]) -> None:
        """Games to play first, in schedule order."""
        self.retry.extendleft(sorted(games, key=lambda g: g.id, reverse=True))


class WorkerPool:
    """Plays the games of ``settings`` on ``concurrency`` workers of a backend.

    Use as a context manager (or :meth:`open` and :meth:`close`): a backend may connect to
    something first (Ray). :meth:`play` yields each game as it comes back, in no fixed order;
    the results do not depend on the backend or on ``concurrency``. ``compilations`` counts the
    kernels the workers compiled after their warm-up (expected 0) and ``lost`` the workers that
    died, both over every :meth:`play` of the pool.

    A backend subclasses this with :meth:`_start`, :meth:`_send`, :meth:`_wait`,
    :meth:`_receive` and :meth:`_stop` (and, if it needs them, :meth:`open`, :meth:`close`,
    :meth:`prepare` and :meth:`capacity`), and sets the class constants to its costs.
    """

    #: Wall time a batch of games should take on a worker.
    BATCH_SECONDS: ClassVar[float] = 0.25
    #: The most games a batch holds.
    MAX_BATCH: ClassVar[int] = 64
    #: Batches a worker holds at once: one playing, one waiting.
    IN_FLIGHT: ClassVar[int] = 2
    #: Workers that may die (each replaced, its games played again) before the pool gives up;
    #: deaths in an agent's search (isolation, above) do not count.
    MAX_LOSSES: ClassVar[int] = 8
    #: Longest wait for news before the scheduler looks at its signals (Ctrl-C) again.
    POLL_SECONDS: ClassVar[float] = 0.2
    #: Seconds without news, while no worker holds a game, after which the pool gives up (a
    #: cluster without a free CPU for a new worker).
    WAIT_FOR_WORKER: ClassVar[float] = 60.0
    #: What the workers are called in messages.
    WORKERS: ClassVar[str] = "workers"

    def __init__(self, settings: TournamentSettings, concurrency: int | None = None, keep_workers: bool = False):
        if concurrency is not None and concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        self.settings = settings
        self.concurrency = concurrency
        #: Workers outlive a :meth:`play` that ends with its games done, for the next one (until
        #: :meth:`close`): a Ray actor plays each batch it is sent on its pool (arena.tournament.cluster).
        self.keep_workers = keep_workers
        self._kept: list[Slot] = []
        self._played, self._seconds = 0, 0.0  # games of the batches done, and their wall time
        self.compilations = 0
        self.lost = 0
        #: Games lost by an agent that crashed its worker or hung (isolation, above).
        self.forfeits = 0
        self._unexplained = 0  # deaths outside any agent's search
        self._suspects: set[int] = set()  # games in which a worker died once during a search
        self._game: Any = None  # the game, made when a forfeit is scored
        #: The folder where the players publish the games they play (arena.tournament.live), or None. Local
        #: backends only: a cluster's nodes do not share the run's folder.
        self.live_dir: str | None = None
        #: Where the engine programs' protocol logs go (board_arena.ugi.host), and whether every
        #: engine writes one or only those whose definition asks: local backends only, too.
        self.engine_logs: tuple[str | None, bool] = (None, False)

    # -- what a backend provides -------------------------------------------------------------

    def open(self) -> None:
        """Connects to what the workers run on (nothing to do for a local backend)."""

    def close(self) -> None:
        """Stops the workers kept (``keep_workers``) and leaves what :meth:`open` connected to."""
        kept, self._kept = self._kept, []
        with ignoring_interrupts():
            self._stop(kept)

    def prepare(self) -> None:
        """Readies this process before the games and any clock start: a local backend compiles
        or loads every kernel here (forked workers then inherit the machine code)."""

    def capacity(self) -> int:
        """How many workers may run now."""
        return self.concurrency or 1

    def _start(self, settings_json: str) -> Any:
        """Starts a worker for the settings; returns the backend's handle of it."""
        raise NotImplementedError

    def _send(self, slot: Slot, batch: list[ScheduledGame]) -> None:
        """Hands a batch to a worker (without waiting for it to be played)."""
        raise NotImplementedError

    def _wait(self, slots: list[Slot], timeout: float) -> list[Slot]:
        """The workers among ``slots`` with news (results, or their death), waiting at most
        ``timeout`` seconds for one."""
        raise NotImplementedError

    def _receive(self, slot: Slot) -> Iterator[Message]:
        """What has come back from a worker: each finished game, a :class:`BatchDone` after each
        batch, :data:`READY` once it has warmed up (if it did not start ready).

        Raises:
            WorkerDied: the worker is gone (after what it sent before is yielded).
        """
        raise NotImplementedError

    def _stop(self, slots: list[Slot]) -> None:
        """Stops the workers at once (one may be in the middle of a game: that game is lost,
        which is what an interrupt means; every finished game is stored already)."""
        raise NotImplementedError

    def _turn(self, slot: Slot) -> Turn | None:
        """What the worker posted on its :class:`arena.tournament.worker.TurnBoard` (None: it has none)."""
        return None

    def _kill(self, slot: Slot) -> None:
        """Kills a worker whose agent hangs (its death then comes as news: :meth:`_receive`)."""

    def _starts_ready(self) -> bool:
        """Whether a started worker takes batches at once (else it sends :data:`READY`)."""
        return True

    # -- the scheduler -----------------------------------------------------------------------

    def __enter__(self) -> "WorkerPool":
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def play(self, todo: Iterable[ScheduledGame]) -> Iterator[GameResult]:
        """Plays the games of ``todo`` (any iterable, consumed lazily) and yields each finished
        game as it comes back, exactly once, in no fixed order.

        Raises:
            WorkerLost: more than ``MAX_LOSSES`` workers died, or none could start.
        """
        self.open()
        settings_json = self.settings.to_json()
        queue = _Queue(todo)
        slots, self._kept = self._kept, []
        most = min(self.MAX_BATCH, self.settings.max_batch or self.MAX_BATCH)
        done = False
        short = True  # fewer workers than capacity may run (at the start, after a loss)
        last_news = time.monotonic()
        last_loss = ""
        try:
            while True:
                if short:
                    self._grow(slots, queue, settings_json)
                    short = False
                played, seconds = self._played, self._seconds
                size = 1 if played == 0 else int(min(most, max(1, self.BATCH_SECONDS * played / max(seconds, 1e-9))))
                self._feed(slots, queue, size)
                busy = [slot for slot in slots if slot.held or not slot.ready]
                if not busy and not queue.holds(1):
                    done = True
                    return
                news = self._wait(busy, self.POLL_SECONDS) if busy else []
                self._kill_overdue(slots)  # their death is news at the next wait
                if not news:
                    if not any(slot.held for slot in slots) and time.monotonic() - last_news > self.WAIT_FOR_WORKER:
                        raise WorkerLost(
                            f"no {self.WORKERS} started within {self.WAIT_FOR_WORKER:g} s"
                            + (f" (the last one lost: {last_loss})" if last_loss else "")
                            + "; finished games are stored: run the same command to resume"
                        )
                    if not busy:  # waiting for room for a worker
                        time.sleep(self.POLL_SECONDS)
                        short = True
                    continue
                last_news = time.monotonic()
                for slot in news:
                    try:
                        for message in self._receive(slot):
                            if isinstance(message, GameResult):
                                if slot.held.pop(message.id, None) is not None:
                                    yield message
                            elif isinstance(message, BatchDone):
                                slot.batches -= 1
                                self._played += message.games
                                self._seconds += message.seconds
                                self.compilations += message.compilations - slot.compilations
                                slot.compilations = message.compilations
                            else:
                                slot.ready = True
                    except WorkerDied as death:
                        last_loss = str(death)
                        lost_game = self._lose(slot, slots, queue, last_loss)
                        if lost_game is not None:
                            yield lost_game
                        short = True
        finally:
            if done and self.keep_workers:
                self._kept = slots
            else:
                with ignoring_interrupts():  # an interrupt must not leave workers playing on
                    self._stop(slots)

    def _grow(self, slots: list[Slot], queue: _Queue, settings_json: str) -> None:
        """Starts workers up to :meth:`capacity` while games wait for them: one game for each
        new worker beyond one for each worker that holds none yet."""
        while len(slots) < self.capacity() and queue.holds(1 + sum(1 for slot in slots if not slot.held)):
            slots.append(Slot(self._start(settings_json), ready=self._starts_ready()))

    def _feed(self, slots: list[Slot], queue: _Queue, size: int) -> None:
        """Hands out batches: a first one to every ready worker, then the next ones up to
        ``IN_FLIGHT`` each."""
        for depth in range(1, self.IN_FLIGHT + 1):
            for slot in slots:
                if slot.ready and slot.batches < depth:
                    batch = queue.take(size)
                    if not batch:
                        return
                    slot.held.update((game.id, game) for game in batch)
                    slot.batches += 1
                    self._send(slot, batch)

    def _kill_overdue(self, slots: list[Slot]) -> None:
        """Kills the workers whose agent has searched longer than its time and the margin."""
        now = time.monotonic()
        for slot in slots:
            turn = self._turn(slot) if slot.held and not slot.timed_out else None
            if turn is not None and turn.game in slot.held and turn.overdue(now):
                slot.timed_out = True
                self._kill(slot)

    def _lose(self, slot: Slot, slots: list[Slot], queue: _Queue, reason: str) -> GameResult | None:
        """A worker died: its unfinished games go back to the front of the queue (a new worker
        takes its place at the next turn of the scheduler), but for a game that its searching
        agent loses (isolation, above), which is returned."""
        self.lost += 1
        slots.remove(slot)
        turn = self._turn(slot)
        self._stop([slot])
        lost_game = None
        if turn is not None and turn.seat is not None and turn.game in slot.held:
            scheduled = slot.held[turn.game]
            spec = self.settings.agents[scheduled.players[turn.seat]]
            if slot.timed_out:
                assert turn.allowed is not None
                why = (
                    f"lost on time in seat {turn.seat} ({spec}): no move after {time.monotonic() - turn.started:.3g} s "
                    f"(it had {turn.allowed - self.settings.tc_margin:.3g} s, margin {self.settings.tc_margin:g} s); "
                    "its worker was stopped"
                )
            elif scheduled.id in self._suspects:
                why = f"crash in seat {turn.seat} ({spec}): its worker process died during its search ({reason}), twice in this game"
            else:  # once: it may have been killed from outside; the game is played again
                self._suspects.add(scheduled.id)
                why = ""
            if why:
                del slot.held[scheduled.id]
                self._game = self._game or self.settings.make_game()
                lost_game = forfeit(self.settings, self._game, scheduled, turn, why)
                self.forfeits += 1
        else:
            self._unexplained += 1
        queue.put_back(slot.held.values())
        if self._unexplained > self.MAX_LOSSES:
            raise WorkerLost(
                f"{self.lost} {self.WORKERS} died (the last: {reason}); finished games are stored: run the same command to resume"
            )
        return lost_game


# -- in this process -------------------------------------------------------------------------


@dataclass(eq=False)
class _InlineWorker:
    player: GamePlayer
    counter: CompileCounter
    batches: deque[list[ScheduledGame]] = field(default_factory=deque)


class InlinePool(WorkerPool):
    """Plays the games in this process, one at a time, with no process to start and no round
    trip (an SPRT sees each game before the next is handed out): what a profiler or a debugger
    needs (``arena run --in-process``). Nothing is isolated: an agent that crashes its process
    ends the run, one that hangs hangs it (one that returns late still loses on time)."""

    MAX_BATCH = 1
    IN_FLIGHT = 1
    WORKERS = "players"

    def __init__(self, settings: TournamentSettings, concurrency: int | None = 1):
        super().__init__(settings, concurrency)
        self._player: GamePlayer | None = None

    def prepare(self) -> None:
        self._player = self._player or GamePlayer(self.settings)
        self._player.live = LiveWriter(self.live_dir) if self.live_dir else None
        self._player.engine_log_dir, self._player.log_every_engine = self.engine_logs

    def capacity(self) -> int:
        return 1  # one process plays one game at a time

    def close(self) -> None:
        super().close()
        if self._player is not None:
            self._player.close()  # its engine programs quit with the run

    def _start(self, settings_json: str) -> _InlineWorker:
        self.prepare()
        assert self._player is not None
        return _InlineWorker(self._player, CompileCounter().start())

    def _send(self, slot: Slot, batch: list[ScheduledGame]) -> None:
        slot.handle.batches.append(batch)

    def _wait(self, slots: list[Slot], timeout: float) -> list[Slot]:
        return [slot for slot in slots if slot.handle.batches]  # a batch is played when received

    def _receive(self, slot: Slot) -> Iterator[Message]:
        worker: _InlineWorker = slot.handle
        batch = worker.batches.popleft()
        start = time.perf_counter()
        for scheduled in batch:
            yield worker.player.play(scheduled)
        yield BatchDone(len(batch), time.perf_counter() - start, worker.counter.count)

    def _stop(self, slots: list[Slot]) -> None:
        for slot in slots:
            slot.handle.counter.stop()


# -- worker processes ------------------------------------------------------------------------


def worker_context() -> ForkContext | SpawnContext:
    """The multiprocessing context that worker processes start in. Where it is safe (Linux), workers are forked from the parent, which has warmed up every
    kernel already: they start at once with the machine code in memory. Elsewhere they are
    spawned and each loads the kernels from the cache. (No thread may run at a fork: tqdm's
    monitor thread is switched off for this reason.)"""
    if sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


#: A worker process sends the games it has finished at most this often, and at the end of each
#: batch: a message (and a wake-up of the run's process) per game would cost the shortest games
#: a good part of their time.
SEND_SECONDS = 0.05


def _process_main(
    connection: Connection, settings_json: str, live_dir: str | None = None, board: TurnBoard | None = None,
    engine_logs: tuple[str | None, bool] = (None, False),
) -> None:
    """A worker process: warm up, then play each batch sent, sending the games back as they end
    (a list of them every ``SEND_SECONDS`` at most) and a :class:`BatchDone` after each batch,
    posting its turns on ``board``; None ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited already; spawned children set it too
    player, counter = start_worker_process(settings_json, live_dir, board, engine_logs)
    try:
        while True:
            batch = connection.recv()
            if batch is None:
                player.close()  # its engine programs are told to quit (they die with it anyway)
                return
            start = sent = time.perf_counter()
            finished: list[Message] = []
            for scheduled in batch:
                finished.append(player.play(scheduled))
                if time.perf_counter() - sent >= SEND_SECONDS:
                    connection.send(finished)
                    finished, sent = [], time.perf_counter()
            connection.send(finished + [BatchDone(len(batch), time.perf_counter() - start, counter.count)])
    except (EOFError, BrokenPipeError, OSError):
        return  # the parent is gone


@dataclass(eq=False)
class _Process:
    process: Any  # a multiprocessing Process of the pool's context
    connection: Connection
    board: TurnBoard


class ProcessPool(WorkerPool):
    """Plays the games on ``concurrency`` worker processes of this machine (default: one per
    core). Each warms up once and plays the batches it is sent over a pipe; on Linux it asks to
    die with the run (``PR_SET_PDEATHSIG``), so that a killed run leaves no orphan."""

    WORKERS = "worker processes"

    def __init__(self, settings: TournamentSettings, concurrency: int | None = None, keep_workers: bool = False):
        super().__init__(settings, concurrency, keep_workers)
        self._context = worker_context()

    def prepare(self) -> None:
        # Forked workers inherit the machine code; spawned ones load it from the cache.
        game = self.settings.make_game()
        warm_up_agents(self.settings, game)
        warm_up_game(game)

    def capacity(self) -> int:
        return self.concurrency or multiprocessing.cpu_count()

    def _start(self, settings_json: str) -> _Process:
        connection, child = self._context.Pipe(duplex=True)
        board = TurnBoard(self._context)
        process = self._context.Process(target=_process_main, args=(child, settings_json, self.live_dir, board, self.engine_logs),
                                        daemon=True)
        with ignoring_interrupts():  # the child inherits the ignore until it sets its own
            process.start()
        child.close()
        return _Process(process, connection, board)

    def _turn(self, slot: Slot) -> Turn | None:
        return slot.handle.board.read()

    def _kill(self, slot: Slot) -> None:
        slot.handle.process.kill()

    def _send(self, slot: Slot, batch: list[ScheduledGame]) -> None:
        try:
            slot.handle.connection.send(batch)
        except OSError:
            pass  # the worker is gone: its sentinel says so at the next wait

    def _wait(self, slots: list[Slot], timeout: float) -> list[Slot]:
        by_object = {}
        for slot in slots:
            by_object[slot.handle.connection] = slot
            by_object[slot.handle.process.sentinel] = slot
        return list({id(slot): slot for slot in (by_object[ready] for ready in wait(list(by_object), timeout))}.values())

    def _receive(self, slot: Slot) -> Iterator[Message]:
        worker: _Process = slot.handle
        try:
            while worker.connection.poll():
                yield from worker.connection.recv()
        except (EOFError, OSError):  # the pipe closed: the process is gone or going
            worker.process.join(timeout=5)
            raise WorkerDied(_exit_text(worker.process.exitcode)) from None
        if not worker.process.is_alive():
            raise WorkerDied(_exit_text(worker.process.exitcode))

    def _stop(self, slots: list[Slot]) -> None:
        for slot in slots:
            if slot.handle.process.is_alive():
                slot.handle.process.kill()
        for slot in slots:
            slot.handle.process.join(timeout=5)
            slot.handle.connection.close()


def _exit_text(code: int | None) -> str:
    """How a worker process ended: ``exit code 1``, or ``killed by SIGSEGV`` for a signal."""
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            pass
    return f"exit code {code}"
