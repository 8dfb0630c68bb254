"""Time controls (``--tc``, arena.tournament.clock): the syntax and its errors, the clocks of a game, the
budget an agent takes from its clock (agents.Agent.time_budget), games lost on time, and runs
under a clock that reproduce, resume and verify."""

import os

import pytest

from board_arena import agents
from board_arena.agents import Agent, Limit, SearchInfo
from board_arena.arena import TournamentSettings, load_run, run_tournament
from board_arena.arena.cli import main
from board_arena.arena.tournament.clock import (
    GameClock,
    TimeControl,
    parse_time_control,
)
from board_arena.arena.tournament.export import export_run, read_records
from board_arena.arena.tournament.verify import verify_run
from board_arena.arena.tournament.worker import GamePlayer

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FAULTY = os.path.join(ROOT, "tests", "plugins", "faulty_agents.py")
#: Agents whose moves do not depend on time: their own limits end every search long before a
#: generous clock's share does.
DETERMINISTIC = ["alphabeta:depth=3", "mcts:iterations=100"]


# -- the syntax ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,control,spec",
    [
        ("10+0.1", TimeControl(10.0, 0.1), "10+0.1"),
        ("40/60", TimeControl(60.0, 0.0, 40), "40/60"),
        ("40/60+0.5", TimeControl(60.0, 0.5, 40), "40/60+0.5"),
        ("1:30+1", TimeControl(90.0, 1.0), "90+1"),
        (" .5 ", TimeControl(0.5), "0.5"),
    ],
)
def test_a_time_control_reads_as_cutechess_writes_it(text, control, spec):
    assert parse_time_control(text) == control
    assert control.spec == spec and parse_time_control(spec) == control


