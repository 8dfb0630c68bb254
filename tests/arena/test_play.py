"""``arena play``: whole games driven through the real command with piped input."""

import json
import os
import re
import subprocess
import sys

import pytest

from board_arena import engines

ARENA = [sys.executable, "-m", "board_arena.arena.cli"]


def play(args, entries, tmp_path, env=None):
    record = tmp_path / "game.json"
    done = subprocess.run(
        ARENA + ["play", *args, "--record", str(record)],
        input="".join(line + "\n" for line in entries),
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )
    return done, record


def first_moves_until_the_end(count=400):
    """Always play the first legal move (numbered list, then its number)."""
    return ["moves", "1"] * count


# Games whose whole game the tests drive; each entry: arena play arguments.
GAMES = {
    "mancala": ["--game", "mancala", "--opponent", "alphabeta:depth=2"],
    "morabaraba": ["--game", "morabaraba", "--opponent", "alphabeta:depth=1"],
    "konane": ["--game", "konane", "--opponent", "mcts:iterations=200"],
    "dominoes": ["--game", "dominoes", "--opponent", "ismcts:iterations=200"],
}


@pytest.mark.parametrize("name", list(GAMES))
def test_a_whole_game_with_mistakes_moves_and_undo(name, tmp_path):
    entries = ["hint", "not-a-move", "moves", "1", "undo", "undo", "help"] + first_moves_until_the_end()
    done, record = play(GAMES[name] + ["--seed", "5"], entries, tmp_path)
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in out + done.stderr
    assert "Not played:" in out  # the unreadable entry, refused with its reason
    assert "Hint:" in out and "Took back your last move" in out and "Nothing to undo" in out
    assert "how to play" in out and "Your legal moves" in out
    assert any(verdict in out for verdict in ("You win!", "The agent wins.", "It's a draw."))
    assert "Game record saved to" in out
    saved = engines.GameRecord.from_json(record.read_text())
    assert saved.replay().is_terminal() and saved.metadata["finished"]
    replay = subprocess.run(ARENA + ["replay", str(record)], capture_output=True, text=True)
    assert replay.returncode == 0 and "Result:" in replay.stdout


def test_quit_end_of_input_and_agent_first(tmp_path):
    done, record = play(["--game", "kalah", "--first", "agent", "--seed", "1", "--opponent", "greedy"], ["quit"], tmp_path)
    assert done.returncode == 0
    assert "plays" in done.stdout.split("(you) >")[0]  # the agent moved before the first prompt
    assert "Game ended by you" in done.stdout
    assert json.loads(record.read_text())["metadata"]["finished"] is False
    record.unlink()
    done, record = play(["--game", "kalah", "--seed", "1", "--first", "human"], [], tmp_path)  # Ctrl-D at once
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "no record saved" in done.stdout and not record.exists()  # nothing was played
    done, record = play(["--game", "kalah", "--seed", "1"], ["c", "quit"], tmp_path)
    assert done.stdout.count("Game ended by you") == 1 and record.exists()


def test_the_board_is_drawn_from_the_persons_side_after_each_move(tmp_path):
    done, _ = play(["--game", "kalah", "--first", "agent", "--seed", "1", "--opponent", "greedy"], ["a", "quit"], tmp_path)
    out = done.stdout
    assert "you play North" in out
    board = out[out.index("You play a.") :]
    lines = board.splitlines()
    # North's row at the bottom, lettered a-f from North's left; each store labelled.
    assert lines[2].strip().startswith("f") and lines[2].strip().endswith("South")
    assert lines[8].strip().startswith("a") and lines[8].strip().endswith("North")
    assert "South's store" in lines[9] and lines[9].rstrip().endswith("North's store")
    assert out.count("a value is the agent's own view, from -1") == 1


def test_the_agent_really_moves_first_and_dominoes_says_who_leads(tmp_path):
    for seed in range(6):  # deals where either player leads
        done, _ = play(["--game", "dominoes", "--first", "agent", "--seed", str(seed), "--opponent", "greedy"], ["quit"], tmp_path)
        before_prompt = done.stdout.split("(you) >")[0]
        assert "(greedy) plays" in before_prompt, done.stdout
        done, _ = play(["--game", "dominoes", "--first", "human", "--seed", str(seed), "--opponent", "greedy"], ["quit"], tmp_path)
        assert "(greedy) plays" not in done.stdout.split("(you) >")[0]
        if "you play player 1" in done.stdout:
            assert "player 1 (you) moves first: you hold the greatest tile dealt" in done.stdout
    # Plain tiles unless the glyphs are asked for.
    assert "[" in done.stdout or "line: (empty" in done.stdout
    assert not any(0x1F030 <= ord(c) <= 0x1F093 for c in done.stdout)


def test_plain_ascii_without_colours(tmp_path):
    done, _ = play(["--game", "kalah", "--seed", "1", "--ascii"], ["quit"], tmp_path)
    assert "\033[" not in done.stdout and "┌" not in done.stdout and "+----+" in done.stdout
    done, _ = play(["--game", "kalah", "--seed", "1"], ["c", "quit"], tmp_path, env={"NO_COLOR": "1"})
    assert "\033[" not in done.stdout


def test_colours_follow_the_pieces():
    from board_arena.engines.style import Style

    style = Style(color=True, unicode=True)
    konane = engines.make("konane").new_initial_state(seed=1).render(color=True, unicode=True)
    morabaraba = engines.make("morabaraba").new_initial_state().play("d6", "a1").render(color=True, unicode=True)
    black, white = "\033[90;1m", "\033[97;1m"
    assert black in konane and white in konane  # Konane: Black is player 0
    assert black in morabaraba and white in morabaraba  # Morabaraba: White is player 0
    assert style.player(0, "x") == "\033[31mx\033[0m"  # pieces without colours: red and blue


