"""The exact solver (agents/solver.py) and the Kalah endgame databases (engines/mancala/endgame.py)
against a plain full-depth minimax on the margin over the plain-Python rules of
tests/reference/mancala.py."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.agents.solver import new_solver_table, solve
from board_arena.engines import contract
from board_arena.engines.mancala import endgame, kernels
from tests.reference.kalah_minimax import kalah_minimax
from tests.reference.mancala import MancalaReference


def reference_margin(pits: int, capture: str, empty_capture: bool):
    """``value(south, north, to_move)``: South's margin from the position on under perfect play,
    by the test-only full-depth minimax of tests/reference/kalah_minimax.py."""
    mover_value = kalah_minimax(pits, capture, empty_capture)

    def value(south: tuple, north: tuple, to_move: int) -> int:
        return mover_value(south, north) if to_move == 0 else -mover_value(north, south)

    return value


def test_reference_minimax_agrees_with_the_reference_rules():
    """The memoised minimax plays by the same rules as tests/reference/mancala.py: a full-depth
    minimax over that slower reference gives the same values on the small games."""

    def slow(game):
        if game.over:
            return game.stores()[0] - game.stores()[1]
        results = []
        for move in game.legal_moves():
            child = MancalaReference(game.pits, 0, game.capture, game.empty_capture)
            child.board, child.to_move = list(game.board), game.to_move
            child.apply(move)
            results.append(slow(child))
        return max(results) if game.to_move == 0 else min(results)

    for capture, empty in (("kalah", False), ("kalah", True), ("opposite", False)):
        for pits, seeds in ((1, 4), (2, 2), (2, 3), (3, 1), (3, 2)):
            value = reference_margin(pits, capture, empty)
            assert slow(MancalaReference(pits, seeds, capture, empty)) == value((seeds,) * pits, (seeds,) * pits, 0)


KALAH_CASES = [(pits, seeds) for pits in (1, 2, 3) for seeds in range(1, 7)]


@pytest.mark.parametrize("capture,empty_capture", [("kalah", False), ("kalah", True), ("opposite", False)])
def test_exact_margins_of_small_kalah_equal_full_depth_minimax(capture, empty_capture):
    """Every Kalah(m, n) with m <= 3 and n <= 6, with and without the capture on an empty pit
    (Irving's rules: with), and under text 004's capture: the solver's margin is the minimax
    margin, and its move achieves it."""
    table = new_solver_table(8)
    for pits, seeds in KALAH_CASES:
        value = reference_margin(pits, capture, empty_capture)
        game = engines.make("kalah", pits=pits, seeds=seeds, capture=capture, empty_capture=empty_capture)
        state = game.new_initial_state()
        expected = value((seeds,) * pits, (seeds,) * pits, 0)
        table[:] = 0
        solution = solve(state, table=table)
        assert solution.exact and solution.margin == expected, (pits, seeds, solution)
        after = state.copy().play(solution.move)
        south, north = kernels.pit_counts(after.data)
        gained = int(after.score())
        if not after.is_terminal():
            gained += value(tuple(south), tuple(north), after.current_player)
        assert gained == expected, (pits, seeds, "the solver's move does not achieve the value")


def test_solver_on_random_positions_with_stores_and_either_player_to_move():
    """Positions reached by random play (stores filled, North to move in about half): the margin
    is the stores' difference plus the minimax value of the rest, whoever is to move."""
    rng = np.random.default_rng(5)
    value = reference_margin(3, "kalah", True)
    game = engines.make("kalah", pits=3, seeds=4, empty_capture=True)
    table = new_solver_table(4)
    for _ in range(40):
        state = game.new_initial_state()
        for _ in range(int(rng.integers(1, 12))):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_moves())))
        if state.is_terminal():
            continue
        south, north = kernels.pit_counts(state.data)
        expected = int(state.score()) + value(tuple(south), tuple(north), state.current_player)
        assert solve(state, table=table).margin == expected


