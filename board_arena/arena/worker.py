"""Playing the games of a tournament, in worker processes that warm up once."""

from __future__ import annotations

import ctypes
import json
import signal
import sys
import time

from numba.core import event as numba_event

from board_arena import agents, engines
from board_arena.arena.movelog import logging_moves, opening_entries, search_entry
from board_arena.arena.openings import start_position
from board_arena.arena.settings import ScheduledGame, TournamentSettings
from board_arena.arena.store import GameResult

__all__ = ["play_scheduled_game", "warm_up_agents", "init_worker", "compilations_since_warm_up"]


def play_scheduled_game(settings: TournamentSettings, scheduled: ScheduledGame, game=None) -> GameResult:
    """Plays one game of the schedule with fresh agents seeded for it; the result depends on the
    settings and the game only (never on the process or the order), so runs are reproducible.

    An agent that fails (raises, or returns an illegal move) loses the game, with the reason
    recorded and score 0; an error of the engine itself is not the agent's fault and stops the
    run (``end_reason`` is ``"rules"`` for every game that ended by the rules, ``"ply cap"`` for
    a game stopped as a draw by the variant's ply cap).
    """
    game = game or settings.make_game()
    seats = [
        agents.make_agent(settings.agents[scheduled.players[seat]], seed=scheduled.agent_seeds[seat])
        for seat in (0, 1)
    ]
    limit = agents.Limit(time=settings.move_time) if settings.move_time else None
    # The opening (arena.openings) is played before the agents take over, and is part of the moves.
    state, names = start_position(settings, scheduled, game)
    thinking = [0.0, 0.0]
    chosen = [0, 0]
    end_reason = "rules"
    result = None
    # What each search reported, one entry per ply (arena.movelog); moves played before the agents
    # took over (an opening) have none.
    logging = logging_moves()
    searches = opening_entries(game, scheduled.game_seed, names) if logging else None
    while not state.is_terminal():
        mover = state.current_player
        start = time.perf_counter()
        seats[mover].last_search = None  # an agent that reports nothing must not repeat its last report
        try:
            move = seats[mover].select_move(seats[mover].observe(state, mover), limit)
        except Exception as error:  # an agent's failure must not stop the tournament
            end_reason = f"error in seat {mover} ({settings.agents[scheduled.players[mover]]}): {error}"
        finally:
            thinking[mover] += time.perf_counter() - start
            chosen[mover] += 1
        if end_reason == "rules" and not state.is_legal(move):
            end_reason = f"illegal move {move} by seat {mover} ({settings.agents[scheduled.players[mover]]})"
        if end_reason != "rules":
            result = -1.0 if mover == 0 else 1.0
            break
        names.append(game.format_move(state, move))
        if searches is not None:
            searches.append(search_entry(mover, seats[mover].last_search))
        state.apply(move)
    if result is None:
        result = state.outcome()
        if state.end_reason == engines.PLY_CAP:  # a draw by a bound for machines, counted apart
            end_reason = engines.PLY_CAP
    return GameResult(
        id=scheduled.id,
        player0=settings.labels[scheduled.players[0]],
        player1=settings.labels[scheduled.players[1]],
        spec0=settings.agents[scheduled.players[0]],
        spec1=settings.agents[scheduled.players[1]],
        game_seed=scheduled.game_seed,
        seed0=scheduled.agent_seeds[0],
        seed1=scheduled.agent_seeds[1],
        moves=names,
        result=float(result),
        score=state.score() if end_reason == "rules" else 0,
        plies=len(names),
        time0=thinking[0],
        time1=thinking[1],
        moves0=chosen[0],
        moves1=chosen[1],
        end_reason=end_reason,
        searches=searches,
    )


def warm_up_agents(settings: TournamentSettings, game) -> None:
    """Compiles (or loads) every agent's kernels for the game. An agent that fails here fails
    again in its games, where the failure is recorded as a loss; so it does not stop the run."""
    for spec in dict.fromkeys(settings.agents):
        try:
            agents.make_agent(spec).warm_up(game)
        except Exception:
            pass


class _CompileCounter(numba_event.Listener):
    """Counts numba compilations, to check that a warmed-up worker compiles nothing more."""

    count = 0

    def on_start(self, event):
        _CompileCounter.count += 1

    def on_end(self, event):
        pass


_WORKER: dict = {}


def init_worker(settings_json: str) -> None:
    """Process-pool initializer: builds the game and compiles (or loads from cache) every agent's
    kernels once, before any game's clock runs; from then on counts compilations (expected: 0)."""
    _die_with_parent()
    # A spawned worker has none of the parent's plugins yet (a forked one has them already).
    from board_arena.agents.plugins import load_entry_points, load_plugins

    load_entry_points()
    load_plugins(json.loads(settings_json).get("plugins", ()))
    settings = TournamentSettings.from_json(settings_json)
    game = settings.make_game()
    warm_up_agents(settings, game)
    _WORKER["settings"] = settings
    _WORKER["game"] = game
    numba_event.register("numba:compile", _CompileCounter())


def _die_with_parent() -> None:
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


def compilations_since_warm_up() -> int:
    """Kernels compiled in this worker after its warm-up (by the games)."""
    return _CompileCounter.count

