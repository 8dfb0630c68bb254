"""One of our agents as a UGI engine: :class:`UGIEngine` reads UGI commands line by line and
writes its replies (``arena engine`` runs it on standard input and output).

What it does with each command:

================  ================================================================================
``ugi``           ``id name``, ``id author``, an ``option`` per agent parameter and ``Seed``, ``ugiok``
                  (nothing is compiled before ``isready``)
``isready``       the first one compiles (or loads from numba's cache) the agent's kernels for the
                  game; ``readyok``
``setoption``     an agent parameter (the agent is made again with it) or ``Seed``
``uginewgame``    the agent forgets the last game and is re-seeded with ``Seed``: every game of a
                  session plays as the first one would
``position``      ``startpos``, ``fen`` or, for Dominoes, ``deal`` (:mod:`board_arena.ugi.dominoes`),
                  then ``moves``; a malformed one or an illegal move is reported (``info string``
                  and standard error) and leaves no position
``go``            searches in a thread with the ``go`` budget (the mover's clock, ``movetime``,
                  ``depth``, ``nodes``), or the agent's own when ``go`` gives none; ``info`` with
                  depth, nodes, score, time, nps and the move chosen as the pv; ``bestmove``
``go infinite``   searches in rounds, each a time-limited search of the agent (the first
                  ``FIRST_ROUND`` seconds, each next one twice as long, at most ``LONGEST_ROUND``),
                  an ``info`` line after each, until ``stop``
``stop``          ends ``go infinite`` at the end of its current round with the last round's move; a
                  search with a budget is not cut short (a compiled search cannot be interrupted):
                  its ``bestmove`` comes when it ends
``query``         ``gameover``, ``p1turn``, ``result`` by our rules
``quit``          exits at once (a search with a budget is abandoned); at the end of the input the
                  search under way ends first
================  ================================================================================

Unknown commands are ignored, as UCI engines do (a note on standard error). Every reply line is
flushed at once. Replies come from the thread that reads the commands, which a compiled search
holds off only while it is inside a kernel (the searches hold Python's interpreter lock).
"""

from __future__ import annotations

import sys
import threading
from dataclasses import replace
from typing import IO, Iterable

from board_arena.agents import (
    Agent,
    Limit,
    SearchInfo,
    agent_class,
    make_agent,
    parse_spec,
)
from board_arena.engines import Game, State, shown
from board_arena.ugi import protocol
from board_arena.ugi.protocol import UGIError

__all__ = ["UGIEngine", "FIRST_ROUND", "LONGEST_ROUND", "AUTHOR", "SEED_OPTION"]

#: The first round of ``go infinite``, in seconds; each next round is twice as long.
FIRST_ROUND = 0.05
#: The longest round of ``go infinite``: what ``stop`` may wait.
LONGEST_ROUND = 1.0
AUTHOR = "board-arena"
SEED_OPTION = "Seed"
_MAX_SEED = 2**63 - 1


