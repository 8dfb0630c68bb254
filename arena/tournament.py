"""Running a round-robin tournament, resumably, on several processes; and loading a run back."""

from __future__ import annotations

import multiprocessing
import os
import sys
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from typing import Callable

from tqdm import tqdm

tqdm.monitor_interval = 0  # no monitor thread: worker processes may be forked (_worker_context)

import engines
from arena.ratings import Ratings, fit_ratings
from arena.settings import ScheduledGame, TournamentSettings
from arena.store import GameResult, RunStore
from arena.worker import compilations_since_warm_up, init_worker, play_scheduled_game, warm_up_agents

__all__ = ["run_tournament", "load_run", "Run", "rating_results"]


def rating_results(games: list[GameResult]) -> list[tuple[str, str, float]]:
    """``(agent, opponent, score)`` per game, as :func:`arena.ratings.fit_ratings` takes them."""
    return [(g.player0, g.player1, g.score_for(0)) for g in games]


@dataclass
class Run:
    """A tournament run loaded from its folder: settings and finished games.

    Example:
        >>> run = arena.load_run("arena-runs/mancala-mcts-alphabeta-1a2b3c4d")  # doctest: +SKIP
        >>> run.ratings().elo, run.to_dataframe().groupby("player0").result.mean()  # doctest: +SKIP
    """

    out_dir: str
    settings: TournamentSettings
    games: list[GameResult]
    #: Kernels compiled by worker processes after their warm-up, during this call (expected 0;
    #: None when no worker process ran).
    worker_compilations: int | None = None

    def records(self) -> list[dict]:
        """The games as plain dicts (one per game, the database's columns)."""
        return [asdict(g) for g in self.games]

    def to_dataframe(self):
        """The games as a pandas DataFrame (needs ``pip install pandas``)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("to_dataframe needs pandas: pip install pandas (records() needs nothing)") from None
        return pandas.DataFrame(self.records())

    def ratings(self, anchor: str | None = None, bootstrap: int = 1000) -> Ratings:
        return fit_ratings(rating_results(self.games), list(self.settings.labels), anchor=anchor, bootstrap=bootstrap)

    def game_record(self, game_id: int) -> engines.GameRecord:
        """A stored game as a record that replays.

        Raises:
            ValueError: no finished game has that id.
        """
        for g in self.games:
            if g.id == game_id:
                return engines.GameRecord(
                    self.settings.game,
                    dict(self.settings.game_params),
                    g.game_seed,
                    list(g.moves),
                    {"players": [g.player0, g.player1], "end_reason": g.end_reason},
                )
        ids = [g.id for g in self.games]
        span = f"{min(ids)}-{max(ids)}" if ids else "none finished"
        raise ValueError(f"no finished game {game_id} in {self.out_dir} (games: {span})")


def load_run(out_dir: str) -> Run:
    """The run stored in ``out_dir``.

    Raises:
        ValueError: there is no run there.
    """
    store = RunStore(out_dir)
    try:
        return Run(out_dir, store.settings(), store.games())
    finally:
        store.close()


def _play_and_store(out_dir: str, scheduled: list[ScheduledGame]) -> tuple[list[GameResult], int, int]:
    """Worker task: plays games and commits each to the database as soon as it ends; returns them
    with the worker's pid and the kernels it compiled since its warm-up."""
    from arena.worker import _WORKER

    store = _WORKER.setdefault("store", RunStore(out_dir))
    results = []
    for game in scheduled:
        result = play_scheduled_game(_WORKER["settings"], game, _WORKER["game"])
        store.add(result)
        results.append(result)
    return results, os.getpid(), compilations_since_warm_up()


def _running_score(settings: TournamentSettings, games: list[GameResult]) -> str:
    points = dict.fromkeys(settings.labels, 0.0)
    played = dict.fromkeys(settings.labels, 0)
    for g in games:
        for seat, name in enumerate((g.player0, g.player1)):
            points[name] += g.score_for(seat)
            played[name] += 1
    if len(settings.labels) == 2:
        a, b = settings.labels
        return f"{a} {points[a]:g} - {points[b]:g} {b}"
    best = sorted(settings.labels, key=lambda n: -points[n] / max(played[n], 1))[:3]
    return ", ".join(f"{n} {100 * points[n] / max(played[n], 1):.0f}%" for n in best)


