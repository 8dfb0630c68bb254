"""The UGI commands as :mod:`board_arena.ugi.protocol` reads and writes them: position lines
both ways, go into our Limit, the score scale, info lines, queries and options; and the Dominoes
extension: a seat's position line reads back to exactly its view, and never holds the other
hand's or the boneyard's tiles."""

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.agents import Limit, SearchInfo
from board_arena.engines.dominoes.notation import tile_name, tiles_of
from board_arena.ugi import dominoes, protocol
from board_arena.ugi.protocol import UGIError


def test_position_commands_parse_in_every_form():
    assert protocol.parse_position("position startpos".split()) == protocol.Position("startpos")
    assert protocol.parse_position("position startpos moves c f".split()).moves == ("c", "f")
    fen = protocol.parse_position("position fen .../.../.../....../.../.../... w 12,12 0 0 0 -/- moves d6".split())
    assert fen.fen == ".../.../.../....../.../.../... w 12,12 0 0 0 -/-" and fen.moves == ("d6",)
    deal = protocol.parse_position("position deal seat 1 leader 0 hand 6-6 moves 6-6".split())
    assert deal.deal == ("seat", "1", "leader", "0", "hand", "6-6") and deal.moves == ("6-6",)


@pytest.mark.parametrize("line", ["position", "position sideways", "position startpos c", "position fen moves c", "go depth"])
def test_malformed_positions_are_refused_in_one_line(line):
    with pytest.raises(UGIError) as error:
        if line.startswith("go"):
            protocol.go_limit(line.split(), 0)
        else:
            protocol.parse_position(line.split())
    assert "\n" not in str(error.value) and "expected" in str(error.value)


@pytest.mark.parametrize("name", ["kalah", "morabaraba", "nine-mens-morris", "konane", "konane-classic"])
def test_position_line_reads_back_to_the_state(name):
    game = engines.make(name)
    choose = np.random.default_rng(4)
    state = game.new_initial_state(4)
    while not state.is_terminal():
        line = protocol.position_line(game, state, state.current_player)
        assert ("position fen" if game.random_start else "position startpos") in line
        assert protocol.state_from_position(game, protocol.parse_position(line.split())) == state
        moves = state.legal_moves()
        state.apply(moves[choose.integers(len(moves))])
        if state.ply > 40:
            break


def test_a_random_start_is_not_startpos_and_a_set_up_position_is_its_fen():
    konane = engines.make("konane")
    with pytest.raises(UGIError, match="random"):
        protocol.state_from_position(konane, protocol.Position("startpos"))
    kalah = engines.make("kalah", pits=3)
    setup = kalah.position(south=[1, 0, 3], north=[2, 2, 0], stores=(10, 6), to_move=1)
    assert protocol.position_line(kalah, setup, 0) == "position fen 1,0,3/2,2,0 10 6 N"


def test_go_gives_the_movers_clock_and_the_other_limits():
    request = protocol.go_limit("go p1time 1000 p2time 30000 p1inc 0 p2inc 250 movestogo 5".split(), mover=1)
    assert request.limit == Limit(remaining=30.0, increment=0.25, moves_to_go=5) and not request.infinite
    assert protocol.go_limit("go movetime 250 depth 6 nodes 1000".split(), 0).limit == Limit(time=0.25, depth=6, nodes=1000)
    assert protocol.go_limit(["go"], 0) == protocol.GoRequest(None, False)
    assert protocol.go_limit("go infinite".split(), 0) == protocol.GoRequest(None, True)
    line = protocol.go_line(Limit(remaining=30.0, increment=0.25), mover=1, other_remaining=1.0, other_increment=0.0)
    assert line == "go p1time 1000 p2time 30000 p1inc 0 p2inc 250"
    assert protocol.go_limit(line.split(), mover=1).limit == Limit(remaining=30.0, increment=0.25)


@pytest.mark.parametrize(
    ("value", "exact", "words"),
    [(0.25, False, "cp 250"), (-0.9996, False, "cp -1000"), (1.0, True, "mate 1"), (-1.0, True, "mate -1"), (0.0, True, "cp 0")],
)
def test_the_score_scale_both_ways(value, exact, words):
    info = SearchInfo(move=0, value=value, exact=exact)
    assert protocol.score_words(info) == words
    kind, number = words.split()
    back, proven = protocol.score_value(kind, int(number))
    assert proven == (kind == "mate") and abs(back - value) <= 0.0005 + (0 if kind == "mate" else 0)


def test_info_lines_carry_what_the_agent_reports():
    info = SearchInfo(move=3, value=-0.5, depth=9, nodes=12000, seconds=0.25)
    line = protocol.info_line(info, pv=["d"])
    assert line == "info depth 9 nodes 12000 score cp -500 time 250 nps 48000 pv d"
    assert protocol.parse_info(line.split()) == {"depth": 9, "nodes": 12000, "score": (-0.5, False), "time": 250, "nps": 48000, "pv": ["d"]}
    assert protocol.info_line(SearchInfo(move=1, seconds=0.0)) == "info time 0"
    assert protocol.parse_info("info string hello world".split()) == {"string": "hello world"}