def test_the_move_reaches_the_value_whatever_the_solver_knew_before():
    """The move is checked against the reference at random positions of Kalah(3,4) solved three
    ways: with a fresh table, with the table of the earlier positions (the root's value often known
    already) and with a database holding the root (its value known before any search). Each time
    the solver must still name a move that gets the value, not just the value."""
    rng = np.random.default_rng(11)
    value = reference_margin(3, "kalah", True)
    game = engines.make("kalah", pits=3, seeds=4, empty_capture=True)
    db = (endgame.build(3, 12, kernels.CAPTURE_KALAH, True), 12)
    warm = new_solver_table(1)
    checked = 0
    for _ in range(30):
        state = game.new_initial_state()
        while not state.is_terminal():
            south, north = kernels.pit_counts(state.data)
            expected = int(state.score()) + value(tuple(south), tuple(north), state.current_player)
            for solution in (solve(state, table_mb=1), solve(state, table=warm), solve(state, table_mb=1, endgame=db)):
                after = state.copy().play(solution.move)
                reached = int(after.score())
                if not after.is_terminal():
                    south, north = kernels.pit_counts(after.data)
                    reached += value(tuple(south), tuple(north), after.current_player)
                assert solution.margin == expected and reached == expected, (state.data, solution)
                checked += 1
            state.apply(int(rng.choice(state.legal_moves())))
    assert checked > 300


def test_eight_pit_positions_that_differ_only_in_the_last_pit_and_the_mover_share_no_entry():
    """With 8 pits every byte of a row is a pit: North's last pit must not be confused with the
    player to move in the solver's key (a shared table gave the second position the first's value)."""
    game = engines.make("kalah", pits=8, seeds=1, empty_capture=True)
    states = []
    for last_pit, to_move in ((1, 1), (2, 0)):
        south = [1, 1, 0, 0, 0, 0, 0, 0]
        north = [1, 0, 0, 0, 0, 0, 0, last_pit]
        states.append(game.position(south=south, north=north, to_move=to_move))
    assert contract.solve_key(states[0].data) != contract.solve_key(states[1].data)
    fresh = [solve(state, table_mb=1).margin for state in states]
    table = new_solver_table(1)
    assert [solve(state, table=table).margin for state in states] == fresh == [0, 1]


def test_a_database_of_another_game_is_refused():
    kalah4 = engines.make("kalah", pits=4, seeds=2, empty_capture=True).new_initial_state()
    three_pits = (endgame.build(3, 6, kernels.CAPTURE_KALAH, True), 6)
    with pytest.raises(ValueError, match="not one of 4-pit Kalah"):
        solve(kalah4, endgame=three_pits)
    with pytest.raises(ValueError, match="konane has no endgame databases"):
        solve(engines.make("konane", size=4).new_initial_state(0), endgame=three_pits)
    with pytest.raises(ValueError, match="endgame=6, but konane has no endgame databases"):
        agents.make_agent("alphabeta:endgame=6").check_game(engines.make("konane"))
    with pytest.raises(ValueError, match="konane has no endgame databases"):
        agents.make_agent("alphabeta:endgame=6,depth=2").select_move(engines.make("konane").new_initial_state(0))
    with pytest.raises(ValueError, match="ask for fewer seeds"):
        endgame.load(8, 40, build_missing=True)


def test_games_without_a_margin_solve_to_win_draw_or_loss():
    """Classic Konane has no margin (the last player to move wins): the solver's value is the
    outcome; 4x4 is a second-player win and 5x5 a first-player win (as tests/agents/test_agents.py
    checks the alpha-beta solve mode, and full-depth minimax on 4x4)."""
    for size, expected in ((4, -1), (5, 1)):
        solution = solve(engines.make("konane-classic", size=size).new_initial_state(), table_mb=4)
        assert solution.exact and not solution.has_margin and solution.margin == expected


def test_capture_scored_konane_margin_equals_minimax():
    """Capture-scored 4x4 Konane from a few openings: the exact capture difference equals a
    full-depth minimax on the capture difference (plain Python, memoised)."""
    game = engines.make("konane", size=4)

    @lru_cache(maxsize=None)
    def value(key):
        state = states[key]
        if state.is_terminal():
            return int(state.score())
        results = []
        for move in state.legal_moves():
            child = state.copy().play(move)
            child_key = (child.data.tobytes(),)
            states[child_key] = child
            results.append(value(child_key))
        return max(results) if state.current_player == 0 else min(results)

    states = {}
    for seed in range(4):
        start = game.new_initial_state(seed)
        key = (start.data.tobytes(),)
        states[key] = start
        assert solve(start, table_mb=1).margin == value(key)


