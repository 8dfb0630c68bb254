"""Dominoes: conformance, the plain-Python reference, scripted positions from the rules, the
information view, and the sampler of hidden worlds checked against brute-force enumeration.

Lines in comments are drawn as ``render`` draws them: ``[6|4][4|4]`` from the left end to the
right end; hands list tiles high pips first.
"""

import math
from collections import Counter

import numpy as np
import pytest

from board_arena import engines
from board_arena.engines import IllegalMoveError, VariantError
from board_arena.engines.conformance import (
    check_conformance,
    kernel_digest,
    pure_python_digest,
)
from board_arena.engines.dominoes import kernels, tiles_of
from board_arena.kernels import rng_from_seed
from tests.reference.dominoes import DominoesReference, consistent_deals, greater

VARIANTS = [
    ("dominoes", {}),
    ("dominoes-block", {}),
    ("dominoes", {"max_pips": 9, "hand_size": 10}),
    ("dominoes", {"max_pips": 9, "hand_size": 3}),
    ("dominoes", {"max_pips": 3, "hand_size": 5}),  # the whole set dealt: no boneyard
    ("dominoes", {"max_pips": 1, "hand_size": 1}),
    ("dominoes-block", {"max_pips": 4, "hand_size": 4}),
    ("dominoes", {"block_rule": "no-tile-fits"}),
    ("dominoes", {"max_pips": 3, "hand_size": 3, "block_rule": "no-tile-fits"}),
]


def tile_invariant(state):
    """Every tile is in exactly one place: a hand, the line or the boneyard still to draw."""
    record = state.data
    hands = [int(h) for h in record["hands"]]
    assert hands[0] & hands[1] == 0
    assert [len(tiles_of(h)) for h in hands] == [int(c) for c in record["counts"]]
    played = [int(m) >> 1 for m in state.history if m < kernels.MOVE_DRAW]
    stock = [int(t) for t in record["boneyard"][int(record["drawn"]) : int(record["boneyard_size"])]]
    everything = tiles_of(hands[0]) + tiles_of(hands[1]) + played + stock
    assert sorted(everything) == list(range(state.game.n_tiles))


@pytest.mark.parametrize("name,params", VARIANTS)
def test_conformance(name, params):
    game = engines.make(name, **params)
    finals = check_conformance(game, games=6, invariant=tile_invariant)
    for state in finals:
        counts = [int(c) for c in state.data["counts"]]
        if game.params["block_rule"] == "boneyard-empty":
            assert 0 in counts or state.history[-2:] == (kernels.MOVE_PASS,) * 2


@pytest.mark.parametrize("name,params", [("dominoes", {}), ("dominoes-block", {"max_pips": 4, "hand_size": 3})])
def test_compiled_and_pure_python_agree(name, params):
    seeds = range(3)
    assert kernel_digest(name, params, seeds) == pure_python_digest(name, params, seeds)


def reference_of(state):
    game = state.game
    order = kernels.tile_order(game.params["max_pips"])
    record = state.data
    hands = [[order[t] for t in tiles_of(record["dealt"][p])] for p in (0, 1)]
    bone = [order[int(t)] for t in record["boneyard"][: int(record["boneyard_size"])]]
    return DominoesReference(game.params["max_pips"], hands, bone, game.params["drawing"], game.params["block_rule"])


def test_engine_matches_reference_on_random_games():
    rng = np.random.default_rng(3)
    positions = 0
    for name, params in VARIANTS + [("dominoes", {"max_pips": 2, "hand_size": 2})]:
        game = engines.make(name, **params)
        order = kernels.tile_order(game.params["max_pips"])
        for seed in range(30):
            state = game.new_initial_state(seed)
            ref = reference_of(state)
            while True:
                positions += 1
                assert sorted(state.legal_moves()) == ref.legal_moves()
                for p in (0, 1):
                    assert sorted(order[t] for t in tiles_of(state.data["hands"][p])) == sorted(ref.hands[p])
                assert game.line(state) == ref.line
                assert state.is_terminal() == ref.over
                if ref.over:
                    assert state.outcome() == ref.result() and state.score() == ref.pip_margin()
                    break
                assert state.current_player == ref.to_move
                move = int(rng.choice(ref.legal_moves()))
                state.apply(move)
                ref.apply(move)
    assert positions > 3000


