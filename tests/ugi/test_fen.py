"""Position strings (``State.fen``, ``Game.from_fen``): they round-trip exactly over random games
of every perfect-information game, preset and a spread of variants, and over the conformance
suite's positions; a malformed or impossible string is refused in one line; Dominoes has none."""

import numpy as np
import pytest

from board_arena import engines
from board_arena.engines import PositionError
from board_arena.engines.conformance import check_conformance

#: The perfect-information games that write position strings (every built-in one; a plugin game
#: without one, like the tests' tic-tac-toe, plays over UGI from ``startpos`` alone).
PERFECT = [
    name for name in engines.available_games()
    if engines.make(name).perfect_information and type(engines.make(name).notation).fen is not engines.Notation.fen
]
BUILT_IN = {"mancala", "kalah", "morabaraba", "morabaraba-9", "nine-mens-morris", "konane", "konane-classic"}


def test_every_built_in_perfect_information_game_writes_position_strings():
    assert BUILT_IN <= set(PERFECT)
#: Variants beyond the presets whose state records differ in what a position string must carry.
VARIANTS = [
    ("kalah", {"pits": 1, "seeds": 1}),
    ("kalah", {"pits": 8, "seeds": 10, "empty_capture": True}),
    ("mancala", {"pits": 3, "seeds": 2}),
    ("morabaraba", {"cows": 3}),
    ("morabaraba", {"no_immediate_remill": "forbidden", "full_board": "draw", "no_shot_draw_plies": 30}),
    ("morabaraba-9", {"flying": False, "max_plies": 120}),
    ("konane", {"size": 4}),
    ("konane", {"size": 8, "turning_jumps": True}),
    ("konane", {"size": 5, "opening": "random-adjacent", "scoring": "last-move"}),
    ("konane-classic", {"size": 7, "scoring": "captures"}),
]


def assert_round_trip(state):
    text = state.fen()
    assert "\n" not in text and "moves" not in text.split() and text.isascii() and text == " ".join(text.split())
    again = state.game.from_fen(text)
    assert again == state, text
    assert again.legal_moves() == state.legal_moves()
    assert again.hash() == state.hash()
    assert again.is_terminal() == state.is_terminal() and again.outcome() == state.outcome()
    assert again.fen() == text
    return again


def play_through(game, seed, plies=None):
    """A random game in which, at every position, the state read back from its position string
    plays on in lockstep with the game and stays equal to it."""
    choose = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    twin = assert_round_trip(state)
    while not state.is_terminal() and (plies is None or state.ply < plies):
        moves = state.legal_moves()
        move = moves[choose.integers(len(moves))]
        state.apply(move)
        twin.apply(move)
        assert twin == state
        assert_round_trip(state)
    return state


@pytest.mark.parametrize("name", PERFECT)
def test_round_trip_over_random_games_of_every_preset(name):
    game = engines.make(name)
    for seed in range(6):
        play_through(game, seed)


@pytest.mark.parametrize(("name", "params"), VARIANTS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(VARIANTS)])
def test_round_trip_over_random_games_of_variants(name, params):
    game = engines.make(name, **params)
    for seed in range(4):
        play_through(game, seed)


@pytest.mark.parametrize("name", PERFECT)
def test_round_trip_at_every_conformance_position(name):
    check_conformance(engines.make(name), games=2, invariant=assert_round_trip)


def test_set_up_positions_of_the_games_round_trip():
    kalah = engines.make("kalah", pits=3)
    assert_round_trip(kalah.position(south=[1, 0, 3], north=[2, 2, 0], stores=(10, 6), to_move=1))
    morabaraba = engines.make("morabaraba")
    assert_round_trip(morabaraba.position(white="a7 d7 g7 e4 f4", black="b6 c5 c3 e3 d2 a1", plies=30))
    konane = engines.make("konane", size=4)
    assert_round_trip(konane.position("B W . .\n. . . .\n. . . .\n. . . .", captures=(0, 0)).game.from_fen(
        "BW../..../..../.... b"))


