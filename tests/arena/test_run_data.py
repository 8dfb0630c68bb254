"""A run as data: per-move logs (stored, resumed, the ``moves`` view, older databases), the text
export, the notebook API (plots, ratings as records, rating history, report, repr), and the
searches shown by ``arena replay`` and recorded by ``arena play``."""

import io
import json
import sqlite3
from contextlib import closing, redirect_stdout

import pytest
from matplotlib.figure import Figure

from board_arena import arena, engines
from board_arena.arena.cli import main
from board_arena.arena.tournament.export import read_records
from board_arena.arena.tournament.movelog import MOVE_COLUMNS, SEARCH_FIELDS
from board_arena.arena.tournament.plots import plot_elo, plot_history, plot_scores
from board_arena.arena.tournament.settings import TournamentSettings
from board_arena.arena.tournament.store import DB_NAME

AGENTS = ["random", "greedy", "mcts:iterations=40", "alphabeta:depth=2"]


def small_settings(games=4, agents=AGENTS):
    return TournamentSettings.create("kalah:pits=3,seeds=2", agents, games=games, seed=3)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("run"))
    return arena.run_tournament(small_settings(), folder, concurrency=1, progress=False)


def check_complete_logs(run):
    """One row per ply of every game, each with the search its agent reported."""
    rows = run.moves()
    assert len(rows) == sum(g.plies for g in run.games) > 0
    assert [(r["game_id"], r["ply"]) for r in rows] == [(g.id, p) for g in run.games for p in range(g.plies)]
    by_game = {g.id: g for g in run.games}
    for r in rows:
        g = by_game[r["game_id"]]
        assert r["move"] == g.moves[r["ply"]]
        assert r["agent"] == (g.player0, g.player1)[r["seat"]] and r["opening"] is False
        assert r["seconds"] is not None and r["seconds"] >= 0
        name = r["agent"].split(":")[0]
        if name == "random":  # reports nothing but its time
            assert r["value"] is None and r["depth"] is None
        elif name == "greedy":
            assert r["depth"] == 1 and -1 <= r["value"] <= 1
        elif name == "mcts":  # all its simulations, unless MCTS-Solver proved a win first
            assert (r["simulations"] == 40 or (r["exact"] and 1 <= r["simulations"] < 40)) and r["nodes"] >= 1
        else:
            assert r["depth"] >= 1 and r["nodes"] >= 1
    # The mover of each ply is the one the rules say (kalah: a move ending in one's store moves again).
    for g in run.games:
        state = engines.make("kalah", pits=3, seeds=2).new_initial_state(g.game_seed)
        for r in (r for r in rows if r["game_id"] == g.id):
            assert r["seat"] == state.current_player
            state.apply(r["move"])


def test_every_ply_keeps_its_search(played):
    check_complete_logs(played)
    assert set(played.moves()[0]) == set(MOVE_COLUMNS)
    frame = played.moves_dataframe()
    assert list(frame.columns) == list(MOVE_COLUMNS) and len(frame) == len(played.moves())


def test_the_moves_view_agrees_with_run_moves(played):
    with closing(sqlite3.connect(f"{played.out_dir}/{DB_NAME}")) as db:
        cursor = db.execute("SELECT * FROM moves ORDER BY game_id, ply")
        columns = [c[0] for c in cursor.description]
        rows = [dict(zip(columns, row)) for row in cursor]
        by_agent = dict(db.execute("SELECT agent, max(depth) FROM moves GROUP BY agent").fetchall())
    assert tuple(columns) == MOVE_COLUMNS
    expected = played.moves()
    for row in expected:  # SQLite has no booleans
        row["opening"] = int(row["opening"])
        row["exact"] = None if row["exact"] is None else int(row["exact"])
    assert rows == expected
    assert by_agent["greedy"] == 1 and by_agent["random"] is None


def test_logs_are_complete_after_an_interrupted_and_a_grown_run(tmp_path, monkeypatch):
    monkeypatch.setattr("board_arena.arena.tournament.run.COMMIT_SECONDS", 0.0)  # each game committed alone: the stop comes between
    settings = small_settings(games=4)
    folder = str(tmp_path / "run")
    arena.run_tournament(small_settings(games=2), folder, concurrency=1, progress=False)  # then grown
    seen = []

    def stop_after_five(result):
        seen.append(result.id)
        if len(seen) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        arena.run_tournament(settings, folder, concurrency=1, progress=False, on_result=stop_after_five)
    partial = arena.load_run(folder)
    assert settings.total_games // 2 < len(partial.games) < settings.total_games
    check_complete_logs(partial)
    run = arena.run_tournament(settings, folder, concurrency=2, progress=False)
    assert len(run.games) == settings.total_games
    check_complete_logs(run)
    # The logs do not depend on how the run was cut up: the same tournament in one go.
    whole = arena.run_tournament(settings, str(tmp_path / "whole"), concurrency=1, progress=False)
    without_time = lambda rows: [{k: v for k, v in r.items() if k != "seconds"} for r in rows]  # noqa: E731
    assert without_time(run.moves()) == without_time(whole.moves())


