"""numba's cache never runs stale code, and recompiles only what an edit touches: each cache entry
of a kernel is keyed by the sources of its module and of the modules it imports, and, for a
signature holding a game's state record, of that game's kernel module (reached through the
contract without an import). Each test works on a copy of the package and runs fresh processes."""

import contextlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

import board_arena.engines._jit as jit
from board_arena import engines
from board_arena.agents import alphabeta
from board_arena.engines import _face
from board_arena.engines.morabaraba import kernels as morabaraba_kernels

ROOT = Path(__file__).resolve().parent.parent

# Reports each kernel's result and whether all it needed came from the cache.
REPORT = """
def report(*calls):
    out = []
    for kernel, args in calls:
        value = kernel(*args)
        out.append(f"{value}:{'miss' if sum(kernel.stats.cache_misses.values()) else 'hit'}")
    print(" ".join(out))
"""


@contextlib.contextmanager
def compilations():
    """The Python functions that numba compiles inside the block (its compile events), in order."""
    from numba.core import event

    compiled: list = []

    class Compiles(event.Listener):
        def on_start(self, ev):
            compiled.append(ev.data["dispatcher"].py_func)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Compiles()):
        yield compiled


@pytest.fixture
def tree(tmp_path):
    """A copy of the package in ``tmp_path``, without compiled caches."""
    shutil.copytree(ROOT / "board_arena", tmp_path / "board_arena", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def run(tree: Path, script: str, env: dict | None = None, args: tuple | list = ()) -> list[str]:
    """Runs ``script`` (a file of ``tree``) in a fresh process; its printed words."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    environment.update(env or {})
    done = subprocess.run([sys.executable, script, *args], cwd=tree, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_kernels_have_the_project_cache_and_other_numba_functions_keep_numba_s():
    # Opened at the first load or compilation: importing the package touches no cache folder.
    unused = jit.kernel(lambda x: x - 1)
    assert isinstance(unused._cache, jit._DeferredCache)
    assert unused(3) == 2
    assert isinstance(unused._cache, jit._KernelCache)
    engines.make("kalah").new_initial_state().legal_moves()
    assert isinstance(_face.legal_moves._cache, jit._KernelCache)  # the face's compiled call
    plain = numba.njit(cache=True)(lambda x: x + 1)
    assert type(plain._cache).__name__ == "FunctionCache"


def test_the_numba_internals_the_cache_relies_on_are_there(tmp_path, monkeypatch):
    # If this fails after a numba upgrade, kernels compile in every process (never stale) until
    # the "kernel cache" section of engines/_jit.py is adapted to the new numba.
    missing = jit.numba_internals_missing()
    assert not missing, f"numba {numba.__version__} changed what the kernel cache relies on: {missing}"
    write(tmp_path / "probe_internals.py", """
        from board_arena.engines._jit import kernel

        @kernel
        def twice(x):
            return 2 * x
    """)
    monkeypatch.syspath_prepend(str(tmp_path))
    import probe_internals

    assert probe_internals.twice(21) == 42
    cache = probe_internals.twice._cache
    index = cache._cache_file._load_index()
    message = f"numba {numba.__version__} keys its cache entries differently"
    assert isinstance(index, dict) and len(index) == 1, message
    (key,) = index
    assert isinstance(key, tuple) and len(key) == 4, message
    signature, magic, code_hashes, dependencies = key
    assert signature == (numba.int64,) and isinstance(magic, tuple) and len(code_hashes) == 2, message
    assert dependencies == f"{jit._ENTRY_FORM}:{jit._dependency_hash(probe_internals.twice.py_func, signature)}"


def test_dependencies_are_the_module_and_what_it_imports_but_no_python_face():
    found = jit.cache_dependencies(alphabeta.alphabeta_search)
    assert {"board_arena.agents.alphabeta", "board_arena.agents.scores", "board_arena.engines.contract", "board_arena.engines._jit"} <= set(found)
    assert not {"board_arena.engines.game", "board_arena.engines.registry", "board_arena.engines"} & set(found)
    assert not any("mancala" in name for name in found)  # reached through the contract only
    assert "board_arena.engines.morabaraba.board" in jit.cache_dependencies(morabaraba_kernels.legal_moves)


CALLEE = """
from board_arena.engines._jit import kernel

@kernel
def value():
    return {value}
"""

CALLER = """
from board_arena.engines._jit import kernel
from board_arena.engines import probe_callee

OFFSET = {offset}

@kernel
def caller():
    return probe_callee.value() + OFFSET
"""

OTHER = """
from board_arena.engines._jit import kernel

@kernel
def other():
    return 7
"""

CALLS = REPORT + """
from board_arena.agents import probe_caller
from board_arena.engines import probe_callee, probe_other

report((probe_caller.caller, ()), (probe_callee.value, ()), (probe_other.other, ()))
"""


def test_an_edit_recompiles_the_kernels_of_the_file_and_those_that_import_it_and_no_other(tree):
    package = tree / "board_arena"
    write(package / "engines" / "probe_callee.py", CALLEE.format(value=1))
    write(package / "agents" / "probe_caller.py", CALLER.format(offset=10))
    write(package / "engines" / "probe_other.py", OTHER)
    write(tree / "calls.py", CALLS)
    assert run(tree, "calls.py") == ["11:miss", "1:miss", "7:miss"]  # compiled and cached
    assert run(tree, "calls.py") == ["11:hit", "1:hit", "7:hit"]
    write(package / "engines" / "probe_callee.py", CALLEE.format(value=2))  # an imported module
    assert run(tree, "calls.py") == ["12:miss", "2:miss", "7:hit"]  # not the stale 11
    # The new entry took the stale one's place: the cache does not grow with every edit.
    assert len(list(package.rglob("probe_caller.caller-*.nbc"))) == 1
    write(package / "agents" / "probe_caller.py", CALLER.format(offset=20))  # the kernel's own file
    assert run(tree, "calls.py") == ["22:miss", "2:hit", "7:hit"]


LINKS = """
import sys

from board_arena.engines import probe_callee

value = probe_callee.value
assert value() == 1
(result,) = value.overloads.values()
library = result.library
parsed = lambda: vars(library).get("_parsed_module") is not None  # without parsing it
print(type(library).__name__, parsed())
if sys.argv[1:] == ["link"]:
    from board_arena.agents import probe_caller
    print(probe_caller.caller(), parsed())
"""


def test_a_cached_kernel_loads_its_machine_code_and_parses_its_bitcode_only_when_linked(tree):
    package = tree / "board_arena"
    write(package / "engines" / "probe_callee.py", CALLEE.format(value=1))
    write(tree / "links.py", LINKS)
    assert run(tree, "links.py") == ["_KernelLibrary", "False"]  # compiled here
    assert run(tree, "links.py") == ["_CachedLibrary", "False"]  # loaded: machine code only
    # A kernel compiled later in the process links the loaded one: its bitcode is parsed then.
    write(package / "agents" / "probe_caller.py", CALLER.format(offset=10))
    assert run(tree, "links.py", args=["link"]) == ["_CachedLibrary", "False", "11", "True"]


# A kernel that only another kernel calls, then (with "call") Python too.
LINK_ONLY = """
import sys

from board_arena.agents import probe_caller
from board_arena.engines import probe_callee
from board_arena.engines._jit import _LinkOnlyEntry

value = probe_callee.value
out = [str(probe_caller.caller()), str(len(value.overloads))]
state = lambda: [
    "link-only" if isinstance(r.entry_point, _LinkOnlyEntry) else "runnable" for r in value.overloads.values()
] + [type(r.library).__name__ for r in value.overloads.values()]
out += state()
if sys.argv[1:] == ["call"]:
    out += [str(value()), "hit" if sum(value.stats.cache_hits.values()) else "miss", *state()]
print(*out)
"""


def test_a_kernel_only_kernels_call_is_cached_as_ir_without_machine_code_until_python_calls_it(tree):
    package = tree / "board_arena"
    write(package / "engines" / "probe_callee.py", CALLEE.format(value=1))
    write(package / "agents" / "probe_caller.py", CALLER.format(offset=10))
    write(tree / "link_only.py", LINK_ONLY)
    # Compiled for its caller: IR to link, no machine code, no CPython wrapper.
    assert run(tree, "link_only.py") == ["11", "1", "link-only", "_LinkOnlyLibrary"]
    # A fresh process loads the caller, which holds its own copy: the callee is not even loaded.
    assert run(tree, "link_only.py") == ["11", "0"]
    # A caller compiled later links the cached IR.
    write(package / "agents" / "probe_caller.py", CALLER.format(offset=20))
    assert run(tree, "link_only.py") == ["21", "1", "link-only", "_CachedLibrary"]
    # Python's first call makes it runnable from the cached IR, and caches the runnable version...
    assert run(tree, "link_only.py", args=["call"]) == ["21", "0", "1", "hit", "runnable", "_KernelLibrary"]
    assert run(tree, "link_only.py", args=["call"]) == ["21", "0", "1", "hit", "runnable", "_CachedLibrary"]
    # ... which callers link as they did the IR; an edit of the callee recompiles both.
    write(package / "engines" / "probe_callee.py", CALLEE.format(value=2))
    assert run(tree, "link_only.py", args=["call"]) == ["22", "1", "link-only", "_LinkOnlyLibrary", "2", "miss", "runnable", "_KernelLibrary"]
    write(package / "agents" / "probe_caller.py", CALLER.format(offset=30))
    assert run(tree, "link_only.py") == ["32", "1", "runnable", "_CachedLibrary"]


ARRAYS = """
import numpy as np

from board_arena.engines._jit import kernel


@kernel
def ramp(n):
    return np.arange(n) * 2.0


@kernel
def factorial(n):
    return 1 if n <= 1 else n * factorial(n - 1)


@kernel
def total(n):
    return ramp(n).sum() + factorial(n)


print(total(4), ramp(3), factorial(5))
"""


def test_a_link_only_kernel_called_from_python_after_its_caller_returns_what_it_computes(tree):
    # Python's call boxes the array through the kernel's environment, which the callers' copies
    # (loaded or compiled before it) hold too; a recursive kernel links its own IR.
    write(tree / "arrays.py", ARRAYS)
    for _ in range(3):  # compiled, then loaded (runnable entries), then loaded again
        assert run(tree, "arrays.py") == ["36.0", "[0.", "2.", "4.]", "120"]


# A game registered from outside the package: a counter that each move lowers by STEP.
COUNTDOWN = """
import sys

import numpy as np

from board_arena.engines import contract
from board_arena.engines._jit import kernel

STEP = {step}
STATE_DTYPE = contract.state_dtype([("left", np.int64), ("to_move", np.int64)])
MAX_MOVES = 1
MOVE_BOUND = 1


@kernel
def legal_moves(s, out):
    out[0] = 0
    return 1


@kernel
def apply_move(s, move):
    s["left"] -= STEP
    s["to_move"] = 1 - s["to_move"]


@kernel
def is_terminal(s):
    return s["left"] <= 0


@kernel
def current_player(s):
    return s["to_move"]


@kernel
def outcome(s):
    return 0.0


@kernel
def score(s):
    return 0


@kernel
def heuristic(s):
    return 0.0


@kernel
def state_hash(s):
    return np.uint64(s["left"])


@kernel
def illegal_reason(s, move):
    return contract.LEGAL if move == 0 else contract.REASON_NOT_A_MOVE


@kernel
def write_observation(s, player, out):
    out[0] = s["left"]


@kernel
def redraw_start(s, rng, code):
    pass


contract.register(sys.modules[__name__])
"""

# random_playouts lives in contract.py, which imports no game: it reaches each game's kernels
# through the contract's overloads. One dispatcher, two specialisations: each reported apart.
PLAYOUTS = """
import numpy as np

import countdown
from board_arena import engines
from board_arena.engines import contract
from board_arena.engines._jit import rng_from_seed

counter = np.zeros(1, countdown.STATE_DTYPE)[0]
counter["left"] = 10
kalah = engines.make("kalah", pits=2, seeds=1).new_initial_state(0).data
out = []
for state in (counter, kalah):
    hits = sum(contract.random_playouts.stats.cache_hits.values())
    plies = contract.random_playouts(state, 1, rng_from_seed(0))
    cached = sum(contract.random_playouts.stats.cache_hits.values()) > hits
    out.append(f"{plies}:{'hit' if cached else 'miss'}")
print(*out)
"""


def test_an_edit_of_a_game_s_kernels_recompiles_the_specialisations_for_that_game_only(tree):
    # The countdown is registered from outside the package, as a plugin's or a test's game is.
    write(tree / "countdown.py", COUNTDOWN.format(step=1))
    write(tree / "playouts.py", PLAYOUTS)
    countdown, kalah = run(tree, "playouts.py")
    assert countdown == "10:miss" and kalah.endswith(":miss")
    kalah_plies = kalah.split(":")[0]
    assert run(tree, "playouts.py") == ["10:hit", f"{kalah_plies}:hit"]
    write(tree / "countdown.py", COUNTDOWN.format(step=2))
    assert run(tree, "playouts.py") == ["5:miss", f"{kalah_plies}:hit"]  # not the stale 10 plies
    with open(tree / "board_arena" / "engines" / "mancala" / "kernels.py", "a") as kernels:
        kernels.write("\n# an edit of Kalah's kernels\n")
    assert run(tree, "playouts.py") == ["5:hit", f"{kalah_plies}:miss"]


PYTHON_FACE = REPORT + """
import numpy as np

from board_arena import engines
from board_arena.engines.mancala import kernels

state = engines.make("kalah").new_initial_state()
moves = np.empty(kernels.MAX_MOVES, np.int64)
report((kernels.legal_moves, (state.data, moves)))
"""


def test_an_edit_of_the_python_faces_recompiles_nothing(tree):
    write(tree / "face.py", PYTHON_FACE)
    assert run(tree, "face.py") == ["6:miss"]
    assert run(tree, "face.py") == ["6:hit"]
    engines = tree / "board_arena" / "engines"
    for face in (engines / "game.py", engines / "registry.py", engines / "__init__.py", engines / "mancala" / "__init__.py"):
        with open(face, "a") as text:
            text.write("\n# an edit of the Python face\n")
    assert run(tree, "face.py") == ["6:hit"]
    with open(engines / "contract.py", "a") as text:
        text.write("\n# an edit of compiled code that the kernels import\n")
    assert run(tree, "face.py") == ["6:miss"]


SCRIPT = REPORT + """
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # as the experiments do

from board_arena.engines import probe_callee
from board_arena.engines._jit import kernel
from tests import probe_helper


@kernel
def script_kernel():
    return probe_callee.value() + probe_helper.helper()


report((script_kernel, ()))
"""

HELPER = """
from board_arena.engines._jit import kernel

@kernel
def helper():
    return {value}
"""


def test_kernels_of_a_script_and_of_a_test_module_are_cached_and_never_stale(tree):
    write(tree / "board_arena" / "engines" / "probe_callee.py", CALLEE.format(value=1))
    write(tree / "tests" / "__init__.py", "")
    write(tree / "tests" / "probe_helper.py", HELPER.format(value=100))
    write(tree / "experiments" / "probe_script.py", SCRIPT)
    script = str(Path("experiments") / "probe_script.py")
    assert run(tree, script) == ["101:miss"]
    assert run(tree, script) == ["101:hit"]
    write(tree / "tests" / "probe_helper.py", HELPER.format(value=200))  # a module of the checkout
    assert run(tree, script) == ["201:miss"]
    write(tree / "board_arena" / "engines" / "probe_callee.py", CALLEE.format(value=2))  # the project's
    assert run(tree, script) == ["202:miss"]


def block_caches_in_the_package(tree):
    """A file where each ``__pycache__`` folder of the package would be: its folders take no
    cache, as in a read-only install (root ignores permission bits, so this stands in for them)."""
    for folder in [tree / "board_arena", *(tree / "board_arena").rglob("*")]:
        if folder.is_dir() and folder.name != "__pycache__":
            (folder / "__pycache__").write_text("")


def test_a_read_only_install_caches_in_the_user_folder_and_is_never_stale(tree):
    write(tree / "board_arena" / "engines" / "probe_callee.py", CALLEE.format(value=1))
    write(tree / "board_arena" / "agents" / "probe_caller.py", CALLER.format(offset=10))
    write(tree / "board_arena" / "engines" / "probe_other.py", OTHER)
    write(tree / "calls.py", CALLS)
    block_caches_in_the_package(tree)
    env = {"XDG_CACHE_HOME": str(tree / "user-cache")}
    assert run(tree, "calls.py", env) == ["11:miss", "1:miss", "7:miss"]
    assert run(tree, "calls.py", env) == ["11:hit", "1:hit", "7:hit"]
    assert list((tree / "user-cache").rglob("probe_caller.caller-*.nbi"))
    write(tree / "board_arena" / "engines" / "probe_callee.py", CALLEE.format(value=2))
    assert run(tree, "calls.py", env) == ["12:miss", "2:miss", "7:hit"]


def test_without_a_writable_cache_folder_everything_runs_uncached_after_one_warning(tree):
    block_caches_in_the_package(tree)
    # A file where the other cache folders should be: none can be made there, even by root.
    blocker = tree / "not-a-folder"
    blocker.write_text("")
    write(tree / "kalah.py", "from board_arena import agents, engines\nprint(engines.make('kalah').new_initial_state().legal_moves())\n")
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment.update(NUMBA_CACHE_DIR=str(blocker / "numba"), XDG_CACHE_HOME=str(blocker / "xdg"))
    done = subprocess.run([sys.executable, "kalah.py"], env=environment, cwd=tree, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, 1, 2, 3, 4, 5]"
    assert done.stderr.count("no writable folder for numba's cache") == 1
    assert "Traceback" not in done.stderr


LOADED = """
import sys

import numpy as np

from board_arena.engines._jit import kernel

@kernel
def squares(n):
    if n < 0:
        raise ValueError("n must not be negative")
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = i * i
    return out

print(squares(4).sum(), "linalg" if "numba.np.linalg" in sys.modules else "-")
try:
    squares(-1)
except ValueError as error:
    print(str(error).replace(" ", "_"))
@kernel(cache=False)
def cubes(n):
    return squares(n) * np.arange(n)

print(cubes(3).sum(), "linalg" if "numba.np.linalg" in sys.modules else "-")
"""


def test_a_cached_kernel_loads_without_numba_s_whole_context_and_compiling_still_works(tree):
    # Loading skips numba's refresh of its whole target context (0.4 s of imports per process):
    # the loaded code allocates and raises as compiled code does, and a kernel compiled later in
    # the same process (``cubes`` is never cached) refreshes the context itself.
    write(tree / "loaded.py", LOADED)
    first = run(tree, "loaded.py")
    assert first == ["14", "linalg", "n_must_not_be_negative", "9", "linalg"]
    assert run(tree, "loaded.py") == ["14", "-", "n_must_not_be_negative", "9", "linalg"]


def test_a_kernel_types_a_plain_array_argument_as_numba_does_without_importing_numpy_ma():
    """``_KernelDispatcher.typeof_pyval`` types a plain ndarray itself (numba's own imports
    numpy.ma to rule out a masked array): the same type as numba's for every layout, dtype and
    flag, and a masked array still goes to numba's (which refuses it)."""
    import numpy as np
    from numba.core.errors import NumbaTypeError
    from numba.core.typing.typeof import Purpose, typeof

    from board_arena.engines.contract import random_playouts

    records = np.zeros(3, dtype=engines.make("konane").new_initial_state(0).data.dtype)
    arrays = [np.zeros(3), np.zeros((3, 4)), np.zeros((3, 4)).T, np.zeros((4, 6))[::2], np.zeros((4, 6))[:, ::2],
              np.zeros(3, dtype=np.int8), records, records[::2], np.zeros(0), np.zeros((2, 3, 4), order="F")]
    for array in arrays:
        frozen = array.copy()
        frozen.flags.writeable = False
        for value in (array, frozen):
            assert random_playouts.typeof_pyval(value) == typeof(value, Purpose.argument)
    with pytest.raises(NumbaTypeError, match="MaskedArray"):
        random_playouts.typeof_pyval(np.ma.masked_array(np.zeros(3)))


def test_only_kernels_that_ask_for_it_are_forced_inline_whoever_compiles_them_first():
    # numba would give ``helper`` the forceinline flag of ``hot``, whose typing compiles it.
    @jit.kernel(cache=False)
    def helper(x):
        return x + 1

    @jit.kernel(inline="always", cache=False)
    def hot(x):
        return 2 * helper(x)

    @jit.kernel(cache=False)
    def caller(x):
        return hot(x)

    assert caller(3) == 8
    (compiled_helper,) = helper.overloads.values()
    (compiled_hot,) = hot.overloads.values()
    assert not compiled_helper.fndesc.inline
    assert compiled_hot.fndesc.inline


def test_a_never_inline_kernel_is_linked_into_its_callers_after_their_optimisation(monkeypatch):
    """The optimiser never works through a kernel declared ``inline="never"`` again: neither in
    its caller's optimisation nor in its caller's caller's; both run it from their final modules."""
    import numpy as np

    optimised: dict[str, set[str]] = {}  # each library's definitions when it is optimised
    numba_s = jit._KernelLibrary._optimize_final_module

    def recorded(library):
        optimised[library.name] = {f.name for f in library._final_module.functions if not f.is_declaration}
        numba_s(library)

    monkeypatch.setattr(jit._KernelLibrary, "_optimize_final_module", recorded)

    @jit.kernel(inline="never", cache=False)
    def weighed(a, i):
        total = 0.0
        for k in range(a.size):
            total += a[k] * (k + i)
        return total

    @jit.kernel(cache=False)
    def middle(a, i):
        return weighed(a, i) + 1.0

    @jit.kernel(cache=False)
    def top(a):
        return middle(a, 2) * middle(a, 3)

    a = np.arange(5.0)
    assert top(a) == 3111.0
    (late,) = weighed.overloads.values()
    name = late.fndesc.mangled_name
    assert late.library._linked_late and name in optimised[late.library.name]
    for kernel in (middle, top):
        (caller,) = kernel.overloads.values()
        assert name not in optimised[caller.library.name]  # only declared where it is optimised
        assert caller.library._late_libraries == (late.library,)  # top's through middle's
        assert caller.library._for_callers.get_function(name).is_declaration  # what its callers link
        assert not caller.library._final_module.get_function(name).is_declaration  # what runs
    assert weighed(a, 1) == 40.0  # Python's call makes it runnable


# A kernel declared never inline, between a caller in a script and Python.
LATE = """
from board_arena.engines._jit import kernel


@kernel(inline="never")
def weighed(a, i):
    total = 0.0
    for k in range(a.size):
        total += a[k] * (k + i)
    return total


@kernel
def middle(a, i):
    return weighed(a, i) + 1.0
"""

LATE_CALLERS = """
import sys

import numpy as np

from board_arena.engines import probe_late
from board_arena.engines._jit import kernel


@kernel
def top(a):
    return probe_late.middle(a, 2) * probe_late.middle(a, 3)


@kernel
def other(a):
    return probe_late.middle(a, 4) + probe_late.weighed(a, 5)


a = np.arange(5.0)
print(top(a), *([other(a), probe_late.weighed(a, 1)] if sys.argv[1:] else []))
print(*[f"{type(r.library).__name__}:{r.library._linked_late}" for r in probe_late.weighed.overloads.values()] or ["none"])
"""


def test_a_never_inline_kernel_s_cached_code_is_linked_late_and_runs_in_kernels_compiled_later(tree):
    write(tree / "board_arena" / "engines" / "probe_late.py", LATE)
    write(tree / "late.py", LATE_CALLERS)
    assert run(tree, "late.py") == ["3111.0", "_LinkOnlyLibrary:True"]  # compiled
    assert run(tree, "late.py") == ["3111.0", "none"]  # top loaded: it holds its own copy
    # A kernel compiled in a later process links the cached late kernel late; Python calls it.
    assert run(tree, "late.py", args=["more"]) == ["3111.0", "151.0", "40.0", "_KernelLibrary:True"]
    assert run(tree, "late.py", args=["more"]) == ["3111.0", "151.0", "40.0", "_CachedLibrary:True"]


def test_a_kernel_inline_option_other_than_always_or_never_is_refused():
    with pytest.raises(ValueError, match="inline='sometimes'; allowed: 'always', 'never'"):
        jit.kernel(inline="sometimes")(lambda x: x)


def test_a_kernel_s_np_empty_and_np_zeros_make_numpy_s_arrays_without_compiling_numba_s_overloads():
    """``_NumpyAllocations`` puts numba's allocation intrinsic in place of the overloads of
    np.empty and np.zeros (each a compilation of its own per shape type and dtype): the arrays
    are numpy's in every form a kernel writes them, and none of those overloads compiles."""
    import numpy as np
    from numpy import empty, zeros

    assert jit._ALLOCATION_INTERNALS  # the numba internals the intrinsics call are there
    record = engines.make("konane").new_initial_state(0).data.dtype

    @jit.kernel(cache=False)
    def allocations(n):
        return (
            np.empty(n, np.int8), np.empty((n, 2), dtype=np.uint16), np.empty(n), empty((2, n), record),
            np.zeros(n, np.int64), np.zeros((n, 3), dtype=np.bool_), np.zeros(n), zeros((), np.float32),
            zeros((2, n), dtype=record),
        )

    with compilations() as compiled:
        made = allocations(4)
    expected = (
        np.empty(4, np.int8), np.empty((4, 2), np.uint16), np.empty(4), np.empty((2, 4), record),
        np.zeros(4, np.int64), np.zeros((4, 3), np.bool_), np.zeros(4), np.zeros((), np.float32),
        np.zeros((2, 4), record),
    )
    for array, numpy_s in zip(made, expected):
        assert (array.dtype, array.shape, array.flags.c_contiguous) == (numpy_s.dtype, numpy_s.shape, True)
    for array in made[4:]:
        assert not array.reshape(-1).view(np.uint8).any()  # zeroed, records included
    names = [function.__qualname__ for function in compiled]
    assert allocations.py_func.__qualname__ in names
    assert not [name for name in names if name.startswith(("ol_np_empty", "ol_np_zeros", "ol_array_zero_fill"))]
    with pytest.raises(numba.core.errors.TypingError, match="np.empty: cannot make an array"):
        jit.kernel(cache=False)(lambda n: np.empty(n, np.zeros))(3)


def test_the_contract_s_constants_and_state_arrays_compile_no_function_of_their_own():
    """``max_moves``, ``move_bound``, ``margin_bounds``, ``endgame_value`` and ``new_states`` are
    the game's kernel where it has one, else its constant (or a state array) put in place at the
    call site: the values of their Python functions, and nothing compiled for them but the
    game's kernels (an ``@overload`` would compile a function with machine code per game, and
    numpy's ``np.empty`` with it)."""
    import numpy as np

    from board_arena.engines import contract

    @jit.kernel(cache=False)
    def constants(s, db):
        states = contract.new_states(s, 3)
        states[2] = s
        return (
            contract.max_moves(s), contract.move_bound(s), contract.margin_bounds(s),
            contract.endgame_value(s, db, -1), states,
        )

    db = np.zeros(0, np.int8)
    jit.kernel(cache=False)(lambda n: np.empty(n, np.int8))(1)  # numba's allocator, once per process
    # mancala: an endgame database and margin bounds of its own, a constant move bound; konane:
    # move_capacity of its own; morabaraba and dominoes: the defaults.
    for name in ("mancala", "konane", "morabaraba", "dominoes"):
        s = engines.make(name).new_initial_state(0).data
        with compilations() as compiled:
            moves, bound, margins, endgame, states = constants(s, db)
        assert (moves, bound) == (contract.max_moves(s), contract.move_bound(s))
        assert margins == tuple(contract.margin_bounds(s))
        assert endgame == contract.endgame_value(s, db, -1)
        assert (states.dtype, states.shape, states.flags.c_contiguous) == (s.dtype, (3,), True)
        assert states[2].tobytes() == s.tobytes()
        kernels = contract.kernels_for(s)
        assert all(f is constants.py_func or f.__module__ == kernels.__name__ for f in compiled), compiled


def test_a_kernel_s_max_and_min_of_two_numbers_give_numba_s_results_without_compiling_its_overloads():
    """``_ScalarExtrema`` puts the intrinsic of numba's overloads in place of ``max(a, b)`` and
    ``min(a, b)`` (each overload a compilation with machine code of its own per pair of types):
    the same values of the same types, NaN and mixed types included, and none of those overloads
    compiles. Other calls (three values, an iterable) stay numba's."""
    import numpy as np

    assert jit._EXTREMUM_INTERNALS  # the numba internal the intrinsics call is there

    def extrema(a, b, c, d, e, x, y):
        return (
            max(a, b), min(a, b), max(c, d), min(c, d), max(e, 1), min(1.5, e), max(x, y), min(x, y),
            max(a, c), min(b, d),
        )

    kernel = jit.kernel(cache=False)(extrema)
    numba_s = numba.njit(extrema)
    seen = []
    for args in (
        (np.int64(3), np.int8(-2), 2.5, float("nan"), np.uint8(7), True, False),
        (np.int64(-3), np.int8(5), float("nan"), 1.0, np.uint8(0), False, True),
    ):
        with compilations() as compiled:
            ours = kernel(*args)
        seen += compiled
        theirs = numba_s(*args)
        assert [type(v) for v in ours] == [type(v) for v in theirs]
        assert all(u == v or (u != u and v != v) for u, v in zip(ours, theirs)), (ours, theirs)
    assert seen == [extrema]  # the kernel alone
    assert jit.kernel(cache=False)(lambda a, b, c: (max(a, b, c), min((c, b))))(1, 5.0, 3) == (5.0, 3.0)
    with pytest.raises(numba.core.errors.TypingError, match=r"max\(a, b\): takes two numbers"):
        jit.kernel(cache=False)(lambda a, b: max(a, b))(np.zeros(2), 1.0)


def test_the_function_passes_run_once_per_module_and_leave_the_ir_numba_s_would():
    """``_KernelLibrary`` runs numba's function passes with one pass manager per module, on
    definitions only (numba builds one per function, declarations included): the same IR."""
    import numpy as np
    from llvmlite import binding as llvm
    from numba.core import codegen
    from numba.core.registry import cpu_target

    @jit.kernel(cache=False)
    def sums(a):
        total = 0
        for i in range(a.shape[0]):
            total += a[i] * (i & 3)
        return total

    sums(np.arange(5))
    (compiled,) = sums.overloads.values()
    assert type(compiled.library) is jit._KernelLibrary
    library = cpu_target.target_context.codegen().create_library("probe")
    text = compiled.library.get_llvm_str()
    optimised = []
    for optimise in (codegen.CPUCodeLibrary._optimize_functions, jit._KernelLibrary._optimize_functions):
        module = llvm.parse_assembly(text)
        optimise(library, module)
        optimised.append(str(module))
    assert optimised[0] == optimised[1]


def test_compiling_a_kernel_leaves_numba_s_error_highlighting_and_llvm_callbacks_as_they_were(monkeypatch):
    """``_lean_compilation`` makes numba's highlighted error text without colorama's stream
    wrapping and drops llvmlite's lock callbacks while kernels compile: the same text, and both
    put back afterwards, also when the compilation fails."""
    from llvmlite import binding as llvm
    from numba.core import errors, typeinfer
    from numba.core.types import functions

    scheme = errors.termcolor()
    # numba's modules hold the scheme they got at import: the one that typing errors go through.
    assert functions._termcolor is scheme and typeinfer._termcolor is scheme
    callbacks = list(llvm.ffi.lib._lock._cblist)
    texts = [scheme.errmsg("x"), scheme.code("y"), scheme.highlight("z"), scheme.filename("f")]
    wrappings = []
    if hasattr(errors, "ColorShell"):  # colorama is installed: count its wrappings of the streams
        monkeypatch.setattr(errors, "init", lambda *args, **kwargs: wrappings.append(args))
    with jit._lean_compilation():
        lean = functions._termcolor
        assert [lean.errmsg("x"), lean.code("y"), lean.highlight("z"), lean.filename("f")] == texts
        assert wrappings == []
        assert llvm.ffi.lib._lock._cblist == []
        with jit._lean_compilation():  # a compilation inside another leaves the outer's as it was
            pass
        assert lean.errmsg("x") == texts[0] and wrappings == [] and llvm.ffi.lib._lock._cblist == []
    with pytest.raises(numba.core.errors.TypingError):
        jit.kernel(cache=False)(lambda x: x.nothing_of_the_kind)(3)
    assert errors.termcolor() is scheme and "_markup" not in vars(scheme)
    assert llvm.ffi.lib._lock._cblist == callbacks


def test_the_garbage_collector_is_paused_while_kernels_compile_and_left_as_it_was_found():
    """``_lean_compilation`` pauses Python's cyclic garbage collector while kernels compile (their
    compilations and the kernels that their typing compiles); it runs again afterwards, also
    after a failed compilation, and one paused by the user stays paused."""
    import gc

    from numba.core import event

    seen = []

    class Listener(event.Listener):
        def on_start(self, ev):
            seen.append(gc.isenabled())

        def on_end(self, ev):
            seen.append(gc.isenabled())

    def inner(x):
        return x + 1

    inner_kernel = jit.kernel(cache=False)(inner)

    def outer(x):
        return inner_kernel(x) * 2

    listener = Listener()
    was_enabled = gc.isenabled()
    gc.enable()
    try:
        with event.install_listener("numba:compile", listener):
            assert jit.kernel(cache=False)(outer)(3) == 8
            assert len(seen) == 4 and not any(seen)  # the outer kernel's compilation and the inner's
            assert gc.isenabled()
            with pytest.raises(numba.core.errors.TypingError):
                jit.kernel(cache=False)(lambda x: x.nothing_of_the_kind)(3)
            assert gc.isenabled()
            gc.disable()  # the user's pause is theirs to end
            assert jit.kernel(cache=False)(inner)(1) == 2
            assert not gc.isenabled()
    finally:
        if was_enabled:
            gc.enable()
        else:
            gc.disable()


def test_numba_s_answers_to_typing_questions_are_remembered_and_are_numba_s_answers(monkeypatch):
    """``_memoised_call_type``: a kernel is typed as numba types it without the memo (operators on
    mixed int widths and floats, literals, ``bool``, an ``@overload`` that compiles a function of
    its own), the second kernel that asks the same questions finds every answer remembered, and
    a compilation's flags are part of each question."""
    import numpy as np
    from numba.core.types.functions import BaseFunction

    def body(a, b, x, n):
        total = 0
        for i in range(n):
            total += a[i] * 3 + (a[i] >> 1) - b[i % 2]
            if a[i] == b[0] and bool(x) or not x > 1.5:
                total -= int(x * 2)
        a[0] = total & 7
        return total + np.sum(a) + abs(-n)

    def typing(kernel):
        args = (np.arange(5, dtype=np.int8), np.ones(2, dtype=np.int64), 2.5, 4)
        value = kernel(*args)
        annotation = next(iter(kernel.overloads.values())).type_annotation
        return value, {str(k): str(v) for k, v in annotation.typemap.items()}, \
            sorted((str(k), str(v)) for k, v in annotation.calltypes.items())

    class Asked(dict):
        hits = 0

        def get(self, key, default=None):
            found = super().get(key, default)
            Asked.hits += found is not None
            return found

    assert [method[1] for method in jit._LEAN_METHODS] == ["get_call_type", "get_abi_sizeof", "_rec_list_vars", "run"]
    monkeypatch.setattr(jit, "_CALL_TYPES", Asked())
    with monkeypatch.context() as plain:  # numba's typing, not remembered
        plain.setattr(BaseFunction, "get_call_type", lambda self, *args: jit._numba_call_type(self, *args))
        expected = typing(jit.kernel(cache=False)(body))
    assert len(jit._CALL_TYPES) == 0
    first = typing(jit.kernel(cache=False)(body))
    asked, hits = len(jit._CALL_TYPES), Asked.hits
    assert asked > 10 and hits > 0  # the loop asks some questions twice
    second = typing(jit.kernel(cache=False)(body))
    assert first == expected and second == expected
    assert len(jit._CALL_TYPES) == asked and Asked.hits > hits  # nothing new asked of numba
    assert BaseFunction.get_call_type is jit._numba_call_type  # put back after each compilation

    from numba.core import compiler

    flags = compiler.Flags()
    same, other = flags.copy(), flags.copy()
    other.error_model = "python" if flags.error_model != "python" else "numpy"
    assert jit._flags_index(flags) == jit._flags_index(same) != jit._flags_index(other)


def test_the_variables_of_ir_nodes_and_the_abi_sizes_found_while_kernels_compile_are_numba_s(monkeypatch):
    """``_listed_vars`` and ``_memoised_abi_sizeof`` (numba's, while kernels compile): the same
    variables in the same order for every statement of the alpha-beta and Morabaraba kernels,
    the same sizes, each size asked of llvmlite once; numba's own methods put back afterwards."""
    from llvmlite import ir
    from numba import types
    from numba.core import compiler
    from numba.core import ir as numba_ir
    from numba.core.base import BaseContext
    from numba.core.registry import cpu_target

    statements = []
    for module in (alphabeta, morabaraba_kernels):
        for kernel in vars(module).values():
            if isinstance(kernel, jit._KernelDispatcher):
                statements += [s for block in compiler.run_frontend(kernel.py_func).blocks.values() for s in block.body]
    assert len(statements) > 1000
    expected = [statement.list_vars() for statement in statements]
    with jit._lean_compilation():
        assert numba_ir.Inst._rec_list_vars is jit._listed_vars
        assert [statement.list_vars() for statement in statements] == expected
    assert numba_ir.Inst._rec_list_vars is not jit._listed_vars and BaseContext.get_abi_sizeof is jit._numba_abi_sizeof

    context = cpu_target.target_context
    llvm_types = [context.get_value_type(t) for t in (types.int8, types.float64, types.Array(types.int64, 2, "C"),
                                                       types.UniTuple(types.int16, 3))]
    llvm_types.append(ir.global_context.get_identified_type(f"board_arena_test_{os.getpid()}"))
    llvm_types[-1].set_body(ir.IntType(8), ir.IntType(64))
    sizes = [context.get_abi_sizeof(t) for t in llvm_types]
    assert sizes[:2] == [1, 8] and sizes[-1] == 16
    llvmlite_size, asked = ir.Type.get_abi_size, []
    monkeypatch.setattr(ir.Type, "get_abi_size", lambda self, *args: asked.append(str(self)) or llvmlite_size(self, *args))
    monkeypatch.setattr(jit, "_ABI_SIZES", {})
    with jit._lean_compilation():
        assert BaseContext.get_abi_sizeof is jit._memoised_abi_sizeof
        assert [context.get_abi_sizeof(t) for t in llvm_types * 2] == sizes * 2
    assert len(asked) == len(llvm_types) + 1  # once each, and the named struct (its text is its name) twice


def test_the_post_processing_skipped_while_kernels_compile_changes_nothing_in_their_code(monkeypatch):
    """``_postprocessed`` (numba's ``PostProcessor.run`` while kernels compile) leaves out the
    liveness that no one reads: Morabaraba's kernels compiled afresh with it and with numba's
    give the same LLVM IR, numba's post-processing done only where variable deletions are
    placed; a kernel with ``literal_unroll`` (whose pass reads the liveness) gets numba's."""
    import re

    import numpy as np
    from numba import literal_unroll
    from numba.core import postproc

    numba_s, by_numba = jit._numba_postprocess, []  # emit_dels of each post-processing numba did
    monkeypatch.setattr(jit, "_numba_postprocess", lambda self, emit_dels=False, *rest: by_numba.append(emit_dels) or numba_s(self, emit_dels, *rest))
    without = tuple(method for method in jit._LEAN_METHODS if method[3] is not jit._postprocessed)
    assert len(without) == len(jit._LEAN_METHODS) - 1  # there, on this numba

    def compiled(function, args, methods):
        """``function`` compiled afresh for ``args`` with ``methods``: its LLVM IR, less numba's unique ids."""
        monkeypatch.setattr(jit, "_LEAN_METHODS", methods)
        fresh = jit.kernel(cache=False)(function.py_func)
        fresh.compile(tuple(fresh.typeof_pyval(a) for a in args))
        (result,) = fresh.overloads.values()
        return re.sub(r"B\d+v\d+", "", result.library.get_llvm_str())

    state = engines.make("morabaraba").new_initial_state(seed=0)
    with_lean = jit._LEAN_METHODS
    for function, args in ((morabaraba_kernels.legal_moves, (state.data, np.empty(64, np.int64))),
                           (morabaraba_kernels.apply_move, (state.data, 0))):
        by_numba.clear()
        assert compiled(function, args, without) == compiled(function, args, with_lean)
        assert by_numba and all(by_numba)  # numba's own only where it placed deletions
    assert postproc.PostProcessor.run is numba_s

    @jit.kernel(cache=False)
    def unrolled(a):
        total = 0.0
        for x in literal_unroll((1, 2.5, a[0])):
            total += x
        return total

    by_numba.clear()
    assert unrolled(np.array([4.0])) == 7.5
    assert False in by_numba  # numba's whole post-processing before the loop was unrolled
