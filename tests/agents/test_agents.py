"""Agents: spec syntax, reproducibility, alpha-beta against the minimax reference on every
perfect-information game, exact solutions of small Kalah games, tactics, and strength."""

from pathlib import Path

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.agents.alphabeta import (
    HISTORY_SIZE,
    alphabeta_search,
    find_entry,
    new_table,
    replaced_entry,
)
from board_arena.agents.base import Limit
from board_arena.agents.mcts import (
    COUNT_NODES,
    COUNT_RECORDS,
    COUNT_SIMULATIONS,
    NO_NODE,
    NODE,
    ROOT,
    UCT,
    grow_tree,
    init_tree,
    mcts_run,
)
from board_arena.engines import contract
from board_arena.kernels import rng_from_seed
from tests.support.search import minimax_score

PERFECT_INFORMATION_GAMES = [
    name for name in engines.available_games() if engines.game_class(name).perfect_information
]


def random_positions(game, count, seed):
    """Non-terminal positions reached by random play of random length from seeded starts."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        state = game.new_initial_state(int(rng.integers(1 << 30)))
        for _ in range(int(rng.integers(0, 60))):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_moves())))
        if not state.is_terminal():
            positions.append(state)
    return positions


def alphabeta_score(state, depth, table=None, history=None):
    result = np.zeros(4)
    table = new_table(1) if table is None else table
    history = np.zeros(HISTORY_SIZE, np.int64) if history is None else history
    alphabeta_search(state.data, depth, 2**62, 0, table, history, rng_from_seed(0), result)
    return result[0]


# -- spec syntax -----------------------------------------------------------------------------


def test_specs_make_agents_with_typed_parameters():
    agent = agents.make_agent("mcts:iterations=2000,c=1.4", seed=3)
    assert agent.params["iterations"] == 2000 and agent.params["c"] == 1.4
    assert agent.spec == "mcts:iterations=2000"  # c=1.4 is the default
    assert agents.make_agent(agent.spec).params == agent.params
    assert agents.make_agent("alphabeta:time=0.5").limit == agents.Limit(time=0.5)
    assert agents.make_agent("alphabeta").limit == agents.Limit(nodes=100_000)
    assert agents.make_agent("alphabeta:depth=6").limit == agents.Limit(depth=6)
    assert agents.make_agent("alphabeta:solve=true").params["solve"] is True


@pytest.mark.parametrize(
    "spec,message",
    [
        ("mtcs", "unknown agent 'mtcs'; available: random, greedy, minimax, alphabeta, mcts, pimc, ismcts, cheat, td-kalah"),
        ("mcts:iters=5", "mcts has no parameter 'iters'; parameters: iterations, time, c, solver, eval, weight, minimax, threads"),
        ("mcts:iterations=0", "iterations=0 is out of range"),
        ("mcts:iterations=lots", "iterations='lots' is not valid"),
        ("alphabeta:depth", "bad parameter 'depth'"),
        ("alphabeta:depth=3,depth=4", "given twice"),
        ("random:depth=2", "random has no parameter 'depth'; parameters: none"),
        ("", "an agent spec is a name"),
    ],
)
def test_bad_specs_say_what_exists(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        agents.make_agent(spec)


@pytest.mark.parametrize("spec", ["random", "greedy", "minimax:depth=2", "alphabeta:nodes=3000", "mcts:iterations=300"])
def test_the_same_seed_plays_the_same_game(spec):
    game = engines.make("kalah", pits=4, seeds=3)

    def play(seed):
        return agents.play_game(game, [agents.make_agent(spec, seed=seed), agents.make_agent(spec, seed=seed + 1)]).history

    assert play(5) == play(5)
    if spec != "minimax:depth=2":  # a deterministic search may repeat itself across seeds
        assert len({play(s) for s in range(4)}) > 1


SCORE_GREEDY = str(Path(__file__).resolve().parents[2] / "experiments" / "plugins" / "score_greedy.py")


def searched_game(game, seats, start):
    """A game from start seed ``start``: (move, what the search reported) per ply."""
    state = game.new_initial_state(start)
    plies = []
    while not state.is_terminal():
        mover = state.current_player
        move = seats[mover].select_move(seats[mover].observe(state, mover))
        info = seats[mover].last_search
        plies.append((move, info.value, info.exact, info.depth, info.nodes, info.simulations, info.margin))
        state.apply(move)
    return plies


@pytest.mark.parametrize(
    "game_spec, spec",
    [
        ("kalah:pits=4,seeds=3", "random"),
        ("kalah:pits=4,seeds=3", "greedy"),
        ("kalah:pits=4,seeds=3", "minimax:depth=2"),
        ("kalah:pits=4,seeds=3", "alphabeta:depth=5"),
        ("kalah:pits=4,seeds=3", "alphabeta:nodes=2000,table_mb=0.25"),
        ("kalah:pits=3,seeds=2", "alphabeta:solve=true,table_mb=1"),
        ("kalah:pits=4,seeds=3", "mcts:iterations=200"),
        ("konane:size=5", "alphabeta:depth=3"),
        ("kalah", "td-kalah"),
        ("kalah:pits=4,seeds=3", "score-greedy"),
        ("dominoes", "pimc:worlds=4,nodes=300,table_mb=0.25"),
        ("dominoes", "ismcts:iterations=200"),
        ("dominoes", "cheat:nodes=500,table_mb=0.25"),
    ],
)
@pytest.mark.usefixtures("forget_plugins")
def test_a_reused_agent_reset_with_a_seed_plays_as_a_fresh_agent_of_that_seed(game_spec, spec):
    """The arena keeps one agent per worker and spec and resets it before each game: every move
    and every figure its searches report must be those of fresh agents with the same seeds."""
    agents.load_plugin(SCORE_GREEDY)
    name, params = agents.parse_spec(game_spec)
    game = engines.make(name, **params)
    seeds = [(10 + g, 20 + g) for g in range(3)]
    fresh = [searched_game(game, [agents.make_agent(spec, seed=s) for s in pair], g) for g, pair in enumerate(seeds)]
    reused = [agents.make_agent(spec, seed=1), agents.make_agent(spec, seed=2)]

    def with_reused_agents():
        games = []
        for g, pair in enumerate(seeds):
            for agent, seed in zip(reused, pair):
                agent.reset(seed)
            games.append(searched_game(game, reused, g))
        return games

    assert with_reused_agents() == fresh
    assert with_reused_agents() == fresh, "and again, after three games"


def test_a_reset_clears_the_transposition_table_and_history():
    """The comparison above sees a table left over: an agent only re-seeded, its table and
    history kept, searches differently from a fresh one."""
    game = engines.make("kalah", pits=4, seeds=3)
    stale = [agents.make_agent("alphabeta:nodes=2000", seed=s) for s in (10, 20)]
    searched_game(game, stale, 0)
    for agent, seed in zip(stale, (11, 21)):
        agent.seed, agent.rng = seed, rng_from_seed(seed)  # re-seeded by hand: no reset
    fresh = [agents.make_agent("alphabeta:nodes=2000", seed=s) for s in (11, 21)]
    assert searched_game(game, stale, 1) != searched_game(game, fresh, 1)


def test_budgets_are_kept():
    state = engines.make("kalah").new_initial_state()
    for nodes in (1, 10, 777, 5000):
        agent = agents.make_agent(f"alphabeta:nodes={nodes}", seed=0)
        assert agent.select_move(state) in state.legal_moves()
        assert agent.last_search.nodes == nodes
    agent = agents.make_agent("mcts:iterations=100000", seed=0)  # more than one initial tree holds
    agent.select_move(state)
    assert agent.last_search.simulations == 100000
    for spec in ("alphabeta:time=0.02", "mcts:time=0.02"):  # a clock budget still gives a move
        agent = agents.make_agent(spec, seed=0)
        assert agent.select_move(state) in state.legal_moves() and agent.last_search.depth >= 1
    arena_limit = agents.Limit(time=0.02)  # the arena's --move-time replaces the agent's budget
    agent = agents.make_agent("alphabeta:depth=1", seed=0)
    agent.select_move(state, arena_limit)
    assert agent.last_search.depth > 1


def test_unseeded_agents_draw_their_own_seed():
    first, second = agents.make_agent("random"), agents.make_agent("random")
    assert first.seed != second.seed
    assert agents.make_agent("random", seed=first.seed).rng.tolist() == first.rng.tolist()


def test_every_agent_reports_its_search():
    state = engines.make("kalah").new_initial_state()
    for spec in ["greedy", "minimax:depth=2", "alphabeta:depth=3", "mcts:iterations=100"]:
        agent = agents.make_agent(spec, seed=0)
        move = agent.select_move(state)
        info = agent.last_search
        assert info.move == move and move in state.legal_moves()
        assert -1 <= info.value <= 1 and info.summary()
    assert info.simulations == 100 and info.nodes <= 101
    with pytest.raises(ValueError, match="game is over"):
        agents.make_agent("random").select_move(engines.make("kalah", pits=1, seeds=1).new_initial_state().play("a"))


# -- alpha-beta against minimax --------------------------------------------------------------


@pytest.mark.parametrize("name", PERFECT_INFORMATION_GAMES)
def test_alphabeta_equals_minimax_at_the_same_depth(name):
    """Table, killers, history and iterative deepening change the work, never the value: a
    depth-d alpha-beta returns exactly the depth-d minimax score (the table only cuts with entries
    of exactly the depth needed). One table is shared across positions to exercise reuse."""
    game = engines.make(name)
    table, history = new_table(1), np.zeros(HISTORY_SIZE, np.int64)
    for state in random_positions(game, 25, seed=11):
        for depth in (1, 2, 3):
            assert alphabeta_score(state, depth, table, history) == minimax_score(state, depth), (
                f"{name} depth {depth} at {state.record().moves}"
            )


# Deeper searches than minimax can check in a test, pinned at positions whose best move is unique
# (every root move's value checked one ply down when the pins were recorded): the table layout,
# its probing and the move ordering change the work, never the value or the move.
PINNED_SEARCHES = [
    ("kalah", (), 9, 5, 0.10204081632653061),
    ("kalah", ("e", "e", "a", "f", "c", "c", "e"), 9, 5, 0.04081632653061224),
    ("kalah", ("b", "f", "a", "b", "c", "d", "d", "a", "b", "a", "c", "a", "f", "b", "d"), 9, 5, 0.30612244897959184),
    ("nine-mens-morris", ("d6", "d3", "b2", "f6", "d5", "c4", "b6", "g1", "d7xd3", "a1"), 4, 24901, 0.4339622641509434),
    ("nine-mens-morris", ("d2", "f2", "g7", "a4", "g4", "c4", "e3", "f4", "b2", "d7", "g1xf2", "b4xb2", "a1", "f6", "e5",
                          "f2xa1", "d6", "a7", "e5-e4", "c4-c5"), 4, 17944, -0.3814432989690722),
    ("nine-mens-morris", ("f4", "b4", "b6", "d2", "b2", "f6", "d7", "e5", "d6", "f2", "c4", "g4", "d5xe5", "c3", "g1", "c5",
                          "e3", "a7", "d5-e5", "d2-d1", "e3-e4", "a7-a4", "e5-d5xd1", "f2-d2", "e4-e5", "g4-g7", "g1-d1",
                          "d2-f2", "d1-d2", "a4-a7"), 4, 19992, 0.5161290322580645),
]


@pytest.mark.parametrize("name,moves,depth,best,value", PINNED_SEARCHES)
def test_alphabeta_value_and_move_at_a_fixed_depth_are_pinned(name, moves, depth, best, value):
    state = engines.make(name).new_initial_state(0).play(*moves)
    for table_mb in (1, 0.001):  # a roomy table and one so small that entries keep being replaced
        result = np.zeros(4)
        move = alphabeta_search(
            state.data, depth, 2**62, 0, new_table(table_mb), np.zeros(HISTORY_SIZE, np.int64), rng_from_seed(0), result
        )
        assert (move, result[0], result[1]) == (best, value, depth), f"{name} after {moves}, table_mb={table_mb}"


def test_alphabeta_breaks_ties_by_the_seed_alone():
    """Kalah from the start at depth 5 has two equally good moves: the seed picks one, whatever
    order a tiny table and a scrambled history make the search try them in."""
    state = engines.make("kalah").new_initial_state(0)
    chosen = set()
    for seed in range(8):
        moves = []
        for table, history in (
            (new_table(1), np.zeros(HISTORY_SIZE, np.int64)),
            (new_table(0.001), np.random.default_rng(seed).integers(0, 1000, HISTORY_SIZE)),
        ):
            moves.append(alphabeta_search(state.data, 5, 2**62, 0, table, history, rng_from_seed(seed), np.zeros(4)))
        assert moves[0] == moves[1], seed
        chosen.add(moves[0])
    assert chosen == {2, 5}


@pytest.mark.parametrize("pits,seeds", [(2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (3, 3)])
@pytest.mark.parametrize("empty_capture", [False, True])
def test_solve_mode_agrees_with_full_depth_minimax_on_small_kalah(pits, seeds, empty_capture):
    state = engines.make("kalah", pits=pits, seeds=seeds, empty_capture=empty_capture).new_initial_state()
    exact = minimax_score(state, 150)  # deeper than any of these games: every leaf is terminal
    assert alphabeta_score(state, 200) == exact  # the score includes the distance to the end
    solver = agents.make_agent("alphabeta:solve=true")
    solver.select_move(state)
    info = solver.last_search
    assert info.exact
    assert info.value == (0.0 if exact == 0 else np.sign(exact))


# -- tactics ---------------------------------------------------------------------------------

KALAH_3_2 = engines.make("kalah", pits=3, seeds=2)

#        c   b   a
#   |  | 0 | 1 | 0 |  |
#   | 4+---+---+---+ 4|
#   |  | 1 | 0 | 2 |  |
#        a   b   c
# South's a drops its seed in the empty b and captures North's last seed: North's row is empty,
# the game ends 8-4. South's c (2 seeds: store, North's a) hands the move over.
WIN_IN_ONE = KALAH_3_2.position(south=[1, 0, 2], north=[0, 1, 0], stores=(4, 4))

#        c   b   a
#   |  | 4 | 0 | 1 |  |
#   | 1+---+---+---+ 1|
#   |  | 1 | 4 | 0 |  |
#        a   b   c
# South's a lets North win at once; only b (4 seeds: c, store, North's a, b) holds.
AVOID_LOSS_IN_ONE = KALAH_3_2.position(south=[1, 4, 0], north=[1, 0, 4], stores=(1, 1))


@pytest.mark.parametrize("spec", ["greedy", "minimax:depth=2", "alphabeta:depth=4", "alphabeta:nodes=50", "mcts:iterations=500"])
def test_agents_take_a_win_in_one(spec):
    for seed in range(3):
        agent = agents.make_agent(spec, seed=seed)
        assert WIN_IN_ONE.format_move(agent.select_move(WIN_IN_ONE)) == "a"
        assert agent.last_search.value > 0.5


@pytest.mark.parametrize("spec", ["minimax:depth=2", "alphabeta:depth=4", "mcts:iterations=2000"])
def test_agents_avoid_a_loss_in_one(spec):
    for seed in range(3):
        agent = agents.make_agent(spec, seed=seed)
        assert AVOID_LOSS_IN_ONE.format_move(agent.select_move(AVOID_LOSS_IN_ONE)) == "b"


def test_mcts_backs_up_values_for_the_player_who_moved():
    """In a lost position MCTS's value is negative for the mover, in a won one positive, whether
    or not the turn alternates (Kalah's extra turns)."""
    lost = KALAH_3_2.position(south=[0, 0, 1], north=[3, 3, 3], stores=(0, 2))
    agent = agents.make_agent("mcts:iterations=3000", seed=0)
    agent.select_move(lost)
    assert agent.last_search.value < -0.5
    agent.select_move(WIN_IN_ONE)
    assert agent.last_search.value > 0.9


# -- strength --------------------------------------------------------------------------------


def win_rate(game, spec, opponent="random", games=50, seed=0):
    """Share of ``games`` that ``spec`` wins against ``opponent``, seats alternating."""
    wins = 0
    for g in range(games):
        players = [agents.make_agent(spec, seed=seed + 2 * g), agents.make_agent(opponent, seed=seed + 2 * g + 1)]
        seat = g % 2
        if seat:
            players.reverse()
        final = agents.play_game(game, players, seed=seed + g)
        wins += final.winner == seat
    return wins / games


@pytest.mark.parametrize("spec", ["minimax:depth=3", "alphabeta:depth=4", "mcts:iterations=300"])
def test_search_agents_beat_random_at_mancala(spec):
    assert win_rate(engines.make("mancala"), spec) >= 0.9


@pytest.mark.parametrize("name", PERFECT_INFORMATION_GAMES)
def test_every_agent_plays_every_perfect_information_game(name):
    """A whole game of every agent on every preset (small budgets): legal moves to the end."""
    game = engines.make(name)
    for spec in ["random", "greedy", "minimax:depth=1", "alphabeta:nodes=2000", "mcts:iterations=30"]:
        final = agents.play_game(game, [agents.make_agent(spec, seed=1), agents.make_agent("random", seed=2)], seed=3)
        assert final.is_terminal()


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "mcts:iterations=300"])
def test_search_agents_beat_random_at_morabaraba(spec):
    assert win_rate(engines.make("morabaraba"), spec) >= 0.9


