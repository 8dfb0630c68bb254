"""Every registered game passes the conformance checker: one test over every preset, so a game
added to the registry cannot skip it; the checker runs from a plain checkout with nothing
installed; and the contract refuses what would confuse its dispatch."""

import os
import subprocess
import sys
from pathlib import Path

import llvmlite
import numba
import numpy as np
import pytest

from board_arena import engines
from board_arena.engines import contract
from tests.conformance import check_conformance, check_random_moves

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", engines.available_games())
def test_every_registered_game_passes_conformance(name):
    game = engines.make(name)
    for final in check_conformance(game, games=5):
        reason = final.end_reason
        assert isinstance(reason, str) and reason and "\n" not in reason
    assert game.new_initial_state(seed=0).end_reason is None


@pytest.mark.parametrize("name", engines.available_games())
def test_random_moves_are_exactly_uniform_and_reproducible(name):
    check_random_moves(engines.make(name))


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
from tests.conformance import kernel_digest, pure_python_digest
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
