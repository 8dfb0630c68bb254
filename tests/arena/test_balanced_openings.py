"""experiments/balanced_openings.py on a small Kalah: the openings kept are the arena's random
openings whose exact value lies within the bound, the file reproduces from its seed and serves as
an openings file, the values are cached, bad input is one line."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from board_arena import arena, engines
from board_arena.agents.solver import solve
from board_arena.arena.tournament.openings import Openings

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "balanced_openings.py"
GAME = "kalah:pits=3,seeds=3"


def _script():
    spec = importlib.util.spec_from_file_location("balanced_openings_py", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path / "cache"))  # the endgame database it builds


def _openings(path: Path) -> list[tuple[int, int, str]]:
    """(pair, value, moves) of each opening of a written file, from its comments."""
    lines = path.read_text().splitlines()
    found = []
    for comment, moves in zip(lines, lines[1:]):
        if comment.startswith("# pair "):
            pair, value = comment.removeprefix("# pair ").split(": ")
            found.append((int(pair), int(value), moves))
    return found


@pytest.mark.parametrize("prefilter", [True, False])
def test_the_openings_kept_are_the_runs_random_openings_within_the_bound(tmp_path, cache, capsys, prefilter):
    module = _script()
    out = tmp_path / "balanced.txt"
    assert module.main(["--game", GAME, "--count", "4", "--bound", "1", "--seed", "7", "--out", str(out),
                        "--table-mb", "4", *([] if prefilter else ["--no-prefilter"])]) == 0
    assert "4 openings within [-1, +1]" in capsys.readouterr().out
    kept = _openings(out)
    assert len(kept) == 4 and len({moves for _, _, moves in kept}) == 4
    game = engines.make("kalah", pits=3, seeds=3)
    # Each is the opening of its pair in a run with the same seed, and its value is exact.
    settings = arena.TournamentSettings.create(GAME, ["random", "greedy"], games=2 * (kept[-1][0] + 1), seed=7,
                                               openings="random:4")
    for pair, value, moves in kept:
        scheduled = settings.scheduled_game(2 * pair)
        state, plies = settings.start_position(scheduled, game)
        assert " ".join(move for _, move in plies) == moves
        assert solve(state, table_mb=4).margin == value and abs(value) <= 1
    # The pairs skipped are openings whose values lie outside the bound, repeats, or (with the
    # prefilter) not solved, their estimates lying far outside.
    values = json.loads(Path(f"{out}.values.json").read_text())
    skipped = set(range(kept[-1][0])) - {pair for pair, _, _ in kept}
    unsolved = 0
    for pair in skipped:
        moves = module.candidate(game, 4, 7, pair)
        if module.value_key(game, moves) not in values:
            unsolved += 1
            continue
        lower, upper = values[module.value_key(game, moves)]
        assert lower == upper and (abs(lower) > 1 or moves in {m for _, _, m in kept})
    assert unsolved == 0 or prefilter
    # An openings file for arena run: its lines in order.
    assert Openings.parse(game, str(out)).lines == tuple(moves for _, _, moves in kept)


def test_the_file_reproduces_from_its_seed_and_reuses_the_values_it_solved(tmp_path, cache, monkeypatch):
    module = _script()
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    # Without the prefilter every candidate looked at is solved, so the values hold them all.
    argv = ["--game", GAME, "--count", "3", "--table-mb", "4", "--values", str(tmp_path / "v.json"), "--no-prefilter"]
    assert module.main([*argv, "--out", str(first)]) == 0
    assert "pair" in first.read_text()
    # Again with the values known: nothing is solved, the same file comes out.
    monkeypatch.setattr(module, "solve_opening", lambda moves: pytest.fail(f"solved {moves} again"))
    assert module.main([*argv, "--out", str(second)]) == 0
    assert second.read_text() == first.read_text()
    # Another seed, other openings.
    monkeypatch.undo()
    assert module.main([*argv, "--seed", "1", "--out", str(second)]) == 0
    assert second.read_text() != first.read_text()


def test_two_workers_keep_the_same_openings_as_one(tmp_path, cache):
    module = _script()
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    assert module.main(["--game", GAME, "--count", "3", "--table-mb", "4", "--out", str(one)]) == 0
    assert module.main(["--game", GAME, "--count", "3", "--table-mb", "4", "--out", str(two), "--workers", "2"]) == 0
    assert one.read_text() == two.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bound", "-1"], "--bound must be at least 0, not -1"),
        (["--plies", "0"], "--plies must be from 1 to 200, not 0"),
        (["--count", "0"], "--count and --workers must be at least 1"),
        (["--solve-seconds", "0"], "--solve-seconds must be more than 0"),
        (["--game", "nosuch"], "nosuch"),
        (["--game", "dominoes"], "dominoes has hidden information"),
    ],
)
def test_bad_arguments_are_one_line(argv, message, tmp_path, capsys):
    assert _script().main([*argv, "--out", str(tmp_path / "x.txt")]) == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1 and "Traceback" not in error
    assert not (tmp_path / "x.txt").exists()
