"""Mancala: conformance, the plain-Python reference, and scripted positions from the rule text.

Boards in comments are drawn as ``render`` draws them: North's pits on top, each player's pits
lettered from that player's left, North's store on the left and South's on the right.
"""

import itertools

import numpy as np
import pytest

from board_arena import engines
from board_arena.engines import IllegalMoveError, VariantError
from board_arena.engines.conformance import (
    check_conformance,
    kernel_digest,
    pure_python_digest,
)
from board_arena.engines.mancala import kernels
from tests.reference.mancala import MancalaReference


def seeds_in_play(state):
    south, north = kernels.pit_counts(state.data)
    return sum(south) + sum(north) + sum(int(n) for n in state.data["stores"])


def seed_count_invariant(expected):
    def check(state):
        assert seeds_in_play(state) == expected, "the number of seeds changed"

    return check


VARIANTS = [
    ("mancala", {}),
    ("kalah", {}),
    ("kalah", {"empty_capture": True}),
    ("mancala", {"pits": 1, "seeds": 1}),
    ("kalah", {"pits": 8, "seeds": 10}),
    ("mancala", {"pits": 3, "seeds": 7, "empty_capture": True}),
]


@pytest.mark.parametrize("name,params", VARIANTS)
def test_conformance(name, params):
    game = engines.make(name, **params)
    total = 2 * game.params["pits"] * game.params["seeds"]
    finals = check_conformance(game, games=12, invariant=seed_count_invariant(total))
    for state in finals:
        south, north = kernels.pit_counts(state.data)
        assert sum(south) == sum(north) == 0, "the end sweep leaves no seed in a pit"


@pytest.mark.parametrize("name,params", [("mancala", {}), ("kalah", {"pits": 4, "seeds": 3, "empty_capture": True})])
def test_compiled_and_pure_python_agree(name, params):
    seeds = range(4)
    assert kernel_digest(name, params, seeds) == pure_python_digest(name, params, seeds)


def test_engine_matches_reference_on_random_games():
    rng = np.random.default_rng(7)
    positions = 0
    for pits, seeds, capture, empty in itertools.product(
        (1, 2, 3, 4, 6, 8), (1, 3, 4, 10), ("opposite", "kalah"), (False, True)
    ):
        game = engines.make("mancala", pits=pits, seeds=seeds, capture=capture, empty_capture=empty)
        for _ in range(8):
            state = game.new_initial_state()
            ref = MancalaReference(pits, seeds, capture, empty)
            while True:
                positions += 1
                south, north = kernels.pit_counts(state.data)
                assert (south, north) == (ref.pits_of(0), ref.pits_of(1))
                assert tuple(int(n) for n in state.data["stores"]) == ref.stores()
                assert state.is_terminal() == ref.over
                assert state.legal_moves() == ref.legal_moves()
                if ref.over:
                    break
                assert state.current_player == ref.to_move
                move = int(rng.choice(ref.legal_moves()))
                state.apply(move)
                ref.apply(move)
    assert positions > 5000


def pits(state):
    south, north = kernels.pit_counts(state.data)
    return south, north, tuple(int(n) for n in state.data["stores"])


def test_the_non_empty_pits_of_a_row_word_are_found_for_every_pit_count_in_every_place():
    """``nonempty_pits`` (a carry into each byte's high bit) marks bit 8j exactly where pit j
    holds seeds: every count from 0 to 255 in each of the eight places, beside empty, full and
    random neighbours, compiled and as Python."""
    rng = np.random.default_rng(7)
    rows, expected = [], []
    for place in range(8):
        for count in range(256):
            for others in (np.zeros(8, np.uint64), np.full(8, 255, np.uint64), rng.integers(0, 256, 8).astype(np.uint64)):
                pits = others.copy()
                pits[place] = count
                rows.append(sum(int(p) << (8 * j) for j, p in enumerate(pits)))
                expected.append(sum(1 << (8 * j) for j, p in enumerate(pits) if p))
    nonempty = kernels.nonempty_pits
    assert [int(nonempty(np.uint64(r))) for r in rows] == expected
    assert [int(nonempty.py_func(np.uint64(r))) for r in rows] == expected


# As Python, the broadword select's prefix sums wrap around the word as they do compiled, with
# numpy's warning.
WRAPS = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


