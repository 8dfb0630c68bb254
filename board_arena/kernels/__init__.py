"""The kernel toolkit: what every compiled function of the project is built with, and what a
game, an agent or an environment written outside the package imports to build its own.

* :func:`kernel`: ``numba.njit`` with the project's defaults, cached in a folder named by the
  sources it was compiled from (:mod:`board_arena.kernels.cache`), so that no edit ever leaves
  stale machine code running;
* random numbers from a state the caller owns (:mod:`board_arena.kernels.random`);
* a monotonic clock for time budgets (:mod:`board_arena.kernels.clock`);
* bit counting on ``uint64`` bitboards (:mod:`board_arena.kernels.bits`).

    >>> import numpy as np
    >>> from board_arena.kernels import kernel, popcount, rng_below, rng_from_seed
    >>> @kernel
    ... def random_board(rng):
    ...     board = np.uint64(0)
    ...     for _ in range(8):
    ...         board |= np.uint64(1) << np.uint64(rng_below(rng, 64))
    ...     return board
    >>> popcount(random_board(rng_from_seed(1))) <= 8
    True
"""

from board_arena.kernels.bits import (
    FAST_PDEP,
    SELECT_IN_BYTE,
    broadword_nth_set_bit,
    lowest_bit_index,
    nth_set_bit,
    popcount,
)
from board_arena.kernels.cache import (
    JIT_DISABLED,
    cache_folder,
    caching_disabled,
    forget_compiled_code,
    kernel,
)
from board_arena.kernels.clock import CLOCK_FAILED, deadline_after, monotonic_ns
from board_arena.kernels.random import (
    bits_below,
    mix64,
    rng_below,
    rng_from_seed,
    rng_next,
    rng_state_for,
    rng_step,
    rng_uniform,
    unmix64,
)

__all__ = [
    "kernel",
    "JIT_DISABLED",
    "cache_folder",
    "caching_disabled",
    "forget_compiled_code",
    "rng_from_seed",
    "rng_step",
    "rng_next",
    "rng_below",
    "bits_below",
    "rng_uniform",
    "rng_state_for",
    "unmix64",
    "mix64",
    "monotonic_ns",
    "deadline_after",
    "CLOCK_FAILED",
    "popcount",
    "lowest_bit_index",
    "nth_set_bit",
    "broadword_nth_set_bit",
    "FAST_PDEP",
    "SELECT_IN_BYTE",
]
