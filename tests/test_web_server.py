"""The server of ``arena serve`` through HTTP: bad requests, path traversal, many games at once,
forgotten games, and the click mapping of every game's moves."""

from __future__ import annotations

import http.client
import json
import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from board_arena import agents, engines
from board_arena.arena.cli import main
from board_arena.arena.web.server import GameServer, make_server


@pytest.fixture(scope="module")
def server():
    srv = make_server(games=GameServer(runs_dir="no-such-runs-folder"))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def request(server, method, path, body=None, raw=None, headers=None):
    """(status, decoded JSON or text) of one request on a fresh connection."""
    conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=60)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    kind = response.getheader("Content-Type", "")
    return response.status, json.loads(payload) if kind.startswith("application/json") else payload.decode()


def test_catalog_lists_every_game_and_agent(server):
    status, catalog = request(server, "GET", "/api/catalog")
    assert status == 200
    assert [g["name"] for g in catalog["games"]] == engines.available_games()
    assert [a["name"] for a in catalog["agents"]] == agents.available_agents()


@pytest.mark.parametrize(
    "method, path, body, status, words",
    [
        ("POST", "/api/games", {"game": "chess"}, 400, "unknown game 'chess'"),
        ("POST", "/api/games", {"game": "kalah", "params": {"pits": 99}}, 400, "pits=99 is out of range"),
        ("POST", "/api/games", {"game": "kalah", "seats": ["random"]}, 400, "seats must be two entries"),
        ("POST", "/api/games", {"game": "kalah", "seats": ["random", "nosuchagent"]}, 400, "nosuchagent"),
        ("POST", "/api/games", {"game": "kalah", "seats": [None, "alphabeta:depth=x"]}, 400, "depth"),
        ("POST", "/api/games", {"game": "dominoes", "seats": [None, "alphabeta"]}, 400, "pimc"),
        ("POST", "/api/games", {"game": "dominoes", "seats": [None, "cheat"]}, 400, "hidden tiles"),
        ("POST", "/api/games", {"game": "kalah", "seed": -1}, 400, "seed"),
        ("GET", "/api/games/nosuchgame", None, 404, "no game 'nosuchgame'"),
        ("POST", "/api/games/nosuchgame/move", {"move": "a"}, 404, "no game"),
        ("GET", "/api/nothing", None, 404, "no route"),
        ("DELETE", "/api/games", None, 501, None),
    ],
)
def test_bad_requests_get_a_4xx_and_one_line(server, method, path, body, status, words):
    got, answer = request(server, method, path, body)
    assert got == status
    if words:
        assert words in answer["error"] and "\n" not in answer["error"]


def test_malformed_bodies_and_moves(server):
    assert request(server, "POST", "/api/games", raw=b"{not json")[0] == 400
    assert request(server, "POST", "/api/games", raw=b"[1, 2]")[0] == 400
    status, answer = request(server, "POST", "/api/games", raw=b"x" * 100_000)
    assert status == 413 and "too large" in answer["error"]
    _, view = request(server, "POST", "/api/games", {"game": "kalah", "seats": [None, "random"], "seed": 3})
    game = f"/api/games/{view['id']}"
    for body, words in [
        ({"move": "zz"}, "zz"),
        ({"move": ""}, "non-empty string"),
        ({"move": 7}, "non-empty string"),
        ({"clicks": "a"}, "list"),
        ({"clicks": ["pit-1-a"]}, "North's"),
        ({}, "give"),
    ]:
        status, answer = request(server, "POST", f"{game}/move", body)
        assert status in (400, 422) and words in answer["error"], (body, answer)
    assert request(server, "POST", f"{game}/agent")[0] == 409  # the person's turn
    assert request(server, "POST", f"{game}/undo")[0] == 409  # nothing to undo
    assert request(server, "GET", f"{game}/move")[0] == 405
    status, after = request(server, "GET", game)
    assert status == 200 and after["board"] == view["board"] and after["log"] == []  # nothing changed


def test_an_illegal_move_gets_the_engines_reason(server):
    _, view = request(server, "POST", "/api/games", {"game": "morabaraba", "seats": [None, "random"], "seed": 1})
    game = f"/api/games/{view['id']}"
    assert request(server, "POST", f"{game}/move", {"move": "d6"})[0] == 200
    request(server, "POST", f"{game}/agent")
    status, answer = request(server, "POST", f"{game}/move", {"clicks": ["d6"]})
    assert (status, answer["error"]) == (422, "d6: d6 is occupied")


def _empty_pit(seen):
    """Kalah: a pit of the mover's that a move of theirs has emptied."""
    me = seen.current_player
    for j, seeds in enumerate(seen.board()["pits"][me]):
        if seeds == 0:
            letter = "abcdefgh"[j]
            return letter, [f"pit-{me}-{letter}"], seen.parse_move(letter)
    return None