@pytest.mark.parametrize(
    "select",
    [
        kernels.nth_nonempty_pit,
        kernels.broadword_nth_nonempty_pit,
        pytest.param(kernels.broadword_nth_nonempty_pit.py_func, marks=WRAPS),
    ],
    ids=["host", "broadword", "python"],
)
def test_the_random_move_is_the_kth_non_empty_pit_for_every_row(select):
    """The pit drawn for index k is the k-th non-empty pit from the mover's left, for every set of
    non-empty pits of the largest board: the host's select (``pdep`` where it is fast) and the
    broadword one of other CPUs, compiled and as Python."""
    for occupied in range(1, 256):
        nonempty = np.uint64(sum(1 << (8 * j) for j in range(8) if occupied >> j & 1))
        pits = [j for j in range(8) if occupied >> j & 1]
        assert [int(select(nonempty, k)) for k in range(len(pits))] == pits


def test_the_sowings_masks_of_ones_are_the_table_rows_on_every_board():
    """``ones_below`` (``BYTE_ONES[n]`` by shifts, two of them on the 8-pit board) for every run
    length on every board, compiled and as Python: a shift by the word's width would give the
    wrong mask only on the largest board, at n = 0 or 8."""
    cases = [(n, pits) for pits in range(1, 9) for n in range(pits + 1)]
    expected = [int(kernels.BYTE_ONES[n]) for n, _ in cases]
    ones = kernels.ones_below
    assert [int(ones(n, pits)) for n, pits in cases] == expected
    assert [int(ones.py_func(n, pits)) for n, pits in cases] == expected


def test_sowing_skips_the_opponents_store():
    #        c   b   a        North
    #   +--+---+---+---+--+
    #   |  | 1 | 1 | 1 |  |
    #   | 0+---+---+---+ 0|
    #   |  | 0 | 1 | 6 |  |
    #   +--+---+---+---+--+
    #        a   b   c        South
    # South sows 6 from c: own store, North's a b c, (North's store skipped), South's a and b.
    game = engines.make("kalah", pits=3)
    state = game.position(south=[0, 1, 6], north=[1, 1, 1])
    state.apply("c")
    assert pits(state) == ([1, 2, 0], [2, 2, 2], (1, 0))
    assert state.current_player == 1


def test_a_big_pit_sows_whole_laps_and_skips_the_store_every_lap():
    #        b   a
    #   |  | 0 | 1 |  |
    #   | 0+---+---+ 0|
    #   |  | 0 |12 |  |
    #        a   b
    # A lap is 5 cells (2 own pits, own store, 2 opposing pits). South sows 12 from b: two laps
    # (+2 everywhere but North's store, b included) and 2 more: own store, then North's a.
    game = engines.make("kalah", pits=2)
    state = game.position(south=[0, 12], north=[1, 0])
    state.apply("b")
    assert pits(state) == ([2, 2], [4, 2], (3, 0))


def test_last_seed_in_own_store_gives_an_extra_turn():
    # Start of kalah(6,4): South sows c (4 seeds: d, e, f, store) and moves again.
    state = engines.make("kalah").new_initial_state()
    state.apply("c")
    assert state.current_player == 0
    assert pits(state) == ([4, 4, 0, 5, 5, 5], [4] * 6, (1, 0))
    state.apply("f")  # 5 seeds: store, North's a-d; the turn passes
    assert state.current_player == 1


CAPTURE_POSITION = dict(south=[1, 0, 2], north=[2, 3, 0])
#        c   b   a        North
#   +--+---+---+---+--+
#   |  | 0 | 3 | 2 |  |
#   | 0+---+---+---+ 0|
#   |  | 1 | 0 | 2 |  |
#   +--+---+---+---+--+
#        a   b   c        South
# South sows a: the last seed lands in South's empty b, opposite North's b (3 seeds).


def test_capture_text_004_reading_takes_only_the_opposite_seeds():
    state = engines.make("mancala", pits=3).position(**CAPTURE_POSITION)
    state.apply("a")
    assert pits(state) == ([0, 1, 2], [2, 0, 0], (3, 0))


def test_capture_kalah_reading_banks_the_last_seed_too():
    state = engines.make("kalah", pits=3).position(**CAPTURE_POSITION)
    state.apply("a")
    assert pits(state) == ([0, 0, 2], [2, 0, 0], (4, 0))


