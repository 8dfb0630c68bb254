"""``arena serve`` in a real browser (headless Chromium, driven by Playwright): whole games of
every game played by clicking on the board (and of a game without a drawing of its own), illegal clicks, the Morabaraba shot, a Dominoes
draw, undo and hint, a spectator game, a tournament run replayed. Each test saves screenshots of
its boards in its temporary folder (``pytest --basetemp=DIR`` keeps them where you can look)."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from board_arena.arena.tournament.plots import write_plots
from board_arena.arena.tournament.run import run_tournament
from board_arena.arena.tournament.settings import TournamentSettings
from board_arena.arena.web.server import GameServer, make_server
from tests.support.illegal_moves import ILLEGAL_MOVES

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # a system test (a headless browser): python -m pytest -m "not slow" leaves it out

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: A page that waits for the person: no request under way and a move to make, or the end.
READY = "ui.view && !ui.busy && !ui.timer && (ui.view.moves.length > 0 || ui.view.result !== null)"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    settings = TournamentSettings.create("kalah:pits=4,seeds=3", ["random", "greedy"], games=2, seed=1)
    run = run_tournament(settings, str(runs / "kalah-demo"), concurrency=1, progress=False)
    write_plots(run.settings, run.games, run.ratings(), run.out_dir)  # as arena report does
    server = make_server(games=GameServer(runs_dir=str(runs)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def base_url(server):
    return server.url  # the page's address, with the token


@pytest.fixture(scope="module")
def browser():
    if not os.path.isfile(CHROMIUM):
        pytest.fail(
            f"Chromium is not installed ({CHROMIUM} not found): the browser tests need Debian's "
            "chromium package (apt-get install -y chromium; .ci/run installs it), or CHROMIUM=/path",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, base_url):
    # The page's Content-Security-Policy forbids eval, which Playwright's wait_for_function
    # needs; test_the_page_runs_under_its_own_policy loads the page with the policy enforced.
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, bypass_csp=True)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(base_url)
    page.wait_for_selector("body[data-ready='1']")
    yield page
    page.close()
    assert not errors, errors


def new_game(page, game, opponent="random", seed=1, side="0", tab="play", params=None):
    page.click(f"button.tab[data-tab='{tab}']")
    page.select_option("#game", game)
    for key, value in (params or {}).items():  # the variant fields (choosing the game fills them)
        page.locator(f"[data-param='{key}']").evaluate("(input, value) => { input.value = value; }", str(value))
    if tab == "play":
        page.fill("#opponent", opponent)
        page.select_option("#side-choice", side)
    page.fill("#seed", str(seed))
    old = page.evaluate("ui.view ? ui.view.id : ''")
    page.click("#new-game")
    page.wait_for_function(f"ui.view && ui.view.id !== '{old}'")
    if tab == "play":
        page.wait_for_function(READY)


def click(page, token):
    if token in ("draw", "pass"):
        page.click(f"#button-{token}")
    else:
        page.locator(f'#board [data-click="{token}"]').click()


def play_move(page, move):
    """Clicks ``move`` (an entry of the view's moves) and waits for the agent's reply."""
    ply = page.evaluate("ui.view.board.ply")
    for token in move["clicks"]:
        if page.evaluate(f"ui.busy || ui.view.board.ply > {ply}"):
            break  # played already (a Dominoes tile that fits one end only goes there at once)
        click(page, token)
    page.wait_for_function(f"ui.view.board.ply > {ply} && ({READY})")


def state(page):
    return page.evaluate("({board: ui.view.board, log: ui.view.log.length, message: document.querySelector('#message').textContent})")


def play_to_the_end(page, rng, prefer=None, limit=400):
    """Plays random moves by clicking until the result shows; returns the moves played."""
    played = []
    for _ in range(limit):
        if page.evaluate("ui.view.result") is not None:
            break
        moves = page.evaluate("ui.view.moves")
        preferred = [m for m in moves if prefer and prefer(m)]
        move = rng.choice(preferred or moves)
        play_move(page, move)
        played.append(move["name"])
    result = page.locator("#result").text_content()
    assert result and ("win" in result or "Draw" in result), result
    return played


@pytest.mark.parametrize("game", ["mancala", "morabaraba", "konane", "dominoes"])
def test_a_whole_game_by_clicks_against_random(page, game, tmp_path):
    new_game(page, game, seed=7)
    page.screenshot(path=str(tmp_path / f"{game}-start.png"))
    # Shots and captures first, so that the games end soon.
    played = play_to_the_end(page, random.Random(1), prefer=lambda m: len(m["clicks"]) > 2 or "x" in m["name"][1:])
    page.screenshot(path=str(tmp_path / f"{game}-end.png"))
    assert played
    # The moves logged are those of the game record, which replays to the result shown.
    log = page.evaluate("ui.view.log.map((e) => e.move)")
    with page.expect_download() as download:
        page.click("#record")
    record_path = tmp_path / "record.json"
    download.value.save_as(record_path)
    from board_arena import engines

    record = engines.GameRecord.from_json(record_path.read_text())
    assert record.moves == log and record.replay().is_terminal()


def test_a_game_without_a_drawing_is_played_with_its_text_and_buttons(page, tmp_path):
    """Tic-tac-toe (tests/games/tictactoe) ships no drawing: the page shows its text rendering and
    a button per legal move, and plays it like any other game."""
    new_game(page, "tictactoe", seed=2)
    assert "X to move" in page.locator("#board .text-board pre").text_content()
    assert sorted(page.locator("#board .text-moves button").all_text_contents()) == sorted(
        m["name"] for m in page.evaluate("ui.view.moves")
    )
    played = play_to_the_end(page, random.Random(5))
    page.screenshot(path=str(tmp_path / "tictactoe-end.png"))
    assert played and page.locator("#board .text-moves button").count() == 0


def test_illegal_clicks_change_nothing_and_say_why(page, tmp_path):
    new_game(page, "mancala", seed=2)
    before = state(page)
    click(page, "pit-1-c")  # the opponent's pit
    page.wait_for_function("document.querySelector('#message').textContent !== ''")
    after = state(page)
    assert "North's" in after["message"] and after["board"] == before["board"] and after["log"] == 0
    new_game(page, "konane", seed=3)
    before = state(page)
    empty = next(f"{chr(97 + c)}{6 - r}" for r, row in enumerate(before["board"]["grid"]) for c, x in enumerate(row) if x == ".")
    click(page, empty)  # an empty point: no stone there to jump
    page.wait_for_function("document.querySelector('#message').textContent !== ''")
    after = state(page)
    assert after["message"].startswith(empty) and after["board"] == before["board"]
    page.screenshot(path=str(tmp_path / "konane-illegal.png"))


def test_a_morabaraba_mill_asks_for_the_shot(page, tmp_path):
    new_game(page, "morabaraba", seed=4)
    rng = random.Random(3)
    for _ in range(60):
        moves = page.evaluate("ui.view.moves")
        shots = [m for m in moves if "x" in m["name"]]
        if shots:
            break
        # Place on the top row first, so that a mill comes soon.
        own = [m for m in moves if m["name"] in ("a7", "d7", "g7", "b6", "d6", "f6")]
        play_move(page, rng.choice(own or moves))
    else:
        pytest.fail("no mill within 60 moves")
    shot = shots[0]
    ply = page.evaluate("ui.view.board.ply")
    for token in shot["clicks"][:-1]:
        click(page, token)
    page.wait_for_function("document.querySelector('#message').textContent.includes('Mill')")
    targets = page.evaluate("[...nextClicks()]")
    board = page.evaluate("ui.view.board")
    opponent = 1 - board["to_move"]
    assert targets and all(board["points"][board["point_names"].index(t)] == opponent for t in targets)
    page.screenshot(path=str(tmp_path / "morabaraba-shot.png"))
    assert page.evaluate("ui.view.board.ply") == ply  # nothing played yet
    click(page, shot["clicks"][-1])
    page.wait_for_function(f"ui.view.board.ply > {ply}")
    assert page.evaluate("ui.view.log").__getitem__(ply)["move"] == shot["name"]
    page.wait_for_function(READY)


def test_a_dominoes_draw(page, tmp_path):
    new_game(page, "dominoes", seed=11)
    rng = random.Random(2)
    for _ in range(40):
        moves = page.evaluate("ui.view.moves")
        if any(m["name"] == "draw" for m in moves):
            break
        play_move(page, rng.choice(moves))
    else:
        pytest.fail("no draw within 40 moves")
    before = page.evaluate("ui.view.board")
    assert page.locator("#button-draw").is_enabled()
    play_move(page, {"clicks": ["draw"], "name": "draw"})
    log = page.evaluate("ui.view.log")
    mine = [e for e in log if e["player"] == before["to_move"]]
    assert mine[-1]["move"] == "draw"
    page.screenshot(path=str(tmp_path / "dominoes-draw.png"))


def test_undo_and_hint(page, tmp_path):
    new_game(page, "kalah", seed=5, opponent="greedy")
    start = page.evaluate("ui.view.board")
    assert page.locator("#undo").is_disabled()
    page.click("#hint")
    page.wait_for_function("document.querySelector('#message').textContent.startsWith('Hint:')")
    hinted = page.evaluate("ui.hint.move")
    assert hinted in page.evaluate("ui.view.moves.map((m) => m.name)")
    assert page.locator("#board .hint-ring, #board .target.hint").count() >= 1
    page.screenshot(path=str(tmp_path / "hint.png"))
    moves = page.evaluate("ui.view.moves")
    play_move(page, next(m for m in moves if m["name"] == "b"))  # no extra turn: the agent replies
    assert page.evaluate("ui.view.log.length") >= 2
    page.click("#undo")
    page.wait_for_function("ui.view.board.ply === 0")
    assert page.evaluate("ui.view.board") == start


def test_a_spectator_game_runs_to_the_end_with_pause_and_step(page, tmp_path):
    page.click("button.tab[data-tab='watch']")
    page.select_option("#delay", "200")
    page.fill("#agent0", "random")
    page.fill("#agent1", "greedy")
    new_game(page, "konane", seed=9, tab="watch")
    page.wait_for_function("ui.view.board.ply >= 2")
    page.click("#pause")
    page.wait_for_function("!ui.timer")
    page.wait_for_timeout(300)  # a move under way lands
    ply = page.evaluate("ui.view.board.ply")
    page.wait_for_timeout(600)
    assert page.evaluate("ui.view.board.ply") == ply  # paused
    page.click("#step")
    page.wait_for_function(f"ui.view.board.ply === {ply + 1}")
    page.click("#pause")  # resume
    page.wait_for_function("ui.view.result !== null", timeout=120_000)
    result = page.locator("#result").text_content()
    assert "wins" in result or "draw" in result, result  # this Konane counts captures: a draw can end it
    page.screenshot(path=str(tmp_path / "spectator-end.png"))


def test_a_tournament_run_is_shown_and_replayed(page, tmp_path):
    page.click("button.tab[data-tab='runs']")
    page.locator("#runs-list button", has_text="kalah-demo").click()
    page.wait_for_selector("#standings")
    rows = page.locator("#standings tr").all_text_contents()
    assert len(rows) == 3 and any("greedy" in r for r in rows) and any("random" in r for r in rows)
    assert page.locator("#run-view img").count() >= 1
    page.locator("#run-games button.replay").first.click()
    page.wait_for_selector("#board svg")
    assert page.locator("#replay-ply").text_content().startswith("ply 0 of")
    page.click("#replay-last")
    assert page.locator("#result").text_content()
    page.screenshot(path=str(tmp_path / "run-replay.png"), full_page=True)


def test_a_konane_multi_jump_by_clicks_and_stop_here(page, tmp_path):
    rng = random.Random(4)
    for seed in range(30):
        new_game(page, "konane", seed=seed)
        while page.evaluate("ui.view.result") is None:
            moves = page.evaluate("ui.view.moves")
            names = {m["name"] for m in moves}
            double = [m for m in moves if len(m["clicks"]) == 3 and "-".join(m["clicks"][:2]) in names]
            if double:
                break
            play_move(page, rng.choice(moves))
        else:
            continue
        break
    else:
        pytest.fail("no double jump in 30 games")
    move = double[0]
    ply = page.evaluate("ui.view.board.ply")
    click(page, move["clicks"][0])
    click(page, move["clicks"][1])  # a complete jump that may go on: the page asks
    assert page.locator("#stop-here").is_visible()
    assert move["clicks"][2] in page.evaluate("[...nextClicks()]")
    page.screenshot(path=str(tmp_path / "konane-multi-jump.png"))
    page.keyboard.press("Escape")  # starts the move again
    assert page.evaluate("ui.prefix") == [] and page.locator("#stop-here").is_hidden()
    click(page, move["clicks"][0])
    click(page, move["clicks"][1])
    page.click("#stop-here")
    page.wait_for_function(f"ui.view.board.ply > {ply}")
    assert page.evaluate(f"ui.view.log[{ply}].move") == "-".join(move["clicks"][:2])
    page.wait_for_function(READY)
    page.click("#undo")
    page.wait_for_function(f"ui.view.board.ply === {ply}")
    for token in move["clicks"]:
        click(page, token)
    page.wait_for_function(f"ui.view.board.ply > {ply}")
    assert page.evaluate(f"ui.view.log[{ply}].move") == move["name"]


def test_the_page_stays_live_while_the_agent_thinks(page):
    new_game(page, "kalah", opponent="mcts:time=1.5", seed=3)
    ply = page.evaluate("ui.view.board.ply")
    click(page, "pit-0-b")  # no extra turn: the agent is to move
    page.wait_for_function(f"ui.view.board.ply > {ply} && ui.view.agent_to_move")
    assert "thinking" in page.locator("#status").text_content()
    click(page, "pit-0-c")  # the page answers at once, while the search runs on the server
    page.wait_for_function("document.querySelector('#message').textContent === 'Wait for your turn.'", timeout=1000)
    assert page.evaluate("ui.view.agent_to_move")
    page.wait_for_function(READY, timeout=30_000)
    last = page.evaluate("ui.view.log[1]")
    assert last["by"] == "mcts:time=1.5" and "simulations" in last["summary"]


def message(page):
    page.wait_for_function("document.querySelector('#message').textContent !== ''")
    return page.locator("#message").text_content()


@pytest.mark.parametrize("name, params, find", ILLEGAL_MOVES, ids=[entry[0] for entry in ILLEGAL_MOVES])
def test_a_parseable_illegal_move_of_each_game_shows_the_engines_reason(page, server, name, params, find, tmp_path):
    """Typed in the notation, and clicked on the board where the clicks before the last one
    start a legal move: the page shows the reason the engine gives, and nothing changes."""
    new_game(page, name, seed=3, params=params)
    session = server.games.sessions[page.evaluate("ui.view.id")]
    for _ in range(60):  # the person plays the first legal move until the illegal one exists
        found = find(session.seen_state())
        if found:
            break
        play_move(page, page.evaluate("ui.view.moves")[0])
    else:
        pytest.fail(f"no illegal move to try in {name}")
    text, clicks, move = found
    reason = session.game.illegal_reason(session.seen_state(), move)
    assert reason and "\n" not in reason
    before = state(page)
    page.fill("#move-text", text)
    page.press("#move-text", "Enter")
    assert message(page) == f"{text}: {reason}"
    assert state(page)["board"] == before["board"] and state(page)["log"] == before["log"]
    legal_start = any(m["clicks"][: len(clicks) - 1] == clicks[:-1] for m in page.evaluate("ui.view.moves"))
    if legal_start and page.locator(f'#board [data-click="{clicks[-1]}"]').count():
        page.evaluate("say('')")
        for token in clicks:
            click(page, token)
        assert message(page) == f"{text}: {reason}"
        assert state(page)["board"] == before["board"]
    page.screenshot(path=str(tmp_path / f"{name}-illegal.png"))


def test_the_page_runs_under_its_own_policy(browser, base_url):
    """The page, its scripts and every drawing work with the Content-Security-Policy enforced
    (the other tests lift it for Playwright's own scripts)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    refused = []
    page.on("console", lambda entry: refused.append(entry.text) if "Content Security Policy" in entry.text else None)
    page.on("pageerror", lambda error: refused.append(str(error)))
    response = page.goto(base_url)
    assert "default-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector("body[data-ready='1']")
    for game in ("kalah", "morabaraba", "konane", "dominoes"):
        page.select_option("#game", game)
        page.click("#new-game")
        page.wait_for_selector("#board svg [data-click]")
    page.close()
    assert not refused, refused


@pytest.mark.parametrize("game", ["kalah", "morabaraba", "konane", "dominoes", "tictactoe"])
def test_the_board_fits_a_phone(browser, base_url, game, tmp_path):
    """At 390x844 the whole board fits the screen, nothing is wider than it, every control can
    be reached, and a move is played by a click."""
    page = browser.new_page(viewport={"width": 390, "height": 844}, bypass_csp=True, has_touch=True)
    page.goto(base_url)
    page.wait_for_selector("body[data-ready='1']")
    new_game(page, game, seed=2)
    board = page.locator("#board > :first-child")
    board.scroll_into_view_if_needed()
    box = page.evaluate("document.querySelector('#board > :first-child').getBoundingClientRect().toJSON()")
    assert box["width"] > 200 and box["left"] >= 0 and box["right"] <= 390, box
    assert box["top"] >= 0 and box["bottom"] <= 844, box
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for control in ("#new-game", "#game", "#opponent", "#hint", "#undo", "#move-text", "#log-box summary",
                    "button.tab[data-tab='runs']"):
        target = page.locator(control)
        target.scroll_into_view_if_needed()
        where = target.bounding_box()
        assert where and where["x"] >= 0 and where["x"] + where["width"] <= 390, (control, where)
    page.screenshot(path=str(tmp_path / f"{game}-phone.png"), full_page=True)
    play_move(page, page.evaluate("ui.view.moves")[0])
    assert page.evaluate("ui.view.log.length") >= 1
    page.close()


def test_a_run_being_played_is_watched_live_until_it_ends(browser, tmp_path):
    """arena run plays in another process; the page shows it being played (progress, standings,
    crosstable, SPRT updating without a reload), a game in progress is followed move by move,
    and at the end the standings on the page are arena report's."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    runs = tmp_path / "runs"
    out = runs / "live-kalah"
    server = make_server(games=GameServer(runs_dir=str(runs), max_searches=1))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "board_arena.arena.cli"]
    # Agents with a clock, so that each game lasts seconds whatever the machine (the run, about
    # 18 s here, must outlast the page's first look on a loaded machine).
    agents = ["--game", "kalah", "--agents", "mcts:time=0.16,alphabeta:time=0.12"]
    # Their kernels compiled first (into the cache the run loads), so that the run's games are
    # played while the page looks, not after a compilation on a loaded machine.
    warm = subprocess.run(command + ["run", *agents, "--games", "2", "--out", str(tmp_path / "warm"), "--quiet"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0, warm.stderr
    run = subprocess.Popen(
        command + ["run", *agents, "--games", "8",
                   "--concurrency", "2", "--sprt", "elo0=0,elo1=5", "--out", str(out), "--quiet"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, bypass_csp=True)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(server.url)
        page.wait_for_selector("body[data-ready='1']")
        for _ in range(600):  # the run's folder appears when arena run has opened its database
            page.click("button.tab[data-tab='runs']")
            if page.locator("#runs-list button[data-run='live-kalah']").count():
                break
            page.wait_for_timeout(100)
        page.click("#runs-list button[data-run='live-kalah']")
        try:
            page.wait_for_selector("#run-state.live", timeout=120_000)
        except PlaywrightTimeout:
            state = page.locator("#run-view").text_content()[:300] + " / " + page.locator("#message").text_content()
            ended = run.poll()
            pytest.fail(f"the page never showed the run being played: {state!r}; the run "
                        + (f"ended (exit {ended}): {run.stderr.read()}" if ended is not None else "still plays"))
        assert page.locator("#run-state").text_content().startswith("Being played now")
        # A game in progress, followed move by move.
        for _ in range(30):  # a game may end between the page's last look and the click: another one
            watch = page.locator("#run-live button.watch").first
            while not watch.count():  # the page looks again every second while the run plays
                if run.poll() is not None:
                    pytest.fail(f"the run ended (exit {run.returncode}) before a game in progress could be watched: "
                                f"{run.stderr.read()}")
                page.wait_for_timeout(100)
            try:
                watch.click(timeout=10_000)
            except PlaywrightTimeout:  # the games listed ended before the click, and no other began
                continue
            page.wait_for_function("ui.replay && ui.replay.data")
            if not page.evaluate("ui.replay.data.over"):
                break
        else:
            pytest.fail("every game clicked had ended already")
        watched = page.evaluate("ui.replay.id")
        first = page.evaluate("ui.replay.data.positions.length")
        assert "so far (in progress)" in page.locator("#replay-ply").text_content()
        # The board follows the game's moves as they come, without a click.
        page.wait_for_function(f"ui.replay.data.over || ui.replay.data.positions.length > {first}", timeout=60_000)
        if not page.evaluate("ui.replay.data.over"):
            assert page.evaluate("ui.replay.ply") == page.evaluate("ui.replay.data.positions.length") - 1 > first - 1
        # It ends on the page: the board shows the result of the stored game.
        page.wait_for_function("ui.replay.data.over", timeout=120_000)
        assert page.evaluate("ui.replay.id") == watched
        page.click("#replay-last")
        assert page.locator("#result").text_content()
        # Standings and progress move without a reload until the run ends.
        done = []
        page.wait_for_function("ui.run && ui.run.shown && ui.run.shown.done > 0", timeout=120_000)
        done.append(page.evaluate("ui.run.shown.done"))
        page.wait_for_function("ui.run.shown && !ui.run.shown.running", timeout=300_000)
        assert run.wait(timeout=120) == 0, run.stderr.read()
        page.wait_for_function("ui.run.shown.done === ui.run.shown.total")
        done.append(page.evaluate("ui.run.shown.done"))
        assert done[0] <= done[1] == 8  # elo1=5: the SPRT cannot decide within 8 games
        assert page.locator("#run-state").text_content().startswith("Not being played: 8 of 8 games")
        assert page.locator("#run-live").count() == 0
        page.screenshot(path=str(tmp_path / "run-live-end.png"), full_page=True)
        # The page's standings are arena report's, cell by cell.
        report = subprocess.run(command + ["report", str(out)], env=env, capture_output=True, text=True, timeout=300)
        assert report.returncode == 0, report.stderr
        page_rows = [" ".join(" ".join(cells).split()) for cells in page.evaluate(
            "[...document.querySelectorAll('#standings tr')].map((row) => [...row.cells].map((c) => c.textContent))")]
        lines = [" ".join(line.split()) for line in report.stdout.splitlines()]
        start = lines.index(page_rows[0])
        assert lines[start:start + len(page_rows)] == page_rows and len(page_rows) == 3
        crosstable = [" ".join(" ".join(cells).split()) for cells in page.evaluate(
            "[...document.querySelectorAll('#crosstable tr')].map((row) => [...row.cells].map((c) => c.textContent))")]
        assert all(row in lines for row in crosstable[1:])
        sprt = page.locator("#sprt").text_content().splitlines()
        assert sprt and all(" ".join(line.split()) in lines for line in sprt)
    finally:
        if run.poll() is None:
            run.kill()
        run.wait()
        page.close()
        server.shutdown()
        server.server_close()
    assert not errors, errors


def test_a_page_on_another_port_of_this_machine_cannot_use_the_server(browser, server, base_url, capsys):
    """A page of another origin on this machine (another port: the same site for cookies) in
    the browser that holds the server's cookie: its fetches, form and image reach the server,
    which refuses every one (Origin, Sec-Fetch-Site) and makes nothing."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Elsewhere(BaseHTTPRequestHandler):
        def do_GET(self):
            payload = b"<!doctype html><title>another page</title><iframe name=sink></iframe>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    other = ThreadingHTTPServer(("127.0.0.1", 0), Elsewhere)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    context = browser.new_context()
    try:
        own = context.new_page()
        own.goto(base_url)  # the browser now holds the server's cookie
        own.wait_for_selector("body[data-ready='1']")
        assert any(c["name"].startswith("arena_token_") for c in context.cookies())
        before = len(server.games.sessions)
        capsys.readouterr()
        server.verbose = True  # the server logs each request and its status
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{other.server_port}/")
        target = f"http://127.0.0.1:{server.server_port}"
        outcome = page.evaluate(
            """async (target) => {
                const seen = {};
                await fetch(target + "/api/games", {method: "POST", mode: "no-cors", credentials: "include",
                    headers: {"Content-Type": "text/plain"}, body: JSON.stringify({game: "kalah"})}).catch(() => null);
                seen.read = await fetch(target + "/api/runs", {credentials: "include"}).then((r) => r.status, () => "blocked");
                seen.image = await new Promise((done) => {
                    const img = new Image();
                    img.onload = () => done("loaded");
                    img.onerror = () => done("refused");
                    img.src = target + "/api/runs/kalah-demo/plot/elo.png";
                });
                const form = document.createElement("form");
                form.method = "POST"; form.action = target + "/api/games"; form.target = "sink"; form.enctype = "text/plain";
                const field = document.createElement("input");
                field.name = '{"game":"kalah","x":"'; field.value = '"}';
                form.appendChild(field); document.body.appendChild(form);
                const sent = new Promise((done) => { document.querySelector("iframe").onload = done; });
                form.submit();
                await sent;
                return seen;
            }""",
            target,
        )
        server.verbose = False
        assert outcome == {"read": "blocked", "image": "refused"}, outcome
        assert len(server.games.sessions) == before  # nothing was made
        answered = re.findall(r'"(GET|POST) (/api/\S*) HTTP/1.1" (\d+)', capsys.readouterr().err)
        assert sorted(path for _, path, _ in answered) == ["/api/games", "/api/games", "/api/runs",
                                                          "/api/runs/kalah-demo/plot/elo.png"], answered
        assert {status for _, _, status in answered} == {"403"}, answered
    finally:
        server.verbose = False
        context.close()
        other.shutdown()
        other.server_close()


def wait_until(condition, what, seconds=60.0):
    """Polls ``condition`` every 10 ms; returns the seconds it took (fails after ``seconds``)."""
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > seconds:
            pytest.fail(f"waited {seconds:g} s for {what}")
        time.sleep(0.01)
    return time.perf_counter() - started


def agent_thinking(browser, base_url, spec):
    """A tab whose agent (``spec``, moving first) is thinking."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, bypass_csp=True)
    page.goto(base_url)
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#game", "kalah")
    page.fill("#opponent", spec)
    page.select_option("#side-choice", "1")
    page.fill("#seed", "3")
    page.click("#new-game")
    page.wait_for_function("ui.view && ui.view.agent_to_move")
    return page


def test_a_second_tab_loads_while_two_agents_think_and_a_tab_that_goes_stops_its_search(browser, server, base_url):
    """alphabeta:time=5 and mcts:time=5 think in two tabs (the server's two search slots); a
    third tab loads and fetches a static file meanwhile, before either search ends. Then the
    first tab closes and the second starts another game: each search stops, its worker free.
    (5 s is far longer than a tab takes to load on a loaded machine; with 2 s, a search ended
    during the load once in a full run. The test stops both, so never waits for them.)"""
    pool = server.games.pool
    for spec in ("alphabeta:time=0.2", "mcts:time=0.2"):  # the workers load both agents' kernels
        warm = agent_thinking(browser, base_url, spec)
        warm.wait_for_function("ui.view.log.length > 0", timeout=120_000)
        warm.close()
    wait_until(lambda: pool.status()["searching"] == 0, "the warm-up searches to end")
    started = time.perf_counter()  # a tab while nothing thinks, for comparison
    idle = browser.new_page(viewport={"width": 1400, "height": 1000}, bypass_csp=True)
    idle.goto(base_url)
    idle.wait_for_selector("body[data-ready='1']")
    idle_load = time.perf_counter() - started
    idle.close()
    first = agent_thinking(browser, base_url, "alphabeta:time=5")
    second = agent_thinking(browser, base_url, "mcts:time=5")
    wait_until(lambda: pool.status()["searching"] == 2, "both searches to start")
    started = time.perf_counter()
    third = browser.new_page(viewport={"width": 1400, "height": 1000}, bypass_csp=True)
    third.goto(base_url)
    third.wait_for_selector("body[data-ready='1']")
    loaded = time.perf_counter() - started
    fetched = third.evaluate("""async () => {
        const start = performance.now();
        const response = await fetch("/static/style.css");
        await response.text();
        return [response.status, performance.now() - start];
    }""")
    assert fetched[0] == 200
    assert pool.status()["searching"] == 2  # both still thinking: nothing waited for them
    print(f"a third tab loaded in {1000 * loaded:.0f} ms ({1000 * idle_load:.0f} ms with nothing thinking) and a static "
          f"file came in {fetched[1]:.1f} ms while alphabeta:time=5 and mcts:time=5 thought")
    third.close()
    first.close()  # the page goes: its game is dropped, its search stopped
    closed = wait_until(lambda: pool.status()["searching"] == 1, "the closed tab's search to stop")
    second.select_option("#side-choice", "0")
    second.click("#new-game")  # another game replaces the one whose agent thinks
    replaced = wait_until(lambda: pool.status()["searching"] == 0, "the replaced game's search to stop")
    second.wait_for_function(READY)
    assert second.evaluate("ui.view.log.length") == 0 and second.evaluate("ui.view.moves.length") > 0
    stopped = pool.status()["stopped"]
    print(f"searches stopped {1000 * closed:.0f} ms after the tab closed, {1000 * replaced:.0f} ms after the new game; {stopped}")
    second.close()
