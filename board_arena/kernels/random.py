"""Random numbers inside kernels: splitmix64 (Steele, Lea and Flood, "Fast splittable
pseudorandom number generators", OOPSLA 2014).

The state is one ``uint64`` held in a ``uint64[1]`` array that the caller owns and passes in, so
that a seed reproduces everything drawn from it: no kernel seeds or reads a global generator.

    >>> from board_arena.kernels import rng_below, rng_from_seed
    >>> first, second = rng_from_seed(7), rng_from_seed(7)
    >>> [rng_below(first, 6) for _ in range(4)] == [rng_below(second, 6) for _ in range(4)]
    True
"""

from __future__ import annotations

import hashlib

import numpy as np

from board_arena.kernels.cache import JIT_DISABLED, kernel

__all__ = ["rng_from_seed", "rng_step", "rng_next", "rng_below", "bits_below", "rng_uniform", "mix64", "GOLDEN", "MIX1", "MIX2"]

#: splitmix64's constants: the step of the state (the golden ratio's 64 bits), and the two
#: multipliers of the finaliser (odd, so that a test can invert the mix).
GOLDEN = np.uint64(0x9E37_79B9_7F4A_7C15)
MIX1 = np.uint64(0xBF58_476D_1CE4_E5B9)
MIX2 = np.uint64(0x94D0_49BB_1331_11EB)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U11 = np.uint64(11)


def rng_from_seed(seed: int) -> np.ndarray:
    """A fresh generator state (``uint64[1]``) for ``seed`` (any Python int)."""
    mixed = hashlib.blake2b(str(int(seed)).encode(), digest_size=8).digest()
    return np.frombuffer(mixed, dtype=np.uint64).copy()


@kernel(inline="always")
def mix64(z):
    """The splitmix64 finaliser: a bijection of uint64 that spreads every input bit over the
    output (also the engines' hash mixer)."""
    z = (z ^ (z >> _U30)) * MIX1
    z = (z ^ (z >> _U27)) * MIX2
    return z ^ (z >> _U31)


@kernel(inline="always")
def rng_step(x):
    """The generator on a state held in a local variable: ``(next state, 64 random bits)``.

    A loop that draws at every step (a playout) reads ``rng[0]`` once, steps a local copy and
    writes it back at the end: the state stays in a register, where a store at every draw would
    make the compiler reload whatever it cannot prove untouched. ``rng_next(rng)`` is
    ``rng_step(rng[0])`` with the state written back, so both give the same numbers.
    """
    x += GOLDEN
    return x, mix64(x)


@kernel(inline="always")
def bits_below(bits, n):
    """Uniform int in [0, n) for 0 < n < 2**32 from 64 random ``bits`` (Lemire's multiply-shift of
    the top 32 bits, without rejection: each value's probability is off by less than n / 2**32)."""
    return np.int64(((bits >> _U32) * np.uint64(n)) >> _U32)


@kernel(inline="always")
def rng_next(rng):
    """Next 64 random bits. rng: uint64[1], advanced in place."""
    rng[0], bits = rng_step(rng[0])
    return bits


@kernel(inline="always")
def rng_below(rng, n):
    """Uniform int in [0, n) for 0 < n < 2**32 (:func:`bits_below` of :func:`rng_next`)."""
    return bits_below(rng_next(rng), n)


@kernel(inline="always")
def rng_uniform(rng):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(rng_next(rng) >> _U11) * (1.0 / 9007199254740992.0)


if JIT_DISABLED:
    # Pure-Python mode runs the kernels on numpy scalars, which warn on the uint64 wrap-around
    # that the generator and the hashes rely on; compiled code wraps silently.
    np.seterr(over="ignore")
