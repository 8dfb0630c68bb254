"""Bit counting on ``uint64`` bitboards inside kernels, as single machine instructions where the
CPU has them (LLVM's ``ctpop``, ``cttz`` and BMI2's ``pdep``); pure-Python mode uses Python ints.

    >>> import numpy as np
    >>> from board_arena.kernels import lowest_bit_index, nth_set_bit, popcount
    >>> board = np.uint64(0b1011_0100)
    >>> popcount(board), lowest_bit_index(board), nth_set_bit(board, 2)
    (4, 2, 5)
"""

from __future__ import annotations

import platform
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from board_arena.kernels.cache import JIT_DISABLED, kernel

__all__ = ["popcount", "lowest_bit_index", "nth_set_bit", "broadword_nth_set_bit", "FAST_PDEP", "SELECT_IN_BYTE"]


def _bit_intrinsic(llvm_name, extra_false_arg):
    @intrinsic
    def _impl(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            (value,) = args
            value = builder.zext(value, ir.IntType(64)) if getattr(x, "bitwidth") < 64 else value
            fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)] + ([ir.IntType(1)] if extra_false_arg else []))
            fn = builder.module.declare_intrinsic(llvm_name, [ir.IntType(64)], fnty)
            return builder.call(fn, [value] + ([ir.Constant(ir.IntType(1), 0)] if extra_false_arg else []))

        return types.int64(x), codegen

    return _impl


_ctpop = _bit_intrinsic("llvm.ctpop", False)
_cttz = _bit_intrinsic("llvm.cttz", True)

if JIT_DISABLED:

    def popcount(x):
        """Number of set bits of a uint64."""
        return int(x).bit_count()

    def lowest_bit_index(x):
        """Index of the lowest set bit of a nonzero uint64 (64 for 0)."""
        x = int(x)
        return (x & -x).bit_length() - 1 if x else 64

else:

    @kernel(inline="always")
    def popcount(x):
        """Number of set bits of a uint64."""
        return _ctpop(x)

    @kernel(inline="always")
    def lowest_bit_index(x):
        """Index of the lowest set bit of a nonzero uint64 (64 for 0)."""
        return _cttz(x)


# Vigna's broadword select ("Broadword implementation of rank/select queries", 2008): byte counts
# by SWAR, their prefix sums by one multiplication, the byte by a SWAR compare, the bit within the
# byte from a table.
_B1 = np.uint64(0x5555_5555_5555_5555)
_B2 = np.uint64(0x3333_3333_3333_3333)
_B4 = np.uint64(0x0F0F_0F0F_0F0F_0F0F)
_BYTES_LOW = np.uint64(0x0101_0101_0101_0101)
_BYTES_HIGH = np.uint64(0x8080_8080_8080_8080)
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U4 = np.uint64(4)
_U8 = np.uint64(8)
#: SELECT_IN_BYTE[8 * b + r]: the index of the r-th (from 0) set bit of byte b (8 when it has none).
SELECT_IN_BYTE = np.array(
    [([i for i in range(8) if b >> i & 1] + [8] * 8)[r] for b in range(256) for r in range(8)], dtype=np.uint8
)


@kernel(inline="always")
def broadword_nth_set_bit(x, k):
    """:func:`nth_set_bit` on any CPU, in some twenty operations."""
    counts = x - ((x >> _U1) & _B1)
    counts = (counts & _B2) + ((counts >> _U2) & _B2)
    counts = (counts + (counts >> _U4)) & _B4
    below = counts * _BYTES_LOW  # byte j: set bits in bytes 0..j (at most 64: no carry)
    # The byte holding the bit: the number of bytes whose running count is at most k.
    above = ((below | _BYTES_HIGH) - _BYTES_LOW * np.uint64(k + 1)) & _BYTES_HIGH
    byte = popcount(~above & _BYTES_HIGH)
    shift = np.uint64(8 * byte)
    before = np.int64(((below << _U8) >> shift) & np.uint64(0xFF))  # set bits in bytes 0..byte-1
    return 8 * byte + np.int64(SELECT_IN_BYTE[8 * np.int64((x >> shift) & np.uint64(0xFF)) + k - before])


def pdep_is_fast(machine: str, cpu_name: str | None, features: str | None, host: tuple[str, str]) -> bool:
    """Whether the compiled code may use BMI2's ``pdep`` and it is fast.

    ``machine``: ``platform.machine()``; ``cpu_name`` and ``features``: numba's target
    (``NUMBA_CPU_NAME``, ``NUMBA_CPU_FEATURES``: None for the host's); ``host``: the host's CPU
    features and its family (``"+bmi2,..."``, ``"zen1-2"`` or ``""``). An x86-64 target with BMI2,
    but not AMD's Zen 1 or 2, where ``pdep`` is microcoded and takes tens of cycles or more.
    numba keys each cache entry by the target CPU and its features, so code compiled with
    ``pdep`` never runs on a CPU without it."""
    if machine.lower() not in ("x86_64", "amd64"):
        return False
    target_features = features if features is not None else host[0]
    if cpu_name is None:
        zen1_or_2 = host[1] == "zen1-2"
    else:
        zen1_or_2 = cpu_name in ("znver1", "znver2")
    return "+bmi2" in target_features.split(",") and not zen1_or_2


def _host_cpu() -> tuple[str, str]:
    """The host's CPU features in LLVM's spelling (only ``+bmi2`` matters here) and ``"zen1-2"``
    for AMD's family 17h, from ``/proc/cpuinfo``; elsewhere nothing is known (no ``pdep``)."""
    try:
        info = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return "", ""
    fields: dict[str, str] = {}
    for line in info.splitlines():
        if not line.strip():
            break  # the first processor is enough
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    features = "+bmi2" if "bmi2" in fields.get("flags", "").split() else ""
    family = "zen1-2" if fields.get("vendor_id") == "AuthenticAMD" and fields.get("cpu family") == "23" else ""
    return features, family


#: Whether :func:`nth_set_bit` is BMI2's ``pdep`` (see :func:`pdep_is_fast`).
FAST_PDEP = not JIT_DISABLED and pdep_is_fast(
    platform.machine(), getattr(numba.config, "CPU_NAME"), getattr(numba.config, "CPU_FEATURES"), _host_cpu()
)


@intrinsic
def _pdep(typingctx, source, mask):
    """BMI2's parallel bit deposit: the low bits of ``source`` moved, in order, to the set bits of
    ``mask``."""
    if not (isinstance(source, types.Integer) and isinstance(mask, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        word = ir.IntType(64)
        fn = builder.module.globals.get("llvm.x86.bmi.pdep.64")
        if fn is None:
            fn = ir.Function(builder.module, ir.FunctionType(word, [word, word]), "llvm.x86.bmi.pdep.64")
        return builder.call(fn, [context.cast(builder, a, t, types.uint64) for a, t in zip(args, signature.args)])

    return types.uint64(source, mask), codegen


if FAST_PDEP:

    @kernel(inline="always")
    def nth_set_bit(x, k):
        """The index of the ``k``-th (from 0) lowest set bit of the uint64 ``x``, for 0 <= k <
        popcount(x), in constant time: ``pdep`` deposits the bit ``1 << k`` on the ``k``-th set
        bit of ``x``, three operations in a row. On a CPU without a fast ``pdep``,
        :func:`broadword_nth_set_bit`."""
        return _cttz(_pdep(_U1 << np.uint64(k), x))  # type: ignore[call-arg]  # an intrinsic: typed by numba

else:
    nth_set_bit = broadword_nth_set_bit
