"""Three kinds of player in one tournament: our ``mcts`` in process, our ``alphabeta`` behind
``arena engine`` in a process of its own, and the C reference engine (examples/ugi-kalah), both
over UGI: every game is stored, replays by our rules and is rated."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from board_arena.arena import load_run
from tests.support.cli import arena_cli

SOURCE = Path(__file__).resolve().parents[2] / "examples" / "ugi-kalah" / "kalah.c"


def test_mcts_an_arena_engine_and_the_c_engine_play_a_rated_tournament(tmp_path):
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) to build examples/ugi-kalah/kalah.c")
    binary = tmp_path / "kalah"
    subprocess.run([compiler, "-std=c99", "-O2", "-o", str(binary), str(SOURCE)], check=True, timeout=300)
    engines_file = tmp_path / "engines.toml"
    engines_file.write_text(
        f'[engines.ckalah]\ncommand = "{binary}"\n\n'
        f'[engines.ab-engine]\ncommand = "{sys.executable}"\n'
        'args = ["-m", "board_arena.arena.cli", "engine", "--game", "kalah", "--agent", "alphabeta"]\n'
        "ready_timeout = 120\n"
    )
    out = tmp_path / "run"
    status, printed, err = arena_cli("run", "--game", "kalah", "--agents", "mcts,ab-engine,ckalah", "--engines", str(engines_file),
                                     "--games", "2", "--move-time", "0.05", "--tc-margin", "2", "--out", str(out))
    assert status == 0, err
    run = load_run(str(out))  # every game verified as it is read
    assert len(run.games) == 6 and all(g.end_reason == "rules" for g in run.games), [g.end_reason for g in run.games]
    ratings = run.ratings()
    assert sorted(ratings.names) == ["ab-engine", "ckalah", "mcts"] and all(ratings.games[n] == 4 for n in ratings.names)
    status, verified, _ = arena_cli("verify", str(out))
    assert status == 0 and "All 6 stored games verified" in verified
