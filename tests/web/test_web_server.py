"""The server of ``arena serve`` through HTTP: bad requests of every kind, each answered with one
line; who may ask (Host, Origin, token); bodies and connections that would exhaust it; agent
specs outside its limits; searches that run in worker processes, stop when their game goes and
never hold up another request; many games at once; the click mapping of every game's moves."""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import struct
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from board_arena import agents, engines
from board_arena.agents.params import PARAM_EFFECTS
from board_arena.arena.cli import main
from board_arena.arena.web.searches import AgentPolicy, move_seed
from board_arena.arena.web.server import (
    MAX_JSON_DEPTH,
    GameServer,
    RequestError,
    json_depth_ok,
    make_server,
)
from tests.support.illegal_moves import ILLEGAL_MOVES


def start_server(**options):
    games = GameServer(runs_dir=options.pop("runs_dir", "no-such-runs-folder"), **options.pop("games", {}))
    server = make_server(games=games, **options)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def stop_server(server):
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def server():
    srv = start_server(games={"max_searches": 2})
    yield srv
    stop_server(srv)


def request(server, method, path, body=None, raw=None, headers=None, token=True):
    """(status, decoded JSON or text) of one request on a fresh connection, with the server's
    token unless ``token`` is false (``headers`` replace the defaults)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=60)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    sent = {"Content-Type": "application/json"}
    if token:
        sent["X-Arena-Token"] = server.games.token
    sent.update(headers or {})
    conn.request(method, path, body=data, headers=sent)
    response = conn.getresponse()
    payload = response.read()
    conn.close()
    kind = response.getheader("Content-Type", "")
    return response.status, json.loads(payload) if kind.startswith("application/json") else payload.decode()


def raw_request(server, data: bytes, timeout=10.0) -> tuple[int, dict]:
    """Sends bytes as they are and reads the answer (status, JSON body)."""
    with socket.create_connection(("127.0.0.1", server.server_port), timeout=timeout) as sock:
        sock.sendall(data)
        return read_answer(sock)


def read_answer(sock) -> tuple[int, dict]:
    chunks = []
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body) if body else {}


def headers_of(server, method, path, extra=""):
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.server_port}\r\n"
            f"X-Arena-Token: {server.games.token}\r\nContent-Type: application/json\r\n{extra}\r\n").encode()


def new_game(server, **body):
    status, view = request(server, "POST", "/api/games", body)
    assert status == 201, view
    return view


def agent_move(server, game_id, retries=2000):
    """POST .../agent, asking again while every search slot is taken (as the page does)."""
    for _ in range(retries):
        status, view = request(server, "POST", f"/api/games/{game_id}/agent")
        if status != 503:
            return status, view
        assert "--max-searches" in view["error"] and "\n" not in view["error"]
        time.sleep(random.uniform(0.005, 0.03))
    pytest.fail("no search slot came free")


def searching(server) -> int:
    return request(server, "GET", "/api/status")[1]["searches"]["searching"]


def wait_for(condition, what, seconds=60.0):
    """Polls ``condition`` (a bounded loop); fails naming ``what`` if it never holds."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.02)
    pytest.fail(f"{what} did not happen within {seconds:g} s")


