"""numba's cache never runs stale code: every project kernel is stamped with the hash of all the
compiled sources, so editing a file recompiles the kernels that inline it from another file."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import board_arena.engines._jit as jit
from board_arena.engines.mancala import kernels as mancala_kernels

ROOT = Path(__file__).resolve().parent.parent

CALLEE = """
from board_arena.engines._jit import kernel

@kernel
def value():
    return {value}
"""

CALLER = """
from board_arena.engines._jit import kernel
from board_arena.engines import probe_callee

@kernel
def caller():
    return probe_callee.value() + 10

print(caller(), caller.stats.cache_hits.get((), 0) if hasattr(caller, "stats") else "")
"""


def test_project_kernels_are_stamped_with_the_whole_source_tree():
    locator = mancala_kernels.legal_moves._cache._impl.locator
    assert type(locator).__name__.startswith("_Project")
    assert locator.get_source_stamp()[0] == jit.SOURCE_HASH


def test_an_edit_in_another_file_recompiles_the_kernels_that_use_it(tmp_path):
    package = tmp_path / "board_arena"
    shutil.copytree(ROOT / "board_arena", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "agents" / "probe_caller.py").write_text(textwrap.dedent(CALLER))
    callee = package / "engines" / "probe_callee.py"

    def run():
        done = subprocess.run(
            [sys.executable, "-m", "board_arena.agents.probe_caller"], cwd=tmp_path, capture_output=True, text=True, check=True
        )
        return done.stdout.split()

    callee.write_text(CALLEE.format(value=1))
    assert run() == ["11", "0"]  # compiled and cached
    assert run() == ["11", "1"]  # loaded from the cache
    callee.write_text(CALLEE.format(value=2))  # the caller's own file is unchanged
    assert run() == ["12", "0"]  # recompiled, not the stale 11


PROBE = """
import numpy as np
from board_arena import engines
from board_arena.engines.mancala import kernels

state = engines.make("kalah").new_initial_state()
moves = np.empty(kernels.MAX_MOVES, np.int64)
print(kernels.legal_moves(state.data, moves), sum(kernels.legal_moves.stats.cache_hits.values()))
"""


def test_only_compiled_sources_are_stamped_so_an_edit_of_the_python_face_recompiles_nothing(tmp_path):
    package = tmp_path / "board_arena"
    shutil.copytree(ROOT / "board_arena", package, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "probe.py").write_text(PROBE)

    def run():
        done = subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, capture_output=True, text=True, check=True)
        return done.stdout.split()

    assert run() == ["6", "0"]  # compiled
    assert run() == ["6", "1"]  # cached
    with open(package / "engines" / "game.py", "a") as face:
        face.write("\n# an edit of the Python face\n")
    assert run() == ["6", "1"]  # still cached: game.py defines no compiled code
    with open(package / "engines" / "morabaraba" / "board.py", "a") as tables:
        tables.write("\n# an edit of tables that kernels read\n")
    assert run() == ["6", "0"]  # recompiled: board.py is imported by a kernel module
    sources = {p.relative_to(ROOT).as_posix() for p in jit.compiled_sources(jit._COMPILED_ROOTS)}
    engines = "board_arena/engines/"
    assert {engines + f for f in ("mancala/kernels.py", "contract.py", "_jit.py", "morabaraba/board.py")} <= sources
    assert not {engines + f for f in ("game.py", "registry.py", "mancala/__init__.py")} & sources


def test_without_a_writable_cache_folder_everything_runs_uncached_after_one_warning(tmp_path):
    # A file where a folder should be: no cache folder can be made there, even by root.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(blocker / "numba"), XDG_CACHE_HOME=str(blocker / "xdg"))
    script = "from board_arena import agents, engines; print(engines.make('kalah').new_initial_state().legal_moves())"
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, 1, 2, 3, 4, 5]"
    assert done.stderr.count("no writable folder for numba's cache") == 1
    assert "Traceback" not in done.stderr
