"""A monotonic clock for time budgets inside compiled searches.

numba has no ``time`` module, so a kernel calls the platform's own clock: ``clock_gettime`` with
the platform's ``CLOCK_MONOTONIC`` (1 on Linux, 6 on macOS, 4 on FreeBSD: Python's ``time``
module knows it), or ``QueryPerformanceCounter`` on Windows, declared by name in the kernel's
code and found by the JIT linker among the process's libraries. Searches take their deadlines
from this same clock, which Python can call too; pure-Python mode uses ``time.monotonic_ns``.

    >>> from board_arena.kernels import deadline_after, monotonic_ns
    >>> deadline_after(1.0) > monotonic_ns()
    True
"""

from __future__ import annotations

import sys
import time

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from board_arena.kernels.cache import JIT_DISABLED, kernel

__all__ = ["monotonic_ns", "deadline_after", "CLOCK_FAILED", "IS_WINDOWS", "CLOCK_ID"]

#: What a failing clock reads: past every deadline, so that a time budget ends at once, never hangs.
CLOCK_FAILED = np.iinfo(np.int64).max

#: Windows reads QueryPerformanceCounter; every other platform clock_gettime of ``CLOCK_ID``.
IS_WINDOWS = sys.platform == "win32"
CLOCK_ID = 0 if IS_WINDOWS else time.CLOCK_MONOTONIC


@intrinsic
def _platform_clock_ns(typingctx):
    def codegen(context, builder, signature, args):
        i64, i32 = ir.IntType(64), ir.IntType(32)
        module = builder.module

        def declare(name, fnty):
            fn = module.globals.get(name)
            return fn if fn is not None else ir.Function(module, fnty, name)

        billion = ir.Constant(i64, 1_000_000_000)
        if IS_WINDOWS:
            fnty = ir.FunctionType(i32, [i64.as_pointer()])
            count, frequency = builder.alloca(i64), builder.alloca(i64)
            got_count = builder.call(declare("QueryPerformanceCounter", fnty), [count])
            got_frequency = builder.call(declare("QueryPerformanceFrequency", fnty), [frequency])
            ok = builder.and_(
                builder.icmp_signed("!=", got_count, ir.Constant(i32, 0)),
                builder.icmp_signed("!=", got_frequency, ir.Constant(i32, 0)),
            )
            ticks = builder.load(count)
            per_second = builder.select(ok, builder.load(frequency), ir.Constant(i64, 1))
            # ticks * 1e9 / frequency without overflow: whole seconds, then the remainder.
            seconds, rest = builder.sdiv(ticks, per_second), builder.srem(ticks, per_second)
            nanoseconds = builder.add(builder.mul(seconds, billion), builder.sdiv(builder.mul(rest, billion), per_second))
        else:
            timespec = ir.LiteralStructType([i64, i64])
            fnty = ir.FunctionType(i32, [i32, timespec.as_pointer()])
            ts = builder.alloca(timespec)
            rc = builder.call(declare("clock_gettime", fnty), [ir.Constant(i32, CLOCK_ID), ts])
            ok = builder.icmp_signed("==", rc, ir.Constant(i32, 0))
            zero = ir.Constant(i32, 0)
            sec = builder.load(builder.gep(ts, [zero, zero]))
            nsec = builder.load(builder.gep(ts, [zero, ir.Constant(i32, 1)]))
            nanoseconds = builder.add(builder.mul(sec, billion), nsec)
        return builder.select(ok, nanoseconds, ir.Constant(i64, int(CLOCK_FAILED)))

    return types.int64(), codegen


if JIT_DISABLED:

    def monotonic_ns():
        """Nanoseconds on a monotonic clock (pure-Python mode: ``time.monotonic_ns``)."""
        return time.monotonic_ns()

else:

    @kernel
    def monotonic_ns():
        """Nanoseconds on the platform's monotonic clock (``CLOCK_FAILED`` if the clock fails).
        Callable from Python, where searches take their deadlines from it."""
        return _platform_clock_ns()  # type: ignore[call-arg]  # an intrinsic: numba passes the typing context


def deadline_after(seconds: float | None) -> int:
    """The :func:`monotonic_ns` reading ``seconds`` from now: the deadline that a compiled search
    compares its clock with. 0 (no deadline) when ``seconds`` is None or 0."""
    return int(monotonic_ns()) + int(seconds * 1e9) if seconds else 0
