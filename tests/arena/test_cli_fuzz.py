"""Every subcommand of ``arena`` fed malformed input (numbers out of range or not numbers, paths
that are missing, files where folders belong and folders where files belong, Unicode, empty
strings, files of the wrong kind): each ends with exactly one line on standard error, status 2,
nothing on standard output, no traceback, and nothing written anywhere. Run in this process
(``cli.main``), so that a hundred and more cases stay quick."""

import io
import os
import sqlite3
from contextlib import closing, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from board_arena.arena.cli import main

GAME = "kalah:pits=3,seeds=2"
OK = ["--game", GAME, "--agents", "random,greedy", "--games", "2"]  # a run that would be valid


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """A folder of things to feed the commands: a valid run, files of every wrong kind."""
    root = tmp_path_factory.mktemp("fuzz")
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert main(["run", *OK, "--concurrency", "1", "--quiet", "--out", str(root / "run")]) == 0
    (root / "text.txt").write_text("not a run, not a record\n")
    (root / "binary.bin").write_bytes(bytes(range(256)))
    (root / "latin1.txt").write_bytes("c f a\nd\u00e9j\u00e0 vu\n".encode("latin-1"))
    (root / "bad_moves.txt").write_text("zz yy xx\n")
    (root / "empty.txt").write_text("")
    (root / "list.json").write_text("[1, 2, 3]")
    (root / "record_bad_game.json").write_text('{"game": "nope", "params": {}, "seed": 0, "moves": []}')
    (root / "empty_dir").mkdir()
    (root / "foreign").mkdir()
    with closing(sqlite3.connect(root / "foreign" / "results.sqlite")) as db, db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    return root


