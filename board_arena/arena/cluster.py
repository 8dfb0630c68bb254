"""The Ray backend of a tournament: long-lived actors on a cluster's nodes play the games, while the
driver (the process that runs ``arena run``) stays the single writer of the run's database.

``arena run ... --cluster ray`` starts a Ray instance on this machine's cores; ``--cluster auto``
joins the cluster this machine belongs to (started with ``ray start --head`` here, or ``ray start
--address=HEAD:6379``); ``--cluster ray://HOST:PORT`` joins a remote cluster through Ray Client.
Every node needs the same version of board-arena installed (the actors import it there).

How it runs, and why:

- One actor per worker slot (one CPU each), created once: it builds the game and compiles (or loads
  from its node's numba cache) every agent's kernels in its constructor, before it plays, so no
  game's clock includes a compilation and a node compiles once, not once per game.
- Games go out in batches sized from the measured wall time of the batches so far (about
  ``BATCH_SECONDS`` each): cheap games travel many at a time, so that Ray's per-call cost (about a
  millisecond) stays small next to the play; expensive ones one at a time. Each actor holds at most
  ``IN_FLIGHT`` batches, so the next one is already there when it finishes one.
- Each game is played by one actor from its own seeds, so the results are those of the local
  process pool, at any number of workers.
- An actor that dies (its process killed, its node gone) costs only the batches it held: they go
  back to the front of the queue and are played elsewhere, and a new actor takes the dead one's
  place while the cluster has a CPU for it. A game id that came back once is never yielded again.
"""

from __future__ import annotations

import logging
import os
import socket
import time
import warnings
from collections import deque
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from board_arena.arena.pool import WorkerLost, ignoring_interrupts
from board_arena.arena.settings import ScheduledGame, TournamentSettings
from board_arena.arena.store import GameResult

__all__ = ["ClusterAddress", "parse_cluster", "play_ray", "RayPool", "INSTALL_HINT"]

#: Wall time a batch of games should take on an actor.
BATCH_SECONDS = 0.5
MAX_BATCH = 256
#: Batches held by an actor at once: one playing, one waiting.
IN_FLIGHT = 2
#: Longest wait for a result before the driver looks at its signals (Ctrl-C) again.
POLL_SECONDS = 0.2
#: Seconds to wait for a TCP connection to a remote cluster before saying it is unreachable.
CONNECT_TIMEOUT = 10.0
#: Memory for the object store of a Ray instance started here (games and results are small).
LOCAL_OBJECT_STORE_BYTES = 200 * 1024 * 1024

INSTALL_HINT = 'pip install -e ".[ray]"'


@dataclass(frozen=True)
class ClusterAddress:
    """Where to run: ``local`` (a Ray instance started here), ``auto`` (the cluster this machine
    is part of) or a Ray Client address ``ray://host:port``."""

    kind: str
    host: str = ""
    port: int = 0

    @property
    def address(self) -> str | None:
        """The ``address`` argument of ``ray.init``."""
        return {"local": None, "auto": "auto"}.get(self.kind, f"ray://{self.host}:{self.port}")

    def __str__(self) -> str:
        return {"local": "a local Ray instance", "auto": "the Ray cluster of this machine"}.get(
            self.kind, f"the Ray cluster at {self.host}:{self.port}"
        )


def parse_cluster(text: str) -> ClusterAddress:
    """``ray``, ``auto`` or ``ray://HOST:PORT``.

    >>> parse_cluster("ray"), parse_cluster("ray://10.0.0.5:10001").address
    (ClusterAddress(kind='local', host='', port=0), 'ray://10.0.0.5:10001')

    Raises:
        ValueError: anything else (the message says what is allowed).
    """
    allowed = "ray (a Ray instance on this machine), auto (the cluster this machine joined with ray start) or ray://HOST:PORT"
    shown = repr(text) if len(text) <= 40 else repr(text[:40]) + "..."
    if text == "ray":
        return ClusterAddress("local")
    if text == "auto":
        return ClusterAddress("auto")
    if text.startswith("ray://"):
        host, sep, port = text[len("ray://") :].rpartition(":")
        if sep and host and port.isdigit() and 0 < int(port) < 65536:
            return ClusterAddress("client", host.strip("[]"), int(port))
    raise ValueError(f"--cluster must be {allowed}, not {shown}")


def check_reachable(where: ClusterAddress, timeout: float = CONNECT_TIMEOUT) -> None:
    """Fails fast, before anything else, when a remote cluster's address does not answer (Ray
    Client would otherwise retry for minutes).

    Raises:
        ValueError: no TCP connection within ``timeout`` seconds.
    """
    if where.kind != "client":
        return
    try:
        socket.create_connection((where.host, where.port), timeout=timeout).close()
    except OSError as error:
        reason = f"no answer within {timeout:g} s" if isinstance(error, socket.timeout) else (error.strerror or str(error))
        raise ValueError(f"cannot reach {where} ({reason}); is its head node running?") from None


