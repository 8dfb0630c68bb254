"""The experiments' scripts refuse bad input in one line with status 2, as ``arena`` does: an
unreadable value when the arguments are parsed, a game, agent or parameter that does not exist
once they are read (``board_arena.commandline``)."""

import ctypes
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from board_arena.commandline import int_list, interrupts_kept, positive_int

EXPERIMENTS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "experiments"))


@pytest.mark.parametrize(
    "script,args,message",
    [
        ("arena_scaling.py", ["--games", "0"], "argument --games: give a whole number of at least 1, not '0'"),
        ("arena_scaling.py", ["--game", "nope", "--games", "2", "--repeats", "1"], "unknown game 'nope'"),
        ("bench_envs.py", ["--num-envs", "-3"], "argument --num-envs: give a whole number of at least 1, not '-3'"),
        ("game_lengths.py", ["--game", "morabaraba-9", "--agents", "nope", "--games", "2"], "unknown agent 'nope'"),
        ("game_lengths.py", ["--game", "kalah"], "kalah has no ply cap: its games always end by its rules (games with one: morabaraba"),
        ("mcts_threads.py", ["--threads", "1,x"], "argument --threads: give whole numbers of at least 1 separated by commas, not '1,x'"),
        ("rating_coverage.py", ["--shape", "round"], "argument --shape: invalid choice: 'round'"),
        ("strength_vs_budget.py", ["--param", "nope", "--budgets", "10,20", "--games", "2"], "mcts has no parameter 'nope'"),
        ("docs_outputs.py", ["--bogus"], "unrecognized arguments: --bogus"),
        ("mcts_memory.py", ["--game", "nope", "--simulations", "10"], "unknown game 'nope'"),
        ("bench.py", ["--repeats", "0"], "argument --repeats: give a whole number of at least 1, not '0'"),
        ("morris_databases.py", ["--stones", "6", "--match", "2"], "--match plays positions of --stones - 2 (six at the least) to --stones cows: give --stones 7 or more, not 6"),
    ],
)
def test_bad_input_is_one_line_and_status_2(script, args, message, tmp_path):
    done = subprocess.run([sys.executable, os.path.join(EXPERIMENTS, script), *args], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and done.stderr.count("\n") == 1 and done.stderr.startswith(f"{script}: error: ")


def test_the_number_types_take_whole_numbers_of_at_least_one():
    assert positive_int("12") == 12 and positive_int(" +3") == 3 and int_list("1,2,8") == [1, 2, 8]
    for text in ("0", "-1", "1.5", "", "x", "1e3"):
        with pytest.raises(Exception, match="give a whole number of at least 1"):
            positive_int(text)
    with pytest.raises(Exception, match="separated by commas, not '1,,2'"):
        int_list("1,,2")


def test_an_interrupt_that_comes_while_c_code_calls_back_into_python_is_not_lost():
    # As llvmlite calls numba's hooks while a kernel compiles: ctypes prints and drops an
    # exception that leaves the callback, so a KeyboardInterrupt raised inside is lost.
    # The callback's code says it is llvmlite's, as numba's hooks are called from llvmlite's.
    import llvmlite

    returned: list[bool] = []
    hook_code = "def hook():\n    signal.raise_signal(signal.SIGINT)\n    returned.append(True)\n"  # Ctrl-C, inside
    namespace = {"signal": signal, "returned": returned}
    exec(compile(hook_code, os.path.join(os.path.dirname(llvmlite.__file__), "callback.py"), "exec"), namespace)
    from_c = ctypes.CFUNCTYPE(None)(namespace["hook"])
    # Python's own handler, as a command's process starts with (a test before may have left another).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        start = time.monotonic()
        with pytest.raises(KeyboardInterrupt), interrupts_kept():
            from_c()
            time.sleep(10)  # the interrupt, sent again once the callback has returned, ends this
        assert returned == [True] and time.monotonic() - start < 5
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        # Sent again also when another handler, chaining to ours, has come in meanwhile (the
        # arena's, as an agent's search begins right after the kernels compiled).
        received: list[bool] = []
        with pytest.raises(KeyboardInterrupt), interrupts_kept():
            ours = signal.getsignal(signal.SIGINT)
            from_c()

            def chained(signum, frame):
                received.append(True)
                ours(signum, frame)

            signal.signal(signal.SIGINT, chained)
            time.sleep(10)
        assert received == [True]
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize("caller", ["arena", "script_status"])
def test_an_interrupt_that_passed_through_exec_still_ends_the_command_with_its_own_status(caller, tmp_path):
    # CPython marks a KeyboardInterrupt that leaves code run by exec of a text (numba compiles
    # through such code) and, when the mark is still set at exit, kills its own process with
    # SIGINT: the status 130 the command chose was lost (a shell shows 130 either way). Only
    # under python -m (a script's SystemExit ends the process before the mark is looked at).
    interrupted = "exec('raise KeyboardInterrupt')"
    program = {
        "arena": f"import sys\nfrom board_arena.arena import cli\nfrom board_arena.arena.cli import listing\nlisting.handle = lambda args: {interrupted}\nsys.exit(cli.main())",
        "script_status": ("import sys\nfrom board_arena.commandline import script_status\n"
                          f"sys.exit(script_status('demo', lambda argv: None, lambda args: {interrupted}, []))"),
    }[caller]
    (tmp_path / "command.py").write_text(program)
    done = subprocess.run([sys.executable, "-m", "command", "list"], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": os.path.dirname(EXPERIMENTS)})
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip().splitlines()[-1] in ("arena list: interrupted", "demo: interrupted")


def test_what_the_experiments_write_by_default_is_ignored_by_git():
    """Run from the checkout, a script's default output (its ``--out`` default, or learn_kalah's
    weights) must not show up as a change to commit."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    defaults = {"td_kalah.json"}  # learn_kalah.py's weights (its --out defaults to None)
    for script in (root / "experiments").glob("*.py"):
        defaults.update(re.findall(r'add_argument\("--out",[^)]*?default="([^"]+)"', script.read_text()))
    assert {"accuracy-run", "gauntlet-runs"} <= defaults
    for name in sorted(defaults):
        ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", name], cwd=root)
        assert ignored.returncode == 0, f"{name} (a default output) is not ignored by git"