def test_queries_answer_by_our_rules():
    game = engines.make("kalah", pits=1, seeds=1)
    state = game.new_initial_state()
    assert [protocol.query_response(state, q) for q in ("gameover", "p1turn", "result")] == ["response false", "response true", "response none"]
    state.apply("a")
    assert [protocol.query_response(state, q) for q in ("gameover", "p1turn", "result")] == ["response true", "response false", "response draw"]
    with pytest.raises(UGIError):
        protocol.query_response(state, "colour")


def test_options_of_each_kind_and_setoption():
    params = {p.name: p for p in agents.agent_class("mcts").PARAMS}
    lines = [protocol.option_line(p) for p in params.values()]
    assert all(line.startswith(f"option name {p} type ") for line, p in zip(lines, params))
    assert protocol.parse_setoption("setoption name Seed value 12".split()) == ("Seed", "12")
    assert protocol.parse_setoption("setoption name Clear Hash".split()) == ("Clear Hash", "")
    with pytest.raises(UGIError):
        protocol.parse_setoption("setoption value 3".split())


DOMINOES = [
    ("dominoes", {}), ("dominoes-block", {}), ("dominoes", {"block_rule": "no-tile-fits"}),
    ("dominoes", {"max_pips": 2, "hand_size": 2}), ("dominoes", {"max_pips": 9, "hand_size": 12}),
]


@pytest.mark.parametrize(("name", "params"), DOMINOES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(DOMINOES)])
def test_a_seats_position_line_is_exactly_its_view_and_shows_nothing_hidden(name, params):
    game = engines.make(name, **params)
    m = game.params["max_pips"]
    all_tiles = {tile_name(m, t) for t in range(game.n_tiles)}
    for seed in range(40 if game.n_tiles <= 28 else 8):  # the double-nine games are long
        choose = np.random.default_rng(seed)
        state = game.new_initial_state(10**12 + seed)  # a seed no tile or seat number could spell
        while True:
            s = state.data
            played = {tile_name(m, int(move) >> 1) for move in s["history"][: int(s["ply"])] if int(move) < 2 * game.n_tiles}
            for seat in (0, 1):
                line = protocol.position_line(game, state, seat)
                assert str(state.seed) not in line.split()
                view = protocol.state_from_position(game, protocol.parse_position(line.split()))
                assert view == state.view(seat) and view.viewer == seat
                drawn = {tile_name(m, int(t)) for t in state.view(seat).data["boneyard"] if t >= 0}
                may_see = {tile_name(m, t) for t in tiles_of(int(s["dealt"][seat]))} | drawn | played
                if state.is_terminal():  # the rules show the other hand at the end
                    may_see |= {tile_name(m, t) for t in tiles_of(int(s["hands"][1 - seat]))}
                named = {word.removeprefix("draw:").rstrip("LR") for word in line.split()} & all_tiles
                assert named <= may_see, (seed, seat, line)
            if state.is_terminal():
                break
            moves = state.legal_moves()
            state.apply(moves[choose.integers(len(moves))])


@pytest.mark.parametrize(
    ("words", "why"),
    [
        ("deal seat 2 leader 0 hand 6-6", "seat must be 0 or 1"),
        ("deal seat 0 hand 6-6", "it begins"),
        ("deal seat 0 leader 0 hand 6-6 5-5", "this variant deals 7"),
        ("deal seat 0 leader 0 hand 6-6 5-5 4-4 3-3 2-2 1-1 7-0", "not a tile"),
        ("deal seat 0 leader 0 hand 6-6 5-5 4-4 3-3 2-2 1-1 0-0 moves 5-4", "not in your hand"),
        ("deal seat 1 leader 0 hand 6-5 5-5 4-4 3-3 2-2 1-1 0-0 moves 5-5", "seen"),
        ("deal seat 1 leader 0 hand 6-5 5-5 4-4 3-3 2-2 1-0 0-0 moves 6-6 draw", "names the tile drawn"),
        ("deal seat 0 leader 0 hand 6-6 5-5 4-4 3-3 2-2 1-1 0-0 moves 6-6 draw:5-4", "the other player drew"),
        ("deal seat 0 leader 0 hand 6-6 5-5 4-4 3-3 2-2 1-1 0-0 over 5-4 moves 6-6", "the other hand holds 7"),
        ("deal seat 0 leader 0 hand 6-6 5-5 4-4 3-3 2-2 1-1 0-0 over 5-4 4-3 3-2 2-1 1-0 6-0 6-1 moves 6-6", "has not ended"),
    ],
)
def test_bad_deals_are_refused_in_one_line(words, why):
    game = engines.make("dominoes")
    position = protocol.parse_position(["position", *words.split()])
    with pytest.raises(UGIError) as error:
        protocol.state_from_position(game, position)
    assert why in str(error.value) and "\n" not in str(error.value)


def test_dominoes_takes_only_the_deal_form():
    game = engines.make("dominoes")
    with pytest.raises(UGIError, match="position deal"):
        protocol.state_from_position(game, protocol.Position("startpos"))
    assert dominoes.speaks(game) and not dominoes.speaks(engines.make("kalah"))
