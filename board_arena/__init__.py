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

import gc as _gc


class _CollectorPaused:
    """Python's cyclic garbage collector paused while a subpackage imports numba, numpy and its
    kernels: that makes a few hundred thousand objects that live as long as the process, and the
    collector, run about 130 times meanwhile, would free nothing for a fifth of the import's CPU
    time. It is left as it was found (nested pauses leave it to the outermost)."""

    def __enter__(self) -> None:
        self._was_collecting = _gc.isenabled()
        _gc.disable()

    def __exit__(self, *exc_info: object) -> None:
        if self._was_collecting:
            _gc.enable()
