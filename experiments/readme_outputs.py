"""Regenerates the output blocks of README.md from the commands that print them, so that the
README cannot go stale: ``tests/test_readme.py`` fails when a block and its command disagree.

    python experiments/readme_outputs.py              # refresh the quick and slow blocks (a few minutes)
    python experiments/readme_outputs.py --long       # and the long ones (benchmarks, Ray: tens of minutes)
    python experiments/readme_outputs.py --check      # compare only; exit 1 when a block differs
    python experiments/readme_outputs.py --only sprt  # one block

A block the script owns is the fenced block right after a marker line in README.md::

    <!-- readme-output: td-kalah-standings -->

and :data:`BLOCKS` says how it is made: the commands (run in a temporary folder, each as the
README shows it, plus arguments that change no figure such as ``--quiet --out DIR``), which lines
of their output the block shows, and which figures are volatile (times, rates, games still in
flight when an SPRT decides), masked when a block is compared with a new run. Each block has a
tier, which says what the tests verify:

- ``quick``: the quick test tier runs the commands and compares (seconds);
- ``slow``: the slow tier (``-m slow``) runs them and compares (about a minute each): the quick
  tier checks the block's lines against the block's line patterns;
- ``long``: benchmarks and strength runs (minutes to an hour, some need Ray): refreshed by
  ``--long`` only; every tier checks the block's lines against the patterns, none re-runs them.

Other fenced blocks: ``python`` blocks are examples, run verbatim in one session by the slow tier
(a line ending in ``# SomeError: words`` must raise that error with those words); ``bash`` blocks'
``arena`` commands run verbatim by the slow tier, ``--games`` lowered to keep it short; a block
after ``<!-- readme-shown: why -->`` is shown only (interactive, a cluster, an install).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from board_arena.commandline import OneLineParser

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MARKER = re.compile(r"^(?P<indent>\s*)<!-- readme-output: (?P<name>[\w-]+) -->\s*$")
SHOWN = re.compile(r"^\s*<!-- readme-shown: .+ -->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<info>\w*)\s*$")
TIERS = ("quick", "slow", "long")
#: A figure that differs from run to run, as masked: ``#``.
MASKED = "#"


@dataclass(frozen=True)
class Step:
    """One command of a block: ``command`` as the README shows it (a trailing ``  # comment`` is
    shown, not run), ``extra`` arguments that change no figure, and what of its output is shown."""

    command: str
    extra: str = ""
    #: The output lines shown: those matching this (default: all).
    keep: str | None = None
    #: The block shows the command line, then its output as ``# `` comments (a shell block).
    echo: bool = False
    #: (pattern, replacement) applied to each line shown (eliding what the README leaves out).
    edits: tuple[tuple[str, str], ...] = ()
    #: What of the output the block shows, when lines matching ``keep`` are not the way to say it.
    pick: Callable[[str], str] | None = None

    def shell(self, folder: str) -> str:
        """The command as run: the README's, with ``arena`` and ``python`` this checkout's."""
        command = self.command.split("  #")[0].strip() + (" " + self.extra if self.extra else "")
        command = command.replace("{tmp}", folder)
        python = shlex.quote(sys.executable)
        command = re.sub(r"^arena ", f"{python} -m board_arena.arena.cli ", command)
        return re.sub(r"^python ", f"{python} ", command)

    def render(self, output: str) -> list[str]:
        if self.pick is not None:
            output = self.pick(output)
        lines = [line.rstrip() for line in output.splitlines()]
        if self.keep is not None:
            lines = [line for line in lines if re.search(self.keep, line)]
        for pattern, replacement in self.edits:
            lines = [re.sub(pattern, replacement, line) for line in lines]
        return [self.command, *("# " + line for line in lines)] if self.echo else lines


@dataclass(frozen=True)
class Block:
    """An output block of the README: its tier, its commands, its volatile figures and the
    patterns its lines follow (a block of the slow or long tier is checked against them where
    its commands are not run)."""

    name: str
    tier: str
    steps: tuple[Step, ...]
    volatile: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    #: Commands run first, whose output is not shown (a run that an export then reads).
    setup: tuple[str, ...] = ()
    #: Whether the commands need Ray.
    ray: bool = False

    def generate(self) -> str:
        """The block's text, from running its commands now (in a temporary folder)."""
        with tempfile.TemporaryDirectory() as folder:
            for command in self.setup:
                _run(Step(command).shell(folder), folder)
            lines: list[str] = []
            for step in self.steps:
                lines += step.render(_run(step.shell(folder), folder))
        return "\n".join(lines).rstrip("\n")

    def masked(self, text: str) -> str:
        """``text`` with its volatile figures masked (and no blank lines at its end)."""
        text = text.rstrip("\n")
        for pattern in self.volatile:
            text = re.sub(pattern, lambda match: _mask(match), text)
        return text

    def misfits(self, text: str) -> list[str]:
        """The lines of ``text`` that follow none of the block's patterns."""
        return [line for line in text.splitlines() if not any(re.fullmatch(p, line) for p in self.patterns)]


