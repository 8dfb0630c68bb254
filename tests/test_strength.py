"""The arena as a strength-testing instrument: openings, the pentanomial SPRT, gauntlets, agent
plugins (issue 13, part A)."""

import os
import subprocess
import sys

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.arena import TournamentSettings, run_tournament
from board_arena.arena.cli import main
from board_arena.arena.statistics.sprt import (
    Sprt,
    SprtWatch,
    elo_to_score,
    format_sprt,
    pair_stats,
    pentanomial,
)
from board_arena.arena.tournament.openings import Openings, opening_length

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCORE_GREEDY = os.path.join(ROOT, "experiments", "plugins", "score_greedy.py")
OPENSPIEL_ADAPTER = os.path.join(ROOT, "experiments", "plugins", "openspiel_mcts.py")
TINY = "kalah:pits=3,seeds=2"


# Each test's plugins leave the registry as it was (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("forget_plugins")


# -- SPRT ------------------------------------------------------------------------------------------


def pair_distribution(elo: float, draw: float = 0.3) -> np.ndarray:
    """Pair outcome probabilities when the two games of a pair are independent trinomial games
    with the logistic expected score of ``elo`` and draw rate ``draw``."""
    s = float(elo_to_score(elo))
    game = np.array([(1 - draw) / 2 - (s - 0.5), draw, (1 - draw) / 2 + (s - 0.5)])  # loss, draw, win
    pair = np.zeros(5)
    for i in range(3):
        for j in range(3):
            pair[i + j] += game[i] * game[j]
    return pair


