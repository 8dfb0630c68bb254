"""``arena serve`` in a real browser (headless Chromium, driven by Playwright): whole games of
every game played by clicking on the board (and of a game without a drawing of its own), illegal clicks, the Morabaraba shot, a Dominoes
draw, undo and hint, a spectator game, a tournament run replayed. Each test saves screenshots of
its boards in its temporary folder (``pytest --basetemp=DIR`` keeps them where you can look)."""

from __future__ import annotations

import os
import random
import shutil
import threading

import pytest

from board_arena.arena.plots import write_plots
from board_arena.arena.settings import TournamentSettings
from board_arena.arena.tournament import run_tournament
from board_arena.arena.web.server import GameServer, make_server

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
#: A page that waits for the person: no request under way and a move to make, or the end.
READY = "ui.view && !ui.busy && !ui.timer && (ui.view.moves.length > 0 || ui.view.result !== null)"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    settings = TournamentSettings.create("kalah:pits=4,seeds=3", ["random", "greedy"], games=2, seed=1)
    run = run_tournament(settings, str(runs / "kalah-demo"), concurrency=1, progress=False)
    write_plots(run.settings, run.games, run.ratings(), run.out_dir)  # as arena report does
    server = make_server(games=GameServer(runs_dir=str(runs)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


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
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(base_url)
    page.wait_for_selector("body[data-ready='1']")
    yield page
    page.close()
    assert not errors, errors


def new_game(page, game, opponent="random", seed=1, side="0", tab="play"):
    page.click(f"button.tab[data-tab='{tab}']")
    page.select_option("#game", game)
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
    assert "wins" in page.locator("#result").text_content()
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