def test_tile_ids_follow_the_greatest_tile_order_of_text_001():
    for m in range(1, kernels.MAX_PIPS + 1):
        order = kernels.tile_order(m)
        assert len(order) == (m + 1) * (m + 2) // 2
        for i, a in enumerate(order):
            for j, b in enumerate(order):
                assert greater(a, b) == (i > j), (a, b)


@pytest.mark.parametrize(
    "hand0,hand1,leader",
    [
        ("6-5 3-2", "0-0 4-1", 1),  # a double beats a non-double with more pips
        ("1-1 6-5", "2-2 1-0", 1),  # of two doubles, more pips
        ("6-4 1-0", "5-4 3-1", 0),  # no doubles: more pips (10 against 9)
        ("5-2 4-3", "6-1 1-0", 1),  # same pips (7): the higher high end (6)
        ("6-1 0-0", "5-2 1-0", 0),  # 0-0 is the greatest tile of all
    ],
)
def test_the_holder_of_the_greatest_tile_leads_with_any_tile(hand0, hand1, leader):
    game = engines.make("dominoes", hand_size=2)
    state = game.deal(hand0, hand1)
    assert state.current_player == leader
    hand = (hand0, hand1)[leader].split()
    assert sorted(state.legal_move_names()) == sorted(hand)  # any tile, one move each
    with pytest.raises(IllegalMoveError, match="the leader may not draw"):
        state.copy().apply("draw")


def test_a_player_who_cannot_play_draws_and_the_turn_passes_even_if_the_tile_fits():
    game = engines.make("dominoes", hand_size=2)
    state = game.deal("6-6 1-0", "5-4 3-2", boneyard="6-1 2-0")
    state.apply("6-6")
    # line: [6|6]          player 1: 5-4 3-2 (no 6)
    assert state.legal_move_names() == ["draw"]
    with pytest.raises(IllegalMoveError, match="you cannot pass while the boneyard has 24 tiles: draw"):
        state.copy().apply("pass")
    state.apply("draw")  # 6-1 fits the line, but the turn passes
    assert state.current_player == 0
    assert "6-1" in game.notation.render(state)
    assert state.data["counts"][1] == 3
    # player 0 holds 1-0, which does not fit: draws 2-0
    assert state.legal_move_names() == ["draw"]
    state.apply("draw")
    assert sorted(state.legal_move_names()) == ["6-1"]  # player 1 now plays the tile drawn before
    with pytest.raises(IllegalMoveError, match="you cannot draw when you can play"):
        state.copy().apply("draw")


def test_pass_with_an_empty_boneyard_and_a_tile_that_fits_both_ends():
    game = engines.make("dominoes", max_pips=2, hand_size=3)  # the whole set dealt
    state = game.deal("2-2 2-1 2-0", "1-1 1-0 0-0")
    state.apply("2-2")
    # line: [2|2]          player 1: 1-1 1-0 0-0 (no 2), boneyard empty
    assert state.legal_move_names() == ["pass"]
    with pytest.raises(IllegalMoveError, match="the boneyard is empty: pass"):
        state.copy().apply("draw")
    state.apply("pass")
    # Both ends show 2: a tile has one move, written with L.
    assert state.legal_move_names() == ["2-0", "2-1"]
    state.apply("2-1")
    # line: [1|2][2|2]     ends 1 and 2
    assert game.line(state) == [(1, 2), (2, 2)]
    state.apply("1-0L")
    # line: [0|1][1|2][2|2]   ends 0 and 2: 2-0 fits both ends, two moves
    assert state.legal_move_names() == ["2-0L", "2-0R"]
    with pytest.raises(ValueError, match="2-0 fits both ends"):
        state.parse_move("2-0")
    state.apply("2-0r")
    assert game.line(state) == [(0, 1), (1, 2), (2, 2), (2, 0)]
    assert state.is_terminal() and state.winner == 0
    # player 1 keeps 1-1 and 0-0: 2 pips; player 0 none
    assert state.score() == 2


