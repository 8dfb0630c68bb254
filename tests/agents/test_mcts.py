"""``mcts``'s extensions: MCTS-Solver's proofs against the exact solver, the proven move played,
implicit minimax values against their definition, leaf evaluations on every game, root-parallel
threads reproducible under an iteration budget, and the tree record's size."""

from __future__ import annotations

import math

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.agents.mcts import (
    COMPACT_MINIMAX_NODE,
    COUNT_MAX_DEPTH,
    COUNT_NODES,
    COUNT_RECORDS,
    COUNT_SIMULATIONS,
    EVAL_MIX,
    MINIMAX_NODE,
    NO_NODE,
    NODE,
    PATH_ROOM,
    ROOT,
    UNPROVEN,
    WIDE_MINIMAX_NODE,
    WIDE_NODE,
    Settings,
    init_tree,
    mcts_run,
    proven_value,
    tree_record,
)
from board_arena.engines import contract
from board_arena.kernels import rng_from_seed

KALAH_3_3 = engines.make("kalah", pits=3, seeds=3)
PERFECT_INFORMATION_GAMES = [
    name for name in engines.available_games() if engines.game_class(name).perfect_information
]


def exact_value(state) -> float:
    """The game-theoretic result (1, 0, -1) of ``state`` for its player to move (the solver's)."""
    solver = agents.make_agent("alphabeta:solve=true", seed=0)
    solver.select_move(state)
    assert solver.last_search.exact
    return solver.last_search.value


def search_tree(state, settings: Settings, simulations: int, seed: int = 0):
    """One ``mcts_run`` search from ``state`` in a tree large enough for it: (tree, values, counters)."""
    size = simulations * contract.max_moves(state.data) + 1
    tree = np.empty(size, tree_record(state.data, settings.alpha > 0))
    values = tree["value"] if settings.alpha > 0 else np.empty(0, np.float32)
    counters = np.zeros(4, np.int64)
    init_tree(tree, counters)
    mcts_run(state.data, tree, values, counters, settings, simulations, 0, rng_from_seed(seed))
    return tree, values, counters


def tried_children(tree, node):
    first = int(tree[node]["children"])
    return [] if first == NO_NODE else list(range(first, first + int(tree[node]["tried"])))


def walk(tree, root):
    """(node, state, player who moved into it) for every tried node, the root's mover -1."""
    stack = [(ROOT, root, -1)]
    while stack:
        node, state, mover = stack.pop()
        yield node, state, mover
        for child in tried_children(tree, node):
            after = state.copy()
            after.apply(int(tree[child]["move"]))
            stack.append((child, after, state.current_player))


# -- MCTS-Solver -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_solver_proofs_agree_with_the_exact_solver(seed):
    """Every node MCTS-Solver proves in Kalah(3,3) (extra turns included) has the exact value of
    its position for the player who moved into it; no unproven node has a proven winning child
    or every child proven, but a root child (whose loss or draw is left unmarked)."""
    rng = np.random.default_rng(seed)
    state = KALAH_3_3.new_initial_state()
    for _ in range(int(rng.integers(0, 6))):
        state.apply(int(rng.choice(state.legal_moves())))
        if state.is_terminal():
            state = KALAH_3_3.new_initial_state()
    tree, _, counters = search_tree(state, Settings(1.4, True, 0, 0.0, 0.0), 20_000, seed)
    checked = 0
    root_children = set(tried_children(tree, ROOT))
    for node, position, mover in walk(tree, state):
        value = proven_value(tree[node]["total"])
        children = [proven_value(tree[c]["total"]) for c in tried_children(tree, node)]
        if value == UNPROVEN:
            assert 1.0 not in children
            decided = children and UNPROVEN not in children and len(children) == tree[node]["legal"]
            assert not decided or node in root_children  # a root child keeps a loss or draw's mean
            continue
        if node == ROOT:  # the root's proven value is for its player to move
            assert value == exact_value(position)
        elif position.is_terminal():
            assert value == position.outcome() * (1 if mover == 0 else -1)
        elif checked < 40:  # the exact solves are the slow part
            exact = exact_value(position)
            assert value == (exact if position.current_player == mover else -exact)
            checked += 1
    assert checked > 0 or not math.isfinite(tree[ROOT]["total"])


def test_solver_proves_small_games_and_plays_a_winning_move():
    """Kalah(3,3) from the start is a win for the first player (the solver's margin +2): MCTS
    proves it, stops searching and plays a move that keeps the win; tic-tac-toe after the centre
    and a corner is a draw, which the move keeps."""
    state = KALAH_3_3.new_initial_state()
    agent = agents.make_agent("mcts:iterations=200000", seed=1)
    move = agent.select_move(state)
    info = agent.last_search
    assert info.exact and info.value == 1.0 == exact_value(state)
    assert info.simulations < 200_000  # stopped once the root was proven
    after = state.copy()
    after.apply(move)
    assert (exact_value(after) if after.current_player == state.current_player else -exact_value(after)) == 1.0

    ttt = engines.make("tictactoe").new_initial_state()
    ttt.apply(4)
    ttt.apply(0)
    assert exact_value(ttt) == 0.0
    for seed in range(3):
        move = agents.make_agent("mcts:iterations=20000", seed=seed).select_move(ttt)
        after = ttt.copy()
        after.apply(move)
        assert exact_value(after) == 0.0  # the opponent's value: the move keeps the draw


