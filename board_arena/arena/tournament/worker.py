"""Playing the games of a tournament: a :class:`GamePlayer` per worker (a process of the local
pool, a Ray actor, or the run's own process) builds the game once, warms every agent's kernels up
once, and plays each scheduled game with agents it keeps and resets between games.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numba.core import event as numba_event

from board_arena import agents, engines
from board_arena.agents.plugins import load_plugins
from board_arena.arena.tournament.adjudication import Adjudicator, Verdict
from board_arena.arena.tournament.clock import GameClock
from board_arena.arena.tournament.live import LiveWriter
from board_arena.arena.tournament.movelog import (
    logging_moves,
    opening_entry,
    search_entry,
)
from board_arena.arena.tournament.settings import ScheduledGame, TournamentSettings
from board_arena.arena.tournament.store import GameResult
from board_arena.ugi.host import EngineFault, UgiEngine, register_engines

__all__ = [
    "GamePlayer",
    "TurnBoard",
    "Turn",
    "forfeit",
    "play_scheduled_game",
    "warm_up_agents",
    "warm_up_game",
    "start_worker_process",
    "die_with_parent",
]

#: Agents a player keeps at most (the least recently used goes first): every agent of a round
#: robin of up to this many, while a larger one keeps its memory bounded (an alpha-beta holds a
#: table of 16 MiB by default).
MAX_KEPT_AGENTS = 16
#: Plies of a game a :class:`TurnBoard` holds; a longer game's death is not blamed on an agent.
MAX_POSTED_PLIES = 1 << 16


@dataclass(frozen=True)
class Turn:
    """What a :class:`TurnBoard` showed: the game a worker was playing, the seat whose agent was
    searching (None between searches) since ``started`` (``time.monotonic``, the same clock in
    every process of the machine) and for at most ``allowed`` seconds (None: no limit), and the
    game so far (its move ids from the start, opening included; each seat's time and moves)."""

    game: int
    seat: int | None
    started: float
    allowed: float | None
    move_ids: tuple[int, ...]
    seconds: tuple[float, float]
    moves: tuple[int, int]

    def overdue(self, now: float) -> bool:
        """Whether the searching agent has had more than its time (the margin included)."""
        return self.seat is not None and self.allowed is not None and now > self.started + self.allowed


class TurnBoard:
    """Shared memory where a worker process posts, as it plays, which game it plays, which
    agent is searching and until when, and the moves so far: when the worker dies or hangs, the
    run's process reads there whose search it was and scores that game (:class:`WorkerPool`),
    as cutechess and fastchess score an engine that crashes or hangs. A few stores into shared
    memory per move: nothing next to a search."""

    _GAME, _SEAT, _STARTED, _ALLOWED, _TIME0, _TIME1, _MOVES0, _MOVES1, _PLIES = range(9)

    def __init__(self, context: Any = None, capacity: int = MAX_POSTED_PLIES):
        import multiprocessing

        context = context or multiprocessing
        self.header = context.RawArray(ctypes.c_double, 9)
        self.move_ids = context.RawArray(ctypes.c_int32, capacity)
        self.header[self._GAME] = -1

    def begin(self, game: int, move_ids: tuple[int, ...]) -> None:
        """A game starts (``move_ids``: its opening)."""
        header = self.header
        header[self._GAME] = -1  # no half-written game is ever read as one
        header[self._SEAT] = -1
        header[self._TIME0] = header[self._TIME1] = header[self._MOVES0] = header[self._MOVES1] = 0.0
        header[self._PLIES] = 0
        for move in move_ids:
            self.played(move)
        header[self._GAME] = game

    def searching(self, seat: int, allowed: float | None) -> None:
        """The agent of ``seat`` starts its search, for at most ``allowed`` seconds."""
        header = self.header
        header[self._STARTED] = time.monotonic()
        header[self._ALLOWED] = -1.0 if allowed is None else allowed
        header[self._SEAT] = seat

    def searched(self, seat: int, seconds: float) -> None:
        """The agent of ``seat`` has answered, after ``seconds`` of thinking this game."""
        self.header[self._SEAT] = -1
        self.header[self._TIME0 + seat] = seconds
        self.header[self._MOVES0 + seat] += 1

    def played(self, move: int) -> None:
        plies = int(self.header[self._PLIES])
        if plies < len(self.move_ids):
            self.move_ids[plies] = move
        self.header[self._PLIES] = plies + 1

    def end(self) -> None:
        self.header[self._GAME] = -1

    def read(self) -> Turn | None:
        """What the board shows (None between games, or when the game is longer than it holds)."""
        header = list(self.header)
        plies = int(header[self._PLIES])
        if header[self._GAME] < 0 or plies > len(self.move_ids):
            return None
        seat = int(header[self._SEAT])
        return Turn(
            game=int(header[self._GAME]),
            seat=None if seat < 0 else seat,
            started=header[self._STARTED],
            allowed=None if header[self._ALLOWED] < 0 else header[self._ALLOWED],
            move_ids=tuple(self.move_ids[:plies]),
            seconds=(header[self._TIME0], header[self._TIME1]),
            moves=(int(header[self._MOVES0]), int(header[self._MOVES1])),
        )


class GamePlayer:
    """Plays scheduled games of one tournament in this process.

    The game is built once. Each agent of the tournament is built once, when it first plays, and
    reset with its seeds before each game (:meth:`agents.Agent.reset`), which makes it play as a
    fresh agent with those seeds would: the result of a game depends on the settings and the
    game only, never on the process or on the games played before, so runs are reproducible at
    any concurrency.

    Example:
        >>> from board_arena import arena
        >>> settings = arena.TournamentSettings.create("kalah:pits=3,seeds=2", ["random", "greedy"], games=2)
        >>> player = GamePlayer(settings)
        >>> first = [player.play(g).moves for g in settings.schedule()]
        >>> first == [player.play(g).moves for g in settings.schedule()]  # the same agents, reset
        True
    """

    def __init__(self, settings: TournamentSettings, game: engines.Game | None = None, warm_up: bool = True):
        self.settings = settings
        self.game = game or settings.make_game()
        #: The budget that replaces the agents' own (``--move-time``), or None.
        self.limit = agents.Limit(time=settings.move_time) if settings.move_time else None
        #: Where the player posts whose search it is (set in a worker process: arena.tournament.pool).
        self.board: TurnBoard | None = None
        self._agents: OrderedDict[int, agents.Agent] = OrderedDict()  # by index in settings.agents
        #: Publishes each game's moves as it is played (arena.tournament.live), when set.
        self.live: LiveWriter | None = None
        #: The endgame database that perfect-play adjudication reads (built in the cache folder
        #: when missing: the run's process builds it before its workers start, see run_tournament).
        self.adjudication_database = settings.adjudication.load_database(self.game) if settings.adjudication else None
        #: The folder of the engines' protocol logs (board_arena.ugi.host), when the run has one,
        #: and whether every engine logs there (``--ugi-log``) or those whose definition asks.
        self.engine_log_dir: str | None = None
        self.log_every_engine = False
        if warm_up:
            warm_up_agents(settings, self.game)
            warm_up_game(self.game)
            if settings.adjudication is not None and self.adjudication_database is not None:
                # The oracle's lookup compiled before any game.
                Adjudicator(settings.adjudication, self.game, settings.labels[:2], self.adjudication_database).position(
                    self.game.new_initial_state(0))

    def _agent(self, index: int, seed: int) -> agents.Agent:
        """Agent ``index`` of the settings, reset with ``seed``."""
        agent = self._agents.pop(index, None)
        if agent is None:
            agent = agents.make_agent(self.settings.agents[index], seed=seed)
        else:
            agent.reset(seed)
        self._agents[index] = agent  # the most recently used last
        if len(self._agents) > MAX_KEPT_AGENTS:
            self._agents.popitem(last=False)
        return agent

    def play(self, scheduled: ScheduledGame) -> GameResult:
        """Plays one game of the schedule.

        An agent that fails (raises, returns an illegal move, or takes more than the move time
        plus the margin, ``settings.tc_margin``, or lets its clock fall below minus the margin)
        loses the game, with the reason recorded and score 0. Under a time control each side's
        clock (:class:`arena.tournament.clock.GameClock`) starts when the agents take over (an opening's
        plies are free), and every search is given its agent's own budget (or the move time)
        with the mover's clock (:class:`agents.Limit`). An error of the engine itself is not
        the agent's fault and stops the run
        (``end_reason`` is ``"rules"`` for every game that ended by the rules, ``"ply cap"`` for a
        game stopped as a draw by the variant's ply cap). Under the run's adjudication rules
        (arena.tournament.adjudication) a game whose result is clear ends early, with an end
        reason that begins ``adjudicated:``: a position the perfect-play oracle knows before a
        search, the score rules after each agent's move. An agent that crashes its process or
        hangs is scored by the pool, from what :attr:`board` shows (arena.tournament.pool).
        """
        settings, game = self.settings, self.game
        specs = [settings.agents[scheduled.players[seat]] for seat in (0, 1)]
        seats = [self._agent(scheduled.players[seat], scheduled.agent_seeds[seat]) for seat in (0, 1)]
        # The opening (arena.tournament.openings) is played before the agents take over, and is part of the moves.
        state, opening = settings.start_position(scheduled, game)
        names = [name for _, name in opening]
        thinking = [0.0, 0.0]
        chosen = [0, 0]
        end_reason = "rules"
        result: float | None = None  # seat 0's, once the game is lost by a failure or over
        # What each search reported, one entry per ply (arena.tournament.movelog); moves played before the
        # agents took over (an opening) have none.
        searches = [opening_entry(seat) for seat, _ in opening] if logging_moves() else None
        labels = [settings.labels[scheduled.players[seat]] for seat in (0, 1)]
        board = self.board
        if board is not None:
            board.begin(scheduled.id, state.history)
        clock = GameClock(settings.time_control) if settings.time_control else None
        adjudicator = (Adjudicator(settings.adjudication, game, labels, self.adjudication_database)
                       if settings.adjudication else None)
        verdict: Verdict | None = None
        # Engine programs start (or start a new game) before any clock runs; one that fails
        # loses the game at its first move (a game is lost by the player to move).
        failed_start: list[Exception | None] = [None, None]
        for seat, engine in enumerate(seats):
            if isinstance(engine, UgiEngine):
                try:
                    engine.begin_game(self._engine_log(engine, scheduled, seat), settings.tc_margin)
                except Exception as error:
                    failed_start[seat] = error
        while not state.is_terminal():
            if adjudicator is not None and (verdict := adjudicator.position(state)) is not None:
                break
            mover = state.current_player
            if self.live is not None:
                self.live.position(scheduled.id, labels, scheduled.game_seed, names, mover)
            agent = seats[mover]
            limit, allowed = self._budget(agent, clock, mover)
            start = time.perf_counter()
            agent.last_search = None  # an agent that reports nothing must not repeat its last report
            if board is not None:
                board.searching(mover, allowed)
            try:
                failure = failed_start[mover]
                if failure is not None:
                    raise failure
                with UserInterrupts():
                    move = agent.select_move(agent.observe(state, mover), limit)
            except UserInterrupt:
                raise KeyboardInterrupt from None  # the person's Ctrl-C stops the run as ever
            except BaseException as error:  # an agent's failure, however it ends, costs only its game
                end_reason = f"error in seat {mover} ({specs[mover]}): {failure_words(error)}"
            finally:
                took = time.perf_counter() - start
                thinking[mover] += took
                chosen[mover] += 1
                if board is not None:
                    board.searched(mover, thinking[mover])
            if end_reason == "rules" and settings.move_time and took > settings.move_time + settings.tc_margin:
                end_reason = lost_on_time(mover, specs[mover], took, settings)
            if end_reason == "rules" and clock is not None and not clock.charge(mover, took, settings.tc_margin):
                end_reason = lost_on_time(mover, specs[mover], took, settings, clock.remaining[mover])
            if end_reason == "rules":
                # Checked once here; the move is then applied without a second check.
                why = game.illegal_reason(state, move)
                if why is not None:
                    end_reason = f"illegal move {move} by seat {mover} ({specs[mover]}): {why}"
            if end_reason != "rules":
                result = -1.0 if mover == 0 else 1.0
                break
            names.append(game.notation.format_move(state, move))
            if searches is not None:
                searches.append(search_entry(mover, agent.last_search))
            state.apply_legal(move)
            if board is not None:
                board.played(move)
            if adjudicator is not None and not state.is_terminal():
                reported = agent.last_search.value if agent.last_search is not None else None
                if (verdict := adjudicator.moved(mover, reported, len(names))) is not None:
                    break
        for agent in seats:
            if isinstance(agent, UgiEngine):
                agent.end_game()
        if board is not None:
            board.end()
        if self.live is not None:
            self.live.position(scheduled.id, labels, scheduled.game_seed, names, None)
        score = 0  # a game lost by a failure, drawn by the ply cap or adjudicated by the score rules
        if verdict is not None:
            result, end_reason, score = verdict.result, verdict.reason, verdict.score
        elif result is None:  # the game is over
            result = state.outcome() or 0.0
            if state.end_reason == engines.PLY_CAP:  # a draw by a bound for machines, counted apart
                end_reason = engines.PLY_CAP
            else:
                score = state.score()
        return GameResult(
            **_who_and_seeds(settings, scheduled),
            moves=names,
            result=result,
            score=score,
            plies=len(names),
            time0=thinking[0],
            time1=thinking[1],
            moves0=chosen[0],
            moves1=chosen[1],
            end_reason=end_reason,
            searches=searches,
            move_ids=list(state.history),  # the opening's and the agents' moves, as played
        )

    def close(self) -> None:
        """Quits the engine programs among its agents (the other agents hold nothing to close)."""
        for agent in self._agents.values():
            if isinstance(agent, UgiEngine):
                agent.close()

    def _engine_log(self, engine: UgiEngine, scheduled: ScheduledGame, seat: int) -> str | None:
        """Where ``engine`` writes its protocol log of game ``scheduled`` in ``seat`` (None: no log)."""
        if self.engine_log_dir is None or not (self.log_every_engine or engine.definition.log):
            return None
        return os.path.join(self.engine_log_dir, f"game-{scheduled.id:06d}-seat{seat}-{engine.name}.log")

    def _budget(self, agent: agents.Agent, clock: GameClock | None, seat: int) -> tuple[agents.Limit | None, float | None]:
        """What ``seat``'s agent is given for its move: the limit (None: its own budget) and the
        longest its search may take before it loses on time (None: no limit)."""
        settings = self.settings
        allowed = settings.move_time + settings.tc_margin if settings.move_time else None
        if clock is None:
            return self.limit, allowed
        limit = replace(
            self.limit or agent.limit,
            remaining=clock.remaining[seat],
            increment=clock.control.increment,
            moves_to_go=clock.moves_to_go(seat),
            opponent_remaining=clock.remaining[1 - seat],
        )
        on_clock = clock.remaining[seat] + settings.tc_margin
        return limit, on_clock if allowed is None else min(allowed, on_clock)


def failure_words(error: BaseException) -> str:
    """What an agent's search ended with, for its game's end reason: the exception's type and
    message (``RuntimeError: boom``, ``MemoryError``), how it tried to end the process
    (``exited with status 0 in its search``), or an engine program's fault as the host words it."""
    if isinstance(error, SystemExit):
        return f"exited with status {error.code if error.code is not None else 0} in its search"
    if isinstance(error, KeyboardInterrupt):
        return "raised KeyboardInterrupt in its search"
    if isinstance(error, EngineFault):  # the host's own account of an engine program's fault
        return str(error)
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


class UserInterrupt(BaseException):
    """A Ctrl-C that came while an agent searched (:class:`UserInterrupts`)."""


class UserInterrupts:
    """Tells the person's Ctrl-C from an agent's own ``KeyboardInterrupt`` while it searches in
    the main thread: SIGINT, when handled by Python (the run's process), is caught here and
    raised as :class:`UserInterrupt` once the search is over, or at once through the handler
    that was in place. In a worker process, which ignores SIGINT, every ``KeyboardInterrupt``
    is the agent's."""

    def __init__(self) -> None:
        self.previous: Any = None
        self.received = False

    def __enter__(self) -> "UserInterrupts":
        if threading.current_thread() is threading.main_thread():
            previous = signal.getsignal(signal.SIGINT)
            if callable(previous):
                self.previous = previous
                signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        self.received = True
        self.previous(signum, frame)

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
        if self.received:  # raised through the handler, or dropped on the way (ctypes drops some)
            raise UserInterrupt


def lost_on_time(seat: int, spec: str, seconds: float, settings: TournamentSettings, clock: float | None = None) -> str:
    """The end reason of a game lost on time by ``seat`` after a search of ``seconds``: past the
    move time and the margin, or, given its ``clock`` after the move, past the time control's."""
    if clock is not None:
        assert settings.time_control is not None
        return (
            f"lost on time in seat {seat} ({spec}): its clock fell to {clock:.3g} s after a move of {seconds:.3g} s "
            f"(time control {settings.time_control.spec}, margin {settings.tc_margin:g} s)"
        )
    return (
        f"lost on time in seat {seat} ({spec}): {seconds:.3g} s for a move of {settings.move_time:g} s "
        f"(margin {settings.tc_margin:g} s)"
    )


def forfeit(settings: TournamentSettings, game: engines.Game, scheduled: ScheduledGame, turn: Turn, end_reason: str) -> GameResult:
    """The game ``turn`` shows, lost by the seat whose search it was (its agent crashed its
    worker process or hung), with ``end_reason``; its moves are those played before."""
    assert turn.seat is not None
    state = game.new_initial_state(scheduled.game_seed)
    names = []
    for move in turn.move_ids:
        names.append(game.notation.format_move(state, move))
        state.apply_legal(move)
    seconds = list(turn.seconds)
    seconds[turn.seat] += max(0.0, time.monotonic() - turn.started)
    return GameResult(
        **_who_and_seeds(settings, scheduled),
        moves=names,
        result=-1.0 if turn.seat == 0 else 1.0,
        score=0,
        plies=len(names),
        time0=seconds[0],
        time1=seconds[1],
        moves0=turn.moves[0] + (turn.seat == 0),
        moves1=turn.moves[1] + (turn.seat == 1),
        end_reason=end_reason,
        move_ids=list(turn.move_ids),
    )


def _who_and_seeds(settings: TournamentSettings, scheduled: ScheduledGame) -> dict[str, Any]:
    """The fields of a scheduled game's record that the schedule decides: its id, the agents in
    each seat (label and spec) and the seeds."""
    labels = [settings.labels[scheduled.players[seat]] for seat in (0, 1)]
    specs = [settings.agents[scheduled.players[seat]] for seat in (0, 1)]
    return dict(id=scheduled.id, player0=labels[0], player1=labels[1], spec0=specs[0], spec1=specs[1],
                game_seed=scheduled.game_seed, seed0=scheduled.agent_seeds[0], seed1=scheduled.agent_seeds[1])


def play_scheduled_game(settings: TournamentSettings, scheduled: ScheduledGame, game: engines.Game | None = None) -> GameResult:
    """One game of the schedule with fresh agents (:meth:`GamePlayer.play`; a worker keeps its
    player, and so its game and agents, from game to game)."""
    return GamePlayer(settings, game, warm_up=False).play(scheduled)


def warm_up_agents(settings: TournamentSettings, game: engines.Game) -> None:
    """Compiles (or loads) every agent's kernels for the game. An agent that fails here fails
    again in its games, where the failure is recorded as a loss; so it does not stop the run."""
    for spec in dict.fromkeys(settings.agents):
        try:
            agents.make_agent(spec).warm_up(game)
        except Exception:
            pass


def warm_up_game(game: engines.Game) -> None:
    """Compiles (or loads) the game's own kernels that a player calls around the agents' moves
    (legal moves, the legality check, notation both ways, views, the result), by one random game
    played the way :meth:`GamePlayer.play` and the openings play."""
    rng = np.random.default_rng(0)
    state = game.new_initial_state(0)
    while not state.is_terminal():
        if not game.perfect_information:
            state.view(state.current_player)
        moves = state.legal_moves()
        move = int(moves[rng.integers(len(moves))])
        game.illegal_reason(state, move)
        state.parse_move(game.notation.format_move(state, move))
        state.copy().apply_legal(move)
        state.apply_legal(move)
    state.outcome()
    state.score()


class CompileCounter(numba_event.Listener):
    """Counts the numba compilations of this process from :meth:`start` to :meth:`stop`, to
    check that a warmed-up worker compiles nothing more (``count`` is expected to stay 0)."""

    def __init__(self) -> None:
        self.count = 0

    def on_start(self, event: numba_event.Event) -> None:
        self.count += 1

    def on_end(self, event: numba_event.Event) -> None:
        pass

    def start(self) -> "CompileCounter":
        numba_event.register("numba:compile", self)
        return self

    def stop(self) -> None:
        numba_event.unregister("numba:compile", self)


def start_worker_process(
    settings_json: str, live_dir: str | None = None, board: TurnBoard | None = None,
    engine_logs: tuple[str | None, bool] = (None, False),
) -> tuple[GamePlayer, CompileCounter]:
    """What a worker process (of the local pool, or a Ray actor) does first: ask to die with its
    parent, load the run's plugins, register its engine programs, build its player (the game, every agent's kernels; publishing
    its games in ``live_dir`` when given, see :mod:`arena.tournament.live`; posting its turns on ``board``
    when given; its engines' protocol logs in ``engine_logs``, the folder and whether every
    engine logs, see :attr:`GamePlayer.engine_log_dir`) and then count the kernels compiled
    from there on (expected: none)."""
    die_with_parent()
    # A spawned worker or an actor has none of the parent's plugins yet (a forked one has them);
    # the installed packages' agents load at the first name not known (agents.agent_class).
    load_plugins(json.loads(settings_json).get("plugins", ()))
    register_engines(json.loads(settings_json).get("ugi_engines", ()))  # the run's engine programs, by name
    player = GamePlayer(TournamentSettings.from_json(settings_json))
    player.live = LiveWriter(live_dir) if live_dir else None
    player.board = board
    player.engine_log_dir, player.log_every_engine = engine_logs
    return player, CompileCounter().start()  # for the life of the process


def die_with_parent() -> None:
    """On Linux, asks the kernel to kill this worker when the process that started it dies
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)``), so that a killed run leaves no orphan playing on."""
    if sys.platform != "linux":
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


_PR_SET_PDEATHSIG = 1