def test_blocked_game_fewer_tiles_wins_by_count_not_pips():
    game = engines.make("dominoes-block", max_pips=3, hand_size=2)
    state = game.deal("3-3 2-2", "1-1 0-0")
    state.play("3-3", "pass")
    # line: [3|3]   player 0: 2-2   player 1: 1-1 0-0   nobody holds a 3
    assert not state.is_terminal()
    state.apply("pass")
    assert state.is_terminal() and state.legal_moves() == []
    assert state.outcome() == 1.0  # 1 tile against 2
    assert state.score() == -2  # but player 0 holds more pips (4 against 2)
    assert "blocked" in game.result_text(state)


def test_blocked_game_with_equal_counts_is_a_draw():
    game = engines.make("dominoes-block", max_pips=3, hand_size=2)
    state = game.deal("3-3 2-2", "3-0 1-1")
    state.play("3-3", "3-0", "pass", "pass")
    # line: [0|3][3|3]   player 0: 2-2   player 1: 1-1
    assert state.is_terminal() and state.outcome() == 0.0 and state.winner is None
    assert state.score() == -2  # player 1's 2 pips minus player 0's 4


def test_draw_game_blocked_after_the_boneyard_runs_out():
    game = engines.make("dominoes", max_pips=3, hand_size=3)
    state = game.deal("2-1 3-1 0-0", "2-0 3-0 2-2", boneyard="1-1 3-2 3-3 1-0")
    assert state.current_player == 1  # 2-2, who leads with another tile
    state.play("2-0", "2-1", "3-0", "3-1L")
    # line: [3|1][1|2][2|0][0|3]   player 0: 0-0   player 1: 2-2   nobody fits 3
    state.play("draw", "draw", "draw")  # 1-1 to player 1, 3-2 to player 0, 3-3 to player 1
    state.play("3-2", "2-2", "draw")  # player 0 draws the last tile, 1-0
    state.apply("3-3")
    # line: [2|2][2|3][3|1][1|2][2|0][0|3][3|3]   player 0: 0-0 1-0   player 1: 1-1
    assert state.legal_move_names() == ["pass"]
    state.apply("pass")
    assert not state.is_terminal() and state.legal_move_names() == ["pass"]
    state.apply("pass")
    assert state.is_terminal() and state.winner == 1  # 1 tile against 2
    assert state.score() == 1  # though player 0 holds fewer pips (1 against 2)
    assert "player 1 wins (blocked, 2 tiles to 1" in str(state)


def test_text_001_read_literally_ends_when_no_tile_fits_whatever_the_boneyard_holds():
    # Text 001: "The game is over when one of the players holds no more tiles or none of them may
    # play a tile." The same deal as above, under block_rule="no-tile-fits".
    game = engines.make("dominoes", max_pips=3, hand_size=3, block_rule="no-tile-fits")
    state = game.deal("2-1 3-1 0-0", "2-0 3-0 2-2", boneyard="1-1 3-2 3-3 1-0")
    state.play("2-0", "2-1", "3-0")
    assert not state.is_terminal()  # player 0 holds 3-1
    state.apply("3-1L")
    # line: [3|1][1|2][2|0][0|3]   player 0: 0-0   player 1: 2-2   nobody fits 3, four tiles left
    assert state.is_terminal() and state.end_reason == "blocked" and state.outcome() == 0.0
    assert "as soon as neither hand holds a tile that fits" in " ".join(game.notation.help_text().split())
    # A draw that brings a tile that fits keeps the game going; one that does not ends it.
    state = game.deal("2-1 3-1 0-0", "2-0 3-0 2-2", boneyard="3-2 1-1 3-3 1-0")
    state.play("2-0", "2-1", "3-0")
    state.apply("3-1L")  # 3-2 is still in the boneyard, but no hand holds a tile that fits
    assert state.is_terminal()


