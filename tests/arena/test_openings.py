"""The openings of a tournament (``arena run --openings``, arena.tournament.openings): random
openings and openings from a file give the same games at any concurrency, settings stored before
openings were a value of their own still load and resume, the move log flags the opening plies
and ``arena replay`` marks them, a file may carry export-style tags, and bad openings are refused
in one line before anything is played."""

import os

import pytest

from board_arena import engines
from board_arena.arena import TournamentSettings, run_tournament
from board_arena.arena.cli import main
from board_arena.arena.tournament.openings import Openings, opening_length

TINY = "kalah:pits=3,seeds=2"


def test_the_same_seed_and_openings_give_the_same_games_at_any_concurrency(tmp_path):
    settings = TournamentSettings.create(TINY, ["greedy", "random", "alphabeta:depth=2"], games=6, openings="random:2")
    one = run_tournament(settings, str(tmp_path / "one"), concurrency=1, progress=False)
    two = run_tournament(settings, str(tmp_path / "two"), concurrency=2, progress=False)
    assert [g.moves for g in one.games] == [g.moves for g in two.games]
    assert one.worker_compilations == two.worker_compilations == 0, "warm workers compile nothing, openings included"
    assert all(opening_length(settings, g) == 2 for g in one.games)
    # Openings differ between pairs (a tiny game has few, so most, not all).
    assert len({tuple(g.moves[:2]) for g in one.games}) > 1


# Settings with openings as the version before the Openings value stored them, with the folder it
# gave them: a run stored then must load, resume (the same settings) and keep its folder.
STORED_SETTINGS = [
    (
        '{"agents": ["greedy", "mcts:iterations=300"], "game": "kalah", "game_params": {"capture": "kalah", '
        '"empty_capture": false, "pits": 6, "seeds": 4}, "games": 20, "gauntlet": false, "labels": ["greedy", '
        '"mcts:iterations=300"], "move_time": null, "opening_lines": [], "openings": "random:4", "plugins": [], '
        '"seed": 0, "sprt": {"alpha": 0.05, "beta": 0.05, "elo0": 0.0, "elo1": 10.0, "model": "logistic"}, "swap": true}',
        "arena-runs/kalah-greedy-mcts-c4a8fe32",
        dict(openings="random:4", sprt="elo0=0,elo1=10"),
    ),
    (
        '{"agents": ["greedy", "mcts:iterations=300"], "game": "kalah", "game_params": {"capture": "kalah", '
        '"empty_capture": false, "pits": 6, "seeds": 4}, "games": 20, "gauntlet": false, "labels": ["greedy", '
        '"mcts:iterations=300"], "move_time": null, "opening_lines": ["c", "b"], "openings": "file:book.txt '
        'sha1:c24d4fcd972c", "plugins": [], "seed": 0, "sprt": null, "swap": true}',
        "arena-runs/kalah-greedy-mcts-76297bee",
        dict(openings="book.txt", opening_plies=1),
    ),
]


def test_openings_settings_stored_before_load_and_are_stored_and_made_the_same(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "book.txt").write_text("c f\nb\n")
    for text, folder, options in STORED_SETTINGS:
        stored = TournamentSettings.from_json(text)
        assert stored.to_json() == text and stored.default_out_dir().replace(os.sep, "/") == folder
        made = TournamentSettings.create("kalah", ["greedy", "mcts:iterations=300"], games=20, **options)
        assert made == stored and made.differences(stored) == []
    file_openings = TournamentSettings.from_json(STORED_SETTINGS[1][0]).openings
    assert file_openings == Openings(lines=("c", "b"), file="book.txt", digest="c24d4fcd972c")
    assert (file_openings.label, file_openings.plies(1), file_openings.describe()) == ("file:book.txt", 1, "2 sequences of 1 plies from book.txt")


def test_the_move_log_flags_the_opening_plies_and_replay_marks_them(tmp_path, capsys):
    settings = TournamentSettings.create(TINY, ["greedy", "alphabeta:depth=2"], games=4, openings="random:3")
    run = run_tournament(settings, str(tmp_path / "run"), concurrency=1, progress=False)
    rows = run.moves()
    assert len(rows) == sum(g.plies for g in run.games)
    for row in rows:
        # An opening ply has no search; every later one has the agent's.
        assert row["opening"] == (row["ply"] < 3)
        assert (row["seconds"] is None) == row["opening"]
    assert main(["replay", str(tmp_path / "run"), "0"]) == 0
    assert "Plies 1-3 are the opening" in capsys.readouterr().out


def test_openings_from_a_file_with_export_style_tags(tmp_path, capsys):
    game = engines.make("kalah", pits=3, seeds=2)
    state = game.new_initial_state(0)
    names = []
    for _ in range(3):
        move = state.legal_moves()[0]
        names.append(state.format_move(move))
        state.apply(move)
    path = tmp_path / "openings.txt"
    path.write_text(f'# my openings\n[Game "1"]\n[White "x"]\n{" ".join(names)}\n\n{names[0]}\n')
    out = str(tmp_path / "run")
    args = ["run", "--game", TINY, "--agents", "greedy,random", "--openings", str(path), "--opening-plies", "2",
            "--games", "8", "--concurrency", "1", "--out", out, "--quiet"]
    assert main(args) == 0
    report = capsys.readouterr().out
    assert "2 sequences of 1-2 plies from openings.txt" in report and "repeat an earlier game" in report
    from board_arena.arena.tournament.run import load_run

    run = load_run(out)
    assert [g.moves[:2] for g in run.games[:2]] == [names[:2]] * 2  # pair 0: line 1, cut to 2 plies
    assert [g.moves[0] for g in run.games[2:4]] == [names[0]] * 2  # pair 1: line 2
    assert run.games[4].moves[:2] == names[:2]  # pair 2: the lines again, in order
    # A changed file is another run: resuming in the same folder is refused.
    path.write_text(f"{names[0]}\n")
    assert main(args) == 2
    assert "other settings" in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--openings", "random:0"], "random:N takes 1 to"),
        (["--openings", "random:x"], "takes a number of plies"),
        (["--openings", "no-such-file.txt"], "no file 'no-such-file.txt'"),
        (["--opening-plies", "3"], "--opening-plies needs --openings FILE"),
    ],
)
def test_bad_openings_options_are_one_line_errors(extra, message, tmp_path, capsys):
    code = main(["run", "--game", TINY, "--agents", "greedy,random", "--games", "2", "--out", str(tmp_path / "r"), "--quiet"] + extra)
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_an_illegal_move_in_an_openings_file_names_file_line_and_move(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("a\n[Event \"x\"]\na b zz\n")
    code = main(["run", "--game", TINY, "--agents", "greedy,random", "--openings", str(path), "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and f"{path}:3: illegal move 3 'zz'" in err and len(err.strip().splitlines()) == 1, err
    assert not os.path.exists(tmp_path / "r")  # refused before anything was played
