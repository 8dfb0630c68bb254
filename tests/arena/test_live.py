"""A run's games in progress, published in ``live/`` of its folder (``arena.tournament.live``) for
``arena serve``: what a player writes and when, what a reader sees, and that a run leaves
nothing behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from board_arena.arena.tournament import live
from board_arena.arena.tournament.live import LiveRun, LiveWriter, read_live
from board_arena.arena.tournament.run import run_tournament
from board_arena.arena.tournament.settings import TournamentSettings


def published(writer: LiveWriter) -> dict:
    with open(writer.path, encoding="utf-8") as handle:
        return json.load(handle)


def test_a_player_publishes_slow_searches_each_and_quick_ones_at_most_every_interval(tmp_path, monkeypatch):
    run = LiveRun(str(tmp_path))
    run.begin()
    clock = [100.0]
    monkeypatch.setattr(live.time, "monotonic", lambda: clock[0])
    writer = LiveWriter(run.folder)
    players = ["slow", "quick"]

    def step(moves, to_move, seconds):
        writer.position(7, players, 11, moves, to_move)
        clock[0] += seconds

    step([], 0, 1.0)  # an agent not seen yet counts as slow: written
    assert published(writer)["moves"] == [] and published(writer)["to_move"] == 0
    step(["a"], 1, 0.001)  # "quick" not seen yet: written
    assert published(writer)["moves"] == ["a"]
    step(["a", "b"], 1, 0.001)  # "quick" again (an extra turn), 1 ms after the last write: skipped
    assert published(writer)["moves"] == ["a"]
    step(["a", "b", "c"], 0, 1.0)  # "slow" took 1 s last time: written before its search
    assert published(writer)["moves"] == ["a", "b", "c"]
    step(["a", "b", "c", "d"], 1, 0.001)  # quick, but the last write is 1 s old: written
    assert published(writer)["moves"] == ["a", "b", "c", "d"]
    step(["a", "b", "c", "d", "e"], 1, 0.001)  # quick, 1 ms after: skipped
    assert published(writer)["moves"] == ["a", "b", "c", "d"]
    step(["a", "b", "c", "d", "e", "f"], 1, 0.001)  # quick, once slowed down (a busy machine) ...
    assert published(writer)["moves"] == ["a", "b", "c", "d"]
    clock[0] += 0.015  # ... by 15 ms, just after a write
    writer.last_write = clock[0]
    step(["a", "b", "c", "d", "e", "f", "g"], 1, 0.001)  # smoothed, "quick" is still quick: skipped
    assert published(writer)["moves"] == ["a", "b", "c", "d"]
    writer.last_write -= live.LIVE_SECONDS
    step(["a", "b", "c", "d", "e", "f", "g", "h"], 1, 0.001)  # quick, the last write LIVE_SECONDS old: written
    assert published(writer)["moves"] == ["a", "b", "c", "d", "e", "f", "g", "h"]
    writer.position(7, players, 11, ["a", "b", "c", "d", "e", "f", "g", "h", "i"], None)  # over after a quick search: skipped
    assert not published(writer)["over"]
    writer.position(8, players, 12, [], 0)  # the next game: "slow" to move, written
    clock[0] += 1.0
    writer.position(8, players, 12, ["a"], None)  # over after a slow search: written at once
    assert published(writer)["over"] and published(writer)["game_id"] == 8 and published(writer)["moves"] == ["a"]
    game = read_live(str(tmp_path))
    assert game["running"] and [g["game_id"] for g in game["games"]] == [8]
    run.end()
    assert not os.path.exists(run.folder) and read_live(str(tmp_path)) == {"running": False, "started": None, "games": []}


def test_the_files_of_dead_processes_are_not_shown(tmp_path):
    run = LiveRun(str(tmp_path))
    run.begin()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = int(gone.stdout)
    entry = {"pid": dead, "game_id": 3, "players": ["a", "b"], "game_seed": 1, "moves": [], "to_move": 0, "over": False}
    with open(os.path.join(run.folder, f"{dead}.json"), "w", encoding="utf-8") as handle:
        json.dump(entry, handle)
    with open(os.path.join(run.folder, "half.json"), "w", encoding="utf-8") as handle:
        handle.write('{"pid": ')  # never happens (files are replaced whole); read as absent
    assert read_live(str(tmp_path))["games"] == []
    with open(os.path.join(run.folder, live.RUN_FILE), "w", encoding="utf-8") as handle:
        json.dump({"pid": dead, "host": "somewhere", "started": "then"}, handle)  # a run killed outright
    assert read_live(str(tmp_path))["running"] is False


def test_a_run_publishes_while_it_plays_and_removes_live_at_the_end(tmp_path):
    settings = TournamentSettings.create("kalah:pits=4,seeds=3", ["random", "greedy"], games=2, seed=1)
    out = tmp_path / "run"
    seen = []

    def look(result):  # called in the run's process as each game is stored
        seen.append(read_live(str(out)))

    # In the run's process, so that the player is alive whenever a game is stored: a worker
    # process may have played every game and been stopped before the first is stored.
    run_tournament(settings, str(out), progress=False, on_result=look, in_process=True)
    assert seen and all(s["running"] for s in seen)
    assert any(g["players"] in (["random", "greedy"], ["greedy", "random"]) for s in seen for g in s["games"])
    assert not (out / live.LIVE_FOLDER).exists()
