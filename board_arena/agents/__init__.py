"""Agents: every search written once against the game contract and run in compiled code.

    >>> from board_arena import agents, engines
    >>> agents.available_agents()
    ['random', 'greedy', 'minimax', 'alphabeta', 'mcts', 'pimc', 'ismcts', 'cheat', 'td-kalah', 'solver', 'az']
    >>> game = engines.make("kalah")
    >>> final = agents.play_game(game, [agents.make_agent("mcts:iterations=200", seed=1),
    ...                                 agents.make_agent("random", seed=2)], seed=0)
    >>> final.is_terminal()
    True

Spec syntax, everywhere (Python, the arena command): ``name`` or ``name:key=value,...``, e.g.
``mcts:iterations=2000,c=1.4``, ``alphabeta:depth=6``, ``alphabeta:time=0.5``.
"""

from __future__ import annotations

from typing import Sequence

from board_arena._collector import CollectorPaused

with CollectorPaused():  # see board_arena._collector
    # Importing the modules registers their agents, in this order (the order of listings).
    # isort: off
    from board_arena.agents import simple  # noqa: F401
    from board_arena.agents import minimax  # noqa: F401
    from board_arena.agents import alphabeta  # noqa: F401
    from board_arena.agents import mcts  # noqa: F401
    from board_arena.agents import hidden  # noqa: F401
    from board_arena.engines.mancala import learned  # noqa: F401  (td-kalah: Mancala's own agent)
    from board_arena.agents import solver  # noqa: F401
    from board_arena.agents import az  # noqa: F401
    # isort: on
    from board_arena.agents.base import (
        Agent,
        Limit,
        SearchInfo,
        agent_class,
        available_agents,
        make_agent,
        parse_spec,
        register_agent,
    )
    from board_arena.agents.params import AgentParam
    from board_arena.agents.plugins import load_plugin
    from board_arena.engines import Game, State

__all__ = [
    "Agent",
    "AgentParam",
    "Limit",
    "SearchInfo",
    "make_agent",
    "available_agents",
    "agent_class",
    "parse_spec",
    "register_agent",
    "load_plugin",
    "play_game",
]


def play_game(game: Game, players: Sequence[Agent], seed: int | None = None) -> State:
    """Plays one game between ``players[0]`` (player 0) and ``players[1]``; returns the final
    state. Each agent sees only what its player may see (the view, in a hidden-information game).

    Raises:
        ValueError: an agent cannot play this game.
    """
    for agent in players:
        agent.check_game(game)
        agent.reset()
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        mover = state.current_player
        state.apply(players[mover].select_move(players[mover].observe(state, mover)))
    return state
