"""Stored games prove themselves (arena.tournament.verify): a record edited after it was stored (a move, the
result, the score, a seed, the plies, a seat) or written wrong is named by id with what is wrong
by ``arena report``, ``arena export``, a resumed ``arena run`` and ``arena verify``; it is left
out of the ratings with ``--skip-invalid`` and refused (status 2, nothing written) without; a
database stored before move ids and checksums still verifies; and the compiled replay finds
every honest game of every game valid (no false alarm), including games lost by a failure."""

import json
import shutil
import sqlite3
from contextlib import closing

import pytest

from board_arena import agents, arena, engines
from board_arena.arena.tournament.settings import TournamentSettings
from board_arena.arena.tournament.store import DB_NAME, GameResult, RunStore
from board_arena.arena.tournament.verify import failed_seat, verify_games
from board_arena.arena.tournament.worker import GamePlayer
from tests.support.cli import arena_cli

GAME = "kalah:pits=3,seeds=2"
AGENTS = "random,greedy"
GAMES = 6
EDITED = 3  # the game each edit changes


def run_args(folder, *more):
    return ["run", "--game", GAME, "--agents", AGENTS, "--games", str(GAMES), "--concurrency", "1", "--quiet",
            "--out", str(folder), *more]



@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pristine") / "run"
    status, _, err = arena_cli(*run_args(folder))
    assert status == 0, err
    return folder


def execute(folder, sql, *params):
    with closing(sqlite3.connect(folder / DB_NAME)) as db, db:
        db.execute(sql, params)


def rows(folder):
    with closing(sqlite3.connect(folder / DB_NAME)) as db:
        return db.execute("SELECT * FROM games ORDER BY id").fetchall()


def first_legal_other_move(folder):
    """A move in notation that is legal at ply 0 of the edited game but is not the one stored
    (kalah's start does not depend on the seed), so that the game still replays from there or
    breaks later: only the checksum can tell."""
    with closing(sqlite3.connect(folder / DB_NAME)) as db:
        moves = json.loads(db.execute("SELECT moves FROM games WHERE id = ?", (EDITED,)).fetchone()[0])
    state = engines.make("kalah", pits=3, seeds=2).new_initial_state(0)
    return next(name for name in state.legal_move_names() if name != moves[0])


#: Each edit as SQL on game EDITED, and words the verdict must hold.
EDITS = {
    "result negated": ("UPDATE games SET result = -result WHERE id = ? AND result != 0", "result"),
    "result made a draw": ("UPDATE games SET result = 0 WHERE id = ? AND result != 0", "result"),
    "score": ("UPDATE games SET score = score + 2 WHERE id = ?", "score"),
    "an illegal move": ("UPDATE games SET moves = json_set(moves, '$[1]', 'zz') WHERE id = ?", "move 2 is 'zz'"),
    "a legal move": (None, "move 1 is"),
    "the start seed": ("UPDATE games SET game_seed = game_seed + 1 WHERE id = ?", "start seed"),
    "an agent seed": ("UPDATE games SET seed1 = seed1 + 1 WHERE id = ?", "seat 1's agent seed"),
    "the plies": ("UPDATE games SET plies = plies - 1 WHERE id = ?", "plies stored"),
    "a seat's agent": ("UPDATE games SET player0 = player1, spec0 = spec1 WHERE id = ?", "the schedule puts"),
    "the move ids": ("UPDATE games SET move_ids = substr(move_ids, 1, length(move_ids) - 8) WHERE id = ?", "move ids"),
    "the end reason": ("UPDATE games SET end_reason = 'error in seat 0 (random): boom' WHERE id = ?", "failure"),
    "a score that is text": ("UPDATE games SET score = 'lots' WHERE id = ?", "score holds 'lots'"),
    "moves that are not JSON": ("UPDATE games SET moves = 'c f a' WHERE id = ?", "not a JSON list"),
}


@pytest.fixture(params=list(EDITS))
def edited(request, pristine, tmp_path):
    """A copy of the pristine run with game EDITED changed (``request.param`` of EDITS)."""
    folder = tmp_path / "run"
    shutil.copytree(pristine, folder)
    for plot in folder.glob("*.png"):
        plot.unlink()
    sql, words = EDITS[request.param]
    if sql is None:
        execute(folder, "UPDATE games SET moves = json_set(moves, '$[0]', ?) WHERE id = ?", first_legal_other_move(folder), EDITED)
    else:
        execute(folder, sql, EDITED)
    assert rows(folder) != rows(pristine), "the edit changed nothing"
    return folder, words


