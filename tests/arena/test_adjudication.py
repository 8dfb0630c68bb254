"""Adjudication (arena.tournament.adjudication, ``arena run --adjudicate``): the resign rule ends
a game when both sides' values agree one is lost for N moves each, the draw rule when both lie
near 0 after ply M, perfect play when the endgame database knows the position; otherwise games
end by the rules. The end reason is stored, the result counts in the ratings, verification
accepts an honest adjudication and names a wrong one, a resume keeps the rules and refuses
others, and a bad flag is one line with status 2."""

import json
import os
import sqlite3
from contextlib import closing

import pytest

from board_arena import engines
from board_arena.agents.solver import solve
from board_arena.arena import TournamentSettings, load_run, run_tournament
from board_arena.arena.tournament.adjudication import (
    Adjudication,
    Adjudicator,
    DrawRule,
    ResignRule,
    parse_verdict,
)
from board_arena.arena.tournament.store import GameResult, RunStore
from board_arena.arena.tournament.verify import verify_games
from board_arena.arena.tournament.worker import GamePlayer
from tests.support.cli import arena_cli

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VALUED = os.path.join(ROOT, "tests", "plugins", "valued_agents.py")

pytestmark = pytest.mark.usefixtures("forget_plugins")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """Endgame databases built into the test's own cache folder (and not reused from another test's)."""
    from board_arena.engines.mancala import endgame

    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path / "cache"))
    endgame.forget_loaded()
    yield tmp_path / "cache"
    endgame.forget_loaded()


def played(game, specs, adjudicate, games=2, **options):
    """The settings and the games of a round robin played here (no worker process)."""
    settings = TournamentSettings.create(game, specs, games=games, seed=3, plugins=[VALUED], adjudication=adjudicate, **options)
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


def final_state(settings, g):
    state = settings.make_game().new_initial_state(g.game_seed)
    for move in g.move_ids:
        state.apply_legal(move)
    return state


# -- the resign rule ---------------------------------------------------------------------------


def test_resign_ends_the_game_as_the_loss_of_the_side_both_agree_is_lost(tmp_path):
    settings, games = played("kalah", ["valued:value=-0.95", "valued:value=0.95"], "resign=0.9:3")
    for g in games:
        loser = 0 if g.player0 == "valued:value=-0.95" else 1
        assert g.end_reason.startswith(f"adjudicated: resign by seat {loser} (valued:value=-0.95's values "
                                       "[-0.950, -0.950, -0.950] at most -0.9, valued:value=0.95's [+0.950, +0.950, +0.950]")
        assert g.result == (-1.0 if loser == 0 else 1.0) and g.score == 0
        assert min(g.moves0, g.moves1) == 3, "it ends at the third move of the side that moved less"
        assert not final_state(settings, g).is_terminal() and g.moves == g.moves[: g.plies]
    assert verify_games(settings, stored(tmp_path, settings, games), thorough=True) == []


def test_resign_waits_for_the_values_to_be_reported():
    _, at_once = played("kalah", ["valued:value=-0.95", "valued:value=0.95"], "resign=0.9:2")
    _, later = played("kalah", ["valued:value=-0.95,after=4", "valued:value=0.95"], "resign=0.9:2")
    for now, then in zip(at_once, later):
        assert now.end_reason.startswith("adjudicated: resign by seat ") and then.end_reason.startswith("adjudicated: resign by seat ")
        assert now.plies < then.plies and then.plies > 4, "the losing side's values count from ply 4 on"


@pytest.mark.parametrize("specs", [
    ["valued:value=-0.95", "valued:value=0.5"],  # the winner is not sure enough
    ["valued:value=-0.5", "valued:value=0.95"],  # the loser is not sure enough
    ["valued:value=0.95", "valued:value=0.95"],  # both say they win
    ["valued:value=-0.95,report=false", "valued:value=0.95"],  # one reports no value
])
def test_resign_needs_both_sides_to_agree_with_values_reported(specs):
    _, games = played("kalah:pits=4,seeds=3", specs, "resign=0.9:3")
    assert [g.end_reason for g in games] == ["rules", "rules"]


def test_resign_counts_consecutive_moves_and_a_move_without_a_value_breaks_the_run():
    rules = Adjudication(resign=ResignRule(0.8, 2))
    judge = Adjudicator(rules, engines.make("kalah"), ["a", "b"])
    assert judge.moved(0, -0.9, 1) is None and judge.moved(1, 0.9, 2) is None
    assert judge.moved(0, None, 3) is None, "seat 0 reported nothing: its run starts again"
    assert judge.moved(1, 0.9, 4) is None and judge.moved(0, -0.9, 5) is None
    verdict = judge.moved(0, -0.85, 6)
    assert verdict is not None and verdict.result == -1.0 and "resign by seat 0" in verdict.reason
    judge = Adjudicator(rules, engines.make("kalah"), ["a", "b"])
    for ply, (seat, value) in enumerate([(0, -0.9), (1, 0.9), (0, -0.7), (1, 0.9), (0, -0.9)]):
        assert judge.moved(seat, value, ply + 1) is None, "-0.7 is not lost beyond 0.8: the run starts again"
    assert judge.moved(1, 0.95, 6) is None and judge.moved(0, -1.0, 7).result == -1.0