@pytest.mark.parametrize(
    "args,message",
    [
        (["--game", "kalah", "--opponent", "mcst"], "unknown agent 'mcst'"),
        (["--game", "kalah:pits=0"], "pits=0 is out of range"),
        (["--game", "kalah", "--first", "nobody"], "invalid choice: 'nobody'"),
        (["--game", "kalah", "--tc", "5 minutes"], "bad time control '5 minutes': write SECONDS+INCREMENT"),
    ],
)
def test_bad_arguments_are_one_line_errors(args, message, tmp_path):
    done, _ = play(args, [], tmp_path)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_a_draw_names_the_tile_drawn(tmp_path):
    done, _ = play(["--game", "dominoes", "--opponent", "greedy", "--seed", "1"], first_moves_until_the_end(), tmp_path)
    assert done.returncode == 0, done.stderr
    drawn = [line for line in done.stdout.splitlines() if "You play draw" in line]
    assert drawn and all(re.search(r"You play draw: you drew \d-\d\.$", line) for line in drawn), drawn


class FakeTime:
    """A clock the test moves: each entry the person types takes ``per_entry`` seconds, and the
    agent's search ``per_search``."""

    def __init__(self, per_entry, per_search, entries):
        self.now, self.per_entry, self.per_search, self.entries, self.limits = 0.0, per_entry, per_search, list(entries), []

    def read_line(self, prompt):
        self.now += self.per_entry
        if not self.entries:
            raise EOFError
        return self.entries.pop(0)

    def session(self, tmp_path, tc, human_seat=0):
        from board_arena.arena.terminal import PlaySession
        from board_arena.arena.tournament.clock import parse_time_control
        from board_arena.engines.style import Style

        out = []
        session = PlaySession(engines.make("kalah", pits=4, seeds=3), "greedy", human_seat, 3, Style(color=False, unicode=False),
                              str(tmp_path / "game.json"), read_line=self.read_line, write=out.append,
                              time_control=parse_time_control(tc), now=lambda: self.now)
        search = session.opponent.search

        def timed_search(state, limit=None):
            self.limits.append(limit)
            self.now += self.per_search
            return search(state, limit)

        session.opponent.search = timed_search
        return session, out


def test_under_a_clock_a_person_who_runs_out_loses_on_time_and_undo_is_off(tmp_path):
    fake = FakeTime(per_entry=0.4, per_search=0.1, entries=["undo", "moves", "1"] * 10)
    session, out = fake.session(tmp_path, "2+0.5")
    assert session.run() == 0
    text = "\n".join(out)
    assert "No undo in a game under a clock" in text and "Clocks: South (you) 0:02.0, North (greedy) 0:02.0" in text
    # Each of the person's moves takes 1.2 s (three entries), plus 0.5 s after it: 2, 1.3, 0.6, out.
    assert "Clocks: South (you) 0:01.3, North (greedy) 0:02.4" in text
    assert "Your clock ran out before your move: you lose on time." in text and "The agent wins on time." in text
    record = engines.GameRecord.from_json((tmp_path / "game.json").read_text())
    assert record.metadata["end_reason"] == "lost on time by South (you)" and record.metadata["time_control"] == "2+0.5"
    assert len(record.moves) == 4 and not record.replay().is_terminal()  # the move after the flag fell is not played
    # The agent was told its clock each move (its own budget kept, the clock's fields added).
    assert [(limit.remaining, limit.increment, limit.moves_to_go) for limit in fake.limits] == [(2.0, 0.5, None), (2.4, 0.5, None)]
    replay = subprocess.run(ARENA + ["replay", str(tmp_path / "game.json")], capture_output=True, text=True)
    assert replay.returncode == 0 and "Result: lost on time by South (you)" in replay.stdout


def test_under_a_clock_an_agent_past_its_clock_and_margin_loses_on_time(tmp_path):
    fake = FakeTime(per_entry=0.0, per_search=1.4, entries=["moves", "1"] * 10)
    session, out = fake.session(tmp_path, "40/2", human_seat=1)  # 2 s, and 1 s of margin for the agent
    session.run()
    text = "\n".join(out)
    # 2 - 1.4 = 0.6; 0.6 - 1.4 = -0.8, within the margin; -0.8 - 1.4 = -2.2: lost.
    assert [limit.moves_to_go for limit in fake.limits] == [40, 39, 38]
    assert "North (you) 0:00.0" not in text and "South (greedy) 0:00.0" in text
    assert "South (greedy) ran out of time: it loses on time." in text and "You win on time!" in text
    record = engines.GameRecord.from_json((tmp_path / "game.json").read_text())
    assert record.metadata["end_reason"] == "lost on time by South (greedy)" and record.metadata["finished"]


def test_a_game_under_a_generous_clock_is_played_to_its_end(tmp_path):
    done, record = play(["--game", "kalah:pits=4,seeds=2", "--opponent", "alphabeta:depth=2", "--seed", "2", "--tc", "10:00+1"],
                        first_moves_until_the_end(), tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Clocks: South (you) 10:0" in done.stdout and "on time" not in done.stdout
    saved = engines.GameRecord.from_json(record.read_text())
    assert saved.replay().is_terminal() and saved.metadata["time_control"] == "600+1" and "end_reason" not in saved.metadata
