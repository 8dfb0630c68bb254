"""The reference UGI engine in C (examples/ugi-kalah/kalah.c), built with the machine's C compiler
and driven over its standard input and output: the handshake and every reply of scripted
sessions, its rules against ours (whose turn, the end and the result of every position of random
games, by ``position startpos moves`` and by ``position fen``), its search against our solver on
small endgames, and complete games against our agents in which every ``bestmove`` is legal by
our rules and its ``query`` answers agree with our result."""

import os
import queue
import re
import shutil
import subprocess
import threading

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.agents.solver import solve

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SOURCE = os.path.join(ROOT, "examples", "ugi-kalah", "kalah.c")
#: Seconds to wait for a reply: generous, for a loaded machine (no test measures time).
REPLY_TIMEOUT = 60.0
LETTERS = "abcdef"
PROVEN = "info string proven: the game ends with a store difference of "
INFO = re.compile(r"info depth (\d+) score (cp|mate) (-?\d+) nodes (\d+) time (\d+) pv((?: [a-f])+)$")


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) on this machine to build examples/ugi-kalah/kalah.c")
    out = tmp_path_factory.mktemp("ugi-kalah") / "kalah"
    built = subprocess.run([compiler, "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-o", str(out), SOURCE],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    return str(out)


class Engine:
    """The engine's process: lines sent, replies read with a timeout (a reader thread)."""

    def __init__(self, binary):
        self.process = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines):
        self.process.stdin.write("".join(line + "\n" for line in lines))
        self.process.stdin.flush()

    def reply(self):
        line = self.lines.get(timeout=REPLY_TIMEOUT)
        assert line is not None, "the engine closed its output"
        return line

    def ask(self, line, count=1):
        self.send(line)
        return [self.reply() for _ in range(count)]

    def search(self, go):
        """The info lines (``info string`` ones apart) and the move of ``go``."""
        infos, self.strings = [], []
        self.send(go)
        while not (line := self.reply()).startswith("bestmove "):
            (self.strings if line.startswith("info string ") else infos).append(line)
        return infos, line.split()[1]

    def store_difference(self, last):
        """The mover's store difference that the search's last info line (a match of INFO) reports:
        the proven one it states after a search to the end, else the one its cp stands for
        (cp = 1000 * d / (|d| + 8), one cp for each d that 48 seeds allow)."""
        proven = [int(line[len(PROVEN):].split()[0]) for line in self.strings if line.startswith(PROVEN)]
        if proven:
            return proven[0]
        assert last.group(2) == "cp", last.group(0)
        cp = int(last.group(3))
        found = [d for d in range(-48, 49) if int(1000 * d / (abs(d) + 8)) == cp]
        assert len(found) == 1, cp
        return found[0]

    def close(self):
        if self.process.poll() is None:
            self.send("quit")
            self.process.wait(timeout=REPLY_TIMEOUT)
        assert self.process.returncode == 0


@pytest.fixture
def engine(binary):
    engine = Engine(binary)
    yield engine
    engine.close()


def kalah():
    return engines.make("kalah")


def fen(state):
    """Our Kalah position string: SOUTH/NORTH STORE_S STORE_N MOVER, rows from their owner's left."""
    south, north = state.board()["pits"]
    stores = state.board()["stores"]
    return f"{','.join(map(str, south))}/{','.join(map(str, north))} {stores[0]} {stores[1]} {'SN'[state.current_player]}"


def answers(state):
    """What the engine's queries should answer for ``state``."""
    result = "none"
    if state.is_terminal():
        result = {1.0: "p1win", -1.0: "p2win", 0.0: "draw"}[state.outcome()]
    return [f"response {'true' if state.is_terminal() else 'false'}",
            f"response {'true' if not state.is_terminal() and state.current_player == 0 else 'false'}", f"response {result}"]


