"""Arena: settings and schedule, ratings, reproducible and resumable tournaments, the command."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing

import numpy as np
import pytest

from board_arena import agents, arena
from board_arena.arena.cli import main
from board_arena.arena.statistics.ratings import fit_ratings
from board_arena.arena.tournament.settings import TournamentSettings, split_agent_list

CHEAP = ["random", "greedy", "mcts:iterations=50"]


def small_settings(**changes):
    options = dict(games=4, seed=7)
    options.update(changes)
    return TournamentSettings.create("kalah:pits=4,seeds=3", CHEAP, **options)


# -- settings and schedule -------------------------------------------------------------------


def test_agent_lists_split_at_agents_not_at_their_parameters():
    assert split_agent_list("random,alphabeta:depth=4,mcts:iterations=500,c=2") == [
        "random",
        "alphabeta:depth=4",
        "mcts:iterations=500,c=2",
    ]
    assert split_agent_list("mcts, alphabeta") == ["mcts", "alphabeta"]


def test_schedule_plays_seat_swapped_pairs_from_the_same_start():
    settings = small_settings(games=6)
    schedule = list(settings.schedule())
    assert len(schedule) == 3 * 6  # three pairings
    for pairing in [(0, 1), (0, 2), (1, 2)]:
        games = [g for g in schedule if g.pairing == pairing]
        assert len(games) == 6
        for first, second in zip(games[::2], games[1::2]):
            assert first.game_seed == second.game_seed
            assert first.players == second.players[::-1]
        assert len({g.game_seed for g in games}) == 3
    assert len({seed for g in schedule for seed in g.agent_seeds}) == 2 * len(schedule)
    assert settings.default_out_dir() == small_settings(games=6).default_out_dir()
    assert settings.default_out_dir() != small_settings(games=6, seed=8).default_out_dir()


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(game="kalah", agent_specs=["mcts"]), "at least two agents"),
        (dict(game="kalah", agent_specs=["mcts", "random"], games=3), "must be even"),
        (dict(game="kalah:pits=12", agent_specs=["mcts", "random"]), "pits=12 is out of range"),
        (dict(game="go", agent_specs=["mcts", "random"]), "unknown game 'go'"),
        (dict(game="kalah", agent_specs=["mcts", "alphabeta:depht=3"]), "alphabeta has no parameter 'depht'"),
    ],
)
def test_bad_settings_are_refused_before_anything_runs(kwargs, message):
    game = kwargs.pop("game")
    specs = kwargs.pop("agent_specs")
    with pytest.raises(ValueError, match=message):
        TournamentSettings.create(game, specs, **kwargs)


# -- ratings ---------------------------------------------------------------------------------


def test_bradley_terry_fit_is_the_maximum_likelihood():
    rng = np.random.default_rng(0)
    true = np.array([200.0, 0.0, -100.0, -300.0])
    names = list("abcd")
    results = []
    for i in range(4):
        for j in range(i + 1, 4):
            p = arena.expected_score(true[i] - true[j])
            for _ in range(200):
                results.append((names[i], names[j], float(rng.random() < p)))
    ratings = fit_ratings(results, names)
    # Near the likelihood's maximum (Firth's penalty moves it by less than a point in 600 games):
    # expected points = actual points.
    g = 10 ** (ratings.elo / 400)
    expected = np.array([sum(g[i] / (g[i] + g[j]) * 200 for j in range(4) if j != i) for i in range(4)])
    assert np.allclose(expected, ratings.points, atol=1.0)
    # The true ratings (centred) lie in the intervals, which are a few tens of Elo wide.
    centred = true - true.mean()
    assert np.all(ratings.low <= centred) and np.all(centred <= ratings.high)
    assert np.all(ratings.high - ratings.low < 120)


def test_ratings_anchor_prior_and_errors():
    results = [("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10
    ratings = fit_ratings(results, anchor="b", intervals=False)
    assert ratings.elo_of("b") == 0 and ratings.interval("b") == (0, 0)
    # Firth's penalty for one pairing adds half a point to each side.
    assert ratings.elo_of("a") == pytest.approx(400 * np.log10(30.5 / 10.5))
    assert np.isfinite(fit_ratings([("a", "b", 1.0)] * 50, intervals=False).elo).all()  # a perfect score
    draws = fit_ratings([("a", "b", 0.5)] * 20, intervals=False)
    assert draws.elo_of("a") == pytest.approx(0) and draws.draws.tolist() == [20, 20]
    with pytest.raises(ValueError, match="anchor 'z' is not an agent"):
        fit_ratings(results, anchor="z")
    with pytest.raises(ValueError, match="score is 0, 0.5 or 1"):
        fit_ratings([("a", "b", 0.7)])


def test_more_games_give_narrower_intervals():
    few = fit_ratings([("a", "b", 1.0)] * 6 + [("a", "b", 0.0)] * 4)
    many = fit_ratings([("a", "b", 1.0)] * 600 + [("a", "b", 0.0)] * 400)
    width = lambda ratings: ratings.high[0] - ratings.low[0]  # noqa: E731
    assert width(many) < width(few) / 5


def test_rating_intervals_cover_the_truth_on_lopsided_tournaments():
    # A small run of experiments/rating_coverage.py: four agents 300 Elo apart, 20 games per
    # pairing. The virtual-draw prior with a bootstrap covered 0.73-0.81 on such tournaments.
    from experiments.rating_coverage import coverage

    per_agent, _ = coverage([0, 300, 600, 900], games=20, reps=100, seed=1)
    assert per_agent.min() >= 0.88, per_agent


def test_an_all_draw_pairing_and_a_sweep_get_real_intervals():
    draws = fit_ratings([("a", "b", 0.5)] * 20)
    low, high = draws.interval("a")
    assert low < -30 and high > 30 and low == pytest.approx(-high)
    sweep = fit_ratings([("a", "b", 1.0)] * 20)
    low, high = sweep.interval("a")
    assert 0 < low < sweep.elo_of("a") < high and high - sweep.elo_of("a") > sweep.elo_of("a") - low  # skewed


# -- tournaments -----------------------------------------------------------------------------


def comparable(run):
    """The stored games without what depends on the clock."""
    return [
        {k: v for k, v in record.items() if k not in ("time0", "time1", "finished_at")} for record in run.records()
    ]


def test_the_same_seed_gives_the_same_results_whatever_the_concurrency(tmp_path):
    settings = small_settings()
    one = arena.run_tournament(settings, str(tmp_path / "one"), concurrency=1, progress=False)
    two = arena.run_tournament(settings, str(tmp_path / "two"), concurrency=2, progress=False)
    assert len(one.games) == 12
    assert comparable(one) == comparable(two)
    other = arena.run_tournament(small_settings(seed=8), str(tmp_path / "other"), concurrency=1, progress=False)
    assert comparable(other) != comparable(one)


def test_a_run_resumes_and_keeps_what_it_has(tmp_path):
    settings = small_settings()
    out = str(tmp_path / "run")
    first = arena.run_tournament(settings, out, concurrency=1, progress=False)
    with closing(sqlite3.connect(os.path.join(out, "results.sqlite"))) as db, db:  # as if interrupted
        db.execute("DELETE FROM games WHERE id >= 5")
    kept = {g.id: g.finished_at for g in arena.load_run(out).games}
    assert sorted(kept) == [0, 1, 2, 3, 4]
    resumed = arena.run_tournament(settings, out, concurrency=1, progress=False)
    assert comparable(resumed) == comparable(first)
    assert all(g.finished_at == kept[g.id] for g in resumed.games if g.id in kept)
    with pytest.raises(ValueError, match="holds a run with other settings .*seed: 7 vs 8"):
        arena.run_tournament(small_settings(seed=8), out, concurrency=1, progress=False)


def test_a_finished_run_grows_with_more_games_and_keeps_every_game_it_had(tmp_path):
    out = str(tmp_path / "run")
    first = arena.run_tournament(small_settings(games=4), out, concurrency=1, progress=False)
    grown = arena.run_tournament(small_settings(games=6), out, concurrency=2, progress=False)
    assert len(grown.games) == 18 and grown.settings.games == 6
    assert comparable(grown)[:12] == comparable(first)
    assert comparable(grown) == comparable(arena.run_tournament(small_settings(games=6), str(tmp_path / "b"), 1, False))
    with pytest.raises(ValueError, match="can grow, not shrink"):
        arena.run_tournament(small_settings(games=2), out, concurrency=1, progress=False)
    # The default folder does not depend on the number of games, so the same command with more
    # games extends the run.
    assert small_settings(games=4).default_out_dir() == small_settings(games=6).default_out_dir()


def test_a_failing_agent_loses_and_the_reason_is_stored(tmp_path):
    registry = agents.base.agent_registry()

    @agents.register_agent
    class Crashing(agents.Agent):
        name = "test-crashing"

        def _select(self, state, limit):
            raise RuntimeError("out of ideas")

    try:
        settings = TournamentSettings.create("kalah", ["random", "test-crashing"], games=2)
        run = arena.run_tournament(settings, str(tmp_path / "crash"), concurrency=1, progress=False)
    finally:
        agents.base.restore_agent_registry(registry)
    for g in run.games:
        crashed_seat = 0 if g.player0 == "test-crashing" else 1
        assert g.score_for(crashed_seat) == 0
        assert "out of ideas" in g.end_reason
    assert run.ratings().elo_of("random") > 0


def test_run_api_records_and_replay(tmp_path):
    run = arena.run_tournament(small_settings(), str(tmp_path / "api"), concurrency=1, progress=False)
    records = run.records()
    assert {"player0", "player1", "moves", "result", "score", "plies", "end_reason"} <= set(records[0])
    final = run.game_record(3).replay()
    assert final.is_terminal() and final.outcome() == run.games[3].result
    with pytest.raises(ValueError, match="no finished game 99"):
        run.game_record(99)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pip install pandas"):
            run.to_dataframe()
    else:
        assert len(run.to_dataframe()) == len(records)


def test_a_gauntlet_plays_the_first_agent_against_each_other_only(tmp_path):
    settings = TournamentSettings.create("kalah:pits=3,seeds=2", ["greedy", "random", "alphabeta:depth=2", "mcts:iterations=20"], games=2, gauntlet=True)
    assert settings.pairings == [(0, 1), (0, 2), (0, 3)]
    run = arena.run_tournament(settings, str(tmp_path / "g"), concurrency=1, progress=False)
    assert len(run.games) == 6 and all("greedy" in (g.player0, g.player1) for g in run.games)
    assert sorted(run.ratings().names) == sorted(settings.labels)


# -- the command -----------------------------------------------------------------------------


def test_arena_run_report_replay_and_list(tmp_path, capsys):
    out = str(tmp_path / "cli")
    args = ["run", "--game", "kalah", "--param", "pits=4", "--agents", "random,greedy", "--games", "4"]
    assert main(args + ["--out", out, "--concurrency", "1", "--quiet", "--anchor", "random"]) == 0
    printed = capsys.readouterr().out
    for expected in ("Standings", "Elo", "95% interval", "Crosstable", "First player (the one who moves first)", "Pairings", "Time per move", "Elo against random (rated 0)"):
        assert expected in printed
    # The plots are drawn on request only (matplotlib would double the start of a short run).
    assert os.path.getsize(os.path.join(out, "results.sqlite")) > 0
    assert not any(os.path.exists(os.path.join(out, name)) for name in ("elo.png", "scores.png", "history.png"))
    assert printed.rstrip().endswith(f"Plots: arena report {out} draws them")

    assert main(["report", out]) == 0
    printed = capsys.readouterr().out
    assert "Games: 4 of 4 played" in printed
    assert printed.index("Standings") < printed.index("Plots: ") and printed.rstrip().endswith("history.png")
    for name in ("elo.png", "scores.png", "history.png"):
        assert os.path.getsize(os.path.join(out, name)) > 0
    assert main(args + ["--out", str(tmp_path / "plotted"), "--concurrency", "1", "--quiet", "--plots"]) == 0
    assert capsys.readouterr().out.rstrip().endswith(os.path.join(str(tmp_path / "plotted"), "history.png"))
    assert os.path.getsize(tmp_path / "plotted" / "elo.png") > 0
    assert main(["replay", out, "1"]) == 0
    replay = capsys.readouterr().out
    assert "Move 1:" in replay and "Result:" in replay and "South" in replay
    assert main(["list"]) == 0
    listing = capsys.readouterr().out
    assert "kalah" in listing and "capture=kalah" in listing and "iterations=none" in listing


@pytest.mark.parametrize(
    "args,message",
    [
        (["run", "--game", "chess", "--agents", "random,greedy"], "unknown game 'chess'; available: mancala, kalah"),
        (["run", "--game", "kalah", "--agents", "random,mcst"], "unknown agent 'mcst'; available:"),
        (["run", "--game", "kalah", "--agents", "random,greedy", "--games", "3"], "must be even"),
        (["run", "--game", "kalah", "--agents", "random,greedy", "--concurrency", "0"], "--concurrency must be from 1 to"),
        (["run", "--game", "kalah", "--agents", "random,greedy", "--concurrency", "1000000"], "not 1,000,000"),
        (["run", "--game", "kalah", "--agents", "random,greedy", "--games", "100000000"], "from 1 to 100,000, not 100,000,000"),
        (["run", "--game", "kalah", "--agents", ",".join(["random"] * 50), "--games", "1000"], "a run holds at most 1,000,000"),
        (["run", "--game", "kalah", "--agents", "random,greedy", "--games", "9" * 400], "... (400 characters)"),
        (["run", "--game", "k" * 5000, "--agents", "random,greedy"], "... (5002 characters)"),
        (["run", "--game", "kalah", "--agents", "random,greedy", "--param", "pits"], "--param takes NAME=VALUE"),
        (["run", "--game", "kalah", "--agents", "random"], "at least two agents"),
        (["report", "/nonexistent/run"], "no arena run in"),
        (["run", "--game", "kalah", "--agents", "random,greedy", "--anchor", "mcts"], "--anchor 'mcts' is not one of"),
    ],
)
def test_arena_errors_are_one_line(args, message, capsys):
    assert main(args + ["--quiet"] if args[0] == "run" else args) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and "\n" not in error and "Traceback" not in error


def test_agents_without_games_yet_are_listed_unrated(tmp_path):
    ratings = fit_ratings([("a", "b", 1.0)] * 10 + [("a", "b", 0.0)] * 5, names=["a", "b", "c"])
    assert np.isnan(ratings.elo[2]) and np.isfinite(ratings.elo[:2]).all() and ratings.order()[-1] == 2
    settings = TournamentSettings.create("kalah", ["random", "greedy", "mcts:iterations=20"], games=2)
    out = str(tmp_path / "partial")
    arena.run_tournament(settings, out, concurrency=1, progress=False)
    with closing(sqlite3.connect(os.path.join(out, "results.sqlite"))) as db, db:  # one pairing played
        db.execute("DELETE FROM games WHERE player0 = 'mcts:iterations=20' OR player1 = 'mcts:iterations=20'")
    assert main(["report", out]) == 0


def test_move_time_must_be_a_real_duration():
    for bad in (float("nan"), float("inf"), 0.0, -1.0):
        with pytest.raises(ValueError, match="move time must be from"):
            small_settings(move_time=bad)


def test_unusable_folders_and_databases_are_one_line_errors(tmp_path, capsys):
    taken = tmp_path / "a-file"
    taken.write_text("not a folder")
    assert main(["run", "--game", "kalah", "--agents", "random,greedy", "--out", str(taken), "--quiet"]) == 2
    assert "cannot create the run folder" in capsys.readouterr().err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.sqlite").write_text("not a database")
    for command in (["report", str(broken)], ["replay", str(broken), "0"]):
        assert main(command) == 2
        error = capsys.readouterr().err.strip()
        assert "is not a database" in error and "\n" not in error


def stored_ids(out):
    path = os.path.join(out, "results.sqlite")
    if not os.path.exists(path):
        return []
    try:
        with closing(sqlite3.connect(path, timeout=10)) as db:
            return [row[0] for row in db.execute("SELECT id FROM games ORDER BY id")]
    except sqlite3.Error:  # created but not yet initialised
        return []


@pytest.mark.slow  # a kill test (a run in a subprocess, killed, then resumed)
@pytest.mark.parametrize("kill_group", [True, False])
def test_a_killed_run_resumes_with_every_game_once(tmp_path, kill_group):
    """SIGKILL mid-run (the whole process group, or the parent alone: its workers die with it),
    then the same command: exactly the planned games, none lost, none twice."""
    out = str(tmp_path / "killed")
    command = [sys.executable, "-m", "board_arena.arena.cli", "run", "--game", "kalah", "--agents",
               "greedy,mcts:iterations=4000", "--games", "60", "--concurrency", "2", "--out", out, "--quiet"]
    process = subprocess.Popen(command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(stored_ids(out)) < 6 and time.monotonic() < deadline:
        time.sleep(0.02)
    if kill_group:
        os.killpg(process.pid, signal.SIGKILL)
    else:
        os.kill(process.pid, signal.SIGKILL)
    process.wait()
    partial = stored_ids(out)
    assert 6 <= len(partial) < 60, "the run was not interrupted in the middle"
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert stored_ids(out) == list(range(60))


def test_an_agent_that_returns_an_illegal_move_loses(tmp_path):
    registry = agents.base.agent_registry()

    @agents.register_agent
    class Cheater(agents.Agent):
        name = "test-illegal"

        def _select(self, state, limit):
            return agents.SearchInfo(move=99)

    try:
        settings = TournamentSettings.create("kalah", ["random", "test-illegal"], games=2)
        run = arena.run_tournament(settings, str(tmp_path / "illegal"), concurrency=1, progress=False)
    finally:
        agents.base.restore_agent_registry(registry)
    assert all("illegal move 99" in g.end_reason and g.score == 0 for g in run.games)
    assert all(g.score_for(0 if g.player0 == "test-illegal" else 1) == 0 for g in run.games)


def test_a_database_of_another_version_is_refused(tmp_path, capsys):
    out = tmp_path / "old"
    arena.run_tournament(small_settings(games=2), str(out), concurrency=1, progress=False)
    with closing(sqlite3.connect(out / "results.sqlite")) as db, db:
        db.execute("UPDATE settings SET value = '0' WHERE key = 'schema'")
    assert main(["report", str(out)]) == 2
    assert "written by another version" in capsys.readouterr().err


def test_pairing_score_intervals():
    from board_arena.arena.tournament.report import score_interval

    mean, low, high = score_interval([1.0, 0.0] * 50)
    assert mean == 0.5 and low == pytest.approx(1 - high) and 0.09 < high - 0.5 < 0.1
    mean, low, high = score_interval([1.0] * 40)  # a sweep: Wilson's width, inside 0-100%
    assert mean == 1.0 and high == 1.0 and 0.85 < low < 0.95
    mean, low, high = score_interval([0.5] * 30)  # all draws: not a zero width
    assert mean == 0.5 and high - low > 0.2
    mean, low, high = score_interval([1.0] * 19 + [0.0])  # never past 100%
    assert high <= 1.0 and low < 0.95


def test_games_stopped_by_a_ply_cap_are_counted_apart(tmp_path):
    # 20 plies are not even the placing phase: every game reaches the cap, a draw by no rule.
    settings = TournamentSettings.create("morabaraba:max_plies=20", ["random", "greedy"], games=2, seed=1)
    run = arena.run_tournament(settings, str(tmp_path / "run"), concurrency=1, progress=False)
    assert [g.end_reason for g in run.games] == ["ply cap", "ply cap"]
    assert all(g.result == 0.0 and g.plies == 20 for g in run.games)
    from board_arena.arena.tournament.report import format_report

    assert "2 x ply cap" in format_report(run.settings, run.games, run.ratings())


def test_version_and_a_filtered_list_that_fits_100_columns(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("arena (board-arena) ")
    assert main(["list"]) == 0
    everything = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in everything) <= 100
    assert main(["list", "konane"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("  konane-classic") for line in lines)
    assert not any("mancala" in line or line.startswith("  mcts") for line in lines)
    assert main(["list", "nothing-like-this"]) == 2