def test_notation_and_errors():
    game = engines.make("dominoes")
    state = game.deal("6-6 5-4 3-2 1-0 2-2 4-4 0-0", "6-5 6-4 6-3 6-2 6-1 6-0 5-5")
    assert state.current_player == 0  # 6-6
    assert state.parse_move(" 6:6 ") == state.parse_move("[6|6]") == state.parse_move("6-6") == 2 * 27
    with pytest.raises(ValueError, match="7-2 is not a tile of the double-6 set"):
        state.parse_move("7-2")
    with pytest.raises(ValueError, match="is not a move: write a tile and the end of the line"):
        state.parse_move("six four")
    # The legal moves are named as the player's moves: "(6-6)" alone would read as a tile of the line.
    with pytest.raises(IllegalMoveError, match=r"^6-5 is not in your hand \(your moves: 1-0, 3-2, 5-4, 0-0, 2-2, 4-4, 6-6\)$"):
        state.copy().apply("6-5")
    state.apply("6-6")
    assert state.legal_move_names() == [f"{t}" for t in ("6-0", "6-1", "6-2", "6-3", "6-4", "6-5")]
    with pytest.raises(IllegalMoveError, match="both ends show 6, so 6-1 has one move: 6-1L"):
        state.copy().apply(state.parse_move("6-1L") + 1)
    state.apply("6-1R")  # equal ends: R reads as the one move, which places the tile on the left
    # line: [1|6][6|6]   ends 1 and 6
    assert game.line(state) == [(1, 6), (6, 6)]
    with pytest.raises(IllegalMoveError, match=r"^5-4 does not match the left end 1, nor the right end 6 \("):
        state.copy().apply("5-4L")
    with pytest.raises(IllegalMoveError, match="^1-0 does not match the right end 6; it matches the left end 1: 1-0L$"):
        state.copy().apply("1-0R")
    with pytest.raises(IllegalMoveError, match="you cannot draw when you can play"):
        state.copy().apply("draw")
    with pytest.raises(IllegalMoveError, match="you must play when you can"):
        state.copy().apply("pass")
    assert state.parse_move("1-0") == state.parse_move("0-1 left") == state.parse_move("10L")  # fits the left end 1


def test_variant_parameters_are_validated():
    assert engines.make("dominoes", max_pips=9, hand_size=27).n_tiles == 55
    with pytest.raises(VariantError, match="hand_size=15 is too large for the double-6 set of 28 tiles"):
        engines.make("dominoes", hand_size=15)
    with pytest.raises(VariantError, match="max_pips=10 is out of range; allowed: an integer from 1 to 9"):
        engines.make("dominoes", max_pips=10)
    with pytest.raises(VariantError, match="unknown game"):
        engines.make("domino")


# -- the information view ------------------------------------------------------------------------


def test_the_view_hides_the_opponents_hand_and_the_boneyard_until_the_end():
    game = engines.make("dominoes", hand_size=2)
    state = game.deal("6-6 1-0", "5-4 3-2", boneyard="6-1 2-0")
    state.play("6-6", "draw")
    view = state.view(0)
    record = view.data
    assert int(record["hands"][1]) == 0 and int(record["dealt"][1]) == 0
    assert (record["boneyard"] == kernels.UNKNOWN_TILE).all()  # player 1 drew 6-1: hidden from 0
    text = view.render()
    assert "player 1: 3 tiles" in text and "6-1" not in text and "5-4" not in text
    assert "player 0 (you): 1-0" in text and "boneyard: 23 tiles" in text
    assert "player 1 drew a tile" in text
    mine = state.view(1)
    assert int(mine.data["boneyard"][0]) == game.parse_tiles("6-1")[0]
    assert "6-1" in mine.render()  # player 1 knows the tile they drew
    with pytest.raises(ValueError, match="view of the game"):
        view.apply("draw")
    with pytest.raises(ValueError, match="a player's view has no record"):
        view.record()
    assert state.render(as_player=0) == text
    # At the end both hands are shown.
    final = engines.make("dominoes-block", max_pips=3, hand_size=2).deal("3-3 2-2", "1-1 0-0")
    final.play("3-3", "pass", "pass")
    assert "1-1" in final.view(0).render()


