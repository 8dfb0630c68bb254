"""Compilation plumbing shared by every kernel: the ``kernel`` decorator and its compile cache,
the random number generator, a monotonic clock and bit counting usable inside compiled code.

The compile cache. numba keeps each compiled function in an index file and data files (beside
the source in ``__pycache__``, in ``NUMBA_CACHE_DIR`` when set, or in the user's cache folder when
the package's folders are read-only), one entry per signature, and trusts them while *the
function's own file* is unchanged. But a kernel's machine code also holds what it calls from
other files, inlined or linked when it was compiled: the contract, tables, a game's kernels. With
numba alone, an edit of those files would leave the old code running. So each function compiled
by :func:`kernel` keeps numba's cache, with one more part in the key of each entry: a hash of

* the sources of the kernel's module and of the modules it imports, transitively (its top-level
  ``import`` statements, read as text: no parsing). Followed are the modules of ``board_arena``,
  of the kernel's own top-level package and any module that is not installed (a checkout's tests
  and experiments, a user's own code); not followed are package ``__init__`` files, which hold
  the Python faces (an edit of a face recompiles nothing), the standard library and other
  installed distributions (numba's own key already holds its version), and
* for each state record type in the signature, the same hash of the game kernel module that
  :func:`link_record_type` tied to it (``contract.register`` does, for every game, including
  games registered from outside the package). Agents reach a game's kernels through the
  contract's overloads without importing them; this part makes an edit of Kalah's kernels
  recompile alpha-beta's Kalah specialisation, and only that one.

The hash is computed, and the cache folder found, at a kernel's first compilation or cache load in
a process, not at import.
An entry whose hash no longer matches is compiled again and takes the stale entry's place.
Functions that other libraries compile with ``numba.njit`` in the same process are left alone.

A signature of a kernel that only other kernels call (a game's kernels, a search's helpers) is
compiled and cached as optimised LLVM IR, without machine code or CPython wrapper: its callers
link and run their own copies of it (numba links every callee into its callers), so numba's own
machine code for it would never run. Python's first call with that signature makes it runnable
and replaces its cache entry (:class:`_KernelDispatcher`).

The numba internals this rests on are used in two sections below (``_KernelCache`` and
``_KernelDispatcher``) and checked by ``tests/test_cache.py``; if a numba release changes them,
kernels compile in every process (after one warning) rather than ever running stale code.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib.util
import inspect
import operator
import os
import re
import sys
import sysconfig
import time
import types as python_types
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator

import numba
import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import types
from numba.core import caching, cgutils, codegen, compiler, config, errors, sigutils
from numba.core import dispatcher as numba_dispatcher
from numba.core import ir as numba_ir
from numba.core import postproc as numba_postproc
from numba.core import transforms as numba_transforms
from numba.core.base import BaseContext
from numba.core.compiler_lock import global_compiler_lock, require_global_compiler_lock
from numba.core.compiler_machinery import AnalysisPass, FunctionPass, register_pass
from numba.core.cpu import CPUContext
from numba.core.environment import lookup_environment
from numba.core.errors import NumbaNotImplementedError
from numba.core.ir_utils import get_definition, guard, mk_unique_var
from numba.core.registry import CPUDispatcher
from numba.core.runtime.nrt import rtsys
from numba.core.target_extension import get_local_target
from numba.core.targetconfig import ConfigStack
from numba.core.typed_passes import IRLegalization
from numba.core.types.functions import BaseFunction
from numba.core.typing.npydecl import parse_dtype, parse_shape
from numba.core.untyped_passes import IRProcessing
from numba.cpython import builtins as numba_builtins
from numba.extending import intrinsic
from numba.np import arrayobj, numpy_support
from numba.np.numpy_support import as_dtype

__all__ = [
    "kernel",
    "JIT_DISABLED",
    "link_record_type",
    "cache_dependencies",
    "caching_disabled",
    "rng_from_seed",
    "rng_next",
    "rng_below",
    "rng_step",
    "bits_below",
    "rng_uniform",
    "mix64",
    "monotonic_ns",
    "deadline_after",
    "CLOCK_FAILED",
    "popcount",
    "lowest_bit_index",
    "nth_set_bit",
    "broadword_nth_set_bit",
    "FAST_PDEP",
]

# numba sets its configuration attributes at run time (from the environment), hence getattr.
JIT_DISABLED = bool(getattr(config, "DISABLE_JIT"))

# The top-level package of this project: its modules are followed from any kernel.
_PROJECT = __name__.partition(".")[0]


# ----------------------------------------------------------------------------------------------
# What a kernel's compiled code depends on: module sources, found from their import statements.

# A top-level import statement: ``from X import a, b``, ``from X import (a,  # why\n b)``,
# ``import X.Y as Z``.
_IMPORT = re.compile(
    r"^(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\((?:[^)#]|#[^\n]*)*\)|[^\n]*)|import[ \t]+([^\n]*))", re.MULTILINE
)
_COMMENT = re.compile(r"#[^\n]*")


def _imported_modules(source: str, package: str | None) -> set[str]:
    """The modules that the top-level import statements of ``source`` name (for ``from X import
    a``: ``X.a`` when that is a loaded module, else ``X``), relative imports resolved against
    ``package``."""
    found: set[str] = set()
    for base, names, plain in _IMPORT.findall(source):
        if plain:
            found.update(part.split()[0] for part in _COMMENT.sub("", plain).split(",") if part.strip())
            continue
        if base.startswith("."):
            if not package:
                continue
            base = importlib.util.resolve_name(base, package)
        for part in _COMMENT.sub("", names).strip("() \t\n").split(","):
            name = part.split()[0] if part.strip() else ""
            found.add(f"{base}.{name}" if f"{base}.{name}" in sys.modules else base)
    return found


def _module_source(name: str) -> bytes | None:
    """The source of loaded module ``name``; None for a module not loaded or without a source file."""
    path = getattr(sys.modules.get(name), "__file__", None)
    if not path or not path.endswith(".py"):
        return None
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


_INSTALLED_FOLDERS = ("site-packages", "dist-packages")
_STDLIB: list[str] = []


def _is_installed(path: str) -> bool:
    """Whether ``path`` belongs to the standard library or to an installed distribution."""
    if not _STDLIB:
        _STDLIB.extend({os.path.realpath(sysconfig.get_paths()[k]) + os.sep for k in ("stdlib", "platstdlib")})
    real = os.path.realpath(path)
    return any(real.startswith(folder) for folder in _STDLIB) or any(
        part in _INSTALLED_FOLDERS for part in Path(real).parts
    )


#: {module name: (hash of its source, the modules it imports that may be followed, with whether
#: each is installed)} or None without a source: each module is read once per process, however
#: many closures hold it.
_SCANNED: dict[str, tuple[bytes, list[tuple[str, bool]]] | None] = {}


def _scan(name: str) -> tuple[bytes, list[tuple[str, bool]]] | None:
    if name not in _SCANNED:
        source = _module_source(name)
        if source is None:
            _SCANNED[name] = None
        else:
            package = getattr(sys.modules[name], "__package__", None)
            imports = []
            for imported in sorted(_imported_modules(source.decode("utf-8", "replace"), package)):
                module = sys.modules.get(imported)
                path = getattr(module, "__file__", None)
                if path is not None and not hasattr(module, "__path__"):
                    imports.append((imported, _is_installed(path)))
            _SCANNED[name] = (hashlib.sha256(source).digest(), imports)
    return _SCANNED[name]


def _closure(name: str) -> dict[str, bytes]:
    """Module ``name`` and the modules it imports, transitively: {module name: hash of its
    source}. Followed are the modules of this project, of ``name``'s own top-level package and
    any that is not installed (a checkout's tests or experiments, a user's own code), but no
    package ``__init__`` (the faces) and nothing of the standard library or of other installed
    distributions."""
    own = {_PROJECT, name.partition(".")[0]}
    digests: dict[str, bytes] = {}
    todo = [name]
    while todo:
        current = todo.pop()
        scanned = _scan(current)
        if scanned is None or current in digests:
            continue
        digests[current], imports = scanned
        for imported, installed in imports:
            if imported not in digests and (imported.partition(".")[0] in own or not installed):
                todo.append(imported)
    return digests


_MODULE_HASHES: dict[str, str] = {}


def _module_hash(name: str) -> str:
    """Hash of the sources of :func:`_closure` of module ``name`` (once per process)."""
    if name not in _MODULE_HASHES:
        digest = hashlib.sha256()
        for module, source_digest in sorted(_closure(name).items()):
            digest.update(module.encode() + b"\0" + source_digest)
        _MODULE_HASHES[name] = digest.hexdigest()
    return _MODULE_HASHES[name]


_RECORD_MODULES: dict[np.dtype, str] = {}


def link_record_type(dtype: np.dtype, module: str) -> None:
    """Ties a state record type to the kernel module that compiled code given such a record
    links (the contract resolves its functions from the record type): the sources of ``module``
    and of what it imports join the cache key of every kernel compiled for a signature that holds
    ``dtype`` (a record, an array of records or a tuple of them)."""
    _RECORD_MODULES[np.dtype(dtype)] = module


def _record_dtypes(numba_type: Any, found: set[np.dtype]) -> None:
    """Adds to ``found`` the record dtypes in ``numba_type``: a record, an array of records, a
    tuple or named tuple holding them."""
    if isinstance(numba_type, types.Record):
        found.add(as_dtype(numba_type))
    elif isinstance(numba_type, types.Array):
        _record_dtypes(numba_type.dtype, found)
    elif isinstance(numba_type, types.BaseTuple):
        for member in getattr(numba_type, "types"):
            _record_dtypes(member, found)


def _dependency_hash(py_func: Callable, signature: Any) -> str:
    """What the cache entry of ``py_func`` compiled for ``signature`` (the argument types, as a
    dispatcher compiles for the arguments it is called with, or a numba signature) depends on
    besides its own file (see the module docstring)."""
    records: set[np.dtype] = set()
    for argument in getattr(signature, "args", signature):
        _record_dtypes(argument, records)
    games = sorted({_RECORD_MODULES[d] for d in records if d in _RECORD_MODULES})
    return ":".join(_module_hash(name) for name in [py_func.__module__, *games])


def cache_dependencies(dispatcher: Any) -> list[str]:
    """The modules whose sources the cache entries of a kernel depend on for every signature:
    its own and those it imports, transitively (for a signature holding a game's state record,
    that game's kernel module and what it imports are added)."""
    return sorted(_closure(dispatcher.py_func.__module__))


# ----------------------------------------------------------------------------------------------
# The kernel cache: numba's own, with the dependency hash in each entry's key. Every numba
# internal that this project relies on is used in this section, and only here:
#   * ``Dispatcher._cache``: the cache a dispatcher consults (``NullCache`` until numba's
#     ``enable_caching`` sets a ``FunctionCache``; ``kernel`` sets a ``_KernelCache`` instead);
#   * ``caching.FunctionCache``: ``_index_key(sig, codegen)`` (an entry's key, a tuple),
#     ``_save_overload(sig, data)``, ``_py_func`` and ``_cache_file``, an
#     ``IndexDataCacheFile`` with ``_load_index()`` (the index as a dict, empty if stale) and
#     ``_save_index(overloads)``.
#   * ``caching.FunctionCache.load_overload(sig, target_context)``, which the kernel cache
#     replaces to skip numba's refresh of the whole target context, and the two methods that
#     numba's own calls: ``_load_overload(sig, target_context)`` and the context manager
#     ``_guard_against_spurious_io_errors()``; ``nrt.rtsys.initialize(context)``, the one part
#     of that refresh that code loaded from the cache needs (the reference-counting runtime).
#   * ``caching.CompileResultCacheImpl``, the ``_impl_class`` of a ``FunctionCache``:
#     ``reduce(cres)`` (numba's ``CompileResult._reduce()``: a tuple whose first item, the
#     library, is ``(name, "object", (object_code, bitcode))``) and ``rebuild(target_context,
#     payload)``, which the kernel cache replaces with ``CompileResult._rebuild``'s steps around
#     a library of its own (:class:`_CachedLibrary`): ``JITCodeLibrary`` with
#     ``enable_object_caching()``, ``_set_compiled_object(code)``, ``_finalize_final_module()``,
#     a ``_shared_module`` attribute, and the engine's ``_defined_symbols`` set (or its
#     ``_load_defined_symbols(module)``).
#   * ``numpy_support.from_struct_dtype(dtype)``, replaced by a memoised version (below).
#   * for link-only signatures (``_KernelDispatcher``): a compiler pipeline of numba's passes
#     and one of ours, which sets numba's ``no_compile`` and ``no_cpython_wrapper`` flags on the
#     compilation's state; the dispatcher's ``get_call_template(args, kws)``,
#     ``compile(sig)`` and ``add_overload(cres)``; the library's ``_finalize_dynamic_globals()``,
#     ``_verify_declare_only_symbols()`` and ``_finalized``; the dispatcher's ``_compiler`` (a
#     ``_FunctionCompiler``) and its ``compile(args, return_type)``; the target context's
#     ``get_executable`` and ``insert_user_function``; the prefix of numba's run-time linker
#     (``codegen.RuntimeLinker.PREFIX``).
# ``tests/test_cache.py`` checks them on every numba release that CI installs.


def numba_internals_missing() -> list[str]:
    """The numba internals that the kernel cache needs and this numba lacks (empty: all there)."""
    wanted = {
        caching.FunctionCache: {
            "_index_key": ["self", "sig", "codegen"],
            "_save_overload": ["self", "sig", "data"],
            "load_overload": ["self", "sig", "target_context"],
            "_load_overload": ["self", "sig", "target_context"],
            "_guard_against_spurious_io_errors": ["self"],
        },
        caching.IndexDataCacheFile: {"_load_index": ["self"], "_save_index": ["self", "overloads"]},
        type(rtsys): {"initialize": ["self", "ctx"]},
        caching.CompileResultCacheImpl: {"reduce": ["self", "cres"], "rebuild": ["self", "target_context", "payload"]},
        compiler.CompileResult: {
            "_rebuild": [
                "target_context", "libdata", "fndesc", "env", "signature", "objectmode", "lifted", "typeann",
                "reload_init", "referenced_envs",
            ],
        },
        codegen.JITCodeLibrary: {
            "enable_object_caching": ["self"],
            "_set_compiled_object": ["self", "value"],
            "_finalize_final_module": ["self"],
            "_get_module_for_linking": ["self"],
            "_finalize_dynamic_globals": ["self"],
            "_verify_declare_only_symbols": ["self"],
        },
        CPUDispatcher: {
            "typeof_pyval": ["self", "val"],
            "get_call_template": ["self", "args", "kws"],
            "compile": ["self", "sig"],
            "add_overload": ["self", "cres"],
        },
        getattr(numba_dispatcher, "_FunctionCompiler"): {"compile": ["self", "args", "return_type"]},
        CPUContext: {
            "get_executable": ["self", "library", "fndesc", "env"],
            "insert_user_function": ["self", "func", "fndesc", "libs"],
        },
    }
    missing = []
    for cls, methods in wanted.items():
        for method, parameters in methods.items():
            function = getattr(cls, method, None)
            if function is None or list(inspect.signature(function).parameters) != parameters:
                missing.append(f"{cls.__name__}.{method}({', '.join(parameters[1:])})")
    if not isinstance(getattr(numba.njit(_nothing), "_cache", None), caching.NullCache):
        missing.append("Dispatcher._cache")
    for owner, attribute in (
        (compiler.Flags, "no_compile"),
        (compiler.Flags, "no_cpython_wrapper"),
        (codegen, "RuntimeLinker"),
        (compiler.DefaultPassBuilder, "define_nopython_pipeline"),
    ):
        if not hasattr(owner, attribute):
            missing.append(f"{owner.__name__}.{attribute}")
    if getattr(caching.FunctionCache, "_impl_class", None) is not caching.CompileResultCacheImpl:
        missing.append("FunctionCache._impl_class")
    return missing


def _nothing():
    pass


#: The form of the cache entries that :class:`_CachedResults` writes; part of every entry's key,
#: so that another form (an older release of the package) is compiled again, never misread.
_ENTRY_FORM = "link-only-2"

#: The kind of a cache entry without machine code (:class:`_LinkOnlyLibrary`); numba's own is
#: "object".
_LINK_ONLY = "link-only"


class _KernelLibrary(codegen.JITCodeLibrary):
    """The library of every kernel compiled here: numba's, with two changes.

    * The same function passes run once per module on its definitions. numba builds a new pass
      manager for every function of a module, declarations included (about eight in nine of
      them, on which the passes do nothing): 0.4 s of CPU over every game and agent, for the
      same IR.
    * The library of a kernel declared ``inline="never"`` (``_linked_late``) is linked into its
      callers after their optimisation (:meth:`finalize`). numba links every callee's optimised
      module into its caller's before optimising the caller, so LLVM's optimiser works through
      a callee's code once more at every level of the call chain above it, though a callee it
      will not inline comes out as it went in. A caller's own optimised module, without the
      late callees' code, is what its own callers link before their optimisation
      (``_for_callers``); its final module, with that code, is what runs.
    """

    #: Whether this is the library of a kernel declared ``inline="never"``.
    _linked_late = False
    #: The libraries linked into this one after its optimisation, its own late callees and
    #: those of the callees linked before (their code is in the final module, not in
    #: ``_for_callers``).
    _late_libraries: tuple[Any, ...] = ()
    #: This library's optimised module before the late libraries were linked, its functions
    #: ``linkonce_odr`` as in numba's module for linking; None where no library was late.
    _for_callers: Any = None

    def finalize(self) -> None:
        # numba's ``CPUCodeLibrary.finalize``, with the late libraries linked after the optimisation.
        if not all(hasattr(self, name) for name in ("_linking_libraries", "_reload_init", "_optimize_final_module", "_finalize_final_module")):
            return super().finalize()  # another numba: its own way
        require_global_compiler_lock()
        self._codegen._check_llvm_bugs()
        self._raise_if_finalized()
        late: dict[Any, None] = {}  # an ordered set
        for library in dict.fromkeys(self._linking_libraries):
            self._reload_init.update(library._reload_init)
            if getattr(library, "_linked_late", False):
                late[library] = None
                continue
            self._final_module.link_in(_module_for_callers(library), preserve=True)
            late.update(dict.fromkeys(getattr(library, "_late_libraries", ())))
        self._optimize_final_module()
        if late:
            module = self._final_module.clone()
            for function in module.functions:
                if not function.is_declaration and function.linkage == llvm.Linkage.external:
                    function.linkage = llvm.Linkage.linkonce_odr
            self._for_callers = module
            self._late_libraries = tuple(late)
            for library in late:
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._final_module.verify()
        self._finalize_final_module()

    def _optimize_functions(self, ll_module: Any) -> None:
        if not hasattr(self._codegen, "_function_pass_manager"):  # another numba: its own way
            return super()._optimize_functions(ll_module)
        ll_module.data_layout = self._codegen._data_layout
        manager = None
        for function in ll_module.functions:
            if function.is_declaration:
                continue
            if manager is None:
                manager, builder = self._codegen._function_pass_manager()
            manager.run(function, builder)


def _module_for_callers(library: Any) -> Any:
    """The module that ``library``'s callers link before their optimisation (see
    :class:`_KernelLibrary`): numba's module for linking, less the code of the libraries linked
    late into it."""
    library._ensure_finalized()
    module = getattr(library, "_for_callers", None)
    return library._get_module_for_linking() if module is None else module


class _LinkOnlyLibrary(_KernelLibrary):
    """The library of a kernel compiled because another kernel's typing reached it: optimised
    LLVM IR for its callers to link (they run their own copies of it), no machine code.

    numba makes each such library runnable on its own (a CPython wrapper, the whole module
    turned into machine code), though nothing may ever call it from Python: five in six of the
    libraries that compiling every game and agent makes. Here the machine code and the wrapper
    wait until Python calls the kernel with that signature (:meth:`_KernelDispatcher.compile`).
    A module that refers to itself through numba's run-time linker (a recursive kernel) is made
    runnable as numba does, since its references are resolved in the execution engine."""

    def _finalize_final_module(self) -> None:
        module = self._final_module
        if any(variable.name.startswith(codegen.RuntimeLinker.PREFIX) for variable in module.global_variables):
            super()._finalize_final_module()
            self.__class__ = _KernelLibrary  # type: ignore[assignment]
            return
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def serialize_using_object_code(self) -> tuple[str, str, tuple[bytes, bytes]]:
        return (self.name, _LINK_ONLY, (b"", self._get_module_for_linking().as_bitcode()))


class _CachedLibrary(codegen.JITCodeLibrary):
    """A library loaded from the cache whose bitcode is parsed only when a kernel compiled later
    in the process links it.

    numba stores each cache entry as machine code (what runs) and LLVM bitcode (what a later
    compilation links and inlines), and parses the bitcode and walks its symbols at every load:
    about half the CPU time of loading a kernel, spent in every process for code that is only
    run. Here the machine code is loaded as numba does, the names of the symbols it defines come
    from the cache entry, and the bitcode waits in ``_bitcode``. An entry of a
    :class:`_LinkOnlyLibrary` has no machine code: its library is the bitcode alone.
    """

    _bitcode: bytes | None = None
    #: Whether this is the library of a kernel declared ``inline="never"`` (see :class:`_KernelLibrary`).
    _linked_late = False

    @property
    def _shared_module(self) -> Any:
        module = self.__dict__.get("_parsed_module")
        if module is None and self._bitcode is not None:
            module = self.__dict__["_parsed_module"] = llvm.parse_bitcode(self._bitcode)
        return module

    @_shared_module.setter
    def _shared_module(self, module: Any) -> None:
        self.__dict__["_parsed_module"] = module

    @classmethod
    def load(cls, target_codegen: Any, name: str, object_code: bytes, bitcode: bytes, symbols: tuple[str, ...]) -> "_CachedLibrary":
        library = cls(target_codegen, name)
        library._bitcode = bitcode
        if not object_code:  # a link-only entry: nothing for the engine
            library._finalized = True
            return library
        library.enable_object_caching()
        library._set_compiled_object(object_code)
        library._finalize_final_module()  # adds the machine code to the engine
        engine = target_codegen._engine
        if isinstance(getattr(engine, "_defined_symbols", None), set):
            engine._defined_symbols.update(symbols)
        else:  # another numba: its own way, from the bitcode
            engine._load_defined_symbols(library._shared_module)
        return library


class _LinkOnlyEntry:
    """The entry point of a kernel's signature that has no machine code (a
    :class:`_LinkOnlyLibrary`): a key under which numba finds the kernel's IR for its callers,
    never called (the dispatcher compiles the runnable version when Python calls it)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<link-only kernel {self.name}>"


class _CachedResults(caching.CompileResultCacheImpl):
    """numba's serialisation of a compiled kernel, with the names of the symbols its library
    defines stored beside it, and loaded as a :class:`_CachedLibrary`."""

    def __init__(self, py_func: Callable) -> None:
        super().__init__(py_func)
        self._linked_late = py_func in _LINKED_LATE

    def reduce(self, cres):
        (name, kind, (object_code, bitcode)), *rest = super().reduce(cres)
        symbols: tuple[str, ...] = ()
        if kind != _LINK_ONLY:
            module = cres.library._get_module_for_linking()
            symbols = tuple(
                value.name for values in (module.functions, module.global_variables) for value in values if not value.is_declaration
            )
        return ((name, _ENTRY_FORM, (object_code, bitcode, symbols)), *rest)

    def rebuild(self, target_context, payload):
        # The steps of numba's ``CompileResult._rebuild``, with the library loaded lazily.
        (name, kind, (object_code, bitcode, symbols)), fndesc, env, signature, objectmode, lifted, typeann, reload_init, referenced_envs = payload
        for function in reload_init or ():
            function()
        library = _CachedLibrary.load(target_context.codegen(), name, object_code, bitcode, symbols)
        library._linked_late = self._linked_late
        if fndesc.llvm_cpython_wrapper_name in symbols:
            entry_point = target_context.get_executable(library, fndesc, env)
        else:
            entry_point = _LinkOnlyEntry(fndesc.qualname)
        make_result: Any = compiler.CompileResult  # a namedtuple of numba's, untyped
        result = make_result(
            target_context=target_context,
            typing_context=target_context.typing_context,
            library=library,
            environment=env,
            entry_point=entry_point,
            fndesc=fndesc,
            type_annotation=typeann,
            signature=signature,
            objectmode=objectmode,
            lifted=lifted,
            typing_error=None,
            call_helper=None,
            metadata=None,
            reload_init=reload_init,
            referenced_envs=referenced_envs,
        )
        if object_code:
            for referenced in referenced_envs:
                library.codegen.set_env(referenced.env_name, referenced)
        return result


class _KernelCache(caching.FunctionCache):
    """numba's ``FunctionCache`` with each entry's key extended by the entry's dependency hash
    (and the entries' form), a stale entry of the same signature replaced when a new one is saved
    (numba would keep it until the function's own file changes, and the cache would grow with
    every edit), and entries loaded by :class:`_CachedResults`."""

    _impl_class = _CachedResults

    def _index_key(self, sig, codegen):
        return (*super()._index_key(sig, codegen), f"{_ENTRY_FORM}:{_dependency_hash(self._py_func, sig)}")

    def load_overload(self, sig, target_context):
        # numba's own first refreshes the whole target context, which imports every part of numba
        # (numba.np.linalg imports scipy.linalg when scipy is installed): about 0.4 s of CPU in
        # each process, spent before the first cached kernel runs. Machine code loaded from the
        # cache needs only the runtime it calls; compiling refreshes the context itself.
        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    def _save_overload(self, sig, data):
        key = self._index_key(sig, data.codegen)
        overloads = self._cache_file._load_index()
        stale = [old for old in overloads if old[:-1] == key[:-1] and old != key]
        if stale:
            for old in stale:
                del overloads[old]  # its data file is the first free name: the new entry's
            self._cache_file._save_index(overloads)
        super()._save_overload(sig, data)


_MISSING_INTERNALS = [] if JIT_DISABLED else numba_internals_missing()
#: Whether signatures that only kernels call are compiled link-only (:class:`_KernelDispatcher`).
_LINK_ONLY_ENABLED = not _MISSING_INTERNALS
#: The prefix of the names of numba's environment globals (``CompileResult._find_referenced_environments``).
_ENVIRONMENT_PREFIX = "_ZN08NumbaEnv"


# numba types a state record (or an array of them) passed from Python by building its Record
# type from the dtype, field by field, at every call (its C fast path knows plain dtypes only):
# 0.14 ms for a Dominoes state, paid by every kernel call of the Python face. The type of a dtype
# never changes (numba interns types: the same dtype gives an equal type), so it is built once.
# (Where a numba release lacks ``numpy_support.from_struct_dtype``, nothing is changed.)
_RECORD_TYPES: dict[tuple[np.dtype, bool], Any] = {}
_record_type_of_dtype: Any = getattr(numpy_support, "from_struct_dtype", None)


def _record_type(dtype: np.dtype) -> Any:
    key = (dtype, bool(dtype.isalignedstruct))
    record = _RECORD_TYPES.get(key)
    if record is None:
        record = _RECORD_TYPES[key] = _record_type_of_dtype(dtype)
    return record


if not JIT_DISABLED and _record_type_of_dtype is not None:
    numpy_support.from_struct_dtype = _record_type
_NO_CACHE_WARNED: list[str] = []


class _DeferredCache(caching.NullCache):
    """The cache of a kernel until its first load or compilation, which opens the real one
    (:func:`_open_cache`): numba's own, made at decoration, finds and test-writes the cache folder
    (a temporary file per kernel), file system work that importing the package would pay for
    every kernel of every game, though a process runs a few of them."""

    def __init__(self, dispatcher: Any):
        self._dispatcher = dispatcher

    def _opened(self) -> Any:
        _open_cache(self._dispatcher)
        return self._dispatcher._cache

    @property
    def cache_path(self) -> str | None:
        return self._opened().cache_path

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        return self._opened().load_overload(sig, target_context)

    def save_overload(self, sig: Any, cres: Any) -> None:
        self._opened().save_overload(sig, cres)

    def flush(self) -> None:
        self._opened().flush()


def _open_cache(dispatcher: Any) -> None:
    """Caches ``dispatcher``'s compiled code with a :class:`_KernelCache`. Where that cannot be
    (no writable cache folder, or this numba lacks what the cache needs) the kernel compiles in
    every process, after one warning; a function with no source file (typed at a prompt) cannot
    be cached and says nothing."""
    dispatcher._cache = caching.NullCache()
    why = None
    if _MISSING_INTERNALS:
        why = f"numba {numba.__version__} lacks what board-arena's kernel cache needs ({', '.join(_MISSING_INTERNALS)})"
    else:
        try:
            cache = _KernelCache(dispatcher.py_func)
        except RuntimeError:  # numba: "cannot cache function ...: no locator available"
            if not Path(inspect.getfile(dispatcher.py_func)).is_file():
                return
            why = "no writable folder for numba's cache (set NUMBA_CACHE_DIR to one)"
        else:
            if hasattr(cache, "_py_func") and hasattr(cache, "_cache_file"):
                dispatcher._cache = cache
                return
            why = f"numba {numba.__version__} lacks what board-arena's kernel cache needs (FunctionCache._cache_file)"
    if why and not _NO_CACHE_WARNED:
        _NO_CACHE_WARNED.append(why)
        warnings.warn_explicit(
            f"{why}: kernels are compiled in every process, which costs some seconds at each start",
            RuntimeWarning,
            filename="board-arena",
            lineno=0,
        )


def _call_type(argument: Any) -> Any:
    """The type a kernel is compiled for when another kernel calls it with ``argument``: a literal
    as its plain type, a signed integer narrower than 64 bits as int64."""
    argument = types.unliteral(argument)
    if isinstance(argument, types.Integer) and getattr(argument, "signed") and getattr(argument, "bitwidth") < 64:
        return types.int64
    return argument


#: numba's ``BaseFunction.get_call_type``, which :func:`_lean_compilation` wraps.
_numba_call_type = BaseFunction.get_call_type
#: The signatures that numba's typing found for calls of its functions (operators, builtins,
#: ``@overload``s, intrinsics), by function, typing context, target, argument types and flags.
_CALL_TYPES: dict[tuple[Any, ...], tuple[Any, Any]] = {}
#: The different values of the flags that compilations ran with (numba's ``ConfigStack`` top, a
#: copy made when each starts), and each compilation's flags by id with the index of their
#: values there (numba's ``Flags.__eq__`` builds the dicts of values at every comparison).
_FLAG_VALUES: list[dict[str, Any]] = []
_FLAGS_SEEN: dict[int, tuple[Any, int]] = {}


def _flags_index(flags: Any) -> int:
    seen = _FLAGS_SEEN.get(id(flags))
    if seen is None or seen[0] is not flags:
        values = flags.values() if flags is not None else {}
        if values not in _FLAG_VALUES:
            _FLAG_VALUES.append(values)
        seen = _FLAGS_SEEN[id(flags)] = (flags, _FLAG_VALUES.index(values))
    return seen[1]


def _memoised_call_type(self: Any, context: Any, args: Any, kws: Any) -> Any:
    """numba's ``get_call_type``, remembered. numba types every ``a + b``, ``x[i]`` or ``bool(y)``
    afresh: it tries the function's templates in turn, and each that does not match formats an
    error message (for the operators, a list of every signature they take) that nobody reads
    when a later one matches. A kernel asks the same few hundred questions thousands of times
    over (8,016 calls, 635 different, for Kalah and Morabaraba with their agents). The answer
    depends on nothing else than the key: the templates are fixed for a function type (numba
    makes a new type when more are registered), and an ``@overload`` is chosen by the same key
    (its ``_impl_cache``, flags included). What numba stores on the way (the implementation's
    key, for lowering) is stored again. Failures are not remembered: numba raises them anew."""
    key = (self, context, get_local_target(context), tuple(args), tuple(kws.items()), _flags_index(ConfigStack.top_or_none()))
    found = _CALL_TYPES.get(key)
    if found is not None:
        signature, implementation = found
        self._impl_keys[signature.args] = implementation
        return signature
    signature = _numba_call_type(self, context, args, kws)
    if signature is not None:
        _CALL_TYPES[key] = (signature, self._impl_keys[signature.args])
    return signature


#: The ABI sizes of LLVM types, by target data and the type's text.
_ABI_SIZES: dict[tuple[Any, str], int] = {}


def _memoised_abi_sizeof(self: Any, ty: Any) -> int:
    """numba's ``get_abi_sizeof``, remembered: llvmlite answers it by printing a module that holds
    a variable of the type and parsing it back into LLVM (0.3 ms), and numba's lowering asks it
    for every variable it allocates (over a thousand times for Kalah and Morabaraba with their
    agents, for a few dozen types). A named struct is sized afresh: its text is its name."""
    if isinstance(ty, ir.IdentifiedStructType):
        return _numba_abi_sizeof(self, ty)
    key = (self.target_data, str(ty))
    size = _ABI_SIZES.get(key)
    if size is None:
        size = _ABI_SIZES[key] = _numba_abi_sizeof(self, ty)
    return size


#: What cannot hold an IR variable, among the values of an IR node's attributes.
_IR_LEAVES = frozenset({str, int, float, bool, type(None), numba_ir.Loc, python_types.BuiltinFunctionType, python_types.FunctionType})


def _listed_vars(self: Any, value: Any) -> list[Any]:
    """numba's ``Inst._rec_list_vars`` (the variables an IR node uses, in order), without its
    recursive call and list for every attribute of every node: numba's analyses ask for them
    again and again (1.5 million calls for Kalah and Morabaraba with their agents)."""
    found: list[Any] = []
    _collect_vars(value, found)
    return found


def _collect_vars(value: Any, found: list[Any]) -> None:
    kind = type(value)
    if kind is dict:
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    elif isinstance(value, numba_ir.Var):  # numba's own order of tests, for any other kind
        found.append(value)
        return
    elif isinstance(value, numba_ir.Inst):
        found.extend(value.list_vars())
        return
    elif isinstance(value, (list, tuple)):
        items = value
    elif isinstance(value, dict):
        items = value.values()
    else:
        return
    for item in items:  # the variables and leaves among them without a call each
        kind = type(item)
        if kind is numba_ir.Var:
            found.append(item)
        elif kind not in _IR_LEAVES:
            _collect_vars(item, found)


_numba_abi_sizeof = BaseContext.get_abi_sizeof


def _postprocessed(self: Any, emit_dels: bool = False, extend_lifetimes: bool = False) -> None:
    """numba's ``PostProcessor.run`` (which its passes call after they change a function's IR,
    some nine times per compilation), without the variables live at each block's entry when no
    one will read them. numba computes them, with the uses, definitions and liveness they rest
    on, at every call; they are read only where the IR is lowered in object mode (never for a
    kernel) or is a generator's, and the analyses they rest on only where the next variable
    deletions are placed (``emit_dels``, done as numba does) or where a ``with`` block is lifted
    or ``literal_unroll`` unrolled (also done as numba does, the IR checked for both): a third
    of the post-processing time over every game and agent (0.9 s of CPU). The analyses stay
    available, computed when first read, as numba's ``VariableLifetime`` does."""
    func_ir = self.func_ir
    if emit_dels or func_ir.is_generator or _lifted_or_unrolled(func_ir):
        return _numba_postprocess(self, emit_dels, extend_lifetimes)
    func_ir.blocks = numba_transforms.canonicalize_cfg(func_ir.blocks)
    func_ir.variable_lifetime = numba_postproc.VariableLifetime(func_ir.blocks)
    func_ir.generator_info = None


def _lifted_or_unrolled(func_ir: Any) -> bool:
    """Whether ``func_ir`` has a ``with`` block or a ``literal_unroll``, whose passes read the
    liveness of the last post-processing."""
    for block in func_ir.blocks.values():
        for statement in block.body:
            if type(statement) is numba_ir.EnterWith:
                return True
            value: Any = getattr(statement, "value", None)
            if type(value) in (numba_ir.Global, numba_ir.FreeVar) and value.value is numba.literal_unroll:
                return True
    return False


_numba_postprocess = numba_postproc.PostProcessor.run


def _takes(function: Any, parameters: list[str]) -> bool:
    try:
        return list(inspect.signature(function).parameters) == parameters
    except (TypeError, ValueError):
        return False


#: numba's methods that :func:`_lean_compilation` replaces while kernels compile: (class, name,
#: numba's, the replacement), each where this numba's takes the parameters it is written for
#: (``tests/test_cache.py`` checks that all are there on the numba that CI installs).
_LEAN_METHODS = tuple(
    method for method, parameters in (
        ((BaseFunction, "get_call_type", _numba_call_type, _memoised_call_type), ["self", "context", "args", "kws"]),
        ((BaseContext, "get_abi_sizeof", _numba_abi_sizeof, _memoised_abi_sizeof), ["self", "ty"]),
        ((numba_ir.Inst, "_rec_list_vars", numba_ir.Inst._rec_list_vars, _listed_vars), ["self", "val"]),
        ((numba_postproc.PostProcessor, "run", _numba_postprocess, _postprocessed), ["self", "emit_dels", "extend_lifetimes"]),
    )
    if _takes(method[2], parameters)
)


@contextlib.contextmanager
def _lean_compilation() -> Iterator[None]:
    """While kernels compile (under numba's compiler lock), costs of numba's that change nothing
    in the result are left out (some 7 s of CPU over every game and agent):

    * numba's answers to typing questions, to ABI sizes and to the variables of IR nodes are
      remembered or found faster, and its post-processing of the IR skips what no one reads
      (:data:`_LEAN_METHODS`);
    * numba types a call by trying many templates, and a failed try builds an error message
      highlighted through colorama, which re-initialises and tears down colorama's wrapping of
      the standard streams for every piece of highlighted text (some 40,000 times). The same
      text (the same escape codes) is made here by concatenation;
    * llvmlite calls numba back around every call into LLVM (some 170,000), so that numba can
      time them in each compilation's metadata (``timers["llvm_lock"]``, left at 0 here);
    * Python's cyclic garbage collector is paused (by the outermost compilation, if it was
      running). A compilation makes millions of objects (numba's IR, types and llvmlite's IR),
      most of which live until it ends; the collector went over them again and again, the
      whole process's objects in each of its 16 full collections over every game and agent, for
      a sixth of the CPU time. What a compilation leaves for the collector is collected after it,
      in the collections that its allocations start (peak memory over every game and agent
      417 MB instead of 392 MB).

    All is put back afterwards, also after a failed compilation."""
    # numba's modules keep the scheme they got at import (``_termcolor = termcolor()``): its
    # method is replaced on that one instance, for the time being, not the module's global.
    scheme: Any = errors.termcolor()
    colorama_style: Any = getattr(errors, "Style", None)
    highlighted = colorama_style is not None and type(scheme) is getattr(errors, "HighlightColorScheme", None)
    highlighted = highlighted and "_markup" not in vars(scheme)  # else done already: a compilation inside one
    if highlighted:
        bright, reset = colorama_style.BRIGHT, colorama_style.RESET_ALL
        scheme._markup = lambda msg, color=None, style=bright: (color or "") + (style or "") + msg + reset
    lock = getattr(llvm.ffi.lib, "_lock", None)
    callbacks = getattr(lock, "_cblist", None)
    if isinstance(callbacks, list):
        setattr(lock, "_cblist", [])
    # Each only where numba's is in place (else done already: a compilation inside another).
    replaced = [method for method in _LEAN_METHODS if vars(method[0]).get(method[1]) is method[2]]
    for owner, name, _, lean in replaced:
        setattr(owner, name, lean)
    collecting = gc.isenabled()  # else paused already: by a compilation outside this one, or the user
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
        for owner, name, numba_s, _ in replaced:
            setattr(owner, name, numba_s)
        if highlighted:
            del scheme._markup
        if isinstance(callbacks, list):
            setattr(lock, "_cblist", callbacks)


class _KernelDispatcher(CPUDispatcher):
    """numba's dispatcher, compiling one version of a kernel where numba would compile several
    for its callers: numba types a call from compiled code with the caller's argument types as
    they are, so ``f(s, 1)``, ``f(s, -1)``, ``f(s, k)`` and ``f(s, s.to_move)`` (an int8 field)
    were four compilations of ``f`` (of its whole body and of everything it inlines), each
    differing only in a constant or an int width. Here a literal argument is typed as its plain
    type and a narrower signed int as int64 (numba computes in int64 anyway); the caller converts
    its argument. A constant argument still folds where LLVM inlines the kernel.

    A signature that only kernels call is compiled to a :class:`_LinkOnlyLibrary` (IR for the
    callers to link, no machine code, no CPython wrapper) and cached so; Python's first call with
    it makes it runnable (:meth:`compile`), and the cache entry is replaced by the runnable one."""

    #: Set while another kernel's typing asks for a signature (``get_call_template``).
    _for_kernels = False
    _cache: Any
    _compiler: Any

    def get_call_template(self, args: Any, kws: Any) -> Any:
        self._for_kernels = _LINK_ONLY_ENABLED
        try:
            return super().get_call_template(tuple(_call_type(a) for a in args), {k: _call_type(v) for k, v in kws.items()})
        finally:
            self._for_kernels = False

    def typeof_pyval(self, val: Any) -> Any:
        # numba types an array argument by first asking whether it is a numpy.ma masked array,
        # which imports numpy.ma: 10 ms of CPU at the first kernel call of every process. A plain
        # ndarray (what kernels take) is typed here exactly as numba types it, without that.
        if type(val) is not np.ndarray:
            return super().typeof_pyval(val)
        try:
            dtype = numpy_support.from_dtype(val.dtype)
        except NumbaNotImplementedError:  # numba's own says which dtype it cannot take
            return super().typeof_pyval(val)
        array = types.Array(dtype, val.ndim, numpy_support.map_layout(val), readonly=not val.flags.writeable)
        active = getattr(self, "_types_active_call", None)  # numba's own adds the call's types there
        if active is not None:
            active.add(array)
        return array

    def compile(self, sig: Any) -> Any:
        with global_compiler_lock, _lean_compilation():
            return self._compile(sig)

    def _compile(self, sig: Any) -> Any:
        # Read once: a compilation that this one's typing starts asks again for its own.
        for_kernels, self._for_kernels = self._for_kernels, False
        if for_kernels:
            key = (self.py_func, tuple(sigutils.normalize_signature(sig)[0]))
            _LINK_ONLY_COMPILES.add(key)
            try:
                return super().compile(sig)
            finally:
                _LINK_ONLY_COMPILES.discard(key)
        entry = super().compile(sig)
        if entry is None or isinstance(entry, _LinkOnlyEntry):
            return self._make_runnable(sig)
        return entry

    def add_overload(self, cres: Any) -> None:
        if cres.entry_point is None:  # lowered by _LinkOnlyLowering: finalised here, link-only
            cres.library.__class__ = _LinkOnlyLibrary
            cres.library.finalize()
            cres.reload_init.extend(cres.library._reload_init)
            cres = cres._replace(entry_point=_LinkOnlyEntry(cres.fndesc.qualname))
            self.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
        if isinstance(cres.entry_point, _LinkOnlyEntry):
            self.overloads[tuple(cres.signature.args)] = cres  # typed and linked, never called
            return
        if not isinstance(cres.library, _CachedLibrary):  # compiled here (a load sets its own)
            _set_environments(cres.library)
        super().add_overload(cres)

    def _make_runnable(self, sig: Any) -> Any:
        """Python calls the link-only signature ``sig``: it is compiled again as numba compiles
        it, with its wrapper and machine code, and replaces the link-only one (and its cache
        entry). (A wrapper linked with the link-only IR would be cheaper, but its environment
        global would be a second copy beside those of the callers loaded before it.)"""
        with global_compiler_lock:
            args, return_type = sigutils.normalize_signature(sig)
            existing: Any = self.overloads[tuple(args)]
            if not isinstance(existing.entry_point, _LinkOnlyEntry):
                return existing.entry_point
            runnable = self._compiler.compile(tuple(args), return_type)
            self.add_overload(runnable)
            self._cache.save_overload(sig, runnable)
            return runnable.entry_point


#: (function, argument types) of each compilation under way for kernels only (link-only).
_LINK_ONLY_COMPILES: set[tuple[Any, tuple[Any, ...]]] = set()
#: The Python functions of the kernels declared ``inline="never"`` (see :class:`_KernelLibrary`).
_LINKED_LATE: set[Callable[..., Any]] = set()


@register_pass(mutates_CFG=False, analysis_only=True)
class _LinkOnlyLowering(AnalysisPass):
    """Lowers a compilation for kernels only without a CPython wrapper and without machine code
    (numba's ``no_compile``: the library is left to :meth:`_KernelDispatcher.add_overload`).
    The flags are set here, just before lowering, not when the compilation starts: numba
    compiles an ``@overload``'s implementation once per set of its callers' flags, and would
    compile numpy's ``np.empty`` again for every link-only caller. It also makes every kernel's
    library a :class:`_KernelLibrary` (numba's lowering would make a plain one), marked
    ``_linked_late`` where the kernel is declared ``inline="never"``."""

    _name = "board_arena_link_only_lowering"

    def __init__(self) -> None:
        AnalysisPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        if state.library is None:  # as numba's lowering makes it, of this project's class
            state.library = state.targetctx.codegen().create_library(state.func_id.func_qualname)
            state.library.enable_object_caching()
        library: Any = state.library
        if type(library) is codegen.JITCodeLibrary:
            library.__class__ = _KernelLibrary
        library._linked_late = state.func_id.func in _LINKED_LATE
        if (state.func_id.func, tuple(state.args)) in _LINK_ONLY_COMPILES:
            state.flags.no_cpython_wrapper = True
            state.flags.no_compile = True
        return False


def _allocate_array(context: Any, builder: Any, array: Any, shape_type: Any, shape: Any, zeroed: bool) -> Any:
    """The code of ``np.empty`` (or ``np.zeros``, ``zeroed``) of numba's overloads: an array of
    type ``array`` and the shape ``shape`` (an int or a tuple of them, of type ``shape_type``)."""
    shapes = arrayobj._parse_shape(context, builder, shape_type, shape)
    made = arrayobj._empty_nd_impl(context, builder, array, shapes)
    if zeroed:
        cgutils.memset(builder, made.data, builder.mul(made.itemsize, made.nitems), 0)
    return made._getvalue()


def _array_allocator(zeroed: bool) -> Any:
    """The intrinsic that :class:`_NumpyAllocations` puts in place of ``np.zeros`` (``zeroed``)
    or ``np.empty``: the array type of numba's overloads, made by the allocation code they call."""

    def allocate(typingctx: Any, shape: Any, dtype: Any = None) -> Any:
        if dtype is None or isinstance(dtype, (types.NoneType, types.Omitted)) or (
            isinstance(dtype, types.Function) and dtype.typing_key is float
        ):
            element = types.float64
        else:
            element = parse_dtype(dtype)
        ndim = parse_shape(shape)
        if element is None or ndim is None:
            name = "np.zeros" if zeroed else "np.empty"
            raise errors.TypingError(f"{name}: cannot make an array of shape {shape} and dtype {dtype}")
        array = types.Array(element, ndim, "C")

        def codegen(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
            return _allocate_array(context, builder, array, signature.args[0], arguments[0], zeroed)

        return array(shape, types.Omitted(None) if dtype is None else dtype), codegen

    allocate.__name__ = allocate.__qualname__ = "zeros" if zeroed else "empty"
    return intrinsic(allocate)


_NUMPY_ALLOCATORS = {"empty": _array_allocator(False), "zeros": _array_allocator(True)}

# The numba internals the allocators call; with another numba's, kernels keep numba's overloads.
_ALLOCATION_INTERNALS = [
    list(inspect.signature(getattr(arrayobj, name)).parameters) if hasattr(arrayobj, name) else None
    for name in ("_parse_shape", "_empty_nd_impl")
] == [["context", "builder", "ty", "val"], ["context", "builder", "arrtype", "shapes"]]


@intrinsic
def empty_records(typingctx: Any, record: Any, count: Any) -> Any:
    """``np.empty(count, dtype)`` in a kernel, ``dtype`` being the record type of ``record``: an
    uninitialised C array of ``count`` such records. (A kernel cannot take the dtype from a
    record; an ``@overload`` that returns ``np.empty(n, dtype)`` is compiled once per record
    type as a function with machine code of its own, and numpy's ``np.empty`` with it.)"""
    if not isinstance(record, types.Record) or not isinstance(count, types.Integer):
        raise errors.TypingError(f"empty_records: takes a record and an int, not {record} and {count}")
    array = types.Array(record, 1, "C")

    def codegen(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
        if _ALLOCATION_INTERNALS:
            return _allocate_array(context, builder, array, count, arguments[1], False)
        dtype = numpy_support.as_dtype(record)
        return context.compile_internal(builder, lambda record, count: np.empty(count, dtype), signature, arguments)

    return array(record, count), codegen


@register_pass(mutates_CFG=False, analysis_only=False)
class _NumpyAllocations(FunctionPass):
    """Has a kernel's ``np.empty`` and ``np.zeros`` allocate through :func:`_array_allocator`'s
    intrinsics, with the code that numba's own overloads run. numba compiles those overloads as
    functions of their own, once per shape type and dtype (``np.zeros`` as three), each through
    the whole pipeline and LLVM: about 1.4 s of CPU over every game and agent, for arrays that
    come out the same."""

    _name = "board_arena_numpy_allocations"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        func_ir = state.func_ir
        changed = False
        for block in func_ir.blocks.values():
            for statement in block.body:
                if not isinstance(statement, numba_ir.Assign):
                    continue
                value = statement.value
                if isinstance(value, numba_ir.Expr) and value.op == "getattr" and value.attr in ("empty", "zeros"):
                    owner = guard(get_definition, func_ir, value.value)
                    if not (isinstance(owner, (numba_ir.Global, numba_ir.FreeVar)) and owner.value is np):
                        continue
                    name = value.attr
                elif isinstance(value, (numba_ir.Global, numba_ir.FreeVar)) and value.value is np.empty:
                    name = "empty"
                elif isinstance(value, (numba_ir.Global, numba_ir.FreeVar)) and value.value is np.zeros:
                    name = "zeros"
                else:
                    continue
                statement.value = numba_ir.Global(name, _NUMPY_ALLOCATORS[name], value.loc)
                changed = True
        return changed


def _extremum(maximum: bool) -> Any:
    """The intrinsic that :class:`_ScalarExtrema` puts in place of ``max(a, b)`` (``maximum``) or
    ``min(a, b)`` of two numbers: the type and the code of numba's overload (``max_vararg``)."""

    def extremum(typingctx: Any, a: Any, b: Any) -> Any:
        a, b = types.unliteral(a), types.unliteral(b)
        scalars = all(isinstance(t, (types.Number, types.Boolean)) for t in (a, b))
        result = typingctx.unify_types(a, b) if scalars else None
        if result is None:
            name = "max" if maximum else "min"
            raise errors.TypingError(f"{name}(a, b): takes two numbers (or booleans) of types that unify, not {a} and {b}")

        def codegen(context: Any, builder: Any, signature: Any, arguments: Any) -> Any:
            compare = operator.gt if maximum else operator.lt
            return numba_builtins.do_minmax(context, builder, list(signature.args), list(arguments), compare)

        return result(a, b), codegen

    extremum.__name__ = extremum.__qualname__ = "max" if maximum else "min"
    return intrinsic(extremum)


_EXTREMA = {max: _extremum(True), min: _extremum(False)}

# The numba internal the extrema call; with another numba's, kernels keep numba's overloads.
_EXTREMUM_INTERNALS = hasattr(numba_builtins, "do_minmax") and list(
    inspect.signature(numba_builtins.do_minmax).parameters
) == ["context", "builder", "argtys", "args", "cmpop"]


@register_pass(mutates_CFG=False, analysis_only=False)
class _ScalarExtrema(FunctionPass):
    """Has a kernel's ``max(a, b)`` and ``min(a, b)`` call :func:`_extremum`'s intrinsics, which
    lower numba's code in place. numba's ``max`` and ``min`` are overloads compiled as functions
    of their own, with machine code, once per pair of argument types: eight of them over every
    game and agent. Only calls of two positional arguments are taken: for those numba's overloads
    take numbers (and booleans) alone, with the same type and result; ``max(iterable)`` and
    longer calls stay numba's."""

    _name = "board_arena_scalar_extrema"

    def __init__(self) -> None:
        FunctionPass.__init__(self)

    def run_pass(self, state: Any) -> bool:
        func_ir = state.func_ir
        changed = False
        for block in func_ir.blocks.values():
            body = []
            for statement in block.body:
                value = getattr(statement, "value", None)
                if (
                    isinstance(statement, numba_ir.Assign)
                    and isinstance(value, numba_ir.Expr)
                    and value.op == "call"
                    and len(value.args) == 2
                    and not value.kws
                    and value.vararg is None
                    and value.varkwarg is None
                ):
                    callee = guard(get_definition, func_ir, value.func)
                    if isinstance(callee, (numba_ir.Global, numba_ir.FreeVar)) and callee.value in (max, min):
                        extremum = _EXTREMA[callee.value]
                        function = numba_ir.Var(block.scope, mk_unique_var(f"${callee.value.__name__}"), value.loc)
                        definition = numba_ir.Global(callee.value.__name__, extremum, value.loc)
                        body.append(numba_ir.Assign(definition, function, value.loc))
                        func_ir._definitions[function.name] = [definition]
                        value.func = function
                        changed = True
                body.append(statement)
            block.body = body
        return changed


class _KernelPipeline(compiler.CompilerBase):
    """numba's nopython pipeline with :class:`_NumpyAllocations` and :class:`_ScalarExtrema`
    before the typing and :class:`_LinkOnlyLowering` before the lowering."""

    def define_pipelines(self) -> list[Any]:
        pipeline = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
        if _ALLOCATION_INTERNALS:
            pipeline.add_pass_after(_NumpyAllocations, IRProcessing)
        if _EXTREMUM_INTERNALS:
            pipeline.add_pass_after(_ScalarExtrema, IRProcessing)
        pipeline.add_pass_after(_LinkOnlyLowering, IRLegalization)
        pipeline.finalize()
        return [pipeline]


def _set_environments(library: Any) -> None:
    """Points the environment globals of ``library``'s machine code at their environments (numba
    sets a kernel's own when it makes it runnable; those of link-only kernels linked into it had
    no machine code to set)."""
    engine = library.codegen._engine
    for variable in library._final_module.global_variables:
        if variable.name.startswith(_ENVIRONMENT_PREFIX) and engine.get_global_value_address(variable.name):
            environment = lookup_environment(variable.name)
            if environment is not None:
                library.codegen.set_env(variable.name, environment)


def kernel(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """``numba.njit`` with this project's defaults: cached (with the dependency-aware key of the
    module docstring), numpy error model (no Python exception checks on division), no fastmath
    so that compiled and pure-Python runs agree bit for bit, and no C-callable wrapper (numba
    compiles one per function for its use as a first-class function value, which no kernel
    needs: about a tenth of the compile time; ``no_cfunc_wrapper=False`` brings it back).
    ``cache=False`` compiles in every process. Under ``NUMBA_DISABLE_JIT=1`` the function is
    returned as it is. Called from another kernel, it is compiled once per argument type, not per
    literal or int width of its callers (:class:`_KernelDispatcher`).

    ``inline="always"`` (the hot helpers of a game and of a search) is done by LLVM, not by
    numba: the kernel is compiled once per signature with ``forceinline`` and LLVM inlines it
    into every caller. numba's own inlining would type and lower the function again inside each
    caller; with it, compiling every game and agent from an empty cache took 89 s of CPU
    instead of 64 s (Morabaraba's random playout alone 13 s instead of 1.4 s), for machine code
    that runs at the same speed (``experiments/bench.py``). Any other kernel is inlined where
    LLVM's size heuristics say so: numba would give it the ``forceinline`` of the kernel whose
    typing first compiled it, so that which kernels were forced inline depended on the order of
    compilation (alpha-beta's inner loop, forced into its root's helper, was copied four times
    into every search; compiling every game and agent took 8 s of CPU more).

    ``inline="never"`` (a search's root, a world sampler: large kernels called once per search
    or per world, which LLVM would not inline anyway) links the kernel's optimised code into
    its callers after their optimisation, where numba links it before: the optimiser never
    works through it again, at each caller and each caller's caller (:class:`_KernelLibrary`).
    The callers call it as an external function, of which LLVM knows nothing (not even which
    memory it writes). Over every game and agent, the optimiser's input is 30% smaller."""
    options.setdefault("error_model", "numpy")
    options.setdefault("no_cfunc_wrapper", True)
    if func is None:
        return lambda f: kernel(f, **options)
    cache = options.pop("cache", True)
    inline = options.pop("inline", None)
    if inline not in (None, "always", "never"):
        raise ValueError(f"kernel: inline={inline!r}; allowed: 'always', 'never' or no inline option")
    options.setdefault("forceinline", inline == "always")
    if JIT_DISABLED:
        return func
    if inline == "never":
        _LINKED_LATE.add(func)
    dispatcher: Any = _KernelDispatcher(
        py_func=func,
        locals={},
        targetoptions={"nopython": True, "boundscheck": None, **options},
        pipeline_class=_KernelPipeline,
    )
    if cache:
        dispatcher._cache = _DeferredCache(dispatcher)
    return dispatcher


def caching_disabled() -> bool:
    """True when some kernel could not be cached (it compiles in every process)."""
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
def rng_step(x):
    """The generator on a state held in a local variable: ``(next state, 64 random bits)``.

    A loop that draws at every step (a playout) reads ``rng[0]`` once, steps a local copy and
    writes it back at the end: the state then stays in a register, where a store to the array
    at every draw would make the compiler reload everything else it cannot prove untouched.
    ``rng_next(rng)`` is ``rng_step(rng[0])`` with the state written back, so both give the same
    numbers.
    """
    x += _GOLDEN
    return x, mix64(x)


@kernel(inline="always")
def bits_below(bits, n):
    """Uniform int in [0, n) for 0 < n < 2**32 from 64 random ``bits`` (Lemire's multiply-shift of
    the top 32 bits, without rejection: each value's probability is off by less than n / 2**32,
    1e-8 for n = 50)."""
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


def deadline_after(seconds: float | None) -> int:
    """The :func:`monotonic_ns` reading ``seconds`` from now: the deadline that a compiled search
    compares its clock with. 0 (no deadline) when ``seconds`` is None or 0."""
    return int(monotonic_ns()) + int(seconds * 1e9) if seconds else 0


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


# nth_set_bit: Vigna's broadword select ("Broadword implementation of rank/select queries", 2008):
# byte counts by SWAR, their prefix sums by one multiplication, the byte by a SWAR compare, the
# bit within the byte from a table.
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


def _has_fast_pdep() -> bool:
    """Whether the compiled code may use BMI2's ``pdep`` instruction, and it is fast: an x86-64
    target whose features (numba's: ``NUMBA_CPU_FEATURES``, else the host's) include BMI2, and not
    AMD's Zen 1 or 2, where ``pdep`` is microcoded and takes tens of cycles or more. numba's cache
    keys its entries by the CPU name and features, so a cache is never shared across the two."""
    if JIT_DISABLED or llvm.get_process_triple().partition("-")[0] not in ("x86_64", "amd64"):
        return False
    features = getattr(config, "CPU_FEATURES")
    if features is None:
        features = codegen.get_host_cpu_features()
    cpu = getattr(config, "CPU_NAME") or llvm.get_host_cpu_name()
    return "+bmi2" in features.split(",") and cpu not in ("znver1", "znver2")


#: Whether :func:`nth_set_bit` is BMI2's ``pdep`` (see :func:`_has_fast_pdep`).
FAST_PDEP = _has_fast_pdep()


@intrinsic
def _pdep(typingctx, source, mask):
    """BMI2's parallel bit deposit: the low bits of ``source`` moved, in order, to the set bits of
    ``mask``."""
    if not (isinstance(source, types.Integer) and isinstance(mask, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        word = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(word, [word, word]), "llvm.x86.bmi.pdep.64")
        return builder.call(fn, [context.cast(builder, a, t, types.uint64) for a, t in zip(args, signature.args)])

    return types.uint64(source, mask), codegen


if FAST_PDEP:

    @kernel(inline="always")
    def nth_set_bit(x, k):
        """The index of the ``k``-th (from 0) lowest set bit of the uint64 ``x``, for 0 <= k <
        popcount(x), in constant time (no loop over the bits before it): ``pdep`` deposits the
        bit ``1 << k`` on the ``k``-th set bit of ``x``, three operations in a row. On a CPU
        without a fast ``pdep``, :func:`broadword_nth_set_bit`."""
        return _cttz(_pdep(_U1 << np.uint64(k), x))  # type: ignore[call-arg]  # an intrinsic: typed by numba

else:
    nth_set_bit = broadword_nth_set_bit
