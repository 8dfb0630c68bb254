"""Agent plugins (``--plugin``, agents.plugins): a plugin file plays a tournament on forked and
spawned workers and in ``arena play``, an installed package brings its agent through its entry
point, a plugin file is kept by its absolute path, a plugin loaded from Python is recorded by the
run that uses its agent, plugins that cannot be loaded are one-line errors; and the OpenSpiel MCTS
adapter of experiments/plugins plays whole games."""

import os
import subprocess
import sys

import pytest

from board_arena import agents, engines
from board_arena.arena import TournamentSettings, run_tournament
from board_arena.arena.cli import main

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCORE_GREEDY = os.path.join(ROOT, "experiments", "plugins", "score_greedy.py")
OPENSPIEL_ADAPTER = os.path.join(ROOT, "experiments", "plugins", "openspiel_mcts.py")
TINY = "kalah:pits=3,seeds=2"


# Each test's plugins leave the registry as it was (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("forget_plugins")


def test_a_pure_python_plugin_agent_plays_a_tournament_on_two_workers_and_play_game(tmp_path, capsys):
    out = str(tmp_path / "plugin")
    code = main(["run", "--game", TINY, "--agents", "score-greedy,random", "--plugin", SCORE_GREEDY,
                 "--games", "6", "--concurrency", "2", "--out", out, "--quiet"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "Games: 6 of 6 played" in printed.out and "error in seat" not in printed.out
    assert "score-greedy" in agents.available_agents()
    final = agents.play_game(engines.make("kalah", pits=3, seeds=2), [agents.make_agent("score-greedy", seed=1), agents.make_agent("random", seed=2)], seed=0)
    assert final.is_terminal()


def test_spawned_workers_load_the_plugins_too(tmp_path, monkeypatch):
    import multiprocessing

    from board_arena.arena.tournament import pool

    monkeypatch.setattr(pool, "worker_context", lambda: multiprocessing.get_context("spawn"))
    settings = TournamentSettings.create(TINY, ["score-greedy", "random"], games=4, plugins=[SCORE_GREEDY])
    run = run_tournament(settings, str(tmp_path / "spawn"), concurrency=2, progress=False)
    assert len(run.games) == 4 and all(g.end_reason == "rules" for g in run.games)


def test_arena_play_against_a_plugin_agent(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "board_arena.arena.cli", "play", "--game", TINY, "--opponent", "score-greedy", "--plugin", SCORE_GREEDY,
         "--first", "agent", "--record", str(tmp_path / "g.json")],
        input="moves\n1\n" * 20,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert any(v in done.stdout for v in ("You win!", "The agent wins.", "It's a draw."))


def test_a_plugin_that_fails_on_import_is_a_one_line_error(tmp_path, capsys):
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('no licence key')\n")
    assert main(["list", "--plugin", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "RuntimeError: no licence key" in err and len(err.strip().splitlines()) == 1


def test_an_installed_package_brings_its_agent_through_its_entry_point_when_first_named(tmp_path):
    """A distribution's ``board_arena.agents`` entry points (a dist-info folder on the path, as pip
    writes it) are loaded at the first agent name not built in, and only then: built-in agents
    and games never scan the installed packages. The agent plays a run on worker processes."""
    info = tmp_path / "faulty_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: faulty-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[board_arena.agents]\nfaulty = tests.plugins.faulty_agents:FaultyAgent\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, str(tmp_path)])}
    script = (  # the entry-point groups of this package that are read, in order
        "import importlib.metadata as metadata\n"
        "read, entry_points = [], metadata.entry_points\n"
        "def reading(**selection):\n"
        "    if str(selection.get('group')).startswith('board_arena'):\n"
        "        read.append(selection['group'])\n"
        "    return entry_points(**selection)\n"
        "metadata.entry_points = reading\n"
        "from board_arena import agents, engines\n"
        "agents.make_agent('random'); engines.make('kalah')\n"
        "print(read)\n"
        "print(agents.make_agent('faulty').name, read)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "faulty ['board_arena.agents']"]
    run = subprocess.run(
        [sys.executable, "-m", "board_arena.arena.cli", "run", "--game", TINY, "--agents", "faulty:after=1000,random",
         "--games", "2", "--concurrency", "2", "--out", str(tmp_path / "run"), "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env=env,
    )
    assert run.returncode == 0, run.stderr
    assert "Games: 2 of 2 played" in run.stdout


def test_a_plugin_file_is_kept_by_its_absolute_path(tmp_path, monkeypatch):
    """Named relative to one folder, the run resumes from another, and the same file named by
    its absolute path is the same run."""
    monkeypatch.chdir(os.path.dirname(SCORE_GREEDY))
    relative = TournamentSettings.create(TINY, ["score-greedy", "random"], games=2, plugins=["score_greedy.py"])
    monkeypatch.chdir(tmp_path)
    absolute = TournamentSettings.create(TINY, ["score-greedy", "random"], games=2, plugins=[SCORE_GREEDY])
    assert relative.plugins == absolute.plugins == (SCORE_GREEDY,) and not relative.differences(absolute)


def test_a_plugin_loaded_from_python_is_recorded_by_the_run_that_uses_its_agent():
    from board_arena.agents.plugins import load_plugin

    load_plugin(SCORE_GREEDY)
    uses = TournamentSettings.create(TINY, ["score-greedy", "random"], games=2)
    assert uses.plugins == (SCORE_GREEDY,)
    assert TournamentSettings.create(TINY, ["greedy", "random"], games=2).plugins == ()


def test_a_plugin_whose_own_import_is_missing_names_that_import(tmp_path, monkeypatch, capsys):
    # (the missing module's name begins the plugin's, as torch begins torch_agent)
    (tmp_path / "missingdep_agent.py").write_text("import missingdep\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["list", "--plugin", "missingdep_agent"]) == 2
    err = capsys.readouterr().err
    assert "No module named 'missingdep'" in err and "no such module" not in err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--plugin", "no/such/plugin.py"], "no such file"),
        (["--plugin", "no_such_plugin_module"], "no such module"),
    ],
)
def test_bad_plugin_options_are_one_line_errors(extra, message, tmp_path, capsys):
    code = main(["run", "--game", TINY, "--agents", "greedy,random", "--games", "2", "--out", str(tmp_path / "r"), "--quiet"] + extra)
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


# -- the OpenSpiel adapter -------------------------------------------------------------------------


@pytest.mark.parametrize("game_name", ["kalah", "nine-mens-morris"])
def test_the_openspiel_mcts_adapter_plays_whole_games(game_name):
    pytest.importorskip("pyspiel")
    from board_arena.agents.plugins import load_plugin

    load_plugin(OPENSPIEL_ADAPTER)
    game = engines.make(game_name)
    for seed in range(2):
        players = [agents.make_agent("openspiel-mcts:simulations=50", seed=seed), agents.make_agent("random", seed=seed)]
        if seed:
            players.reverse()
        final = agents.play_game(game, players, seed=seed)  # every move's replay checks the legal moves
        assert final.is_terminal()
    with pytest.raises(ValueError, match="plays kalah"):
        agents.make_agent("openspiel-mcts").check_game(engines.make("konane"))
