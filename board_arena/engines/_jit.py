"""Compilation plumbing shared by every kernel: the ``kernel`` decorator, a fresh numba cache, the
random number generator and a monotonic clock usable inside compiled code.

Why a custom cache locator: numba stamps a cached function with the source of *its own file*
only, so a kernel that calls (or has inlined through the game contract) code from another file
keeps running the old machine code after that file is edited. Every kernel of this project is
therefore stamped with a hash of all the sources under ``engines/`` and ``agents/`` (plus its own
file): any edit anywhere invalidates every cached kernel, and tests, CI and users never run stale
compiled code. The cache stays where numba puts it by default (``__pycache__`` beside the source,
or ``NUMBA_CACHE_DIR`` when set).
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import sys
import time
import warnings
from pathlib import Path

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import caching, config
from numba.extending import intrinsic

__all__ = [
    "kernel",
    "JIT_DISABLED",
    "SOURCE_HASH",
    "rng_from_seed",
    "rng_next",
    "rng_below",
    "rng_uniform",
    "mix64",
    "monotonic_ns",
    "caching_disabled",
    "compiled_sources",
]

# numba sets its configuration attributes at run time (from the environment), hence getattr.
JIT_DISABLED = bool(getattr(config, "DISABLE_JIT"))

_ENGINES_DIR = Path(__file__).resolve().parent
_PACKAGE_DIR = _ENGINES_DIR.parent
# The folder that module names are relative to (site-packages, or the checkout).
_IMPORT_BASE = _PACKAGE_DIR.parent
# Folders whose sources are compiled together through the game contract.
_COMPILED_ROOTS = tuple(p for p in (_ENGINES_DIR, _PACKAGE_DIR / "agents", _PACKAGE_DIR / "envs") if p.is_dir())
# In a source checkout, benchmark and test scripts may define kernels that call ours.
_CHECKOUT_ROOTS = (
    tuple(p for p in (_IMPORT_BASE / "experiments", _IMPORT_BASE / "tests", _PACKAGE_DIR / "arena") if p.is_dir())
    if (_IMPORT_BASE / "pyproject.toml").is_file()
    else ()
)


# A module defines compiled code if a line starts with one of these decorators.
_DEFINES_KERNELS = re.compile(r"^\s*@(kernel|overload|intrinsic|numba\.njit|njit)\b", re.MULTILINE)


def _module_file(name: str, roots) -> Path | None:
    """The source file of module ``name`` (``board_arena.engines.morabaraba.board``) under
    ``roots``, or None for a package (its ``__init__``) or a module outside them."""
    parts = name.split(".")
    for root in roots:
        prefix = root.relative_to(_IMPORT_BASE).parts
        if tuple(parts[: len(prefix)]) == prefix:
            path = _IMPORT_BASE.joinpath(*parts).with_suffix(".py")
            return path if path.is_file() else None
    return None


def _imported_modules(tree: ast.AST, roots) -> set[Path]:
    """The project modules (not packages) that a module's imports name: ``from a.b import c``
    gives ``a/b/c.py`` when c is a module, else ``a/b.py``."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                path = _module_file(f"{node.module}.{alias.name}", roots) or _module_file(node.module, roots)
                if path:
                    found.add(path)
        elif isinstance(node, ast.Import):
            found.update(p for p in (_module_file(a.name, roots) for a in node.names) if p)
    return found


def compiled_sources(roots) -> list[Path]:
    """The sources that compiled code is built from: every module under ``roots`` that defines
    kernels, and the project modules they import, transitively (tables such as the Morabaraba
    board, the contract, the clock), but not packages' ``__init__`` files. The Python face of the
    games (``engines/game.py``, the ``Game`` classes in the packages' ``__init__``) and the
    registry are not among them: editing them recompiles nothing."""
    todo = [p for root in roots for p in sorted(root.rglob("*.py")) if _DEFINES_KERNELS.search(p.read_text())]
    seen = set(todo)
    while todo:
        path = todo.pop()
        for module in _imported_modules(ast.parse(path.read_text()), roots):
            if module not in seen and module.name != "__init__.py":
                seen.add(module)
                todo.append(module)
    return sorted(seen)


