"""README.md stays true (see experiments/readme_outputs.py for how its output blocks are made).

What each tier verifies:

- quick tier: every fenced block is accounted for (an output block the script makes, a Python or
  shell example, or one marked as shown only); the quick output blocks equal what their commands
  print now; the slow and long output blocks follow their line patterns; the Python examples
  parse, and the errors they document exist.
- slow tier (``-m slow``): the slow output blocks equal what their commands print now (volatile
  figures masked); every Python example runs verbatim, top to bottom in one session, each line
  that documents an error raising it with those words; every ``arena`` command of the shell
  examples runs as written but for smaller budgets (``--games`` at most 8, ``--move-time``
  0.01, a run folder under a temporary folder).
- the long output blocks (benchmarks, the SPRT run, Ray) are refreshed by
  ``python experiments/readme_outputs.py --long`` and checked only for their line patterns.
"""

import ast
import builtins
import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from experiments import readme_outputs
from experiments.readme_outputs import BLOCKS, README, blocks

ROOT = Path(__file__).resolve().parent.parent
#: A line that documents the error it raises: ``state.apply("c3-e5")   # IllegalMoveError: words``.
RAISES = re.compile(r"^(?P<code>\S.*?)\s+# (?P<error>[A-Z]\w*Error): (?P<words>.+)$")


def readme_blocks():
    return blocks(README.read_text())


def test_every_fenced_block_is_accounted_for():
    for block in readme_blocks():
        where = f"README.md line {block.start}"
        if block.name is not None:
            assert block.name in BLOCKS, f"{where}: unknown output block {block.name!r} (experiments/readme_outputs.py)"
        else:
            assert block.shown or block.info in ("python", "bash"), (
                f"{where}: a ```{block.info} block must be an output block of experiments/readme_outputs.py "
                "(<!-- readme-output: NAME -->) or marked <!-- readme-shown: why -->"
            )
    marked = [b.name for b in readme_blocks() if b.name]
    assert sorted(marked) == sorted(BLOCKS), "each output block of the script is in the README exactly once"


@pytest.mark.parametrize("name", [name for name, b in BLOCKS.items() if b.tier == "quick"])
def test_a_quick_output_block_is_what_its_command_prints_now(name):
    block = BLOCKS[name]
    shown = next(b.text for b in readme_blocks() if b.name == name)
    assert block.masked(shown) == block.masked(block.generate()), (
        f"README block {name} is stale: python experiments/readme_outputs.py --only {name}"
    )


@pytest.mark.parametrize("name", [name for name, b in BLOCKS.items() if b.tier != "quick"])
def test_the_other_output_blocks_follow_their_line_patterns(name):
    shown = next(b.text for b in readme_blocks() if b.name == name)
    assert shown.strip() and BLOCKS[name].misfits(shown) == []


def test_the_masks_and_patterns_can_fail():
    sprt = BLOCKS["sprt"]
    line = "  LLR 2.96 (-2.94, 2.94) H1 accepted after 124 pairs; with the 7 games in flight then, played out: LLR 3.04"
    assert sprt.masked(line) == "  LLR 2.96 (-2.94, 2.94) H1 accepted after 124 pairs; with the # games in flight then, played out: LLR #"
    assert sprt.masked(line.replace("124", "125")) != sprt.masked(line)  # the verdict is not volatile
    assert sprt.misfits(line) == [] and sprt.misfits(line.replace("LLR", "llr")) != []


def test_the_python_examples_parse_and_name_errors_that_exist():
    for block in readme_blocks():
        if block.info == "python" and not block.shown:
            ast.parse(block.text)
            for line in block.text.splitlines():
                match = RAISES.match(line)
                if match:
                    assert _error_class(match.group("error")), line


def _error_class(name):
    from board_arena import engines
    from board_arena.envs import batched

    return getattr(builtins, name, None) or getattr(engines, name, None) or getattr(batched, name, None)