def gone(pid) -> bool:
    """Whether process ``pid`` has ended (reaped, or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):  # reaped before the open, or between it and the read
        return True


# -- the catalog and bad requests --------------------------------------------------------------


def test_catalog_lists_every_game_and_agent_and_the_limits(server):
    status, catalog = request(server, "GET", "/api/catalog")
    assert status == 200
    assert [g["name"] for g in catalog["games"]] == engines.available_games()
    assert [a["name"] for a in catalog["agents"]] == agents.available_agents()
    assert catalog["limits"] == {"max_move_time": 10.0, "max_table_mb": 64.0, "max_searches": 2}
    weights = next(p for a in catalog["agents"] if a["name"] == "td-kalah" for p in a["params"])
    assert weights["from_page"] == "not from a page"


@pytest.mark.parametrize(
    "method, path, body, status, words",
    [
        ("POST", "/api/games", {"game": "chess"}, 400, "unknown game 'chess'"),
        ("POST", "/api/games", {"game": "kalah", "params": {"pits": 99}}, 400, "pits=99 is out of range"),
        ("POST", "/api/games", {"game": "kalah", "params": [1]}, 400, "params must be an object"),
        ("POST", "/api/games", {"game": "kalah", "seats": ["random"]}, 400, "seats must be two entries"),
        ("POST", "/api/games", {"game": "kalah", "seats": [None, None], "replaces": 7}, 400, "replaces"),
        ("POST", "/api/games", {"game": "kalah", "seats": ["random", "nosuchagent"]}, 400, "nosuchagent"),
        ("POST", "/api/games", {"game": "kalah", "seats": [None, "alphabeta:depth=x"]}, 400, "depth"),
        ("POST", "/api/games", {"game": "kalah", "seats": [None, "mcts:nosuch=1"]}, 400, "no parameter 'nosuch'"),
        ("POST", "/api/games", {"game": "kalah", "seats": [None, "x" * 300]}, 400, "at most 200 characters"),
        ("POST", "/api/games", {"game": "dominoes", "seats": [None, "alphabeta"]}, 400, "pimc"),
        ("POST", "/api/games", {"game": "dominoes", "seats": [None, "cheat"]}, 400, "hidden tiles"),
        ("POST", "/api/games", {"game": "kalah", "seed": -1}, 400, "seed"),
        ("POST", "/api/games", {"game": "kalah", "seed": True}, 400, "seed"),
        ("GET", "/api/games/nosuchgame", None, 404, "no game 'nosuchgame'"),
        ("POST", "/api/games/nosuchgame/move", {"move": "a"}, 404, "no game"),
        ("DELETE", "/api/games/nosuchgame", None, 404, "no game"),
        ("POST", "/api/games/nosuchgame", None, 405, "takes GET"),
        ("GET", "/api/nothing", None, 404, "no route"),
        ("DELETE", "/api/games", None, 405, "no route"),
        ("PUT", "/api/games", None, 501, None),
        ("GET", "/api/runs/nosuchrun", None, 404, "no run 'nosuchrun'"),
        ("GET", "/api/runs/nosuchrun/games/0", None, 404, "no run"),
        ("GET", "/api/runs/nosuchrun/plot/elo.png", None, 404, "no run"),
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
    assert request(server, "POST", "/api/games", raw=b"\xff\xfe")[0] == 400
    assert request(server, "POST", "/api/games", raw=b'{"seed": ' + b"9" * 5000 + b"}")[0] == 400  # a 5,000-digit number
    status, answer = request(server, "POST", "/api/games", raw=b"x" * 100_000)
    assert status == 413 and "too large" in answer["error"]
    view = new_game(server, game="kalah", seats=[None, "random"], seed=3)
    game = f"/api/games/{view['id']}"
    for body, words in [
        ({"move": "zz"}, "zz"),
        ({"move": ""}, "non-empty string"),
        ({"move": 7}, "non-empty string"),
        ({"move": "a" * 500}, "non-empty string"),
        ({"clicks": "a"}, "list"),
        ({"clicks": []}, "list"),
        ({"clicks": ["pit-1-a"]}, "North's"),
        ({}, "give"),
    ]:
        status, answer = request(server, "POST", f"{game}/move", body)
        assert status in (400, 422) and words in answer["error"] and "\n" not in answer["error"], (body, answer)
    assert request(server, "POST", f"{game}/agent")[0] == 409  # the person's turn
    assert request(server, "POST", f"{game}/undo")[0] == 409  # nothing to undo
    assert request(server, "GET", f"{game}/move")[0] == 405
    status, after = request(server, "GET", game)
    assert status == 200 and after["board"] == view["board"] and after["log"] == []  # nothing changed


def test_the_turns_and_the_end_of_a_game_are_kept(server):
    view = new_game(server, game="kalah", params={"pits": 2, "seeds": 1}, seats=["random", None], seed=2)
    game = f"/api/games/{view['id']}"
    status, answer = request(server, "POST", f"{game}/move", {"move": "a"})
    assert (status, answer["error"]) == (409, "it is not your turn: the agent is to move")
    assert request(server, "POST", f"{game}/hint")[1]["error"] == "a hint is for your turn"
    while view["result"] is None:
        status, view = agent_move(server, view["id"]) if view["agent_to_move"] else request(
            server, "POST", f"{game}/move", {"move": view["moves"][0]["name"]})
        assert status == 200, view
    for action, words in [("move", "the game is over"), ("agent", "the game is over"), ("hint", "a hint is for your turn")]:
        status, answer = request(server, "POST", f"{game}/{action}", {"move": "a"} if action == "move" else None)
        assert (status, answer["error"]) == (409, words)


def test_json_nested_too_deep_is_refused_before_parsing(server):
    deep = b'{"a": ' + b"[" * 30_000 + b"]" * 30_000 + b"}"
    status, answer = request(server, "POST", "/api/games", raw=deep)
    assert (status, answer["error"]) == (400, f"the request body nests deeper than {MAX_JSON_DEPTH} levels")
    just = b'{"game": "kalah", "x": ' + b"[" * (MAX_JSON_DEPTH - 1) + b"]" * (MAX_JSON_DEPTH - 1) + b"}"
    assert request(server, "POST", "/api/games", raw=just)[0] == 201
    assert json_depth_ok(b'["[[[[[[", "\\"[["]', limit=1)  # brackets in strings do not count


# -- who may ask -------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "localhost", "127.0.0.2:{port}", ""])
def test_a_foreign_host_is_refused_everywhere(server, host):
    """DNS rebinding: a page of another site whose name resolves to 127.0.0.1 sends its own name."""
    host = host.format(port=server.server_port)
    for method, path in [("GET", f"/?token={server.games.token}"), ("GET", "/static/app.js"), ("GET", "/api/catalog"),
                         ("POST", "/api/games")]:
        status, answer = request(server, method, path, {"game": "kalah"} if method == "POST" else None, headers={"Host": host})
        assert status == 403 and "is not this server's address" in answer["error"], (method, path, answer)
    status, answer = raw_request(server, f"GET /api/catalog HTTP/1.0\r\nX-Arena-Token: {server.games.token}\r\n\r\n".encode())
    assert status == 403  # no Host at all


def test_the_servers_own_names_are_accepted(server):
    for host in (f"127.0.0.1:{server.server_port}", f"localhost:{server.server_port}", f"LOCALHOST:{server.server_port}"):
        assert request(server, "GET", "/api/catalog", headers={"Host": host})[0] == 200


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "http://127.0.0.1:1"},  # another port of this machine: another page
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},  # another port of localhost is the same site, not origin
        {"Origin": "http://evil.example", "Content-Type": "text/plain"},
    ],
)
def test_cross_site_requests_are_refused(server, headers):
    before = len(server.games.sessions)
    status, answer = request(server, "POST", "/api/games", {"game": "kalah"}, headers=headers)
    assert status == 403 and "requests from other pages are refused" in answer["error"]
    assert request(server, "GET", "/api/catalog", headers=headers)[0] == 403
    assert len(server.games.sessions) == before  # nothing was made


def test_a_same_origin_request_is_accepted(server):
    origin = f"http://127.0.0.1:{server.server_port}"
    assert request(server, "POST", "/api/games", {"game": "kalah"}, headers={"Origin": origin, "Sec-Fetch-Site": "same-origin"})[0] == 201


def test_the_api_needs_the_token_and_state_changes_need_it_in_the_header(server):
    for method, path in [("GET", "/api/catalog"), ("GET", "/api/runs"), ("POST", "/api/games")]:
        status, answer = request(server, method, path, {"game": "kalah"} if method == "POST" else None, token=False)
        assert status == 403 and "token" in answer["error"]
        wrong = request(server, method, path, {"game": "kalah"} if method == "POST" else None, headers={"X-Arena-Token": "x"})
        assert wrong[0] == 403
    cookie = {"Cookie": f"arena_token_{server.server_port}={server.games.token}"}
    assert request(server, "GET", "/api/catalog", headers=cookie, token=False)[0] == 200  # an image, a download link
    assert request(server, "POST", "/api/games", {"game": "kalah"}, headers=cookie, token=False)[0] == 403
    assert request(server, "GET", "/static/app.js", token=False)[0] == 200  # the package's files are public


def test_the_page_needs_the_token_and_sets_a_strict_cookie(server):
    status, answer = request(server, "GET", "/", token=False)
    assert status == 403 and "open the address that arena serve printed" in answer["error"]
    assert server.url.endswith(f"/?token={server.games.token}")
    conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=10)
    conn.request("GET", f"/?token={server.games.token}")
    response = conn.getresponse()
    page = response.read().decode()
    assert response.status == 200 and f'content="{server.games.token}"' in page and '<script src="/static/app.js">' in page
    cookie = response.getheader("Set-Cookie")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert response.getheader("X-Frame-Options") == "DENY" and "frame-ancestors 'none'" in response.getheader("Content-Security-Policy")
    conn.close()
    status, page = request(server, "GET", "/", headers={"Cookie": cookie.split(";")[0]}, token=False)
    assert status == 200 and "arena-token" in page


# -- bodies and connections --------------------------------------------------------------------

HUNDRED_MB = 100 * 2**20


@pytest.mark.parametrize(
    "length_header, status, words",
    [
        (f"Content-Length: {HUNDRED_MB}\r\n", 413, "too large"),
        ("", 411, "a POST needs a Content-Length"),
        ("Content-Length: -1\r\n", 400, "Content-Length must be a number"),
        ("Content-Length: 1e9\r\n", 400, "Content-Length must be a number"),
        ("Transfer-Encoding: chunked\r\n", 411, "not in chunks"),
    ],
)
def test_a_100_mb_body_is_refused_without_being_read(server, length_header, status, words):
    """However its length is declared, the refusal comes while the client has sent almost none
    of the body (a server that read it first would answer only after the whole 100 MB)."""
    with socket.create_connection(("127.0.0.1", server.server_port), timeout=30) as sock:
        sock.sendall(headers_of(server, "POST", "/api/games", length_header) + b"[" * 65536)
        got, answer = read_answer(sock)
    assert got == status and words in answer["error"] and "\n" not in answer["error"]


def test_a_body_that_is_not_json_by_its_type_is_refused(server):
    status, answer = request(server, "POST", "/api/games", {"game": "kalah"}, headers={"Content-Type": "text/plain"})
    assert (status, answer["error"]) == (415, "a request body must be JSON (Content-Type: application/json)")


def test_idle_connections_do_not_block_a_new_request(server):
    """200 connections that send nothing, still open, while a new request is answered."""
    idle = [socket.create_connection(("127.0.0.1", server.server_port), timeout=10) for _ in range(200)]
    try:
        started = time.perf_counter()
        assert request(server, "GET", "/api/catalog")[0] == 200
        print(f"answered in {1000 * (time.perf_counter() - started):.1f} ms with 200 idle connections open")
        for sock in idle[:5] + idle[-5:]:  # the idle ones were not closed to make room: under the cap
            sock.setblocking(False)
            with pytest.raises(BlockingIOError):
                sock.recv(1)
    finally:
        for sock in idle:
            sock.close()


def test_past_the_connection_cap_the_oldest_idle_connection_makes_room():
    server = start_server(max_connections=32)
    try:
        idle = [socket.create_connection(("127.0.0.1", server.server_port), timeout=10) for _ in range(60)]
        assert request(server, "GET", "/api/catalog")[0] == 200
        idle[0].settimeout(10)
        assert idle[0].recv(1) == b""  # closed by the server for the newer ones
        wait_for(lambda: request(server, "GET", "/api/status")[1]["connections"] <= 32, "the cap holding")
        for sock in idle:
            sock.close()
    finally:
        stop_server(server)


def test_a_slow_connection_is_closed():
    """One that trickles its request in (a byte a second) is closed after read_seconds in all."""
    server = start_server()
    server.read_seconds = 1.0
    try:
        with socket.create_connection(("127.0.0.1", server.server_port), timeout=10) as sock:
            closed = False
            for byte in b"GET /api/catalog HTTP/1.1\r\nHost: x\r\n":  # bounded: 36 bytes
                try:
                    sock.sendall(bytes([byte]))
                except OSError:
                    closed = True
                    break
                sock.settimeout(0.3)
                try:
                    if sock.recv(1) == b"":
                        closed = True
                        break
                except socket.timeout:
                    pass
            assert closed
    finally:
        stop_server(server)


def test_a_burst_of_resets_is_quiet_and_blocks_nothing(server, capfd):
    """1,000 connections reset by the client right after they open (a bounded loop, this
    machine's loopback only); then a new request is answered and nothing is printed."""
    linger = struct.pack("ii", 1, 0)  # close() sends a reset
    for _ in range(1000):
        sock = socket.create_connection(("127.0.0.1", server.server_port), timeout=10)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
        if _ % 2:
            sock.sendall(b"GET /api/catalog HTTP/1.1\r\n")  # half a request, then the reset
        sock.close()
    started = time.perf_counter()
    assert request(server, "GET", "/api/catalog")[0] == 200
    print(f"answered in {1000 * (time.perf_counter() - started):.1f} ms after 1,000 resets")
    wait_for(lambda: request(server, "GET", "/api/status")[1]["connections"] <= 1, "the resets being dropped")
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err and "Error" not in captured.err


def test_requests_are_logged_only_when_verbose(capfd):
    quiet, verbose = start_server(), start_server(verbose=True)
    try:
        for srv in (quiet, verbose):
            request(srv, "GET", "/api/catalog")
            request(srv, "GET", "/api/nothing")
        err = capfd.readouterr().err
        assert err.count("GET /api/catalog") == 1 and err.count("GET /api/nothing") == 1  # the verbose one's
    finally:
        stop_server(quiet)
        stop_server(verbose)


# -- agent specs -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec, words",
    [
        ("td-kalah:weights=/dev/zero", "weights names a file on the server's machine"),
        ("td-kalah:weights=/etc/passwd", "weights names a file on the server's machine"),
        ("td-kalah:weights=/no/such/file", "weights names a file on the server's machine"),  # the same words: no oracle
        ("alphabeta:endgame=16", "endgame builds a database on the server's disk"),
        ("alphabeta:endgame=29", "endgame builds a database on the server's disk"),
        ("alphabeta:table_mb=4096", "table_mb=4096 is over the server's 64 MiB"),
        ("alphabeta:table_mb=16384", "table_mb=16384 is over the server's 64 MiB"),
        ("mcts:time=86400", "time=86400 is over the server's 10 s a move"),
        ("pimc:time=11", "time=11 is over the server's 10 s a move"),
        ("alphabeta:time=1e9", "out of range"),
    ],
)
def test_agent_specs_outside_the_limits_are_refused(server, spec, words):
    game = "dominoes" if spec.startswith("pimc") else "kalah"
    status, answer = request(server, "POST", "/api/games", {"game": game, "seats": [None, spec]})
    assert status == 400 and words in answer["error"] and "\n" not in answer["error"], answer
    if "over the server's" in words or "database" in words:
        assert "a page may set" in answer["error"]  # what is allowed