@pytest.mark.parametrize(
    "text,message",
    [
        ("ten", "write SECONDS+INCREMENT or MOVES/SECONDS[+INCREMENT]"),
        ("10+", "write SECONDS+INCREMENT"),
        ("40/", "write SECONDS+INCREMENT"),
        ("-5", "write SECONDS+INCREMENT"),
        ("1e3", "write SECONDS+INCREMENT"),
        ("inf", "write SECONDS+INCREMENT"),
        ("0+1", "time must be above 0"),
        ("0/60", "moves per period must be from 1"),
        ("10+100000", "increment must be from 0 to 86400"),
    ],
)
def test_a_bad_time_control_is_one_line_that_says_what_is_allowed(text, message, capsys):
    with pytest.raises(ValueError, match="bad time control") as error:
        parse_time_control(text)
    assert message in str(error.value) and "\n" not in str(error.value)
    assert main(["run", "--game", "kalah", "--agents", "random,greedy", "--tc", text, "--out", os.devnull]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena run: error: bad time control") and err.count("\n") == 1


# -- the clocks of a game --------------------------------------------------------------------


def test_a_clock_takes_each_move_off_adds_the_increment_and_refills_after_a_period():
    clock = GameClock(parse_time_control("3/10+0.5"))
    assert clock.moves_to_go(0) == 3 and clock.remaining == [10.0, 10.0]
    for expected_to_go, expected_left in ((2, 8.5), (1, 7.0), (3, 15.5)):  # the third move refills
        assert clock.charge(0, 2.0)
        assert clock.moves_to_go(0) == expected_to_go and clock.remaining[0] == pytest.approx(expected_left)
    assert clock.remaining[1] == 10.0 and clock.moves_to_go(1) == 3, "the other side's clock stands still"
    assert not GameClock(parse_time_control("1")).charge(1, 1.5, margin=0.4), "0.5 s over a margin of 0.4"
    within = GameClock(parse_time_control("1"))
    assert within.charge(1, 1.3, margin=0.4) and within.remaining[1] == pytest.approx(-0.3)


# -- the budget an agent takes from its clock -------------------------------------------------


def test_the_budget_shrinks_with_the_clock_uses_the_increment_and_never_exceeds_the_clock():
    agent = agents.make_agent("alphabeta")
    budget = agent.time_budget
    assert budget(Limit()) is None and budget(Limit(time=0.5)) == 0.5, "no clock: the time as given"
    full, half = budget(Limit(remaining=60.0)), budget(Limit(remaining=30.0))
    assert full == pytest.approx(60.0 / Agent.MOVES_HORIZON) and half == pytest.approx(full / 2)
    assert budget(Limit(remaining=30.0, increment=1.0)) == pytest.approx(half + Agent.INCREMENT_SHARE)
    assert budget(Limit(remaining=30.0, moves_to_go=3)) == pytest.approx(10.0), "shared among the moves to the refill"
    for remaining, increment, to_go in ((1.0, 0.0, 1), (0.2, 5.0, None), (0.05, 1.0, 2)):
        spent = budget(Limit(remaining=remaining, increment=increment, moves_to_go=to_go))
        assert 0 < spent <= remaining * (1 - Agent.SAFETY_SHARE), "never beyond the clock less its safety share"
    assert budget(Limit(remaining=-0.2)) == Agent.MIN_MOVE_TIME, "an overdrawn clock (within the margin) still moves"
    assert budget(Limit(remaining=60.0, time=0.1)) == 0.1 and budget(Limit(remaining=0.3, time=5.0)) < 0.3, "the smaller wins"


class _ClockReader(Agent):
    """Plays the first legal move and keeps every limit it was given (the test's own agent)."""

    name = "clock-reader"

    def reset(self, seed=None):
        super().reset(seed)
        self.limits = []

    def _select(self, state, limit):
        self.limits.append(limit)
        return SearchInfo(move=int(state.legal_moves()[0]))


def test_an_agent_is_told_its_clock_and_searches_for_its_share_of_it(forget_plugins):
    agents.register_agent(_ClockReader)
    settings = TournamentSettings.create(
        "kalah", ["clock-reader", "random"], games=2, time_control="20/10+0.5", openings="random:4"
    )
    player = GamePlayer(settings, warm_up=False)
    scheduled = next(iter(settings.schedule()))
    result = player.play(scheduled)
    reader = player._agents[0]
    assert result.end_reason == "rules" and len(reader.limits) == (result.moves0, result.moves1)[scheduled.players.index(0)]
    first = reader.limits[0]
    assert first.remaining == 10.0, "the opening's plies are free: the clock starts with the agents"
    assert first.increment == 0.5 and first.moves_to_go == 20
    assert first.time == pytest.approx(reader.time_budget(Limit(remaining=10.0, increment=0.5, moves_to_go=20)))
    assert [limit.moves_to_go for limit in reader.limits[:3]] == [20, 19, 18]
    assert all(0 < limit.time <= max(limit.remaining, 0) + 0.5 for limit in reader.limits)


def test_with_a_move_time_and_a_clock_a_move_gets_the_smaller_and_the_kill_comes_at_the_smaller():
    settings = TournamentSettings.create("kalah", ["mcts:iterations=100", "random"], games=2, move_time=0.5,
                                         time_control="10", tc_margin=0.25)
    player = GamePlayer(settings, warm_up=False)
    agent = agents.make_agent("mcts:iterations=100")
    clock = GameClock(settings.time_control)
    limit, allowed = player._budget(agent, clock, 0)
    assert limit.time == 0.5 and limit.iterations is None, "the move time replaces the agent's own budget, as without a clock"
    assert limit.remaining == 10.0 and allowed == 0.75
    clock.remaining[0] = 0.2
    limit, allowed = player._budget(agent, clock, 0)
    assert allowed == pytest.approx(0.45) and agent.time_budget(limit) < 0.2, "the clock is the smaller now"
    own, _ = GamePlayer(TournamentSettings.create("kalah", ["mcts:iterations=100", "random"], games=2, time_control="10"),
                        warm_up=False)._budget(agent, GameClock(settings.time_control), 1)
    assert own.iterations == 100 and own.time is None and own.remaining == 10.0, "without a move time: the agent's own budget"


# -- games under a clock ---------------------------------------------------------------------


@pytest.mark.usefixtures("forget_plugins")
@pytest.mark.parametrize("concurrency", [1, 2])
def test_an_agent_that_lets_its_clock_run_out_loses_on_time_and_the_tournament_goes_on(tmp_path, concurrency):
    """Its fourth move onwards takes 0.4 s of a clock of 1 s: within the margin of 0.2 s once, past
    it the next time (the search returns late at concurrency 1 here; at 2 it is stopped)."""
    settings = TournamentSettings.create(
        "kalah", ["faulty:fault=hang,sleep=0.4,after=6", "random", "greedy"], games=2, seed=1,
        time_control="1", tc_margin=0.2, plugins=[FAULTY],
    )
    run = run_tournament(settings, str(tmp_path / "run"), concurrency=concurrency, progress=False)
    assert sorted(g.id for g in run.games) == list(range(settings.total_games))
    for g in run.games:
        if "faulty" not in g.player0 + g.player1:
            assert g.end_reason == "rules"
            continue
        seat = 0 if g.player0.startswith("faulty") else 1
        assert g.end_reason.startswith(f"lost on time in seat {seat} (faulty:fault=hang,sleep=0.4,after=6): "), g.end_reason
        assert g.score_for(seat) == 0.0 and (g.time0, g.time1)[seat] > 1.2
    report = run.write_report(plots=False)
    assert "Games not ended by the rules:\n  lost on time: 4 (faulty:fault=hang,sleep=0.4,after=6 4)" in report
    assert verify_run(str(tmp_path / "run"))[2] == []


def test_games_under_a_generous_clock_reproduce_and_match_the_games_without_one(tmp_path):
    """Agents whose own limits end every search play the same games with and without a clock,
    at any concurrency."""

    def played(folder, concurrency, **clock):
        settings = TournamentSettings.create("kalah", DETERMINISTIC, games=4, seed=3, **clock)
        run = run_tournament(settings, str(tmp_path / folder), concurrency=concurrency, progress=False)
        assert all(g.end_reason == "rules" for g in run.games)
        return sorted((g.id, tuple(g.moves), g.result) for g in run.games)

    clocked = played("tc", 1, time_control="600+1")
    assert played("tc-again", 2, time_control="600+1") == clocked
    assert played("no-clock", 2) == clocked


def test_a_run_under_a_clock_stores_it_resumes_with_it_and_refuses_another(tmp_path):
    folder = str(tmp_path / "run")
    settings = TournamentSettings.create("kalah:pits=4,seeds=3", DETERMINISTIC, games=2, time_control="40/100+0.5")
    run_tournament(settings, folder, concurrency=1, progress=False)
    stored = load_run(folder).settings
    assert stored.time_control == TimeControl(100.0, 0.5, 40) and stored == settings
    assert "clock 100 s per 40 moves + 0.5 s per move" in stored.describe()
    more = TournamentSettings.create("kalah:pits=4,seeds=3", DETERMINISTIC, games=4, time_control="40/100+0.5")
    assert len(run_tournament(more, folder, concurrency=1, progress=False).games) == 4
    for other in ("40/100", None):
        with pytest.raises(ValueError, match="time_control: '40/100"):
            run_tournament(TournamentSettings.create("kalah:pits=4,seeds=3", DETERMINISTIC, games=4, time_control=other), folder,
                           concurrency=1, progress=False)
    assert verify_run(folder)[2] == []
    # An export names the clock as PGN does (the runs without one: no tag,
    # tests/arena/test_run_data.py).
    path, count = export_run(folder, str(tmp_path / "games.txt"))
    assert count == 4 and all(r.tags["TimeControl"] == "40/100+0.5" and "MoveTime" not in r.tags for r in read_records(path))


def test_settings_without_a_clock_store_and_name_their_folder_as_before():
    settings = TournamentSettings.create("kalah", ["random", "greedy"], games=2)
    assert "time_control" not in settings.to_dict()
    assert TournamentSettings.from_json(settings.to_json()) == settings
    clocked = TournamentSettings.create("kalah", ["random", "greedy"], games=2, time_control="10+0.1")
    assert clocked.to_dict()["time_control"] == "10+0.1" and TournamentSettings.from_json(clocked.to_json()) == clocked
    assert clocked.default_out_dir() != settings.default_out_dir()


def test_the_report_counts_the_ends_by_kind_and_agent_and_lists_the_most_frequent_reasons():
    from board_arena.arena.tournament.report import MAX_END_REASONS, format_end_reasons
    from board_arena.arena.tournament.store import GameResult

    def game(i, end_reason, players=("a", "b")):
        return GameResult(i, *players, *players, 0, 0, 0, [], 0.0, 0, 0, 0.0, 0.0, 0, 0, end_reason=end_reason)

    late = [game(i, f"lost on time in seat {i % 2} (x): no move after {i}.5 s") for i in range(20)]
    games = [game(100, "rules"), *late, game(101, "crash in seat 0 (x): died"), game(102, "ply cap")]
    lines = format_end_reasons(games)
    assert lines[:4] == ["Games not ended by the rules:", "  lost on time: 20 (a 10, b 10)", "  crash: 1 (a 1)", "  ply cap: 1"]
    assert len(lines) == 4 + MAX_END_REASONS + 1 and lines[-1].startswith(f"  ... and {22 - MAX_END_REASONS} other reasons")
    assert format_end_reasons([game(0, "rules")]) == []