@pytest.mark.parametrize("name", ["konane", "konane-classic"])
@pytest.mark.parametrize("size", [4, 5, 6, 7, 8])
def test_every_agent_plays_konane_at_every_size(name, size):
    game = engines.make(name, size=size)
    for spec in ["random", "greedy", "minimax:depth=1", "alphabeta:nodes=2000", "mcts:iterations=30"]:
        final = agents.play_game(game, [agents.make_agent("random", seed=4), agents.make_agent(spec, seed=5)], seed=6)
        assert final.is_terminal()


@pytest.mark.parametrize("spec", ["alphabeta:depth=4", "mcts:iterations=1000"])
def test_search_agents_beat_random_at_konane(spec):
    assert win_rate(engines.make("konane"), spec) >= 0.9


@pytest.mark.parametrize("size,first_player_wins", [(4, False), (5, True)])
def test_solver_values_of_small_classic_konane(size, first_player_wins):
    """The exact values of docs/benchmarks.md (experiments/solve.py), checked against full-depth
    minimax on 4x4."""
    state = engines.make("konane-classic", size=size).new_initial_state()
    solver = agents.make_agent("alphabeta:solve=true")
    solver.select_move(state)
    assert solver.last_search.exact and solver.last_search.value == (1.0 if first_player_wins else -1.0)
    if size == 4:
        assert np.sign(minimax_score(state, 40)) == solver.last_search.value