def test_the_policy_reads_what_parameters_declare_not_their_names(forget_plugins):
    """An agent whose innocently named parameter declares a file is refused it; one whose
    parameter is named ``weights`` but declares a setting is not."""

    @agents.register_agent
    class Declared(agents.Agent):
        name = "test-declared"
        PARAMS = (
            agents.AgentParam("level", "", "a file, by its declaration", effect="file"),
            agents.AgentParam("weights", 1.0, "a plain setting", low=0.0, high=2.0, effect="setting"),
            engines.Param("secret", 0, "declares nothing", low=0, high=9),
        )

        def _select(self, state, limit):
            return agents.SearchInfo(move=int(state.legal_moves()[0]))

    policy = AgentPolicy()
    with pytest.raises(ValueError, match="level names a file"):
        policy.check("test-declared:level=x")
    assert policy.check("test-declared:weights=2").params["weights"] == 2.0
    with pytest.raises(ValueError, match="secret declares no effect"):
        policy.check("test-declared:secret=3")
    assert policy.check("test-declared").params["secret"] == 0  # its default is fine
    with pytest.raises(ValueError, match="effect 'disk' is not one of"):
        agents.AgentParam("x", 0, "", effect="disk")


def test_every_built_in_agent_parameter_declares_its_effect():
    for name in agents.available_agents():
        for param in agents.agent_class(name).PARAMS:
            assert param.effect in PARAM_EFFECTS, (name, param.name)