@pytest.mark.parametrize(
    "name,empty_capture,expected",
    [
        ("kalah", False, ([0, 1, 2], [2, 0, 0], (0, 0))),  # no capture from an empty pit
        ("kalah", True, ([0, 0, 2], [2, 0, 0], (1, 0))),  # the last seed alone is banked
        ("mancala", True, ([0, 1, 2], [2, 0, 0], (0, 0))),  # text 004: nothing moves
    ],
)
def test_capture_from_an_empty_opposite_pit(name, empty_capture, expected):
    #        c   b   a
    #   |  | 0 | 0 | 2 |  |     North's b is empty
    #   |  | 1 | 0 | 2 |  |
    #        a   b   c
    state = engines.make(name, pits=3, empty_capture=empty_capture).position(south=[1, 0, 2], north=[2, 0, 0])
    state.apply("a")
    assert pits(state) == expected


def test_game_ends_when_a_row_empties_and_the_rest_is_swept():
    #        c   b   a
    #   |  | 3 | 2 | 1 |  |
    #   | 4+---+---+---+ 5|
    #   |  | 0 | 0 | 1 |  |
    #        a   b   c
    # South's last seed goes to its store (an extra-turn move), its row is empty: the game ends
    # and North's 6 seeds go to North's store: 6 - 10.
    state = engines.make("kalah", pits=3).position(south=[0, 0, 1], north=[1, 2, 3], stores=(5, 4))
    state.apply("c")
    assert state.is_terminal() and state.legal_moves() == []
    assert pits(state) == ([0, 0, 0], [0, 0, 0], (6, 10))
    assert state.outcome() == -1.0 and state.winner == 1 and state.score() == -4


def test_a_capture_that_empties_the_opponents_row_ends_the_game():
    state = engines.make("mancala", pits=3).position(south=[1, 0, 2], north=[0, 3, 0])
    state.apply("a")  # takes North's only seeds; South's remaining 3 are swept to South
    assert state.is_terminal()
    assert pits(state) == ([0, 0, 0], [0, 0, 0], (6, 0))
    assert state.winner == 0


def test_a_set_up_position_with_an_empty_row_is_over_and_swept():
    #        c   b   a
    #   |  | 0 | 0 | 2 |  |
    #   | 4+---+---+---+ 5|
    #   |  | 0 | 0 | 0 |  |     South's row is empty: North banks its 2, 6-5 for North
    state = engines.make("kalah", pits=3).position(south=[0, 0, 0], north=[2, 0, 0], stores=(5, 4))
    assert state.is_terminal() and state.legal_moves() == []
    assert pits(state) == ([0, 0, 0], [0, 0, 0], (5, 6)) and state.winner == 1


def test_equal_stores_are_a_draw():
    #        c   b   a
    #   |  | 0 | 0 | 2 |  |
    #   | 4+---+---+---+ 5|
    #   |  | 0 | 0 | 1 |  |
    #        a   b   c
    state = engines.make("kalah", pits=3).position(south=[0, 0, 1], north=[2, 0, 0], stores=(5, 4))
    state.apply("c")
    assert state.outcome() == 0.0 and state.winner is None and state.score() == 0
    assert "draw" in str(state)


def test_notation_and_errors():
    state = engines.make("mancala").new_initial_state()
    assert state.parse_move("C") == 2
    with pytest.raises(ValueError, match="not a pit"):
        state.parse_move("3")  # numbers pick from a listed set of moves in arena play
    with pytest.raises(ValueError, match="not a pit: write a letter a-f"):
        state.parse_move("g")
    state.apply("a")
    with pytest.raises(IllegalMoveError, match="pit a is empty"):
        state.copy().play("b", "a")  # North's b, then South's empty a
    with pytest.raises(IllegalMoveError):
        state.apply(9)


def test_variant_parameters_are_validated():
    assert engines.make("kalah", pits=8, seeds=10).params["pits"] == 8
    with pytest.raises(VariantError, match="pits=9 is out of range; allowed: an integer from 1 to 8"):
        engines.make("kalah", pits=9)
    with pytest.raises(VariantError, match="has no parameter 'pit'; parameters: pits, seeds"):
        engines.make("kalah", pit=4)
    with pytest.raises(VariantError, match="capture='both' is not allowed"):
        engines.make("mancala", capture="both")
    with pytest.raises(VariantError, match="unknown game 'chess'"):
        engines.make("chess")
    assert engines.make("kalah", seeds="3").params["seeds"] == 3  # as typed on a command line