def best_after_one_move(state):
    """The mover's best store difference (its store minus the opponent's) after one move: what a
    depth-1 search on the store difference finds."""
    me, best = state.current_player, -99
    for move in state.legal_moves():
        child = state.copy()
        child.apply(move)
        stores = child.board()["stores"]
        best = max(best, stores[me] - stores[1 - me])
    return best


def queried(engine, position):
    engine.send(position, "query gameover", "query p1turn", "query result")
    return [engine.reply() for _ in range(3)]


def check_infos(infos, state):
    """Every info line is well formed, depths count up from 1, and each pv is a legal line here."""
    assert infos, "no info line"
    for depth, line in enumerate(infos, start=1):
        match = INFO.match(line)
        assert match, line
        assert int(match.group(1)) == depth
        kind, score = match.group(2), int(match.group(3))
        assert -1000 < score < 1000 if kind == "cp" else score != 0
        line_state = state.copy()
        for move in match.group(6).split():
            assert game_is_legal(line_state, move), (line, move)
            line_state.apply(move)
    return INFO.match(infos[-1])


def game_is_legal(state, name):
    try:
        return state.game.illegal_reason(state, state.parse_move(name)) is None
    except ValueError:
        return False


# -- sessions ----------------------------------------------------------------------------------


def test_the_handshake_and_readiness(engine):
    assert engine.ask("ugi", 3) == ["id name kalah-c", "id author board-arena examples", "ugiok"]
    assert engine.ask("isready") == ["readyok"]
    engine.send("uginewgame", "setoption name Hash value 16")
    assert engine.ask("isready") == ["readyok"], "uginewgame and setoption answer nothing"


def test_a_scripted_session_replies_as_our_rules_say(engine):
    engine.ask("ugi", 3)
    state = kalah().new_initial_state()
    assert queried(engine, "position startpos") == answers(state) == ["response false", "response true", "response none"]
    state.apply("c")  # four seeds from c: d, e, f and the store, so South moves again
    assert queried(engine, "position startpos moves c") == answers(state) == ["response false", "response true", "response none"]
    infos, move = engine.search("go depth 5")
    last = check_infos(infos, state)
    assert len(infos) == 5 and move == last.group(6).split()[0] and game_is_legal(state, move)
    state.apply("f")
    assert queried(engine, "position startpos moves c f") == answers(state)
    assert answers(state)[1] == "response false", "f does not end in the store: North's turn"


def test_bad_input_is_answered_with_an_info_string_and_changes_nothing(engine):
    engine.send("position startpos moves c")
    assert engine.ask("position startpos moves c c") == [
        "info string position: move c is not legal there; position left as it was"]
    assert engine.ask("query p1turn") == ["response true"], "still after c"
    assert engine.ask("position fen 4,4,4/4,4,4 0 0 S") == [
        "info string position: give startpos or fen SOUTH/NORTH STORE_S STORE_N S|N, then moves"]
    assert engine.ask("position fen 4,4,4,4,4,4/4,4,4,4,4,5 0 0 S")[0].startswith("info string position:"), "49 seeds"
    assert engine.ask("frobnicate") == ["info string unknown command frobnicate"]
    assert engine.ask("query colour") == ["info string query: gameover, p1turn or result"]


def test_every_budget_gives_a_legal_bestmove(engine):
    state = kalah().new_initial_state()
    state.play("c", "f")
    engine.send("position fen " + fen(state))
    for go in ("go movetime 30", "go p1time 2000 p2time 2000 p1inc 10 p2inc 10", "go nodes 2000", "go depth 3", "go"):
        infos, move = engine.search(go)
        check_infos(infos, state)
        assert game_is_legal(state, move), (go, move)