def test_a_lost_root_keeps_searching_for_the_move_that_resists():
    """In a lost position the root is not marked proven and the search goes on to its budget
    (the proofs below it stay), reporting an estimate: a fallible opponent may still err."""
    #        c   b   a
    #   |  | 0 | 0 | 1 |  |
    #   | 3+---+---+---+ 2|
    #   |  | 3 | 3 | 3 |  |
    #        a   b   c
    lost = engines.make("kalah", pits=3, seeds=2).position(south=[0, 0, 1], north=[3, 3, 3], stores=(0, 2))
    assert exact_value(lost) == -1.0
    agent = agents.make_agent("mcts:iterations=3000", seed=0)
    agent.select_move(lost)
    assert agent.last_search.simulations == 3000 and not agent.last_search.exact and agent.last_search.value < -0.5


def test_a_proven_win_is_played_and_a_proven_loss_avoided():
    """With the solver, a win in one is played at once (the first simulation that tries it proves
    the root) and reported proven; without it, the same budget gives a plain estimate."""
    #        c   b   a
    #   |  | 0 | 1 | 0 |  |
    #   | 4+---+---+---+ 4|
    #   |  | 1 | 0 | 2 |  |
    #        a   b   c
    kalah_3_2 = engines.make("kalah", pits=3, seeds=2)
    win_in_one = kalah_3_2.position(south=[1, 0, 2], north=[0, 1, 0], stores=(4, 4))
    for seed in range(5):
        agent = agents.make_agent("mcts:iterations=40", seed=seed)
        move = agent.select_move(win_in_one)
        assert win_in_one.format_move(move) == "a" and agent.last_search.exact and agent.last_search.value == 1.0
        assert agent.last_search.simulations <= 2
        plain = agents.make_agent("mcts:iterations=40,solver=false", seed=seed)
        plain.select_move(win_in_one)
        assert not plain.last_search.exact
    #        c   b   a
    #   |  | 4 | 0 | 1 |  |
    #   | 1+---+---+---+ 1|
    #   |  | 1 | 4 | 0 |  |
    #        a   b   c
    avoid_loss = kalah_3_2.position(south=[1, 4, 0], north=[1, 0, 4], stores=(1, 1))
    for seed in range(5):
        agent = agents.make_agent("mcts:iterations=300", seed=seed)
        assert avoid_loss.format_move(agent.select_move(avoid_loss)) == "b"


# -- leaf evaluation and implicit minimax ----------------------------------------------------


@pytest.mark.parametrize("name", ["kalah", "nine-mens-morris", "konane"])
def test_implicit_minimax_values_are_the_best_of_the_children(name):
    """After a search with implicit minimax, every expanded node's value is its best child's
    (from its mover's side: negated when the turn passed), every unexpanded one the game's
    heuristic for its mover (or the result at the end)."""
    state = engines.make(name).new_initial_state(seed=2)
    tree, values, _ = search_tree(state, Settings(1.4, False, EVAL_MIX, 0.5, 0.3), 3000)
    expanded = 0
    for node, position, mover in walk(tree, state):
        if node == ROOT:
            continue
        children = tried_children(tree, node)
        if children:
            best = max(values[c] for c in children)
            assert values[node] == (best if position.current_player == mover else -best)
            expanded += 1
        elif position.is_terminal():
            assert values[node] == position.outcome() * (1 if mover == 0 else -1)
        else:
            assert values[node] == np.float32(position.heuristic() * (1 if mover == 0 else -1))
    assert expanded > 10


@pytest.mark.parametrize("name", PERFECT_INFORMATION_GAMES)
@pytest.mark.parametrize("spec", ["eval=heuristic", "eval=mix,weight=0.3,minimax=0.2", "threads=2"])
def test_every_setting_plays_every_perfect_information_game(name, spec):
    """A whole game of each leaf evaluation (and of two threads) against random, on every
    preset: legal moves to the end."""
    game = engines.make(name)
    player = agents.make_agent(f"mcts:iterations=40,{spec}", seed=1)
    final = agents.play_game(game, [player, agents.make_agent("random", seed=2)], seed=3)
    assert final.is_terminal()


def test_mcts_refuses_dominoes_whatever_its_evaluation():
    """The hidden-information game is ismcts's; no setting makes mcts search the full state."""
    with pytest.raises(ValueError, match="ismcts"):
        agents.make_agent("mcts:eval=heuristic", seed=0).select_move(engines.make("dominoes").new_initial_state(seed=0))


def test_heuristic_leaves_beat_random_at_kalah():
    wins = 0
    game = engines.make("kalah")
    for g in range(10):
        players = [agents.make_agent("mcts:iterations=300,eval=heuristic", seed=g), agents.make_agent("random", seed=g)]
        if g % 2:
            players.reverse()
        wins += agents.play_game(game, players, seed=g).winner == g % 2
    assert wins >= 9


