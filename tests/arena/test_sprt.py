"""The sequential probability ratio test of ``arena run --sprt`` (arena.statistics.sprt): error
rates that match alpha and beta, pentanomial counts of game pairs, a decision that does not depend
on the order games come back in, a run that stops early, resumes and reports its verdict, and bad
SPRT settings refused in one line."""

import numpy as np
import pytest

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

TINY = "kalah:pits=3,seeds=2"


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


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--sprt", "elo0=0,elo1=10", "--agent", "greedy"], "exactly two agents"),
        (["--sprt", "elo0=0,elo1=10", "--noswap"], "exactly two agents and seat swapping"),
        (["--sprt", "elo0=5,elo1=1"], "elo0 must be less than elo1"),
    ],
)
def test_bad_sprt_options_are_one_line_errors(extra, message, tmp_path, capsys):
    code = main(["run", "--game", TINY, "--agents", "greedy,random", "--games", "2", "--out", str(tmp_path / "r"), "--quiet"] + extra)
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
