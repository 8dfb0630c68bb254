"""The Ray backend of a tournament: long-lived actors on a cluster's nodes play the games, while the
driver (the process that runs ``arena run``) stays the single writer of the run's database.

``arena run ... --cluster ray`` starts a Ray instance on this machine's cores; ``--cluster auto``
joins the cluster this machine belongs to (started with ``ray start --head`` here, or ``ray start
--address=HEAD:6379``); ``--cluster ray://HOST:PORT`` joins a remote cluster through Ray Client.
Every node needs the same version of board-arena installed (the actors import it there).

:class:`RayPool` is a :class:`arena.tournament.pool.WorkerPool`: batching, retry and interrupts are the
scheduler's, the same as for the local backends. What is Ray's own, and why:

- One actor per worker slot (one CPU each), created once: it builds the game and compiles (or loads
  from its node's numba cache) every agent's kernels in its constructor, before it plays, so no
  game's clock includes a compilation and a node compiles once, not once per game. An actor
  takes games once it has warmed up; one that finds no CPU waits, holding none.
- Isolation: an actor plays its games on a worker process of its own, forked from it once
  warmed up and kept from batch to batch (a local :class:`arena.tournament.pool.ProcessPool` of one, with
  its :class:`arena.tournament.worker.TurnBoard`), so that an agent that crashes its process, or hangs past
  its time, loses that game with the reason recorded, exactly as on the local pool, and the
  actor replaces its worker and plays on; the actor itself never runs an agent's search.
- Batches of about ``BATCH_SECONDS`` each, so that Ray's per-call cost stays small next to the
  play.
- An actor that dies (its process killed, its node gone) costs only the batches it held: they are
  played elsewhere, and a new actor takes the dead one's place while the cluster has a CPU for
  it. A cluster that shrinks plays on with fewer workers.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import warnings
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Iterator

from board_arena.agents.plugins import load_plugins
from board_arena.arena.tournament.pool import (
    READY,
    BatchDone,
    Message,
    ProcessPool,
    Slot,
    WorkerDied,
    WorkerPool,
)
from board_arena.arena.tournament.settings import ScheduledGame, TournamentSettings
from board_arena.arena.tournament.store import GameResult
from board_arena.arena.tournament.worker import die_with_parent
from board_arena.commandline import ignoring_interrupts
from board_arena.ugi.host import register_engines

__all__ = ["ClusterAddress", "parse_cluster", "check_reachable", "import_ray", "RayPool", "INSTALL_HINT"]

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


def import_ray() -> ModuleType:
    """Ray, or a one-line error saying how to install it.

    Raises:
        ValueError: Ray is not installed.
    """
    # Imported here only: Ray is an optional extra, and takes seconds to import.
    try:
        import ray
    except ImportError:
        raise ValueError(f"--cluster needs Ray, an optional extra: {INSTALL_HINT}") from None
    return ray


def _package_root() -> str:
    """The folder that holds the ``board_arena`` package (so that the actors of a local instance
    import this very code, from a checkout as from an installed copy)."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


#: The address a Ray instance started here listens on: this machine only.
LOOPBACK = "127.0.0.1"
#: Ray's switch for the local-only mode it uses on Windows and macOS (servers bound to the
#: loopback interface); on Linux it resolves 127.0.0.1 to the machine's network address and
#: listens on every interface unless the switch says otherwise.
_RAY_CLUSTER_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextmanager
def _loopback_only(ray: ModuleType) -> Iterator[None]:
    """Makes a Ray instance started in the block listen on the loopback interface only, as Ray
    does on Windows and macOS: its switch off, in the environment (the processes it starts
    inherit it) and in ``ray._private.ray_constants`` (read when Ray was imported). Both are
    put back afterwards; ``tests/arena/test_cluster.py`` checks where the instance listens."""
    from ray._private import ray_constants  # Ray's internals: here only

    saved_env, saved_flag = os.environ.get(_RAY_CLUSTER_SWITCH), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[_RAY_CLUSTER_SWITCH] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            os.environ.pop(_RAY_CLUSTER_SWITCH, None)
        else:
            os.environ[_RAY_CLUSTER_SWITCH] = saved_env


