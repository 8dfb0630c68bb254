"""The documentation stays true: README.md and every page under docs/ (see
experiments/docs_outputs.py for how their output blocks are made).

What each tier verifies:

- quick tier: every fenced block is accounted for (an output block the script makes, a Python
  example, a shell block of ``arena`` commands, or one marked as shown only); the quick output
  blocks equal what their commands print now; the slow and long output blocks follow their line
  patterns, and each section of the benchmarks page has its stamp and shows its commands; every
  Python example of a page runs, top to bottom in one session per page, its ``>>>`` lines as
  doctests whose shown output must be what they print (``...`` stands for a volatile figure; an
  exception is shown by its class name and message); links stay inside the repository; the
  README stays a front door.
- slow tier (``-m slow``): the slow output blocks equal what their commands print now (volatile
  figures masked); every ``arena`` command of the shell examples runs as written but for smaller
  budgets (``--games`` at most 8, ``--move-time`` 0.01, a run folder under a temporary folder);
  ``mkdocs build --strict`` builds the site.
- the long output blocks (the benchmarks page, the SPRT run) are written by
  ``python experiments/docs_outputs.py --long`` and checked only for their shape.
"""

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from experiments import docs_outputs
from experiments.docs_outputs import (
    BLOCKS,
    STAMP,
    blocks,
    every_block,
    own_cache,
    page_name,
    pages,
    save_docs_files,
)

ROOT = Path(__file__).resolve().parents[2]
PAGES = pages()
#: A Markdown link or image: ``[text](target)``.
LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)\)")
#: The README's bound on its length: a front door, the rest in docs/.
README_LINES = 250


def page_blocks(page: Path):
    return blocks(page.read_text(), page)


def shown_block(name: str):
    return next(b for b in every_block() if b.name == name)


@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_every_block_of_a_page_is_accounted_for(page):
    for block in page_blocks(page):
        if block.name is not None:
            assert block.name in BLOCKS, f"{block.where}: unknown output block {block.name!r} (experiments/docs_outputs.py)"
        elif block.shown or block.info == "python" or block.file is not None:  # a file the reader saves
            continue
        elif block.info == "bash":
            for command in _command_lines(block.text):
                assert command.startswith("arena "), (
                    f"{block.where}: {command!r} is not an arena command, which the slow tier runs: "
                    "make it an output block or mark the block <!-- docs-shown: why -->")
        else:
            raise AssertionError(
                f"{block.where}: a ```{block.info} block must be an output block of experiments/docs_outputs.py "
                "(<!-- docs-output: NAME -->), an example (python, bash) or marked <!-- docs-shown: why -->")


def test_each_output_block_is_on_exactly_one_page():
    marked = [b.name for b in every_block() if b.name]
    assert sorted(marked) == sorted(BLOCKS), "each output block of the script is in the docs exactly once"


@pytest.mark.parametrize("name", [name for name, b in BLOCKS.items() if b.tier == "quick"])
def test_a_quick_output_block_is_what_its_command_prints_now(name):
    block = BLOCKS[name]
    assert block.masked(shown_block(name).text) == block.masked(block.generate()), (
        f"the docs' block {name} is stale: python experiments/docs_outputs.py --only {name}"
    )


@pytest.mark.parametrize("name", [name for name, b in BLOCKS.items() if b.tier != "quick"])
def test_the_other_output_blocks_follow_their_line_patterns(name):
    shown, block = shown_block(name), BLOCKS[name]
    assert shown.text.strip() and block.misfits(shown.text) == [], f"{shown.where}: {block.misfits(shown.text)[:3]}"
    if block.section and block.steps:
        assert STAMP.match(shown.text.splitlines()[0]), f"{shown.where}: a section starts with its stamp"
        for step in block.steps:
            assert step.command in shown.text, f"{shown.where}: the section shows the command {step.command!r}"


def test_the_masks_and_patterns_can_fail():
    sprt = BLOCKS["sprt"]
    line = "  LLR 2.96 (-2.94, 2.94) H1 accepted after 124 pairs; with the 7 games in flight then, played out: LLR 3.04"
    assert sprt.masked(line) == "  LLR 2.96 (-2.94, 2.94) H1 accepted after 124 pairs; with the # games in flight then, played out: LLR #"
    assert sprt.masked(line.replace("124", "125")) != sprt.masked(line)  # the verdict is not volatile
    assert sprt.misfits(line) == [] and sprt.misfits(line.replace("LLR", "llr")) != []
    section = BLOCKS["kalah-table"]
    stamp = "Measured on AMD EPYC (LLVM: znver5), 2 cores, load average 1.0 at the start and 2.0 at the end, on 2020-01-01 at commit `abc`."
    assert section.masked(stamp + "\n\n| 1 | 2 |") == section.masked("Carried over from elsewhere.\n\n| 1 | 2 |")
    assert section.misfits(stamp + "\n\n| 1 | 2 |") == [] and section.misfits("a line of no table") != []


