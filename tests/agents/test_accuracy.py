"""experiments/accuracy.py on a tiny configuration: positions from real games, moves judged by
their exact values (the perfect-play agent keeps every one), values cached, bad input one line."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from board_arena import engines
from board_arena.agents.solver import solve

ACCURACY_PY = Path(__file__).resolve().parents[2] / "experiments" / "accuracy.py"


def _accuracy_py():
    spec = importlib.util.spec_from_file_location("accuracy_py", ACCURACY_PY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_perfect_agent_keeps_every_value_and_random_loses_some(tmp_path, cache, capsys):
    module = _accuracy_py()
    out = tmp_path / "run"
    argv = ["--games", "kalah:pits=3,seeds=3,konane:size=4", "--agents", "random,solver", "--budgets", "1",
            "--positions", "6", "--out", str(out), "--table-mb", "4"]
    assert module.main(argv) == 0
    printed = capsys.readouterr().out
    assert "| make('konane', size=4) | solver | 1 | 6 | 100% (61-100) | 100% | 0.00 ± 0.00 |" in printed
    rows = json.loads((out / "accuracy.json").read_text())
    assert {(row["game"], row["agent"]) for row in rows} == {
        (game, agent) for game in ("make('kalah', pits=3, seeds=3)", "make('konane', size=4)") for agent in ("random", "solver")
    }
    for row in rows:
        assert row["moves"] == 6 and len(row["lost"]) == 6 and all(loss >= 0 for loss in row["lost"])
        assert row["kept"] >= sum(loss == 0 for loss in row["lost"])  # a move that keeps the margin keeps the result
        assert (row["budget"] is None) == (row["agent"] == "random")  # no time budget: judged once
        if row["agent"] == "solver":
            assert row["kept"] == 6 and row["lost"] == [0] * 6
    assert (out / "accuracy.md").read_text().count("\n") == 2 + len(rows)
    assert (out / "accuracy.png").stat().st_size > 0
    # The exact values are cached: a second run solves nothing again.
    assert module.main(argv) == 0
    assert printed.count("new exact solves") == 2 and capsys.readouterr().out.count(" 0 new exact solves") == 2


def test_positions_come_from_games_and_their_values_are_the_solvers(cache):
    module = _accuracy_py()
    game = engines.make("konane", size=4)
    positions = module.sample_positions(game, 5, seed=3)
    assert len(positions) == 5 and not any(state.is_terminal() for state in positions)
    assert [s.data.tobytes() for s in positions] == [s.data.tobytes() for s in module.sample_positions(game, 5, seed=3)]
    exact = module.ExactValues(game, table_mb=1)
    for state in positions:
        margins = exact.move_margins(state)
        assert set(margins) == {int(m) for m in state.legal_moves()}
        sign = 1 if state.current_player == 0 else -1
        assert max(sign * m for m in margins.values()) == sign * solve(state, table_mb=1).margin


@pytest.mark.parametrize("argv,words", [
    (["--positions", "1"], "--positions must be at least 2, not 1"),
    (["--budgets", "0.1,x"], "--budgets takes seconds separated by commas"),
    (["--budgets", "0"], "--budgets must be seconds in (0, 60]"),
    (["--table-mb", "0"], "--table-mb must be more than 0"),
    (["--games", "nosuch"], "unknown game 'nosuch'"),
    (["--games", "dominoes"], "dominoes hides information"),
    (["--games", "kalah:pits"], "is not key=value"),
    (["--agents", "random,nosuch"], "nosuch"),
])
def test_every_bad_input_is_one_line_and_status_2(argv, words, capsys, tmp_path, cache):
    assert _accuracy_py().main(argv + ["--out", str(tmp_path / "run")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and err.count(words) == 1 and not (tmp_path / "run").exists()
