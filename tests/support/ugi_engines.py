"""Fake engine programs for the UGI host's tests: a Python script that speaks UGI for any of our
games (it plays a random legal move, chosen with our own engine), and its faults, chosen by a
command-line word, each the way a real engine fails."""

import sys
from pathlib import Path

__all__ = ["ENGINE_SCRIPT", "FAULTS", "write_engine", "write_engines_file"]

#: The faults the script can show: the word given after the script's path.
FAULTS = {
    "none": "plays legal random moves",
    "exit-at-start": "exits before it says anything",
    "crash": "exits with a traceback at its third move",
    "hang": "never answers go",
    "no-readyok": "answers ugi, never isready",
    "garbage": "answers go with a line that is not UGI",
    "illegal": "plays a move that is not legal",
    "flood-stderr": "writes thousands of lines on standard error before each move, then crashes at its third",
    "lingers": "plays, but stays on when its input closes (as a hung engine would)",
    "flood-stdout": "answers go with an endless stream of info lines",
    "long-line": "answers go with a line of a megabyte",
}

ENGINE_SCRIPT = r'''
import random
import sys
import time

fault = sys.argv[1] if len(sys.argv) > 1 else "none"
game_name = sys.argv[2] if len(sys.argv) > 2 else "kalah"
if fault == "exit-at-start":
    print("cannot open my opening book", file=sys.stderr, flush=True)
    sys.exit(3)
rng = random.Random(7)
game = state = None
moves_played = []
searches = 0


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    command = words[0]
    if command == "ugi":
        say("id name fake-" + fault)
        say("id author tests")
        say("option name Noise type spin default 0 min 0 max 10")
        say("ugiok")
    elif command == "isready":
        if fault == "no-readyok":
            continue
        if game is None:  # the heavy work after the first isready, as UGI asks
            from board_arena import engines
            name, _, rest = game_name.partition(":")
            game = engines.make(name, **dict(item.split("=") for item in rest.split(",") if item))
            warm = game.new_initial_state()  # loads the kernels that a move calls
            while not warm.is_terminal():
                warm.apply(warm.legal_move_names()[0])
        say("readyok")
    elif command == "uginewgame":
        moves_played = []
    elif command == "position":
        state = game.new_initial_state()
        if "moves" in words:
            for name in words[words.index("moves") + 1:]:
                state.apply(name)
    elif command == "go":
        searches += 1
        if fault == "flood-stderr":
            for i in range(5000):
                print(f"debug line {i} of move {searches}", file=sys.stderr)
            sys.stderr.flush()
        if fault in ("crash", "flood-stderr") and searches == 3:
            raise ZeroDivisionError("division by zero in the evaluation")
        if fault == "hang":
            continue
        if fault == "flood-stdout":
            while True:
                say("info depth 1 nodes 1")
        if fault == "long-line":
            say("info string " + "x" * (1 << 20))
            continue
        if fault == "garbage":
            say("hello there, I think pit c is nice")
            continue
        say("info depth 1 nodes 7 score cp 120 pv x")
        if fault == "illegal":
            say("bestmove zz9")
            continue
        names = state.legal_move_names()
        time.sleep(0.003)  # it thinks a little: its clock runs
        say("bestmove " + names[rng.randrange(len(names))])
    elif command == "stop":
        pass
    elif command == "quit":
        break
else:
    if fault == "lingers":
        time.sleep(3600)
'''


def write_engine(folder: Path) -> Path:
    """Writes the fake engine script into ``folder``; returns its path."""
    path = folder / "fake_engine.py"
    path.write_text(ENGINE_SCRIPT)
    return path


def write_engines_file(folder: Path, engines: dict[str, str], game: str = "kalah", **keys: object) -> Path:
    """An engines file in ``folder`` describing, for each name, the fake engine with that fault
    (one of :data:`FAULTS`), with the extra ``keys`` (TOML values written with ``repr``-like
    text: numbers and booleans) for every engine; returns its path."""
    script = write_engine(folder)
    lines = []
    for name, fault in engines.items():
        assert fault in FAULTS, fault
        lines.append(f"[engines.{name}]")
        lines.append(f"command = [{_toml(sys.executable)}, {_toml(str(script))}, {_toml(fault)}, {_toml(game)}]")
        for key, value in {"ready_timeout": 60, **keys}.items():
            lines.append(f"{key} = {_toml(value)}")
        lines.append("")
    path = folder / "engines.toml"
    path.write_text("\n".join(lines))
    return path


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'

