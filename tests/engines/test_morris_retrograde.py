"""The morris databases against the engine's own rules: every value is the best of its moves'
values (the engine's move generator and end rules, the three-cow counter, the ply cap), all 16
images of a position share it, a damaged or foreign file is refused in one line, a build
interrupted resumes at the sector it was in, and the agents play database positions perfectly."""

import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.engines import datafile
from board_arena.engines.morabaraba import retrograde, sectors
from board_arena.engines.morabaraba.board import POINT_NAMES
from board_arena.engines.morabaraba.databases import MorrisDatabases
from tests.reference import morris_solver
from tests.support.cli import arena_cli

STONES = 7
EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A cache folder of this module's own, with the 7-cow databases of both games built in it."""
    folder = tmp_path_factory.mktemp("morris-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOARD_ARENA_CACHE", str(folder))
        retrograde.forget_loaded()
        for name in ("nine-mens-morris", "morabaraba"):
            game = engines.make(name)
            game.endgame.database(game.new_initial_state(0), STONES, build_missing=True)
        yield folder
        retrograde.forget_loaded()


def random_position(game, rng, stones=STONES, **counters):
    while True:
        m = rng.randint(3, stones - 3)
        o = rng.randint(3, stones - m)
        points = rng.sample(range(24), m + o)
        state = game.position(white=[POINT_NAMES[p] for p in points[:m]], black=[POINT_NAMES[p] for p in points[m:]],
                              in_hand=(0, 0), to_move=rng.randrange(2), **counters)
        if not state.is_terminal():
            return state


def best_of_moves(game, state, database):
    """The value (result, plies) that the position's moves give under the database's reading."""
    keys = []
    for move in state.legal_moves():
        child = state.copy()
        child.apply_legal(move)
        keys.append(game.endgame._move_key(state, child, database))
    best = max(keys)
    return best[0], 0 if best[0] == 0 else abs(best[1])


@pytest.mark.parametrize("name", ["nine-mens-morris", "morabaraba"])
def test_every_value_is_the_best_of_its_moves(cache, name):
    game = engines.make(name)
    database = game.endgame.database(game.new_initial_state(0), STONES)
    rng = random.Random(7)
    results = set()
    for _ in range(400):
        counter = rng.randrange(10) if game.params["three_cow_draw_plies"] else 0
        state = random_position(game, rng, three_cow_plies=counter)
        known = game.endgame.value(state, database)
        assert known is not None
        assert (known.result, known.plies) == best_of_moves(game, state, database), state.fen()
        results.add(known.result)
    assert results == {-1, 0, 1}


def test_the_three_cow_counter_turns_a_distant_win_into_a_draw(cache):
    game = engines.make("morabaraba")
    database = game.endgame.database(game.new_initial_state(0), STONES)
    rng = random.Random(3)
    while True:
        state = random_position(game, rng)
        known = game.endgame.value(state, database)
        if known.result == 1 and 2 <= known.plies <= 9:
            break
    limit = game.params["three_cow_draw_plies"]
    for counter in range(limit):
        later = game.position(**_setup(state), three_cow_plies=counter)
        expected = 1 if known.plies <= limit - counter else 0
        assert game.endgame.value(later, database).result == expected


def _setup(state):
    board = state.board()
    return {"white": board["cows"][0], "black": board["cows"][1], "in_hand": (0, 0), "to_move": state.current_player}


def test_the_ply_cap_is_read_exactly(cache):
    game = engines.make("nine-mens-morris")  # draws at 200 plies
    database = game.endgame.database(game.new_initial_state(0), STONES)
    rng = random.Random(5)
    while True:
        state = random_position(game, rng)
        known = game.endgame.value(state, database)
        if known.result != 0 and known.plies >= 2 and sum(map(len, state.board()["cows"])) == 7:
            break
    cap = game.params["max_plies"]
    # The first decisive event beyond the cap: a draw, which the cap then makes.
    beyond = game.position(**_setup(state), plies=cap - known.plies + 1)
    assert game.endgame.value(beyond, database).result == 0
    # Within the cap, but maybe not the rest of the game (after a shot, three against three): the
    # database does not say.
    near = game.position(**_setup(state), plies=cap - known.plies)
    assert game.endgame.value(near, database) is None and game.endgame.perfect_play(near, database) is None
    assert game.endgame.value(game.position(**_setup(state), plies=18), database) == known