def test_two_true_states_consistent_with_one_view_give_byte_identical_views():
    game = engines.make("dominoes", hand_size=3)
    # Player 1's 0-0 and the boneyard's 1-1 change places: player 0 cannot tell.
    one = game.deal("6-6 6-5 4-2", "5-5 0-0 3-1", boneyard="6-4 1-1 2-0")
    two = game.deal("6-6 6-5 4-2", "5-5 1-1 3-1", boneyard="6-4 0-0 2-0")
    for state in (one, two):
        state.play("6-6", "draw", "6-5", "5-5")  # player 1 draws 6-4, then plays 5-5 left
    # line: [5|5][5|6][6|6]
    assert one != two
    assert one.view(0).buffer.tobytes() == two.view(0).buffer.tobytes()
    assert one.view(1).buffer.tobytes() != two.view(1).buffer.tobytes()


@pytest.mark.parametrize("spec", ["pimc:worlds=8", "ismcts:iterations=300", "greedy", "random"])
def test_an_agent_cannot_peek_two_worlds_of_one_view_get_the_same_move(spec):
    from board_arena import agents

    game = engines.make("dominoes", hand_size=3)
    # The same two deals as above: player 0 cannot tell them apart.
    one = game.deal("6-6 6-5 4-2", "5-5 0-0 3-1", boneyard="6-4 1-1 2-0")
    two = game.deal("6-6 6-5 4-2", "5-5 1-1 3-1", boneyard="6-4 0-0 2-0")
    for state in (one, two):
        state.play("6-6", "draw", "6-5", "5-5")
    assert one.current_player == 0 and one != two
    chosen = []
    for state in (one, two):
        agent = agents.make_agent(spec, seed=3)
        chosen.append(agent.select_move(agent.observe(state, 0)))
    assert chosen[0] == chosen[1]
    with pytest.raises(ValueError, match="which dominoes hides"):
        agents.make_agent("alphabeta").select_move(one)


# -- the sampler ---------------------------------------------------------------------------------


def deals_of(view):
    """Brute-force enumeration of the deals consistent with a view (plain Python)."""
    record = view.data
    me = int(record["viewer"])
    order = kernels.tile_order(int(record["max_pips"]))
    known = {k: order[int(t)] for k, t in enumerate(record["boneyard"][: int(record["boneyard_size"])]) if t >= 0}
    final = [order[t] for t in tiles_of(record["hands"][1 - me])] if record["terminal"] else None
    return consistent_deals(
        int(record["max_pips"]), int(record["hand_size"]), bool(record["drawing"]), me, int(record["leader"]),
        [order[t] for t in tiles_of(record["dealt"][me])], known, list(view.history), final,
        view.game.params["block_rule"],
    )


def world_key(world, viewer):
    order = kernels.tile_order(int(world["max_pips"]))
    bone = tuple(order[int(t)] for t in world["boneyard"][: int(world["boneyard_size"])])
    return frozenset(order[t] for t in tiles_of(world["dealt"][1 - viewer])), bone


