"""Agents for hidden information (Dominoes): they see only views, cannot peek, beat the
baselines; perfect-information searches refuse the game; the arena hands out views only."""

import numpy as np
import pytest

from board_arena import agents, arena, engines
from board_arena.engines import contract
from board_arena.engines.game import State
from board_arena.kernels import rng_from_seed

DOMINOES = engines.make("dominoes")
HONEST = ["random", "greedy", "pimc:worlds=8", "ismcts:iterations=400"]


def midgame(seed, plies):
    state = DOMINOES.new_initial_state(seed)
    choose = np.random.default_rng(seed)
    for _ in range(plies):
        state.apply(int(choose.choice(state.legal_moves())))
    return state


def another_world(state, player, seed):
    """A true state with the same view for ``player`` as ``state`` but other hidden tiles."""
    view = state.view(player)
    rng = rng_from_seed(seed)
    buf = np.zeros(1, DOMINOES.kernels.STATE_DTYPE)
    for _ in range(100):
        assert contract.sample_world(view.data, rng, buf[0])
        if buf[0]["hands"][1 - player] != state.data["hands"][1 - player]:
            return State(DOMINOES, buf, None, state.history, custom_start=True)
    raise AssertionError("no other world found")


@pytest.mark.parametrize("spec", HONEST)
def test_an_agent_cannot_peek(spec):
    """Two true states that differ in the opponent's hand and the boneyard but look the same to
    the mover give an agent of a fixed seed the same view, so the same move."""
    for seed in range(4):
        state = midgame(seed, plies=3 + seed)
        mover = state.current_player
        other = another_world(state, mover, seed)
        assert other.data["hands"][1 - mover] != state.data["hands"][1 - mover]
        first = agents.make_agent(spec, seed=9).select_move(agents.make_agent(spec).observe(state, mover))
        second = agents.make_agent(spec, seed=9).select_move(agents.make_agent(spec).observe(other, mover))
        assert first == second


@pytest.mark.parametrize("spec", HONEST)
def test_an_agent_given_the_whole_state_searches_only_the_movers_view(spec):
    """A researcher's own game loop may hand an agent the game's state instead of the view: the
    agent takes the mover's view itself, so two states with one view still give one move, and
    that move is the one it chooses from the view."""
    for seed in range(4):
        state = midgame(seed, plies=3 + seed)
        mover = state.current_player
        other = another_world(state, mover, seed)
        moves = [agents.make_agent(spec, seed=9).select_move(s) for s in (state, other, state.view(mover))]
        assert moves[0] == moves[1] == moves[2]


def test_a_view_of_the_player_not_to_move_is_refused_and_the_cheat_needs_the_state():
    state = midgame(1, plies=4)
    idle = 1 - state.current_player
    with pytest.raises(ValueError, match=f"this is player {idle}'s view, but player {1 - idle} is to move"):
        agents.make_agent("ismcts:iterations=50").select_move(state.view(idle))
    with pytest.raises(ValueError, match="cheat searches the whole state, and this is player"):
        agents.make_agent("cheat:depth=2").select_move(state.view(state.current_player))
    assert agents.make_agent("cheat:depth=2").select_move(state) in state.legal_moves()


@pytest.mark.parametrize("spec", ["minimax", "alphabeta", "mcts"])
def test_perfect_information_searches_refuse_hidden_information(spec):
    with pytest.raises(ValueError, match="searches the full state, which dominoes hides; use a hidden-information agent"):
        agents.play_game(DOMINOES, [agents.make_agent(spec), agents.make_agent("random")])


@pytest.mark.parametrize("spec", ["pimc", "ismcts"])
def test_world_samplers_refuse_games_without_hidden_information(spec):
    with pytest.raises(ValueError, match="hides nothing"):
        agents.play_game(engines.make("kalah"), [agents.make_agent(spec), agents.make_agent("random")])


def points(spec, opponent, games=60):
    total = 0.0
    for g in range(games):
        players = [agents.make_agent(spec, seed=g), agents.make_agent(opponent, seed=1000 + g)]
        seat = g % 2
        if seat:
            players.reverse()
        final = agents.play_game(DOMINOES, players, seed=g // 2)  # both seats from each deal
        total += (final.returns()[seat] + 1) / 2
    return total / games


@pytest.mark.parametrize("spec", ["pimc:worlds=20", "ismcts:iterations=1000"])
def test_hidden_information_agents_beat_random(spec):
    """Dominoes is a game of luck (a perfect player who sees every hand scores about 97% against
    random); over 100 games these searches score about 70%."""
    assert points(spec, "random", games=100) >= 0.6


def test_the_cheating_reference_sees_the_whole_state():
    seen = []

    class Recorder(agents.Agent):
        name = "recorder"
        plays_hidden_information = True

        def _select(self, state, limit):
            seen.append(state.viewer)
            return agents.SearchInfo(move=state.legal_moves()[0])

    class SeeingRecorder(Recorder):
        sees_everything = True

    agents.play_game(DOMINOES, [Recorder(), SeeingRecorder()], seed=1)
    assert None in seen and {0, 1} & set(seen)  # the honest one got views, the cheat the state


def test_the_arena_gives_agents_only_their_view(tmp_path):
    registry = agents.base.agent_registry()

    @agents.register_agent
    class ViewChecker(agents.Agent):
        name = "test-view-checker"
        plays_hidden_information = True

        def _select(self, state, limit):
            mover = state.current_player
            assert state.viewer == mover
            assert state.data["hands"][1 - mover] == 0, "the opponent's hand leaked into the view"
            return agents.SearchInfo(move=state.legal_moves()[0])

    try:
        settings = arena.TournamentSettings.create("dominoes", ["random", "test-view-checker"], games=4)
        run = arena.run_tournament(settings, str(tmp_path / "views"), concurrency=1, progress=False)
    finally:
        agents.base.restore_agent_registry(registry)
    assert all(g.end_reason == "rules" for g in run.games)


@pytest.mark.parametrize("spec", ["pimc:time=0.02", "ismcts:time=0.02", "cheat:nodes=500"])
def test_hidden_information_agents_under_other_budgets(spec):
    state = midgame(1, plies=4)
    agent = agents.make_agent(spec, seed=0)
    assert agent.select_move(agent.observe(state, state.current_player)) in state.legal_moves()


def test_pimc_spends_its_whole_time_budget():
    game = engines.make("dominoes")
    pimc = agents.make_agent("pimc:worlds=2", seed=1)
    state = game.new_initial_state(3)
    pimc.select_move(state, agents.Limit(time=0.05))  # compiles
    pimc.select_move(state, agents.Limit(time=0.2))
    # Two worlds' searches end long before 0.2 s on this small position: more worlds fill the time.
    assert pimc.last_search.simulations > 2 and pimc.last_search.seconds >= 0.15