def test_a_default_table_over_the_cap_is_refused():
    games = GameServer(max_table_mb=8)
    with pytest.raises(RequestError, match=r"table_mb=16 \(the default\) is over the server's 8 MiB"):
        games.new_game({"game": "kalah", "seats": [None, "alphabeta"]})
    games.new_game({"game": "kalah", "seats": [None, "alphabeta:table_mb=8"]})


def test_a_search_past_the_time_cap_is_stopped():
    """A budget in simulations is taken as given, and stopped at the server's time per move."""
    server = start_server(games={"max_move_time": 0.3, "max_searches": 1})
    try:
        view = new_game(server, game="kalah", seats=["mcts:iterations=1000000000", None], seed=1)
        status, answer = request(server, "POST", f"/api/games/{view['id']}/agent")
        assert status == 409 and "ran past 0.3 s, the most a search may take here" in answer["error"], answer
        assert searching(server) == 0
        assert request(server, "GET", f"/api/games/{view['id']}")[1]["log"] == []  # nothing played
    finally:
        stop_server(server)


# -- searches ----------------------------------------------------------------------------------


def thinking(server, game_id) -> bool:
    return request(server, "GET", f"/api/games/{game_id}")[1]["thinking"]


def start_search(server, spec, game="kalah"):
    """A game whose agent (``spec``) is to move, and a thread asking it to move; returns the
    game's id, the thread and where its answer lands, once the search is under way (or over)."""
    view = new_game(server, game=game, seats=[spec, None], seed=5)
    answer = {}
    thread = threading.Thread(target=lambda: answer.setdefault("got", request(server, "POST", f"/api/games/{view['id']}/agent")))
    thread.start()
    wait_for(lambda: "got" in answer or thinking(server, view["id"]), "the search starting")
    return view["id"], thread, answer


