"""The built wheel installs beside other AI-agent libraries: it holds one top-level package,
``board_arena``, so that it never overwrites another distribution's files (the OpenAI Agents SDK
installs a top-level ``agents`` package, which a top-level package of board-arena's agents would
overwrite).

The test builds the wheel, installs the SDK and then the wheel into one fresh virtual environment
(which sees this environment's numpy, numba and the rest, so nothing heavy is downloaded), and
checks that the SDK still imports and that the ``arena`` command of the wheel plays a tournament.
It needs the package index (PyPI) for the SDK and the build backend.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a system test (an installation into a fresh environment): python -m pytest -m "not slow" leaves it out

ROOT = Path(__file__).resolve().parents[2]
SDK_CHECK = "from agents import Agent, Runner; import agents; print(agents.__file__)"


def _run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, **kwargs)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_the_wheel_installs_beside_the_openai_agents_sdk_and_both_work(tmp_path):
    # Nothing of the checkout may leak into the new environment (helpers and CI may set these).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "NUMBA_CACHE_DIR")}
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)], env=env)
    (wheel,) = dist.glob("board_arena-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        top_level = {name.split("/")[0] for name in archive.namelist()}
    assert {name for name in top_level if not name.endswith(".dist-info")} == {"board_arena"}
    assert "board_arena/py.typed" in archive.namelist()
    # The data beside the modules that read it: Mancala's learned weights, each game's drawing.
    assert "board_arena/engines/mancala/td_kalah.json" in archive.namelist()
    assert {f"board_arena/engines/{game}/web.js" for game in ("mancala", "morabaraba", "konane", "dominoes")} <= set(archive.namelist())

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], env=env)
    python, arena = venv / "bin" / "python", venv / "bin" / "arena"
    site = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env).stdout.strip()
    # The SDK first, as a user who has it already; then board-arena's wheel on top of it.
    _run([str(python), "-m", "pip", "install", "-q", "openai-agents"], env=env)
    _run([str(python), "-m", "pip", "install", "-q", str(wheel)], env=env)

    where = _run([str(python), "-c", SDK_CHECK], env=env, cwd=tmp_path).stdout.strip()
    assert where.startswith(site), f"the SDK's agents package comes from {where}, not the new environment"
    ours = _run([str(python), "-c", "import board_arena; print(board_arena.__file__)"], env=env, cwd=tmp_path)
    assert ours.stdout.strip().startswith(site), "board_arena must come from the wheel, not the checkout"

    run = _run(
        [str(arena), "run", "--game", "kalah:pits=3,seeds=2", "--agents", "random,greedy", "--games", "4",
         "--concurrency", "1", "--seed", "1", "--out", str(tmp_path / "run")],
        env=env, cwd=tmp_path,
    )
    assert "Rank" in run.stdout and "greedy" in run.stdout
    assert (tmp_path / "run" / "results.sqlite").is_file()
    # Still intact after board-arena ran.
    _run([str(python), "-c", SDK_CHECK], env=env, cwd=tmp_path)
