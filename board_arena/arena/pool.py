"""The local backend of a tournament: worker processes that warm up once and play the games they
are sent, while the parent process alone writes the run's database.

Why a small pool of our own rather than ``concurrent.futures``: the parent must stay the single
writer (each finished game comes back on its own and is stored at once, so the progress bar
counts stored games), a worker that dies must cost only its unfinished games (they are played
again), and an interrupt must stop everything at once, whatever the workers are doing: workers
ignore SIGINT (the parent alone handles Ctrl-C, so no worker prints a traceback) and the parent
kills them on its way out, ignoring further interrupts until they are gone.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import threading
from collections import deque
from contextlib import contextmanager
from multiprocessing.connection import wait
from typing import Iterable, Iterator

from board_arena.arena.settings import ScheduledGame, TournamentSettings
from board_arena.arena.store import GameResult
from board_arena.arena.worker import (
    compilations_since_warm_up,
    init_worker,
    play_scheduled_game,
)

__all__ = ["play_local", "WorkerLost", "LocalPool"]

#: A batch of games lasts about this long: fast games are sent several at a time so that the
#: round trip between processes stays small next to the play, slow ones one at a time.
TASK_SECONDS = 0.25
MAX_BATCH = 64
#: Batches in flight per worker: the next one waits in the pipe while the worker plays.
IN_FLIGHT = 2


class WorkerLost(RuntimeError):
    """Worker processes kept dying (the games they held were played again each time, until the
    pool gave up)."""


@contextmanager
def ignoring_interrupts():
    """SIGINT ignored inside (in the main thread): for work that an interrupt must not cut short,
    such as stopping the workers, and for starting them (a child inherits the ignore)."""
    if threading.current_thread() is not threading.main_thread():  # signal() works there only
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _worker_main(connection, settings_json: str) -> None:
    """A worker: warm up, then play each batch sent, sending every game back as it ends and the
    compilation count after each batch; None ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited already; spawned children set it too
    init_worker(settings_json)
    from board_arena.arena.worker import _WORKER

    settings, game = _WORKER["settings"], _WORKER["game"]
    try:
        while True:
            batch = connection.recv()
            if batch is None:
                return
            for scheduled in batch:
                connection.send(("game", play_scheduled_game(settings, scheduled, game)))
            connection.send(("done", compilations_since_warm_up()))
    except (EOFError, BrokenPipeError, OSError):
        return  # the parent is gone


def _context():
    """Where it is safe (Linux), workers are forked from the parent, which has warmed up every
    kernel already: they start at once with the machine code in memory. Elsewhere they are
    spawned and each loads the kernels from the cache. (No thread may run at a fork: tqdm's
    monitor thread is switched off for this reason.)"""
    if sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


class _Worker:
    def __init__(self, context, settings_json: str):
        self.connection, child = context.Pipe(duplex=True)
        with ignoring_interrupts():
            self.process = context.Process(target=_worker_main, args=(child, settings_json), daemon=True)
            self.process.start()
        child.close()
        self.held: dict[int, ScheduledGame] = {}  # sent and not yet back
        self.batches = 0  # batches sent and not yet done
        self.compilations = 0

    def send(self, batch: list[ScheduledGame]) -> None:
        for game in batch:
            self.held[game.id] = game
        self.batches += 1
        self.connection.send(batch)

    def stop(self) -> None:
        """Ends the process at once (it may be in the middle of a game: that game is lost, which
        is what an interrupt means; every finished game is stored already)."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.connection.close()


class LocalPool:
    """Plays games on ``concurrency`` worker processes; see :func:`play_local`."""

    #: Workers that may die (each replaced, its games played again) before the pool gives up.
    MAX_LOSSES = 8

    def __init__(self, settings: TournamentSettings, concurrency: int):
        self.settings = settings
        self.concurrency = concurrency
        #: Kernels the workers compiled after warming up (expected 0), summed over the workers.
        self.compilations = 0
        self.lost = 0

    def play(self, todo: Iterable[ScheduledGame]) -> Iterator[GameResult]:
        context = _context()
        settings_json = self.settings.to_json()
        todo = iter(todo)
        retry: deque[ScheduledGame] = deque()
        played, seconds = 0, 0.0
        workers: list[_Worker] = []
        most = self.settings.max_batch or MAX_BATCH

        def next_batch() -> list[ScheduledGame]:
            # Batch size from the average length of the games so far (one game until one is known).
            size = 1 if played == 0 else int(min(most, max(1, TASK_SECONDS * played / max(seconds, 1e-9))))
            batch: list[ScheduledGame] = []
            while len(batch) < size and retry:
                batch.append(retry.popleft())
            for game in todo:
                batch.append(game)
                if len(batch) >= size:
                    break
            return batch

        def feed(worker: _Worker) -> None:
            while worker.batches < IN_FLIGHT:
                batch = next_batch()
                if not batch:
                    return
                worker.send(batch)

        try:
            first = next_batch()
            if not first:
                return
            retry.extend(first)
            for _ in range(self.concurrency):
                workers.append(_Worker(context, settings_json))
            for worker in workers:
                feed(worker)
            while any(w.held for w in workers):
                ready = wait([w.connection for w in workers if w.held] + [w.process.sentinel for w in workers if w.held])
                for worker in list(workers):
                    if worker.connection not in ready and worker.process.sentinel not in ready:
                        continue
                    try:
                        while worker.connection.poll():
                            kind, payload = worker.connection.recv()
                            if kind == "game":
                                worker.held.pop(payload.id, None)
                                played += 1
                                seconds += payload.time0 + payload.time1
                                yield payload
                            else:
                                worker.batches -= 1
                                worker.compilations = payload
                                feed(worker)
                        if not worker.process.is_alive():
                            raise EOFError
                    except (EOFError, OSError):
                        self._replace(worker, workers, retry, context, settings_json)
                        feed(workers[-1])
                for worker in workers:
                    if not worker.held:
                        feed(worker)
        finally:
            with ignoring_interrupts():
                self.compilations = sum(w.compilations for w in workers)
                for worker in workers:
                    try:
                        worker.connection.send(None)
                    except OSError:
                        pass
                for worker in workers:
                    worker.stop()

    def _replace(self, worker, workers, retry, context, settings_json) -> None:
        """A worker died: its unfinished games go back to the front of the queue, and a new
        worker takes its place."""
        self.lost += 1
        exit_code = worker.process.exitcode
        worker.stop()
        workers.remove(worker)
        retry.extendleft(sorted(worker.held.values(), key=lambda g: g.id, reverse=True))
        if self.lost > self.MAX_LOSSES:
            raise WorkerLost(
                f"{self.lost} worker processes died (the last with exit code {exit_code}); "
                "finished games are stored: run the same command to resume"
            )
        workers.append(_Worker(context, settings_json))


def play_local(settings: TournamentSettings, todo: Iterable[ScheduledGame], concurrency: int) -> Iterator[GameResult]:
    """Plays the games of ``todo`` (any iterable, consumed lazily) on ``concurrency`` worker
    processes and yields each finished game as it comes back, in no fixed order; the results do
    not depend on ``concurrency`` (every game has its own seeds).

    A worker that dies (killed, out of memory) is replaced and its unfinished games are played
    again, so every game is yielded exactly once; :class:`WorkerLost` after ``MAX_LOSSES``. When
    the generator ends, fails, is interrupted or closed, every worker is stopped.
    """
    yield from LocalPool(settings, concurrency).play(todo)