# -- slow tier -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name, b in BLOCKS.items() if b.tier == "slow"])
def test_a_slow_output_block_is_what_its_command_prints_now(name):
    block = BLOCKS[name]
    shown = next(b.text for b in readme_blocks() if b.name == name)
    assert block.masked(shown) == block.masked(block.generate()), (
        f"README block {name} is stale: python experiments/readme_outputs.py --only {name}"
    )


def shell_commands():
    """The ``arena`` commands of the README's shell examples, in order, continuation lines joined."""
    found = []
    for block in readme_blocks():
        if block.info != "bash" or block.shown or block.name:
            continue
        text = block.text.replace("\\\n", " ")
        for line in text.splitlines():
            command = line.split("  #")[0].strip()
            if command.startswith("arena "):
                found.append(command)
    return found


def smaller(command: str, folder: Path, index: int) -> list[str]:
    """The command as run by the test: budgets lowered, runs kept under ``folder``."""
    words = shlex.split(command)
    if words[1] == "run":
        if "--games" in words:
            i = words.index("--games") + 1
            words[i] = str(min(int(words[i]), 8))
        else:
            words += ["--games", "8"]
        if "--move-time" in words:
            words[words.index("--move-time") + 1] = "0.01"
        if "--out" not in words:
            words += ["--out", str(folder / "arena-runs" / f"run{index}")]
        words.append("--quiet")
    return [sys.executable, "-m", "board_arena.arena.cli", *words[1:]]


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A folder where the examples run as a reader would run them from a checkout (experiments/
    reachable), their outputs kept apart from the checkout."""
    folder = tmp_path_factory.mktemp("readme")
    (folder / "experiments").symlink_to(ROOT / "experiments")
    return folder


@pytest.mark.slow
def test_every_arena_command_of_the_shell_examples_runs(workspace):
    commands = shell_commands()
    assert any("--gauntlet" in c for c in commands) and any(c.startswith("arena replay runs/k") for c in commands)
    for index, command in enumerate(commands):
        done = subprocess.run(smaller(command, workspace, index), cwd=workspace, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, f"{command}: {done.stderr[-2000:]}"


@pytest.mark.slow
def test_every_python_example_runs_verbatim_in_one_session(workspace):
    """Top to bottom, as a reader pastes them into one interpreter (after the shell examples,
    which made runs/k)."""
    if not (workspace / "runs" / "k").exists():
        test_every_arena_command_of_the_shell_examples_runs(workspace)
    namespace: dict = {"__name__": "__readme__"}
    here = os.getcwd()
    os.chdir(workspace)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for block in readme_blocks():
                if block.info != "python" or block.shown:
                    continue
                source = "\n".join(_checked(line) for line in block.text.splitlines())
                try:
                    exec(compile(source, f"README.md:{block.start}", "exec"), namespace)
                except Exception as error:
                    raise AssertionError(f"the example at README.md line {block.start} fails: {type(error).__name__}: {error}") from None
    finally:
        os.chdir(here)


def _checked(line: str) -> str:
    """A line that documents an error, as a check that it raises it with those words."""
    match = RAISES.match(line)
    if not match:
        return line
    code, error, words = match.group("code", "error", "words")
    # The error by its name: the example need not have imported it.
    return (
        f"try:\n    {code}\nexcept Exception as _error:\n"
        f"    assert {error!r} in [c.__name__ for c in type(_error).__mro__], repr(_error)\n"
        f"    assert {words!r} in str(_error), str(_error)\n"
        f"else:\n    raise AssertionError({code!r} + ' raised nothing')"
    )


def test_the_script_refuses_a_marker_it_does_not_know(tmp_path, monkeypatch, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("<!-- readme-output: nope -->\n```\nx\n```\n")
    monkeypatch.setattr(readme_outputs, "README", readme)
    with pytest.raises(SystemExit):
        readme_outputs.main(["--check"])
    assert "does not know: nope" in capsys.readouterr().err
