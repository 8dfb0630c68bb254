"""Why a move is illegal comes from the kernels (``illegal_reason``, one home for each rule): the
codes agree with ``legal_moves`` on random positions of every game (the conformance checker, run
over every preset by tests/engines/test_conformance.py, asserts it at every position), and the
Python faces only put the codes into words. Here: each game's codes on positions where the rule
is plain, and the contract's own guard."""

import numpy as np
import pytest

from board_arena import engines
from board_arena.engines import IllegalMoveError, contract
from board_arena.engines.conformance import check_illegal_reasons, play_random_game
from board_arena.engines.dominoes import kernels as dominoes_kernels
from board_arena.engines.konane import kernels as konane_kernels
from board_arena.engines.konane import path_move
from board_arena.engines.mancala import kernels as mancala_kernels
from board_arena.engines.morabaraba import POINT_OF, encode
from board_arena.engines.morabaraba import kernels as morabaraba_kernels
from tests.support.positions import RUNNING_MILL


def code(state, move):
    if isinstance(move, str):
        # Morabaraba's notation reader refuses an illegal move itself: encode those by hand.
        move = mill_move(move) if state.game.family == "morabaraba" else state.parse_move(move)
    return state.game.reason_code(state, move)


def mill_move(text):
    """A Morabaraba move id from ``d6``, ``a7-d7`` or ``a7-d7xg7``, legal or not."""
    head, _, shot = text.partition("x")
    points = [POINT_OF[p] for p in head.split("-")]
    frm, to = (morabaraba_kernels.PLACE, points[0]) if len(points) == 1 else points
    return encode(frm, to, POINT_OF[shot] if shot else morabaraba_kernels.NO_SHOT)


def test_legal_moves_have_code_zero_and_nothing_else_has():
    # The checker itself, on a few extra variants beyond the presets.
    for name, params in [
        ("konane", {"turning_jumps": True}),
        ("konane", {"scoring": "last-move", "size": 5}),
        ("morabaraba-9", {"no_immediate_remill": "forbidden", "cows": 6}),
        ("dominoes", {"block_rule": "no-tile-fits", "max_pips": 3, "hand_size": 3}),
        ("kalah", {"pits": 3, "seeds": 2}),
    ]:
        final = play_random_game(engines.make(name, **params), seed=3, move_seed=4)
        check_illegal_reasons(final)


def test_shared_codes():
    state = engines.make("kalah").new_initial_state()
    assert code(state, "c") == contract.LEGAL and state.is_legal(2)
    for move in (-1, 8, 2**40, 2**70, True, None, 2.0):
        assert state.game.reason_code(state, move) == contract.REASON_NOT_A_MOVE
        assert not state.is_legal(move)
    with pytest.raises(IllegalMoveError, match="move 8 is not a move id of this game: a pit"):
        state.apply(8)
    over = engines.make("kalah", pits=1, seeds=1).new_initial_state().play("a")
    assert over.is_terminal() and code(over, 0) == contract.REASON_GAME_OVER
    with pytest.raises(IllegalMoveError, match=r"the game is over: draw \(score \+0 for South\)"):
        over.apply(0)


def test_mancala_empty_pit():
    state = engines.make("kalah").position(south=[0, 1, 2, 3, 4, 5], north=[4] * 6)
    assert code(state, "a") == mancala_kernels.REASON_EMPTY_PIT
    assert state.game.illegal_reason(state, 0) == "pit a is empty: sow from a pit with seeds (b, c, d, e, f)"


def test_konane_codes_name_the_failing_jump():
    game = engines.make("konane")
    state = game.position(
        """
        B W B W B W
        W B W B W B
        B W . W B W
        W B W B W B
        B W B W B W
        W . W B W B
        """
    )
    k = konane_kernels
    assert code(state, "a4-c4") == contract.LEGAL
    assert code(state, "c4-c2") == k.REASON_START_EMPTY
    assert code(state, "d4-b4") == k.REASON_START_OPPONENT
    assert code(state, "a6-a4") == k.REASON_LANDING_OCCUPIED  # over a5 (white) onto a4 (black)
    # c6 over c5 onto c4, then over c3 onto c2, black's own stone: the second jump (index 1) fails.
    assert code(state, "c6-c4-c2") == k.REASON_LANDING_OCCUPIED | 1 << k.REASON_STEP_SHIFT
    with pytest.raises(IllegalMoveError, match="c4-c2 lands on c2, which is occupied"):
        state.apply("c6-c4-c2")
    assert code(state, path_move([44, 60])) == k.REASON_LEAVES_BOARD  # e6 north
    assert code(state, path_move([6, 22])) == k.REASON_OFF_BOARD  # g1 is off the 6x6 board
    assert code(state, "pass") == k.REASON_PASS_WITH_JUMP
    assert code(state, k.REMOVE_BASE + 3) == k.REASON_REMOVE_AFTER_OPENING