def test_an_edited_record_is_named_and_refused_by_report_export_and_resume(edited):
    folder, words = edited
    before = rows(folder)
    for argv in (["report", str(folder)], ["export", str(folder)], run_args(folder)):
        status, out, err = arena_cli(*argv)
        assert status == 2, argv
        error = err.splitlines()[-1]  # arena run first says where its folder is
        assert error.startswith(f"arena {argv[0]}: error: ") and "Traceback" not in err
        assert f"1 of {GAMES} stored games" in error and f"game {EDITED}: " in error and words in error
        assert "--skip-invalid" in error and out == ""
    assert not (folder / "games.txt").exists() and not list(folder.glob("*.png"))
    assert rows(folder) == before  # refused, never repaired or replayed

    status, out, _ = arena_cli("verify", str(folder))
    assert status == 1 and out.startswith(f"game {EDITED}: ") and words in out.splitlines()[0]
    assert f"1 of {GAMES} stored games fail verification" in out


@pytest.mark.parametrize("edited", ["result negated", "a legal move", "the start seed"], indirect=True)
def test_skip_invalid_leaves_the_game_out_of_ratings_export_and_resume(edited):
    folder, words = edited
    status, out, _ = arena_cli("report", str(folder), "--skip-invalid")
    assert status == 0
    assert f"Games: {GAMES - 1} of {GAMES} played" in out and f"Left out: 1 stored games that fail verification (game {EDITED}: " in out
    status, out, _ = arena_cli("export", str(folder), "--skip-invalid")
    assert status == 0 and out.startswith(f"{GAMES - 1} games written")
    text = (folder / "games.txt").read_text()
    assert f'[Id "{EDITED}"]' not in text and text.count("[Id ") == GAMES - 1

    run = arena.load_run(str(folder), skip_invalid=True)
    assert [g.id for g in run.invalid] == [EDITED] and EDITED not in {g.id for g in run.games}
    assert sum(run.ratings().games) == 2 * (GAMES - 1)

    # Resuming leaves it stored as it is (not played again) and out of the run.
    before = rows(folder)
    loud = [word for word in run_args(folder, "--skip-invalid", "--games", str(GAMES + 2)) if word != "--quiet"]
    status, out, err = arena_cli(*loud)
    assert status == 0, err
    assert f"Resuming: {GAMES} of {GAMES + 2} games stored already; 1 fail verification and are left out; playing the other 2" in err
    after = rows(folder)
    assert after[: len(before)] == before and len(after) == GAMES + 2


def test_a_run_that_verifies_says_so_and_resume_says_what_it_found(pristine, tmp_path):
    status, out, _ = arena_cli("verify", str(pristine))
    assert status == 0 and out.startswith(f"All {GAMES} stored games verified")
    folder = tmp_path / "run"
    shutil.copytree(pristine, folder)
    status, _, err = arena_cli(*[word for word in run_args(folder) if word != "--quiet"])
    assert status == 0 and f"Resuming: {GAMES} of {GAMES} games stored already, all verified; nothing to play" in err


