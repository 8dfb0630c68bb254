"""Terminal play: a person against any agent, for every game and preset (the session that
``arena play`` runs; its options are :mod:`board_arena.arena.cli.play`'s).

Nothing a person types can crash the session: every entry is a command or a move, and anything
else is refused with the reason before the prompt comes back. End of input (Ctrl-D) and Ctrl-C
end the game cleanly, and the game record is saved in every case.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from typing import Callable

from board_arena import agents, engines
from board_arena.arena.tournament.clock import GameClock, TimeControl
from board_arena.arena.tournament.movelog import search_entry
from board_arena.commandline import interrupt_handled
from board_arena.engines.endgame import perfect_play_words
from board_arena.engines.style import Style
from board_arena.ugi.host import EngineFault, UgiEngine

__all__ = ["PlaySession"]

COMMANDS = """Commands: a move, or moves (numbered list; then a number picks one), hint, undo, board,
help, quit."""

#: Seconds an agent may overrun its clock before it loses on time (the arena's default
#: ``--tc-margin``): its budget keeps a tenth of the clock in hand, but a search stops only at
#: its next check. A person has no margin.
AGENT_MARGIN = 1.0


class PlaySession:
    """One game between a person (reading ``read_line``, writing ``write``) and an agent."""

    def __init__(
        self,
        game: engines.Game,
        opponent_spec: str,
        human_seat: int,
        seed: int,
        style: Style,
        record_path: str,
        read_line: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        time_control: TimeControl | None = None,
        now: Callable[[], float] = time.monotonic,
    ):
        self.game = game
        self.opponent_spec = opponent_spec
        self.opponent = agents.make_agent(opponent_spec, seed=seed)
        self.opponent.check_game(game)
        if self.opponent.sees_everything and not game.perfect_information:
            raise ValueError(f"{self.opponent.name} sees your hidden tiles; choose an honest opponent (see arena list)")
        self.human = human_seat
        self.seed = seed
        self.style = style.for_colors(game.notation.player_colors)
        self.record_path = record_path
        self.read_line = read_line
        self.write = write
        self.state = game.new_initial_state(seed)
        self.undo_stack: list[engines.State] = []  # the position before each of the person's moves
        self.listed: list[int] | None = None
        self.shown_ply = -1  # the ply of the position last drawn: each is drawn once
        # What the agent's search reported, by the ply of its move (arena.tournament.movelog entries); an
        # undo rewinds the ply, and the replies played after it overwrite their entries.
        self.searches: dict[int, list] = {}
        self.time_control = time_control
        self.clock = GameClock(time_control) if time_control is not None else None
        self.now = now
        self.lost_on_time: int | None = None  # the seat whose clock ran out
        self.failure: str | None = None  # why the agent lost by failing (an engine program's fault)

    # -- display -------------------------------------------------------------------------------

    def name(self, seat: int) -> str:
        who = "you" if seat == self.human else self.opponent_spec
        return f"{self.game.player_names[seat]} ({who})"

    def show_board(self) -> None:
        self.shown_ply = self.state.ply
        self.write("")
        style = self.style
        self.write(self.game.notation.render_for(self.state, self.human, style))
        if self.clock is not None and not self.state.is_terminal():
            shown = [f"{self.name(seat)} {_clock_text(self.clock.remaining[seat])}" for seat in (0, 1)]
            self.write("Clocks: " + ", ".join(shown))

    def show_help(self) -> None:
        self.write("")
        self.write(self.style.bold(f"{self.game.name}: how to play"))
        self.write(self.game.notation.help_text() or "Type a move as listed by the moves command.")
        self.write(f"You play {self.game.player_names[self.human]}, against {self.opponent_spec}.")
        self.write(COMMANDS)

    def show_moves(self) -> None:
        seen = self._human_view()
        moves = seen.legal_moves()
        self.listed = moves
        names = [f"{i}. {seen.format_move(m)}" for i, m in enumerate(moves, start=1)]
        width = max(len(n) for n in names) + 2
        per_line = max(1, 78 // width)
        self.write(f"Your legal moves ({len(moves)}):")
        for start in range(0, len(names), per_line):
            self.write("  " + "".join(n.ljust(width) for n in names[start : start + per_line]).rstrip())

    def _human_view(self) -> engines.State:
        return self.state if self.game.perfect_information else self.state.view(self.human)

    # -- turns ---------------------------------------------------------------------------------

    def human_turn(self) -> bool:
        """Reads entries until the person moves (True) or quits (False); under a clock, the
        person's time runs from here to the move."""
        started = self.now()
        while True:
            prompt = self.style.player(self.human, f"{self.game.player_names[self.human]} (you) > ", bold=True)
            entry = self.read_line(prompt).strip()
            command = entry.lower()
            if not entry:
                continue
            if command in ("quit", "exit", "q"):
                return False
            if command in ("help", "h", "?"):
                self.show_help()
            elif command in ("moves", "m", "list"):
                self.show_moves()
            elif command == "board":
                self.show_board()
            elif command == "hint":
                self.hint()
            elif command == "undo":
                self.undo()
            elif command.isascii() and command.isdigit() and self.listed is not None:
                index = int(command)
                if 1 <= index <= len(self.listed):
                    return self.play_human(self.listed[index - 1], started)
                self.write(f"There is no move {index}: the list has 1 to {len(self.listed)}.")
            else:
                try:
                    move = self._human_view().parse_move(entry)
                    return self.play_human(move, started)
                except ValueError as error:
                    self.write(f"Not played: {error}. (Type moves for the list, help for the rules.)")

    def play_human(self, move: int, started: float) -> bool:
        """Plays the person's ``move``, chosen in a turn that began at ``started``; False if
        their clock ran out first (the move is not played: the game is lost on time)."""
        if self.clock is not None and not self.clock.charge(self.human, self.now() - started):
            self.lost_on_time = self.human
            self.write(self.style.bold("Your clock ran out before your move: you lose on time."))
            return False
        before = self.state.copy()
        self.searches.pop(self.state.ply, None)  # the agent's reply here before an undo, if any
        text = self.game.notation.format_move(self.state, move)
        self.state.apply(move)  # legal: parsed and checked in the person's view
        self.undo_stack.append(before)
        self.listed = None
        drawn = _new_in_hand(before, self.state, self.human)
        self.write(f"You play {text}: you drew {', '.join(drawn)}." if drawn else f"You play {text}.")
        if not self.state.is_terminal():
            self.show_board()  # the position after your move, before the agent's reply
        return True

    def hint(self) -> None:
        adviser = agents.make_agent(self.opponent_spec, seed=self.seed + len(self.undo_stack) + 1)
        self.write("Thinking about your move...")
        try:
            found = adviser.search(self._human_view())
        except EngineFault as error:
            self.write(f"No hint: {error}")
            return
        finally:
            if isinstance(adviser, UgiEngine):
                adviser.close()
        self.write(f"Hint: {self._human_view().format_move(found.move)} ({found.summary()})")
        known = perfect_play_words(self.state) if self.game.perfect_information else None
        if known is not None:
            self.write(f"The endgame database: {known}.")

    def undo(self) -> None:
        if self.clock is not None:
            self.write("No undo in a game under a clock: a move played stays played.")
            return
        if not self.undo_stack:
            self.write("Nothing to undo: you have not moved yet.")
            return
        self.state = self.undo_stack.pop()
        self.listed = None
        self.write("Took back your last move and the reply.")
        self.show_board()

    def agent_turn(self) -> bool:
        """The agent's move; False if its clock ran out first (the game is lost on time)."""
        seat = self.state.current_player
        self.write(f"{self.name(seat)} is thinking...")
        limit = None
        if self.clock is not None:  # its own budget, capped by its share of the clock
            limit = replace(
                self.opponent.limit,
                remaining=self.clock.remaining[seat],
                increment=self.clock.control.increment,
                moves_to_go=self.clock.moves_to_go(seat),
                opponent_remaining=self.clock.remaining[1 - seat],
            )
        started = self.now()
        try:
            found = self.opponent.search(self.opponent.observe(self.state, seat), limit)
        except EngineFault as error:  # the engine program loses the game, as in the arena
            self.failure = str(error)
            self.write(self.style.bold(f"{self.name(seat)} failed: {error}"))
            return False
        if self.clock is not None and not self.clock.charge(seat, self.now() - started, AGENT_MARGIN):
            self.lost_on_time = seat
            self.write(self.style.bold(f"{self.name(seat)} ran out of time: it loses on time."))
            return False
        self.searches[self.state.ply] = search_entry(seat, found)
        text = self.game.notation.format_move(self.state, found.move)
        self.state.apply(found.move)
        self.write(self.style.player(seat, f"{self.name(seat)} plays {text}", bold=True) + f"  [{found.summary()}]")
        return True

    def _start_engine(self, engine: UgiEngine) -> None:
        """Starts the engine program before any clock runs; one that fails to start loses."""
        try:
            engine.begin_game()
        except EngineFault as error:
            self.failure = str(error)
            self.write(self.style.bold(f"{self.opponent_spec} failed: {error}"))

    # -- the game ------------------------------------------------------------------------------

    def run(self) -> int:
        self.write(
            f"{self.game.name}, seed {self.seed}: you play {self.game.player_names[self.human]}, "
            f"against {self.opponent_spec}."
        )
        leader = self.state.current_player
        why = self.game.first_player_reason(self.state, self.human)
        if leader != 0 and why is not None:  # dominoes: the greatest tile leads
            self.write(f"{self.name(leader)} moves first: {why}.")
        self.write(
            "Type help for the rules and commands, moves for your legal moves. After each of the "
            "agent's moves comes what its search found; a value is the agent's own view, from -1 "
            "(it expects to lose) to +1 (it expects to win)."
        )
        quitted = True  # unless the game reaches its end (or a clock runs out)
        try:
            self.opponent.warm_up(self.game)
            if isinstance(self.opponent, UgiEngine):
                self._start_engine(self.opponent)
            while self.failure is None and not self.state.is_terminal():
                if self.state.current_player == self.human:
                    if self.shown_ply != self.state.ply:
                        self.show_board()
                    if not self.human_turn():
                        break
                elif not self.agent_turn():
                    break
            else:
                quitted = False
        except (EOFError, KeyboardInterrupt):
            interrupt_handled()
            self.write("")
        finally:
            self.finish(quitted and self.lost_on_time is None and self.failure is None)  # the record is saved whatever ended the game, once a move was made
            if isinstance(self.opponent, UgiEngine):
                self.opponent.close()
        return 0

    def finish(self, quitted: bool) -> None:
        if quitted and self.state.ply == 0:
            self.write("Game ended before the first move: no record saved.")
            return
        if self.shown_ply != self.state.ply:
            self.show_board()  # its last line is the result at the end of a game
        timing = {} if self.time_control is None else {"time_control": self.time_control.spec}
        if quitted:
            plies = self.state.ply
            self.write(f"Game ended by you after {plies} move{'s' if plies != 1 else ''}.")
        elif self.lost_on_time is not None:
            timing["end_reason"] = f"lost on time by {self.name(self.lost_on_time)}"  # arena replay says it
            self.write(self.style.bold("You win on time!" if self.lost_on_time != self.human else "The agent wins on time."))
        elif self.failure is not None:
            timing["end_reason"] = f"lost by {self.opponent_spec}: {self.failure}"
            self.write(self.style.bold("You win: the agent failed."))
        else:
            winner = self.state.winner
            verdict = "It's a draw." if winner is None else ("You win!" if winner == self.human else "The agent wins.")
            self.write(self.style.bold(verdict))
        record = self.state.record(
            players=[("human" if s == self.human else self.opponent_spec) for s in (0, 1)],
            finished=not quitted,
            **timing,
            # One entry per ply: the agent's search, or null for the person's moves.
            searches=[self.searches.get(ply) for ply in range(self.state.ply)],
        )
        try:
            os.makedirs(os.path.dirname(self.record_path) or ".", exist_ok=True)
            with open(self.record_path, "w", encoding="utf-8") as handle:
                handle.write(record.to_json() + "\n")
        except OSError as error:
            self.write(f"Could not save the game record to {self.record_path} ({error.strerror}); here it is:")
            self.write(record.to_json())
            return
        self.write(f"Game record saved to {self.record_path} (replay it: arena replay {self.record_path})")


def _clock_text(seconds: float) -> str:
    """A clock as people read one: ``4:05.3``, ``0:00.0`` once it has run out."""
    tenths = max(0, round(seconds * 10))
    return f"{tenths // 600}:{tenths // 10 % 60:02d}.{tenths % 10}"


def _new_in_hand(before: engines.State, after: engines.State, player: int) -> list[str]:
    """The pieces that came into ``player``'s hand with a move (a tile drawn), as the player's
    view shows them; none in a game without hands."""
    if before.game.perfect_information:
        return []
    had = before.view(player).board().get("hands") or [None, None]
    has = after.view(player).board().get("hands") or [None, None]
    if had[player] is None or has[player] is None:
        return []
    return [piece for piece in has[player] if piece not in had[player]]