@pytest.mark.parametrize("empty_capture", [False, True])
def test_endgame_database_equals_solver_on_random_positions(empty_capture):
    """Entries of a small database (3 pits, up to 8 seeds on the board) drawn at random equal the
    solver's value of the same position, searched without the database."""
    pits, k = 3, 8
    db = endgame.build(pits, k, kernels.CAPTURE_KALAH, empty_capture)
    game = engines.make("kalah", pits=pits, seeds=1, empty_capture=empty_capture)
    rng = np.random.default_rng(3)
    table = new_solver_table(1)
    checked = 0
    while checked < 200:
        cells = rng.multinomial(int(rng.integers(2, k + 1)), [1 / (2 * pits)] * (2 * pits))
        south, north = [int(c) for c in cells[:pits]], [int(c) for c in cells[pits:]]
        if not any(south) or not any(north):
            continue
        to_move = int(rng.integers(2))
        state = game.position(south=south, north=north, to_move=to_move)
        entry = kernels.endgame_value(state.data, db, k)
        sign = 1 if to_move == 0 else -1
        assert solve(state, table=table).margin == sign * entry
        # and the solver given the database agrees (it answers from the entry at once)
        assert solve(state, table=table, endgame=(db, k)).margin == sign * entry
        checked += 1


def test_endgame_database_helps_and_agrees_on_a_whole_game():
    """Kalah(3,3) solved with a database of up to 10 seeds gives the same margin with fewer
    positions searched."""
    state = engines.make("kalah", pits=3, seeds=3, empty_capture=True).new_initial_state()
    plain = solve(state, table_mb=4)
    db = endgame.build(3, 10, kernels.CAPTURE_KALAH, True)
    helped = solve(state, table_mb=4, endgame=(db, 10))
    assert plain.margin == helped.margin == 2
    assert helped.nodes < plain.nodes


def test_database_files_are_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path))
    assert endgame.load(2, 4) is None
    db, k = endgame.load(2, 4, build_missing=True)
    assert k == 4 and endgame.database_path(2, 4, kernels.CAPTURE_KALAH, True).is_file()
    again, _ = endgame.load(2, 4)
    assert np.array_equal(db, again)


def test_budget_stops_with_proven_bounds():
    state = engines.make("kalah", pits=4, seeds=4, empty_capture=True).new_initial_state()
    partial = solve(state, table_mb=1, nodes=200)
    assert not partial.exact and partial.margin is None
    exact = solve(state, table_mb=8)
    assert partial.lower <= exact.margin <= partial.upper


def test_solver_refuses_hidden_information():
    state = engines.make("dominoes").new_initial_state(0)
    with pytest.raises(ValueError, match="perfect information"):
        solve(state)


def test_alphabeta_reads_the_endgame_database_at_its_horizon(tmp_path, monkeypatch):
    """With a database covering the whole game (Kalah(3,2): 12 seeds), a depth-1 alpha-beta
    already knows the exact result: every leaf is in the database. Without it, depth 1 is only an
    estimate."""
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path))
    state = engines.make("kalah", pits=3, seeds=2, empty_capture=True).new_initial_state()
    exact = solve(state, table_mb=1).margin
    plain = agents.make_agent("alphabeta:depth=1", seed=1)
    plain.select_move(state)
    assert not plain.last_search.exact
    for depth in (1, 3):  # leaves entered at the root's children, and leaves scored by their parent
        helped = agents.make_agent(f"alphabeta:depth={depth},endgame=12", seed=1)
        helped.select_move(state)
        assert helped.last_search.exact and helped.last_search.value == np.sign(exact), depth


def test_alphabeta_solve_mode_reports_the_margin():
    state = engines.make("kalah", pits=3, seeds=3, empty_capture=True).new_initial_state()
    solver = agents.make_agent("alphabeta:solve=true")
    solver.select_move(state)
    info = solver.last_search
    assert info.exact and info.value == 1.0 and info.margin == 2
    assert "proven win by 2" in info.summary()


# ----------------------------------------------------------------------------------------------
# Threads, processor-time limits, the opening book and the perfect-play agent.


def random_positions(game, count, seed, plies=(1, 12)):
    """Non-terminal positions reached by random play from the start."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state()
        for _ in range(int(rng.integers(*plies))):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_moves())))
        if not state.is_terminal():
            found.append(state)
    return found


def reached_by(state, move, value) -> int:
    """South's final margin after ``move`` and perfect play on (by the reference minimax)."""
    after = state.copy().play(move)
    margin = int(after.score())
    if not after.is_terminal():
        south, north = kernels.pit_counts(after.data)
        margin += value(tuple(south), tuple(north), after.current_player)
    return margin