def worker_pids(server):
    return {w["pid"] for w in request(server, "GET", "/api/status")[1]["searches"]["workers"] if w["busy"]}


def test_requests_are_answered_while_searches_run():
    """Two searches of two seconds each run in worker processes; meanwhile the page, a static
    file and the catalog are answered, and the searches are still under way afterwards (a server
    whose searches held the interpreter lock would answer only once they had ended)."""
    server = start_server(games={"max_searches": 2})
    try:
        # Two workers, each with both agents' kernels loaded (the first searches load them).
        for _ in range(2):
            warm = [start_search(server, spec) for spec in ("alphabeta:time=0.3", "mcts:time=0.3")]
            for _, thread, _ in warm:
                thread.join()
        first = start_search(server, "alphabeta:time=2")
        second = start_search(server, "mcts:time=2")
        assert thinking(server, first[0]) and thinking(server, second[0])
        assert os.getpid() not in worker_pids(server) and len(worker_pids(server)) == 2
        times = []
        for path in (f"/?token={server.games.token}", "/static/app.js", "/api/catalog", "/static/style.css"):
            started = time.perf_counter()
            assert request(server, "GET", path)[0] == 200
            times.append(1000 * (time.perf_counter() - started))
        assert thinking(server, first[0]) and thinking(server, second[0])  # both still thinking
        print("answered in " + ", ".join(f"{t:.1f}" for t in times) + " ms while two searches ran")
        for _, thread, answer in (first, second):
            thread.join()
            status, view = answer["got"]
            assert status == 200 and view["log"][-1]["by"] in ("alphabeta:time=2", "mcts:time=2")
    finally:
        stop_server(server)


