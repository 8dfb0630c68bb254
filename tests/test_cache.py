"""numba's cache never runs stale code: every project kernel is stamped with the hash of all the
compiled sources, so editing a file recompiles the kernels that inline it from another file."""

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import engines._jit as jit
from engines.mancala import kernels as mancala_kernels

ROOT = Path(__file__).resolve().parent.parent

CALLEE = """
from engines._jit import kernel

@kernel
def value():
    return {value}
"""

CALLER = """
from engines._jit import kernel
from engines import probe_callee

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
    shutil.copytree(ROOT / "engines", tmp_path / "engines", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text("")
    (tmp_path / "agents" / "probe_caller.py").write_text(textwrap.dedent(CALLER))
    callee = tmp_path / "engines" / "probe_callee.py"

    def run():
        done = subprocess.run(
            [sys.executable, "-m", "agents.probe_caller"], cwd=tmp_path, capture_output=True, text=True, check=True
        )
        return done.stdout.split()

    callee.write_text(CALLEE.format(value=1))
    assert run() == ["11", "0"]  # compiled and cached
    assert run() == ["11", "1"]  # loaded from the cache
    callee.write_text(CALLEE.format(value=2))  # the caller's own file is unchanged
    assert run() == ["12", "0"]  # recompiled, not the stale 11