@pytest.mark.parametrize("split", [True, False])
def test_two_threads_sharing_the_table_agree_with_one_and_with_minimax(split, monkeypatch):
    """Threads sharing the table (agents/solver.py: prove), splitting each test's moves or
    (``SPLIT`` off) testing neighbouring values at once, reach the minimax margin and name a move
    that reaches it, from random positions of Kalah(3,5), both players to move."""
    from board_arena.agents import solver

    monkeypatch.setattr(solver, "SPLIT", split)
    value = reference_margin(3, "kalah", True)
    game = engines.make("kalah", pits=3, seeds=5, empty_capture=True)
    for state in random_positions(game, 25, seed=21):
        south, north = kernels.pit_counts(state.data)
        expected = int(state.score()) + value(tuple(south), tuple(north), state.current_player)
        for threads in (1, 2, 3):
            solution = solve(state, table_mb=2, threads=threads)
            assert solution.exact and solution.margin == expected and solution.threads == threads
            assert reached_by(state, solution.move, value) == expected


def test_moves_marked_as_searched_by_another_thread_wait_and_still_count():
    """A move whose position another thread is searching waits for a second pass over the moves
    (ABDADA), and a mark left behind by an aborted search only reorders the moves: with every
    position of the first four plies marked, one thread still proves the exact minimax value."""
    from board_arena.agents import solver

    value = reference_margin(3, "kalah", True)
    game = engines.make("kalah", pits=3, seeds=4, empty_capture=True)
    root = game.new_initial_state()
    busy = np.zeros(solver.BUSY_SLOTS, np.int64)
    layer = [root]
    for _ in range(4):
        layer = [s.copy().play(int(m)) for s in layer if not s.is_terminal() for m in s.legal_moves()]
        for s in layer:
            key = np.array([contract.solve_key(s.data)], np.uint64).view(np.int64)[0]
            busy[key & (len(busy) - 1)] = key
    stats = np.zeros(solver.STAT_SIZE, np.int64)
    control = np.zeros(solver.CONTROL_SIZE, np.int64)
    bounds = np.array([[-48, 48, -1]], np.int64)
    record = root.data[0] if root.data.ndim else root.data
    solver.prove(record, new_solver_table(1), np.zeros(0, np.int8), -1, 1 << 40, 0, 200, stats, control,
                 bounds, 0, busy)
    assert bounds[0, 0] == bounds[0, 1] == value((4, 4, 4), (4, 4, 4), 0)
    assert reached_by(root, int(root.legal_moves()[bounds[0, 2]]), value) == bounds[0, 0]


def test_a_processor_time_limit_stops_the_search_with_proven_bounds():
    state = engines.make("kalah", pits=5, seeds=5, empty_capture=True).new_initial_state()
    solve(state, table_mb=1, nodes=64, threads=2)  # compiles the kernels: not within the limit
    partial = solve(state, table_mb=8, cpu_time=0.2, threads=2)
    assert not partial.exact and partial.lower <= 2 <= partial.upper  # Kalah(5,5) is a win by 2
    assert partial.cpu_seconds < 5 and partial.fallback in state.legal_moves()


def test_bad_budgets_are_refused():
    state = engines.make("kalah", pits=2, seeds=2).new_initial_state()
    for kwargs in ({"time": -1.0}, {"cpu_time": 0.0}, {"nodes": 0}, {"threads": 0}, {"threads": 99}):
        with pytest.raises(ValueError, match="must be"):
            solve(state, **kwargs)


def test_the_book_keeps_expensive_proofs_and_answers_a_fresh_table(tmp_path):
    """A solve adds its expensive exact values to the book; a fresh table given the book solves
    the same position with far fewer positions, to the same margin; the book survives a save and
    a reload, and its values are the solver's."""
    from board_arena.agents.solver import Book

    game = engines.make("kalah", pits=4, seeds=4, empty_capture=True)
    state = game.new_initial_state()
    book = Book(game, path=tmp_path / "kalah.book", min_work=8)
    first = solve(state, table_mb=8, book=book)
    assert first.margin == 2 and len(book) > 0
    assert book.value(state) == 2
    book.save()
    again = Book(game, path=tmp_path / "kalah.book", min_work=8)
    assert len(again) == len(book) and np.array_equal(np.sort(again.keys), np.sort(book.keys))
    second = solve(state, table_mb=8, book=again)
    assert second.margin == 2 and second.nodes < first.nodes / 10
    for position in random_positions(game, 20, seed=4, plies=(1, 6)):
        known = again.value(position)
        if known is not None:
            assert known == solve(position, table_mb=4).margin


