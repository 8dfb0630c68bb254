"""``arena engine``: the recorded UGI sessions of every perfect-information game, Dominoes and
bad commands replay with the same replies (``tests/data/ugi``); ``go infinite`` and ``stop``;
``isready`` during a search; a failing agent costs only its move; the real command starts,
answers and exits on ``quit`` and at the end of its input."""

import io
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from board_arena import engines
from board_arena.agents import Limit
from board_arena.ugi.engine import UGIEngine
from tests.support.cli import arena_cli
from tests.support.ugi_sessions import DATA, SCRIPTS, Driver, matches, read_session

ROOT = Path(__file__).resolve().parents[2]


def test_every_perfect_information_game_and_dominoes_has_a_recorded_session():
    built_in = {"mancala", "kalah", "morabaraba", "morabaraba-9", "nine-mens-morris", "konane", "konane-classic", "dominoes"}
    assert built_in <= {read_session(DATA / name).game for name in SCRIPTS}
    assert sorted(p.name for p in DATA.glob("*.ugi")) == sorted(SCRIPTS)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_recorded_session_replays(name):
    session = read_session(DATA / name)
    driver = Driver(session.game, session.agent, session.seed)
    for sent, expected in session.steps:
        replies = driver.send(sent)
        assert len(replies) == len(expected), (sent, replies, expected)
        for want, got in zip(expected, replies):
            assert matches(want, got), (sent, want, got)
            if got.startswith("bestmove ") and got != "bestmove (none)":
                assert got.split()[1] in driver.legal_moves(), (sent, got)


@pytest.mark.parametrize("name", ["kalah.ugi", "konane.ugi", "dominoes.ugi"])
def test_recorded_session_replays_through_the_arena_engine_command(name):
    session = read_session(DATA / name)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "board_arena.arena.cli", "engine", "--game", session.game, "--agent", session.agent,
               "--seed", str(session.seed)]
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    replies: queue.Queue = queue.Queue()
    reader = threading.Thread(target=lambda: [replies.put(line.rstrip("\n")) for line in engine.stdout], daemon=True)
    reader.start()
    try:
        for sent, expected in session.steps:
            engine.stdin.write(sent + "\n")
            engine.stdin.flush()
            for want in expected:
                got = replies.get(timeout=180)  # generous: the machine may be loaded
                assert matches(want, got), (sent, want, got)
        assert engine.wait(timeout=60) == 0
        reader.join(timeout=60)  # the engine has closed its output: the reader ends
        assert replies.empty()  # nothing more than the recorded replies
    finally:
        engine.kill()
        engine.wait()


def start(game="kalah", agent="alphabeta:depth=3", seed=1):
    out, err = io.StringIO(), io.StringIO()
    return UGIEngine(engines.make(game), agent, seed, out=out, err=err), out, err


def wait_for(out, text, timeout=120.0):
    deadline = time.monotonic() + timeout
    while text not in out.getvalue():
        assert time.monotonic() < deadline, f"no {text!r} in {out.getvalue()!r}"
        time.sleep(0.01)


def test_go_infinite_searches_until_stop_and_answers_isready_meanwhile():
    engine, out, _ = start(agent="alphabeta")
    try:
        for line in ("isready", "position startpos moves c", "go infinite"):
            engine.handle(line)
        wait_for(out, "info depth")
        engine.handle("isready")  # answered from this thread while the search goes on
        assert out.getvalue().count("readyok") == 2 and "bestmove" not in out.getvalue()
    finally:
        engine.handle("stop")
        engine.wait()
    lines = out.getvalue().splitlines()
    assert lines[-1].startswith("bestmove ")
    assert lines[-1].split()[1] in engines.make("kalah").new_initial_state().play("c").legal_move_names()
    assert lines.index("readyok", 1) < len(lines) - 1


def test_quit_stops_an_infinite_search_with_its_bestmove():
    engine, out, _ = start(agent="mcts")
    assert engine.run(iter(["position startpos", "go infinite", "quit"])) is False
    assert out.getvalue().splitlines()[-1].startswith("bestmove ")