def _hash_sources(roots) -> str:
    digest = hashlib.sha256()
    for path in compiled_sources(roots):
        digest.update(str(path.relative_to(_IMPORT_BASE)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


SOURCE_HASH = _hash_sources(_COMPILED_ROOTS)


def _is_under(path: Path, roots) -> bool:
    return any(root == path or root in path.parents for root in roots)


class _ProjectCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
    """Caches this project's kernels beside their sources (or in ``NUMBA_CACHE_DIR``), stamped
    with the hash of the whole compiled source tree."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = self._cache_folder(py_file)

    def _cache_folder(self, py_file):
        cache_dir = getattr(config, "CACHE_DIR")
        if cache_dir:
            return os.path.join(cache_dir, self.get_suitable_cache_subpath(py_file))
        return os.path.join(os.path.dirname(py_file), "__pycache__")

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        own = super().get_source_stamp()
        return (SOURCE_HASH, own)

    @classmethod
    def from_function(cls, py_func, py_file):
        path = Path(py_file).resolve()
        if not _is_under(path, _COMPILED_ROOTS + _CHECKOUT_ROOTS):
            return None
        return super().from_function(py_func, py_file)  # None if the folder is not writable


class _ProjectUserCacheLocator(_ProjectCacheLocator):
    """The same stamps, in the user's cache folder, for an install whose folders are read-only
    (numba's own fallback would stamp each kernel with its own file only)."""

    def _cache_folder(self, py_file):
        user_cache = caching.AppDirs(appname="board-arena", appauthor=False).user_cache_dir
        return os.path.join(user_cache, "numba", self.get_suitable_cache_subpath(py_file))


# numba < 0.60 names the class _CacheImpl.
_CACHE_IMPL = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
_LOCATORS: list = _CACHE_IMPL._locator_classes
for _locator in (_ProjectUserCacheLocator, _ProjectCacheLocator):
    if _locator not in _LOCATORS:
        # Tried first: the project's kernels never fall through to numba's per-file stamps.
        _LOCATORS.insert(0, _locator)


def kernel(func=None, **options):
    """``numba.njit`` with this project's defaults: cached, numpy error model (no Python
    exception checks on division), no fastmath so compiled and pure-Python runs agree bit for bit.

    Where no cache folder is writable (a read-only install with no writable user cache), kernels
    are compiled in every process instead, after one warning.
    """
    options.setdefault("error_model", "numpy")
    if func is None:
        return lambda f: kernel(f, **options)
    if options.get("cache", True):
        options["cache"] = _can_cache(func)
    return numba.njit(func, **options)


_NO_CACHE_WARNED: list[str] = []


def _can_cache(func) -> bool:
    """Whether ``func`` has a writable cache folder. A project kernel is cached only by the
    project's locators (numba's own would stamp it with its own file only); for any other file
    numba's locators decide."""
    py_file = os.path.abspath(func.__code__.co_filename)
    if _is_under(Path(py_file).resolve(), _COMPILED_ROOTS + _CHECKOUT_ROOTS):
        usable = any(locator.from_function(func, py_file) for locator in (_ProjectCacheLocator, _ProjectUserCacheLocator))
    else:
        usable = any(locator.from_function(func, py_file) for locator in _LOCATORS)
    if not usable and not _NO_CACHE_WARNED:
        _NO_CACHE_WARNED.append(py_file)
        warnings.warn_explicit(
            "no writable folder for numba's cache (set NUMBA_CACHE_DIR to one): kernels are compiled "
            "in every process, which costs some seconds at each start",
            RuntimeWarning,
            filename="board-arena",
            lineno=0,
        )
    return usable


def caching_disabled() -> bool:
    """True when some kernel found no writable cache folder (it compiles in every process)."""
    return bool(_NO_CACHE_WARNED)


if JIT_DISABLED:
    # Pure-Python mode runs the kernels on numpy scalars, which warn on the uint64 wrap-around
    # that the RNG and the hashes rely on; compiled code wraps silently.
    np.seterr(over="ignore")


# ----------------------------------------------------------------------------------------------
# Random numbers: splitmix64 (Steele, Lea, Flood 2014, "Fast splittable pseudorandom number
# generators"), one uint64 of state held in a uint64[1] array that the caller owns and passes in,
# so that a seed reproduces everything that draws from it.

_GOLDEN = np.uint64(0x9E37_79B9_7F4A_7C15)
_MIX1 = np.uint64(0xBF58_476D_1CE4_E5B9)
_MIX2 = np.uint64(0x94D0_49BB_1331_11EB)
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
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@kernel(inline="always")
def rng_next(rng):
    """Next 64 random bits. rng: uint64[1], advanced in place."""
    rng[0] += _GOLDEN
    return mix64(rng[0])


@kernel(inline="always")
def rng_below(rng, n):
    """Uniform int in [0, n) for 0 < n < 2**32 (Lemire's multiply-shift of 32 random bits,
    without rejection: each value's probability is off by less than n / 2**32, 1e-8 for n = 50)."""
    return np.int64(((rng_next(rng) >> _U32) * np.uint64(n)) >> _U32)


@kernel(inline="always")
def rng_uniform(rng):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(rng_next(rng) >> _U11) * (1.0 / 9007199254740992.0)


# ----------------------------------------------------------------------------------------------
# A monotonic clock for time budgets inside compiled searches. numba has no time module, so a
# kernel calls the platform's own clock: clock_gettime with the platform's CLOCK_MONOTONIC (its
# value differs: 1 on Linux, 6 on macOS, 4 on FreeBSD; Python's ``time`` module knows it), or
# QueryPerformanceCounter on Windows. The function's address comes from ctypes and is given to
# LLVM under a name of our own, so compiled and cached code finds it on every platform. Searches
# take their deadlines from this same clock (``monotonic_ns`` is callable from Python too).
# Pure-Python mode uses time.monotonic_ns.

_CLOCK_SYMBOL = "board_arena_clock"
_FREQUENCY_SYMBOL = "board_arena_clock_frequency"
#: What a failing clock reads: past every deadline, so a time budget ends at once, never hangs.
CLOCK_FAILED = np.iinfo(np.int64).max


def _bind_platform_clock():
    """Registers the platform clock with LLVM; returns ``(kind, clock id)``: ``"posix"`` with the
    CLOCK_MONOTONIC of this platform, or ``"windows"`` (the id is unused)."""
    import ctypes

    from llvmlite import binding

    if sys.platform == "win32":
        kernel32 = ctypes.windll.kernel32
        for name, func in ((_CLOCK_SYMBOL, kernel32.QueryPerformanceCounter), (_FREQUENCY_SYMBOL, kernel32.QueryPerformanceFrequency)):
            binding.add_symbol(name, ctypes.cast(func, ctypes.c_void_p).value)
        return "windows", 0
    libc = ctypes.CDLL(None)
    binding.add_symbol(_CLOCK_SYMBOL, ctypes.cast(libc.clock_gettime, ctypes.c_void_p).value)
    return "posix", time.CLOCK_MONOTONIC


_CLOCK_KIND, CLOCK_ID = ("python", None) if JIT_DISABLED else _bind_platform_clock()


@intrinsic
def _platform_clock_ns(typingctx):
    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        module = builder.module

        def declare(name, fnty):
            fn = module.globals.get(name)
            return fn if fn is not None else ir.Function(module, fnty, name)

        billion = ir.Constant(i64, 1_000_000_000)
        ok = ir.Constant(ir.IntType(1), 1)
        if _CLOCK_KIND == "windows":
            fnty = ir.FunctionType(i32, [i64.as_pointer()])
            count = builder.alloca(i64)
            frequency = builder.alloca(i64)
            got_count = builder.call(declare(_CLOCK_SYMBOL, fnty), [count])
            got_frequency = builder.call(declare(_FREQUENCY_SYMBOL, fnty), [frequency])
            ok = builder.and_(
                builder.icmp_signed("!=", got_count, ir.Constant(i32, 0)),
                builder.icmp_signed("!=", got_frequency, ir.Constant(i32, 0)),
            )
            ticks, per_second = builder.load(count), builder.load(frequency)
            per_second = builder.select(ok, per_second, ir.Constant(i64, 1))
            # ticks * 1e9 / frequency without overflow: whole seconds, then the remainder.
            seconds = builder.sdiv(ticks, per_second)
            rest = builder.srem(ticks, per_second)
            nanoseconds = builder.add(builder.mul(seconds, billion), builder.sdiv(builder.mul(rest, billion), per_second))
        else:
            timespec = ir.LiteralStructType([i64, i64])
            fnty = ir.FunctionType(i32, [i32, timespec.as_pointer()])
            ts = builder.alloca(timespec)
            rc = builder.call(declare(_CLOCK_SYMBOL, fnty), [ir.Constant(i32, CLOCK_ID), ts])
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
        # numba passes the typing context to an intrinsic itself.
        return _platform_clock_ns()  # type: ignore[call-arg]


# ----------------------------------------------------------------------------------------------
# Bit counting on uint64 bitboards, as single machine instructions (llvm.ctpop / llvm.cttz);
# pure-Python mode uses int.bit_count.


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
            call_args = [value] + ([ir.Constant(ir.IntType(1), 0)] if extra_false_arg else [])
            return builder.call(fn, call_args)

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