def simulate(test: Sprt, probs: np.ndarray, runs: int, seed: int, max_pairs: int = 5000) -> np.ndarray:
    """Runs ``runs`` SPRTs side by side on pairs drawn from ``probs``; each run's decision
    (1: H1, -1: H0, 0: undecided at ``max_pairs``)."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((runs, 5))
    decision = np.zeros(runs, int)
    low, high = test.bounds
    for _ in range(max_pairs):
        active = np.flatnonzero(decision == 0)
        if not len(active):
            break
        counts[active, rng.choice(5, size=len(active), p=probs)] += 1
        llr = test.llrs(counts[active])
        decision[active[llr >= high]] = 1
        decision[active[llr <= low]] = -1
    return decision


@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_sprt_error_rates_match_alpha_and_beta(model):
    # The normalized model's fit iterates: fewer runs keep the test to a few seconds.
    # (and a wider Elo gap: the number of pairs a test takes falls with its square).
    alpha, beta, runs = 0.05, 0.1, 600 if model == "logistic" else 300
    elo1 = 40 if model == "logistic" else 80
    test = Sprt(0, elo1, alpha=alpha, beta=beta, model=model)
    if model == "logistic":
        at_elo0, at_elo1 = pair_distribution(0), pair_distribution(elo1)
    else:  # a normalized Elo is in units of the pair's spread: find the logistic Elo that gives 40
        at_elo0 = pair_distribution(0)
        elos = np.linspace(1, 200, 800)
        t = []
        for e in elos:
            p = pair_distribution(e)
            mu = (p * np.arange(5) / 4).sum()
            t.append((mu - 0.5) / np.sqrt((p * (np.arange(5) / 4 - mu) ** 2).sum()) / np.sqrt(2) * 800 / np.log(10))
        at_elo1 = pair_distribution(float(np.interp(elo1, t, elos)))
    false_positive = (simulate(test, at_elo0, runs, seed=1) == 1).mean()
    false_negative = (simulate(test, at_elo1, runs, seed=2) == -1).mean()
    # Wald's bounds make the true rates at most about alpha and beta (the overshoot of the bound
    # makes them a little smaller); 3 binomial standard errors of room above.
    assert false_positive <= alpha + 3 * np.sqrt(alpha * (1 - alpha) / runs)
    assert false_negative <= beta + 3 * np.sqrt(beta * (1 - beta) / runs)
    # ... and not far below either: the test is not simply more cautious than it claims.
    assert false_positive >= alpha / 3 and false_negative >= beta / 3


def test_sprt_decides_for_a_clear_difference_and_keeps_playing_on_no_evidence():
    test = Sprt.parse("elo0=0,elo1=10")
    assert test.llr([0, 0, 0, 0, 0]) == 0 and test.decision(0.0) is None
    assert test.decision(test.llr([10, 60, 200, 80, 30])) == "H1"
    assert test.decision(test.llr([30, 80, 200, 60, 10])) == "H0"
    stats = pair_stats([1, 2, 10, 4, 3])
    assert stats.pairs == 20 and stats.elo_low < stats.elo < stats.elo_high and 0.5 < stats.los < 1


@pytest.mark.parametrize(
    "text, message",
    [
        ("elo0=10,elo1=0", "elo0 must be less than elo1"),
        ("elo1=10", "needs elo0 and elo1"),
        ("elo0=0,elo1=x", "must be a number"),
        ("elo0=0,elo1=10,alpha=0.7", "alpha must be between"),
        ("elo0=0,elo1=10,model=bayes", "model must be one of"),
        ("elo0=0,elo1=10,gamma=1", "bad SPRT setting"),
        ("elo0=0,elo1=300,model=normalized", "normalized model must lie within"),
    ],
)
def test_bad_sprt_values_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        Sprt.parse(text)


def test_pentanomial_counts_equal_a_hand_count(tmp_path):
    settings = TournamentSettings.create(TINY, ["greedy", "random"], games=12, openings="random:3", sprt="elo0=0,elo1=100")
    run = run_tournament(settings, str(tmp_path / "run"), concurrency=1, progress=False)
    games = {g.id: g for g in run.games}
    hand = [0] * 5
    for pair in range(len(games) // 2):  # one pairing: games 2k and 2k+1 are a pair
        first, second = games[2 * pair], games[2 * pair + 1]
        assert first.game_seed == second.game_seed and first.player0 == second.player1 == "greedy"
        assert first.moves[:3] == second.moves[:3]  # the same opening for both games of a pair
        points = first.score_for(0) + second.score_for(1)
        hand[int(points * 2)] += 1
    # The run may stop early on its SPRT: the counts are over the complete pairs.
    assert pentanomial(settings, run.games) == hand
    assert SprtWatch(settings, run.games).counts == hand


def test_an_sprt_run_stops_resumes_and_reports(tmp_path, capsys):
    out = str(tmp_path / "sprt")
    args = ["run", "--game", TINY, "--agents", "alphabeta:depth=4,random", "--openings", "random:2",
            "--sprt", "elo0=0,elo1=50", "--games", "400", "--concurrency", "2", "--out", out, "--quiet"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert "H1 accepted" in first and "LLR" in first and "LOS" in first and "Pentanomial" in first
    played = int(first.split("Games: ")[1].split(" ")[0])
    assert played < 400  # stopped early
    assert main(args) == 0  # decided: nothing more is played
    again = capsys.readouterr().out
    assert f"Games: {played} of 400 played" in again and "H1 accepted" in again


def test_the_verdict_gives_the_deciding_llr_and_names_the_games_played_out_after_it(tmp_path):
    # The games of a match played without a test, read as if an SPRT had watched them: it decides
    # early, and the later games stand for those in flight at the decision (played out, stored).
    plain = TournamentSettings.create(TINY, ["alphabeta:depth=4", "random"], games=60, openings="random:2")
    run = run_tournament(plain, str(tmp_path / "run"), concurrency=1, progress=False)
    settings = TournamentSettings.create(TINY, ["alphabeta:depth=4", "random"], games=60, openings="random:2", sprt="elo0=0,elo1=50")
    watch = SprtWatch(settings, run.games)
    assert watch.decision == "H1" and 2 * watch.decided_after < len(run.games)
    verdict = format_sprt(settings, run.games)[1]
    late = len(run.games) - 2 * watch.decided_after
    assert verdict.startswith(f"  LLR {watch.decided_llr:.2f} ")
    assert f"H1 accepted after {watch.decided_after} pairs; with the {late} games in flight then" in verdict
    assert verdict.endswith(f"LLR {Sprt(**settings.sprt).llr(pentanomial(settings, run.games)):.2f}")


def test_the_decision_does_not_depend_on_the_order_games_come_back_in(tmp_path):
    """Pairs count in schedule order only, so games arriving in any order (as from several
    workers) give the decision after the same pairs as the stored games replayed by id."""
    plain = TournamentSettings.create(TINY, ["alphabeta:depth=4", "random"], games=60, openings="random:2")
    run = run_tournament(plain, str(tmp_path / "run"), concurrency=1, progress=False)
    settings = TournamentSettings.create(TINY, ["alphabeta:depth=4", "random"], games=60, openings="random:2", sprt="elo0=0,elo1=50")
    in_order = SprtWatch(settings, run.games)
    assert in_order.decision == "H1"
    rng = np.random.default_rng(0)
    for _ in range(20):
        shuffled = SprtWatch(settings)  # games added one by one as they come back, as in a run
        for i in rng.permutation(len(run.games)):
            shuffled.add(run.games[i])
        assert (shuffled.decision, shuffled.decided_after, shuffled.decided_llr) == (
            in_order.decision, in_order.decided_after, in_order.decided_llr)


def test_an_sprt_run_sends_one_pair_at_a_time_so_few_games_are_played_after_it_decides(tmp_path):
    """Fast games travel in batches of dozens; under an SPRT a batch is one pair, so at most the
    few games the workers hold are played out after the decision."""
    settings = TournamentSettings.create(TINY, ["alphabeta:depth=4", "random"], games=2000, openings="random:2", sprt="elo0=0,elo1=50")
    run = run_tournament(settings, str(tmp_path / "run"), concurrency=2, progress=False)
    watch = SprtWatch(settings, run.games)
    assert watch.decision == "H1"
    assert len(run.games) - 2 * watch.decided_after <= 16  # 2 workers x 2 batches x 2 games, twice over


def test_pair_statistics_of_a_clean_sweep_are_infinite_not_a_clipped_number():
    sweep = pair_stats([0, 0, 0, 0, 20])
    assert sweep.elo == sweep.elo_low == sweep.elo_high == float("inf") and sweep.los == 1.0
    nearly = pair_stats([0, 0, 0, 1, 20])
    assert 0 < nearly.elo_low < nearly.elo < float("inf") == nearly.elo_high


# -- openings --------------------------------------------------------------------------------------


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
        (["--sprt", "elo0=0,elo1=10", "--agent", "greedy"], "exactly two agents"),
        (["--sprt", "elo0=0,elo1=10", "--noswap"], "exactly two agents and seat swapping"),
        (["--sprt", "elo0=5,elo1=1"], "elo0 must be less than elo1"),
        (["--plugin", "no/such/plugin.py"], "no such file"),
        (["--plugin", "no_such_plugin_module"], "no such module"),
    ],
)
def test_bad_strength_options_are_one_line_errors(extra, message, tmp_path, capsys):
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


# -- gauntlet --------------------------------------------------------------------------------------


def test_a_gauntlet_plays_the_first_agent_against_each_other_only(tmp_path):
    settings = TournamentSettings.create(TINY, ["greedy", "random", "alphabeta:depth=2", "mcts:iterations=20"], games=2, gauntlet=True)
    assert settings.pairings == [(0, 1), (0, 2), (0, 3)]
    run = run_tournament(settings, str(tmp_path / "g"), concurrency=1, progress=False)
    assert len(run.games) == 6 and all("greedy" in (g.player0, g.player1) for g in run.games)
    assert sorted(run.ratings().names) == sorted(settings.labels)


# -- plugins ---------------------------------------------------------------------------------------


def test_a_pure_python_plugin_agent_plays_a_tournament_on_two_workers_and_play_game(tmp_path, capsys):
    out = str(tmp_path / "plugin")
    code = main(["run", "--game", TINY, "--agents", "score-greedy,random", "--plugin", SCORE_GREEDY,
                 "--games", "6", "--concurrency", "2", "--out", out, "--quiet"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "Games: 6 of 6 played" in printed.out and "error in seat" not in printed.out
    assert "score-greedy" in agents.available_agents()
    final = agents.play_game(engines.make("kalah", pits=3, seeds=2), [agents.make_agent("score-greedy", seed=1), agents.make_agent("random", seed=2)], seed=0)
    assert final.is_terminal()


def test_spawned_workers_load_the_plugins_too(tmp_path, monkeypatch):
    import multiprocessing

    from board_arena.arena.tournament import pool

    monkeypatch.setattr(pool, "worker_context", lambda: multiprocessing.get_context("spawn"))
    settings = TournamentSettings.create(TINY, ["score-greedy", "random"], games=4, plugins=[SCORE_GREEDY])
    run = run_tournament(settings, str(tmp_path / "spawn"), concurrency=2, progress=False)
    assert len(run.games) == 4 and all(g.end_reason == "rules" for g in run.games)


def test_arena_play_against_a_plugin_agent(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "board_arena.arena.cli", "play", "--game", TINY, "--opponent", "score-greedy", "--plugin", SCORE_GREEDY,
         "--first", "agent", "--record", str(tmp_path / "g.json")],
        input="moves\n1\n" * 20,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert any(v in done.stdout for v in ("You win!", "The agent wins.", "It's a draw."))


def test_a_plugin_that_fails_on_import_is_a_one_line_error(tmp_path, capsys):
    broken = tmp_path / "broken.py"
    broken.write_text("raise RuntimeError('no licence key')\n")
    assert main(["list", "--plugin", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "RuntimeError: no licence key" in err and len(err.strip().splitlines()) == 1


def test_an_installed_package_brings_its_agent_through_its_entry_point_when_first_named(tmp_path):
    """A distribution's ``board_arena.agents`` entry points (a dist-info folder on the path, as pip
    writes it) are loaded at the first agent name not built in, and only then: built-in agents
    and games never scan the installed packages. The agent plays a run on worker processes."""
    info = tmp_path / "faulty_dist-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: faulty-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[board_arena.agents]\nfaulty = tests.plugins.faulty_agents:FaultyAgent\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, str(tmp_path)])}
    script = (  # the entry-point groups of this package that are read, in order
        "import importlib.metadata as metadata\n"
        "read, entry_points = [], metadata.entry_points\n"
        "def reading(**selection):\n"
        "    if str(selection.get('group')).startswith('board_arena'):\n"
        "        read.append(selection['group'])\n"
        "    return entry_points(**selection)\n"
        "metadata.entry_points = reading\n"
        "from board_arena import agents, engines\n"
        "agents.make_agent('random'); engines.make('kalah')\n"
        "print(read)\n"
        "print(agents.make_agent('faulty').name, read)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "faulty ['board_arena.agents']"]
    run = subprocess.run(
        [sys.executable, "-m", "board_arena.arena.cli", "run", "--game", TINY, "--agents", "faulty:after=1000,random",
         "--games", "2", "--concurrency", "2", "--out", str(tmp_path / "run"), "--quiet"],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env=env,
    )
    assert run.returncode == 0, run.stderr
    assert "Games: 2 of 2 played" in run.stdout


def test_a_plugin_file_is_kept_by_its_absolute_path(tmp_path, monkeypatch):
    """Named relative to one folder, the run resumes from another, and the same file named by
    its absolute path is the same run."""
    monkeypatch.chdir(os.path.dirname(SCORE_GREEDY))
    relative = TournamentSettings.create(TINY, ["score-greedy", "random"], games=2, plugins=["score_greedy.py"])
    monkeypatch.chdir(tmp_path)
    absolute = TournamentSettings.create(TINY, ["score-greedy", "random"], games=2, plugins=[SCORE_GREEDY])
    assert relative.plugins == absolute.plugins == (SCORE_GREEDY,) and not relative.differences(absolute)


def test_a_plugin_loaded_from_python_is_recorded_by_the_run_that_uses_its_agent():
    from board_arena.agents.plugins import load_plugin

    load_plugin(SCORE_GREEDY)
    uses = TournamentSettings.create(TINY, ["score-greedy", "random"], games=2)
    assert uses.plugins == (SCORE_GREEDY,)
    assert TournamentSettings.create(TINY, ["greedy", "random"], games=2).plugins == ()


def test_a_plugin_whose_own_import_is_missing_names_that_import(tmp_path, monkeypatch, capsys):
    # (the missing module's name begins the plugin's, as torch begins torch_agent)
    (tmp_path / "missingdep_agent.py").write_text("import missingdep\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["list", "--plugin", "missingdep_agent"]) == 2
    err = capsys.readouterr().err
    assert "No module named 'missingdep'" in err and "no such module" not in err


# -- the OpenSpiel adapter -------------------------------------------------------------------------


@pytest.mark.parametrize("game_name", ["kalah", "nine-mens-morris"])
def test_the_openspiel_mcts_adapter_plays_whole_games(game_name):
    pytest.importorskip("pyspiel")
    from board_arena.agents.plugins import load_plugin

    load_plugin(OPENSPIEL_ADAPTER)
    game = engines.make(game_name)
    for seed in range(2):
        players = [agents.make_agent("openspiel-mcts:simulations=50", seed=seed), agents.make_agent("random", seed=seed)]
        if seed:
            players.reverse()
        final = agents.play_game(game, players, seed=seed)  # every move's replay checks the legal moves
        assert final.is_terminal()
    with pytest.raises(ValueError, match="plays kalah"):
        agents.make_agent("openspiel-mcts").check_game(engines.make("konane"))


# -- time parity -----------------------------------------------------------------------------------


def test_pimc_spends_its_whole_time_budget():
    game = engines.make("dominoes")
    pimc = agents.make_agent("pimc:worlds=2", seed=1)
    state = game.new_initial_state(3)
    pimc.select_move(state, agents.Limit(time=0.05))  # compiles
    pimc.select_move(state, agents.Limit(time=0.2))
    # Two worlds' searches end long before 0.2 s on this small position: more worlds fill the time.
    assert pimc.last_search.simulations > 2 and pimc.last_search.seconds >= 0.15
