"""Konane: conformance, the plain-Python reference, perft counts, the move-count bound and scripted
positions from the rules.

Boards in comments are drawn as ``render`` and ``Konane.position`` draw them: the top row first,
columns a.. from the left, rows 1.. from the bottom. On even boards black stands on b1, d1, ...,
a2, c2, ...; on odd boards on a1, c1, ... (black has the top-left point).
"""

import itertools
import re
from pathlib import Path

import numpy as np
import pytest

from board_arena import engines
from board_arena.engines import IllegalMoveError, VariantError
from board_arena.engines.conformance import (
    check_conformance,
    kernel_digest,
    perft,
    pure_python_digest,
)
from board_arena.engines.konane import kernels, path_move, square_name
from board_arena.kernels import kernel
from tests.reference.konane import COLOURS, KonaneReference, move_id

SIZES = range(kernels.MIN_SIZE, kernels.MAX_SIZE + 1)
PERFT_FILE = Path(__file__).resolve().parents[1] / "data" / "konane.perft"


def stones_stay_on_their_colour(state):
    size = state.game.params["size"]
    black, white = (int(b) for b in state.data["stones"])
    black_points = int(kernels.BB_BLACK_SQUARES[size])
    white_points = int(kernels.BB_BOARD[size]) & ~black_points
    assert black & ~black_points == 0, "a black stone off the black points"
    assert white & ~white_points == 0, "a white stone off the white points"