# -- the draw rule -----------------------------------------------------------------------------


def test_draw_after_ply_m_when_both_values_stay_near_zero(tmp_path):
    settings, games = played("kalah", ["valued:value=0.02", "valued:value=-0.03"], "draw=9:0.05:2")
    for g in games:
        assert g.end_reason.startswith("adjudicated: draw (") and "within 0.05 of 0 for 2 moves each, from ply 9" in g.end_reason
        assert g.result == 0.0 and g.score == 0 and g.plies >= 9
    assert verify_games(settings, stored(tmp_path, settings, games)) == []


@pytest.mark.parametrize("specs", [["valued:value=0.02", "valued:value=0.2"], ["valued:value=0.02,report=false", "valued:value=0.0"]])
def test_no_draw_when_a_value_is_outside_the_band_or_not_reported(specs):
    _, games = played("kalah:pits=4,seeds=3", specs, "draw=0:0.05:2")
    assert [g.end_reason for g in games] == ["rules", "rules"]


# -- perfect play ------------------------------------------------------------------------------


def test_perfect_play_ends_kalah_early_with_the_database_result(cache, tmp_path):
    settings, games = played("kalah:pits=3,seeds=3", ["random", "greedy"], "perfect=8", games=6)
    assert cache.is_dir() and any(cache.rglob("*.egdb")), "the database was built into the cache folder"
    adjudicated = [g for g in games if g.end_reason != "rules"]
    assert len(adjudicated) >= 3, [g.end_reason for g in games]
    for g in games:
        state, seeds_on_board = settings.make_game().new_initial_state(g.game_seed), []
        for move in g.move_ids:
            seeds_on_board.append(sum(map(sum, state.board()["pits"])))
            state.apply_legal(move)
        if g.end_reason == "rules":  # a row emptied before 8 seeds were left on the board
            assert state.is_terminal() and min(seeds_on_board) > 8
            continue
        assert not state.is_terminal() and sum(map(sum, state.board()["pits"])) <= 8 < min(seeds_on_board), \
            "ended at the first position the database holds"
        exact = solve(state)
        assert (g.score, g.result) == (exact.margin, float((exact.margin > 0) - (exact.margin < 0))), "the database's result is perfect play's"
        words = "a draw" if g.result == 0 else f"seat {0 if g.result > 0 else 1} wins by {abs(g.score)}"
        assert g.end_reason == f"adjudicated: perfect play, {words}"
        assert parse_verdict(g.end_reason)[0] == "perfect"
    assert verify_games(settings, stored(tmp_path / "honest", settings, games), thorough=True) == []

    wrong = [GameResult(**dict(vars(g), result=-g.result or 1.0, score=-g.score or 1,
                               end_reason=g.end_reason.replace("seat 0", "seat 9").replace("seat 1", "seat 0").replace("seat 9", "seat 1")
                               if g.result else "adjudicated: perfect play, seat 0 wins by 1"))
             for g in adjudicated]
    invalid = verify_games(settings, stored(tmp_path / "wrong", settings, wrong))
    assert [g.id for g in invalid] == [g.id for g in wrong]
    assert all("but the endgame database says" in " ".join(g.problems) for g in invalid)


def test_perfect_play_needs_a_game_with_endgame_databases():
    with pytest.raises(ValueError, match="konane has no perfect-play oracle"):
        TournamentSettings.create("konane", ["random", "greedy"], adjudication="perfect")


# -- verification of the score rules -----------------------------------------------------------


def test_verify_names_an_adjudication_the_run_does_not_allow(tmp_path):
    settings, games = played("kalah", ["valued:value=-0.95", "valued:value=0.95"], "resign=0.9:3")
    flipped = [GameResult(**dict(vars(g), result=-g.result)) for g in games]
    invalid = verify_games(settings, stored(tmp_path / "flipped", settings, flipped))
    assert len(invalid) == 2 and all("resigned" in " ".join(g.problems) for g in invalid)
    stricter = TournamentSettings.create("kalah", list(settings.agents), games=2, seed=3, plugins=[VALUED], adjudication="resign=0.96:3")
    invalid = verify_games(stricter, stored(tmp_path / "stricter", stricter, games))
    assert len(invalid) == 2 and all("do not meet the run's rule resign=0.96:3" in " ".join(g.problems) for g in invalid)
    none = TournamentSettings.create("kalah", list(settings.agents), games=2, seed=3, plugins=[VALUED])
    invalid = verify_games(none, stored(tmp_path / "none", none, games))
    assert len(invalid) == 2 and all("the run adjudicates nothing" in " ".join(g.problems) for g in invalid)