def test_a_database_without_logs_still_loads_resumes_and_gets_the_view(tmp_path):
    """A run stored before the ``searches`` column existed (the layout built here by hand)."""
    settings = small_settings(games=2, agents=["random", "greedy"])
    folder = tmp_path / "old"
    folder.mkdir()
    with closing(sqlite3.connect(folder / DB_NAME)) as db, db:
        db.executescript(
            """
            CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE games (id INTEGER PRIMARY KEY, player0 TEXT NOT NULL, player1 TEXT NOT NULL,
                spec0 TEXT NOT NULL, spec1 TEXT NOT NULL, game_seed INTEGER NOT NULL,
                seed0 INTEGER NOT NULL, seed1 INTEGER NOT NULL, moves TEXT NOT NULL,
                result REAL NOT NULL, score INTEGER NOT NULL, plies INTEGER NOT NULL,
                time0 REAL NOT NULL, time1 REAL NOT NULL, moves0 INTEGER NOT NULL,
                moves1 INTEGER NOT NULL, end_reason TEXT NOT NULL, finished_at TEXT NOT NULL);
            """
        )
        db.execute("INSERT INTO settings VALUES ('schema', '1')")
        db.execute("INSERT INTO settings VALUES ('tournament', ?)", (settings.to_json(),))
        # The first game of the schedule as the old version stored it.
        fresh = arena.run_tournament(settings, str(tmp_path / "fresh"), concurrency=1, progress=False)
        first = vars(fresh.games[0]).copy()
        del first["searches"], first["move_ids"]  # columns the old layout had not
        first["moves"] = json.dumps(first["moves"])
        first["finished_at"] = "2026-01-01T00:00:00+00:00"
        db.execute(f"INSERT INTO games ({', '.join(first)}) VALUES ({', '.join('?' * len(first))})", list(first.values()))

    old = arena.load_run(str(folder))  # read-only: the file is not changed
    assert len(old.games) == 1 and old.searches() == {0: None}
    rows = old.moves()
    assert [r["move"] for r in rows] == fresh.games[0].moves
    assert all(r[field] is None for r in rows for field in ("seat", "agent", "opening", *SEARCH_FIELDS))
    assert "Move 1:" in replay_output(str(folder), 0)

    run = arena.run_tournament(settings, str(folder), concurrency=1, progress=False)  # resumes it
    logs = run.searches()
    assert len(run.games) == settings.total_games and logs[0] is None
    assert all(len(logs[g.id]) == g.plies for g in run.games[1:])
    assert run.searches([1]) == {1: logs[1]}
    with closing(sqlite3.connect(folder / DB_NAME)) as db:
        view = db.execute("SELECT game_id, count(*), count(seat) FROM moves GROUP BY game_id ORDER BY game_id").fetchall()
    assert view == [(g.id, g.plies, 0 if g.id == 0 else g.plies) for g in run.games]


def test_export_round_trip(played, tmp_path):
    path = tmp_path / "games.txt"
    assert main(["export", played.out_dir, "--out", str(path)]) == 0
    records = read_records(str(path))
    assert len(records) == len(played.games)
    for record, g in zip(records, played.games):
        assert record.moves == g.moves
        tags = record.tags
        assert (tags["Id"], tags["Player0"], tags["Player1"], tags["EndReason"]) == (str(g.id), g.player0, g.player1, g.end_reason)
        assert (int(tags["Seed"]), int(tags["Seed0"]), int(tags["Seed1"])) == (g.game_seed, g.seed0, g.seed1)
        final = record.game_record().replay()  # the moves replay legally ...
        assert final.is_terminal() and final.outcome() == g.result and final.score() == g.score  # ... to the result
        assert tags["Result"] == {1.0: "1-0", 0.0: "1/2-1/2", -1.0: "0-1"}[g.result]
        assert "TimeControl" not in tags and tags.get("MoveTime") == (None if played.settings.move_time is None else f"{played.settings.move_time:g}")
    # The moves of a game are one line: what an openings file reads (the lines not [ or #).
    lines = [line for line in path.read_text().splitlines() if line and line[0] not in "[#"]
    assert [line.split() for line in lines] == [g.moves for g in played.games if g.moves]
    # The default place, and standard output.
    assert main(["export", played.out_dir]) == 0 and read_records(f"{played.out_dir}/games.txt") == records
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["export", played.out_dir, "--out", "-"]) == 0
    assert out.getvalue() == path.read_text()


def test_export_escapes_tag_values(tmp_path):
    from board_arena.arena.tournament.export import format_game, parse_records

    g = arena.GameResult(7, "a", 'b "quoted" \\ x', "a", "b", 1, 2, 3, ["a", "b"], -1.0, -2, 2, 0.0, 0.0, 1, 1, "error: \"x\"\nline")
    text = format_game(g, "kalah", "pits=3")
    (record,) = parse_records(text.splitlines())
    assert record.tags["Player1"] == g.player1 and record.tags["EndReason"] == g.end_reason
    assert record.moves == ["a", "b"] and len(text.splitlines()) == 14
    with pytest.raises(ValueError, match="one line"):
        parse_records(["[Game \"kalah\"]", "a b", "c d"])