def _slide_to_an_occupied_point(seen):
    """Morabaraba: once the cows are placed, one of the mover's cows to a point that holds a cow."""
    from board_arena.engines.morabaraba import POINT_OF, encode

    board = seen.board()
    me = seen.current_player
    if board["stage"][me] == "placing":
        return None
    frm = board["cows"][me][0]
    to = board["cows"][1 - me][0]
    return f"{frm}-{to}", [frm, to], encode(POINT_OF[frm], POINT_OF[to])


def _jump_it_cannot_make(seen):
    """Konane: one of the mover's stones, then the point two rows up or down that it cannot reach."""
    board = seen.board()
    if board["opening"]:  # the classic opening's removals first
        return None
    me = seen.current_player
    size = board["size"]
    for stone in board["stones"][me]:
        for rows in (2, -2):
            row = int(stone[1:]) + rows
            if 1 <= row <= size:
                target = f"{stone[0]}{row}"
                move = seen.parse_move(f"{stone}-{target}")
                if not seen.is_legal(move):
                    return f"{stone}-{target}", [stone, target], move
    return None


def _tile_that_fits_neither_end(seen):
    """Dominoes: after the lead, a tile of the mover's hand that matches neither open end."""
    board = seen.board()
    if board["ends"] is None:
        return None
    for tile in board["hands"][seen.current_player]:
        if not set(map(int, tile.split("-"))) & set(board["ends"]):
            return f"{tile}L", [f"tile-{tile}", "end-L"], seen.parse_move(f"{tile}L")
    return None


def _marked_cell(seen):
    """Tic-tac-toe: a cell marked already."""
    for row, marks in zip("321", seen.board()["rows"]):
        for column, mark in zip("abc", marks):
            if mark != ".":
                return f"{column}{row}", [f"{column}{row}"], seen.parse_move(f"{column}{row}")
    return None


@pytest.mark.parametrize(
    "name, params, find",
    [
        ("kalah", {}, _empty_pit),
        ("mancala", {}, _empty_pit),
        ("morabaraba", {"cows": 6}, _slide_to_an_occupied_point),
        ("nine-mens-morris", {"cows": 6}, _slide_to_an_occupied_point),
        ("konane", {}, _jump_it_cannot_make),
        ("konane-classic", {}, _jump_it_cannot_make),
        ("dominoes", {}, _tile_that_fits_neither_end),
        ("dominoes-block", {}, _tile_that_fits_neither_end),
        ("tictactoe", {}, _marked_cell),
    ],
)
def test_a_parseable_illegal_move_of_every_game_gets_a_4xx_with_the_engines_reason(server, name, params, find):
    """Written in the notation or clicked on the board, the move is refused with the reason that
    the engine gives (``game.illegal_reason``), and nothing changes."""
    _, view = request(server, "POST", "/api/games", {"game": name, "params": params, "seats": [None, "random"], "seed": 3})
    game = f"/api/games/{view['id']}"
    session = server.RequestHandlerClass.games.sessions[view["id"]]
    for _ in range(60):  # the person plays the first legal move until the illegal one exists
        while view["agent_to_move"]:
            _, view = request(server, "POST", f"{game}/agent")
        assert view["result"] is None, view["result"]
        seen = session.seen_state()
        found = find(seen)
        if found:
            break
        _, view = request(server, "POST", f"{game}/move", {"clicks": view["moves"][0]["clicks"]})
    else:
        pytest.fail(f"no illegal move to try in {name}")
    text, clicks, move = found
    reason = session.game.illegal_reason(seen, move)
    assert reason and "\n" not in reason
    for body in ({"move": text}, {"clicks": clicks}):
        status, answer = request(server, "POST", f"{game}/move", body)
        assert (status, answer["error"]) == (422, f"{text}: {reason}"), body
    _, after = request(server, "GET", game)
    assert after["board"] == view["board"] and after["log"] == view["log"]


@pytest.mark.parametrize(
    "path",
    [
        "/static/../server.py",
        "/static/..%2fserver.py",
        "/static/%2e%2e/server.py",
        "/static/../../../../etc/passwd",
        "/../arena/web/server.py",
        "/static/",
        "/static/.hidden",
        "/static/app.js/../../server.py",
        "/api/runs/..",
        "/api/runs/../arena/plot/elo.png",
        "/static//etc/passwd",
    ],
)
def test_nothing_outside_the_static_files_is_served(server, path):
    status, answer = request(server, "GET", path)
    assert status == 404, (path, answer)
    assert "import" not in str(answer) and "root:" not in str(answer)


def test_the_page_and_its_files_are_served(server):
    status, page = request(server, "GET", "/")
    assert status == 200 and "<script src=\"/static/app.js\">" in page
    for name in ("app.js", "boards.js", "style.css"):
        assert request(server, "GET", f"/static/{name}")[0] == 200