class _GameWorker:
    """A Ray actor: warms up once, then plays the batches it is given on its own worker process
    (isolation, above), which it keeps from batch to batch and replaces when it dies."""

    def __init__(self, settings_json: str):
        die_with_parent()
        load_plugins(json.loads(settings_json).get("plugins", ()))
        register_engines(json.loads(settings_json).get("ugi_engines", ()))
        self.pool = ProcessPool(TournamentSettings.from_json(settings_json), 1, keep_workers=True)
        self.pool.prepare()  # the worker process, forked from the actor, inherits the machine code

    def play(self, batch: list[ScheduledGame]) -> tuple[list[GameResult], float, int]:
        """The batch's results, the wall time it took and the kernels compiled since the warm-up."""
        start = time.perf_counter()
        results = list(self.pool.play(batch))
        return results, time.perf_counter() - start, self.pool.compilations

    def node(self) -> str:
        """The node the actor runs on (its answer also says the actor has warmed up)."""
        import ray  # in the actor's process, which has it loaded already

        return ray.get_runtime_context().get_node_id()


@dataclass(eq=False)
class _Actor:
    actor: Any  # a Ray actor handle of _GameWorker
    warm: Any  # the ref that resolves once it has warmed up, None after
    tasks: deque = field(default_factory=deque)  # refs of the batches it holds, in order sent


#: What Ray Client needs to join a cluster that requires a token (Ray's token authentication).
TOKEN_SETTING = "export RAY_AUTH_MODE=token RAY_AUTH_TOKEN=<the token that ray get-auth-token prints on the head node>"


def token_hint() -> str:
    """What to set when joining through Ray Client failed and token authentication may be why:
    the mode and the token, whichever of them this environment lacks (Ray reads the token from
    ``RAY_AUTH_TOKEN``, the file ``RAY_AUTH_TOKEN_PATH`` names, or ``~/.ray/auth_token``)."""
    if os.environ.get("RAY_AUTH_MODE") != "token":
        return f"; if the cluster requires a token, set it here: {TOKEN_SETTING}"
    has_token = os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.isfile(
        os.path.expanduser(os.path.join("~", ".ray", "auth_token"))
    )
    return "" if has_token else f"; RAY_AUTH_MODE=token is set, but no token: {TOKEN_SETTING}"


