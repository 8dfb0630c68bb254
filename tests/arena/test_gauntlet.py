"""experiments/gauntlet.py on a tiny configuration: our agents against OpenSpiel's MCTS (the
plugin) with reproducible budgets, the table and its figures, a resumed run, bad input one line."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from board_arena import arena
from board_arena.agents.solver import solve

GAUNTLET_PY = Path(__file__).resolve().parents[2] / "experiments" / "gauntlet.py"

# The script loads the OpenSpiel plugin into this process: the registry is restored after each test.
pytestmark = pytest.mark.usefixtures("forget_plugins")


def _gauntlet_py():
    spec = importlib.util.spec_from_file_location("gauntlet_py", GAUNTLET_PY)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


def test_a_tiny_gauntlet_plays_reports_and_resumes(tmp_path, capsys):
    pytest.importorskip("pyspiel")
    module = _gauntlet_py()
    out = tmp_path / "runs"
    argv = ["--game", "kalah", "--agents", "alphabeta:depth=3,mcts:iterations=200", "--opponent",
            "openspiel-mcts:simulations=40", "--times", "none", "--games", "4", "--out", str(out), "--quiet"]
    assert module.main(argv) == 0
    first = capsys.readouterr().out
    run = arena.load_run(str(out / "kalah-budgets"))
    assert len(run.games) == 8 and run.settings.gauntlet and run.settings.openings.random_plies == 4
    table = (out / "kalah.md").read_text()
    assert table == first.strip() + "\n"
    lines = [line for line in table.splitlines() if line.startswith("| alphabeta") or line.startswith("| mcts")]
    assert [line.split(" | ")[0] for line in lines] == ["| alphabeta:depth=3", "| mcts:iterations=200"]
    for line, label in zip(lines, ["alphabeta:depth=3", "mcts:iterations=200"]):
        cells = line.strip("| ").split(" | ")
        wins, draws, losses = (int(n) for n in cells[4].split("-"))
        games = [g for g in run.games if label in (g.player0, g.player1)]
        points = sum(g.score_for(0 if g.player0 == label else 1) for g in games)
        assert wins + draws + losses == int(cells[5]) == len(games) == 4
        assert cells[2] == f"{100 * points / 4:.1f}%" == f"{100 * (wins + draws / 2) / 4:.1f}%"
        low, high = (float(x.strip("[]%")) for x in cells[3].split(", "))
        assert low <= 100 * points / 4 <= high
        assert cells[1] == "own budget" and cells[7].endswith("%")  # the processor share, at concurrency 1
    meter = json.loads((out / "kalah-budgets" / module.METER_FILE).read_text())
    assert len(meter["loads"]) == 8 and meter["cpu_seconds"] > 0 and meter["wall_seconds"] > 0

    # The same command resumes: no game is played again, so the table and its measured figures
    # stay as they were.
    assert module.main(argv) == 0
    assert capsys.readouterr().out == first
    assert len(arena.load_run(str(out / "kalah-budgets")).games) == 8


def test_scores_split_by_the_exact_value_of_each_opening(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path / "cache"))  # the endgame database it builds
    module = _gauntlet_py()
    out = tmp_path / "runs"
    argv = ["--game", "kalah:pits=3,seeds=3", "--agents", "alphabeta:depth=2", "--opponent", "mcts:iterations=50",
            "--times", "none", "--games", "6", "--out", str(out), "--quiet", "--opening-values", "--table-mb", "4"]
    assert module.main(argv) == 0
    printed = capsys.readouterr().out
    run = arena.load_run(str(out / "kalah-pits-3-seeds-3-budgets"))
    values = json.loads((out / "opening-values.json").read_text())
    assert len(values) == 3  # one opening per pair
    game = run.settings.make_game()
    split = {"won": [0.0, 0], "drawn": [0.0, 0], "lost": [0.0, 0], "undecided": [0.0, 0]}
    for g in run.games:
        opening = " ".join(g.moves[:4])
        state = game.new_initial_state(g.game_seed)
        for move in g.moves[:4]:
            state.apply(move)
        margin = solve(state, table_mb=4).margin
        assert values[f"{game!r} {opening}"] == [margin, margin]  # these tiny ones are solved
        seat = 0 if g.player0 == "alphabeta:depth=2" else 1
        ours = margin * (1 if seat == 0 else -1)
        kind = "won" if ours > 0 else "lost" if ours < 0 else "drawn"
        split[kind][0] += g.score_for(seat)
        split[kind][1] += 1
    # A seat-swapped pair gives each side of a decisive opening once.
    assert split["won"][1] == split["lost"][1]
    cells = [f"{100 * p / n:.0f}% ({p:g} / {n})" if n else "-" for p, n in split.values()]
    assert "| alphabeta:depth=2 | own budget | " + " | ".join(cells) + " |" in printed


def test_a_balanced_openings_file_and_its_values_serve_the_gauntlet(tmp_path, monkeypatch, capsys):
    """The openings that experiments/balanced_openings.py writes, played from its file, and their
    values read from its cache (--values): nothing solved again, every opening drawn or balanced."""
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path / "cache"))
    spec = importlib.util.spec_from_file_location("balanced_openings_py", GAUNTLET_PY.parent / "balanced_openings.py")
    balanced = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = balanced
    spec.loader.exec_module(balanced)
    book, values = tmp_path / "balanced.txt", tmp_path / "values.json"
    assert balanced.main(["--game", "kalah:pits=3,seeds=3", "--count", "2", "--bound", "0", "--out", str(book),
                          "--values", str(values), "--table-mb", "4"]) == 0
    module = _gauntlet_py()
    monkeypatch.setattr("board_arena.agents.solver.solve", lambda *a, **k: pytest.fail("solved an opening again"))
    out = tmp_path / "runs"
    argv = ["--game", "kalah:pits=3,seeds=3", "--agents", "alphabeta:depth=2", "--opponent", "mcts:iterations=50",
            "--times", "none", "--games", "4", "--out", str(out), "--quiet", "--opening-values",
            "--openings", str(book), "--values", str(values)]
    assert module.main(argv) == 0
    # The openings name the run folder and the table, beside the default openings' runs.
    run = arena.load_run(str(out / "kalah-pits-3-seeds-3-budgets-balanced"))
    assert (out / "kalah-pits-3-seeds-3-balanced.md").is_file()
    assert [" ".join(g.moves[:4]) for g in run.games[::2]] == [line for line in book.read_text().splitlines()
                                                              if not line.startswith("#")]
    assert not (out / "opening-values.json").exists()
    # Bound 0: every game's opening is drawn under perfect play.
    assert re.search(r"\| alphabeta:depth=2 \| own budget \| - \| \d+% \([\d.]+ / 4\) \| - \| - \|", capsys.readouterr().out)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--times", "0.1,fast"], "--times takes seconds"),
        (["--times", "0.1,0.2", "--games", "10,20,30"], "--games gives 3 numbers for 2 times"),
        (["--agents", "nosuchagent"], "nosuchagent"),
        (["--game", "nosuchgame"], "nosuchgame"),
        (["--concurrency", "0"], "--concurrency must be at least 1"),
    ],
)
def test_bad_arguments_are_one_line(argv, message, capsys):
    module = _gauntlet_py()
    assert module.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1  # one line: no traceback, no usage block


def test_the_adapter_replays_only_the_moves_since_its_last_position():
    """The OpenSpiel adapter keeps the last position it replayed: a game it continues is replayed
    from there, anything else (another start, a take-back, another game) from the start, and each
    gives the position a fresh adapter replays from the start."""
    pytest.importorskip("pyspiel")
    from board_arena import agents, engines
    from board_arena.agents.plugins import load_plugin

    load_plugin(str(GAUNTLET_PY.parent / "plugins" / "openspiel_mcts.py"))
    kept = agents.make_agent("openspiel-mcts:simulations=20", seed=1)
    for name in ("kalah", "nine-mens-morris"):
        game = engines.make(name)
        kept.check_game(game)
        for seed in (3, 4):
            state = game.new_initial_state(seed)
            positions = []
            while not state.is_terminal() and state.ply < 24:
                positions.append(state.copy())
                state.apply(kept.select_move(state))
            for position in positions[-1:] + positions[:1] + positions[5:6]:  # later, back to the start, on again
                fresh = agents.make_agent("openspiel-mcts:simulations=20", seed=1)
                assert str(kept._replay(position)[0]) == str(fresh._replay(position)[0])
                assert kept._last[2] == tuple(position.history)


def test_the_adapter_survives_a_clock_that_runs_out_before_the_root_has_children():
    """OpenSpiel's MCTSBot.step crashes the process when its clock runs out before its root has
    children (a loaded machine can take a short budget between two simulations): with a clock of
    a microsecond, the adapter must still answer every decision, the morris shot's too. Run in a
    process of its own, so that a regression fails this test rather than killing the suite."""
    pytest.importorskip("pyspiel")
    script = f"""
from board_arena import agents, engines
from board_arena.agents.plugins import load_plugin
module = load_plugin({str(GAUNTLET_PY.parent / "plugins" / "openspiel_mcts.py")!r})
bot = agents.make_agent("openspiel-mcts", seed=1)
type(bot).MIN_SECONDS = 1e-6
for name in ("kalah", "nine-mens-morris"):
    state = engines.make(name).new_initial_state(0)
    bot.check_game(state.game)
    while not state.is_terminal() and state.ply < 60:
        state.apply(bot.select_move(state, agents.Limit(time=1e-6)))
    print(name, state.ply)
"""
    import subprocess

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["kalah", done.stdout.split()[1], "nine-mens-morris", "60"]
