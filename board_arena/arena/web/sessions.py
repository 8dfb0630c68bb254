"""One game on ``arena serve``: its state, who sits where, what the agents said, and the search
under way for it, if any (at most one per game: an agent's move or a hint, run by the server's
:class:`arena.web.searches.SearchPool`).

Every method here is called with the session's ``lock`` held, and none waits for a search: a
request thread starts a search, lets the lock go while it waits for the ticket, then takes the
lock again to play what the agent found, if the game is still where it was.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from board_arena import engines
from board_arena.arena.web.runs import drawing_data
from board_arena.arena.web.searches import (
    AgentPolicy,
    SearchBusy,
    SearchJob,
    SearchPool,
    Ticket,
    move_seed,
)
from board_arena.engines.endgame import perfect_play_words
from board_arena.engines.game import State

__all__ = ["GameSession", "RequestError", "DEFAULT_OPPONENTS"]

#: The opponent offered first, by perfect information (strong, about half a second a move).
DEFAULT_OPPONENTS = {True: "alphabeta:time=0.5", False: "ismcts:time=0.5"}


class RequestError(ValueError):
    """A bad request: its HTTP status and a one-line reason."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True)
class SeatAgent:
    """An agent seated in a game: its spec (within the server's policy), whether it sees hidden
    tiles, and the longest a search of it may run."""

    spec: str
    sees_everything: bool
    seconds_allowed: float


def seat_agent(spec: str, game: engines.Game, policy: AgentPolicy) -> SeatAgent:
    """The agent of ``spec`` for ``game``, checked against the policy and the game.

    Raises:
        ValueError: the spec is refused (one line).
    """
    agent = policy.check(spec)  # made once here to check it; the workers make their own
    agent.check_game(game)
    return SeatAgent(spec.strip(), agent.sees_everything, policy.seconds_allowed(agent))