@pytest.mark.parametrize("how", ["dropped", "undone", "replaced", "closed"])
def test_a_search_stops_when_its_game_goes(how):
    """Dropped (the page left), undone, replaced by another game, or every request waiting for it
    gone: the search stops, its slot is free when the answer comes (a new search starts at
    once with one slot), and its worker process is killed."""
    server = start_server(games={"max_searches": 1})
    try:
        view = new_game(server, game="kalah", seats=[None, "alphabeta:time=8"], seed=5)
        game = f"/api/games/{view['id']}"
        request(server, "POST", f"{game}/move", {"move": "b"})  # the agent is to move
        if how == "closed":
            sock = socket.create_connection(("127.0.0.1", server.server_port), timeout=10)
            sock.sendall(headers_of(server, "POST", f"{game}/agent", "Content-Length: 0\r\n"))
            wait_for(lambda: searching(server) == 1, "the search starting")
            (pid,) = worker_pids(server)
            sock.close()
            wait_for(lambda: searching(server) == 0, "the search stopping")
        else:
            thread = threading.Thread(target=lambda: request(server, "POST", f"{game}/agent"))
            thread.start()
            wait_for(lambda: searching(server) == 1, "the search starting")
            (pid,) = worker_pids(server)
            if how == "dropped":
                assert request(server, "DELETE", game)[0] == 200
            elif how == "undone":
                status, after = request(server, "POST", f"{game}/undo")
                assert status == 200 and after["board"] == view["board"] and after["log"] == []
            else:
                new_game(server, game="kalah", seats=[None, "random"], replaces=view["id"])
            assert searching(server) == 0  # free when the answer came
            thread.join()
        stopped = request(server, "GET", "/api/status")[1]["searches"]["stopped"]
        assert sum(stopped.values()) == 1, stopped
        wait_for(lambda: gone(pid), "the worker process ending", seconds=5)
        # The slot is free: a search starts at once (with one slot, a busy one would answer 503).
        other = new_game(server, game="kalah", seats=["alphabeta:depth=2", None], seed=1)
        assert request(server, "POST", f"/api/games/{other['id']}/agent")[0] == 200
    finally:
        stop_server(server)


def test_a_search_past_the_slots_is_refused_with_one_line():
    server = start_server(games={"max_searches": 1})
    try:
        _, thread, _ = start_search(server, "alphabeta:time=1")
        view = new_game(server, game="kalah", seats=["random", None])
        status, answer = request(server, "POST", f"/api/games/{view['id']}/agent")
        assert status == 503 and answer["error"] == (
            "the server runs 1 searches at once (arena serve --max-searches), all busy now: try again in a moment")
        thread.join()
    finally:
        stop_server(server)


def test_two_requests_for_one_move_share_one_search():
    server = start_server(games={"max_searches": 2})
    try:
        view = new_game(server, game="kalah", seats=["alphabeta:time=0.5", None], seed=3)
        with ThreadPoolExecutor(max_workers=2) as pool:
            answers = list(pool.map(lambda _: request(server, "POST", f"/api/games/{view['id']}/agent"), range(2)))
        assert [status for status, _ in answers] == [200, 200]
        assert answers[0][1]["log"] == answers[1][1]["log"] and len(answers[0][1]["log"]) == 1  # one move, played once
    finally:
        stop_server(server)


def test_a_hint_is_a_search_too(server):
    view = new_game(server, game="kalah", seats=[None, "alphabeta:depth=3"], seed=5)
    status, hint = request(server, "POST", f"/api/games/{view['id']}/hint")
    assert status == 200 and hint["move"] in [m["name"] for m in view["moves"]] and "depth 3" in hint["summary"]
    again = request(server, "POST", f"/api/games/{view['id']}/hint")[1]
    assert again["move"] == hint["move"] and again["summary"].split(", ")[:3] == hint["summary"].split(", ")[:3]  # by the move's seed


# -- the games' moves --------------------------------------------------------------------------


def test_an_illegal_move_gets_the_engines_reason(server):
    view = new_game(server, game="morabaraba", seats=[None, "random"], seed=1)
    game = f"/api/games/{view['id']}"
    assert request(server, "POST", f"{game}/move", {"move": "d6"})[0] == 200
    agent_move(server, view["id"])
    status, answer = request(server, "POST", f"{game}/move", {"clicks": ["d6"]})
    assert (status, answer["error"]) == (422, "d6: d6 is occupied")


@pytest.mark.parametrize("name, params, find", ILLEGAL_MOVES)
def test_a_parseable_illegal_move_of_every_game_gets_a_4xx_with_the_engines_reason(server, name, params, find):
    """Written in the notation or clicked on the board, the move is refused with the reason that
    the engine gives (``game.illegal_reason``), and nothing changes."""
    view = new_game(server, game=name, params=params, seats=[None, "random"], seed=3)
    game = f"/api/games/{view['id']}"
    session = server.games.sessions[view["id"]]
    for _ in range(60):  # the person plays the first legal move until the illegal one exists
        while view["agent_to_move"]:
            _, view = agent_move(server, view["id"])
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
        "/games/../searches.py",
        "//etc/passwd",
    ],
)
def test_nothing_outside_the_static_files_is_served(server, path):
    status, answer = request(server, "GET", path)
    assert status == 404, (path, answer)
    assert "import" not in str(answer) and "root:" not in str(answer)


def test_the_pages_files_are_served(server):
    for name in ("app.js", "boards.js", "style.css"):
        assert request(server, "GET", f"/static/{name}")[0] == 200


def test_each_game_drawing_is_served_from_its_own_folder(server):
    """The catalog names the drawing of every game that has one; the server serves that file,
    which registers the drawing under the game's family, and nothing else under /games/."""
    _, catalog = request(server, "GET", "/api/catalog")
    drawings = {g["family"]: g["drawing"] for g in catalog["games"]}
    assert drawings["tictactoe"] is None  # a game without a drawing: the page draws its text
    for cls in engines.game_classes():
        path = cls.web_class.drawing_file()
        if path is None:
            continue
        assert drawings[cls.family] == f"/games/{cls.family}.js" and path.parent.name == cls.__module__.split(".")[-1]
        status, script = request(server, "GET", drawings[cls.family])
        assert status == 200 and script == path.read_text() and f'registerDrawing("{cls.family}"' in script
    for path in ("/games/tictactoe.js", "/games/chess.js", "/games/..%2fgame.js", "/games/mancala.py"):
        assert request(server, "GET", path)[0] == 404