# -- Python examples -----------------------------------------------------------------------------


class ExampleChecker(doctest.OutputChecker):
    """Doctest's checker, with an exception's class named as the docs name it: ``IllegalMoveError``
    rather than the path of the module that defines it."""

    QUALIFIED = re.compile(r"^(?:[A-Za-z_]\w*\.)+(?=[A-Za-z_]\w*(?::|$))", re.M)

    def check_output(self, want, got, optionflags):
        return super().check_output(want, self.QUALIFIED.sub("", got), optionflags)


@pytest.fixture()
def workspace(tmp_path):
    """A folder where the examples run as a reader would run them from a checkout (experiments/
    and tests/plugins/ reachable), their outputs kept apart from the checkout."""
    (tmp_path / "experiments").symlink_to(ROOT / "experiments")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "plugins").symlink_to(ROOT / "tests" / "plugins")
    return tmp_path


def run_python_examples(page: Path) -> int:
    """Runs the Python examples of ``page`` in order in one namespace, in the current folder;
    returns how many ran. A block marked as a file is saved
    as that file (a plugin, which a later example loads); a block with ``>>>`` lines is a
    doctest; one without is code, run as it is."""
    namespace: dict = {"__name__": "__docs__"}
    parser = doctest.DocTestParser()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    ran = 0
    for block in page_blocks(page):
        if block.info != "python" or block.shown or block.name:
            continue
        ran += 1
        if block.file is not None:  # saved by the test before this process started
            continue
        if ">>> " not in block.text:
            try:
                exec(compile(block.text, f"{block.where}", "exec"), namespace)
            except Exception as error:
                raise AssertionError(f"the example at {block.where} fails: {type(error).__name__}: {error}") from None
            continue
        test = parser.get_doctest(block.text, namespace, block.where, str(page), block.start)
        runner = doctest.DocTestRunner(checker=ExampleChecker(), optionflags=flags)
        report: list[str] = []
        runner.run(test, out=report.append, clear_globs=False)
        namespace.update(test.globs)
        if runner.failures:
            raise AssertionError(f"the example at {block.where} fails:\n" + "".join(report))
    return ran


@pytest.mark.parametrize("page", [p for p in PAGES if any(b.info == "python" and not b.shown for b in page_blocks(p))],
                         ids=page_name)