class GameSession:
    """A game the server holds; see the module docstring for its locking."""

    def __init__(self, game: engines.Game, seats: list[str | None], seed: int, policy: AgentPolicy):
        self.game = game
        self.seed = seed
        self.specs = [None if spec is None else spec.strip() for spec in seats]
        self.policy = policy
        humans = [seat for seat, spec in enumerate(seats) if spec is None]
        if len(humans) == 2:
            raise RequestError(400, "at least one seat must be an agent (seats: [spec or null, spec or null])")
        self.agents: list[SeatAgent | None] = []
        for spec in seats:
            if spec is None:
                self.agents.append(None)
                continue
            agent = seat_agent(spec, game, policy)
            if agent.sees_everything and not game.perfect_information and humans:
                raise RequestError(400, f"{spec} sees your hidden tiles; choose an honest opponent")
            self.agents.append(agent)
        self.human = humans[0] if humans else None
        self.state = game.new_initial_state(seed)
        self.undo_stack: list[tuple[State, int]] = []  # position and log length before each person's move
        self.log: list[dict[str, Any]] = []  # every move: player, notation, search summary
        self.lock = threading.Lock()
        self.last_used = time.monotonic()
        #: The search under way for this game (an agent's move or a hint), and its kind.
        self.search: Ticket | None = None
        self.search_kind: str | None = None
        #: Requests waiting for the search: when the last one goes away, nobody wants it.
        self.waiters = 0

    # -- what the page sees --------------------------------------------------------------------

    def seen_state(self) -> State:
        """The person's view in a hidden-information game that goes on; the whole state otherwise
        (a spectator sees both hands, as on television)."""
        if self.game.perfect_information or self.human is None or self.state.is_terminal():
            return self.state
        return self.state.view(self.human)

    def reveals_all(self) -> bool:
        """True when the page may know everything (seed, record): nothing is hidden, nobody
        plays in person, or the game is over."""
        return self.game.perfect_information or self.human is None or self.state.is_terminal()

    def view(self, session_id: str) -> dict[str, Any]:
        """What the page draws: the board, the moves as clicks, what to mark and say."""
        state = self.state
        seen = self.seen_state()
        game = self.game
        terminal = state.is_terminal()
        to_move = None if terminal else state.current_player
        human_turn = to_move is not None and to_move == self.human
        moves = [{"name": seen.format_move(m), "clicks": game.web.move_clicks(seen, m)} for m in seen.legal_moves()] if human_turn else []
        return {
            "id": session_id,
            "game": self.game.name,
            "family": self.game.family,
            "params": dict(self.game.params),
            # The seed of a hidden-information game holds the deal: a person sees it at the end.
            "seed": self.seed if self.reveals_all() else None,
            "record_ready": self.reveals_all(),
            "seats": self.specs,
            "human": self.human,
            **drawing_data(seen),
            "status": game.status_line(state),
            "moves": moves,
            "prompts": _prompts(seen, moves),
            "buttons": [list(button) for button in game.web.buttons],
            "agent_to_move": to_move is not None and self.agents[to_move] is not None,
            "thinking": self.search is not None and self.search_kind == "agent",
            "log": self.log,
            "can_undo": bool(self.undo_stack) and not self._revealed_hidden(),
            "result": self._result() if terminal else None,
        }

    def _result(self) -> str:
        text = self.game.result_text(self.state)
        reason = self.state.end_reason
        if self.human is not None:
            winner = self.state.winner
            verdict = "Draw." if winner is None else ("You win!" if winner == self.human else "The agent wins.")
            text = f"{verdict} {text}"
        return f"{text}; {reason}" if reason and reason not in text else text

    # -- the person's actions ------------------------------------------------------------------

    def play_person(self, body: dict, pool: SearchPool) -> None:
        state = self.state
        if state.is_terminal():
            raise RequestError(409, "the game is over")
        if state.current_player != self.human:
            raise RequestError(409, "it is not your turn: the agent is to move")
        seen = self.seen_state()
        if "move" in body:
            text = body["move"]
            if not isinstance(text, str) or not text.strip() or len(text) > 200:
                raise RequestError(400, "move must be a non-empty string in the game's notation")
        elif "clicks" in body:
            clicks = body["clicks"]
            if not isinstance(clicks, list) or not clicks or len(clicks) > 20 or not all(isinstance(c, str) and len(c) < 20 for c in clicks):
                raise RequestError(400, "clicks must be a non-empty list of board element names")
            try:
                text = self.game.web.move_from_clicks(seen, clicks)
            except ValueError as error:
                raise RequestError(422, str(error)) from None
        else:
            raise RequestError(400, 'give {"move": "<notation>"} or {"clicks": [...]}')
        try:
            move = seen.parse_move(text)
            if not seen.is_legal(move):
                raise engines.IllegalMoveError(self.game.illegal_reason(seen, move) or "illegal")
        except ValueError as error:
            raise RequestError(422, f"{text}: {error}") from None
        self.stop_search(pool, "the person moved")  # a hint nobody needs now
        before = state.copy()
        name = state.format_move(move)
        state.apply(move)
        self.undo_stack.append((before, len(self.log)))
        self.log.append({"player": before.current_player, "move": name, "by": "you", "summary": None})

    def _revealed_hidden(self) -> bool:
        """True when a hidden-information game played in person is over: the page has shown both
        hands and the deal's seed, so taking a move back would let the person play on knowing
        them."""
        return not self.game.perfect_information and self.human is not None and self.state.is_terminal()

    def undo(self, pool: SearchPool) -> None:
        """Takes back the person's last move and what the agent played since (stopping the
        agent's search if it is thinking); refused once a game with hidden tiles is over."""
        if not self.undo_stack:
            raise RequestError(409, "nothing to undo: you have not moved yet")
        if self._revealed_hidden():
            raise RequestError(409, "the game is over and both hands were shown: start a new game to play again")
        self.stop_search(pool, "the move was taken back")
        self.state, length = self.undo_stack.pop()
        del self.log[length:]

    def record(self) -> str:
        if not self.reveals_all():
            raise RequestError(409, "the record of a game with hidden tiles is given at the end: it holds the deal")
        players = [spec or "human" for spec in self.specs]
        return self.state.record(players=players, finished=self.state.is_terminal()).to_json() + "\n"

    # -- searches ------------------------------------------------------------------------------

    def start_agent_move(self, pool: SearchPool) -> Ticket:
        """The search for the agent to move (the one under way, if any: one per game).

        Raises:
            RequestError: the game is over, it is the person's turn, or every search slot is taken.
        """
        state = self.state
        if state.is_terminal():
            raise RequestError(409, "the game is over")
        seat = state.current_player
        agent = self.agents[seat]
        if agent is None:
            raise RequestError(409, "it is your turn, not the agent's")
        if self.search is not None and self.search_kind == "agent":
            return self.search
        job = SearchJob.of(state, seat, agent.spec, move_seed(self.seed, seat, state.ply))
        return self._submit(pool, job, agent.seconds_allowed, "agent")

    def finish_agent_move(self, ticket: Ticket) -> None:
        """Plays what the search of ``ticket`` found.

        Raises:
            RequestError: the search failed or was stopped, or the game moved on meanwhile.
        """
        if ticket.consumed and ticket.info is not None:
            return  # another request waiting for the same search has played it
        info = self._outcome(ticket)
        state = self.state
        seat = state.current_player
        why = self.game.illegal_reason(state, info.move)
        if why is not None:
            raise RequestError(422, f"{self.specs[seat]} chose an illegal move: {why}")
        name = state.format_move(info.move)
        state.apply_legal(info.move)
        self.log.append({"player": seat, "move": name, "by": self.specs[seat], "summary": info.summary()})

    def start_hint(self, pool: SearchPool) -> Ticket:
        """A search for the person's move by their opponent's agent (or the default one).

        Raises:
            RequestError: not the person's turn, or every search slot is taken.
        """
        if self.human is None or self.state.is_terminal() or self.state.current_player != self.human:
            raise RequestError(409, "a hint is for your turn")
        if self.search is not None and self.search_kind == "hint":
            return self.search
        opponent = self.agents[1 - self.human]
        default = DEFAULT_OPPONENTS[self.game.perfect_information]
        if opponent is None or opponent.sees_everything:
            try:
                opponent = seat_agent(default, self.game, self.policy)
            except ValueError as error:
                raise RequestError(409, f"no adviser within the server's limits: {error}") from None
        job = SearchJob.of(self.state, self.human, opponent.spec, move_seed(self.seed, self.human, self.state.ply, hint=True))
        return self._submit(pool, job, opponent.seconds_allowed, "hint")

    def finish_hint(self, ticket: Ticket) -> dict[str, Any]:
        info = ticket.info if ticket.consumed and ticket.info is not None else self._outcome(ticket)
        seen = self.seen_state()
        known = perfect_play_words(self.state) if self.game.perfect_information else None
        summary = info.summary() + (f"; the endgame database: {known}" if known is not None else "")
        return {"move": seen.format_move(info.move), "clicks": self.game.web.move_clicks(seen, info.move), "summary": summary}

    def stop_search(self, pool: SearchPool, reason: str) -> None:
        """Stops the search under way, if any (its worker is free when this returns)."""
        if self.search is not None:
            pool.stop(self.search, reason)
            self.search = self.search_kind = None

    def _submit(self, pool: SearchPool, job: SearchJob, seconds: float, kind: str) -> Ticket:
        try:
            ticket = pool.submit(job, seconds)
        except SearchBusy as error:
            raise RequestError(503, str(error)) from None
        self.search, self.search_kind = ticket, kind
        return ticket

    def _outcome(self, ticket: Ticket) -> Any:
        """The search's report, once it is this game's current search and has ended well."""
        current = self.search is ticket
        if current:
            self.search = self.search_kind = None
        ticket.consumed = True
        if ticket.stopped or not current:
            raise RequestError(409, ticket.error or "the search was stopped: the game moved on")
        if ticket.error is not None or ticket.info is None:
            raise RequestError(422, ticket.error or "the search failed")
        return ticket.info


def _prompts(state: State, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The game's words for the clicks made so far, for each start of a legal move's clicks
    that has any (``game.web.click_prompt``)."""
    starts = sorted({tuple(m["clicks"][:i]) for m in moves for i in range(1, len(m["clicks"]))})
    prompts = []
    for clicks in starts:
        text = state.game.web.click_prompt(state, list(clicks))
        if text:
            prompts.append({"clicks": list(clicks), "text": text})
    return prompts