def test_a_solve_stopped_by_its_budget_leaves_its_proven_bounds_in_the_book(tmp_path):
    """A long run that does not finish is not wasted: the bounds it proved go into the book (each
    containing the true value), and solves that each stop at the same small budget, each with a
    fresh table and the saved book, go on from one another until one finishes with the exact
    margin, where a single such solve never does."""
    from board_arena.agents.solver import Book

    game = engines.make("kalah", pits=4, seeds=4, empty_capture=True)
    state = game.new_initial_state()
    budget = 40_000
    assert not solve(state, table_mb=8, nodes=budget).exact
    path = tmp_path / "kalah.book"
    runs = []
    for _ in range(40):
        book = Book(game, path=path, min_work=1)
        runs.append(solve(state, table_mb=8, nodes=budget, book=book))
        book.save()
        if runs[-1].exact:
            break
    assert runs[-1].exact and runs[-1].margin == 2 and len(runs) > 1
    assert not runs[0].exact and runs[0].lower <= 2 <= runs[0].upper
    book = Book(game, path=path, min_work=1)
    assert book.solved() < len(book)  # bounds of unfinished proofs are kept too
    for position in random_positions(game, 20, seed=5, plies=(1, 6)):
        known = book.bounds(position)
        if known is not None:
            assert known[0] <= solve(position, table_mb=4).margin <= known[1]


def test_a_book_of_format_version_1_is_still_read(tmp_path):
    """Books written before bounds were kept (exact values only) load as solved entries."""
    from board_arena.agents.solver import BOOK_ENTRY_V1, BOOK_KIND, Book
    from board_arena.engines import datafile

    game = engines.make("kalah", pits=3, seeds=3, empty_capture=True)
    state = game.new_initial_state()
    book = Book(game, path=None, min_work=1)
    solve(state, table_mb=1, book=book)
    solved = book.lowers == book.uppers
    old = np.empty(int(solved.sum()), BOOK_ENTRY_V1)
    old["key"], old["value"] = book.keys[solved], book.lowers[solved]
    datafile.write(tmp_path / "old.book", BOOK_KIND, 1, book._fields(), old)
    read = Book(game, path=tmp_path / "old.book")
    assert len(read) == len(old) == read.solved() and read.value(state) == book.value(state) is not None


def test_the_counters_describe_the_search():
    """Solution.counters: each searched position is counted once as cut or all-moves, table
    probes found and stores that replaced another position within their totals, and a table too
    small for the search replaces entries where a large one does not."""
    state = engines.make("kalah", pits=4, seeds=4, empty_capture=True).new_initial_state()
    large = solve(state, table_mb=64, guess=2)
    small = solve(state, table_mb=0.01, guess=2)
    for solution in (large, small):
        c = solution.counters
        assert solution.margin == 2
        searched = sum(c[f"{kind}_p{p}"] for kind in ("cut_first", "cut_later", "all") for p in (0, 1))
        assert 0 < searched == c["stores"] <= solution.nodes
        assert c["cut_first_p0"] > c["cut_later_p0"] and 0 < c["probe_hits"] <= c["probes"]
        assert c["evictions"] <= c["stores"] and c["etc_cuts"] > 0
    assert large.counters["evictions"] < small.counters["evictions"] / 10


def test_a_damaged_or_foreign_book_is_refused_in_one_line(tmp_path):
    from board_arena.agents.solver import Book

    game = engines.make("kalah", pits=3, seeds=3, empty_capture=True)
    book = Book(game, path=tmp_path / "b.book", min_work=1)
    solve(game.new_initial_state(), table_mb=1, book=book)
    book.save()
    raw = (tmp_path / "b.book").read_bytes()
    (tmp_path / "b.book").write_bytes(raw[:-3] + bytes(3))
    with pytest.raises(ValueError, match="damaged: its contents do not match the checksum") as caught:
        Book(game, path=tmp_path / "b.book")
    assert "\n" not in str(caught.value)
    (tmp_path / "b.book").write_bytes(raw)
    with pytest.raises(ValueError, match="for params="):
        Book(engines.make("kalah", pits=3, seeds=4, empty_capture=True), path=tmp_path / "b.book")
    with pytest.raises(ValueError, match="this book is of"):
        solve(engines.make("kalah", pits=3, seeds=4).new_initial_state(), book=book)