def test_the_python_examples_of_a_page_run_and_print_what_they_show(page, workspace):
    """In a process of its own, as a reader's session: what a page registers (a plugin's agent)
    stays out of the other tests' registries."""
    games = save_docs_files(workspace, page)
    done = subprocess.run([sys.executable, __file__, str(page)], cwd=workspace, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", **(own_cache(workspace) if games else {})})
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    assert done.stdout.startswith("ran "), done.stdout


def test_a_doctest_of_the_docs_fails_on_a_wrong_output_and_names_errors_as_the_docs_do():
    checker, flags = ExampleChecker(), doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    got = "board_arena.engines.errors.IllegalMoveError: c3-e5 is diagonal\n"
    assert checker.check_output("IllegalMoveError: c3-e5 is diagonal\n", got, flags)
    assert not checker.check_output("IllegalMoveError: c3-e5 is straight\n", got, flags)
    assert checker.check_output("c depth ..., value +0.13\n", "c depth 6, value +0.13\n", flags)
    assert not checker.check_output("c depth ..., value +0.10\n", "c depth 6, value +0.13\n", flags)


# -- links and the README -------------------------------------------------------------------------


def test_a_broken_copy_of_the_docs_game_fails_its_check_by_name(tmp_path):
    """The page on adding a game shows its game conforming; one wrong character of it (a move
    read back one stone off) fails ``arena check-game`` with the check that found it."""
    assert save_docs_files(tmp_path, ROOT / "docs" / "extending" / "games.md") == {"nim"}
    face = tmp_path / "nim" / "__init__.py"
    right = "letters.index(word[0]) + int(word[1:]) - 1"
    assert right in face.read_text()
    face.write_text(face.read_text().replace(right, "letters.index(word[0]) + int(word[1:])"))
    done = subprocess.run([sys.executable, "-m", "board_arena.arena.cli", "check-game", "nim", "--plugin", "nim", "--quick"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **own_cache(tmp_path)})
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[-1] == "2 of 2 variants of nim fail the conformance checks"
    assert "nim: notation: the notation 'a1' of move 0 parses back to 1" in done.stdout


@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_links_stay_inside_the_repository(page):
    """A relative link names a file of the checkout (a page of docs/ from docs/), never one
    outside it; the README links into docs/."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for match in LINK.finditer(text):
        target = match.group("target")
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            assert not target.startswith("file:"), f"{page_name(page)}: {target}"
            continue
        path = (page.parent / target.partition("#")[0]).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), f"{page_name(page)}: the link {target} names no file of the repository"
        if page.is_relative_to(ROOT / "docs"):
            assert path.is_relative_to(ROOT / "docs"), f"{page_name(page)}: the site has no {target}: name the file as code instead"


def test_the_readme_is_a_front_door_whose_test_command_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= README_LINES
    quick_start = readme.split("## Quick start", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    install, test = quick_start.strip().splitlines()
    assert install == "pip install -e . && arena run --game mancala --agents mcts,alphabeta"
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert test == ci == 'pip install -e ".[test]" && ruff check && mypy && python -m pytest'


def test_the_script_refuses_a_marker_it_does_not_know(tmp_path, monkeypatch, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("<!-- docs-output: nope -->\n```\nx\n```\n")
    monkeypatch.setattr(docs_outputs, "README", readme)
    monkeypatch.setattr(docs_outputs, "DOCS", tmp_path / "docs")
    with pytest.raises(SystemExit):
        docs_outputs.main(["--check"])
    assert "does not know: nope" in capsys.readouterr().err


def test_the_script_refuses_a_section_without_its_end(tmp_path, monkeypatch, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("<!-- docs-output: accuracy -->\nMeasured on a machine.\n")
    monkeypatch.setattr(docs_outputs, "README", readme)
    monkeypatch.setattr(docs_outputs, "DOCS", tmp_path / "docs")
    with pytest.raises(SystemExit):
        docs_outputs.main(["--check"])
    assert "has no <!-- docs-output-end -->" in capsys.readouterr().err


def test_a_section_is_replaced_between_its_markers():
    text = "intro\n<!-- docs-output: accuracy -->\nold\nlines\n<!-- docs-output-end -->\noutro\n"
    new = docs_outputs.replace_block(text, "accuracy", "Measured on x.\n\n| a |")
    assert new == "intro\n<!-- docs-output: accuracy -->\n\nMeasured on x.\n\n| a |\n\n<!-- docs-output-end -->\noutro\n"
    assert blocks(new)[0].text == "Measured on x.\n\n| a |"


# -- slow tier -----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for name, b in BLOCKS.items() if b.tier == "slow"])
def test_a_slow_output_block_is_what_its_command_prints_now(name):
    block = BLOCKS[name]
    assert block.masked(shown_block(name).text) == block.masked(block.generate()), (
        f"the docs' block {name} is stale: python experiments/docs_outputs.py --only {name}"
    )


def _command_lines(text: str) -> list[str]:
    """The command lines of a shell block, continuation lines joined, comments cut."""
    lines = [line.split("  #")[0].strip() for line in text.replace("\\\n", " ").splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def shell_commands():
    """The ``arena`` commands of the docs' shell examples, page by page, in order."""
    return [command for block in every_block() if block.info == "bash" and not block.shown and not block.name
            for command in _command_lines(block.text)]


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


@pytest.mark.slow
def test_every_arena_command_of_the_shell_examples_runs(workspace):
    games = save_docs_files(workspace)  # the files a reader saved (plugins, a game), which the commands load
    commands = shell_commands()
    assert any("--gauntlet" in c for c in commands) and any(c.startswith("arena replay runs/k") for c in commands)
    for index, command in enumerate(commands):
        loads_a_game = any(f"--plugin {game}" in command for game in games)
        done = subprocess.run(smaller(command, workspace, index), cwd=workspace, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PYTHONPATH": str(ROOT), **(own_cache(workspace) if loads_a_game else {})})
        assert done.returncode == 0, f"{command}: {done.stderr[-2000:]}"


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    """``mkdocs build --strict``: every page in the navigation, every link and anchor found, the
    API reference generated from the docstrings, nothing fetched from the network."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").exists() and (tmp_path / "site" / "api" / "engines" / "index.html").exists()


if __name__ == "__main__":
    # One page's examples, in this process (test_the_python_examples_of_a_page_run_and_print_what_they_show).
    try:
        print(f"ran {run_python_examples(Path(sys.argv[1]))} examples")
    except AssertionError as failure:
        print(failure)
        sys.exit(1)