# -- the MCTS tree ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["kalah", "nine-mens-morris"])
def test_mcts_tree_blocks_hold_each_legal_move_once_and_add_up_visits(name):
    """Every expanded node's child block is its legal moves, the tried ones first; a node's
    visits are its children's plus the simulation that made it; the tree grew in place."""
    game = engines.make(name)
    root = game.new_initial_state(seed=1)
    rng = rng_from_seed(5)
    room = contract.max_moves(root.data)

    def run(tree, counters, target, deadline):
        return mcts_run(root.data, tree, np.empty(0, np.float32), counters, UCT, target, deadline, rng)

    simulations = 3000
    tree, counters = grow_tree(run, NODE, init_tree, Limit(iterations=simulations), simulations, room)
    assert len(tree) > 2 * room + 1  # it grew
    assert counters[COUNT_SIMULATIONS] == simulations and tree[ROOT]["visits"] == simulations
    records = int(counters[COUNT_RECORDS])
    tried_total = 0
    # Walk the tree with the states, checking each block against the position's legal moves.
    stack = [(ROOT, root)]
    while stack:
        node, state = stack.pop()
        first, legal, tried = (int(tree[node][f]) for f in ("children", "legal", "tried"))
        if first == NO_NODE:
            assert legal == tried == 0
            continue
        assert first + legal <= records and tried <= legal
        assert sorted(tree[first : first + legal]["move"].tolist()) == sorted(state.legal_moves())
        block = tree[first : first + legal]
        assert (block["visits"][:tried] > 0).all() and (block["visits"][tried:] == 0).all()
        assert block["visits"].sum() == tree[node]["visits"] - (node != ROOT)
        tried_total += tried
        for child in range(first, first + tried):
            after = state.copy()
            after.apply(int(tree[child]["move"]))
            stack.append((child, after))
    assert tried_total + 1 == counters[COUNT_NODES]


