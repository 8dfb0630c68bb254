"""board-arena: fast game engines, search agents and a rated tournament arena for Morabaraba,
Mancala, Konane and Dominoes.

The four parts, each a subpackage imported on its own (importing this package loads nothing):

- :mod:`board_arena.engines`: the games, numba kernels behind one contract, and their Python face;
- :mod:`board_arena.agents`: minimax, alpha-beta, MCTS, the exact solver and the
  hidden-information agents, written once against the contract;
- :mod:`board_arena.arena`: tournaments, ratings, reports, the terminal and browser boards;
- :mod:`board_arena.envs`: learning environments (batched, PettingZoo, Gymnasium).

    >>> from board_arena import engines, agents
    >>> state = engines.make("kalah").new_initial_state()
    >>> state.legal_move_names()
    ['a', 'b', 'c', 'd', 'e', 'f']
    >>> agents.make_agent("alphabeta:depth=4", seed=1).select_move(state) in state.legal_moves()
    True
"""

__all__ = ["engines", "agents", "arena", "envs"]