def _local_game(game_name: str, seed: int) -> list[str]:
    """The moves of random against random as the server plays them, played here: each agent
    reset before each move with the seed of that move (searches.move_seed)."""
    game = engines.make(game_name)
    seats = [agents.make_agent("random", seed=0) for _ in (0, 1)]
    state = game.new_initial_state(seed)
    moves = []
    while not state.is_terminal():
        seat = state.current_player
        agent = seats[seat]
        agent.reset(move_seed(seed, seat, state.ply))
        move = agent.select_move(agent.observe(state, seat))
        moves.append(state.format_move(move))
        state.apply(move)
    return moves


def test_fifty_concurrent_games_lose_nothing_and_mix_nothing_up(server):
    names = ["kalah", "mancala", "konane", "dominoes", "morabaraba"]
    jobs = [(names[i % len(names)], 1000 + i) for i in range(50)]

    def play(job):
        name, seed = job
        view = new_game(server, game=name, seats=["random", "random"], seed=seed)
        while view["result"] is None:
            status, view = agent_move(server, view["id"])
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
    view = new_game(server, game="dominoes", seats=[None, "random"], seed=4)
    assert view["seed"] is None and not view["record_ready"] and view["board"]["hands"][1] is None
    status, answer = request(server, "GET", f"/api/games/{view['id']}/record")
    assert status == 409 and "holds the deal" in answer["error"]


def test_undo_after_a_dominoes_game_ended_is_refused_as_it_would_reveal_the_hands(server):
    view = new_game(server, game="dominoes", seats=[None, "random"], seed=4)
    game_id = view["id"]
    while view["result"] is None:
        if view["agent_to_move"]:
            status, view = agent_move(server, game_id)
        else:
            status, view = request(server, "POST", f"/api/games/{game_id}/move", {"move": view["moves"][0]["name"]})
        assert status == 200, view
    assert view["seed"] == 4 and view["board"]["hands"][1] is not None and not view["can_undo"]
    status, answer = request(server, "POST", f"/api/games/{game_id}/undo")
    assert status == 409 and "start a new game" in answer["error"]
    status, view = request(server, "GET", f"/api/games/{game_id}")
    assert view["result"] is not None, "the game stays over"


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
            spelled = [tuple(game.web.move_clicks(seen, move)) for move in moves]
            assert len(set(spelled)) == len(moves), spelled  # no two moves are clicked alike
            for move, clicks in zip(moves, spelled):
                assert seen.parse_move(game.web.move_from_clicks(seen, clicks)) == move, (seen.format_move(move), clicks)
            state.apply(rng.choice(state.legal_moves()))


