"""Morabaraba: the board tables against the docs/games/morabaraba.md drawing, conformance, the plain-Python
reference over random games and random set-ups, perft counts, scripted positions from the rule
texts, notation and errors.

Boards in comments are drawn as ``render`` draws them (White ``W``, Black ``B``, empty ``.``,
row numbers on the left), keeping only the rows that matter.
"""

import copy
import json
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
from board_arena.engines.morabaraba import board, decode, encode, kernels
from board_arena.kernels import broadword_nth_set_bit, nth_set_bit
from board_arena.kernels.bits import pdep_is_fast
from tests.reference.morabaraba import ALL_MILLS, ORTHOGONAL_MILLS, MorabarabaReference
from tests.support.positions import RUNNING_MILL

PRESETS = ["morabaraba", "morabaraba-9", "nine-mens-morris"]

def rules_page_drawing():
    """The numbered board drawn in docs/games/morabaraba.md (the left half of its drawing, row labels cut)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "games" / "morabaraba.md").read_text()
    block = page.split("## The board", 1)[1].split("```", 2)[1]
    rows = [line[4:34].rstrip() for line in block.strip("\n").split("\n") if line.strip()]
    return "\n" + "\n".join(row for row in rows if row.strip() and not row.strip().startswith("a ")) + "\n"


RULES_DRAWING = rules_page_drawing()


def drawing_edges(drawing):
    """The pairs of points joined by a stroke of the drawing: (orthogonal, diagonal) sets."""
    rows = drawing.strip("\n").split("\n")
    width = max(len(r) for r in rows)
    grid = [r.ljust(width) for r in rows]
    points = {}
    for y, row in enumerate(grid):
        x = 0
        while x < width:
            if row[x].isdigit():
                end = x
                while end + 1 < width and row[end + 1].isdigit():
                    end += 1
                points[(y, x)] = points[(y, end)] = int(row[x : end + 1])
                x = end + 1
            else:
                x += 1
    orthogonal = set()
    for (y, x), p in points.items():  # walk along - and | from each point to the next point
        for (dy, dx), stroke in (((0, 1), "-"), ((1, 0), "|")):
            cy, cx, seen = y + dy, x + dx, 0
            while 0 <= cy < len(grid) and 0 <= cx < width and grid[cy][cx] == stroke:
                cy, cx, seen = cy + dy, cx + dx, seen + 1
            q = points.get((cy, cx))
            if seen and q is not None and q != p:
                orthogonal.add((min(p, q), max(p, q)))
    diagonal = set()
    for y, row in enumerate(grid):  # a slanted stroke joins the nearest points it points to
        for x, stroke in enumerate(row):
            if stroke in "\\/":
                up = 1 if stroke == "/" else -1  # the side of the upper point

                def nearest(ny, side):
                    near = [(abs(cx - x), q) for (cy, cx), q in points.items() if cy == ny and (cx - x) * side > 0]
                    return min(near)[1]

                p, q = nearest(y - 1, up), nearest(y + 1, -up)
                diagonal.add((min(p, q), max(p, q)))
    return orthogonal, diagonal


def test_board_tables_match_the_rules_drawing_and_mill_list():
    orthogonal, diagonal = drawing_edges(RULES_DRAWING)
    assert (len(orthogonal), len(diagonal)) == (32, 8)
    for diagonals in (False, True):
        adjacency = board.neighbours(diagonals)
        engine_edges = {(p, q) for p in range(24) for q in adjacency[p] if p < q}
        assert engine_edges == (orthogonal | diagonal if diagonals else orthogonal)
        expected = ALL_MILLS if diagonals else ORTHOGONAL_MILLS
        assert list(board.lines_of(diagonals)) == expected
        for a, b, c in expected:  # a mill is three points in a row along drawn lines
            assert (min(a, b), max(a, b)) in engine_edges and (min(b, c), max(b, c)) in engine_edges
    # docs/games/morabaraba.md: "point 3 touches 0, 4, 6 and 10 when the diagonals are drawn".
    assert board.neighbours(True)[3] == [0, 4, 6, 10]
    assert [board.POINT_NAMES[p] for p in (0, 9, 21, 23)] == ["a7", "a4", "a1", "g1"]


def test_bit_parallel_mill_tests_match_the_mill_list():
    """The layouts' shift tests (``line_completions``, ``cows_in_mills``) against a loop over the
    mills, on random boards of every density, with and without the diagonals."""
    rng = np.random.default_rng(7)
    for diagonals in (0, 1):
        mills = [sum(1 << p for p in mill) for mill in board.lines_of(bool(diagonals))]
        for density in (0.2, 0.4, 0.6, 0.8):
            for bits in (rng.random((200, 24)) < density) @ (1 << np.arange(24, dtype=np.uint64)):
                own = int(bits)
                completing = 0
                for m in mills:
                    for p in range(24):
                        if m >> p & 1 and (own | 1 << p) & m == m:
                            completing |= 1 << p
                rows, columns, diagonal = kernels.line_completions(diagonals, np.uint64(own))
                assert int(rows | columns | diagonal) == completing
                inside = 0
                for m in mills:
                    if own & m == m:
                        inside |= m
                assert int(kernels.cows_in_mills(diagonals, np.uint64(own))) == inside


# As Python, the broadword select's prefix sums wrap around the word as they do compiled, with
# numpy's warning.
WRAPS = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


@pytest.mark.parametrize(
    "select",
    [nth_set_bit, broadword_nth_set_bit, pytest.param(broadword_nth_set_bit.py_func, marks=WRAPS)],
    ids=["host", "broadword", "python"],
)
def test_nth_set_bit_selects_every_set_bit(select):
    """The select of the host (``pdep`` where it is fast) and the broadword one of other CPUs,
    compiled and as Python."""
    rng = np.random.default_rng(3)
    words = [0, 1, 1 << 63, (1 << 64) - 1, 0x8000_0000_0000_0001, *map(int, rng.integers(0, 2**63, 300))]
    for word in words:
        x = np.uint64(word | (word << 1 & (1 << 64) - 1))
        ones = [i for i in range(64) if int(x) >> i & 1]
        assert [select(x, k) for k in range(len(ones))] == ones


@pytest.mark.parametrize(
    "cpu,features,fast",
    [
        ("znver5", "+64bit,+bmi,+bmi2,+popcnt", True),
        ("haswell", "+64bit,+bmi2", True),
        ("znver2", "+64bit,+bmi,+bmi2,+popcnt", False),  # microcoded pdep
        ("znver1", "+64bit,+bmi2", False),
        ("generic", "", False),
        ("x86-64-v2", "+64bit,+popcnt,-bmi2", False),
    ],
)
def test_pdep_is_used_only_where_the_target_has_a_fast_one(cpu, features, fast):
    assert pdep_is_fast("x86_64", cpu, features, ("", "")) == fast
    assert not pdep_is_fast("aarch64", cpu, features, ("+bmi2", ""))


@pytest.mark.parametrize(
    "host,fast",
    [(("+bmi2", ""), True), (("+bmi2", "zen1-2"), False), (("", ""), False)],
)
def test_pdep_follows_the_host_cpu_when_numba_targets_it(host, fast):
    assert pdep_is_fast("x86_64", None, None, host) == fast
    # A target named without features compiles for the host's features (numba's rule).
    assert pdep_is_fast("x86_64", "haswell", None, host) == (host[0] == "+bmi2")


# -- conformance -------------------------------------------------------------------------------

VARIANTS = [
    ("morabaraba", {}),
    ("morabaraba-9", {}),
    ("nine-mens-morris", {}),
    ("morabaraba", {"cows": 3}),
    ("morabaraba", {"cows": 4, "flying": False, "three_cow_draw_plies": 2}),
    ("morabaraba", {"full_board": "draw", "no_shot_draw_plies": None, "max_plies": 120}),
    ("nine-mens-morris", {"cows": 12, "no_immediate_remill": True, "max_plies": 60}),
    ("morabaraba-9", {"diagonals": False, "no_shot_draw_plies": 7, "three_cow_draw_plies": None}),
    ("morabaraba-9", {"no_immediate_remill": "forbidden", "cows": 5}),
]


def cow_count_invariant(state):
    s = state.data
    for p in (0, 1):
        total = bin(int(s["cows"][p])).count("1") + int(s["in_hand"][p])
        assert total <= state.game.params["cows"]
    assert int(s["cows"][0]) & int(s["cows"][1]) == 0
    assert int(s["cows"][0] | s["cows"][1]) < 1 << 24


@pytest.mark.parametrize("name,params", VARIANTS)
def test_conformance(name, params):
    game = engines.make(name, **params)
    check_conformance(game, games=10, invariant=cow_count_invariant)


@pytest.mark.parametrize("name,params", [("morabaraba-9", {}), ("nine-mens-morris", {"cows": 4})])
def test_compiled_and_pure_python_agree(name, params):
    seeds = range(3)
    assert kernel_digest(name, params, seeds) == pure_python_digest(name, params, seeds)


# -- the reference ---------------------------------------------------------------------------


def as_reference(move):
    frm, to, shot = decode(move)
    return (None if frm == kernels.PLACE else frm, to, None if shot == kernels.NO_SHOT else shot)


def assert_same(state, ref):
    s = state.data
    for p in (0, 1):
        assert int(s["cows"][p]) == sum(1 << q for q in ref.cows_of(p))
        assert int(s["in_hand"][p]) == ref.hand[p]
        assert int(s["blocked"][p]) == sum(1 << m for m in ref.blocked[p])
    assert (int(s["no_shot"]), int(s["three_cow"]), int(s["plies"])) == (ref.no_shot, ref.three_cow, ref.plies)
    assert state.is_terminal() == ref.over
    moves = state.legal_moves()
    assert len(moves) <= kernels.MAX_MOVES
    assert [as_reference(m) for m in moves] == sorted(ref.legal_moves(), key=_order)
    if ref.over:
        assert state.outcome() == ref.outcome()
    else:
        assert state.current_player == ref.to_move
    return moves


def _order(move):
    frm, to, shot = move
    return (24 if frm is None else frm, to, 24 if shot is None else shot)


def reference_for(game):
    return MorabarabaReference(**game.params)


def setup_of(state):
    """The ``position()`` arguments that rebuild ``state``."""
    s = state.data
    names = lambda bits: [board.POINT_NAMES[p] for p in range(24) if int(bits) >> p & 1]  # noqa: E731
    return dict(
        white=names(s["cows"][0]),
        black=names(s["cows"][1]),
        in_hand=[int(n) for n in s["in_hand"]],
        to_move=int(s["to_move"]),
        blocked=[[board.mill_name(m) for m in range(board.N_MILLS) if int(b) >> m & 1] for b in s["blocked"]],
        no_shot_plies=int(s["no_shot"]),
        three_cow_plies=int(s["three_cow"]),
        plies=int(s["plies"]),
    )


def state_and_reference(game, setup):
    if setup is None:
        return game.new_initial_state(), reference_for(game)
    state = game.position(**setup)
    ref = reference_for(game)
    blocked = [{board.LINES.index(_line(m)) for m in names} for names in setup["blocked"]]
    ref.set_up(
        [board.POINT_OF[n] for n in setup["white"]],
        [board.POINT_OF[n] for n in setup["black"]],
        setup["in_hand"],
        setup["to_move"],
        blocked,
        setup["no_shot_plies"],
        setup["three_cow_plies"],
        setup["plies"],
    )
    return state, ref


def _line(mill):
    return tuple(board.POINT_OF[n] for n in mill.split("-"))


@pytest.mark.parametrize("name", PRESETS)
def test_engine_matches_reference_on_random_games(name):
    rng = np.random.default_rng(11)
    positions = 0
    variants = [
        {},
        {"flying": False, "cows": 5},
        {"full_board": "draw", "three_cow_draw_plies": 3},
        {"no_immediate_remill": "forbidden", "cows": 6},
    ]
    for params in variants:
        game = engines.make(name, **params)
        for _ in range(12):
            state = game.new_initial_state()
            ref = reference_for(game)
            while True:
                positions += 1
                moves = assert_same(state, ref)
                if not moves:
                    break
                move = int(rng.choice(moves))
                state.apply(move)
                ref.apply(as_reference(move))
    assert positions > 1000


def random_setup(game, rng):
    """A random legal-looking position: cow counts, hands, points, mover, blocks, counters."""
    cows = game.params["cows"]
    totals = rng.integers(3, cows + 1, size=2)
    hands = [int(rng.integers(0, t - 2)) if rng.random() < 0.4 else 0 for t in totals]
    on_board = [int(t) - h for t, h in zip(totals, hands)]
    points = rng.permutation(24)
    white, black = points[: on_board[0]], points[on_board[0] : on_board[0] + on_board[1]]
    n_mills = len(board.lines_of(game.params["diagonals"]))
    blocked = [[], []]
    if game.params["no_immediate_remill"] != "off":
        blocked = [[board.mill_name(m) for m in range(n_mills) if rng.random() < 0.15] for _ in (0, 1)]
    limits = [game.params["no_shot_draw_plies"] or 5, game.params["three_cow_draw_plies"] or 5]
    setup = dict(
        white=[board.POINT_NAMES[p] for p in white],
        black=[board.POINT_NAMES[p] for p in black],
        in_hand=hands,
        to_move=int(rng.integers(0, 2)),
        blocked=blocked,
        no_shot_plies=int(rng.integers(0, limits[0])),
        three_cow_plies=int(rng.integers(0, limits[1])),
        plies=int(rng.integers(0, 150)),
    )
    return state_and_reference(game, setup)


@pytest.mark.parametrize(
    "name,params", [(name, {}) for name in PRESETS] + [("morabaraba-9", {"no_immediate_remill": "forbidden"})]
)
def test_engine_matches_reference_on_random_setups(name, params):
    rng = np.random.default_rng(5)
    game = engines.make(name, **params)
    checked = 0
    for _ in range(600):
        state, ref = random_setup(game, rng)
        moves = assert_same(state, ref)
        for move in rng.choice(moves, size=min(len(moves), 3), replace=False) if moves else []:
            child, child_ref = state.copy(), copy.deepcopy(ref)
            child.apply(int(move))
            child_ref.apply(as_reference(int(move)))
            assert_same(child, child_ref)
            checked += 1
    assert checked > 1000


def openspiel_moves(state):
    """OpenSpiel's nine_mens_morris legal actions as our (frm, to, shot) triples: a capture is a
    second action of the same player, folded into the move that formed the mill."""
    moves = []
    for action in state.legal_actions():
        frm, to = (None, action) if action < 24 else divmod(action - 24, 24)
        child = state.clone()
        child.apply_action(action)
        if not child.is_terminal() and child.current_player() == state.current_player():
            moves += [(frm, to, shot) for shot in child.legal_actions()]
        else:
            moves.append((frm, to, None))
    return moves


def test_nine_mens_morris_plays_openspiels_rules():
    # Same point numbering as docs/games/morabaraba.md; the bench compares speeds with this game.
    pyspiel = pytest.importorskip("pyspiel")
    reference = pyspiel.load_game("nine_mens_morris")
    game = engines.make("nine-mens-morris")
    rng = np.random.default_rng(2)
    positions = 0
    for _ in range(30):
        ours, theirs = game.new_initial_state(), reference.new_initial_state()
        while not ours.is_terminal():
            positions += 1
            moves = ours.legal_moves()
            assert sorted(as_reference(m) for m in moves) == sorted(openspiel_moves(theirs), key=_order)
            move = int(rng.choice(moves))
            frm, to, shot = as_reference(move)
            theirs.apply_action(to if frm is None else 24 + frm * 24 + to)
            if shot is not None:
                theirs.apply_action(shot)
            ours.apply(move)
        assert theirs.is_terminal() and theirs.returns()[0] == ours.outcome()
    assert positions > 1000


# -- scripted positions from the rule texts ----------------------------------------------------


def names(state):
    return state.legal_move_names()


def cows(state):
    """(White's points, Black's points) as names."""
    return tuple(
        " ".join(board.POINT_NAMES[p] for p in range(24) if int(state.data["cows"][side]) >> p & 1)
        for side in (0, 1)
    )


def test_a_cow_in_a_mill_is_shot_only_when_all_are_in_mills():
    # 7  B-----------B-----------B      Black: the mill a7-d7-g7, and a1 outside it.
    #    |   |   |       |   |   |
    # 4  W---W---.       .---.---.      White places c4 and closes a4-b4-c4.
    #    |   |   |       |   |   |
    # 3  |   |   .---.---W   |   |
    # 1  B-----------.-----------.
    game = engines.make("morabaraba")
    state = game.position(white="a4 b4 e3", black="a7 d7 g7 a1", in_hand=(5, 5))
    assert [n for n in names(state) if n.startswith("c4")] == ["c4xa1"]
    with pytest.raises(IllegalMoveError, match="a7 is in a mill and Black has cows outside mills: shoot one of a1"):
        state.parse_move("c4xa7")
    # Without a1 every Black cow stands in the mill: any of them may be shot.
    state = game.position(white="a4 b4 e3", black="a7 d7 g7", in_hand=(5, 5))
    assert [n for n in names(state) if n.startswith("c4")] == ["c4xa7", "c4xd7", "c4xg7"]
    state.apply("c4xd7")
    assert cows(state) == ("a4 b4 c4 e3", "a7 g7")


def test_two_mills_at_once_shoot_one_cow():
    # 5  |   |   W---.---.   |   |      White places c4: a4-b4-c4 and c5-c4-c3 at once.
    # 4  W---W---.       .---.---.
    # 3  |   |   W---.---.   |   |
    # 1  B-----------B-----------.      Black: a1, d1, f6
    game = engines.make("morabaraba")
    state = game.position(white="a4 b4 c5 c3", black="a1 d1 f6", in_hand=(3, 4))
    assert [n for n in names(state) if n.startswith("c4")] == ["c4xf6", "c4xa1", "c4xd1"]
    with pytest.raises(IllegalMoveError, match=r"forms a mill \(a4-b4-c4, c5-c4-c3\): name the cow to shoot, e.g. c4xf6"):
        state.parse_move("c4")
    state.apply("c4xd1")
    assert cows(state) == ("c5 a4 b4 c4 c3", "f6 a1")
    assert state.data["in_hand"][1] == 4 and state.current_player == 1


def test_three_cows_fly_and_only_they():
    # 7  W-----------.-----------.      White has three cows and none in hand: it flies.
    # 6  |   .-------B-------.   |      Black has four: it slides.
    # 5  |   |   .---W---.   |   |
    # 4  .---B---.       B---.---.
    # 3  |   |   .---B---.   |   |
    # 1  .-----------.-----------W
    game = engines.make("morabaraba")
    state = game.position(white="a7 d5 g1", black="d6 b4 e4 d3")
    assert game.stage(state, 0) == "flying" and game.stage(state, 1) == "moving"
    assert "a7-c3" in names(state) and len(state.legal_moves()) == 3 * (24 - 7)
    state.apply("a7-c3")
    with pytest.raises(IllegalMoveError, match=r"b4 and g7 are not adjacent \(you fly only with three cows; Black has 4\)"):
        state.apply("b4-g7")
    no_flying = engines.make("morabaraba", flying=False).position(white="a7 d5 g1", black="d6 b4 e4 d3")
    with pytest.raises(IllegalMoveError, match=r"a7 and c3 are not adjacent \(flying is off in this variant\)"):
        no_flying.apply("a7-c3")


def test_three_cow_draw_after_ten_plies_without_a_shot():
    # White (three cows) flies a7-c5 and back, Black slides b4-b2 and back; no mill forms.
    #   7  W-----------.-----------.
    #   6  |   .-------B-------.   |
    #   5  |   |   .---W---.   |   |
    #   4  .---B---.       .---B---.
    #   3  |   |   .---B---.   |   |
    #   1  .-----------.-----------W
    state = engines.make("morabaraba").position(white="a7 d5 g1", black="d6 b4 f4 d3")
    shuffle = ["a7-c5", "b4-b2", "c5-a7", "b2-b4"]
    for ply in range(10):
        assert not state.is_terminal()
        state.apply(shuffle[ply % 4])
    assert state.outcome() == 0.0 and state.data["end"] == kernels.END_THREE_COW_DRAW
    assert "draw: 10 plies without a shot while a player had three cows" in str(state)
    # A shot restarts the count: at nine plies White closes a mill instead.
    state = engines.make("morabaraba").position(white="a7 d5 e5", black="d6 b4 f4 d3", three_cow_plies=9)
    state.apply("a7-c5xb4")
    assert not state.is_terminal() and state.data["three_cow"] == 0


SHUFFLE_POSITION = dict(white="a7 d5 g4 g1", black="d6 b4 f4 d3")
#   7  W-----------.-----------.      Four cows each: both players shuffle a cow back and forth.
#   6  |   .-------B-------.   |
#   5  |   |   .---W---.   |   |
#   4  .---B---.       .---B---W
#   3  |   |   .---B---.   |   |
#   1  .-----------.-----------W
SHUFFLE = ["a7-a4", "b4-b2", "a4-a7", "b2-b4"]


@pytest.mark.parametrize("preset", ["morabaraba", "morabaraba-9"])
def test_the_texts_have_no_no_shot_draw(preset):
    # Text 000: "Cows may be moved back and forth to the same two junctions repeatedly." Neither
    # text draws a game for want of shots (only the three-cow rule), so the presets play on.
    game = engines.make(preset)
    assert game.params["no_shot_draw_plies"] is None
    state = game.position(**SHUFFLE_POSITION)
    state.play(*SHUFFLE * 50)  # 200 plies of moving without a shot
    assert not state.is_terminal()
    # ...until the ply cap, a bound for machines far past any game that still goes somewhere.
    cap = game.params["max_plies"]
    assert cap >= 1000
    state = game.position(**SHUFFLE_POSITION, plies=cap - 2)
    state.play("a7-a4")
    assert not state.is_terminal()
    state.apply("b4-b2")
    assert state.outcome() == 0.0 and state.data["end"] == kernels.END_PLY_CAP
    assert state.end_reason == "ply cap"
    assert "draw: the ply cap" in str(state)


def test_no_shot_draw_as_a_parameter():
    game = engines.make("morabaraba", no_shot_draw_plies=50)
    state = game.position(**SHUFFLE_POSITION, no_shot_plies=48)
    state.apply("a7-a4")
    assert not state.is_terminal()
    state.apply("b4-b2")
    assert state.outcome() == 0.0 and state.data["end"] == kernels.END_NO_SHOT_DRAW
    assert state.end_reason == "no-shot draw"
    with pytest.raises(IllegalMoveError, match="the game is over: draw: 50 plies of moving without a shot"):
        state.apply("a4-a7")
    assert "after 50 moves of sliding without a shot" in " ".join(game.notation.help_text().split())


FULL_BOARD = {
    # 7  W-----------B-----------W      24 cows and not one mill: White, to move, cannot.
    # 6  |   B-------W-------B   |
    # 5  |   |   B---W---W   |   |
    # 4  B---W---B       B---W---B
    # 3  |   |   W---B---W   |   |
    # 2  |   B-------B-------W   |
    # 1  W-----------W-----------B
    "white": "a7 g7 d6 d5 e5 b4 f4 c3 e3 f2 a1 d1".split(),
    "black": "d7 b6 f6 c5 a4 c4 e4 g4 d3 b2 d2 g1".split(),
}


@pytest.mark.parametrize("full_board,outcome,end", [("loss", -1.0, kernels.END_BLOCKED), ("draw", 0.0, kernels.END_FULL_BOARD)])
def test_a_full_board_after_placing(full_board, outcome, end):
    state = engines.make("morabaraba", full_board=full_board).new_initial_state()
    for white, black in zip(FULL_BOARD["white"], FULL_BOARD["black"]):
        state.play(white, black)  # a placement that closed a mill would need its shot named
    assert state.is_terminal() and state.current_player == 0
    assert state.outcome() == outcome and state.data["end"] == end


def test_help_states_the_remill_rule_of_each_reading():
    def text(**params):
        return " ".join(engines.make("morabaraba", **params).notation.help_text().split())

    assert "the broken mill shoots nothing if you remake it with your very next move" in text(no_immediate_remill="no-shot")
    assert "you may not remake the broken mill with your very next move" in text(no_immediate_remill="forbidden")
    assert "also a mill broken and remade by moving a cow back and forth" in text()
    assert " ".join(engines.make("morabaraba-9").notation.help_text().split()) == text(cows=9, no_immediate_remill="no-shot")
    assert text() != text(no_immediate_remill="no-shot")


# RUNNING_MILL (tests/support/positions.py, drawn there): White's mill a7-d7-g7; g7-g4 breaks it
# and closes e4-f4-g4, and g4-g7 would close a7-d7-g7 again: a "running mill".
def test_no_immediate_remill_of_morabaraba_9():
    state = engines.make("morabaraba-9").position(**RUNNING_MILL)
    state.play("g7-g4xb6", "d2-d1")
    assert state.data["blocked"][0] == 1 << board.LINES.index((0, 1, 2))
    assert "White's next move may not count the mill a7-d7-g7" in str(state)
    assert "g4-g7" in names(state) and not any(n.startswith("g4-g7x") for n in names(state))
    with pytest.raises(IllegalMoveError, match="re-forms a7-d7-g7, which White broke with its previous move"):
        state.parse_move("g4-g7xc5")
    state.play("g4-g7", "d1-d2")  # no shot; now e4-f4-g4 was broken while forming a mill
    assert cows(state)[1] == "c5 c3 e3 d2 a1"
    assert not any(n.startswith("g7-g4x") for n in names(state))
    state.play("a7-a4", "d2-d1", "a4-a7xc5")  # an intermediate move, then a7-d7-g7 counts again
    assert cows(state)[1] == "c3 e3 a1 d1"
    # The other reading: the move that remakes the broken mill is not allowed at all.
    forbidden = engines.make("morabaraba-9", no_immediate_remill="forbidden").position(**RUNNING_MILL)
    forbidden.play("g7-g4xb6", "d2-d1")
    assert not any(n.startswith("g4-g7") for n in names(forbidden))
    with pytest.raises(IllegalMoveError):
        forbidden.apply("g4-g7")
    forbidden.play("e4-e5", "d1-d2", "g4-g7xc5")  # after an intermediate move it may be remade
    assert cows(forbidden)[1] == "c3 e3 d2 a1"
    # GAR (text 000) shoots every time a mill is remade.
    gar = engines.make("morabaraba").position(**RUNNING_MILL)
    gar.play("g7-g4xb6", "d2-d1", "g4-g7xc5")
    assert cows(gar)[1] == "c3 e3 a1 d1"


def test_breaking_and_remaking_a_mill_shoots_under_text_002_too():
    # "A mill may be broken and remade repeatedly by shuffling cows back and forth": g7-g4
    # forms nothing here (no cow on f4), so moving back remakes a7-d7-g7 with a shot.
    state = engines.make("morabaraba-9").position(white="a7 d7 g7 e4", black="b6 c5 c3 e3 d2 a1")
    state.play("g7-g4", "d2-d1", "g4-g7xb6")
    assert cows(state)[1] == "c5 c3 e3 a1 d1"


def test_two_cows_left_loses_counting_cows_in_hand():
    # Black has two cows on the board and one in hand: a shot leaves it two, and it loses.
    game = engines.make("morabaraba")
    state = game.position(white="a4 b4 e3", black="a7 g1", in_hand=(2, 1))
    state.apply("c4xa7")
    assert state.winner == 0 and state.data["end"] == kernels.END_TWO_COWS
    assert str(state).endswith("White wins: Black has only two cows left (score +3 for White)")
    # With two in hand it still has three cows: play goes on.
    state = game.position(white="a4 b4 e3", black="a7 g1", in_hand=(2, 2)).play("c4xa7")
    assert not state.is_terminal()


def test_a_player_who_cannot_move_loses_even_at_the_ply_cap():
    # 7  B-----------W-----------B      Black's four corner cows are shut in once White plays
    # 4  W---.---.       .---.---W      d2-d1, at the 200th ply of nine men's morris: the win
    # 2  |   .-------W-------.   |      comes before the ply cap's draw.
    # 1  B-----------.-----------B
    game = engines.make("nine-mens-morris")
    state = game.position(white="d7 a4 g4 d2", black="a7 g7 a1 g1", plies=199)
    state.apply("d2-d1")
    assert state.winner == 0 and state.data["end"] == kernels.END_BLOCKED
    capped = game.position(white="d7 a4 g4 d2", black="a7 g7 a1 g1", plies=199).play("d2-d3")
    assert capped.outcome() == 0.0 and capped.data["end"] == kernels.END_PLY_CAP


def test_notation_variants_and_errors():
    # 7  B-----------.-----------W      White slides c3-c4 to close a4-b4-c4; Black's a7-b6-c5
    # 6  |   B-------.-------.   |      is a mill, a1 is not.
    # 5  |   |   B---.---.   |   |
    # 4  W---W---.       .---.---.
    # 3  |   |   W---.---.   |   |
    # 1  B-----------.-----------.
    game = engines.make("morabaraba")
    state = game.position(white="a4 b4 c3 g7", black="a7 b6 c5 a1")
    assert state.parse_move("G7-G4") == state.parse_move(" g7 - g4 ") == encode(2, 14)
    assert state.parse_move("C3-C4XA1") == state.parse_move("c3 c4 x a1") == encode(15, 11, 21)
    assert state.format_move(encode(15, 11, 21)) == "c3-c4xa1"
    errors = {
        "zz": "'zz' is not a move: write d6 to place a cow, a7-d7 to slide or fly one",
        "b7-d7": "b7 is not a point of the board",
        "d6": "White has no cows in hand: move a cow along a line, e.g.",
        "a7-d7": "a7 is a Black cow: move one of White's cows",
        "d5-d6": "d5 is empty: move one of White's cows",
        "a4-a7": "a7 is occupied",
        "c3-g1": r"c3 and g1 are not adjacent \(you fly only with three cows; White has 4\)",
        "c3-c4": r"this move forms a mill \(a4-b4-c4\): name the cow to shoot, e.g. c3-c4xa1",
        "c3-c4xb6": "b6 is in a mill and Black has cows outside mills: shoot one of a1",
        "c3-c4xg7": "g7 is White's own cow: shoot one of Black's cows",
        "c3-c4xd5": "d5 is empty",
        "g7-g4xa1": "this move forms no mill, so it shoots nothing",
    }
    for text, message in errors.items():
        with pytest.raises(ValueError, match=message):
            state.apply(text)
    placing = game.new_initial_state().play("d6")
    with pytest.raises(IllegalMoveError, match="d6 is occupied"):
        placing.apply("d6")
    with pytest.raises(IllegalMoveError, match="Black still has 12 cows in hand: place one on an empty point"):
        placing.apply("d6-d7")
    with pytest.raises(IllegalMoveError, match="move 99999 is not a move id of this game"):
        placing.apply(99999)
    with pytest.raises(IllegalMoveError, match=r"move 3872 is not a move id of this game: from \* 1024 \+ to \* 32"):
        placing.apply(3 * 1024 + 25 * 32)


def test_render_shows_board_hands_and_stage():
    state = engines.make("morabaraba").new_initial_state().play("d6", "a1", "g7")
    text = str(state)
    assert text.splitlines()[0] == "7  .-----------.-----------W"
    assert "W White: 10 in hand, 2 on the board, placing" in text
    assert "B Black: 11 in hand, 1 on the board, placing" in text
    assert "last move g7, ply 3" in text and text.endswith("Black to move")
    assert "\\" not in str(engines.make("nine-mens-morris").new_initial_state())
    assert "\u25cb" in state.render(unicode=True) and "\x1b[" in state.render(color=True)


def test_heuristic_is_colour_symmetric_and_prefers_material():
    rng = np.random.default_rng(3)
    game = engines.make("morabaraba-9")
    for _ in range(200):
        state, _ = random_setup(game, rng)
        setup = setup_of(state)
        swapped = dict(setup, white=setup["black"], black=setup["white"], in_hand=setup["in_hand"][::-1])
        swapped.update(to_move=1 - setup["to_move"], blocked=setup["blocked"][::-1])
        assert game.position(**swapped).heuristic() == pytest.approx(-state.heuristic())
    up = game.position(white="a7 d5 g1 b4", black="d6 e4 d3", in_hand=(0, 0))
    assert up.heuristic() > 0.2


def test_variant_parameters_are_validated():
    assert engines.make("morabaraba-9").params["cows"] == 9
    assert engines.make("nine-mens-morris", max_plies="none", no_shot_draw_plies="40").params["max_plies"] is None
    with pytest.raises(VariantError, match="cows=13 is out of range; allowed: an integer from 3 to 12"):
        engines.make("morabaraba", cows=13)
    with pytest.raises(VariantError, match="full_board='win' is not allowed; allowed: 'loss' or 'draw'"):
        engines.make("morabaraba", full_board="win")
    with pytest.raises(VariantError, match="with neither no_shot_draw_plies nor max_plies a game could go on for ever"):
        engines.make("morabaraba", max_plies=None)
    assert engines.make("morabaraba", no_immediate_remill=True).params["no_immediate_remill"] == "no-shot"
    assert engines.make("morabaraba", no_immediate_remill="false").params["no_immediate_remill"] == "off"
    with pytest.raises(VariantError, match="no_immediate_remill='sometimes' is not allowed; allowed: 'off' or 'no-shot'"):
        engines.make("morabaraba", no_immediate_remill="sometimes")
    with pytest.raises(ValueError, match="Black has 13 cows; this variant has 12"):
        engines.make("morabaraba").position(white="a7 d7 g7", black="a1", in_hand=(0, 12))
    with pytest.raises(ValueError, match=r"h8 is not a point of the board \(white\); points: a7 d7 g7"):
        engines.make("morabaraba").position(white="a7 d7 h8", black="a1 d1 g1")


# -- perft -------------------------------------------------------------------------------------

PERFT_FILE = Path(__file__).resolve().parents[1] / "data" / "morabaraba_perft.json"
# The reference is checked on the counts whose positions one ply short of the leaves number at
# most this many (it counts the leaves' moves without playing them).
REFERENCE_PERFT_NODES = 3000


def reference_perft(ref, depth):
    moves = ref.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = copy.deepcopy(ref)
        child.apply(move)
        total += reference_perft(child, depth - 1)
    return total


# (Read only when present so that ``python -m tests.engines.test_morabaraba`` can write a missing
# file.)
PERFT = json.loads(PERFT_FILE.read_text())["positions"] if PERFT_FILE.exists() else []


def test_perft_file_covers_every_preset():
    assert {e["game"] for e in PERFT} >= {"morabaraba", "morabaraba-9", "nine-mens-morris"}, (
        f"{PERFT_FILE} is missing or incomplete: python -m tests.engines.test_morabaraba writes it"
    )


@pytest.mark.parametrize("entry", PERFT, ids=[f"{e['game']}:{e['name']}" for e in PERFT])
def test_perft(entry):
    game = engines.make(entry["game"])
    state, ref = state_and_reference(game, entry["setup"])
    counts = entry["counts"]
    assert [int(perft(state.data, depth)) for depth in range(1, len(counts) + 1)] == counts
    checked = 0
    for depth, count in enumerate(counts, start=1):
        if depth == 1 or counts[depth - 2] <= REFERENCE_PERFT_NODES:
            assert reference_perft(ref, depth) == count
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize("name,mills", [("morabaraba", 20), ("nine-mens-morris", 16)])
def test_perft_from_the_start_by_counting(name, mills):
    # No mill before White's third cow: 24 * 23 * 22 * 21 sequences of four placements. At ply 5
    # White closes a mill whose other two points it took at plies 1 and 3 (mills * 3! orders)
    # while Black's two cows stand elsewhere (21 * 20): those placements come once per Black cow
    # they may shoot (2) instead of once.
    start = next(e for e in PERFT if e["game"] == name and e["setup"] is None)
    placements = 24 * 23 * 22 * 21 * 20
    assert start["counts"][:5] == [24, 24 * 23, 24 * 23 * 22, 24 * 23 * 22 * 21, placements + mills * 6 * 21 * 20]


def write_perft_file():
    """Regenerates the perft data: ``python -m tests.engines.test_morabaraba``. Each position comes
    from a seeded random game of its preset (the first one of the wanted kind) or is the start."""
    kinds = {
        "placing, a mill to close": lambda g, st: g.stage(st, st.current_player) == "placing" and _shoots(st),
        "moving, a mill to close": lambda g, st: g.stage(st, st.current_player) == "moving" and _shoots(st),
        "flying": lambda g, st: g.stage(st, st.current_player) == "flying",
        "remill blocked": lambda g, st: int(st.data["blocked"][st.current_player]) != 0,
    }
    positions = []
    for name in PRESETS:
        game = engines.make(name)
        positions.append(dict(game=name, name="start", setup=None, counts=_counts(game.new_initial_state(), 6)))
        for kind, wanted in kinds.items():
            found = None
            for seed in range(500):
                rng = np.random.default_rng(seed)
                state = game.new_initial_state()
                while not state.is_terminal() and not wanted(game, state):
                    state.apply(int(rng.choice(state.legal_moves())))
                if not state.is_terminal():
                    found = state
                    break
            if found is not None:
                setup = setup_of(found)
                positions.append(dict(game=name, name=kind, setup=setup, counts=_counts(game.position(**setup), 4)))
    PERFT_FILE.parent.mkdir(exist_ok=True)
    text = json.dumps({"positions": positions}, indent=1)
    PERFT_FILE.write_text(text + "\n")


def _shoots(state):
    return any(decode(m)[2] != kernels.NO_SHOT for m in state.legal_moves())


def _counts(state, max_depth, max_leaves=3_000_000):
    counts = []
    for depth in range(1, max_depth + 1):
        counts.append(int(perft(state.data, depth)))
        if counts[-1] > max_leaves:
            break
    return counts


if __name__ == "__main__":
    write_perft_file()


def test_the_mills_a_shot_came_from_are_marked_for_the_page():
    """game.web.highlights: the points of every mill the last move formed when it shot (two at once
    here), along their lines; nothing before any move or after a move that shoots nothing."""
    game = engines.make("morabaraba")
    state = game.position(white="a4 b4 c5 c3", black="a7 d6 a1", in_hand=(1, 1))
    assert game.web.highlights(state) == []
    state.apply("c4xa1")
    assert game.web.highlights(state) == [["a4", "b4", "c4"], ["c5", "c4", "c3"]]
    state.apply("g1")
    assert game.web.highlights(state) == []