def test_each_game_drawing_is_served_from_its_own_folder(server):
    """The catalog names the drawing of every game that has one; the server serves that file,
    which registers the drawing under the game's family, and nothing else under /games/."""
    _, catalog = request(server, "GET", "/api/catalog")
    drawings = {g["family"]: g["drawing"] for g in catalog["games"]}
    assert drawings["tictactoe"] is None  # a game without a drawing: the page draws its text
    for cls in engines.game_classes():
        path = cls.drawing_file()
        if path is None:
            continue
        assert drawings[cls.family] == f"/games/{cls.family}.js" and path.parent.name == cls.__module__.split(".")[-1]
        status, script = request(server, "GET", drawings[cls.family])
        assert status == 200 and script == path.read_text() and f'registerDrawing("{cls.family}"' in script
    for path in ("/games/tictactoe.js", "/games/chess.js", "/games/..%2fgame.js", "/games/mancala.py"):
        assert request(server, "GET", path)[0] == 404


def _local_game(game_name: str, seed: int) -> list[str]:
    """The moves of random against random as the server seats them, played here."""
    game = engines.make(game_name)
    seats = [agents.make_agent("random", seed=seed + s) for s in (0, 1)]
    state = game.new_initial_state(seed)
    moves = []
    while not state.is_terminal():
        agent = seats[state.current_player]
        move = agent.select_move(agent.observe(state, state.current_player))
        moves.append(state.format_move(move))
        state.apply(move)
    return moves


def test_fifty_concurrent_games_lose_nothing_and_mix_nothing_up(server):
    names = ["kalah", "mancala", "konane", "dominoes", "morabaraba"]
    jobs = [(names[i % len(names)], 1000 + i) for i in range(50)]

    def play(job):
        name, seed = job
        status, view = request(server, "POST", "/api/games", {"game": name, "seats": ["random", "random"], "seed": seed})
        assert status == 201, view
        while view["result"] is None:
            status, view = request(server, "POST", f"/api/games/{view['id']}/agent")
            assert status == 200, view
        status, record = request(server, "GET", f"/api/games/{view['id']}/record")
        return view, record

    with ThreadPoolExecutor(max_workers=50) as pool:  # all fifty at once
        results = list(pool.map(play, jobs))
    assert len({view["id"] for view, _ in results}) == 50
    for (name, seed), (view, record) in zip(jobs, results):
        expected = _local_game(name, seed)
        assert [entry["move"] for entry in view["log"]] == expected
        record = engines.GameRecord.from_json(record) if isinstance(record, str) else engines.GameRecord(**record)
        assert (record.game, record.seed, record.moves) == (name, seed, expected)
        assert record.replay().board()["outcome"] == view["board"]["outcome"]


def test_a_person_learns_the_deal_of_dominoes_only_at_the_end(server):
    _, view = request(server, "POST", "/api/games", {"game": "dominoes", "seats": [None, "random"], "seed": 4})
    assert view["seed"] is None and not view["record_ready"] and view["board"]["hands"][1] is None
    status, answer = request(server, "GET", f"/api/games/{view['id']}/record")
    assert status == 409 and "holds the deal" in answer["error"]


def test_a_random_side_comes_from_the_seed():
    games = GameServer()
    sides = {seed: games.new_game({"game": "kalah", "seats": [None, "random"], "seed": seed, "random_side": True})[1].human for seed in range(8)}
    assert set(sides.values()) == {0, 1}
    assert sides == {seed: random.Random(seed).randrange(2) for seed in range(8)}


def test_abandoned_games_are_forgotten():
    games = GameServer(idle_seconds=0.0)
    first, _ = games.new_game({"game": "kalah", "seats": [None, "random"]})
    games.new_game({"game": "kalah", "seats": [None, "random"]})
    assert first not in games.sessions
    bounded = GameServer(max_games=3)
    ids = [bounded.new_game({"game": "kalah", "seats": [None, "random"]})[0] for _ in range(5)]
    assert list(bounded.sessions) == ids[2:]


@pytest.mark.parametrize("name", ["mancala", "morabaraba", "nine-mens-morris", "konane", "konane-classic", "dominoes"])
def test_every_move_has_clicks_that_spell_it_back(name):
    game = engines.make(name, **({"turning_jumps": True} if name == "konane" else {}))
    rng = random.Random(5)
    for seed in range(4):
        state = game.new_initial_state(seed)
        while not state.is_terminal():
            seen = state if game.perfect_information else state.view(state.current_player)
            moves = seen.legal_moves()
            spelled = [tuple(game.move_clicks(seen, move)) for move in moves]
            assert len(set(spelled)) == len(moves), spelled  # no two moves are clicked alike
            for move, clicks in zip(moves, spelled):
                assert seen.parse_move(game.move_from_clicks(seen, clicks)) == move, (seen.format_move(move), clicks)
            state.apply(rng.choice(state.legal_moves()))


def test_serve_refuses_a_bad_port(capsys):
    assert main(["serve", "--port", "70000", "--no-browser"]) == 2
    assert capsys.readouterr().err.strip().startswith("arena serve: error: --port")