def import_ray():
    """Ray, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ValueError(f"--cluster needs Ray, an optional extra: {INSTALL_HINT}") from None
    return ray


def _package_root() -> str:
    """The folder that holds the ``arena`` package (so that the actors of a local instance import
    this very code, from a checkout as from an installed copy)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _GameWorker:
    """A Ray actor: warms up once, then plays the batches it is given."""

    def __init__(self, settings_json: str):
        from board_arena.arena.worker import _WORKER, init_worker

        init_worker(settings_json)
        self.settings, self.game = _WORKER["settings"], _WORKER["game"]

    def play(self, batch: list[ScheduledGame]) -> tuple[list[GameResult], float, int]:
        """The batch's results, the wall time it took and the kernels compiled since the warm-up."""
        from board_arena.arena.worker import (
            compilations_since_warm_up,
            play_scheduled_game,
        )

        start = time.perf_counter()
        results = [play_scheduled_game(self.settings, scheduled, self.game) for scheduled in batch]
        return results, time.perf_counter() - start, compilations_since_warm_up()

    def node(self) -> str:
        import ray

        return ray.get_runtime_context().get_node_id()


class RayPool:
    """A connection to Ray that plays games on actors; see :func:`play_ray`."""

    #: Actors that may die (each replaced, its games played again) before the run gives up.
    MAX_LOSSES = 32
    #: Seconds to wait for a CPU when every actor is gone (a node being replaced).
    WAIT_FOR_CPU = 60.0

    def __init__(self, where: ClusterAddress):
        self.where = where
        #: Kernels the actors compiled after warming up (expected 0), summed over the actors.
        self.compilations = 0
        self.lost = 0
        self._ray: Any = None  # the ray module, once started
        self._started_here = False

    # -- connecting ------------------------------------------------------------------------

    def connect(self) -> int:
        """Starts or joins Ray; returns the CPUs of the cluster.

        Raises:
            ValueError: Ray is missing, or the cluster cannot be reached.
        """
        ray = import_ray()
        check_reachable(self.where)
        self._ray = ray
        if ray.is_initialized():  # a caller's own Ray session (a notebook, a test cluster)
            return int(ray.cluster_resources().get("CPU", 0))
        options = dict(logging_level=logging.ERROR, log_to_driver=False)
        try:
            with warnings.catch_warnings():  # Ray Client warns, then raises: the error says it all
                warnings.simplefilter("ignore")
                self._init(ray, options)
        except (ConnectionError, RuntimeError, TimeoutError) as error:
            if self.where.kind == "auto":
                raise ValueError(
                    "no Ray cluster runs on this machine: start one with ray start --head "
                    "(or join one with ray start --address=HEAD:6379), or use --cluster ray"
                ) from None
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            hint = ""
            if self.where.kind == "client" and "RAY_AUTH_MODE" not in os.environ:
                hint = " (a cluster with token authentication needs RAY_AUTH_MODE=token and its token here: ray get-auth-token on the head)"
            raise ValueError(f"cannot join {self.where}: {first}{hint}") from None
        self._started_here = True
        return int(ray.cluster_resources().get("CPU", 0))

    def _init(self, ray, options) -> None:
        if self.where.kind == "local":
            ray.init(
                address="local",  # a new instance, even where a cluster runs (that is --cluster auto)
                num_cpus=os.cpu_count() or 1,
                object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                include_dashboard=False,
                runtime_env={"env_vars": {"PYTHONPATH": _package_root()}},
                **options,
            )
        else:
            ray.init(address=self.where.address, **options)

    def close(self) -> None:
        """Shuts down a Ray instance started here (a cluster joined here is only left)."""
        if self._ray is not None and self._started_here:
            with ignoring_interrupts():
                self._ray.shutdown()
        self._ray = None
        self._started_here = False

    # -- playing ---------------------------------------------------------------------------

    def play(self, settings: TournamentSettings, todo: Iterable[ScheduledGame], workers: int | None = None) -> Iterator[GameResult]:
        """Plays the games of ``todo`` on ``workers`` actors (default: one per CPU of the
        cluster) and yields each as it comes back; the actors are stopped when it ends."""
        ray = self._ray
        if ray is None:
            raise RuntimeError("RayPool.play before connect()")
        from ray.exceptions import RayActorError, RayTaskError, WorkerCrashedError

        died = (RayActorError, WorkerCrashedError)
        actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_GameWorker)
        settings_json = settings.to_json()
        wanted = workers or max(1, self._cpus())
        todo = iter(todo)
        retry: deque[ScheduledGame] = deque()
        exhausted = False  # todo and retry are both empty
        yielded: set[int] = set()
        played, seconds = 0, 0.0
        starting: dict = {}  # an actor's warm-up (a ref that resolves when it is done) -> actor
        load: dict = {}  # warm actor -> batches it holds
        tasks: dict = {}  # a batch in flight (its ref) -> (actor, batch)
        compiled: dict = {}  # actor -> kernels compiled after its warm-up, as it reported last
        last_loss = ""
        most = settings.max_batch or MAX_BATCH

        def next_batch() -> list[ScheduledGame]:
            nonlocal exhausted
            size = 1 if played == 0 else int(min(most, max(1, BATCH_SECONDS * played / max(seconds, 1e-9))))
            batch: list[ScheduledGame] = []
            while len(batch) < size and retry:
                batch.append(retry.popleft())
            for game in todo:
                batch.append(game)
                if len(batch) >= size:
                    break
            exhausted = not batch
            return batch

        def feed(actor) -> None:
            while load[actor] < IN_FLIGHT:
                batch = next_batch()
                if not batch:
                    return
                tasks[actor.play.remote(batch)] = (actor, batch)
                load[actor] += 1

        def start_actors() -> None:
            """Actors up to ``wanted``, as far as the cluster has CPUs for them (one that finds no
            CPU waits, holding no game, and is stopped at the end)."""
            while len(load) + len(starting) < min(wanted, max(1, self._cpus())):
                actor = actor_class.remote(settings_json)
                starting[actor.node.remote()] = actor

        def drop(actor, error) -> None:
            """An actor died: every batch it held goes back to the front of the queue."""
            nonlocal exhausted, last_loss
            self.lost += 1
            last_loss = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            held = [ref for ref, (owner, _) in tasks.items() if owner is actor]
            games = sorted((g for ref in held for g in tasks.pop(ref)[1] if g.id not in yielded), key=lambda g: g.id)
            retry.extendleft(reversed(games))
            exhausted = exhausted and not games
            load.pop(actor, None)
            self.compilations += compiled.pop(actor, 0)
            _kill(ray, actor)
            if self.lost > self.MAX_LOSSES:
                raise WorkerLost(f"{self.lost} Ray workers died (the last: {last_loss}); finished games are stored: run the same command to resume")

        try:
            retry.extend(next_batch())  # the first game: an empty todo starts nobody
            if not retry:
                return
            start_actors()
            idle_since = time.monotonic()
            while tasks or (starting and not exhausted):
                # Short waits: Python handles Ctrl-C only between them (Ray's wait does not return for it).
                ready, _ = ray.wait(list(tasks) + list(starting), num_returns=1, timeout=POLL_SECONDS)
                if not ready:
                    if not tasks and time.monotonic() - idle_since > self.WAIT_FOR_CPU:
                        raise WorkerLost(
                            f"no Ray worker started within {self.WAIT_FOR_CPU:g} s"
                            + (f" (the last one lost: {last_loss})" if last_loss else "")
                            + "; finished games are stored: run the same command to resume"
                        )
                    continue
                idle_since = time.monotonic()
                ref = ready[0]
                if ref in starting:  # an actor finished its warm-up
                    actor = starting.pop(ref)
                    try:
                        ray.get(ref)
                    except died as error:
                        self.lost += 1
                        last_loss = str(error).strip().splitlines()[0]
                        if self.lost > self.MAX_LOSSES:
                            raise WorkerLost(f"{self.lost} Ray workers died (the last: {last_loss})") from None
                        start_actors()
                        continue
                    load[actor], compiled[actor] = 0, 0
                    feed(actor)
                    continue
                actor, batch = tasks[ref]
                try:
                    results, wall, compilations = ray.get(ref)
                except died as error:
                    drop(actor, error)
                    start_actors()
                    for idle in [a for a, n in load.items() if n == 0]:
                        feed(idle)
                    continue
                except RayTaskError as error:  # our own code failed on the worker: not a fault to retry
                    raise RuntimeError(f"a Ray worker failed: {error}") from None
                del tasks[ref]
                load[actor] -= 1
                compiled[actor] = compilations
                played += len(results)
                seconds += wall
                feed(actor)
                for result in results:
                    if result.id not in yielded:
                        yielded.add(result.id)
                        yield result
                for idle in [a for a, n in load.items() if n < IN_FLIGHT]:  # games came back to the queue
                    feed(idle)
        finally:
            with ignoring_interrupts():  # an interrupt must not leave actors playing on
                self.compilations += sum(compiled.values())
                for actor in list(load) + list(starting.values()):
                    _kill(ray, actor)

    def _cpus(self) -> int:
        return int(self._ray.cluster_resources().get("CPU", 0))


def _kill(ray, actor) -> None:
    try:
        ray.kill(actor)
    except Exception:  # gone already
        pass


def play_ray(
    settings: TournamentSettings, todo: Iterable[ScheduledGame], where: ClusterAddress, workers: int | None = None
) -> Iterator[GameResult]:
    """Plays the games of ``todo`` on Ray actors and yields each finished game as it comes back
    (in no fixed order; the results do not depend on the number of workers). ``workers`` defaults
    to the cluster's CPUs. A Ray instance started here is shut down when the generator ends."""
    pool = RayPool(where)
    pool.connect()
    try:
        yield from pool.play(settings, todo, workers)
    finally:
        pool.close()
