"""The package works on both ends of the numba range it declares: the newest is what the test
environment installs (and every other test runs on it); the oldest is installed here into a fresh
virtual environment (with the numpy that numba release supports), where the package compiles and
caches its kernels and plays a tournament, and every game's random playouts and an agent of each
kind run. It needs the package index (PyPI)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numba
import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

pytestmark = pytest.mark.slow  # a system test (an installation into a fresh environment)

ROOT = Path(__file__).resolve().parents[2]

PLAY_EVERY_GAME = """
from board_arena import agents, engines
from board_arena.engines import contract
from board_arena.kernels import rng_from_seed

for name in engines.available_games():
    state = engines.make(name).new_initial_state(seed=1)
    plies = contract.random_playouts(state.data, 3, rng_from_seed(1))
    spec = "ismcts:iterations=50" if name.startswith("dominoes") else "alphabeta:depth=2"
    move = agents.make_agent(spec, seed=1).select_move(state)
    assert plies > 0 and move in state.legal_moves(), name
print("every game plays")
"""


def numba_range() -> SpecifierSet:
    (declared,) = re.findall(r'^\s*"numba([^"]*)",', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)
    return SpecifierSet(declared)


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=1200, **kwargs)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_the_declared_range_is_closed_and_holds_the_installed_numba():
    declared = numba_range()
    assert any(s.operator == ">=" for s in declared) and any(s.operator == "<" for s in declared), declared
    assert Version(numba.__version__) in declared


def test_the_oldest_numba_declared_compiles_caches_and_plays(tmp_path):
    (oldest,) = [s.version for s in numba_range() if s.operator == ">="]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "NUMBA_CACHE_DIR")}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env=env)
    python, arena = venv / "bin" / "python", venv / "bin" / "arena"
    _run([str(python), "-m", "pip", "install", "-q", f"numba=={oldest}", str(ROOT)], env=env)
    version = _run([str(python), "-c", "import numba; print(numba.__version__)"], env=env, cwd=tmp_path).stdout.strip()
    assert Version(version) == Version(oldest)

    command = [str(arena), "run", "--game", "kalah", "--agents", "mcts,alphabeta", "--games", "2", "--seed", "1",
               "--out", str(tmp_path / "run")]
    first = _run(command, env=env, cwd=tmp_path)
    assert "Rank" in first.stdout and "compiling" in first.stderr
    again = _run([*command[:-2], "--out", str(tmp_path / "again")], env=env, cwd=tmp_path)
    assert "compiling" not in again.stderr, "the second run finds its kernels in the cache"
    assert _run([str(python), "-c", PLAY_EVERY_GAME], env=env, cwd=tmp_path).stdout.strip() == "every game plays"
