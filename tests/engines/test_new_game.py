"""The new-game check: tic-tac-toe, written outside the package in tests/games/tictactoe as
docs/extending/games.md says (a kernel module, a ``Game`` subclass, one ``register_game``), is
playable everywhere without an edit anywhere else.

tests/conftest.py registers it for the whole suite, so every test over every registered game
covers it too: the conformance checker (engines/test_conformance.py), the board as data
(engines/test_board.py), the batched environment (envs/test_batched_env.py), PettingZoo's
api_test and Gymnasium's environment checker (envs/test_rl_envs.py), alpha-beta against minimax
and every agent on every perfect-information game (agents/test_agents.py), and the page in a
browser (web/test_web_browser.py). The
tests here add what those do not: the commands with ``--plugin`` in fresh processes (workers,
spawned ones included, load the game), the HTTP interface of ``arena serve``, every agent, the
value of the game, and the registrations from outside (entry points, Gymnasium ids).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.agents.plugins import load_plugin
from board_arena.arena import TournamentSettings, load_run, run_tournament
from board_arena.arena.web.server import GameServer, make_server
from board_arena.engines.conformance import check_conformance
from tests.games.tictactoe import TicTacToe

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PLUGIN = os.path.join(ROOT, "tests", "games", "tictactoe")
ENV = {**os.environ, "PYTHONPATH": ROOT}


@pytest.fixture(autouse=True)
def forget_plugins():
    """Each test's plugins leave the list of loaded plugins as it was."""
    from board_arena.agents import plugins

    loaded = plugins.loaded_plugins()
    yield
    plugins.restore_loaded_plugins(loaded)