def test_konane_second_jump_of_a_path():
    state = engines.make("konane", size=8).position(". . . . . . . .\n" * 7 + ". B W . W . . .")
    move = state.parse_move("b1-d1-f1-h1")
    reason = code(state, move)
    assert reason & 0xFF == konane_kernels.REASON_NOTHING_TO_JUMP and reason >> 8 == 2
    with pytest.raises(IllegalMoveError, match="f1-h1 has no stone on g1 to jump over"):
        state.apply(move)
    classic = engines.make("konane-classic").new_initial_state()
    assert code(classic, "pass") == konane_kernels.REASON_OPENING_FIRST
    assert code(classic, konane_kernels.REMOVE_BASE + 1) in (
        konane_kernels.REASON_REMOVE_NOT_OWN,
        konane_kernels.REASON_REMOVE_NOT_OPENING_POINT,
    )


def test_morabaraba_codes_follow_the_variant():
    k = morabaraba_kernels
    state = engines.make("morabaraba-9").position(**RUNNING_MILL).play("g7-g4xb6", "d2-d1")
    assert code(state, "g4-g7") == contract.LEGAL  # remade: legal, but it shoots nothing
    assert code(state, k.PLACE * 1024) == k.REASON_PLACE_EMPTY_HAND
    assert code(state, "g4-g7xc5") == k.REASON_REMILL_SHOOTS_NOTHING
    forbidden = engines.make("morabaraba-9", no_immediate_remill="forbidden").position(**RUNNING_MILL)
    forbidden.play("g7-g4xb6", "d2-d1")
    g4_g7 = mill_move("g4-g7")
    assert code(forbidden, g4_g7) == k.REASON_REMILL_FORBIDDEN
    with pytest.raises(IllegalMoveError, match="under no_immediate_remill='forbidden' that move is not allowed"):
        forbidden.apply(g4_g7)
    start = engines.make("morabaraba").position(white="a7 d7 e4 a1", black="b6 c5 c3", in_hand=(0, 0))
    assert code(start, "a7-g7") == k.REASON_NOT_ADJACENT
    assert code(start, "b6-b4") == k.REASON_NOT_OWN_COW
    assert code(start, "a7-d7") == k.REASON_OCCUPIED
    shoot = engines.make("morabaraba").position(white="a7 d7 f4", black="b6 c5 c3", in_hand=(1, 1))
    assert code(shoot, "g7") == k.REASON_MUST_SHOOT
    assert code(shoot, "g7xa7") == k.REASON_SHOOT_NOT_OPPONENT
    assert code(shoot, "g7xb6") == contract.LEGAL
    assert code(shoot, "a1xb6") == k.REASON_NO_MILL_NO_SHOT


def test_dominoes_codes():
    k = dominoes_kernels
    game = engines.make("dominoes")
    state = game.new_initial_state(seed=5)
    me = state.current_player
    hand = int(state.data["hands"][me])
    absent = next(t for t in range(game.n_tiles) if not hand >> t & 1)
    present = next(t for t in range(game.n_tiles) if hand >> t & 1)
    assert code(state, 2 * absent) == k.REASON_NOT_IN_HAND
    assert code(state, 2 * present + 1) == k.REASON_LEAD_ONE_MOVE
    assert code(state, k.MOVE_DRAW) == k.REASON_DRAW_CAN_PLAY
    assert code(state, k.MOVE_PASS) == k.REASON_PASS_CAN_PLAY
    assert code(state, 2 * game.n_tiles) == contract.REASON_NOT_A_MOVE  # past the double-six set
    view = state.view(1 - me)  # the other player's view: the mover's hand is hidden
    assert np.all([view.game.reason_code(view, m) != contract.LEGAL for m in range(2 * game.n_tiles)])
    block = engines.make("dominoes-block").new_initial_state(seed=5)
    block.apply(block.legal_moves()[0])
    while block.legal_moves()[0] < k.MOVE_DRAW:
        block.apply(block.legal_moves()[0])
    if not block.is_terminal():
        assert code(block, k.MOVE_DRAW) == k.REASON_NO_DRAWING


def test_register_requires_illegal_reason():
    class NoReasons:
        __name__ = "no_reasons.kernels"

    mancala = engines.make("kalah").kernels
    for name in contract.REQUIRED_MEMBERS:
        if name != "illegal_reason":
            setattr(NoReasons, name, getattr(mancala, name))
    with pytest.raises(TypeError, match="lacks contract members: illegal_reason"):
        contract.register(NoReasons)