class RayPool(WorkerPool):
    """Plays the games on Ray actors, ``concurrency`` of them (default: one per CPU of the
    cluster), on the cluster ``where`` (a :class:`ClusterAddress` or its text, as
    :func:`parse_cluster` reads it). :meth:`open` starts or joins Ray; :meth:`close` shuts down a
    Ray instance started here (a cluster joined is only left)."""

    BATCH_SECONDS = 0.5
    MAX_BATCH = 256
    MAX_LOSSES = 32
    WORKERS = "Ray workers"

    def __init__(self, settings: TournamentSettings, concurrency: int | None = None, where: ClusterAddress | str = "ray"):
        super().__init__(settings, concurrency)
        self.where = parse_cluster(where) if isinstance(where, str) else where
        self._ray: Any = None  # the ray module, once open
        self._started_here = False
        self._actor_class: Any = None

    # -- connecting ------------------------------------------------------------------------

    def open(self) -> None:
        """Starts or joins Ray (once).

        Raises:
            ValueError: Ray is missing, or the cluster cannot be reached.
        """
        if self._ray is not None:
            return
        ray = import_ray()
        check_reachable(self.where)
        if not ray.is_initialized():  # else a caller's own Ray session (a notebook, a test cluster)
            options = dict(logging_level=logging.ERROR, log_to_driver=False)
            try:
                with warnings.catch_warnings():  # Ray Client warns, then raises: the error says it all
                    warnings.simplefilter("ignore")
                    self._init(ray, options)
            except KeyboardInterrupt:
                raise
            except Exception as error:  # Ray raises plain Exceptions too (a start-up that timed out)
                with ignoring_interrupts():
                    try:
                        ray.shutdown()  # whatever half started
                    except Exception:
                        pass
                raise ValueError(self._failed_start(error) if self.where.kind == "local" else self._unreachable(error)) from None
            self._started_here = True
        self._ray = ray
        self._actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_GameWorker)

    def _unreachable(self, error: Exception) -> str:
        if self.where.kind == "auto":
            return (
                "no Ray cluster runs on this machine: start one with ray start --head "
                "(or join one with ray start --address=HEAD:6379), or use --cluster ray"
            )
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return f"cannot join {self.where}: {first}{token_hint() if self.where.kind == 'client' else ''}"

    def _failed_start(self, error: Exception) -> str:
        """A local instance that did not start, in one line with what to try."""
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        try:
            load = f" (load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
        except (OSError, AttributeError):
            load = ""
        return (
            f"Ray did not start on this machine{load}: {first[:200].rstrip('.')}; try again when the machine is less busy, "
            "or leave out --cluster (local worker processes play the same games)"
        )

    def _init(self, ray: ModuleType, options: dict[str, Any]) -> None:
        if self.where.kind == "local":
            with _loopback_only(ray):
                ray.init(
                    address="local",  # a new instance, even where a cluster runs (that is --cluster auto)
                    num_cpus=os.cpu_count() or 1,
                    object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                    include_dashboard=False,
                    _node_ip_address=LOOPBACK,  # the instance's servers listen on this machine only
                    runtime_env={"env_vars": {"PYTHONPATH": _package_root()}},
                    **options,
                )
        else:
            ray.init(address=self.where.address, **options)

    def close(self) -> None:
        if self._ray is not None and self._started_here:
            with ignoring_interrupts():
                self._ray.shutdown()
        self._ray = None
        self._started_here = False

    def cpus(self) -> int:
        """The CPUs of the cluster now."""
        self.open()
        return int(self._ray.cluster_resources().get("CPU", 0))

    # -- the backend -----------------------------------------------------------------------

    def capacity(self) -> int:
        # One actor per CPU at most; one at least, which waits when the cluster has none free.
        cpus = max(1, self.cpus())
        return min(self.concurrency or cpus, cpus)

    def _starts_ready(self) -> bool:
        return False

    def _start(self, settings_json: str) -> _Actor:
        actor = self._actor_class.remote(settings_json)
        return _Actor(actor, actor.node.remote())

    def _send(self, slot: Slot, batch: list[ScheduledGame]) -> None:
        slot.handle.tasks.append(slot.handle.actor.play.remote(batch))

    def _wait(self, slots: list[Slot], timeout: float) -> list[Slot]:
        by_ref = {}
        for slot in slots:
            for ref in slot.handle.tasks:
                by_ref[ref] = slot
            if slot.handle.warm is not None:
                by_ref[slot.handle.warm] = slot
        # Short waits: Python handles Ctrl-C only between them (Ray's wait does not return for it).
        ready, _ = self._ray.wait(list(by_ref), num_returns=1, timeout=timeout)
        return [by_ref[ref] for ref in ready]

    def _receive(self, slot: Slot) -> Iterator[Message]:
        # Ray is an optional extra: its modules are imported only once a pool is open.
        from ray.exceptions import RayActorError, RayTaskError, WorkerCrashedError

        ray, actor = self._ray, slot.handle
        try:
            if actor.warm is not None:
                done, _ = ray.wait([actor.warm], timeout=0)
                if done:
                    ray.get(actor.warm)
                    actor.warm = None
                    yield READY
            while actor.tasks:
                done, _ = ray.wait([actor.tasks[0]], timeout=0)
                if not done:
                    return
                try:
                    results, seconds, compilations = ray.get(actor.tasks.popleft())
                except (RayActorError, WorkerCrashedError):
                    raise
                except RayTaskError as error:  # our own code failed on the worker: not a fault to retry
                    raise RuntimeError(f"a Ray worker failed: {error}") from None
                yield from results
                yield BatchDone(len(results), seconds, compilations)
        except (RayActorError, WorkerCrashedError) as error:
            raise WorkerDied(str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__) from None

    def _stop(self, slots: list[Slot]) -> None:
        for slot in slots:
            try:
                self._ray.kill(slot.handle.actor)
            except Exception:  # gone already
                pass