def run_tournament(
    settings: TournamentSettings,
    out_dir: str | None = None,
    concurrency: int | None = None,
    progress: bool = True,
    on_result: Callable[[GameResult], None] | None = None,
) -> Run:
    """Plays every game of ``settings`` not yet in ``out_dir`` and returns the whole run.

    Games already stored are kept and not replayed; each new game is committed as it ends, so an
    interrupted run loses nothing and resumes when called again. The results depend on the
    settings only, not on ``concurrency`` (each game has its own seeds).

    Raises:
        ValueError: ``out_dir`` holds a run with other settings.
    """
    out_dir = out_dir or settings.default_out_dir()
    concurrency = concurrency or os.cpu_count() or 1
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    store = RunStore(out_dir)
    try:
        store.open(settings)
        compilations = _play_missing(settings, store, concurrency, progress, on_result)
    finally:
        store.close()
    run = load_run(out_dir)
    run.worker_compilations = compilations
    return run


def _play_missing(settings, store, concurrency, progress, on_result) -> int | None:
    """Plays the games not yet stored; returns the kernels compiled by worker processes after
    their warm-up (None when the games were played here)."""
    done = store.finished_ids()
    todo = [g for g in settings.schedule() if g.id not in done]
    if not todo:
        return None
    game = settings.make_game()
    # Compile (or load) every kernel once, before the progress bar and any clock start; forked
    # workers inherit the machine code, spawned ones load it from the cache.
    warm_up_agents(settings, game)
    finished = store.games()
    bar = tqdm(
        total=len(done) + len(todo),
        initial=len(done),
        unit="game",
        disable=not progress,
        dynamic_ncols=True,
        file=sys.stderr,
    )
    bar.set_postfix_str(_running_score(settings, finished))

    def record(results: list[GameResult]) -> None:
        for result in results:
            finished.append(result)
            if on_result:
                on_result(result)
        bar.update(len(results))
        bar.set_postfix_str(_running_score(settings, finished))

    try:
        workers = min(concurrency, len(todo))  # more would start and warm up for nothing
        if workers == 1:
            for scheduled in todo:
                result = play_scheduled_game(settings, scheduled, game)
                store.add(result)
                record([result])
            return None
        store.close()  # the workers write; a forked worker must not inherit an open connection
        return _run_pool(settings, store.out_dir, todo, workers, record)
    finally:
        bar.close()


#: A worker task lasts about this long: fast games are sent in batches so that the round trip
#: between processes stays small next to the play, slow ones one at a time.
TASK_SECONDS = 0.25
MAX_BATCH = 64


def _worker_context():
    """Where it is safe (Linux), workers are forked from this process, which has warmed up every
    kernel already: they start at once with the machine code in memory. Elsewhere they are
    spawned and each loads the kernels from the cache in its initializer. (No thread may run at
    a fork: tqdm's monitor thread is switched off for this reason.)"""
    if sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _run_pool(settings, out_dir, todo, concurrency, record) -> int:
    """Plays ``todo`` on ``concurrency`` worker processes; returns the kernels they compiled
    after warming up."""
    pool = ProcessPoolExecutor(
        max_workers=concurrency, mp_context=_worker_context(), initializer=init_worker, initargs=(settings.to_json(),)
    )
    queue = list(reversed(todo))
    played = 0
    seconds = 0.0
    compiled_by_worker: dict[int, int] = {}

    def submit():
        # Batch size from the average length of the games so far (one game until one is known).
        size = 1 if played == 0 else int(min(MAX_BATCH, max(1, TASK_SECONDS * played / max(seconds, 1e-9))))
        batch = [queue.pop() for _ in range(min(size, len(queue)))]
        return pool.submit(_play_and_store, out_dir, batch)

    try:
        pending = {submit() for _ in range(min(2 * concurrency, len(queue)))}
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                results, pid, compiled = future.result()
                compiled_by_worker[pid] = compiled
                played += len(results)
                seconds += sum(r.time0 + r.time1 for r in results)
                record(results)
                if queue:
                    pending.add(submit())
    finally:
        # On an interruption, games not started are dropped; finished ones are already stored.
        pool.shutdown(wait=True, cancel_futures=True)
    return sum(compiled_by_worker.values())
