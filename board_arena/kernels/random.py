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

__all__ = ["rng_from_seed", "rng_step", "rng_next", "rng_below", "bits_below", "rng_uniform", "mix64", "unmix64", "rng_state_for"]

_GOLDEN = np.uint64(0x9E37_79B9_7F4A_7C15)
_MIX1 = np.uint64(0xBF58_476D_1CE4_E5B9)
_MIX2 = np.uint64(0x94D0_49BB_1331_11EB)
_U30 = np.uint64(30)
_U27 = np.uint64(27)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U11 = np.uint64(11)
_U54 = np.uint64(54)
_U60 = np.uint64(60)
_U62 = np.uint64(62)
# The multipliers' inverses modulo 2**64 (they are odd), for running the finaliser backwards.
_MIX1_INVERSE = np.uint64(pow(int(_MIX1), -1, 2**64))
_MIX2_INVERSE = np.uint64(pow(int(_MIX2), -1, 2**64))


def rng_from_seed(seed: int) -> np.ndarray:
    """A fresh generator state (``uint64[1]``) for ``seed`` (any Python int)."""
    mixed = hashlib.blake2b(str(int(seed)).encode(), digest_size=8).digest()
    return np.frombuffer(mixed, dtype=np.uint64).copy()


@kernel(inline="always")
def mix64(z):
    """The splitmix64 finaliser: a bijection of uint64 that spreads every input bit over the
    output (also the engines' hash mixer)."""
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@kernel(inline="always")
def unmix64(z):
    """The inverse of :func:`mix64`: each xor-shift undone by a second one (a shift of half the
    word or more undoes itself), each multiplication by the multiplier's inverse.

        >>> import numpy as np
        >>> int(unmix64(mix64(np.uint64(2024))))
        2024
    """
    z ^= (z >> _U31) ^ (z >> _U62)
    z *= _MIX2_INVERSE
    z ^= (z >> _U27) ^ (z >> _U54)
    z *= _MIX1_INVERSE
    z ^= (z >> _U30) ^ (z >> _U60)
    return z


@kernel(inline="always")
def rng_state_for(k, n):
    """A generator state (``rng[0]``) whose next ``rng_below(rng, n)`` is ``k`` (0 <= k < n <
    2**32): the one whose next 64 bits are ``ceil(k * 2**32 / n) << 32``. A test of a draw's
    uniformity makes every value this way, once each (``engines.conformance``).

        >>> import numpy as np
        >>> rng = np.array([rng_state_for(4, 6)], np.uint64)
        >>> rng_below(rng, 6)
        4
    """
    z = ((np.uint64(k) << _U32) + np.uint64(n - 1)) // np.uint64(n) << _U32
    return unmix64(z) - _GOLDEN


@kernel(inline="always")
def rng_step(x):
    """The generator on a state held in a local variable: ``(next state, 64 random bits)``.

    A loop that draws at every step (a playout) reads ``rng[0]`` once, steps a local copy and
    writes it back at the end: the state stays in a register, where a store at every draw would
    make the compiler reload whatever it cannot prove untouched. ``rng_next(rng)`` is
    ``rng_step(rng[0])`` with the state written back, so both give the same numbers.
    """
    x += _GOLDEN
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