def arena(*args: str, **options) -> subprocess.CompletedProcess:
    """The ``arena`` command in a fresh process (which knows the game only through --plugin)."""
    return subprocess.run([sys.executable, "-m", "board_arena.arena.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=ENV, **options)


def test_the_game_is_registered_once_whatever_the_way_it_is_loaded():
    assert "tictactoe" in engines.available_games() and engines.game_class("tictactoe") is TicTacToe
    assert TicTacToe in engines.game_classes()
    assert load_plugin(PLUGIN).TicTacToe is TicTacToe  # the package imported already: the same module
    assert engines.register_game(TicTacToe) is TicTacToe  # again: nothing happens
    for final in check_conformance(engines.make("tictactoe"), games=20):
        assert final.end_reason in ("three in a row", "a full board")


def test_a_name_taken_is_refused():
    class Twin(TicTacToe):
        PRESETS = {"tictactoe-twin": {}}

    with pytest.raises(ValueError, match="family 'tictactoe' of .*Twin is .*TicTacToe's already"):
        engines.register_game(Twin)
    Twin.family = "twin"
    Twin.PRESETS = {"tictactoe": {}}
    with pytest.raises(ValueError, match="game name 'tictactoe' of .*Twin is .*TicTacToe's already"):
        engines.register_game(Twin)
    with pytest.raises(TypeError, match="takes a subclass of engines.Game"):
        engines.register_game(object)
    assert "twin" not in {cls.family for cls in engines.game_classes()}


def test_a_game_that_lacks_a_capability_or_part_of_one_is_refused_naming_it():
    class Bare(engines.Game):
        family = "bare"
        PARAMS = ()
        PRESETS = {"bare": {}}
        kernels = TicTacToe.kernels

    with pytest.raises(TypeError, match="it lacks notation_class, encoding_class, _init_record, _board, _reason_words$"):
        engines.register_game(Bare)

    class HalfNotation(engines.Notation):
        def format_move(self, state, move):
            return str(move)

    class Half(TicTacToe):
        family = "half"
        PRESETS = {"half": {}}
        notation_class = HalfNotation

    with pytest.raises(TypeError, match="it lacks .*HalfNotation.parse_move, .*HalfNotation.render$"):
        engines.register_game(Half)

    class Drawn(TicTacToe):
        family = "drawn"
        PRESETS = {"drawn": {}}
        web_class = dict

    with pytest.raises(TypeError, match="Drawn.web_class must be a subclass of engines.WebBoard, not <class 'dict'>"):
        engines.register_game(Drawn)
    assert not {"bare", "half", "drawn"} & set(engines.available_games())


def test_arena_run_with_the_plugin_plays_on_two_worker_processes(tmp_path):
    out = tmp_path / "run"
    done = arena("run", "--game", "tictactoe", "--agents", "alphabeta:depth=9,random", "--games", "8",
                 "--concurrency", "2", "--plugin", PLUGIN, "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    assert "Games: 8 of 8 played" in done.stdout and "error in seat" not in done.stdout
    run = load_run(str(out))
    assert run.settings.plugins == (PLUGIN,)
    # Full-depth alpha-beta never loses tic-tac-toe.
    assert all(g.result == (1 if g.player0 == "alphabeta:depth=9" else -1) or g.result == 0 for g in run.games)
    assert all(run.game_record(g.id).replay().is_terminal() for g in run.games)


def test_spawned_workers_load_the_game_from_the_plugin(tmp_path, monkeypatch):
    import multiprocessing

    from board_arena.arena.tournament import pool

    monkeypatch.setattr(pool, "worker_context", lambda: multiprocessing.get_context("spawn"))
    settings = TournamentSettings.create("tictactoe", ["greedy", "random"], games=4, plugins=[PLUGIN])
    assert settings.plugins == (PLUGIN,)
    run = run_tournament(settings, str(tmp_path / "spawn"), concurrency=2, progress=False)
    assert len(run.games) == 4 and all(g.end_reason == "rules" and 5 <= g.plies <= 9 for g in run.games)


def test_a_plugin_loaded_from_python_that_brings_the_game_is_recorded_by_the_run():
    load_plugin(PLUGIN)
    assert TournamentSettings.create("tictactoe", ["greedy", "random"], games=2).plugins == (PLUGIN,)


def test_arena_list_and_play_with_the_plugin(tmp_path):
    done = arena("list", "--plugin", PLUGIN)
    assert done.returncode == 0, done.stderr
    assert "tictactoe" in done.stdout and "three in a row on a 3x3 board" in done.stdout
    record = tmp_path / "game.json"
    done = arena("play", "--game", "tictactoe", "--opponent", "alphabeta:depth=9", "--plugin", PLUGIN,
                 "--record", str(record), input="b2\n" + "moves\n1\n" * 5)
    assert done.returncode == 0, done.stderr
    assert any(v in done.stdout for v in ("You win!", "The agent wins.", "It's a draw.")), done.stdout
    assert engines.GameRecord.from_json(record.read_text()).replay().is_terminal()
    assert arena("list").stdout.count("tictactoe") == 0  # without the plugin a fresh process does not know it


def test_arena_serve_with_the_plugin_offers_the_game(tmp_path):
    process = subprocess.Popen([sys.executable, "-m", "board_arena.arena.cli", "serve", "--port", "0", "--no-browser",
                                "--plugin", PLUGIN, "--runs", str(tmp_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=ENV)
    try:
        line = process.stdout.readline()
        assert line.startswith("Serving board-arena on http://"), line + process.stderr.read()
        url = line.split(" on ")[1].split()[0]  # http://127.0.0.1:PORT/?token=T
        base, token = url.split("?token=")
        request = urllib.request.Request(base + "api/catalog", headers={"X-Arena-Token": token})
        with urllib.request.urlopen(request, timeout=60) as answer:
            catalog = json.load(answer)
        game = next(g for g in catalog["games"] if g["name"] == "tictactoe")
        assert game["drawing"] is None and game["family"] == "tictactoe"
    finally:
        process.terminate()
        process.wait(timeout=30)


def post(server: tuple[str, str], path: str, body: dict) -> tuple[int, dict]:
    base, token = server
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "X-Arena-Token": token})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


@pytest.fixture(scope="module")
def server_url():
    server = make_server(games=GameServer(runs_dir="no-such-runs-folder"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/", server.games.token  # every API request carries the token
    server.shutdown()
    server.server_close()


def test_a_game_through_the_http_interface_of_arena_serve(server_url):
    """Without a drawing of its own the page gets the text rendering, and a move is one click
    named as the move; an illegal one is refused with the engine's reason."""
    status, view = post(server_url, "api/games", {"game": "tictactoe", "seats": [None, "alphabeta:depth=9"], "seed": 1})
    assert status == 201 and "X to move" in view["text"]
    assert {m["name"]: m["clicks"] for m in view["moves"]}["b2"] == ["b2"]
    game = f"api/games/{view['id']}"
    status, view = post(server_url, f"{game}/move", {"clicks": ["b2"]})
    assert status == 200 and view["agent_to_move"] and view["board"]["rows"] == ["...", ".X.", "..."]
    status, view = post(server_url, f"{game}/agent", {})
    assert status == 200 and view["moves"]
    for body in ({"clicks": ["b2"]}, {"move": "b2"}):
        status, answer = post(server_url, f"{game}/move", body)
        assert (status, answer["error"]) == (422, "b2: b2 is marked already (X): mark an empty cell")
    while view["result"] is None:
        status, view = post(server_url, f"{game}/move", {"clicks": view["moves"][0]["clicks"]})
        assert status == 200, view
        if view["agent_to_move"]:
            status, view = post(server_url, f"{game}/agent", {})
    assert "The agent wins." in view["result"] or "Draw." in view["result"]
    with pytest.raises(urllib.error.HTTPError) as missing:  # a game without a drawing has none to serve
        urllib.request.urlopen(server_url[0] + "games/tictactoe.js", timeout=60)
    assert missing.value.code == 404


def test_every_agent_plays_it_or_refuses_it_in_one_line():
    game = engines.make("tictactoe")
    played = []
    for name in agents.available_agents():
        agent = agents.make_agent(name, seed=1)
        try:
            agent.check_game(game)
        except ValueError as error:
            assert "\n" not in str(error)
            continue
        final = agents.play_game(game, [agent, agents.make_agent("random", seed=2)], seed=0)
        assert final.is_terminal()
        played.append(name)
    assert {"random", "greedy", "minimax", "alphabeta", "mcts", "cheat"} <= set(played)
    assert "pimc" not in played and "td-kalah" not in played  # they refuse a game that hides nothing / not Kalah


def test_perfect_play_is_a_draw():
    state = engines.make("tictactoe").new_initial_state()
    solver = agents.make_agent("alphabeta:solve=true", seed=0)
    solver.select_move(state)
    assert solver.last_search.exact and solver.last_search.value == 0
    final = agents.play_game(state.game, [agents.make_agent("alphabeta:depth=9", seed=s) for s in (1, 2)], seed=0)
    assert final.outcome() == 0 and final.end_reason == "a full board"
    assert np.array_equal(state.legal_action_mask(), np.ones(9, bool))


def test_gymnasium_ids_of_a_game_registered_after_the_import(tmp_path):
    script = textwrap.dedent("""
        import gymnasium as gym
        import board_arena.envs.gymnasium_env
        assert "board-arena/tictactoe-v0" not in gym.registry
        import tests.games.tictactoe
        env = gym.make("board-arena/tictactoe-v0", opponent="random")
        obs, info = env.reset(seed=0)
        print(obs.shape, int(info["action_mask"].sum()))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT, env=ENV)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() in (["(2,", "3,", "3)", "9"], ["(2,", "3,", "3)", "8"])


def test_an_installed_package_brings_the_game_through_its_entry_point(tmp_path):
    """A distribution's entry points (here a dist-info folder on the path, as pip writes it) are
    loaded at the first lookup of a game; a broken one is a one-line warning, not a failure."""
    info = tmp_path / "tictactoe_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tictactoe-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[board_arena.games]\ntictactoe = tests.games.tictactoe:TicTacToe\nbroken = no_such_module_here\n"
    )
    script = "from board_arena import engines; print(engines.make('tictactoe').name)"
    env = {**ENV, "PYTHONPATH": os.pathsep.join([ROOT, str(tmp_path)])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "tictactoe"
    warning = [line for line in done.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(warning) == 1 and "'broken'" in warning[0] and "ModuleNotFoundError" in warning[0]
