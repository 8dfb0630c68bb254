"""Every registered game passes the conformance suite (``board_arena.engines.conformance``,
shipped for the authors of game plugins): one test over every preset, so a game added to the
registry cannot skip it; a broken game fails with its failures named; the checker runs from a
plain checkout with nothing installed; and the contract refuses what would confuse its dispatch."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import llvmlite
import numba
import numpy as np
import pytest

from board_arena import engines
from board_arena.engines import VariantError, conformance, contract
from board_arena.engines.conformance import (
    CHECKS,
    check_game,
    check_random_moves,
    check_variant,
)
from tests.games.tictactoe import TicTacToe, TicTacToeNotation

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", engines.available_games())
def test_every_registered_game_passes_conformance(name):
    assert check_game(name, {}) == []


@pytest.mark.parametrize("name", engines.available_games())
def test_random_moves_are_exactly_uniform_and_reproducible(name):
    check_random_moves(engines.make(name))


def test_check_game_checks_every_preset_or_the_one_variant_asked_for(monkeypatch):
    checked = []
    monkeypatch.setattr(conformance, "check_variant", lambda game, quick: checked.append((repr(game), quick)) or [])
    assert check_game("konane-classic") == []
    assert checked == [("make('konane')", False), ("make('konane-classic')", False)]
    checked.clear()
    assert check_game("konane-classic", {"size": 4}, quick=True) == []
    assert checked == [("make('konane-classic', size=4)", True)]


def test_a_game_or_parameter_that_does_not_exist_is_one_line():
    with pytest.raises(VariantError, match="unknown game 'chess'; available: mancala, kalah"):
        check_game("chess")
    with pytest.raises(VariantError, match="kalah has no parameter 'pitz'; parameters: pits"):
        check_game("kalah", {"pitz": 4})


class MisspeltNotation(TicTacToeNotation):
    """Writes the cells' columns backwards (c for a), and reads them as written: no move parses
    back to itself but the middle column's."""

    def format_move(self, state, move):
        return "cba"[move % 3] + str(move // 3 + 1)


class MisspeltTicTacToe(TicTacToe):
    notation_class = MisspeltNotation


def test_a_notation_that_does_not_round_trip_fails_with_the_check_named():
    failures = check_variant(MisspeltTicTacToe("tictactoe"), quick=True)
    named = {failure.split(": ")[1] for failure in failures}
    assert "notation" in named and named <= set(CHECKS), failures
    assert all(failure.startswith("tictactoe: ") and "\n" not in failure for failure in failures)
    notation = next(f for f in failures if f.startswith("tictactoe: notation: "))
    assert "parses back to" in notation and "(seed 0, ply 0)" in notation, notation


# A copy of tic-tac-toe (its own state type, as the contract requires) whose is_terminal never says
# the game is over: its last positions have no legal move although they are not over.
NEVER_OVER = {
    "kernels.py": """
        import numpy as np

        from board_arena.engines.contract import state_dtype
        from board_arena.kernels import kernel
        from tests.games.tictactoe.kernels import *  # noqa: F403  (the rest of the rules)
        from tests.games.tictactoe.kernels import STATE_DTYPE as _TICTACTOE

        STATE_DTYPE = state_dtype([*_TICTACTOE.descr[:-1], ("never_over", np.int8)])


        @kernel(inline="always")
        def is_terminal(s):
            return False
        """,
    "__init__.py": """
        from board_arena.engines import register_game
        from tests.games.tictactoe import TicTacToe

        from . import kernels


        @register_game
        class NeverOver(TicTacToe):
            family = "never-over"
            PRESETS = {"never-over": {}}
            kernels = kernels
        """,
}

CHECK_THE_PLUGIN = """
import json, sys
from board_arena.agents.plugins import load_plugin
from board_arena.engines.conformance import check_game
load_plugin(sys.argv[1])
print(json.dumps(check_game("never-over", quick=True)))
"""


def test_a_game_whose_is_terminal_is_wrong_fails_with_the_check_named(tmp_path):
    plugin = tmp_path / "never_over"
    plugin.mkdir()
    for name, source in NEVER_OVER.items():
        (plugin / name).write_text(textwrap.dedent(source))
    # In pure Python: a game registered in a process of the suite would stay registered, and its
    # kernels would enter the suite's cache of compiled code.
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", CHECK_THE_PLUGIN, str(plugin)], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    failures = json.loads(done.stdout.splitlines()[-1])
    assert failures and all(failure.startswith("never-over: ") for failure in failures), failures
    legal = next(f for f in failures if f.startswith("never-over: legal-moves: "))
    assert "a state that is not terminal has no legal move" in legal, failures


def test_every_registered_kernel_module_belongs_to_a_game_of_the_registry():
    # A kernel module registered with the contract but reachable through no preset would escape
    # the test above.
    families = {family.kernels for family in engines.game_classes()}
    assert set(contract.registered_modules()) == families
    assert {engines.game_class(name).kernels for name in engines.available_games()} == families


def test_a_second_game_with_the_same_state_type_is_refused():
    class Impostor:
        __name__ = "impostor.kernels"

    mancala = engines.make("kalah").kernels
    for name in contract.REQUIRED_MEMBERS:
        setattr(Impostor, name, getattr(mancala, name))
    with pytest.raises(TypeError, match="is the state type of board_arena.engines.mancala.kernels already"):
        contract.register(Impostor)
    contract.register(mancala)  # registering a game again is harmless
    assert contract.kernels_for(np.dtype(mancala.STATE_DTYPE)) is mancala


NOT_INSTALLED = """
import importlib.util, sys
assert importlib.util.find_spec("board_arena") is None, "board_arena is installed here"
sys.path.insert(0, sys.argv[1])  # what pytest does for a checkout's tests
from board_arena.engines.conformance import kernel_digest, pure_python_digest
game = ("kalah", {"pits": 2, "seeds": 2}, [0, 1])
print(kernel_digest(*game) == pure_python_digest(*game))
"""


def test_the_compiled_versus_pure_python_check_runs_from_a_checkout_with_nothing_installed(tmp_path):
    # A Python whose site-packages hold numba and numpy but not board_arena (a fresh venv that
    # sees only those packages): the checkout is importable only through the path the caller
    # set, which the pure-Python subprocess must be given too.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[-1])"], capture_output=True, text=True, check=True)
    deps = tmp_path / "deps"
    deps.mkdir()
    for module in (np, numba, llvmlite):
        folder = Path(module.__file__).parent
        for path in folder.parent.glob(folder.name + "*"):  # the package, its .libs and .dist-info
            (deps / path.name).symlink_to(path)
    (Path(site.stdout.strip()) / "deps.pth").write_text(str(deps))
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([python, "-c", NOT_INSTALLED, str(ROOT)], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]
