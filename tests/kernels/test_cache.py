"""numba's cache never runs stale code: kernels are cached in a folder named by the sources that
compiled code can reach, and code from outside the package (a script, a game plugin) that changes
makes the folder forget what it compiled. Each test that edits works on a copy of the package
and runs fresh processes."""

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from board_arena.kernels import cache

ROOT = Path(__file__).resolve().parents[2]

# Reports each kernel's result and whether all it needed came from the cache.
REPORT = """
def report(*calls):
    out = []
    for kernel, args in calls:
        value = kernel(*args)
        out.append(f"{value}:{'miss' if sum(kernel.stats.cache_misses.values()) else 'hit'}")
    print(" ".join(out))
"""


def copy_of_the_package(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "board_arena", tmp_path / "board_arena", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def append(path: Path, text: str) -> None:
    with open(path, "a") as file:
        file.write(text)


def run(tree: Path, script: str, env: dict | None = None) -> list[str]:
    """Runs ``script`` (a file of ``tree``) in a fresh process with its own cache root; its
    printed words."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    environment.update({"NUMBA_CACHE_DIR": str(tree / "numba-cache"), **(env or {})})
    done = subprocess.run([sys.executable, script], cwd=tree, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_folder_is_named_by_every_module_that_compiled_code_reaches_and_no_other():
    reach = cache.package_reach()
    defining = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for path in (ROOT / "board_arena").rglob("*.py")
        if re.search(r"^@kernel\b", path.read_text(), re.MULTILINE)
    }
    assert defining and defining <= set(reach)
    assert "board_arena.engines.morabaraba.board" in reach  # the tables that the kernels import
    for python_only in ("board_arena.arena.cli", "board_arena.arena.web.server", "board_arena.envs.gymnasium_env"):
        assert python_only not in reach
    assert re.fullmatch(r"[0-9a-f]{24}", cache.package_sources_hash())


KALAH_MOVES = REPORT + """
import numpy as np

from board_arena import engines
from board_arena.engines.mancala import kernels

state = engines.make("kalah").new_initial_state()
report((kernels.legal_moves, (state.data, np.empty(kernels.MAX_MOVES, np.int64))))
"""


def test_an_edit_of_compiled_code_compiles_afresh_and_an_edit_of_the_python_face_does_not(tmp_path):
    tree = copy_of_the_package(tmp_path)
    write(tree / "moves.py", KALAH_MOVES)
    assert run(tree, "moves.py") == ["6:miss"]
    assert run(tree, "moves.py") == ["6:hit"]
    append(tree / "board_arena" / "arena" / "report.py", "\n# an edit of the Python face\n")
    assert run(tree, "moves.py") == ["6:hit"]
    append(tree / "board_arena" / "engines" / "contract.py", "\n# an edit of code that the kernels import\n")
    assert run(tree, "moves.py") == ["6:miss"]


COUNTDOWN = """
import sys

import numpy as np

from board_arena.engines import contract
from board_arena.kernels import kernel

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
# through the contract's overloads, compiled and cached once per state type.
PLAYOUTS = """
import numpy as np

import {module} as countdown
from board_arena import engines
from board_arena.engines import contract
from board_arena.kernels import rng_from_seed

counter = np.zeros(1, countdown.STATE_DTYPE)[0]
counter["left"] = 10
kalah = engines.make("kalah", pits=2, seeds=1).new_initial_state(0).data
out = []
for state in (counter, kalah):
    hits = sum(contract.random_playouts.stats.cache_hits.values())
    plies = contract.random_playouts(state, 1, rng_from_seed(0))
    cached = sum(contract.random_playouts.stats.cache_hits.values()) > hits
    out.append(f"{{plies}}:{{'hit' if cached else 'miss'}}")
print(*out)
"""


def test_an_edit_of_a_game_registered_from_outside_recompiles_what_was_compiled_for_it(tmp_path):
    tree = copy_of_the_package(tmp_path)
    write(tree / "countdown.py", COUNTDOWN.format(step=1))
    write(tree / "playouts.py", PLAYOUTS.format(module="countdown"))
    countdown, kalah = run(tree, "playouts.py")
    assert countdown == "10:miss" and kalah.endswith(":miss")
    kalah_plies = kalah.split(":")[0]
    assert run(tree, "playouts.py") == ["10:hit", f"{kalah_plies}:hit"]
    write(tree / "countdown.py", COUNTDOWN.format(step=2))
    # Not the stale 10 plies: the folder forgot every kernel, Kalah's playouts too.
    assert run(tree, "playouts.py") == ["5:miss", f"{kalah_plies}:miss"]
    assert run(tree, "playouts.py") == ["5:hit", f"{kalah_plies}:hit"]


def test_two_games_from_outside_with_one_state_type_never_share_compiled_code(tmp_path):
    tree = copy_of_the_package(tmp_path)
    write(tree / "by_one.py", COUNTDOWN.format(step=1))
    write(tree / "by_five.py", COUNTDOWN.format(step=5))
    write(tree / "one.py", PLAYOUTS.format(module="by_one"))
    write(tree / "five.py", PLAYOUTS.format(module="by_five"))
    assert run(tree, "one.py")[0] == "10:miss"
    assert run(tree, "five.py")[0] == "2:miss"
    assert run(tree, "one.py")[0] == "10:miss"
    assert run(tree, "one.py")[0] == "10:hit"


SCRIPT = REPORT + """
from board_arena.kernels import kernel

import helper


@kernel
def script_kernel():
    return helper.value() + 1


report((script_kernel, ()))
"""

HELPER = """
from board_arena.kernels import kernel


@kernel
def value():
    return {value}
"""


def test_the_kernels_of_a_script_are_cached_and_never_stale_after_an_edit_of_what_it_imports(tmp_path):
    tree = copy_of_the_package(tmp_path)
    write(tree / "helper.py", HELPER.format(value=100))
    write(tree / "script.py", SCRIPT)
    assert run(tree, "script.py") == ["101:miss"]
    assert run(tree, "script.py") == ["101:hit"]
    write(tree / "helper.py", HELPER.format(value=200))
    assert run(tree, "script.py") == ["201:miss"]


OTHER_LIBRARY = """
import numba

from board_arena.kernels import cache_folder, kernel


@kernel
def ours():
    return 1


@numba.njit(cache=True)
def theirs():
    return 2


ours(), theirs()
folder = cache_folder()
print(any(folder.rglob("library.ours-*.nbi")), any(folder.rglob("library.theirs-*.nbi")))
"""


def test_other_libraries_numba_functions_keep_numba_s_own_cache(tmp_path):
    write(tmp_path / "library.py", OTHER_LIBRARY)
    environment = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",)}
    environment["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")
    done = subprocess.run(
        [sys.executable, "library.py"], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    # Ours in the project's folder, theirs beside its source as numba caches it.
    assert done.stdout.split() == ["True", "False"]
    assert list((tmp_path / "__pycache__").glob("library.theirs-*.nbi"))


def test_without_a_writable_cache_folder_everything_runs_uncached_after_one_warning(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")  # no folder can be made inside a file, even by root
    write(tmp_path / "kalah.py", "from board_arena import engines\nprint(engines.make('kalah').new_initial_state().legal_moves())\n")
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment["NUMBA_CACHE_DIR"] = str(blocker / "numba")
    done = subprocess.run([sys.executable, "kalah.py"], env=environment, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, 1, 2, 3, 4, 5]"
    assert done.stderr.count("cannot write its kernel cache") == 1
    assert "Traceback" not in done.stderr


# numba's private machinery, which the package never uses (its releases between 0.59 and 0.62
# changed it): subclassing, replacing or calling its compiler, codegen, dispatcher, caching or
# pass machinery.
PRIVATE_NUMBA = re.compile(
    r"numba\.core\.(compiler|compiler_machinery|codegen|dispatcher|caching|typed_passes|untyped_passes|postproc|"
    r"transforms|lowering|cpu|base|registry|imputils|typing\.templates|target_extension)\b|llvmlite\.binding|"
    r"from llvmlite import binding|numba\.np\.(arrayobj|numpy_support)|numba\.core\.ir\b"
)


def test_no_module_of_the_package_uses_numba_s_private_machinery():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in (ROOT / "board_arena").rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if PRIVATE_NUMBA.search(line)
    ]
    assert not found, "\n".join(found)


WARM = """
from numba.core import event

from board_arena import agents, engines

compiled = []


class Compiles(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)

    def on_end(self, ev):
        pass


with event.install_listener("numba:compile", Compiles()):
    game = engines.make("kalah")
    for spec in ("mcts", "alphabeta", "greedy"):
        agents.make_agent(spec, seed=1).warm_up(game)
print(len(compiled))
"""


def test_a_second_process_finds_every_kernel_in_the_cache(tmp_path):
    write(tmp_path / "warm.py", WARM)
    first = run(tmp_path, "warm.py")
    assert int(first[0]) > 0
    assert run(tmp_path, "warm.py") == ["0"]