def test_a_failing_agent_costs_its_move_not_the_engine(monkeypatch):
    engine, out, err = start()
    engine.handle("position startpos")

    def broken(state, limit=None):
        raise RuntimeError("out of cheese")

    monkeypatch.setattr(engine.agent, "search", broken)
    engine.handle("go depth 2")
    engine.wait()
    assert out.getvalue().splitlines()[-2:] == ["info string the agent failed: RuntimeError: out of cheese", "bestmove (none)"]
    engine.handle("query p1turn")
    assert out.getvalue().splitlines()[-1] == "response true"
    assert "out of cheese" in err.getvalue()


@pytest.mark.parametrize("game", ["kalah", "morabaraba", "konane", "dominoes"])
def test_random_garbage_never_ends_the_engine(game):
    engine, out, err = start(game=game, agent="random")
    choose = np.random.default_rng(5)
    words = ["position", "startpos", "fen", "deal", "moves", "go", "query", "setoption", "name", "value", "seat", "hand",
             "leader", "over", "0", "1", "-3", "6-6", "draw:1-1", "a", "c", "d6", "b3-b5", "x", "//", "\u00e9", "999999999999999999"]
    for _ in range(300):
        line = " ".join(choose.choice(words, size=choose.integers(0, 8)))
        assert engine.handle(line) is True
        engine.wait()
    assert engine.handle("quit") is False
    assert " failed: " not in out.getvalue()  # every bad line met a check that says what is wrong


def test_go_hands_the_movers_clock_or_the_agents_own_budget_to_the_search(monkeypatch):
    engine, out, _ = start(agent="alphabeta:depth=3")
    limits = []
    search = engine.agent.search

    def recording(state, limit=None):
        limits.append(limit)
        return search(state, limit)

    monkeypatch.setattr(engine.agent, "search", recording)
    engine.handle("position startpos moves a")  # South sows a into b-e: North (p2) to move
    for line in ("go p1time 1000 p2time 20000 p1inc 10 p2inc 300", "go movetime 40", "go"):
        engine.handle(line)
        engine.wait()
    assert limits == [Limit(remaining=20.0, increment=0.3), Limit(time=0.04), None]
    assert out.getvalue().count("bestmove ") == 3


def test_setoption_changes_the_agent_and_uginewgame_reseeds_it():
    engine, out, _ = start(agent="mcts:iterations=50")
    moves = []
    for _ in range(2):
        for line in ("uginewgame", "position startpos", "go"):
            engine.handle(line)
        engine.wait()
        moves.append(out.getvalue().splitlines()[-1])
    assert moves[0] == moves[1]
    engine.handle("setoption name iterations value 80")
    assert engine.agent.params["iterations"] == 80 and engine.agent.spec == "mcts:iterations=80"
    engine.handle("setoption name Seed value 9")
    assert engine.agent.seed == 9


def test_the_engine_refuses_an_agent_that_cannot_play_the_game_and_bad_flags():
    status, out, err = arena_cli("engine", "--game", "dominoes", "--agent", "alphabeta")
    assert status == 2 and len(err.strip().splitlines()) == 1 and "pimc" in err
    status, out, err = arena_cli("engine", "--game", "kalah", "--agent", "nosuchagent")
    assert status == 2 and "unknown agent" in err
    status, out, err = arena_cli("engine", "--game", "kalah:pits=99", "--agent", "random")
    assert status == 2 and "pits" in err


def run_engine(*args, stdin_lines=(), timeout=180):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "board_arena.arena.cli", "engine", *args],
        input="".join(line + "\n" for line in stdin_lines), capture_output=True, text=True, timeout=timeout, env=env,
    )


def test_the_command_speaks_ugi_on_its_standard_streams_and_exits_at_the_end_of_its_input():
    done = run_engine("--game", "kalah", "--agent", "alphabeta:depth=2", "--seed", "3",
                      stdin_lines=["ugi", "isready", "position startpos", "go", "query p1turn"])
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("id name alphabeta:depth=2") and "ugiok" in lines and "readyok" in lines
    assert "option name Seed type spin default 3 min 0 max 9223372036854775807" in lines
    assert any(line.startswith("bestmove ") for line in lines)


def test_quit_during_a_search_without_a_budget_exits_at_once():
    # alphabeta with no budget searches to its full depth: far longer than the timeout.
    done = run_engine("--game", "morabaraba", "--agent", "alphabeta", "--seed", "3",
                      stdin_lines=["isready", "position startpos", "go", "quit"], timeout=120)
    assert done.returncode == 0, done.stderr
    assert "bestmove" not in done.stdout
