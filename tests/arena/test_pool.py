"""The worker-pool scheduler that every backend shares (arena.tournament.pool.WorkerPool), driven through a
backend written in a few lines in this test: workers that live in this process and die when the
script says. Batching, in-flight accounting, retry, giving up and stopping are the scheduler's,
so what holds here holds for the process pool and Ray (their own tests kill real workers)."""

from collections import deque

import pytest

from board_arena.arena import TournamentSettings, make_pool
from board_arena.arena.tournament.pool import (
    BatchDone,
    InlinePool,
    ProcessPool,
    WorkerDied,
    WorkerLost,
    WorkerPool,
)
from board_arena.arena.tournament.worker import GamePlayer

TINY = "kalah:pits=3,seeds=2"


class ScriptedPool(WorkerPool):
    """A backend: each worker is a GamePlayer here that plays a batch when it is received; the
    batches numbered in ``deaths`` (in the order sent) kill their worker before their last game."""

    MAX_BATCH = 3

    def __init__(self, settings, concurrency, deaths=()):
        super().__init__(settings, concurrency)
        self.deaths = set(deaths)
        self.sent = 0
        self.started = 0
        self.stopped = 0
        self.batch_sizes = []

    def _start(self, settings_json):
        self.started += 1
        return {"player": GamePlayer(TournamentSettings.from_json(settings_json), warm_up=False), "batches": deque()}

    def _send(self, slot, batch):
        self.sent += 1
        self.batch_sizes.append(len(batch))
        slot.handle["batches"].append((batch, self.sent in self.deaths))

    def _wait(self, slots, timeout):
        return [slot for slot in slots if slot.handle["batches"]]

    def _receive(self, slot):
        batch, dies = slot.handle["batches"].popleft()
        for number, scheduled in enumerate(batch):
            if dies and number == len(batch) - 1:
                raise WorkerDied("scripted")
            yield slot.handle["player"].play(scheduled)
        yield BatchDone(len(batch), 0.001 * len(batch), 0)

    def _stop(self, slots):
        self.stopped += len(slots)


def settings(games=12):
    return TournamentSettings.create(TINY, ["random", "greedy", "mcts:iterations=20"], games=games, seed=3)


def comparable(results):
    return sorted((r.id, r.player0, r.player1, r.moves, r.result, r.score) for r in results)


def test_every_game_once_and_the_same_games_as_in_this_process_whatever_dies():
    tournament = settings()
    expected = comparable(InlinePool(tournament).play(tournament.schedule()))
    assert len(expected) == tournament.total_games
    pool = ScriptedPool(tournament, 3, deaths={2, 3, 7})
    assert comparable(pool.play(tournament.schedule())) == expected
    assert pool.lost == 3 and pool.started == 3 + 3, "each dead worker replaced"
    assert pool.stopped == pool.started, "every worker stopped at the end"
    assert pool.batch_sizes[:3] == [1, 1, 1] and max(pool.batch_sizes) == ScriptedPool.MAX_BATCH


def test_the_pool_gives_up_after_too_many_deaths():
    tournament = settings()
    pool = ScriptedPool(tournament, 2, deaths=range(1, 100))
    pool.MAX_LOSSES = 4
    with pytest.raises(WorkerLost, match="5 workers died"):
        list(pool.play(tournament.schedule()))
    assert pool.stopped == pool.started


def test_workers_start_only_while_games_wait_for_them():
    tournament = TournamentSettings.create(TINY, ["random", "greedy"], games=2)
    pool = ScriptedPool(tournament, 4)
    assert len(list(pool.play(tournament.schedule()))) == 2
    assert pool.started == 2
    pool = ScriptedPool(tournament, 4)
    assert list(pool.play([])) == [] and pool.started == 0


def test_a_consumer_that_stops_early_stops_every_worker():
    tournament = settings()
    pool = ScriptedPool(tournament, 3)
    results = pool.play(tournament.schedule())
    next(results)
    results.close()  # as an interrupt or a failing consumer ends the generator
    assert pool.started == 3 and pool.stopped == 3


def test_the_factory_picks_a_backend_and_checks_the_concurrency():
    tournament = settings()
    assert type(make_pool(tournament, 1)) is ProcessPool, "one worker process: isolated as at any concurrency"
    assert type(make_pool(tournament, 1, in_process=True)) is InlinePool
    with pytest.raises(ValueError, match="in-process play is one game at a time"):
        make_pool(tournament, 2, in_process=True)
    assert type(make_pool(tournament, 2)) is ProcessPool
    assert type(make_pool(tournament, 2, cluster="ray")).__name__ == "RayPool"
    with pytest.raises(ValueError, match="at least 1"):
        make_pool(tournament, -1)
    with pytest.raises(ValueError, match="--cluster must be"):
        make_pool(tournament, 2, cluster="bogus")