# -- threads ---------------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threads_reproduce_under_an_iteration_budget(threads):
    """The same seed and thread count give the same search; the trees share the budget."""
    state = engines.make("kalah").new_initial_state()
    state.apply(state.legal_moves()[1])
    spec = f"mcts:iterations=5001,threads={threads}"
    first = agents.make_agent(spec, seed=7)
    second = agents.make_agent(spec, seed=7)
    for _ in range(2):  # the second move draws from the generator the first one advanced
        a, b = first.search(state), second.search(state)
        assert (a.move, a.value, a.nodes, a.depth) == (b.move, b.value, b.nodes, b.depth)
        assert a.simulations == 5001


def test_two_threads_grow_two_trees():
    """Two threads make two roots: one node more than one thread's tree of the same budget."""
    state = engines.make("kalah").new_initial_state()
    one = agents.make_agent("mcts:iterations=2000,threads=1", seed=3).search(state)
    two = agents.make_agent("mcts:iterations=2000,threads=2", seed=3).search(state)
    assert one.simulations == two.simulations == 2000
    assert two.nodes == one.nodes + 1


def test_threads_under_a_time_budget_each_search_the_whole_time():
    """Under a clock budget every tree searches until the deadline; their roots merge into a legal
    move (two roots: at least two nodes)."""
    state = engines.make("kalah").new_initial_state()
    agent = agents.make_agent("mcts:time=0.05,threads=2", seed=0)
    assert agent.select_move(state) in state.legal_moves()
    assert agent.last_search.simulations > 0 and agent.last_search.nodes >= 2


# -- the selection path ----------------------------------------------------------------------


def test_a_path_longer_than_its_first_buffer_leaves_the_tree_consistent():
    """A simulation that finds the selection path buffer full starts again on a longer one: the
    search still counts each simulation once on every node it passed (a node's visits are its own
    first one and its children's; the root's are its children's) and each tried node once."""
    state = engines.make("kalah", pits=4, seeds=3).new_initial_state()
    tree, _, counters = search_tree(state, Settings(1.4, False, 0, 0.0, 0.0), 20_000)
    assert counters[COUNT_MAX_DEPTH] > PATH_ROOM and counters[COUNT_SIMULATIONS] == 20_000
    nodes = 0
    for node, position, _ in walk(tree, state):
        nodes += 1
        below = sum(int(tree[child]["visits"]) for child in tried_children(tree, node))
        if node == ROOT:
            assert tree[node]["visits"] == below == 20_000
        elif not position.is_terminal():
            assert tree[node]["visits"] == 1 + below
    assert nodes == counters[COUNT_NODES]


# -- memory ----------------------------------------------------------------------------------


def test_records_keep_their_size_and_proofs_live_in_the_total():
    """A proven value takes no field of its own, and the implicit minimax value takes the half of
    ``total`` that float32 frees: the record stays 24 bytes (32 with 64-bit moves, 20 with the
    compact record of games with small move ids and at most 255 moves, which Kalah's defaults use)."""
    assert NODE.itemsize == MINIMAX_NODE.itemsize == 24 and WIDE_NODE.itemsize == WIDE_MINIMAX_NODE.itemsize == 32
    assert COMPACT_MINIMAX_NODE.itemsize == 20
    assert set(NODE.names) == {"total", "visits", "children", "move", "legal", "tried"}
    assert set(MINIMAX_NODE.names) == set(COMPACT_MINIMAX_NODE.names) == set(NODE.names) | {"value"}
    kalah = engines.make("kalah").new_initial_state()
    assert agents.make_agent("mcts", seed=0)._node_dtype(kalah) == COMPACT_MINIMAX_NODE
    assert agents.make_agent("mcts:minimax=0", seed=0)._node_dtype(kalah) == NODE
    morris = engines.make("nine-mens-morris").new_initial_state()  # up to 363 moves: uint16 counts
    assert agents.make_agent("mcts", seed=0)._node_dtype(morris) == MINIMAX_NODE
    tree, _, counters = search_tree(KALAH_3_3.new_initial_state(), Settings(1.4, True, 0, 0.0, 0.0), 5000)
    proven = [node for node in range(int(counters[COUNT_RECORDS])) if not math.isfinite(tree[node]["total"])]
    assert proven and counters[COUNT_SIMULATIONS] <= 5000


def test_the_implicit_minimax_default_is_the_weight_the_game_declares():
    """Game.implicit_minimax: Mancala and the morris games declare 0.6, the others none (0); the
    agent's ``minimax`` parameter overrides it."""
    agent = agents.make_agent("mcts", seed=1)
    for name in engines.available_games():
        game = engines.make(name)
        assert agent.settings(game).alpha == game.implicit_minimax
    assert {engines.make(name).implicit_minimax for name in ("mancala", "kalah", "morabaraba", "nine-mens-morris")} == {0.6}
    assert engines.make("konane").implicit_minimax == engines.make("dominoes").implicit_minimax == 0.0
    assert agents.make_agent("mcts:minimax=0", seed=1).settings(engines.make("kalah")).alpha == 0.0