class UGIEngine:
    """A UGI engine playing ``game`` with the agent ``spec``, seeded with ``seed``; writes to
    ``out`` (replies) and ``err`` (notes).

    Raises:
        ValueError: an unknown agent, a bad parameter, or an agent that cannot play the game.
    """

    def __init__(self, game: Game, spec: str, seed: int, out: IO[str] | None = None, err: IO[str] | None = None):
        self.game = game
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.seed = int(seed)
        name, params = parse_spec(spec)
        self.params: dict[str, str] = dict(params)
        self.agent_name = name
        self.agent = self._make_agent()
        self.state: State | None = None if game.random_start else game.new_initial_state()
        self._write_lock = threading.Lock()
        self._search: threading.Thread | None = None
        #: The last position command and the state it gave, kept to play only what the next adds.
        self._last_position: tuple[protocol.Position, State] | None = None
        self._stop = threading.Event()
        self._ready = False
        self._infinite = False
        #: True from a ``go`` to its ``bestmove``.
        self._busy = False

    def _make_agent(self) -> Agent:
        spec = self.agent_name + (":" + ",".join(f"{k}={v}" for k, v in self.params.items()) if self.params else "")
        agent = make_agent(spec, seed=self.seed)
        agent.check_game(self.game)
        return agent

    # -- output --------------------------------------------------------------------------------

    def say(self, line: str) -> None:
        """Writes one reply line and flushes it."""
        with self._write_lock:
            self.out.write(line + "\n")
            self.out.flush()

    def note(self, text: str) -> None:
        """Reports a problem: an ``info string`` for the host and a line on standard error."""
        text = " ".join(text.split())
        self.say(f"info string {text}")
        with self._write_lock:
            self.err.write(f"arena engine: {text}\n")
            self.err.flush()

    # -- the loop ------------------------------------------------------------------------------

    def run(self, lines: Iterable[str]) -> bool:
        """Handles ``lines`` until ``quit`` or their end. An infinite search is stopped and its
        ``bestmove`` written. At the end of the input a search with a budget ends and writes its
        ``bestmove`` (a script piped in gets its answer); after ``quit`` it is left to its
        thread (a compiled search cannot be interrupted: the caller exits without it). Returns
        True when such a search is still running."""
        quit_sent = False
        for line in lines:
            if not self.handle(line):
                quit_sent = True
                break
        self._stop.set()
        if self._search is not None and (self._infinite or not quit_sent):
            self._search.join()
        return self._searching()

    def handle(self, line: str) -> bool:
        """Handles one command line; False after ``quit``."""
        words = protocol.tokens(line)
        if not words:
            return True
        command = words[0]
        try:
            if command == "quit":
                return False
            handler = _COMMANDS.get(command)
            if handler is None:
                with self._write_lock:
                    self.err.write(f"arena engine: unknown command {shown(command)} ignored\n")
                    self.err.flush()
                return True
            handler(self, words)
        except UGIError as error:
            self.note(str(error))
        except ValueError as error:  # a bad option value, a view that does not fit
            self.note(f"{command}: {error}")
        except Exception as error:  # whatever else goes wrong costs this command, not the engine
            self.note(f"{command} failed: {type(error).__name__}: {error}")
        return True

    def _ugi(self, words: list[str]) -> None:
        self.say(f"id name {self.agent.spec} ({self.game.name}, board-arena)")
        self.say(f"id author {AUTHOR}")
        for param in agent_class(self.agent_name).PARAMS:
            self.say(protocol.option_line(replace(param, default=self.agent.params[param.name])))
        self.say(f"option name {SEED_OPTION} type spin default {self.seed} min 0 max {_MAX_SEED}")
        self.say("ugiok")

    def _isready(self, words: list[str]) -> None:
        if not self._ready and not self._searching():
            self.agent.warm_up(self.game)
            self._ready = True
        self.say("readyok")

    def _setoption(self, words: list[str]) -> None:
        name, value = protocol.parse_setoption(words)
        if self._searching():
            raise UGIError(f"setoption {name} while searching: ignored (send stop and wait for bestmove)")
        if name.lower() == SEED_OPTION.lower():
            if not value.isdigit() or int(value) > _MAX_SEED:
                raise UGIError(f"setoption {SEED_OPTION}: {shown(value)} is not an integer from 0 to {_MAX_SEED}")
            self.seed = int(value)
            self.agent.reset(self.seed)
            return
        by_name = {p.name.lower(): p.name for p in agent_class(self.agent_name).PARAMS}
        if name.lower() not in by_name:
            raise UGIError(f"setoption: {self.agent_name} has no option {shown(name)}; options: {', '.join([*by_name.values(), SEED_OPTION])}")
        params = dict(self.params, **{by_name[name.lower()]: value})
        previous = self.params
        self.params = params
        try:
            self.agent = self._make_agent()
        except ValueError:
            self.params = previous
            raise
        self._ready = False

    def _uginewgame(self, words: list[str]) -> None:
        if self._searching():
            raise UGIError("uginewgame while searching: ignored (send stop and wait for bestmove)")
        self.agent.reset(self.seed)
        self.state = None if self.game.random_start else self.game.new_initial_state()

    def _position(self, words: list[str]) -> None:
        if self._searching():
            raise UGIError("position while searching: ignored (send stop and wait for bestmove)")
        self.state = None
        position = protocol.parse_position(words)
        last = self._last_position
        self._last_position = None
        if (
            last is not None and self.game.perfect_information and (position.start, position.fen) == (last[0].start, last[0].fen)
            and position.moves[: len(last[0].moves)] == last[0].moves
        ):
            # A host sends the whole game before each move: only the moves added since the last
            # position are played (a game of n moves then costs n moves, not n^2 / 2).
            state = protocol.apply_moves(last[1].copy(), position.moves[len(last[0].moves):])
        else:
            state = protocol.state_from_position(self.game, position)
        self.state = state
        self._last_position = (position, state.copy())

    def _query(self, words: list[str]) -> None:
        if len(words) != 2:
            raise UGIError(f"expected query {'|'.join(protocol.QUESTIONS)}")
        if self.state is None:
            raise UGIError(f"query {words[1]}: no position (send position first)")
        self.say(protocol.query_response(self.state, words[1]))

    def _go(self, words: list[str]) -> None:
        if self._searching():
            raise UGIError("go while searching: ignored")
        state = self.state
        if state is None or state.is_terminal():
            self.note("go: no position to move in" if state is None else "go: the game is over")
            self.say("bestmove (none)")
            return
        try:
            request = protocol.go_limit(words, mover=state.current_player)
        except UGIError as error:
            self.note(f"{error}; searching with the agent's own budget")
            request = protocol.GoRequest(None, "infinite" in words)
        if state.viewer is not None and state.viewer != state.current_player:
            self.note(f"go: the seat's view is of seat {state.viewer}, but seat {state.current_player} is to move")
            self.say("bestmove (none)")
            return
        self._stop.clear()
        self._infinite = request.infinite
        target = self._search_infinite if request.infinite else self._search_once
        self._search = threading.Thread(target=target, args=(state.copy(), request.limit), daemon=True)
        self._busy = True
        self._search.start()

    def _stop_search(self, words: list[str]) -> None:
        self._stop.set()

    def wait(self) -> None:
        """Waits for the search under way, if any, to write its ``bestmove``."""
        if self._search is not None:
            self._search.join()

    def _searching(self) -> bool:
        return self._busy

    # -- searches (in their thread) ------------------------------------------------------------

    def _search_once(self, state: State, limit: Limit | None) -> None:
        info = self._searched(state, limit)
        self._bestmove(state, info)

    def _bestmove(self, state: State, info: SearchInfo | None) -> None:
        """Ends the search: from here on commands are taken again (a host sends its next
        position as soon as it reads the ``bestmove``)."""
        self._busy = False
        self.say(f"bestmove {'(none)' if info is None else state.format_move(info.move)}")

    def _search_infinite(self, state: State, limit: Limit | None) -> None:
        best: SearchInfo | None = None
        seconds = FIRST_ROUND
        while not self._stop.is_set():
            info = self._searched(state, Limit(time=seconds))
            if info is None:
                break
            best = info
            seconds = min(LONGEST_ROUND, 2 * seconds)
        self._bestmove(state, best)

    def _searched(self, state: State, limit: Limit | None) -> SearchInfo | None:
        """One search, its ``info`` line written; None (and a note) if the agent failed."""
        try:
            info = self.agent.search(state, limit)
            name = state.format_move(info.move)
        except Exception as error:  # a misbehaving agent costs its move, not the engine
            self.note(f"the agent failed: {type(error).__name__}: {error}")
            return None
        self.say(protocol.info_line(info, pv=[name]))
        return info


_COMMANDS = {
    "ugi": UGIEngine._ugi,
    "isready": UGIEngine._isready,
    "setoption": UGIEngine._setoption,
    "uginewgame": UGIEngine._uginewgame,
    "position": UGIEngine._position,
    "go": UGIEngine._go,
    "stop": UGIEngine._stop_search,
    "query": UGIEngine._query,
}