def test_the_documented_examples_read_as_described():
    kalah = engines.make("kalah")
    middle = kalah.from_fen("4,4,0,5,5,5/4,4,4,4,4,4 1 0 S")
    assert middle.current_player == 0 and middle.board()["stores"] == [1, 0]
    morabaraba = engines.make("morabaraba")
    state = morabaraba.from_fen("W../.B./.../W....B/.../.../... w 10,10 4 0 0 -/-")
    assert state.board()["cows"] == [["a7", "a4"], ["d6", "g4"]] and state.board()["in_hand"] == [10, 10]
    classic = engines.make("konane-classic", size=4)
    assert classic.from_fen("BWBW/WBWB/BWBW/WBWB b").legal_move_names() == classic.new_initial_state().legal_move_names()


BAD = [
    ("kalah", "4,4,4,4,4,4/4,4,4,4,4,4 0 0", "3 fields instead of 4"),
    ("kalah", "4,4,4,4,4/4,4,4,4,4,4 0 0 S", "South's row has 5 pits"),
    ("kalah", "4,4,4,4,4,4/4,4,4,4,4,4 0 0 X", "neither S nor N"),
    ("kalah", "4,4,4,4,4,9/4,4,4,4,4,4 0 0 S", "53 seeds in all"),
    ("kalah", "0,0,0,0,0,0/4,4,4,4,4,4 20 4 S", "one row is empty"),
    ("kalah", "4,4,4,4,4,x/4,4,4,4,4,4 0 0 S", "a pit of South 'x'"),
    ("kalah", "4,4,4,4,4,4/4,4,4,4,4,4 0 0 S\u00e9", "printable ASCII"),
    ("morabaraba", ".../.../.../....../.../.../... w 12,12 0 0 -/-", "6 fields instead of 7"),
    ("morabaraba", ".../.../.../...../.../.../... w 12,12 0 0 0 -/-", "7 rows"),
    ("morabaraba", ".../.../.../....../.../.../..X w 12,12 0 0 0 -/-", "7 rows"),
    ("morabaraba", "WWW/.../.../....../.../.../... w 12,12 0 0 0 -/-", "15 cows"),
    ("morabaraba", "W../.../.../....../.../.../... w 11,12 1 0 0 -/-", "White places first"),
    ("morabaraba", "WW./BBB/.../....../.../.../... b 0,0 40 3 0 -/-", "White has 2 cows"),
    ("morabaraba", ".../.../.../....../.../.../... w 12,12 0 0 0 a7-d7-g7/-", "no_immediate_remill"),
    ("nine-mens-morris", ".../.../.../....../.../.../... w 9,9 0 0 0 a7-b6-c5/-", "not a mill"),
    ("nine-mens-morris", ".../.../.../....../.../.../... w 9,9 201 0 0 -/-", "from 0 to 200"),
    ("konane", "BWBWBW/WBWBWB/BWBWBW/WBWBWB/BWBWBW/WBWBWB b", "one stone of each colour"),
    ("konane", "BWBWBW/WBWBWB/BWBWBW/WBWBWB/BWBWBW/WBWB b", "6 rows of 6"),
    ("konane", "WWBWBW/WBWBWB/BWBWBW/WBWBWB/BWBWBW/WB..WB b", "other colour's point"),
    ("konane", "BWBWBW/WBWBWB/BWBWBW/WBWBWB/BWBWBW/WB..WB x", "neither b nor w"),
    ("konane-classic", "BWBWBW/WBWBWB/BWBWBW/WBWBWB/BWBWBW/WBWBWB w", "black removes"),
    ("konane-classic", "BWBWBW/W.WBWB/BWBWBW/WBWBWB/BWBWBW/WBWBWB w", "corner or centre"),
]


@pytest.mark.parametrize(("name", "text", "why"), BAD, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(BAD)])
def test_bad_position_strings_are_refused_in_one_line(name, text, why):
    game = engines.make(name)
    with pytest.raises(PositionError) as error:
        game.from_fen(text)
    message = str(error.value)
    assert "\n" not in message and why in message and "expected" in message


@pytest.mark.parametrize("name", ["dominoes", "dominoes-block"])
def test_dominoes_has_no_position_string_and_says_where_its_views_go(name):
    game = engines.make(name)
    for call in (lambda: game.new_initial_state(1).fen(), lambda: game.from_fen("anything")):
        with pytest.raises(PositionError, match="Dominoes extension") as error:
            call()
        assert "\n" not in str(error.value)
