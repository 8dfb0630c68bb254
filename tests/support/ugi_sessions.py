"""Recorded UGI sessions with ``arena engine`` (``tests/data/ugi/*.ugi``): the lines sent and
the replies expected, replayed against :class:`board_arena.ugi.engine.UGIEngine`.

A session file starts with ``game``, ``agent`` and ``seed`` lines, then ``> LINE`` for a line
sent and ``< LINE`` for a reply expected, in order (``#`` starts a comment). In a reply a ``*``
token matches any one token (the times and rates of ``info`` lines), and ``bestmove ?`` any
move: every ``bestmove`` is checked to be legal in the last position sent, and equal to the
recorded one where the file names it (a depth-limited alpha-beta of a fixed seed plays one move).

Regenerate the files (after a deliberate change of the engine's replies) with
``python -m tests.support.ugi_sessions``; the lines sent are in :data:`SCRIPTS`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from board_arena import engines
from board_arena.ugi import protocol
from board_arena.ugi.engine import UGIEngine

DATA = Path(__file__).resolve().parents[1] / "data" / "ugi"
#: Reply tokens that vary from run to run: the value after each is recorded as ``*``.
VOLATILE = ("time", "nps")


@dataclass
class Session:
    game: str
    agent: str
    seed: int
    steps: list[tuple[str, list[str]]] = field(default_factory=list)  # (line sent, replies)


def read_session(path: Path) -> Session:
    header: dict[str, str] = {}
    steps: list[tuple[str, list[str]]] = []
    for raw in path.read_text().splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("> "):
            steps.append((line[2:], []))
        elif line.startswith("< "):
            steps[-1][1].append(line[2:])
        else:
            key, _, value = line.partition(" ")
            header[key] = value
    return Session(header["game"], header["agent"], int(header["seed"]), steps)


def write_session(path: Path, session: Session, comment: str) -> None:
    lines = [f"# {comment}", f"game {session.game}", f"agent {session.agent}", f"seed {session.seed}"]
    for sent, replies in session.steps:
        lines.append(f"> {sent}")
        lines += [f"< {reply}" for reply in replies]
    path.write_text("\n".join(lines) + "\n")


class Driver:
    """An engine in this process, one command at a time: ``send`` returns the replies written
    while the command was handled (for ``go``, until its ``bestmove``)."""

    def __init__(self, game: str, agent: str, seed: int):
        name, params = _spec(game)
        self.game = engines.make(name, **params)
        self.out, self.err = io.StringIO(), io.StringIO()
        self.engine = UGIEngine(self.game, agent, seed, out=self.out, err=self.err)
        self.position: str | None = None

    def send(self, line: str) -> list[str]:
        start = self.out.tell()
        self.engine.handle(line)
        words = line.split()
        if words and words[0] == "go" and "infinite" not in words:
            self.engine.wait()
        if words and words[0] == "position":
            self.position = line
        self.out.seek(start)
        replies = self.out.read().splitlines()
        self.out.seek(0, io.SEEK_END)
        return replies

    def legal_moves(self) -> list[str]:
        """The legal moves of the last position sent (in the game's notation)."""
        assert self.position is not None
        state = protocol.state_from_position(self.game, protocol.parse_position(self.position.split()))
        return state.legal_move_names()


def _spec(text: str) -> tuple[str, dict[str, str]]:
    from board_arena.agents import parse_spec

    return parse_spec(text)


def masked(reply: str) -> str:
    words = reply.split()
    for i in range(len(words) - 1):
        if words[i] in VOLATILE and words[0] == "info":
            words[i + 1] = "*"
    return " ".join(words)


def matches(expected: str, reply: str) -> bool:
    want, got = expected.split(), reply.split()
    if want == ["bestmove", "?"]:
        return len(got) == 2 and got[0] == "bestmove"
    return len(want) == len(got) and all(w == "*" or w == g for w, g in zip(want, got))


# -- the scripts of the recorded sessions ---------------------------------------------------------


def _ending(game: engines.Game, seed: int, back: int = 3) -> tuple[str, list[str]]:
    """A random game of ``game`` to its end: the position string ``back`` plies before it and
    the moves from there."""
    choose = np.random.default_rng(seed)
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        moves = state.legal_moves()
        state.apply(moves[choose.integers(len(moves))])
    start = max(0, state.ply - back)
    replay = game.new_initial_state(seed)
    names = []
    for ply, move in enumerate(state.history):
        if ply >= start:
            names.append(replay.format_move(move))
        replay.apply(move)
        if ply + 1 == start:
            fen = replay.fen()
    if start == 0:
        fen = game.new_initial_state(seed).fen()
    return fen, names


def perfect_information_script(driver: Driver) -> None:
    """The steps of a session with a perfect-information game: the handshake, the start and
    its queries, a search and its move played, another search, a finished game and its queries."""
    game = driver.game
    start = f"position fen {game.new_initial_state(5).fen()}" if game.random_start else "position startpos"
    for line in ("ugi", "isready", "uginewgame", start, "query p1turn", "query gameover", "query result"):
        yield line
    bestmove = (yield "go depth 3")
    yield f"{start} moves {bestmove}"
    yield "query p1turn"
    yield "go nodes 300"
    fen, moves = _ending(game, seed=11)
    yield f"position fen {fen} moves {' '.join(moves)}"
    for line in ("query gameover", "query result", "query p1turn", "go depth 2", "quit"):
        yield line


def dominoes_script(driver: Driver) -> None:
    """A Dominoes session: each seat's view in the middle of a random game, a search from the
    mover's, the finished game as each seat sees it, and a view that does not fit."""
    game = driver.game
    choose = np.random.default_rng(3)
    state = game.new_initial_state(8)
    for line in ("ugi", "isready", "uginewgame"):
        yield line
    for _ in range(5):
        moves = state.legal_moves()
        state.apply(moves[choose.integers(len(moves))])
    mover = state.current_player
    yield protocol.position_line(game, state, mover)
    yield "query p1turn"
    yield "go depth 3"
    yield protocol.position_line(game, state, 1 - mover)
    yield "go depth 3"  # the view is not the mover's: no move
    while not state.is_terminal():
        moves = state.legal_moves()
        state.apply(moves[choose.integers(len(moves))])
    for seat in (0, 1):
        yield protocol.position_line(game, state, seat)
        yield "query gameover"
        yield "query result"
    yield "position deal seat 0 leader 1 hand 6-6 5-5 4-4 3-3 2-2 1-1 0-0"  # the greatest tile, not leading
    yield "query p1turn"
    yield "quit"


def bad_commands_script(driver: Driver) -> None:
    """Bad and unknown commands: each is reported or ignored, and the engine goes on."""
    for line in (
        "ugi", "isready", "hello there", "position", "position startpos moves c z", "query p1turn",
        "position fen 4,4,4/4,4,4 0 0 S", "position fen 4,4,4,4,4,4/4,4,4,4,4,4 0 0 S moves c",
        "query p1turn", "query colour", "query", "setoption name Depth value 9", "setoption name depth value -3",
        "setoption name Seed value abc", "setoption name depth value 2", "setoption name Seed value 4",
        "go wibble 3", "position startpos moves c f", "go depth 2 movetime x",
        "position deal seat 0 leader 0 hand 6-6", "position startpos", "stop", "go", "quit",
    ):
        yield line


#: The recorded sessions: file name -> (game, agent, seed, script, comment).
SCRIPTS = {
    **{
        f"{name}.ugi": (name, "alphabeta:depth=3", 1, perfect_information_script,
                         f"arena engine --game {name} --agent alphabeta:depth=3 --seed 1")
        for name in ("mancala", "kalah", "morabaraba", "morabaraba-9", "nine-mens-morris", "konane", "konane-classic")
    },
    "dominoes.ugi": ("dominoes", "pimc:worlds=4,depth=3", 1, dominoes_script,
                     "arena engine --game dominoes --agent pimc:worlds=4,depth=3 --seed 1 (a seat's view: position deal)"),
    "bad-commands.ugi": ("kalah", "alphabeta:depth=4", 1, bad_commands_script,
                         "arena engine --game kalah --agent alphabeta:depth=4 --seed 1: bad and unknown commands"),
}


def record(name: str) -> Session:
    """Runs the script of session ``name`` and records what the engine replied."""
    game, agent, seed, script, _ = SCRIPTS[name]
    driver = Driver(game, agent, seed)
    session = Session(game, agent, seed)
    steps = script(driver)
    reply_to_send = None
    while True:
        try:
            line = steps.send(reply_to_send)
        except StopIteration:
            break
        replies = driver.send(line)
        bestmoves = [r.split()[1] for r in replies if r.startswith("bestmove ")]
        reply_to_send = bestmoves[-1] if bestmoves else None
        session.steps.append((line, [masked(r) for r in replies]))
    return session


def main() -> None:
    for name, (_, _, _, _, comment) in SCRIPTS.items():
        write_session(DATA / name, record(name), comment)
        print(f"wrote {DATA / name}")


if __name__ == "__main__":
    main()
