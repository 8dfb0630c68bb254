"""The arena as a UGI host: engine programs (fake ones, Python scripts written into tmp_path)
play in `arena run` and `arena play`, and each way an engine can fail loses its own game, with
the reason and its last standard error lines recorded, while the run goes on and resumes."""

import json
import os
import subprocess
import sys

import psutil
import pytest

from board_arena import agents, engines
from board_arena.arena.tournament.run import load_run
from board_arena.arena.tournament.settings import TournamentSettings
from board_arena.ugi import host
from tests.support.cli import arena_cli
from tests.support.ugi_engines import write_engines_file

ARENA = [sys.executable, "-m", "board_arena.arena.cli"]


def run(tmp_path, engines_file, agent_list, games=2, *more):
    return arena_cli("run", "--game", "kalah:pits=4,seeds=3", "--agents", agent_list, "--engines", str(engines_file),
                     "--games", str(games), "--out", str(tmp_path / "run"), "--quiet", "--concurrency", "1", *more)


def engine_processes(script_folder):
    """The fake engines still running from ``script_folder``."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or []
        if any(str(script_folder) in word for word in cmdline) and "fake_engine.py" in " ".join(cmdline):
            found.append(process)
    return found


def test_an_engine_plays_a_run_stored_with_its_definition_and_the_run_resumes(tmp_path):
    engines_file = write_engines_file(tmp_path, {"fake": "none"}, game="kalah:pits=4,seeds=3")
    status, out, err = run(tmp_path, engines_file, "random,fake", 2, "--ugi-log")
    assert status == 0, err
    first = load_run(str(tmp_path / "run"))
    assert len(first.games) == 2
    assert {g.end_reason for g in first.games} == {"rules"}
    stored = first.settings.ugi_engines
    assert [e["name"] for e in stored] == ["fake"] and stored[0]["command"][0] == sys.executable
    # Every move the engine made came from its bestmove, and its info line was read.
    searches = first.searches()
    fake_entries = [entry for game in first.games for entry in (searches[game.id] or [])
                    if entry[0] == (0 if game.player0 == "fake" else 1)]
    assert fake_entries and all(entry[1] == 0.12 and entry[3] == 1 and entry[4] == 7 for entry in fake_entries)
    logs = sorted(os.listdir(tmp_path / "run" / host.LOG_FOLDER))
    assert logs == ["game-000000-seat1-fake.log", "game-000001-seat0-fake.log"]
    text = (tmp_path / "run" / host.LOG_FOLDER / logs[0]).read_text()
    assert "> ugi" in text and "< ugiok" in text and "> uginewgame" in text and "> go movetime 1000" in text and "< bestmove" in text
    # The same command with more games plays the missing ones (the engine rebuilt from the settings).
    status, out, err = run(tmp_path, engines_file, "random,fake", 4)
    assert status == 0, err
    assert len(load_run(str(tmp_path / "run")).games) == 4
    assert not engine_processes(tmp_path)


# Each fault, the engines file's keys that keep it quick, and what the stored reason says.
FAULTS = {
    # Before it read 'ugi' or while waiting for ugiok: whichever the exit came first to.
    "exit-at-start": ({}, ["exited (exit code 3)", "last stderr lines: cannot open my opening book"]),
    "crash": ({}, ["exited (exit code 1) while searching", "ZeroDivisionError: division by zero in the evaluation"]),
    "hang": ({"stop_grace": 0.2}, ["hung in 'go movetime 300'", "killed"]),
    "no-readyok": ({"ready_timeout": 2}, ["did not answer isready with readyok within 2 s"]),
    "garbage": ({}, ["sent a line that is not UGI while searching", "'hello there, I think pit c is nice'"]),
    "illegal": ({}, ["played 'zz9', which is not a legal move here", "is not a pit"]),
    "flood-stderr": ({}, ["exited (exit code 1) while searching", "ZeroDivisionError", "debug line 4999 of move 3"]),
    "flood-stdout": ({}, ["sent more than ", " lines ", "(go depth 2)"]),  # for one move, or unread
    "long-line": ({}, ["sent a line of more than 65,536 bytes while searching (go depth 2)"]),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_each_fault_loses_the_engines_game_with_its_reason_and_the_run_resumes(fault, tmp_path):
    keys, said = FAULTS[fault]
    engines_file = write_engines_file(tmp_path, {"faulty": fault}, game="kalah:pits=4,seeds=3", **keys)
    # A hang is the arena's time forfeit, under a move time; the others search to a depth, with
    # no time to run out under load.
    budget = ("random,faulty", "--move-time", "0.3") if fault == "hang" else ("random,faulty:depth=2",)
    status, out, err = run(tmp_path, engines_file, budget[0], 2, *budget[1:], "--ugi-log")
    assert status == 0, err
    log = (tmp_path / "run" / host.LOG_FOLDER / "game-000000-seat1-faulty.log").read_text()
    assert f" ! {said[0]}" in log  # the verdict ends the protocol log
    status, out, err = run(tmp_path, engines_file, budget[0], 4, *budget[1:])  # resumed: two more
    assert status == 0, err
    games = load_run(str(tmp_path / "run")).games
    assert len(games) == 4
    for game in games:
        seat = 0 if game.player0 != "random" else 1
        spec = budget[0].split(",")[1]
        assert game.result == (-1.0 if seat == 0 else 1.0), game.end_reason
        assert game.end_reason.startswith(f"error in seat {seat} ({spec}): engine 'faulty' "), game.end_reason
        for words in said:
            assert words in game.end_reason
        assert len(game.end_reason) < 3000  # the last stderr lines only, each cut
    assert "Games: 4 of 4 played" in out
    assert not engine_processes(tmp_path)  # every faulty process was killed, none outlives the run


@pytest.mark.parametrize("where", ["--concurrency=1", "--in-process"])
def test_an_engine_under_a_clock_is_told_both_clocks(where, tmp_path):
    engines_file = write_engines_file(tmp_path, {"fake": "none"}, game="kalah:pits=4,seeds=3", log=True)
    status, out, err = arena_cli("run", "--game", "kalah:pits=4,seeds=3", "--agents", "fake,random", "--engines", str(engines_file),
                                 "--games", "2", "--out", str(tmp_path / "run"), "--quiet", where, "--tc", "20+0.5")
    assert status == 0, err
    assert {g.end_reason for g in load_run(str(tmp_path / "run")).games} == {"rules"}
    log = (tmp_path / "run" / host.LOG_FOLDER / "game-000000-seat0-fake.log").read_text()
    go = [line.split(" > ", 1)[1] for line in log.splitlines() if " > go " in line]
    first = go[0].split()
    assert first[:3] == ["go", "p1time", "20000"] and first[3:9] == ["p2time", "20000", "p1inc", "500", "p2inc", "500"]
    assert int(go[1].split()[2]) < 20500  # its own clock ran while it thought
    assert not engine_processes(tmp_path)  # they quit with the run, in process too


def test_engines_play_each_other_on_two_workers_with_depth_limits(tmp_path):
    engines_file = write_engines_file(tmp_path, {"one": "none", "two": "none"}, game="kalah:pits=4,seeds=3", log=True)
    status, out, err = arena_cli("run", "--game", "kalah:pits=4,seeds=3", "--agents", "one:depth=3,two:nodes=500",
                                 "--engines", str(engines_file), "--games", "2", "--out", str(tmp_path / "run"),
                                 "--quiet", "--concurrency", "2", "--openings", "random:2")
    assert status == 0, err
    assert {g.end_reason for g in load_run(str(tmp_path / "run")).games} == {"rules"}
    logs = (tmp_path / "run" / host.LOG_FOLDER).iterdir()
    sent = "\n".join(path.read_text() for path in logs)
    assert "> go depth 3" in sent and "> go nodes 500" in sent


def test_an_engine_on_a_spawned_worker_is_registered_from_the_settings(tmp_path):
    """A process that has not read the engines file (a spawned worker, a Ray actor) rebuilds
    the engines from the run's settings."""
    engines_file = write_engines_file(tmp_path, {"fake": "none"}, game="kalah:pits=4,seeds=3")
    host.register_engines(host.load_engines_file(str(engines_file)))
    settings = TournamentSettings.create("kalah:pits=4,seeds=3", ["random", "fake"], games=2)
    code = (
        "import sys\n"
        "from board_arena.arena.tournament.worker import start_worker_process\n"
        "player, _ = start_worker_process(sys.stdin.read())\n"
        "print(*[player.play(g).end_reason for g in player.settings.schedule()])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], input=settings.to_json(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["rules", "rules"]


BAD_FILES = {
    "engines = [": "not TOML",
    "[engines.x]\ncommand = 3\n": "engine 'x': the program and its arguments",
    "[engines.x]\ncommand = ['a']\nspeed = 3\n": "engine 'x' has no key 'speed'; keys: command:",
    "[engines.x]\ncommand = ['a']\nready_timeout = -1\n": "ready_timeout must be a number of seconds above 0",
    "[engines.mcts]\ncommand = ['a']\n": "engine name 'mcts' is an agent's already",
    "[other]\nx = 1\n": "describe each engine in a table [engines.NAME]",
    "[engines.x]\ncommand = ['a']\noptions = { Hash = [1] }\n": "an option's value is a string, a number or true/false",
}


@pytest.mark.parametrize("text", list(BAD_FILES))
def test_a_bad_engines_file_is_one_line_and_status_2(text, tmp_path):
    path = tmp_path / "engines.toml"
    path.write_text(text)
    status, out, err = arena_cli("run", "--game", "kalah", "--agents", "random,x", "--engines", str(path), "--out", str(tmp_path / "r"))
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("arena run: error: engines file ") and BAD_FILES[text] in err, err
    assert not (tmp_path / "r").exists()


def test_a_missing_engines_file_and_an_unknown_engine_are_one_line(tmp_path):
    status, out, err = arena_cli("run", "--game", "kalah", "--agents", "random,x", "--engines", str(tmp_path / "none.toml"))
    assert status == 2 and err.strip().endswith("none.toml: no such file") and err.count("\n") == 1
    for command in (["play", "--game", "kalah"], ["serve", "--no-browser"]):
        status, out, err = arena_cli(*command, "--engines", str(tmp_path / "none.toml"))
        assert status == 2 and err == f"arena {command[0]}: error: engines file {tmp_path / 'none.toml'}: no such file\n"
    engines_file = write_engines_file(tmp_path, {"fake": "none"})
    status, out, err = arena_cli("run", "--game", "kalah", "--agents", "random,fakes", "--engines", str(engines_file),
                                 "--out", str(tmp_path / "r"))
    assert status == 2 and "unknown agent 'fakes'" in err and "fake" in err and err.count("\n") == 1


def test_an_engine_that_cannot_be_started_loses_its_games(tmp_path):
    (tmp_path / "engines.toml").write_text("[engines.ghost]\ncommand = ['./no-such-engine']\n"
                                           "[engines.plain]\ncommand = ['./engine.txt']\n")
    (tmp_path / "engine.txt").write_text("not a program\n")
    status, out, err = run(tmp_path, tmp_path / "engines.toml", "ghost,plain", 2)
    assert status == 0, err
    reasons = [g.end_reason for g in load_run(str(tmp_path / "run")).games]
    assert reasons == [
        f"error in seat 0 (ghost): engine 'ghost' cannot be started: {tmp_path}/no-such-engine: no such file or folder",
        f"error in seat 0 (plain): engine 'plain' cannot be started: {tmp_path}/engine.txt: not executable",
    ]


def test_an_engine_plays_only_the_games_it_lists(tmp_path):
    (tmp_path / "engines.json").write_text(json.dumps({"engines": {"kalah-only": {"command": ["x"], "games": ["kalah"]}}}))
    status, out, err = arena_cli("run", "--game", "konane", "--agents", "random,kalah-only", "--engines", str(tmp_path / "engines.json"))
    assert status == 2 and "engine 'kalah-only' plays kalah, not konane" in err


def test_the_info_line_is_read_as_a_search_report():
    info = agents.SearchInfo(move=0)
    host.parse_info("info depth 12 seldepth 20 nodes 5000 nps 9 time 40 score cp -5000 pv a b c", info)
    assert (info.depth, info.nodes, info.value, info.exact) == (12, 5000, -1.0, False)
    host.parse_info("info depth x nodes 9 score mate 4 string depth 99", info)
    assert (info.depth, info.nodes, info.value, info.exact) == (12, 9, 1.0, True)


def test_a_person_plays_an_engine_through_stdin(tmp_path):
    engines_file = write_engines_file(tmp_path, {"fake": "none", "faulty": "crash"}, game="kalah")
    record = tmp_path / "game.json"
    entries = ["moves", "1"] * 60
    done = subprocess.run(ARENA + ["play", "--game", "kalah", "--opponent", "fake", "--engines", str(engines_file),
                                   "--seed", "3", "--record", str(record), "--ascii"],
                          input="".join(e + "\n" for e in entries), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "North (fake) plays" in done.stdout and any(v in done.stdout for v in ("You win!", "The agent wins.", "It's a draw."))
    assert engines.GameRecord.from_json(record.read_text()).replay().is_terminal()
    done = subprocess.run(ARENA + ["play", "--game", "kalah", "--opponent", "faulty", "--engines", str(engines_file),
                                   "--seed", "3", "--record", str(record), "--ascii", "--first", "agent"],
                          input="".join(e + "\n" for e in entries), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "South (faulty) failed: engine 'faulty' exited (exit code 1)" in done.stdout and "You win: the agent failed." in done.stdout
    saved = engines.GameRecord.from_json(record.read_text())
    assert saved.metadata["end_reason"].startswith("lost by faulty: engine 'faulty' exited") and saved.moves


def test_an_engine_dies_with_the_process_that_started_it(tmp_path):
    """A worker killed outright (the pool's answer to a hang) takes its engine with it, even
    one that would stay on when its input closes."""
    engines_file = write_engines_file(tmp_path, {"fake": "lingers"})
    code = (
        "import sys, time\n"
        "from board_arena import agents\n"
        "from board_arena.ugi import host\n"
        "host.register_engines(host.load_engines_file(sys.argv[1]))\n"
        "engine = agents.make_agent('fake')\n"
        "engine.begin_game()\n"
        "print(engine._slot.process.process.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    worker = subprocess.Popen([sys.executable, "-c", code, str(engines_file)], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(worker.stdout.readline())
        assert psutil.pid_exists(pid)
        engine = psutil.Process(pid)
    finally:
        worker.kill()
        worker.wait()
    try:
        engine.wait(timeout=60)
    except psutil.TimeoutExpired:
        engine.kill()
        raise AssertionError("the engine outlived the process that started it") from None


def test_an_engine_searches_for_the_browser_page(tmp_path):
    """arena serve's search processes (spawned, then forked) register the server's engines."""
    from board_arena.arena.web.searches import SearchJob, SearchPool

    engines_file = write_engines_file(tmp_path, {"fake": "none"})
    definitions = [d.to_dict() for d in host.load_engines_file(str(engines_file))]
    pool = SearchPool(1, ugi_engines=definitions)
    try:
        state = engines.make("kalah").new_initial_state()
        state.apply("c")
        ticket = pool.submit(SearchJob.of(state, state.current_player, "fake", 1), seconds_allowed=10.0)
        assert ticket.wait(300)
        assert ticket.error is None and ticket.info.move in state.legal_moves() and ticket.info.value == 0.12
    finally:
        pool.close()
