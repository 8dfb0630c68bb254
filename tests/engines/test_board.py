"""The public board accessor: every game's position as plain data, equal to what the kernels
hold, JSON as it is, and hiding in a view what the view hides."""

import json

import numpy as np
import pytest

from board_arena import engines


def random_positions(name, count=20, seed=0):
    game = engines.make(name)
    rng = np.random.default_rng(seed)
    for g in range(count):
        state = game.new_initial_state(seed=g)
        for _ in range(int(rng.integers(0, 60))):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_moves())))
        yield state


@pytest.mark.parametrize("name", engines.available_games())
def test_the_board_is_plain_data_that_says_who_moves_and_why_it_ended(name):
    for state in random_positions(name):
        board = state.board()
        assert json.loads(json.dumps(board)) == board
        assert board["game"] == name and board["ply"] == state.ply
        assert board["to_move"] == (None if state.is_terminal() else state.current_player)
        assert board["end_reason"] == state.end_reason and board["outcome"] == state.outcome()
        board["players"].append("someone")  # a copy: the game does not change
        assert state.board()["players"] == list(state.game.player_names)


def test_mancala_board():
    state = engines.make("kalah", pits=3).position(south=[0, 4, 1], north=[2, 0, 5], stores=(7, 3), to_move=1)
    board = state.board()
    assert board["pits"] == [[0, 4, 1], [2, 0, 5]] and board["stores"] == [7, 3] and board["to_move"] == 1


def test_morabaraba_board():
    game = engines.make("morabaraba-9")
    state = game.position(white="a7 d7 g7 e4 f4", black="b6 c5 c3 e3 d2 a1")
    state.play("g7-g4xb6", "d2-d1")
    board = state.board()
    assert board["cows"] == [["a7", "d7", "e4", "f4", "g4"], ["c5", "c3", "e3", "a1", "d1"]]
    assert board["points"][board["point_names"].index("g4")] == 0
    assert board["points"][board["point_names"].index("g7")] is None
    assert board["blocked_mills"] == [["a7-d7-g7"], []]
    assert board["stage"] == ["moving", "moving"] and board["in_hand"] == [0, 0]
    assert board["plies_without_shot"] == 1 and board["ply_cap"] == 1000


def test_konane_board():
    state = engines.make("konane-classic", size=4).new_initial_state()
    assert state.board()["opening"] and state.board()["grid"] == ["BWBW", "WBWB", "BWBW", "WBWB"]
    state.play("xa4", "xb4")
    board = state.board()
    assert board["grid"] == ["..BW", "WBWB", "BWBW", "WBWB"] and not board["opening"]
    assert "a4" not in board["stones"][0] and "b4" not in board["stones"][1]


def test_dominoes_board_shows_in_a_view_only_what_the_view_may_see():
    game = engines.make("dominoes", max_pips=3, hand_size=3)
    state = game.deal("3-3 2-1 0-0", "3-1 2-2 1-0", boneyard="3-2 1-1 3-0 2-0")
    state.play("3-3", "3-1")  # both ends show 3: one move, laid at the left
    whole, mine = state.board(), state.view(0).board()
    assert whole["line"] == [[1, 3], [3, 3]] and whole["ends"] == [1, 3]
    assert whole["hands"] == [["2-1", "0-0"], ["1-0", "2-2"]] and whole["viewer"] is None
    assert mine["hands"] == [["2-1", "0-0"], None] and mine["viewer"] == 0
    assert mine["hand_counts"] == [2, 2] and mine["boneyard"] == 4 and mine["score"] is None
    assert "1-0" not in json.dumps(mine)