def _mask(match: re.Match) -> str:
    """The match with each of its groups (or the whole match) replaced by MASKED."""
    if not match.re.groups:
        return MASKED
    text, start = "", match.start()
    for i in range(1, match.re.groups + 1):
        if match.start(i) < 0:
            continue
        text += match.string[start : match.start(i)] + MASKED
        start = match.end(i)
    return text + match.string[start : match.end()]


def _run(command: str, folder: str) -> str:
    done = subprocess.run(command, shell=True, cwd=folder, capture_output=True, text=True, env=_environment())
    if done.returncode != 0:
        raise RuntimeError(f"{command!r} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return done.stdout


def _environment() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


NUMBER = r"[-+]?[\d,]+(?:\.\d+)?"


def _one_exported_game(text: str, game_id: int = 2, moves: int = 9) -> str:
    """The block of game ``game_id`` of an export, its moves cut to the first ``moves`` and "..."."""
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        if f'[Id "{game_id}"]' in lines:
            played = lines[-1].split()
            lines[-1] = " ".join(played[:moves]) + (" ..." if len(played) > moves else "")
            return "\n".join(lines) + "\n\n"
    raise RuntimeError(f"the export holds no game {game_id}")


BLOCKS = {
    block.name: block
    for block in (
        Block(
            "export-format",
            "quick",
            setup=("arena run --game kalah --agents alphabeta:depth=4,mcts:iterations=500 --games 4 --concurrency 1 --quiet --out {tmp}/k",),
            steps=(
                Step("arena export {tmp}/k --out -", pick=_one_exported_game),  # game 2: its tags, its first moves
            ),
        ),
        Block(
            "td-kalah-standings",
            "slow",
            steps=(
                Step(
                    "arena run --game kalah --agents td-kalah,random,greedy,mcts:iterations=100 --anchor random",
                    extra="--quiet --out {tmp}/td",
                    keep=r"^(Rank  |\s+\d+  )",
                ),
            ),
            patterns=(r"Rank\s+Agent\s+Elo\s+95% interval\s+Games\s+Score\s+Draws",
                      rf"\s+\d+\s+\S+\s+{NUMBER}\s+\[{NUMBER}, {NUMBER}\]\s+\d+\s+{NUMBER}%\s+{NUMBER}%"),
        ),
        Block(
            "sprt",
            "long",
            steps=(
                Step(
                    "arena run --game kalah --agents alphabeta:depth=6,alphabeta:depth=4 --openings random:4 "
                    "--sprt elo0=0,elo1=10 --games 2000 --concurrency 2",
                    extra="--quiet --out {tmp}/sprt",
                    keep=r"^(SPRT of |  (LLR|Elo difference|Pentanomial) )",
                ),
            ),
            # The games in flight when the test decides (a pair or two per worker) depend on timing.
            volatile=(r"with the (\d+) games in flight then, played out: LLR ([-\d.]+)",
                      r"Elo difference [^:]+: ([-+\d.]+) \[([-+\d.]+), ([-+\d.]+)\]", r"LOS ([\d.]+)%", r"draw ratio ([\d.]+)%",
                      r"\[(\d+), (\d+), (\d+), (\d+), (\d+)\] \((\d+) complete pairs\)"),
            patterns=(r"SPRT of \S+ against \S+ \(elo0=\S+, elo1=\S+, alpha=\S+, beta=\S+\):",
                      r"  LLR [-\d.]+ \([-\d.]+, [-\d.]+\) (H[01] accepted after \d+ pairs(; with the \d+ games in flight then, played out: LLR [-\d.]+)?|undecided.*)",
                      rf"  Elo difference \S+ - \S+: {NUMBER} \[{NUMBER}, {NUMBER}\] \(95%, from the pairs\), LOS [\d.]+%, draw ratio [\d.]+% of games",
                      r"  Pentanomial \[0, 0\.5, 1, 1\.5, 2\] points for \S+: \[\d+, \d+, \d+, \d+, \d+\] \(\d+ complete pairs\)"),
        ),
        Block(
            "rating-coverage",
            "long",
            steps=(
                Step(
                    "python experiments/rating_coverage.py --reps 200",
                    keep=r"games/pairing",
                    echo=True,
                    edits=((r"  \[[\d. ]+\]  ", "  ...  "),),
                ),
            ),
            volatile=(r"fit (\d+) ms",),
            patterns=(r"python experiments/rating_coverage\.py --reps \d+",
                      r"# \S+ +\d+ agents, \d+ games/pairing: min [\d.]+, overall [\d.]+  \.\.\.  fit \d+ ms"),
        ),
        Block(
            "arena-scaling",
            "long",
            steps=(
                Step(
                    "python experiments/arena_scaling.py --games 600 --concurrency 1 2 --repeats 5   # 2 cores shared with other work",
                    keep=r"^(kalah|pool|concurrency)",
                    echo=True,
                    edits=((r" \([\d., ]+\)", " (...)"),),
                ),
            ),
            volatile=(NUMBER,),
            patterns=(r"python experiments/arena_scaling\.py .*",
                      r"# kalah, .* games, median of \d+",
                      rf"# pool concurrency \d, move log (on |off): +{NUMBER} s \(\.\.\.\), +{NUMBER} games/s; CPU +{NUMBER} s",
                      r"# concurrency \d: throughput with the log / without = .*"),
        ),
        Block(
            "ray-scaling",
            "long",
            ray=True,
            steps=(
                Step(
                    "python experiments/arena_scaling.py --ray --move-log on --concurrency 2 --games 6000 --repeats 3",
                    keep=r"^(pool|ray)",
                    echo=True,
                    edits=((r"(games/s).*", r"\1 ..."), (r"^(ray .*?s) \([\d., ]+\)", r"\1 ...")),
                ),
                Step(
                    "python experiments/arena_scaling.py --ray --move-log on --concurrency 2 --agents greedy,mcts:iterations=2000 --games 3000 --repeats 3",
                    keep=r"^ray at",
                    echo=True,
                ),
            ),
            volatile=(NUMBER,),
            patterns=(r"python experiments/arena_scaling\.py --ray .*",
                      rf"# (pool|ray ) concurrency \d, move log on : +{NUMBER} s .*games/s \.\.\.",
                      rf"# ray at \d vs pool at \d \(move log on\): {NUMBER}x \({NUMBER} vs {NUMBER} games/s\); identical results: True"),
        ),
    )
}


# -- README.md ------------------------------------------------------------------------------------


@dataclass
class Found:
    """A fenced block of README.md: its marker (output block name, or None), its lines (1-based,
    the fences excluded) and its text (the indentation of the fence removed)."""

    name: str | None
    info: str
    start: int
    end: int
    text: str
    shown: bool = False
    indent: str = ""
    lines: list[str] = field(default_factory=list)


def blocks(text: str) -> list[Found]:
    """Every fenced block of the README, in order."""
    lines = text.splitlines()
    found = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent = fence.group("indent")
        close = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        before = lines[i - 1] if i > 0 else ""
        marker = MARKER.match(before)
        body = [line[len(indent) :] if line.startswith(indent) else line for line in lines[i + 1 : close]]
        found.append(Found(marker.group("name") if marker else None, fence.group("info"), i + 1, close, "\n".join(body),
                           bool(SHOWN.match(before)), indent, lines[i + 1 : close]))
        i = close + 1
    return found


def replace_block(text: str, name: str, new: str) -> str:
    """README text with output block ``name`` replaced by ``new``."""
    lines = text.splitlines()
    block = next(b for b in blocks(text) if b.name == name)
    body = [block.indent + line if line else line for line in new.splitlines()]
    return "\n".join(lines[: block.start] + body + lines[block.end :]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--long", action="store_true", help="also the long blocks (benchmarks, strength runs, Ray)")
    parser.add_argument("--check", action="store_true", help="compare only (volatile figures masked); exit 1 on a difference")
    parser.add_argument("--only", action="append", choices=sorted(BLOCKS), help="this block only (repeatable)")
    args = parser.parse_args(argv)
    text = README.read_text()
    marked = {b.name for b in blocks(text) if b.name}
    unknown = marked - set(BLOCKS)
    if unknown:
        parser.error(f"README.md marks blocks this script does not know: {', '.join(sorted(unknown))}")
    names = args.only or [name for name, b in BLOCKS.items() if b.tier != "long" or args.long]
    differ = []
    for name in names:
        block = BLOCKS[name]
        if name not in marked:
            print(f"{name}: no such marker in README.md; skipped", file=sys.stderr)
            continue
        print(f"{name} ({block.tier}): running {len(block.setup) + len(block.steps)} command(s)...", file=sys.stderr, flush=True)
        new = block.generate()
        old = next(b.text for b in blocks(text) if b.name == name)
        if block.masked(old) != block.masked(new):
            differ.append(name)
        if not args.check and old != new:
            text = replace_block(text, name, new)
    if not args.check:
        README.write_text(text)
        print(f"README.md: {len(names)} block(s) regenerated, {len(differ)} changed beyond their volatile figures"
              + (f" ({', '.join(differ)})" if differ else ""))
        return 0
    for name in differ:
        print(f"{name}: the README block differs from what its commands print now")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