def test_a_large_table_is_zeroed_writable_and_sized_to_a_power_of_two():
    for megabytes in (0.25, 3.0, 16.0):  # below and above the huge-page threshold
        table = new_table(megabytes)
        assert len(table) & (len(table) - 1) == 0 and table.nbytes <= megabytes * 2**20 < 2 * table.nbytes
        assert not table.view(np.uint8).any() and table.flags.writeable
        table[len(table) - 1]["depth"] = 3
        assert table[len(table) - 1]["depth"] == 3


def test_a_table_bucket_keeps_the_deepest_entry_of_the_current_search():
    table = new_table(0.001)
    buckets = np.uint64(len(table) // 2)
    deep, shallow = np.uint64(5), np.uint64(5) + buckets  # the same bucket, at entries 10 and 11
    assert table.ctypes.data % 64 == 0 and (find_entry(table, deep), replaced_entry(table, deep, 9, 1)) == (-1, 10)
    table[10]["key"], table[10]["depth"], table[10]["age"], table[10]["bound"] = deep, 9, 1, 1
    assert find_entry(table, deep) == 10 and find_entry(table, shallow) == -1
    assert replaced_entry(table, shallow, 4, 1) == 11  # shallower: the always-replaced entry
    assert replaced_entry(table, shallow, 9, 1) == 10  # as deep
    assert replaced_entry(table, deep, 2, 1) == 10  # the same position, searched again
    assert replaced_entry(table, shallow, 4, 2) == 10  # a deep entry of an earlier search gives way
