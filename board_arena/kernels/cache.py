"""The kernel decorator and the folder where numba caches what it compiles.

:func:`kernel` is ``numba.njit`` with the project's defaults and with ``cache=True`` pointed at
a folder of the project's own. numba trusts a cached function while *its own file* is unchanged,
but the machine code of a kernel also holds what it calls from other files (the contract, a
game's kernels, tables of constants), so with numba alone an edit of those files would leave old
code running. Two rules make that impossible, with numba's public interface only:

* **The folder is named by the sources.** Its name is a hash of every module of this package
  that compiled code can reach: the modules that define kernels (or numba intrinsics and
  overloads) and, transitively, the modules they import (read from their import statements; a
  package's ``__init__`` only when a name is imported from it). Edit any of them and the next
  process compiles into a fresh folder. An edit of code that no kernel module reaches (the
  arena, the command line, the web server) recompiles nothing.
* **Code outside the package is checked.** A module outside the package (a game or agent
  plugin, a script, a test) whose kernels are decorated here leaves the hash of its sources, and
  of the modules outside the package that it imports, in the folder; a game registered from
  outside leaves which module its state type belongs to. When either differs from what the
  folder holds, every cached kernel of the folder is forgotten: the package's agents compiled
  for that game's states would otherwise run its old rules.

The folder is ``$NUMBA_CACHE_DIR/board-arena-HASH`` when ``NUMBA_CACHE_DIR`` is set (numba's own
setting for its cache), else ``board-arena/kernels/HASH`` in the user's cache folder
(``$XDG_CACHE_HOME``, by default ``~/.cache``). Where no folder can be written, kernels compile in
every process, after one warning.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import sysconfig
import warnings
from pathlib import Path
from typing import Any, Callable

import numba

__all__ = ["kernel", "JIT_DISABLED", "cache_folder", "caching_disabled", "forget_compiled_code", "register_state_module"]

# numba sets its configuration attributes from the environment at run time, hence getattr.
JIT_DISABLED: bool = bool(getattr(numba.config, "DISABLE_JIT"))

#: The folder of the package (``board_arena/``).
_PACKAGE = Path(__file__).resolve().parent.parent
_PACKAGE_NAME = __name__.partition(".")[0]


def kernel(func: Callable[..., Any] | None = None, *, inline: str | None = None, cache: bool = True, **options: Any) -> Any:
    """``numba.njit`` with this project's defaults, cached in :func:`cache_folder`.

    The defaults: numpy's error model (no Python exception checks on division) and no fastmath,
    so that compiled and pure-Python runs agree bit for bit. ``inline="always"`` asks LLVM to
    inline the kernel into every caller (numba's ``forceinline``): for the small helpers of a hot
    loop. ``cache=False`` compiles in every process. Other options go to ``numba.njit`` as they
    are. Under ``NUMBA_DISABLE_JIT=1`` the function is returned as it is.

    Example:
        >>> from board_arena.kernels import kernel
        >>> @kernel
        ... def triple(x):
        ...     return 3 * x
        >>> triple(14)
        42
    """
    if func is None:
        return lambda f: kernel(f, inline=inline, cache=cache, **options)
    if inline not in (None, "always"):
        raise ValueError(f"kernel: inline={inline!r}; allowed: 'always' or no inline option")
    if JIT_DISABLED:
        return func
    options.setdefault("error_model", "numpy")
    if inline == "always":
        options["forceinline"] = True
    # A function typed at a prompt or in a doctest has no source file for numba to key its cache by.
    folder = _folder_for(func) if cache and os.path.isfile(func.__code__.co_filename) else None
    if folder is None:
        return numba.njit(**options)(func)
    # numba's cache locator reads CACHE_DIR when the function is decorated, so pointing it at the
    # project's folder for this decoration alone leaves other libraries' numba functions alone.
    # (numba sets its configuration attributes at run time, hence getattr and setattr.)
    saved = getattr(numba.config, "CACHE_DIR")
    setattr(numba.config, "CACHE_DIR", str(folder))
    try:
        return numba.njit(cache=True, **options)(func)
    finally:
        setattr(numba.config, "CACHE_DIR", saved)


def cache_folder() -> Path | None:
    """The folder of this process's cached kernels (None when no folder can be written)."""
    if not _FOLDER:
        _FOLDER.append(_open_folder())
    return _FOLDER[0]


def caching_disabled() -> bool:
    """True when kernels compile in every process (no writable cache folder)."""
    return not JIT_DISABLED and cache_folder() is None


def forget_compiled_code() -> None:
    """Removes every cached kernel of :func:`cache_folder` (numba's index and data files), so that
    each is compiled again at its next use in any process."""
    folder = cache_folder()
    if folder is None:
        return
    for pattern in ("*.nbi", "*.nbc"):
        for path in folder.rglob(pattern):
            try:
                path.unlink()
            except OSError:
                pass


def register_state_module(dtype_key: str, module: Any) -> None:
    """Records that the state type ``dtype_key`` (a dtype's description) belongs to the kernel
    module ``module``; when the folder last saw it belong to another module, every cached kernel
    is forgotten (agents compiled for those states ran the other module's rules)."""
    path = getattr(module, "__file__", None)
    if JIT_DISABLED or path is None or _inside_package(path):
        return
    _remember("states", dtype_key, str(Path(path).resolve()))


# ----------------------------------------------------------------------------------------------
# The folder and its name.

_FOLDER: list[Path | None] = []
_NO_CACHE_WARNED: list[bool] = []


def _open_folder() -> Path | None:
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        folder = Path(base) / f"board-arena-{package_sources_hash()}"
    else:
        user_cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        folder = Path(user_cache) / "board-arena" / "kernels" / package_sources_hash()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as error:
        if not _NO_CACHE_WARNED:
            _NO_CACHE_WARNED.append(True)
            warnings.warn_explicit(
                f"board-arena cannot write its kernel cache {folder} ({error.strerror or error}): kernels are "
                "compiled in every process, which costs seconds at each start; set NUMBA_CACHE_DIR to a "
                "writable folder",
                RuntimeWarning,
                filename="board-arena",
                lineno=0,
            )
        return None
    return folder


# A top-level (or indented) import statement: ``from X import a, b``, ``from X import (a,  # why
# \n b)``, ``import X.Y as Z``.
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\((?:[^)#]|#[^\n]*)*\)|[^\n]*)|import[ \t]+([^\n]*))",
    re.MULTILINE,
)
_COMMENT = re.compile(r"#[^\n]*")
#: What marks a module whose functions are compiled.
_COMPILED = re.compile(rb"^[ \t]*@(?:kernel|intrinsic|overload|register_jitable)\b|=[ \t]*kernel\(", re.MULTILINE)


def _imports(source: str, module: str, is_package: bool) -> list[tuple[str, list[str]]]:
    """The import statements of ``source``: ``(module imported from, names)`` (names empty for a
    plain ``import``), relative imports resolved against ``module``."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[str, list[str]]] = []
    for base, names, plain in _IMPORT.findall(source):
        if plain:
            found.extend((part.split()[0], []) for part in _COMMENT.sub("", plain).split(",") if part.strip())
            continue
        if base.startswith("."):
            dots = len(base) - len(base.lstrip("."))
            parts = package.split(".")
            if dots - 1 > len(parts) - 1:
                continue
            anchor = ".".join(parts[: len(parts) - (dots - 1)])
            base = f"{anchor}.{base[dots:]}" if base[dots:] else anchor
        listed = [part.split()[0] for part in _COMMENT.sub("", names).strip("() \t\n").split(",") if part.strip()]
        found.append((base, listed))
    return found


def _package_modules() -> dict[str, Path]:
    """Every module of the package, by name."""
    modules = {}
    for path in sorted(_PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(_PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def package_reach() -> list[str]:
    """The modules of the package whose sources name the cache folder: those that define kernels
    (or numba intrinsics and overloads) and, transitively, those they import."""
    modules = _package_modules()
    sources = {name: path.read_bytes() for name, path in modules.items()}
    todo = [name for name, source in sources.items() if _COMPILED.search(source)]
    reached: set[str] = set()
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        is_package = modules[name].name == "__init__.py"
        for base, names in _imports(sources[name].decode("utf-8", "replace"), name, is_package):
            if not names:  # ``import a.b``: the module itself, not the packages around it
                todo.extend(m for m in [base] if m in modules)
            for imported in names:
                if f"{base}.{imported}" in modules:
                    todo.append(f"{base}.{imported}")
                elif base in modules:
                    todo.append(base)  # a name defined in ``base`` (its ``__init__`` for a package)
    return sorted(reached)


_SOURCES_HASH: list[str] = []


def package_sources_hash() -> str:
    """The hash that names the cache folder: of numba's version and of the sources of
    :func:`package_reach`."""
    if not _SOURCES_HASH:
        digest = hashlib.sha256(f"numba {numba.__version__}\n".encode())
        modules = _package_modules()
        for name in package_reach():
            digest.update(name.encode() + b"\0" + hashlib.sha256(modules[name].read_bytes()).digest())
        _SOURCES_HASH.append(digest.hexdigest()[:24])
    return _SOURCES_HASH[0]


# ----------------------------------------------------------------------------------------------
# Kernels outside the package.

_STDLIB: list[str] = []


def _installed(path: str) -> bool:
    """Whether ``path`` belongs to the standard library or to an installed distribution."""
    if not _STDLIB:
        _STDLIB.extend({os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("stdlib", "platstdlib")})
    real = os.path.realpath(path)
    return any(real.startswith(folder) for folder in _STDLIB) or any(
        part in ("site-packages", "dist-packages") for part in Path(real).parts
    )


def _inside_package(path: str) -> bool:
    return Path(path).resolve().is_relative_to(_PACKAGE)


def _outside_closure_hash(module_name: str) -> str | None:
    """A hash of the sources of module ``module_name`` and of the modules outside the package and
    outside installed distributions that it imports, transitively (None: no source file)."""
    digest = hashlib.sha256()
    todo, seen = [module_name], set()
    found = False
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        module = sys.modules.get(name)
        path = getattr(module, "__file__", None)
        if not path or not path.endswith(".py") or _inside_package(path) or (name != module_name and _installed(path)):
            continue
        try:
            source = Path(path).read_bytes()
        except OSError:
            continue
        found = True
        digest.update(name.encode() + b"\0" + hashlib.sha256(source).digest())
        is_package = Path(path).name == "__init__.py"
        for base, names in _imports(source.decode("utf-8", "replace"), name, is_package):
            todo.extend(f"{base}.{n}" if f"{base}.{n}" in sys.modules else base for n in names or [""])
    return digest.hexdigest() if found else None


_CHECKED_MODULES: set[str] = set()


def _folder_for(func: Callable[..., Any]) -> Path | None:
    """The cache folder for ``func``'s kernel, after checking its module if it lies outside the
    package (once per module and process)."""
    folder = cache_folder()
    if folder is None:
        return None
    name = func.__module__
    path = getattr(sys.modules.get(name), "__file__", None)
    if path and name not in _CHECKED_MODULES and not _inside_package(path):
        _CHECKED_MODULES.add(name)
        digest = _outside_closure_hash(name)
        if digest is not None:
            _remember("sources", str(Path(path).resolve()), digest)
    return folder


def _remember(kind: str, key: str, value: str) -> None:
    """Stores ``value`` for ``key`` in the folder; when the folder held another value for it,
    forgets every cached kernel first."""
    folder = cache_folder()
    if folder is None:
        return
    marker = folder / kind / hashlib.sha256(key.encode()).hexdigest()[:32]
    try:
        held = marker.read_text()
    except OSError:
        held = None
    if held == value:
        return
    if held is not None:
        forget_compiled_code()
    try:
        marker.parent.mkdir(exist_ok=True)
        partial = marker.with_name(f"{marker.name}.tmp-{os.getpid()}")
        partial.write_text(value)
        os.replace(partial, marker)
    except OSError:
        pass