def snapshot(root: Path) -> dict:
    """Every file and folder under ``root`` with its size and modification time (but SQLite's
    shared-memory index of a WAL database, ``-shm``, which every reader updates)."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            if name.endswith("-shm"):
                continue
            path = Path(folder) / name
            info = path.stat()
            found[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return found


def cases():
    """(id, argv) of every malformed call; ``{S}`` stands for the sandbox folder."""
    numbers = ["0", "-1", "-2", "1e9", "nan", "inf", "1.5", "abc", "", "99999999999999999999999999", "\u0663"]
    found = []
    for value in numbers:
        found.append(("run --games " + repr(value), ["run", *OK[:4], "--games", value]))
    for value in ["0", "-1", "100000", "x", "", "2.5"]:
        found.append(("run --concurrency " + repr(value), ["run", *OK, "--concurrency", value]))
    for value in ["x", "", "1.5", "1e3"]:
        found.append(("run --seed " + repr(value), ["run", *OK, "--seed", value]))
    for value in ["-1", "0", "nan", "inf", "1e9", "x", ""]:
        found.append(("run --move-time " + repr(value), ["run", *OK, "--move-time", value]))
    for value in ["", "nope", "\U0001f4a5", "kalah:pits=99", "kalah:pits=abc", "kalah:pits", "kalah:=3", ":", "kalah:pits=3:seeds=2",
                  "\u202ekalah", "kalah:pits=3,pits=4", "a" * 5000]:
        found.append(("run --game " + repr(value[:20]), ["run", "--game", value, "--agents", "random,greedy"]))
    for value in ["", ",", "random", "nope,random", "random,\U0001f4a5", "mcts:iterations=-1,random", "mcts:iterations=nan,random",
                  "alphabeta:depth=1e9,random", "random:depth=3,greedy", "alphabeta:endgame=40,random", "td-kalah:weights={S}/text.txt,random",
                  "td-kalah:weights={S}/empty_dir,random", "mcts:c=,random", "mcts:=1,random", "random," * 70]:
        found.append(("run --agents " + repr(value[:30]), ["run", "--game", GAME if "endgame" not in value else "kalah", "--agents", value]))
    for value in ["{S}/text.txt", "", "{S}/foreign", "{S}/binary.bin/x"]:
        found.append(("run --out " + repr(value), ["run", *OK, "--out", value]))
    found.append(("run --out another run", ["run", "--game", GAME, "--agents", "random,minimax", "--games", "2", "--out", "{S}/run"]))
    found.append(("run --out a run, fewer games", ["run", *OK[:4], "--games", "0", "--out", "{S}/run"]))
    for value in ["{S}/nope.txt", "{S}/empty_dir", "{S}/empty.txt", "{S}/binary.bin", "{S}/latin1.txt", "{S}/bad_moves.txt", "random:0",
                  "random:x", "random:-1", "random:", "random:1e9", ""]:
        found.append(("run --openings " + repr(value), ["run", *OK, "--openings", value]))
    found.append(("run --opening-plies alone", ["run", *OK, "--opening-plies", "3"]))
    found.append(("run --opening-plies with random", ["run", *OK, "--openings", "random:2", "--opening-plies", "3"]))
    for value in ["", "elo0=x", "elo0=10,elo1=0", "alpha=2", "elo0=0,elo1=10,model=nope", "\u00e9lo0=0"]:
        found.append(("run --sprt " + repr(value), ["run", *OK, "--sprt", value]))
    found.append(("run --sprt with three agents", ["run", "--game", GAME, "--agents", "random,greedy,minimax", "--sprt", "elo0=0,elo1=10"]))
    for value in ["", ",", "resign", "resign=nan:3", "resign=inf:3", "resign=0.9:99999999999999", "draw=1e9:0.1:3", "perfect=abc",
                  "perfect=-3", "\U0001f4a5", "a" * 5000]:
        found.append(("run --adjudicate " + repr(value[:20]), ["run", *OK, "--adjudicate", value]))
    found.append(("run --adjudicate perfect on konane", ["run", "--game", "konane", "--agents", "random,greedy", "--adjudicate", "perfect"]))
    for value in ["pits", "=3", "pits=abc", "nope=1", ""]:
        found.append(("run --param " + repr(value), ["run", *OK, "--param", value]))
    for value in ["nobody", "", "\U0001f4a5"]:
        found.append(("run --anchor " + repr(value), ["run", *OK, "--anchor", value]))
    for value in ["bogus", "ray://", "ray://host:99999", "", "RAY"]:
        found.append(("run --cluster " + repr(value), ["run", *OK, "--cluster", value]))
    for value in ["{S}/nope.py", "{S}/empty_dir", "{S}/text.txt", "\U0001f4a5", "", "os.path.nonexistent_module"]:
        found.append(("run --plugin " + repr(value), ["run", *OK, "--plugin", value]))
    found.append(("run, no game", ["run", "--agents", "random,greedy"]))
    found.append(("run, an unknown option", ["run", *OK, "--gmaes", "4"]))

    for command in ("report", "verify", "export"):
        for value in ["{S}/nope", "{S}/text.txt", "{S}/empty_dir", "{S}/foreign", "", "\U0001f4a5", "{S}/binary.bin"]:
            found.append((f"{command} {value!r}", [command, value]))
        found.append((f"{command}, no folder", [command]))
        found.append((f"{command}, two folders", [command, "{S}/run", "{S}/run"]))
    for value in ["nobody", "", "\U0001f4a5"]:
        found.append(("report --anchor " + repr(value), ["report", "{S}/run", "--anchor", value]))
    for value in ["{S}/empty_dir", "{S}/nope/games.txt", "", "{S}/binary.bin/x", "{S}"]:
        found.append(("export --out " + repr(value), ["export", "{S}/run", "--out", value]))

    for value in ["{S}/nope", "{S}/text.txt", "{S}/binary.bin", "{S}/latin1.txt", "{S}/list.json", "{S}/record_bad_game.json",
                  "{S}/empty_dir", "{S}/empty.txt", ""]:
        found.append(("replay " + repr(value), ["replay", value, "0"]))
    for value in ["x", "-1", "99999", "1.5", "", "\u0661"]:
        found.append(("replay GAME_ID " + repr(value), ["replay", "{S}/run", value]))
    found.append(("replay, no game id", ["replay", "{S}/run"]))

    for value in ["zzz-no-such-name", "\U0001f4a5"]:
        found.append(("list " + repr(value), ["list", value]))
    found.append(("list, two names", ["list", "kalah", "mcts"]))

    for args in (["--game", "nope"], ["--game", ""], ["--game", "kalah", "--opponent", "nope"], ["--game", "kalah", "--opponent", ""],
                 ["--game", "kalah", "--seed", "x"], ["--game", "kalah", "--first", "nobody"],
                 ["--game", "dominoes", "--opponent", "mcts"], ["--game", "dominoes", "--opponent", "cheat"],
                 ["--game", "kalah", "--record", "{S}/empty_dir"], ["--game", "kalah", "--record", ""],
                 ["--game", "kalah", "--record", "{S}/binary.bin/x.json"], ["--game", "kalah", "--param", "pits=99"],
                 ["--game", "kalah", "--opponent", "alphabeta:endgame=40"], ["--game", "kalah", "--plugin", "{S}/nope.py"], []):
        found.append(("play " + " ".join(args), ["play", *args]))

    for args in (["--port", "-1"], ["--port", "70000"], ["--port", "abc"], ["--port", ""], ["--port", "1e3"], ["--no-such-flag"],
                 ["--plugin", "{S}/nope.py"], ["extra"]):
        found.append(("serve " + " ".join(args), ["serve", *args]))

    found += [("no command", []), ("an unknown command", ["rnu"]), ("an unknown option", ["--frobnicate"]), ("unicode command", ["\u00e9"])]
    return found


CASES = cases()


def test_there_are_over_a_hundred_cases_covering_every_subcommand():
    assert len(CASES) >= 100
    commands = {argv[0] for _, argv in CASES if argv}
    assert commands >= {"run", "report", "list", "replay", "export", "play", "serve", "verify"}


@pytest.mark.parametrize("argv", [argv for _, argv in CASES], ids=[name for name, _ in CASES])
def test_malformed_input_is_one_line_exit_2_nothing_written(argv, sandbox, monkeypatch):
    monkeypatch.chdir(sandbox)  # a default output (arena-runs/..., arena-games/...) would land here
    argv = [word.replace("{S}", str(sandbox)) for word in argv]
    before = snapshot(sandbox)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(argv)
    lines = err.getvalue().splitlines()
    assert status == 2, (status, err.getvalue())
    assert len(lines) == 1 and ": error: " in lines[0] and lines[0].startswith("arena"), err.getvalue()
    assert "Traceback" not in err.getvalue() and out.getvalue() == ""
    assert snapshot(sandbox) == before, "nothing is written"
