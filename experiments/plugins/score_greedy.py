"""A plugin agent in plain Python (no numba): ``score-greedy`` plays the move after which the
mover's score margin is largest (the store difference in Kalah, the captured stones in the mill
games), a winning move first, ties broken at random.

It shows how an agent of your own joins the arena: subclass ``agents.Agent``, name it, and
register it; then give the file to any command with ``--plugin``. Whatever the agent keeps
between moves (here a generator of its own) is set up in ``reset``, which the arena calls with a
seed before each game: a reused agent must play as a fresh one of that seed.

    arena run --game kalah --agents score-greedy,greedy,random --plugin experiments/plugins/score_greedy.py
    arena play --game kalah --opponent score-greedy --plugin experiments/plugins/score_greedy.py

The agent uses only the game contract's Python face (``legal_moves``, ``copy``, ``apply``,
``is_terminal``, ``outcome``, ``score``), so it plays every perfect-information game.
"""

from __future__ import annotations

import random

from board_arena import agents
from board_arena.agents import Agent, SearchInfo


@agents.register_agent
class ScoreGreedyAgent(Agent):
    name = "score-greedy"
    summary = "one ply: the largest score margin for the mover, a win first (plain Python plugin)"

    def reset(self, seed: int | None = None) -> None:
        # Python's own generator, seeded from the agent's seed: the same seed plays the same game.
        # (Agent.__init__ calls reset with the seed; the arena calls it before each game.)
        super().reset(seed)
        if seed is not None:
            self._random = random.Random(self.seed)

    def _select(self, state, limit):
        me = state.current_player
        sign = 1 if me == 0 else -1  # score() and outcome() are seat 0's
        best, chosen = None, []
        for move in state.legal_moves():
            child = state.copy()
            child.apply(move)
            if child.is_terminal():
                value = (sign * child.outcome() * 10**6, 0)  # a result outweighs any margin
            else:
                value = (0, sign * child.score())
            if best is None or value > best:
                best, chosen = value, [move]
            elif value == best:
                chosen.append(move)
        return SearchInfo(move=self._random.choice(chosen), depth=1)
