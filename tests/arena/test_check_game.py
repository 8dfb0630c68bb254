"""``arena check-game``: the conformance suite as a command, for a game plugin's author: status 0
for a game that keeps the contract, 1 with each failure named by its check, 2 for a bad use."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from board_arena.arena.cli import main
from board_arena.arena.cli.check_game import EXIT_NONCONFORMING

ROOT = Path(__file__).resolve().parents[2]
TICTACTOE = ROOT / "tests" / "games" / "tictactoe"


def test_a_built_in_game_and_a_plugin_game_conform(capsys):
    assert main(["check-game", "kalah:pits=3,seeds=2", "--quick"]) == 0
    assert main(["check-game", "tictactoe", "--plugin", str(TICTACTOE)]) == 0
    assert capsys.readouterr().out.splitlines() == ["make('kalah', pits=3, seeds=2): conforms", "tictactoe: conforms"]


def broken_tictactoe(folder: Path, old: str, new: str) -> Path:
    """A copy of tic-tac-toe with one line of its kernels changed."""
    copy = folder / "tictactoe"
    shutil.copytree(TICTACTOE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    kernels = copy / "kernels.py"
    source = kernels.read_text()
    assert source.count(old) == 1
    kernels.write_text(source.replace(old, new))
    return copy


def check_in_own_process(plugin: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    # A cache folder of its own: the broken copy's state type is tic-tac-toe's, which would make
    # the shared folder forget every kernel compiled for it.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "board_arena.arena.cli", "check-game", "tictactoe", "--plugin", str(plugin), "--quick"],
                          capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.parametrize("old, new, checks", [
    # Marking an occupied cell: illegal_reason accepts it, legal_moves does not list it.
    ("        return REASON_OCCUPIED\n", "        return LEGAL\n", ["illegal-moves", "illegal-reasons"]),
    ("    return v / (abs(v) + 4.0)\n", "    return v\n", ["heuristic"]),
], ids=["occupied-cell-accepted", "heuristic-out-of-range"])
def test_a_broken_copy_fails_with_the_checks_that_found_it(tmp_path, old, new, checks):
    done = check_in_own_process(broken_tictactoe(tmp_path, old, new), tmp_path)
    assert done.returncode == EXIT_NONCONFORMING, done.stderr
    *failures, summary = done.stdout.splitlines()
    assert summary == "1 of 1 variants of tictactoe fail the conformance checks"
    assert [line.split(": ")[1] for line in failures] == checks, failures
    assert all(line.startswith("tictactoe: ") and line.endswith(")") for line in failures)  # where: seed and ply


def test_an_unknown_game_is_one_line(capsys):
    assert main(["check-game", "tictac"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown game 'tictac'" in err and "tictactoe" in err