def test_replay_refuses_a_game_that_fails_and_shows_the_others(pristine, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(pristine, folder)
    execute(folder, EDITS["score"][0], EDITED)
    status, _, err = arena_cli("replay", str(folder), str(EDITED))
    assert status == 2 and f"game {EDITED}: score" in err and err.count("\n") == 1
    status, out, _ = arena_cli("replay", str(folder), "0")
    assert status == 0 and "Result:" in out


def test_a_database_without_move_ids_and_checksums_replays_its_notation(pristine, tmp_path):
    """A run stored before move ids and checksums existed: its notation is replayed instead, and
    a wrong result is still caught (no checksum to tell what else changed)."""
    folder = tmp_path / "old"
    shutil.copytree(pristine, folder)
    execute(folder, "UPDATE games SET move_ids = NULL, checksum = NULL WHERE id >= ?", 0)
    assert arena_cli("verify", str(folder))[0] == 0
    assert len(arena.load_run(str(folder)).games) == GAMES
    execute(folder, "UPDATE games SET result = -result WHERE id = ? AND result != 0", EDITED)
    status, out, _ = arena_cli("verify", str(folder))
    assert status == 1 and f"game {EDITED}: result" in out and "checksum" not in out


def honest_games(game_name, count=6):
    """Games of random against random on ``game_name``, as the arena plays and stores them."""
    settings = TournamentSettings.create(game_name, ["random", "random"], games=count, seed=5)
    player = GamePlayer(settings, warm_up=False)
    return settings, [player.play(g) for g in settings.schedule()]


def stored(folder, settings, games):
    store = RunStore(str(folder))
    try:
        store.open(settings)
        store.add_many(games)
        return store.read_games()
    finally:
        store.close()


@pytest.mark.parametrize("game_name", engines.available_games())
def test_every_honest_game_of_every_game_verifies(game_name, tmp_path):
    """No false alarm: the compiled replay (random starts drawn in compiled code included) agrees
    with the games as played, for every preset; and the notation replay agrees too."""
    settings, games = honest_games(game_name)
    data = stored(tmp_path, settings, games)
    assert verify_games(settings, data, thorough=True) == []
    data.has_ids[:] = False  # as a database without move ids: the notation is replayed
    assert verify_games(settings, data) == []


def test_games_lost_by_a_failure_verify_and_a_wrong_seat_does_not(tmp_path):
    """A game lost by an agent's failure stops before its end: the failing seat was to move."""
    settings, games = honest_games("kalah:pits=3,seeds=3")
    failures = []
    for g in games:
        state = settings.make_game().new_initial_state(g.game_seed)
        for move in g.move_ids[:3]:
            state.apply_legal(move)
        seat = state.current_player
        cut = dict(vars(g), moves=g.moves[:3], move_ids=g.move_ids[:3], plies=3, score=0, result=-1.0 if seat == 0 else 1.0,
                   end_reason=f"error in seat {seat} (random): it raised")
        failures.append(GameResult(**cut))
    assert failed_seat(failures[0].end_reason) == int(failures[0].end_reason[14])
    assert verify_games(settings, stored(tmp_path / "a", settings, failures)) == []

    wrong = [GameResult(**dict(vars(g), end_reason=g.end_reason.replace(f"seat {failed_seat(g.end_reason)}",
                                                                         f"seat {1 - failed_seat(g.end_reason)}")))
             for g in failures]
    invalid = verify_games(settings, stored(tmp_path / "b", settings, wrong))
    assert [g.id for g in invalid] == [g.id for g in wrong]
    assert all("was to move" in " ".join(g.problems) for g in invalid)


def test_an_agent_that_raises_loses_and_its_game_verifies(tmp_path, forget_plugins):
    @agents.register_agent
    class Raises(agents.Agent):
        name = "raises-at-ply-2"
        summary = "plays its first move, then raises"

        def reset(self, seed=None):
            super().reset(seed)
            self.moves = 0

        def _select(self, state, limit):
            self.moves += 1
            if self.moves > 1:
                raise RuntimeError("boom")
            return agents.SearchInfo(move=state.legal_moves()[0])

    settings = TournamentSettings.create("kalah:pits=3,seeds=3", ["raises-at-ply-2", "random"], games=4)
    run = arena.run_tournament(settings, str(tmp_path / "run"), concurrency=1, progress=False)
    assert all(failed_seat(g.end_reason) is not None for g in run.games) and run.invalid == []


def _truncated(folder, pristine):
    data = (pristine / DB_NAME).read_bytes()
    (folder / DB_NAME).write_bytes(data[: len(data) // 2])


#: A results database that is not a run, and words its one-line refusal must hold.
BROKEN_DATABASES = {
    "empty": (lambda folder, pristine: (folder / DB_NAME).write_bytes(b""), f"no arena run in {{folder!r}} ({DB_NAME} is empty)"),
    "corrupted": (lambda folder, pristine: (folder / DB_NAME).write_bytes(bytes(range(256)) * 16), "is not an arena results database (file is not a database)"),
    "truncated": (_truncated, "is not an arena results database"),
    "foreign": (lambda folder, pristine: execute(folder, "CREATE TABLE accounts (owner TEXT, balance REAL)"), "belongs to another program (tables accounts), not board-arena: give the folder of an arena run"),
}


@pytest.mark.parametrize("command", ["report", "export", "verify", "replay"])
@pytest.mark.parametrize("kind", list(BROKEN_DATABASES))
def test_a_corrupted_truncated_empty_or_foreign_database_is_refused_in_one_line(kind, command, pristine, tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    make, words = BROKEN_DATABASES[kind]
    make(folder, pristine)
    before = (folder / DB_NAME).read_bytes()
    argv = [command, str(folder)] + (["0"] if command == "replay" else [])
    status, out, err = arena_cli(*argv)
    assert status == 2 and not out and len(err.splitlines()) == 1, (status, out, err)
    assert err.startswith(f"arena {command}: error: ") and words.format(folder=str(folder)) in err, err
    assert (folder / DB_NAME).read_bytes() == before
    # SQLite's own side files of a WAL database opened for reading (a WAL left empty) may appear; nothing else.
    assert {path.name for path in folder.iterdir()} <= {DB_NAME, DB_NAME + "-shm", DB_NAME + "-wal"}
    assert not (folder / (DB_NAME + "-wal")).exists() or (folder / (DB_NAME + "-wal")).stat().st_size == 0