# -- a run: ratings, report, resume, flags -----------------------------------------------------


def run_args(folder, *more):
    return ["run", "--game", "kalah", "--agents", "valued:value=-0.95,valued:value=0.95", "--plugin", VALUED,
            "--games", "2", "--concurrency", "1", "--quiet", "--out", str(folder), *more]


def test_a_run_stores_the_rules_counts_the_results_and_resumes_only_with_the_same_rules(tmp_path):
    folder = tmp_path / "run"
    status, out, err = arena_cli(*run_args(folder, "--adjudicate", "resign=0.9:3,draw=40:0.05:8"))
    assert status == 0, err
    assert "adjudicated: 2" in out and "adjudicated: resign by seat" in out
    run = load_run(str(folder))
    assert run.settings.adjudication == Adjudication(resign=ResignRule(0.9, 3), draw=DrawRule(40, 0.05, 8))
    assert "adjudication resign=0.9:3,draw=40:0.05:8" in run.settings.describe()
    ratings = run.ratings()
    assert ratings.elo_of("valued:value=0.95") > 0 > ratings.elo_of("valued:value=-0.95"), "adjudicated results count in the ratings"
    status, _, err = arena_cli("verify", str(folder))
    assert status == 0, err

    status, out, err = arena_cli(*run_args(folder, "--adjudicate", "resign=0.9:3,draw=40:0.05:8", "--games", "4"))
    assert status == 0, err
    assert len(load_run(str(folder)).games) == 4
    status, _, err = arena_cli(*run_args(folder, "--adjudicate", "resign=0.8:3"))
    assert status == 2 and "adjudication" in err and "resign=0.8:3" in err
    status, _, err = arena_cli(*run_args(folder))
    assert status == 2 and "adjudication" in err


def test_the_run_process_builds_the_database_before_its_workers_play(cache, tmp_path):
    """Kalah(3, 2) has 12 seeds: the default database, of 12, holds its start, which South wins
    by 4; the settings store the size chosen."""
    settings = TournamentSettings.create("kalah:pits=3,seeds=2", ["random", "greedy"], games=2, adjudication="perfect")
    assert settings.adjudication.spec == "perfect=12" and not any(cache.rglob("*.egdb")), "chosen, not built yet"
    run = run_tournament(settings, str(tmp_path / "run"), concurrency=1, progress=False)
    assert [(g.plies, g.result, g.score, g.end_reason) for g in run.games] == [(0, 1.0, 4, "adjudicated: perfect play, seat 0 wins by 4")] * 2
    assert run.worker_compilations == 0


@pytest.mark.parametrize("flag, words", [
    ("bogus", "unknown rule 'bogus'"),
    ("resign=0.9", "resign takes VALUE:MOVES"),
    ("resign=1.5:4", "above 0 and at most 1"),
    ("resign=0.9:0", "moves must be from 1 to 1000"),
    ("resign=x:4", "'x' in 'resign=x:4' is not a number"),
    ("draw=40:0.05", "draw takes PLY:VALUE:MOVES"),
    ("draw=40:1:8", "from 0 to below 1"),
    ("draw=-1:0.05:8", "the first ply must be from 0"),
    ("perfect=0", "database size must be at least 1"),
    ("perfect=99", "holds 1 to"),
    ("resign=0.9:4,resign=0.8:4", "given twice"),
    (",", "give at least one rule"),
])
def test_a_bad_adjudicate_flag_is_one_line_with_status_2(flag, words, tmp_path):
    status, out, err = arena_cli("run", "--game", "kalah", "--agents", "random,greedy", "--quiet", "--out", str(tmp_path / "r"),
                                 "--adjudicate", flag)
    assert status == 2 and out == ""
    assert words in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "r").exists()


def test_arena_verify_checks_the_quoted_values_against_the_per_move_log(tmp_path):
    folder = tmp_path / "run"
    status, _, err = arena_cli(*run_args(folder, "--adjudicate", "resign=0.9:3"))
    assert status == 0, err
    status, out, err = arena_cli("verify", str(folder))
    assert status == 0, out + err
    with closing(sqlite3.connect(folder / "results.sqlite")) as db, db:
        log = json.loads(db.execute("SELECT searches FROM games WHERE id = 1").fetchone()[0])
        last = max(i for i, entry in enumerate(log) if len(entry) > 1)
        log[last][1] = -log[last][1]  # the log no longer holds the value the end reason quotes
        db.execute("UPDATE games SET searches = ? WHERE id = 1", (json.dumps(log),))
    status, out, _ = arena_cli("verify", str(folder))
    assert status == 1 and "game 1: the values its end reason quotes are not the last ones its per-move log holds" in out