def test_the_sixteen_images_of_a_position_share_its_code(cache):
    game = engines.make("morabaraba")
    db, _ = game.endgame.database(game.new_initial_state(0), STONES)
    rng = np.random.default_rng(1)
    movers, opponents = [], []
    for _ in range(200):
        points = rng.permutation(24)
        m, o = int(rng.integers(3, 5)), 3
        x = sum(1 << int(p) for p in points[:m])
        y = sum(1 << int(p) for p in points[m:m + o])
        for s in range(sectors.N_SYMMETRIES):
            movers.append(_image(x, s))
            opponents.append(_image(y, s))
    codes = retrograde.lookup(db, np.array(movers, np.uint64), np.array(opponents, np.uint64)).reshape(200, 16)
    assert (codes == codes[:, :1]).all()


def _image(bb, s):
    return sum(1 << int(sectors.SYMMETRIES[s, p]) for p in range(24) if bb >> p & 1)


@pytest.mark.parametrize("name", ["nine-mens-morris", "morabaraba"])
def test_a_separately_written_solver_agrees_position_by_position(cache, name):
    """tests/reference/morris_solver.py solves three against three and four against three
    (Morabaraba at every value of its three-cow counter) with numpy alone; every position of those
    sectors, one per symmetry class, has the same value and distance in the database."""
    game = engines.make(name)
    db, _ = game.endgame.database(game.new_initial_state(0), STONES)
    limit = game.params["three_cow_draw_plies"] or 0
    rules = morris_solver.Rules(game.params["diagonals"], limit)
    solve = morris_solver.solve_pair_counted if limit else morris_solver.solve_pair
    three = solve(rules, 3, 3, {})
    sector, values = three[(3, 3)]
    four = solve(rules, 4, 3, {(3, 3): (sector, morris_solver.to_scores(values[0] if limit else values))})
    for (m, o), (sector, values) in {**three, **four}.items():
        path = retrograde.sector_path(retrograde.rules_of(game), m, o)
        stored = datafile.read(path, retrograde.FILE_KIND, retrograde.FORMAT_VERSION, {}, np.dtype(np.int16))
        assert np.count_nonzero(stored != sectors.NO_POSITION) == len(sector.keys)  # the same classes
        codes = retrograde.lookup(db, (sector.keys >> 24).astype(np.uint64), (sector.keys & 0xFFFFFF).astype(np.uint64))
        codes = codes.astype(np.int64)
        assert not np.any(codes == sectors.NO_POSITION)
        # The database's values in the solver's terms: 0 a loss now, DRAW a draw.
        expected = np.where(codes == sectors.LOST_NOW, 0, np.where(codes == 0, morris_solver.DRAW, codes))
        if not limit:
            assert np.array_equal(values, expected), (m, o, np.count_nonzero(values != expected))
            continue
        for counter in range(limit + 1):  # the counter's reading: a decisive event within the limit
            within = (expected != morris_solver.DRAW) & (np.abs(expected) <= limit - counter)
            at_counter = np.where(within, expected, morris_solver.DRAW)
            assert np.array_equal(values[counter], at_counter), (m, o, counter)
        assert set(np.sign(values[0][values[0] != morris_solver.DRAW])) == {-1, 1}


def test_a_damaged_truncated_or_foreign_file_is_refused_in_one_line(cache, tmp_path, monkeypatch):
    game = engines.make("nine-mens-morris")
    rules = retrograde.rules_of(game)
    source = retrograde.sector_path(rules, 3, 3)
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path))
    retrograde.forget_loaded()
    target = retrograde.sector_path(rules, 3, 3)
    target.parent.mkdir(parents=True)
    data = source.read_bytes()
    cases = {
        "damaged": data[:-10] + bytes([data[-10] ^ 1]) + data[-9:],
        "truncated": data[: len(data) // 2],
        "a kalah file": None,
    }
    for case, content in cases.items():
        if content is None:
            datafile.write(target, "board-arena Kalah endgame database", 2, {"game": "kalah"}, np.zeros(4, np.int8))
        else:
            target.write_bytes(content)
        retrograde.forget_loaded()
        with pytest.raises(retrograde.DatabaseError) as refused:
            retrograde.load(game, 6)
        words = str(refused.value)
        assert "\n" not in words and str(target) in words and "build it again" in words, (case, words)


def test_an_interrupted_build_resumes_at_the_sector_it_was_in(tmp_path, monkeypatch):
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path))
    retrograde.forget_loaded()
    game = engines.make("nine-mens-morris")
    built = []
    real = retrograde.build_sector

    def interrupted(rules, m, o, below, **options):
        if (m, o) == (3, 4):
            raise KeyboardInterrupt
        built.append((m, o))
        return real(rules, m, o, below, **options)

    monkeypatch.setattr(retrograde, "build_sector", interrupted)
    with pytest.raises(KeyboardInterrupt):
        retrograde.load(game, STONES, build_missing=True)
    assert built == [(3, 3)] and retrograde.load(game, STONES) is None  # 3-3 kept, 3-4 missing
    monkeypatch.setattr(retrograde, "build_sector", lambda *a, **k: (built.append(a[1:3]), real(*a, **k))[1])
    assert retrograde.load(game, STONES, build_missing=True) is not None
    assert built == [(3, 3), (3, 4)]


