"""Agents isolated as engine testers isolate engines (arena.tournament.pool, isolation): an agent that
crashes its worker process, raises or hangs loses that game with the reason recorded, the worker
is replaced, and the tournament plays every other game."""

import os
import signal
import threading

import pytest

from board_arena.arena import TournamentSettings, run_tournament

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FAULTY = os.path.join(ROOT, "tests", "plugins", "faulty_agents.py")
GAME = "kalah"  # long enough that the faulty agent is to move again after ply 4

pytestmark = [
    pytest.mark.usefixtures("forget_plugins"),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="worker processes are forked here (Linux, macOS)"),
]

END_REASONS = {
    "abort": "crash in seat {seat} (faulty:fault=abort): its worker process died during its search (killed by SIGABRT), twice in this game",
    "segfault": "crash in seat {seat} (faulty:fault=segfault): its worker process died during its search (killed by SIGSEGV), twice in this game",
    "raise": "error in seat {seat} (faulty:fault=raise): RuntimeError: the faulty agent fails as told",
    "exit": "error in seat {seat} (faulty:fault=exit): exited with status 0 in its search",
    "interrupt": "error in seat {seat} (faulty:fault=interrupt): raised KeyboardInterrupt in its search",
    "memory": "error in seat {seat} (faulty:fault=memory): MemoryError",
    "hang": "lost on time in seat {seat} (faulty:fault=hang): no move after",
}


@pytest.mark.parametrize("concurrency", [1, 2])
@pytest.mark.parametrize("fault", sorted(END_REASONS))
def test_an_agent_that_crashes_raises_or_hangs_loses_its_games_and_the_tournament_goes_on(tmp_path, fault, concurrency):
    options = dict(move_time=0.05, tc_margin=0.3) if fault == "hang" else {}
    settings = TournamentSettings.create(
        GAME, [f"faulty:fault={fault}", "random", "greedy"], games=2, seed=1, plugins=[FAULTY], **options
    )
    run = run_tournament(settings, str(tmp_path / fault), concurrency=concurrency, progress=False)
    assert sorted(g.id for g in run.games) == list(range(settings.total_games)), "every game played and stored once"
    for g in run.games:
        if g.player0.startswith("faulty") or g.player1.startswith("faulty"):
            seat = 0 if g.player0.startswith("faulty") else 1
            assert g.end_reason.startswith(END_REASONS[fault].format(seat=seat)), g.end_reason
            assert g.score_for(seat) == 0.0 and g.score == 0
            assert g.plies >= 4 and (g.moves0, g.moves1)[seat] >= 1
        else:
            assert g.end_reason == "rules"
    report = run.write_report(plots=False)
    assert "Games not ended by the rules:" in report and END_REASONS[fault].format(seat=1) in report


@pytest.mark.parametrize("fault", ["exit", "interrupt", "memory"])
def test_an_agent_that_ends_its_search_with_a_base_exception_in_the_run_process_loses_that_game(tmp_path, fault):
    settings = TournamentSettings.create(GAME, [f"faulty:fault={fault}", "random"], games=2, seed=1, plugins=[FAULTY])
    run = run_tournament(settings, str(tmp_path / fault), progress=False, in_process=True)
    assert sorted(g.id for g in run.games) == [0, 1]
    for g in run.games:
        seat = 0 if g.player0.startswith("faulty") else 1
        assert g.end_reason == END_REASONS[fault].format(seat=seat) and g.score_for(seat) == 0.0


def test_a_ctrl_c_while_an_agent_searches_in_the_run_process_stops_the_run(tmp_path):
    """The person's Ctrl-C is not the agent's KeyboardInterrupt: it stops the run."""
    settings = TournamentSettings.create(GAME, ["faulty:fault=hang,sleep=5", "random"], games=2, plugins=[FAULTY])
    timer = threading.Timer(0.5, signal.raise_signal, (signal.SIGINT,))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            run_tournament(settings, str(tmp_path / "stopped"), progress=False, in_process=True)
    finally:
        timer.cancel()


def test_a_worker_killed_once_in_a_search_plays_that_game_again(tmp_path, monkeypatch):
    """A worker that dies in a search once (killed from outside, here an abort on the first try
    only) costs nothing: the game is played again and ends by the rules."""
    monkeypatch.setenv("FAULTY_ONCE_FILE", str(tmp_path / "aborted-once"))
    settings = TournamentSettings.create(GAME, ["faulty:fault=abort-once", "random"], games=2, seed=1, plugins=[FAULTY])
    run = run_tournament(settings, str(tmp_path / "once"), concurrency=2, progress=False)
    assert os.path.exists(tmp_path / "aborted-once"), "the agent did abort a worker"
    assert sorted(g.id for g in run.games) == [0, 1] and all(g.end_reason == "rules" for g in run.games)


def test_an_agent_past_its_move_time_and_margin_loses_on_time_in_the_run_process_too(tmp_path):
    settings = TournamentSettings.create(
        GAME, ["faulty:fault=hang,sleep=0.3", "random"], games=2, move_time=0.01, tc_margin=0.1, plugins=[FAULTY]
    )
    run = run_tournament(settings, str(tmp_path / "late"), progress=False, in_process=True)
    for g in run.games:
        seat = 0 if g.player0.startswith("faulty") else 1
        assert g.end_reason.startswith(f"lost on time in seat {seat} (faulty:fault=hang,sleep=0.3): 0.3"), g.end_reason
        assert g.score_for(seat) == 0.0