@pytest.mark.parametrize(
    "params",
    [
        dict(max_pips=2, hand_size=2),
        dict(max_pips=3, hand_size=3),
        dict(max_pips=3, hand_size=3, drawing=False),
        dict(max_pips=3, hand_size=3, block_rule="no-tile-fits"),
    ],
)
def test_sampler_counts_and_samples_only_consistent_worlds(params):
    game = engines.make("dominoes", **params)
    rng = np.random.default_rng(11)
    sampler_rng = rng_from_seed(5)
    world = np.zeros(1, kernels.STATE_DTYPE)
    views = 0
    for seed in range(12):
        state = game.new_initial_state(seed)
        while True:
            for me in (0, 1):
                view = state.view(me)
                deals = set(deals_of(view))
                if game.params["block_rule"] == "boneyard-empty":
                    assert kernels.count_worlds(view.data) == len(deals)
                else:  # a bound: the game going on tells more than the plays, draws and passes
                    assert kernels.count_worlds(view.data) >= len(deals)
                for _ in range(3):
                    assert kernels.sample_world(view.data, sampler_rng, world[0])
                    assert world_key(world[0], me) in deals
                views += 1
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_moves())))
    assert views > 100


def chi_square_p_value(statistic, dof):
    """Upper tail of the chi-square distribution (Wilson-Hilferty normal approximation)."""
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


def constrained_position(game, wanted):
    """A position, found by a fixed search, whose view satisfies ``wanted(state, view, deals)``."""
    rng = np.random.default_rng(2)
    for seed in range(200):
        state = game.new_initial_state(seed)
        while not state.is_terminal() and state.ply < 8:
            state.apply(int(rng.choice(state.legal_moves())))
            if state.is_terminal() or kernels.count_worlds(state.view(state.current_player).data) > 400:
                continue
            view = state.view(state.current_player)
            deals = deals_of(view)
            if wanted(state, view, deals):
                return state.current_player, view, deals
    raise AssertionError("no suitable position found")


def opponent_moves(state):
    me = state.current_player
    return [m for i, m in enumerate(state.history) if int(state.data["leader"]) ^ (i & 1) != me]


@pytest.mark.parametrize("block_rule", ["boneyard-empty", "no-tile-fits"])
def test_sampler_is_uniform_over_the_consistent_deals(block_rule):
    hand_size = 2 if block_rule == "boneyard-empty" else 3
    game = engines.make("dominoes", max_pips=3, hand_size=hand_size, block_rule=block_rule)
    if block_rule == "boneyard-empty":
        # The public history constrains the hidden deal: the opponent drew (so held no tile
        # matching the ends then), played tiles and led or not.
        def wanted(state, view, deals):
            moves = opponent_moves(state)
            return (
                kernels.MOVE_DRAW in moves and 24 <= len(deals) <= 300 and sum(m < kernels.MOVE_DRAW for m in moves) >= 2
            )
    else:
        # The game going on rules out deals that the plays, draws and passes allow: the sampler
        # must reject them and stay uniform over the rest.
        def wanted(state, view, deals):
            return 12 <= len(deals) <= 300 and kernels.count_worlds(view.data) > len(deals)

    me, view, deals = constrained_position(game, wanted)
    world = np.zeros(1, kernels.STATE_DTYPE)
    sampler_rng = rng_from_seed(1)
    n = 300 * len(deals)
    counts = Counter()
    for _ in range(n):
        assert kernels.sample_world(view.data, sampler_rng, world[0])
        counts[world_key(world[0], me)] += 1
    assert set(counts) <= set(deals)
    expected = n / len(deals)
    statistic = sum((counts[d] - expected) ** 2 / expected for d in deals)
    assert chi_square_p_value(statistic, len(deals) - 1) > 1e-4, (statistic, len(deals))


def test_the_first_player_rule_names_the_leaders_tile_to_the_leader_only():
    """Game.first_player_reason: why the player to move first does (what ``arena play`` prints);
    None for a game whose rules seat player 0 first."""
    game = engines.make("dominoes", max_pips=2, hand_size=2)
    state = game.deal("2-1 0-0", "2-2 1-0", boneyard="2-0")
    assert state.current_player == 1
    assert game.first_player_reason(state, 1) == "you hold the greatest tile dealt, 2-2"
    assert game.first_player_reason(state, 0) == game.first_player_reason(state, None) == "holds the greatest tile dealt"
    assert engines.make("kalah").first_player_reason(engines.make("kalah").new_initial_state(), 0) is None