@pytest.mark.parametrize("words, message", [
    (["--stones", "5"], "holds 6 to 18 cows on the board, not 5"),
    (["--game", "kalah"], "--game must be a morris game"),
    (["--game", "morabaraba-9"], "do not cover no_immediate_remill"),
    (["--stonez", "8"], "--stones"),
])
def test_the_builder_refuses_bad_arguments_in_one_line(capsys, words, message):
    assert retrograde.main(words) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


@pytest.mark.parametrize("spec", ["alphabeta:depth=2,endgame=7", "mcts:iterations=200,endgame=7", "solver:endgame=7,time=1"])
def test_the_agents_play_database_positions_perfectly(cache, spec):
    game = engines.make("nine-mens-morris")
    database = game.endgame.database(game.new_initial_state(0), STONES)
    agent = agents.make_agent(spec, seed=1)
    rng = random.Random(2)
    for _ in range(10):
        state = random_position(game, rng)
        info = agent.search(state)
        assert info.exact and info.move in game.endgame.perfect_moves(state, database)


def test_a_database_win_is_converted_against_any_defence(cache):
    game = engines.make("nine-mens-morris")
    database = game.endgame.database(game.new_initial_state(0), STONES)
    rng = random.Random(11)
    winner = agents.make_agent("alphabeta:depth=1,endgame=7", seed=3)
    defender = agents.make_agent("alphabeta:depth=3", seed=4)
    converted = 0
    while converted < 3:
        state = random_position(game, rng)
        known = game.endgame.value(state, database)
        if known.result != 1 or known.plies < 5:
            continue
        side = state.current_player
        while not state.is_terminal():
            state.apply_legal((winner if state.current_player == side else defender).select_move(state))
        assert state.winner == side
        converted += 1


def test_a_tournament_adjudicates_by_perfect_play_and_verifies(cache, tmp_path):
    out = tmp_path / "run"
    status, _, err = arena_cli("run", "--game", "nine-mens-morris:cows=4", "--agents", "random,greedy", "--games", "4",
                               "--adjudicate", "perfect=7", "--out", str(out), "--quiet", "--in-process")
    assert status == 0, err
    from board_arena.arena import load_run

    reasons = [g.end_reason for g in load_run(str(out)).games]
    assert any(r.startswith("adjudicated: perfect play") for r in reasons), reasons
    status, verified, _ = arena_cli("verify", str(out))
    assert status == 0 and "All 4 stored games verified" in verified


def test_a_hint_names_the_database_value(cache):
    from board_arena.engines.endgame import perfect_play_words

    game = engines.make("morabaraba")
    state = random_position(game, random.Random(4))
    words = perfect_play_words(state)
    assert words is not None and "under perfect play" in words


def test_a_database_of_other_rules_is_refused():
    game = engines.make("nine-mens-morris")
    with pytest.raises(ValueError, match="not the 8-cow morris database"):
        MorrisDatabases(game).check_database(game.new_initial_state(0), np.zeros(sectors.HEADER_BYTES, np.int8), 8)


def test_the_databases_experiment_prints_its_sectors_and_plays_its_match(cache, tmp_path):
    # A process of its own: the match's workers import the script by its name. The databases are
    # the module's (BOARD_ARENA_CACHE is inherited).
    done = subprocess.run([sys.executable, str(EXPERIMENTS / "morris_databases.py"), "--game", "morabaraba", "--stones",
                           str(STONES), "--match", "1", "--move-time", "0.01"], capture_output=True, text=True, cwd=tmp_path,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    printed = done.stdout
    rows = {line.split()[0]: line.split() for line in printed.splitlines() if line[:1].isdigit() or line.startswith("all")}
    assert set(rows) == {"3-3", "3-4", "4-3", "all"}
    assert rows["all"][1] == f"{169_626 + 2 * 760_398:,}"  # 3-3, 3-4 and 4-3 up to symmetry
    assert "random positions of 6 to 7 cows, each played with both sides: score " in printed and "over 2 games" in printed
    assert re.search(r"the start positions under perfect play: \d+ won, \d+ drawn, \d+ lost for the mover; games where a "
                     r"side scored less than its value: 0 with the databases, [0-2] without\n", printed)
    assert sum(map(int, re.findall(r"(\d+) won, (\d+) drawn, (\d+) lost for the mover", printed)[0])) == 1
    assert "\nends: " in printed