# -- the command -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, words",
    [
        (["--port", "70000"], "--port must be from 0 to 65535"),
        (["--host", ""], "would listen on every interface"),
        (["--host", "0.0.0.0"], "would listen on every interface"),
        (["--host", "::"], "would listen on every interface"),
        (["--max-move-time", "0"], "--max-move-time must be from"),
        (["--max-move-time", "nan"], "--max-move-time must be from"),
        (["--max-table-mb", "1e9"], "--max-table-mb must be from"),
        (["--max-searches", "0"], "--max-searches must be from"),
        (["--max-games", "-3"], "--max-games must be from"),
    ],
)
def test_serve_refuses_bad_options_in_one_line(capsys, args, words):
    assert main(["serve", *args, "--no-browser"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("arena serve: error: ") and words in err and "\n" not in err


# -- runs ----------------------------------------------------------------------------------------


def folder_state(folder):
    """Every file of a run folder with its size and modification time, but live/ (the run's) and
    the database's shared-memory index (-shm: every reader of a WAL database, read-only too,
    records there which part of the log it reads, as SQLite requires while a writer may be at
    work; it holds no data)."""
    state = {}
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != "live"]
        for name in files:
            if name.endswith("-shm"):
                continue
            stat = os.stat(os.path.join(root, name))
            state[os.path.relpath(os.path.join(root, name), folder)] = (stat.st_size, stat.st_mtime_ns)
    return state


def test_a_run_is_read_without_writing_and_its_games_in_progress_are_shown(tmp_path):
    from board_arena.arena.tournament.live import LiveRun, LiveWriter
    from board_arena.arena.tournament.plots import write_plots
    from board_arena.arena.tournament.report import standings_rows
    from board_arena.arena.tournament.run import load_run, run_tournament
    from board_arena.arena.tournament.settings import TournamentSettings

    settings = TournamentSettings.create("kalah:pits=4,seeds=3", ["random", "greedy"], games=2, seed=1)
    folder = tmp_path / "runs" / "demo"
    run = run_tournament(settings, str(folder), concurrency=1, progress=False)
    write_plots(run.settings, run.games, run.ratings(), run.out_dir)
    # A game in progress, published as a player of a running arena run does (this process plays it).
    live = LiveRun(str(folder))
    live.begin()
    state = settings.make_game().new_initial_state(seed=42)
    moves = []
    for _ in range(5):
        move = state.legal_moves()[0]
        moves.append(state.format_move(move))
        state.apply(move)
    LiveWriter(live.folder).position(9, ["greedy", "random"], 42, moves, state.current_player)
    before = folder_state(folder)
    server = start_server(runs_dir=str(tmp_path / "runs"))
    try:
        assert request(server, "GET", "/api/runs")[1]["runs"] == [{"name": "demo", "running": True}]
        status, summary = request(server, "GET", "/api/runs/demo")
        assert status == 200 and summary["running"] and summary["done"] == 2 == summary["total"]
        assert summary["in_progress"] == [{"id": 9, "players": ["greedy", "random"], "plies": 5}]
        assert summary["standings"] == standings_rows(load_run(str(folder)).ratings())
        status, game = request(server, "GET", "/api/runs/demo/games/9")
        assert status == 200 and not game["over"] and game["result"] is None
        assert [p["move"] for p in game["positions"]] == moves + [None]
        status, stored = request(server, "GET", "/api/runs/demo/games/1")
        assert status == 200 and stored["over"] and stored["result"]
        conn = http.client.HTTPConnection("127.0.0.1", server.server_port, timeout=60)
        conn.request("GET", "/api/runs/demo/plot/elo.png", headers={"X-Arena-Token": server.games.token})
        plot = conn.getresponse()
        assert plot.status == 200 and plot.getheader("Content-Type") == "image/png" and plot.read().startswith(b"\x89PNG")
        conn.close()
        assert request(server, "GET", "/api/runs/demo/games/10")[0] == 404
        live.end()  # the run stops
        status, summary = request(server, "GET", "/api/runs/demo")
        assert not summary["running"] and summary["in_progress"] == []
        status, answer = request(server, "GET", "/api/runs/demo/games/9")
        assert status == 404 and answer["error"] == "no game 9 in run 'demo', finished or in progress (2 finished)"
    finally:
        stop_server(server)
    assert folder_state(folder) == before  # the server wrote nothing in the run's folder


@pytest.mark.parametrize("name", ["my run", 'a <b> "c"', "été"])
def test_a_run_whose_folder_name_needs_percent_encoding_opens(tmp_path, name):
    from urllib.parse import quote

    from board_arena.arena.tournament.run import run_tournament
    from board_arena.arena.tournament.settings import TournamentSettings

    settings = TournamentSettings.create("kalah:pits=3,seeds=2", ["random", "greedy"], games=2, seed=1)
    run_tournament(settings, str(tmp_path / "runs" / name), concurrency=1, progress=False, in_process=True)
    server = start_server(runs_dir=str(tmp_path / "runs"))
    try:
        assert request(server, "GET", "/api/runs")[1]["runs"] == [{"name": name, "running": False}]
        status, summary = request(server, "GET", f"/api/runs/{quote(name)}")
        assert status == 200 and summary["name"] == name and summary["done"] == 2
        assert request(server, "GET", f"/api/runs/{quote(name)}/games/0")[0] == 200
        assert request(server, "GET", "/api/runs/%FF%FE")[0] == 400
        assert request(server, "GET", f"/api/runs/{quote('../' + name)}")[0] == 404
    finally:
        stop_server(server)


@pytest.mark.parametrize("entry, shown", [
    ({"moves": ["zz"]}, 422),
    ({"game_seed": "../../etc/passwd"}, 404),
    ({"players": "greedy"}, 404),
    ({"moves": None}, 404),
    ({"to_move": 7}, 404),
    ({"game_id": -1}, 404),
])
def test_a_malformed_live_file_is_skipped_or_refused_in_a_4xx(tmp_path, entry, shown):
    from board_arena.arena.tournament.live import LiveRun
    from board_arena.arena.tournament.run import run_tournament
    from board_arena.arena.tournament.settings import TournamentSettings

    settings = TournamentSettings.create("kalah:pits=3,seeds=2", ["random", "greedy"], games=2, seed=1)
    folder = tmp_path / "runs" / "demo"
    run_tournament(settings, str(folder), concurrency=1, progress=False, in_process=True)
    live = LiveRun(str(folder))
    live.begin()
    written = {"pid": os.getpid(), "game_id": 7, "players": ["greedy", "random"], "game_seed": 3,
               "moves": [], "to_move": 0, "over": False, **entry}
    (folder / "live" / "1.json").write_text(json.dumps(written))
    server = start_server(runs_dir=str(tmp_path / "runs"))
    try:
        status, summary = request(server, "GET", "/api/runs/demo")
        assert status == 200
        assert len(summary["in_progress"]) == (1 if shown == 422 else 0), "a malformed file is skipped"
        status, answer = request(server, "GET", "/api/runs/demo/games/7")
        assert status == shown and "\n" not in answer["error"], answer
    finally:
        stop_server(server)
        live.end()