@pytest.mark.parametrize("turning", [False, True], ids=["straight", "turning"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", ["konane", "konane-classic"])
def test_conformance(name, size, turning):
    game = engines.make(name, size=size, turning_jumps=turning)
    full = size * size
    for state in check_conformance(game, games=10, invariant=stones_stay_on_their_colour):
        black, white = (int(b).bit_count() for b in state.data["stones"])
        captured = tuple(int(c) for c in state.data["captures"])
        assert black + white + sum(captured) == full - 2, "every stone is on the board or captured"
        if name == "konane-classic":
            assert state.winner == 1 - state.current_player, "under normal play the player to move lost"


@pytest.mark.parametrize(
    "name,params",
    [
        ("konane", {}),
        ("konane", {"size": 8, "turning_jumps": True}),
        ("konane-classic", {"size": 5}),
        ("konane", {"size": 7, "opening": "random-adjacent", "scoring": "last-move", "turning_jumps": True}),
    ],
)
def test_compiled_and_pure_python_agree(name, params):
    seeds = range(3)
    assert kernel_digest(name, params, seeds) == pure_python_digest(name, params, seeds)


# ----------------------------------------------------------------------------------------------
# The engine against the plain-Python reference


def board_text(grid):
    """The position() drawing of a reference grid (top row first)."""
    return "\n".join(" ".join(cell or "." for cell in row) for row in reversed(grid))


def assert_same(state, ref, ref_moves=None):
    assert tuple(int(b) for b in state.data["stones"]) == ref.bitboards()
    assert tuple(int(c) for c in state.data["captures"]) == tuple(ref.captures)
    assert state.is_terminal() == ref.over
    assert sorted(state.legal_moves()) == (ref.legal_moves() if ref_moves is None else ref_moves)
    if not ref.over:
        assert state.current_player == ref.to_move


def random_grid(size, rng):
    """A random board with each stone on its own colour of point, densities drawn at random."""
    density = rng.uniform(0.1, 1.0, size=2)
    return [
        [
            COLOURS[(r + c + size - 1) % 2] if rng.random() < density[(r + c + size - 1) % 2] else None
            for c in range(size)
        ]
        for r in range(size)
    ]


@pytest.mark.parametrize("turning", [False, True], ids=["straight", "turning"])
def test_engine_matches_reference_on_random_positions(turning):
    rng = np.random.default_rng(11 + turning)
    for size, scoring in itertools.product(SIZES, ("captures", "last-move")):
        game = engines.make("konane", size=size, turning_jumps=turning, scoring=scoring)
        for _ in range(800 if scoring == "captures" else 200):
            grid = random_grid(size, rng)
            to_move = int(rng.integers(2))
            state = game.position(board_text(grid), to_move=to_move)
            ref = KonaneReference(grid, to_move, turning=turning, scoring=scoring)
            moves = ref.moves()
            assert_same(state, ref, sorted(moves))
            for move in rng.choice(sorted(moves), size=min(2, len(moves)), replace=False) if moves else []:
                child, ref_child = state.copy(), ref.copy()
                child.apply(int(move))
                ref_child.apply(int(move), moves)
                assert_same(child, ref_child)


@pytest.mark.parametrize("turning", [False, True], ids=["straight", "turning"])
def test_engine_matches_reference_on_random_games(turning):
    rng = np.random.default_rng(5)
    positions = 0
    for size, opening, scoring in itertools.product(
        SIZES, ("random", "random-adjacent", "classic"), ("captures", "last-move")
    ):
        game = engines.make("konane", size=size, turning_jumps=turning, opening=opening, scoring=scoring)
        for seed in range(6):
            state = game.new_initial_state(seed)
            if opening == "classic":
                ref = KonaneReference.full_board(size, turning=turning, scoring=scoring)
            else:
                black, white = (int(b) for b in state.data["stones"])
                grid = [[None] * size for _ in range(size)]
                for r, c in itertools.product(range(size), repeat=2):
                    grid[r][c] = "B" if black >> (8 * r + c) & 1 else "W" if white >> (8 * r + c) & 1 else None
                ref = KonaneReference(grid, 0, turning=turning, scoring=scoring)
            while True:
                positions += 1
                assert_same(state, ref)
                if ref.over:
                    assert state.outcome() == ref.outcome()
                    break
                move = int(rng.choice(ref.legal_moves()))
                state.apply(move)
                ref.apply(move)
    assert positions > 3000


# ----------------------------------------------------------------------------------------------
# Perft: move sequences of exactly n moves, as data (python-chess keeps its perft counts the same
# way). Each entry is a variant and a start position: a drawn board (rows from the top, / between
# rows) for the random openings, or the start of the game for the classic opening.


def read_perft(path=PERFT_FILE):
    entries, entry = [], None
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        if key == "id":
            entry = {"id": value, "params": {}, "board": None, "counts": {}}
            entries.append(entry)
        elif key == "game":
            entry["game"] = value
        elif key == "params":
            entry["params"] = dict(word.split("=") for word in value.split())
        elif key == "board":
            entry["board"] = value
        elif key == "perft":
            depth, count = value.split()
            entry["counts"][int(depth)] = int(count)
    return entries


def perft_start(entry):
    game = engines.make(entry["game"], **entry["params"])
    p = game.params
    if entry["board"] is None:
        return game.new_initial_state(), KonaneReference.full_board(
            p["size"], turning=p["turning_jumps"], scoring=p["scoring"]
        )
    rows = entry["board"].split("/")
    grid = [[None if ch == "." else ch for ch in row] for row in reversed(rows)]
    state = game.position("\n".join(rows))
    return state, KonaneReference(grid, 0, turning=p["turning_jumps"], scoring=p["scoring"])


PERFT_ENTRIES = read_perft() if PERFT_FILE.exists() else []


def test_perft_file_covers_every_size_and_rule():
    covered = {(e["game"], int(e["params"]["size"]), e["params"]["turning_jumps"]) for e in PERFT_ENTRIES}
    for name, size, turning in itertools.product(("konane", "konane-classic"), SIZES, ("false", "true")):
        assert (name, size, turning) in covered


@pytest.mark.parametrize("entry", PERFT_ENTRIES, ids=[e["id"] for e in PERFT_ENTRIES])
def test_perft_engine(entry):
    state, _ = perft_start(entry)
    assert {d: perft(state.data, d) for d in entry["counts"]} == entry["counts"]


@pytest.mark.parametrize("entry", PERFT_ENTRIES, ids=[e["id"] for e in PERFT_ENTRIES])
def test_perft_reference(entry):
    # The reference wrote these counts; it is checked again to a depth it reaches in a second.
    _, ref = perft_start(entry)
    depth = max(d for d, count in entry["counts"].items() if count <= 1500)
    assert ref.perft(depth) == entry["counts"][depth]


def write_perft_file(max_leaves=4000):
    """Regenerates tests/data/konane.perft with the reference
    (``python -m tests.engines.test_konane``): depths grow until the reference's count passes
    ``max_leaves``."""
    lines = [
        "# Konane perft: the number of legal move sequences of exactly n moves (a pass and an opening",
        "# removal are moves) from a start position; written by the plain-Python reference",
        "# (python -m tests.engines.test_konane) and checked against the engine and the reference.",
        "# board: the start position, rows from the top (/ between rows); none: the classic opening.",
    ]
    for name, size, turning in itertools.product(("konane", "konane-classic"), SIZES, (False, True)):
        params = {"size": size, "turning_jumps": str(turning).lower()}
        game = engines.make(name, **params)
        lines += ["", f"id {name}-{size}x{size}-{'turning' if turning else 'straight'}", f"game {name}"]
        lines.append("params " + " ".join(f"{k}={v}" for k, v in params.items()))
        entry = {"game": name, "params": params, "board": None}
        if name == "konane":
            stones = [int(b) for b in game.new_initial_state(seed=size).data["stones"]]
            sign = ["B" if stones[0] >> sq & 1 else "W" if stones[1] >> sq & 1 else "." for sq in range(64)]
            entry["board"] = "/".join("".join(sign[8 * r : 8 * r + size]) for r in reversed(range(size)))
            lines.append(f"board {entry['board']}")
        _, ref = perft_start(entry)
        depth, count = 0, 1
        while count < max_leaves:
            depth += 1
            count = ref.perft(depth)
            lines.append(f"perft {depth} {count}")
            if count == 0:
                break
    PERFT_FILE.parent.mkdir(exist_ok=True)
    PERFT_FILE.write_text("\n".join(lines) + "\n")


# ----------------------------------------------------------------------------------------------
# MAX_MOVES: the exact bound, computed (see the argument in engines/konane/kernels.py)


@kernel
def most_trails(rows, cols):
    """Over every set S of occupied points of a rows x cols grid graph, the most trails (walks
    without a repeated edge, at least one edge) that start on a point of S and never visit
    another point of S; the trails of one start are the turning moves of one stone."""
    points = rows * cols
    neighbour = np.full((points, 4), -1, np.int64)
    edge = np.full((points, 4), -1, np.int64)
    edges = 0
    for p in range(points):
        r, c = divmod(p, cols)
        if c + 1 < cols:
            neighbour[p, 0], edge[p, 0] = p + 1, edges
            neighbour[p + 1, 2], edge[p + 1, 2] = p, edges
            edges += 1
        if r + 1 < rows:
            neighbour[p, 1], edge[p, 1] = p + cols, edges
            neighbour[p + cols, 3], edge[p + cols, 3] = p, edges
            edges += 1
    at = np.empty(edges + 1, np.int64)
    tried = np.empty(edges + 1, np.int64)
    best = 0
    for occupied in range(1, 1 << points):
        total = 0
        for start in range(points):
            if not occupied >> start & 1:
                continue
            blocked = occupied & ~(1 << start)
            used = 0
            top = 0
            at[0] = start
            tried[0] = 0
            while top >= 0:
                k = tried[top]
                if k == 4:
                    top -= 1
                    if top >= 0:
                        used &= ~(1 << edge[at[top], tried[top] - 1])
                    continue
                tried[top] = k + 1
                q = neighbour[at[top], k]
                if q < 0 or blocked >> q & 1 or used >> edge[at[top], k] & 1:
                    continue
                used |= 1 << edge[at[top], k]
                total += 1
                top += 1
                at[top] = q
                tried[top] = 0
        best = max(best, total)
    return best


def test_max_moves_is_the_exact_bound():
    # A player's stones stay on its colour, which splits into two lattices of points two apart
    # (class (row % 2, col % 2)); a turning move is a trail in its stone's lattice. Sum, per
    # colour, each lattice's most trails; MAX_MOVES is the largest sum over sizes and colours.
    most = {}
    bounds = []
    for size in SIZES:
        per_colour = []
        for colour in (0, 1):
            total = 0
            for a, b in itertools.product((0, 1), repeat=2):
                if ((a + b) % 2 == (size - 1) % 2) != (colour == 0):
                    continue
                shape = ((size - a + 1) // 2, (size - b + 1) // 2)
                if shape not in most:
                    most[shape] = most_trails(*shape)
                total += most[shape]
            per_colour.append(total)
        assert max(per_colour) == kernels.TURNING_MAX_MOVES[size]
        bounds += per_colour
    assert max(bounds) == kernels.MAX_MOVES
    # Straight moves: at most 4 per opponent stone (a move is fixed by its direction and the
    # first stone it jumps), and fewer than the turning bound; removals are at most 8.
    assert 4 * 32 < kernels.MAX_MOVES


def test_max_moves_is_reached():
    # One black stone on an inner point of each black lattice (c4 and d3), white on the middle of
    # every edge of both lattices: every trail of both stones is a move, 2 * 27,384 in all.
    game = engines.make("konane", size=8, turning_jumps=True)
    grid = [[None] * 8 for _ in range(8)]
    black = [(3, 2), (2, 3)]
    for r0, c0 in black:
        for r, c in itertools.product(range(r0 % 2, 8, 2), range(c0 % 2, 8, 2)):
            for dr, dc in ((0, 2), (2, 0)):
                if r + dr < 8 and c + dc < 8:
                    grid[r + dr // 2][c + dc // 2] = "W"
    for r, c in black:
        grid[r][c] = "B"
    #    a b c d e f g h
    #  8 . W . W . W . .
    #  7 W . W . W . W .
    #  6 . W . W . W . W
    #  5 W . W . W . W .
    #  4 . W B W . W . W
    #  3 W . W B W . W .
    #  2 . W . W . W . W
    #  1 . . W . W . W .
    assert board_text(grid).splitlines()[0] == ". W . W . W . ."
    assert board_text(grid).splitlines()[7] == ". . W . W . W ."
    state = game.position(board_text(grid))
    moves = state.legal_moves()
    assert len(moves) == len(set(moves)) == kernels.MAX_MOVES


def test_no_random_position_exceeds_the_bound_per_size():
    # Random dense positions stay far below the bound: a check that the bound is not violated by
    # positions with many stones, not a proof (the proof is test_max_moves_is_the_exact_bound).
    rng = np.random.default_rng(3)
    for size in SIZES:
        game = engines.make("konane", size=size, turning_jumps=True)
        for _ in range(200):
            grid = random_grid(size, rng)
            assert len(game.position(board_text(grid)).legal_moves()) <= kernels.MAX_MOVES


# ----------------------------------------------------------------------------------------------
# The openings


def removed_points(state):
    size = state.game.params["size"]
    black_squares = int(kernels.BB_BLACK_SQUARES[size])
    board = int(kernels.BB_BOARD[size])
    black, white = (int(b) for b in state.data["stones"])
    return black_squares & ~black, board & ~black_squares & ~white


@pytest.mark.parametrize("size", SIZES)
def test_random_opening_removes_one_black_and_one_white_stone_anywhere(size):
    game = engines.make("konane", size=size)
    seen_black, seen_white = 0, 0
    for seed in range(40 * size * size):
        gap_black, gap_white = removed_points(game.new_initial_state(seed))
        assert gap_black.bit_count() == gap_white.bit_count() == 1
        seen_black |= gap_black
        seen_white |= gap_white
    black_squares = int(kernels.BB_BLACK_SQUARES[size])
    assert seen_black == black_squares, "every black stone can be the one removed"
    assert seen_white == int(kernels.BB_BOARD[size]) & ~black_squares


def test_random_adjacent_opening_removes_an_adjacent_pair_and_all_pairs_occur():
    game = engines.make("konane", size=5, opening="random-adjacent")
    pairs = set()
    for seed in range(600):
        gap_black, gap_white = removed_points(game.new_initial_state(seed))
        b, w = gap_black.bit_length() - 1, gap_white.bit_length() - 1
        assert abs(b - w) in (1, 8) and (b >> 3 == w >> 3 or b & 7 == w & 7)
        pairs.add((b, w))
    assert len(pairs) == 2 * 5 * 4


def test_same_seed_same_opening_and_a_fresh_seed_without_one():
    game = engines.make("konane")
    assert game.new_initial_state(7) == game.new_initial_state(7)
    assert len({removed_points(game.new_initial_state(s)) for s in range(20)}) > 10
    state = game.new_initial_state()
    assert state.seed is not None and state == game.new_initial_state(state.seed)


def test_classic_opening():
    # 6x6: black has the corners a6 and f1 and the centre points c4 and d3.
    game = engines.make("konane-classic")
    state = game.new_initial_state()
    assert sorted(state.legal_move_names()) == ["xa6", "xc4", "xd3", "xf1"]
    assert "Black to remove a stone" in str(state)
    with pytest.raises(IllegalMoveError, match="b6 holds no black stone"):
        state.copy().apply("xb6")
    with pytest.raises(IllegalMoveError, match="b5 is neither a corner nor a centre point"):
        state.copy().apply("xb5")
    with pytest.raises(IllegalMoveError, match="classic opening comes first"):
        state.copy().apply("pass")
    state.apply("xd3")
    assert sorted(state.legal_move_names()) == ["xc3", "xd2", "xd4", "xe3"]
    with pytest.raises(IllegalMoveError, match="not next to the gap"):
        state.copy().apply("xa1")
    state.apply("xd4")
    assert state.current_player == 0 and "Black to move" in str(state)
    # The gaps are d3 and d4: black jumps into d3 (from b3, f3 or d1), no further jump exists.
    assert sorted(state.legal_move_names()) == ["b3-d3", "d1-d3", "f3-d3"]


def test_black_opening_points_on_odd_boards():
    # 5x5: the four corners and the centre are black.
    state = engines.make("konane-classic", size=5).new_initial_state()
    assert sorted(state.legal_move_names()) == ["xa1", "xa5", "xc3", "xe1", "xe5"]


# ----------------------------------------------------------------------------------------------
# Scripted positions


def names(state):
    return sorted(state.legal_move_names())


def test_double_jump_and_stopping_early():
    #    a b c d e f
    #  6 . . . . . .
    #  5 . . . . . .
    #  4 . . . . . .
    #  3 . . . . . .
    #  2 . . . . . .
    #  1 . B W . W .
    game = engines.make("konane")
    board = ". . . . . .\n" * 5 + ". B W . W ."
    assert names(game.position(board)) == ["b1-d1", "b1-d1-f1"]
    stopped = game.position(board).play("b1-d1")
    assert stopped.data["captures"][0] == 1 and "W" in str(stopped).splitlines()[6]
    double = game.position(board).play("b1-f1")  # the shorthand for b1-d1-f1
    assert double.history == (path_move([1, 3, 5]),)
    assert str(double).splitlines()[6] == " 1 . . . . . B 1"
    assert double.score() == 2


def test_triple_jump():
    #    a b c d e f g h
    #  1 . B W . W . W .      (rows 2-8 empty)
    game = engines.make("konane", size=8)
    state = game.position(". . . . . . . .\n" * 7 + ". B W . W . W .")
    assert names(state) == ["b1-d1", "b1-d1-f1", "b1-d1-f1-h1"]
    state.apply("b1-h1")
    assert state.score() == 3 and state.is_terminal() and state.winner == 0


# A turn: black b1 jumps c1 to d1, then could jump d2 to d3.
#    a b c d e f
#  6 . . . . . .
#  5 . . . . . .
#  4 . . . . . .
#  3 . . . . . .
#  2 . . . W . .
#  1 . B W . . .
TURN_BOARD = ". . . . . .\n" * 4 + ". . . W . .\n. B W . . ."


def test_no_change_of_direction_by_default():
    state = engines.make("konane").position(TURN_BOARD)
    assert names(state) == ["b1-d1"]
    with pytest.raises(IllegalMoveError, match="changes direction: every jump of a move keeps the first"):
        state.apply("b1-d1-d3")


def test_turning_jumps_allow_a_change_of_direction():
    state = engines.make("konane", turning_jumps=True).position(TURN_BOARD)
    assert names(state) == ["b1-d1", "b1-d1-d3"]
    state.apply("b1-d1-d3")
    assert state.score() == 2 and state.is_terminal()


def test_a_path_may_come_back_to_its_start():
    # Black d3 jumps around the white stones e3, f4, e5, d4: d3-f3-f5-d5-d3 (4 captures).
    #    a b c d e f
    #  6 . . . . . .
    #  5 . . . . W .
    #  4 . . . W . W
    #  3 . . . B W .
    #  2 . . . . . .
    #  1 . . . . . .
    board = ". . . . . .\n. . . . W .\n. . . W . W\n. . . B W .\n. . . . . .\n. . . . . ."
    state = engines.make("konane", turning_jumps=True).position(board)
    assert "d3-f3-f5-d5-d3" in names(state) and "d3-d5-f5-f3-d3" in names(state)
    state.apply("d3-f3-f5-d5-d3")
    assert state.score() == 4 and int(state.data["stones"][0]) == 1 << (8 * 2 + 3)
    assert int(state.data["stones"][1]) == 0 and state.is_terminal()


# Black cannot jump, white can (a1 over b1 to c1).
#    a b c d
#  4 . . . .
#  3 . . . .
#  2 . . . .
#  1 W B . .
PASS_BOARD = ". . . .\n. . . .\n. . . .\nW B . ."


def test_a_player_without_a_jump_passes_and_the_game_ends_when_neither_can_move():
    state = engines.make("konane", size=4).position(PASS_BOARD)
    assert state.legal_move_names() == ["pass"] and not state.is_terminal()
    state.apply("pass")
    assert state.current_player == 1 and state.legal_move_names() == ["a1-c1"]
    state.apply("a1-c1")
    # Neither can move: the game is over, white captured 1 stone to none.
    assert state.is_terminal() and state.legal_moves() == []
    assert state.score() == -1 and state.outcome() == -1.0 and state.winner == 1
    assert "White wins (score -1 for Black)" in str(state)


def test_a_player_with_a_jump_may_not_pass():
    state = engines.make("konane", size=4).position(PASS_BOARD, to_move="white")
    with pytest.raises(IllegalMoveError, match="pass only when you have no jump"):
        state.apply("pass")


def test_normal_play_the_player_who_cannot_move_loses():
    state = engines.make("konane-classic", size=4).position(PASS_BOARD)
    assert state.is_terminal() and state.outcome() == -1.0, "black cannot move: black loses"
    state = engines.make("konane-classic", size=4).position(PASS_BOARD, to_move="white")
    state.apply("a1-c1")
    assert state.is_terminal() and state.winner == 1
    assert "White wins: Black cannot move" in str(state)
    # No passing under normal play, even where capture scoring would pass.
    assert "pass" not in engines.make("konane-classic", size=4).position(PASS_BOARD, to_move="white").legal_move_names()


def test_captures_decide_and_equal_captures_draw():
    #    a b c d
    #  4 . . . .
    #  3 . . . .
    #  2 . . . .
    #  1 . B W .     black b1-d1 takes c1: 1 - 0 after 0 - 1 before
    state = engines.make("konane", size=4).position(". . . .\n" * 3 + ". B W .", captures=(0, 1))
    state.apply("b1-d1")
    assert state.is_terminal() and state.score() == 0 and state.outcome() == 0.0 and state.winner is None
    assert "draw" in str(state)


# ----------------------------------------------------------------------------------------------
# Illegal moves name the broken rule


#    a b c d e f
#  6 . . . . . .
#  5 . . . . . .
#  4 . . . . . .
#  3 . . . B W B
#  2 . . B W . .
#  1 . . . . . .
ILLEGAL_BOARD = ". . . . . .\n" * 3 + ". . . B W B\n. . B W . .\n. . . . . ."


@pytest.mark.parametrize(
    "move,message",
    [
        ("d2-b2", "d2 holds a white stone, not yours, and c2 is your own stone: a stone jumps only over an opponent"),
        ("d3-f3", "d3-f3 lands on f3, which is occupied: a jump lands on an empty point"),
        ("c2-e4", "c2-e4 is diagonal: stones jump only orthogonally"),
        ("c2-e2-e4", "e2-e4 changes direction: every jump of a move keeps the first jump's direction"),
        ("c2-c4", "c2-c4 has no stone on c3 to jump over"),
        ("c2-c3", "c2-c3 is 1 point long: a jump goes over the adjacent stone"),
        ("a1-c1", "a1 holds no stone"),
        ("c2-a2", "c2-a2 has no stone on b2"),
        ("d3-d1-d9", "d9 is not a point of the 6x6 board"),
        ("pass", "pass only when you have no jump"),
        ("xc2", "stones are removed only in the classic opening"),
    ],
)
def test_illegal_moves_are_refused_with_the_rule(move, message):
    state = engines.make("konane").position(ILLEGAL_BOARD)
    assert names(state) == ["c2-e2", "d3-d1"]
    with pytest.raises(ValueError, match=re.escape(message)):
        state.apply(move)
    assert names(state) == ["c2-e2", "d3-d1"]


def test_illegal_ids_are_refused():
    state = engines.make("konane").position(ILLEGAL_BOARD)
    with pytest.raises(IllegalMoveError, match="leaves the 6x6 board"):
        state.apply(8 * 2 + 5 | 0 << 6)  # f3 east: off the board
    for bad in (-1, kernels.MOVE_BOUND, 900, 1 << 13):
        with pytest.raises(IllegalMoveError, match="is not a move id of this game"):
            state.apply(bad)


def test_turning_rule_refuses_a_jump_straight_back():
    state = engines.make("konane", turning_jumps=True).position(ILLEGAL_BOARD)
    with pytest.raises(IllegalMoveError, match="straight back"):
        state.apply("c2-e2-c2")


# ----------------------------------------------------------------------------------------------
# Notation, listing, rendering, heuristic, parameters


def test_notation_round_trips_and_shorthand():
    state = engines.make("konane", size=8).position(". . . . . . . .\n" * 7 + ". B W . W . W .")
    assert state.parse_move(" B1-D1-F1 ") == state.parse_move("b1-f1") == path_move([1, 3, 5])
    assert state.parse_move("b1 - h1") == path_move([1, 3, 5, 7])
    assert state.format_move(state.parse_move("b1-h1")) == "b1-d1-f1-h1"
    assert move_id([(0, 1), (0, 3), (0, 5)]) == path_move([1, 3, 5])
    with pytest.raises(ValueError, match="i1 is not a point of the 8x8 board"):
        state.parse_move("b1-i1")
    with pytest.raises(ValueError, match="write a jump as its start and landing points"):
        state.parse_move("b1")
    with pytest.raises(ValueError, match="is not a move"):
        state.parse_move("jump!")
    assert [square_name(sq) for sq in (0, 7, 56, 63)] == ["a1", "h1", "a8", "h8"]


def test_legal_move_list_groups_moves_by_stone():
    #    a b c d e f
    #  6 . . . . . .
    #  5 . . . . . .
    #  4 . . . . . .
    #  3 . . . B W .
    #  2 . W . . . .
    #  1 . B . . . .
    state = engines.make("konane").position(". . . . . .\n" * 3 + ". . . B W .\n. W . . . .\n. B . . . .")
    assert state.legal_move_names() == ["d3-f3", "b1-b3"]  # the engine's order: east jumps first
    assert state.game.notation.legal_move_list(state) == ["b1-b3", "d3-f3"]


def test_render_shows_coordinates_score_and_turn():
    state = engines.make("konane", size=4).position(". . . .\n. . . .\n. . . .\n. B W .", captures=(3, 2))
    assert str(state).splitlines() == [
        "   a b c d",
        " 4 . . . . 4",
        " 3 . . . . 3",
        " 2 . . . . 2",
        " 1 . B W . 1",
        "   a b c d",
        "captured: Black 3, White 2; Black to move",
    ]
    assert "●" in state.render(unicode=True) and "\x1b[" in state.render(color=True)


def test_help_text_follows_the_variant():
    assert "passes" in engines.make("konane").notation.help_text()
    classic = " ".join(engines.make("konane-classic", turning_jumps=True).notation.help_text().split())
    assert "no passing" in classic and "corner or the centre" in classic and "may change direction" in classic


def test_heuristic_favours_the_player_with_more_captures_and_mobility():
    game = engines.make("konane", size=4)
    ahead = game.position(". . . .\n" * 3 + ". B W .", captures=(2, 0)).heuristic()
    behind = game.position(". . . .\n" * 3 + ". B W .", captures=(0, 2)).heuristic()
    assert -1 < behind < 0 < ahead < 1
    stuck = engines.make("konane-classic", size=4).position(PASS_BOARD, to_move="white")
    assert stuck.heuristic() < 0, "only white can jump"


def test_set_up_positions_are_validated():
    game = engines.make("konane", size=4)
    with pytest.raises(ValueError, match="4 rows of 4 points"):
        game.position("B W\nW B")
    with pytest.raises(ValueError, match="a1 is a white point: black stones stand only on their own colour"):
        game.position(". . . .\n. . . .\n. . . .\nB . . .")
    with pytest.raises(ValueError, match="'Q' is not a point"):
        game.position(". . . .\n. . . .\n. . . .\n. Q . .")


def test_variant_parameters_are_validated():
    assert engines.make("konane-classic").params["scoring"] == "last-move"
    with pytest.raises(VariantError, match="size=9 is out of range; allowed: an integer from 4 to 8"):
        engines.make("konane", size=9)
    with pytest.raises(VariantError, match="opening='corner' is not allowed"):
        engines.make("konane", opening="corner")
    assert engines.make("konane", turning_jumps="true").params["turning_jumps"] is True


if __name__ == "__main__":
    write_perft_file()
    print(f"wrote {PERFT_FILE}")