@pytest.mark.parametrize("capture,empty_capture", [("kalah", True), ("opposite", False)])
def test_the_solver_agent_keeps_the_value_at_every_move(capture, empty_capture, tmp_path, monkeypatch):
    """The perfect-play agent (``solver``) on Kalah(3,4): every move it plays, from random
    positions with either player to move, reaches the position's minimax margin; it reports the
    margin, keeps its table across reset (proven bounds never go stale) and clears it for
    another variant."""
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path))
    value = reference_margin(3, capture, empty_capture)
    game = engines.make("kalah", pits=3, seeds=4, capture=capture, empty_capture=empty_capture)
    agent = agents.make_agent("solver:endgame=6,table_mb=4", seed=1)
    for state in random_positions(game, 30, seed=8):
        south, north = kernels.pit_counts(state.data)
        expected = int(state.score()) + value(tuple(south), tuple(north), state.current_player)
        info = agent.search(state)
        assert info.exact and reached_by(state, info.move, value) == expected
        sign = 1 if state.current_player == 0 else -1
        assert info.margin == sign * expected
    table = agent._table
    assert table is not None and table.any()
    agent.reset(seed=2)
    assert agent._table is table and table.any()
    agent.search(engines.make("kalah", pits=2, seeds=3).new_initial_state())
    assert agent._game == engines.make("kalah", pits=2, seeds=3)


def test_the_solver_agent_prepares_its_first_move_at_warm_up(tmp_path, monkeypatch):
    """The arena warms a throwaway agent before any clock runs: that warm-up leaves the table the
    first agent of its parameters takes (so that agent's first move does not pay for the table's
    pages) and reads the book that the agents of the process share; a move adds to the book only
    after a solve of at least ``SAVE_AFTER_CPU`` of processor time (a scan of the table would take
    a fifth of a 100 ms move)."""
    from board_arena.agents import solver

    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path))
    game = engines.make("kalah", pits=3, seeds=3)
    spec = "solver:endgame=5,table_mb=3.25"
    agents.make_agent(spec).warm_up(game)
    spare = solver.SPARE_TABLES[3.25]
    agent = agents.make_agent(spec, seed=1)
    monkeypatch.setattr(solver.SolverAgent, "SAVE_AFTER_CPU", float("inf"))
    state = game.new_initial_state()
    agent.select_move(state)
    assert agent._table is spare and 3.25 not in solver.SPARE_TABLES
    book = agent._book
    assert book is not None and book is solver.shared_book(game) and len(book) == 0
    assert not solver.book_path(game).exists()
    monkeypatch.setattr(solver.SolverAgent, "SAVE_AFTER_CPU", 0.0)
    monkeypatch.setattr(book, "min_work", 1)
    agent.select_move(state)
    assert len(book) > 0 and solver.book_path(game).exists()


def test_the_solver_agent_plays_capture_scored_konane_perfectly(tmp_path, monkeypatch):
    """On 4x4 capture-scored Konane (no database) every move keeps the exact capture margin."""
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path))
    game = engines.make("konane", size=4)
    agent = agents.make_agent("solver", seed=3)
    rng = np.random.default_rng(2)
    for seed in range(6):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            margin = solve(state, table_mb=1).margin
            move = agent.select_move(state)
            assert solve(state.copy().play(move), table_mb=1).margin == margin
            state.apply(int(rng.choice(state.legal_moves())))


def test_the_solver_agent_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="konane has no endgame databases"):
        agents.make_agent("solver:endgame=4").check_game(engines.make("konane"))
    with pytest.raises(ValueError, match="ask for fewer seeds"):
        agents.make_agent("solver:endgame=40").check_game(engines.make("kalah", pits=8))
    with pytest.raises(ValueError, match="searches the full state, which dominoes hides"):
        agents.make_agent("solver").check_game(engines.make("dominoes"))