def test_plots_return_figures_and_draw_into_given_axes(played, tmp_path):
    ratings = played.ratings()
    figures = [
        plot_elo(played.settings, ratings, len(played.games)),
        plot_scores(played.settings, played.games, ratings),
        plot_history(played.settings, played.games, ratings, points=5),
    ]
    assert all(isinstance(f, Figure) for f in figures)
    canvas = Figure()
    axes = canvas.subplots(1, 3)
    assert plot_elo(played.settings, ratings, len(played.games), ax=axes[0]) is canvas
    assert plot_scores(played.settings, played.games, ratings, ax=axes[1]) is canvas
    history = played.rating_history(points=5)
    assert plot_history(played.settings, played.games, ratings, ax=axes[2], history=history, path=str(tmp_path / "h.png")) is canvas
    assert (tmp_path / "h.png").stat().st_size > 0
    assert len(axes[2].collections) == len(AGENTS)  # a band per agent
    assert axes[0].get_yticklabels()[-1].get_text() == ratings.names[ratings.order()[0]]  # best on top


def test_ratings_as_records_and_dataframe(played):
    ratings = played.ratings()
    records = ratings.to_records()
    assert [r["agent"] for r in records] == [ratings.names[i] for i in ratings.order()]
    assert [r["rank"] for r in records] == list(range(1, len(AGENTS) + 1))
    for r in records:
        assert r["low"] <= r["elo"] <= r["high"]
        assert r["games"] == 4 * (len(AGENTS) - 1) and r["score"] == r["points"] / r["games"]
    assert sum(r["points"] for r in records) == len(played.games)
    frame = ratings.to_dataframe()
    assert list(frame.index) == [r["agent"] for r in records] and frame.loc[records[0]["agent"], "elo"] == records[0]["elo"]


def test_rating_history_shape(played):
    rows = played.rating_history(points=4)
    marks = sorted({r["games"] for r in rows})
    assert marks == [6, 12, 18, 24]  # evenly spread prefixes up to every game
    assert len(rows) == len(marks) * len(AGENTS)
    assert all(set(r) == {"games", "agent", "elo", "low", "high"} and r["low"] <= r["elo"] <= r["high"] for r in rows)
    last = {r["agent"]: r["elo"] for r in rows if r["games"] == 24}
    assert last == pytest.approx({name: played.ratings().elo_of(name) for name in AGENTS})
    anchored = played.rating_history(points=4, anchor="random", intervals=False)
    assert all(r["elo"] == 0 for r in anchored if r["agent"] == "random")


def test_report_from_python_is_the_commands(played, tmp_path):
    text = played.write_report()
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["report", played.out_dir]) == 0
    assert out.getvalue() == text + "\n"
    for name in ("elo.png", "scores.png", "history.png"):
        assert f"{played.out_dir}/{name}" in text


def test_run_repr_is_short(played):
    text = repr(played)
    assert text.startswith("<Run kalah: random, greedy, mcts:iterations=40, alphabeta:depth=2; 24 of 24 games played;")
    assert played.out_dir in text and len(text) < 200
    big = arena.Run(played.out_dir, played.settings, played.games * 10_000)
    assert len(repr(big)) < 200


def replay_output(path, game_id=None):
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["replay", path] + ([] if game_id is None else [str(game_id)])) == 0
    return out.getvalue()


def test_replay_shows_each_moves_search(played):
    g = next(g for g in played.games if {g.player0, g.player1} == {"mcts:iterations=40", "greedy"})
    lines = [line for line in replay_output(played.out_dir, g.id).splitlines() if line.startswith("Move ")]
    assert len(lines) == g.plies
    rows = [r for r in played.moves() if r["game_id"] == g.id]
    for line, row in zip(lines, rows):
        if row["agent"] == "greedy":
            assert "[depth 1, value" in line
        else:
            assert "40 simulations" in line and " nodes" in line


def test_play_records_the_agents_searches(tmp_path):
    from board_arena.arena.terminal import PlaySession
    from board_arena.engines.style import Style

    game = engines.make("kalah", pits=3, seeds=2)
    entries = iter(["moves", "1", "undo"] + ["moves", "1"] * 50)
    path = tmp_path / "game.json"
    session = PlaySession(game, "alphabeta:depth=2", 0, 4, Style(), str(path), read_line=lambda _: next(entries), write=lambda _: None)
    session.run()
    record = engines.GameRecord.from_json(path.read_text())
    searches = record.metadata["searches"]
    final = record.replay()
    assert final.is_terminal() and len(searches) == len(record.moves)
    state = game.new_initial_state(4)
    for move, entry in zip(record.moves, searches):
        if state.current_player == 0:  # the person
            assert entry is None
        else:
            assert entry[0] == 1 and entry[3] == 2 and entry[4] >= 1  # seat, depth, nodes
        state.apply(move)
    text = replay_output(str(path))
    assert "[depth 2," in text