def test_a_finished_game_has_no_bestmove(engine):
    state = kalah().position(south=[0, 0, 0, 0, 0, 1], north=[1, 0, 0, 0, 0, 0], stores=(20, 26))
    engine.send("position fen " + fen(state))
    infos, move = engine.search("go depth 4")
    assert move == "f" and len(infos) == 1 and infos[0].startswith("info depth 1 score mate -1 nodes 1 "), infos
    assert engine.strings == [PROVEN + "-6 for the mover"], "20 + 1 against 26 + 1"
    state.apply("f")
    assert queried(engine, "position fen " + fen(state)) == answers(state) == ["response true", "response false", "response p2win"]
    assert engine.search("go depth 4") == ([], "none") and engine.strings == ["info string the game is over: no move"]


# -- the rules and the search against ours -----------------------------------------------------


def test_whose_turn_the_end_and_the_result_agree_with_ours_over_random_games(engine):
    """Every position of random games (extra turns, captures, laps, the sweep at the end), given
    as moves from the start and as a position string."""
    game = kalah()
    rng = np.random.default_rng(11)
    positions = 0
    for _ in range(12):
        state = game.new_initial_state()
        moves = []
        while True:
            assert queried(engine, "position startpos moves " + " ".join(moves)) == answers(state), moves
            assert queried(engine, "position fen " + fen(state)) == answers(state), fen(state)
            positions += 1
            if state.is_terminal():
                break
            infos, _ = engine.search("go depth 1")
            assert engine.store_difference(check_infos(infos, state)) == best_after_one_move(state), fen(state)
            legal = state.legal_move_names()
            moves.append(legal[rng.integers(len(legal))])
            state.apply(moves[-1])
    assert positions > 300


def test_its_search_to_the_end_agrees_with_our_solver_on_small_endgames(engine):
    """Positions with few seeds left: a search deep enough reaches the end on every line, and the
    won, drawn or lost value it reports is the solver's."""
    game = kalah()
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 8:
        state = game.new_initial_state()
        while not state.is_terminal() and sum(map(sum, state.board()["pits"])) > 10:
            legal = state.legal_move_names()
            state.apply(legal[rng.integers(len(legal))])
        if state.is_terminal():
            continue
        engine.send("position fen " + fen(state))
        infos, move = engine.search("go depth 40")
        last = check_infos(infos, state)
        exact = solve(state).margin  # South's final margin under perfect play
        for_mover = exact if state.current_player == 0 else -exact
        kind, score = last.group(2), int(last.group(3))
        assert (kind, np.sign(score)) == (("mate", np.sign(for_mover)) if for_mover else ("cp", 0)), (fen(state), last.group(0), exact)
        assert engine.store_difference(last) == for_mover, "the final store difference, from the mover's side"
        assert len(engine.strings) == 1
        checked += 1


@pytest.mark.parametrize("opponent", ["alphabeta:depth=3", "greedy", "random"])
def test_complete_games_against_our_agents(engine, opponent):
    game = kalah()
    engine.ask("ugi", 3)
    for engine_seat in (0, 1):
        agent = agents.make_agent(opponent, seed=engine_seat)
        state = game.new_initial_state()
        engine.send("uginewgame")
        moves = []
        while not state.is_terminal():
            if state.current_player == engine_seat:
                engine.send("position startpos moves " + " ".join(moves))
                infos, name = engine.search("go depth 6")
                check_infos(infos, state)
                assert game_is_legal(state, name), (moves, name)
            else:
                name = state.format_move(agent.select_move(state))
            moves.append(name)
            state.apply(name)
        assert queried(engine, "position startpos moves " + " ".join(moves)) == answers(state)
        if opponent == "random":
            assert state.outcome() == (1.0 if engine_seat == 0 else -1.0), "a depth-6 search beats random play"


def test_an_infinite_search_answers_isready_and_ends_at_stop(engine):
    state = kalah().new_initial_state()
    engine.send("position startpos", "go infinite", "isready")
    replies = []
    while (line := engine.reply()) != "readyok":  # answered while it searches
        replies.append(line)
    engine.send("stop")
    while not (line := engine.reply()).startswith("bestmove "):
        replies.append(line)
    assert game_is_legal(state, line.split()[1])
    check_infos([r for r in replies if not r.startswith("info string")], state)
