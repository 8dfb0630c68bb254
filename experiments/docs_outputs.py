"""Writes the output blocks of the documentation (README.md and the pages under docs/) from the
commands that print them, so that no output the docs show can go stale:
``tests/system/test_docs.py`` fails when a block and its commands disagree.

    python experiments/docs_outputs.py                        # the quick and slow blocks (minutes)
    python experiments/docs_outputs.py --long                 # and the long ones: the benchmarks page (hours)
    python experiments/docs_outputs.py --only bench-speed     # one block (repeatable)
    python experiments/docs_outputs.py --check                # compare only; status 1 when a block differs
    python experiments/docs_outputs.py --list                 # every block: its tier, its page, its commands

A block is marked in a page by an HTML comment (invisible on the site), in one of two forms:

* ``<!-- docs-output: NAME -->`` on the line before a fenced block: the block is the output (a
  console transcript);
* ``<!-- docs-output: NAME -->`` and, lines later, ``<!-- docs-output-end -->`` around Markdown:
  a section of the benchmarks page (a stamp with the machine, its load average, the date and the
  git commit, then each command and what it printed, tables as tables).

:data:`BLOCKS` says how each block is made: its commands (run in a temporary folder that sees
this checkout's ``experiments/``, each as the page shows it, plus arguments that change no figure
such as ``--quiet --out DIR``), which lines of their output it shows, which figures are volatile
(times, rates, the stamp: masked when a block is compared with a new run) and the line patterns
that its text follows. Each block has a tier, which says what the tests verify:

- ``quick``: the quick test tier runs the commands and compares (seconds);
- ``slow``: the slow tier (``-m slow``) runs them and compares (a minute or so); the quick tier
  checks the block's lines against its patterns;
- ``long``: benchmarks and strength runs (minutes to hours, some need Ray or OpenSpiel): written
  by ``--long`` only; every tier checks the block's lines against its patterns, none runs them.

A long block whose figures were not measured by this script says so in its stamp ("Carried
over ..."), with the command that refreshes it.

Other marks: ``<!-- docs-shown: why -->`` before a fenced block that is shown only (an
interactive command, a cluster, an installation); ``<!-- docs-file: NAME.py -->`` before a Python
block that the reader saves as that file (a plugin), which later examples load.
``tests/system/test_docs.py`` says how the other blocks (Python examples, shell commands) are
checked.
"""

from __future__ import annotations

import datetime
import json
import os
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
DOCS = ROOT / "docs"
MARKER = re.compile(r"^(?P<indent>\s*)<!-- docs-output: (?P<name>[\w-]+) -->\s*$")
END = re.compile(r"^\s*<!-- docs-output-end -->\s*$")
SHOWN = re.compile(r"^\s*<!-- docs-shown: .+ -->\s*$")
FILE = re.compile(r"^\s*<!-- docs-file: (?P<path>[\w./-]+) -->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<info>[\w-]*)\s*$")
TIERS = ("quick", "slow", "long")
#: A figure that differs from run to run, as masked: ``#``.
MASKED = "#"
NUMBER = r"[-+]?[\d,]+(?:\.\d+)?"
#: The first line of a measured section: where, when and on what code its figures were measured.
STAMP = re.compile(r"^(Measured on .+|Carried over .+)$", re.M)


def pages() -> list[Path]:
    """Every page of the documentation: the README, then docs/ in path order."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def page_name(page: Path) -> str:
    """A page's path as the docs and the tests name it: from the checkout's root."""
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


@dataclass(frozen=True)
class Step:
    """One command of a block: ``command`` as the page shows it (a trailing ``  # comment`` is
    shown, not run), ``extra`` arguments that change no figure, and what of its output is shown."""

    command: str
    extra: str = ""
    #: The output lines shown: those matching this (default: all).
    keep: str | None = None
    #: The block shows the command line, then its output as ``# `` comments (a shell block).
    echo: bool = False
    #: (pattern, replacement) applied to each line shown (eliding what the page leaves out).
    edits: tuple[tuple[str, str], ...] = ()
    #: What of the output the block shows, when lines matching ``keep`` are not the way to say it.
    pick: Callable[[str], str] | None = None
    #: A file the command writes (relative to its folder) that is shown instead of its output.
    output_file: str | None = None
    #: In a section: the output is Markdown (a table), shown as it is rather than as a transcript.
    markdown: bool = False

    def shell(self, folder: str) -> str:
        """The command as run: the page's, with ``arena`` and ``python`` this checkout's."""
        command = self.command.split("  #")[0].strip() + (" " + self.extra if self.extra else "")
        command = command.replace("{tmp}", folder)
        python = shlex.quote(sys.executable)
        command = re.sub(r"^arena ", f"{python} -m board_arena.arena.cli ", command)
        command = re.sub(r"^(nice |taskset -c \d+ )?python ", lambda m: f"{m.group(1) or ''}{python} ", command)
        return command

    def render(self, output: str, folder: str) -> list[str]:
        if self.output_file is not None:
            output = (Path(folder) / self.output_file).read_text()
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
    """An output block: its tier, its commands, its volatile figures and the patterns its lines
    follow (a block of the slow or long tier is checked against them where its commands are not
    run). A ``section`` is a stretch of Markdown (a section of the benchmarks page, stamped with
    where and when it was measured, or a table this script makes); other blocks are fenced
    transcripts."""

    name: str
    tier: str
    steps: tuple[Step, ...] = ()
    volatile: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    #: Commands run first, whose output is not shown (a run that an export then reads).
    setup: tuple[str, ...] = ()
    #: Whether the commands need Ray.
    ray: bool = False
    section: bool = False
    #: The block's text made by a function of this script rather than by commands.
    make: Callable[[], str] | None = None
    #: The commands use the files the pages have the reader save (a plugin, a game).
    files: bool = False

    def generate(self) -> str:
        """The block's text, from running its commands now (in a temporary folder)."""
        if self.make is not None:
            return self.make().rstrip("\n")
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "experiments").symlink_to(ROOT / "experiments")
            load_before = os.getloadavg()[0]
            env = {}
            if self.files and save_docs_files(Path(folder)):
                env = own_cache(Path(folder))
            for command in self.setup:
                _run(Step(command).shell(folder), folder, env)
            chunks: list[str] = []
            for step in self.steps:
                lines = step.render(_run(step.shell(folder), folder, env), folder)
                if not self.section:
                    chunks += lines
                elif step.markdown:
                    chunks.append(f"```bash\n{step.command}\n```\n\n" + "\n".join(lines))
                else:
                    chunks.append(f"```bash\n{step.command}\n```\n\n```text\n" + "\n".join(lines) + "\n```")
            if not self.section:
                return "\n".join(chunks).strip("\n")
            stamp = measurement_stamp(load_before, os.getloadavg()[0])
        return "\n\n".join([stamp, *chunks])

    def masked(self, text: str) -> str:
        """``text`` with its volatile figures masked (and no blank lines at its ends)."""
        text = STAMP.sub(MASKED, text.strip("\n"))
        for pattern in self.volatile:
            text = re.sub(pattern, lambda match: _mask(match), text)
        return text

    def misfits(self, text: str) -> list[str]:
        """The lines of ``text`` that follow none of the block's patterns (a section's stamp,
        fences, blank lines and shown commands are its frame: they need none)."""
        frame = [STAMP.pattern, r"```\w*", r""] if self.section else []
        frame += [re.escape(step.command) for step in self.steps if self.section]
        return [line for line in text.splitlines()
                if not any(re.fullmatch(p, line) for p in (*self.patterns, *frame))]


def measurement_stamp(load_before: float, load_after: float) -> str:
    """Where, when and on what code the figures of a section were measured."""
    return (f"Measured on {machine()}, load average {load_before:.1f} at the start and {load_after:.1f} at the "
            f"end, on {datetime.date.today().isoformat()} at commit `{commit()}`.")


def machine() -> str:
    """The CPU (its model as the system names it) and its core count."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    import platform

    model = model or platform.processor() or platform.machine()
    return f"{model}, {os.cpu_count()} cores"


def commit() -> str:
    """The checkout's commit, and whether the measured code (the package and the experiments, not
    the docs nor this script) has changes not committed."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    changed = git("status", "--porcelain", "--", "board_arena", "experiments", ":!experiments/docs_outputs.py")
    return head + (" with uncommitted changes to the code" if changed else "")


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


def _run(command: str, folder: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, shell=True, cwd=folder, capture_output=True, text=True, env={**_environment(), **(env or {})})
    if done.returncode != 0:
        raise RuntimeError(f"{command!r} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return done.stdout


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}


def _one_exported_game(text: str, game_id: int = 2, moves: int = 9) -> str:
    """The block of game ``game_id`` of an export, its moves cut to the first ``moves`` and "..."."""
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        if f'[Id "{game_id}"]' in lines:
            played = lines[-1].split()
            lines[-1] = " ".join(played[:moves]) + (" ..." if len(played) > moves else "")
            return "\n".join(lines) + "\n\n"
    raise RuntimeError(f"the export holds no game {game_id}")


def _without_title(text: str) -> str:
    """A Markdown file without its ``# title`` line (a section of a page has the page's headings)."""
    return re.sub(r"\A# .*\n+", "", text)


def _agents_part(text: str) -> str:
    """The agents' part of ``arena list``."""
    return text[text.index("Agents ("):]


def published_kalah_table() -> str:
    """The published Kalah(m, n) results (experiments/data/kalah_irving2000.json) as a table:
    the first player's result and, where the paper gives it, the margin."""
    data = json.loads((ROOT / "experiments" / "data" / "kalah_irving2000.json").read_text())
    cells = {(e["pits"], e["seeds"]): e["result"] + ("" if e["margin"] is None else f" {e['margin']:+d}")
             for e in data["entries"]}
    seeds = sorted({n for _, n in cells})
    lines = ["| m \\ n | " + " | ".join(str(n) for n in seeds) + " |", "|---" * (len(seeds) + 1) + "|"]
    for m in sorted({m for m, _ in cells}):
        lines.append(f"| {m} | " + " | ".join(cells.get((m, n), "-") for n in seeds) + " |")
    return "\n".join(lines)


#: The line of an arena report's pairing: ``A vs B  52.0%  [42.7%, 61.2%]  (100 games)``.
PAIRING = rf"\S+ vs \S+ +{NUMBER}% +\[{NUMBER}%, {NUMBER}%\] +\(\d+ games\)"
#: A row of a Markdown table.
TABLE_ROW = r"\|.*\|"
CARRIED = "Carried over"


def _gauntlet(game: str, n: int, settings: tuple[str, ...]) -> Step:
    """An equal-simulations gauntlet of MCTS settings against plain UCT (its pairing lines)."""
    base = f"mcts:iterations={n},solver=false,minimax=0"
    agents = ",".join([base, *(f"mcts:iterations={n},{s}" for s in settings)])
    return Step(f'arena run --game {game} --gauntlet --agents "{agents}" --openings random:2 --games 100 --concurrency 1',
                extra=f"--quiet --out {{tmp}}/{game}", keep=r" vs .*games\)$")


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
            "first-tournament",
            "quick",
            steps=(Step("arena run --game kalah --agents alphabeta:depth=4,greedy,random --games 10 --out runs/first", extra="--quiet"),),
            volatile=(r"Time per move: (.*)",),
        ),
        Block(
            "adjudication",
            "quick",
            steps=(
                Step(
                    "arena run --game kalah --agents alphabeta:depth=6,mcts:iterations=500 --games 6 --adjudicate resign=0.3:3,perfect=12",
                    extra="--quiet --out {tmp}/adjudicated",
                    keep=r"^(Games not ended by the rules:|  adjudicated: |  \d+ x )",
                    echo=True,
                ),
            ),
        ),
        Block("list-mancala", "quick", steps=(Step("arena list mancala"),)),
        Block("list-morabaraba", "quick", steps=(Step("arena list morabaraba"),)),
        Block("list-konane", "quick", steps=(Step("arena list konane"),)),
        Block("list-dominoes", "quick", steps=(Step("arena list dominoes"),)),
        Block("kalah-published", "quick", section=True, make=published_kalah_table, patterns=(TABLE_ROW,)),
        Block("list-agents", "quick", steps=(Step("arena list", pick=_agents_part),)),
        Block("check-game-nim", "quick", files=True, steps=(Step("arena check-game nim --plugin nim"),)),
        Block("ugi-session", "quick", steps=(Step("python experiments/ugi_session.py"),), volatile=(r"time (\d+) nps (\d+)",)),
        Block(
            "td-kalah-standings",
            "slow",
            steps=(
                Step(
                    "arena run --game kalah --agents td-kalah,random,greedy,mcts:iterations=100 --anchor random",
                    extra="--quiet --out {tmp}/td",
                    keep=r"^(Rank  |\s+\d+  |\S+ vs )",
                ),
            ),
            patterns=(r"Rank\s+Agent\s+Elo\s+95% interval\s+Games\s+Score\s+Draws",
                      rf"\s+\d+\s+\S+\s+{NUMBER}\s+\[{NUMBER}, {NUMBER}\]\s+\d+\s+{NUMBER}%\s+{NUMBER}%", PAIRING),
        ),
        Block(
            "engine-run",
            "slow",
            files=True,
            steps=(
                Step(
                    "arena run --game kalah --agents greedy,my-engine --engines engines.toml --games 2",
                    extra="--quiet --out {tmp}/engine",
                    keep=r"^(Rank  |\s+\d+  |\S+ vs )",
                ),
            ),
            patterns=(r"Rank\s+Agent\s+Elo\s+95% interval\s+Games\s+Score\s+Draws",
                      rf"\s+\d+\s+\S+\s+{NUMBER}\s+\[{NUMBER}, {NUMBER}\]\s+\d+\s+{NUMBER}%\s+{NUMBER}%", PAIRING),
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
        # -- the benchmarks page (docs/benchmarks.md) ----------------------------------------------
        Block(
            "bench-speed",
            "long",
            section=True,
            steps=(Step("python experiments/bench.py --sections playouts,mcts,alphabeta,sampler,budget --repeats 3"),),
            patterns=(r".*",),
        ),
        Block(
            "bench-startup",
            "long",
            section=True,
            steps=(Step("python experiments/bench.py --sections warm,startup --repeats 3"),),
            patterns=(r".*",),
        ),
        Block(
            "bench-ugi",
            "long",
            section=True,
            steps=(Step("python experiments/bench.py --sections ugi --repeats 3"),),
            patterns=(r".*",),
        ),
        Block(
            "mcts-memory",
            "long",
            section=True,
            steps=(Step("python experiments/mcts_memory.py --simulations 1000000"),
                   Step("python experiments/mcts_memory.py --simulations 1000000 --agent mcts:minimax=0"),
                   Step("python experiments/mcts_memory.py --game nine-mens-morris --simulations 100000")),
            patterns=(r".*",),
        ),
        Block(
            "mcts-threads",
            "long",
            section=True,
            steps=(Step("python experiments/mcts_threads.py --threads 1,2 --simulations 400000"),
                   Step("python experiments/mcts_threads.py --game nine-mens-morris --threads 1,2 --simulations 200000")),
            patterns=(r".*",),
        ),
        Block(
            "arena-scaling",
            "long",
            section=True,
            steps=(Step("python experiments/arena_scaling.py --games 600 --concurrency 1 2 --repeats 5"),),
            patterns=(r".*",),
        ),
        Block(
            "ray-scaling",
            "long",
            ray=True,
            section=True,
            steps=(
                Step("python experiments/arena_scaling.py --ray --move-log on --concurrency 2 --games 6000 --repeats 3"),
                Step("python experiments/arena_scaling.py --ray --move-log on --concurrency 2 --agents greedy,mcts:iterations=2000 --games 3000 --repeats 3"),
            ),
            patterns=(r".*",),
        ),
        Block(
            "envs-speed",
            "long",
            section=True,
            steps=(Step("python experiments/bench_envs.py"),),
            patterns=(r".*",),
        ),
        Block(
            "learn-kalah",
            "long",
            section=True,
            steps=(Step("python experiments/learn_kalah.py"),),
            patterns=(r".*",),
        ),
        Block(
            "rating-coverage",
            "long",
            section=True,
            steps=(Step("python experiments/rating_coverage.py --reps 200"),),
            patterns=(r".*",),
        ),
        Block(
            "strength-budget",
            "long",
            section=True,
            steps=(Step("python experiments/strength_vs_budget.py", keep=r"^(Rank  |\s+\d+  )"),),
            patterns=(r"Rank\s+Agent\s+Elo\s+95% interval\s+Games\s+Score\s+Draws",
                      rf"\s+\d+\s+\S+\s+{NUMBER}\s+\[{NUMBER}, {NUMBER}\]\s+\d+\s+{NUMBER}%\s+{NUMBER}%"),
        ),
        Block(
            "mcts-parameters",
            "long",
            section=True,
            steps=(_gauntlet("kalah", 3000, ("solver=true", "solver=false,minimax=0.2", "minimax=0.2", "minimax=0.4",
                                             "minimax=0.6", "minimax=0.8", "eval=mix,minimax=0.4", "solver=false,eval=mix",
                                             "solver=false,eval=heuristic")),
                   _gauntlet("nine-mens-morris", 1000, ("solver=true", "minimax=0.2", "minimax=0.4", "minimax=0.6", "minimax=0.8")),
                   _gauntlet("konane", 1000, ("solver=true", "minimax=0.4", "minimax=0.6"))),
            patterns=(PAIRING, TABLE_ROW, rf"{CARRIED}.*"),
        ),
        Block(
            "mcts-vs-openspiel",
            "long",
            section=True,
            steps=(Step("python experiments/gauntlet.py --game kalah --agents mcts,mcts:solver=false,minimax=0 --games 100",
                        output_file="gauntlet-runs/kalah.md", markdown=True),
                   Step("python experiments/gauntlet.py --game nine-mens-morris --agents mcts,mcts:solver=false --games 100",
                        output_file="gauntlet-runs/nine-mens-morris.md", markdown=True)),
            patterns=(TABLE_ROW, r".+ against openspiel-mcts, .+:"),
        ),
        Block(
            "gauntlet-random-openings",
            "long",
            section=True,
            steps=(Step("python experiments/gauntlet.py --game kalah --games 200", output_file="gauntlet-runs/kalah.md", markdown=True),
                   Step("python experiments/gauntlet.py --game nine-mens-morris --games 100,100,40",
                        output_file="gauntlet-runs/nine-mens-morris.md", markdown=True)),
            patterns=(TABLE_ROW, r".+ against openspiel-mcts, .+:"),
        ),
        Block(
            "gauntlet-opening-values",
            "long",
            section=True,
            steps=(Step("python experiments/gauntlet.py --game kalah --games 100 --opening-values --solve-seconds 10",
                        output_file="gauntlet-runs/kalah.md", markdown=True),),
            patterns=(TABLE_ROW, r".+ against openspiel-mcts, .+:", r"Score by the opening's exact value.*"),
        ),
        Block(
            "gauntlet-balanced-openings",
            "long",
            section=True,
            steps=(Step("python experiments/gauntlet.py --game kalah --games 200 --openings experiments/data/kalah_balanced_openings.txt "
                        "--opening-values --values experiments/data/kalah_balanced_openings.txt.values.json",
                        output_file="gauntlet-runs/kalah-kalah-balanced-openings.md", markdown=True),),
            patterns=(TABLE_ROW, r".+ against openspiel-mcts, .+:", r"Score by the opening's exact value.*"),
        ),
        Block(
            "hidden-information",
            "long",
            section=True,
            steps=(Step("arena run --game dominoes --agents ismcts,pimc,greedy,random --games 200 --concurrency 2",
                        extra="--quiet", keep=r"^(Rank  |\s+\d+  |\S+ vs )"),
                   Step("arena run --game dominoes --agents ismcts,pimc,cheat --games 200 --concurrency 2",
                        extra="--quiet", keep=r"^(Rank  |\s+\d+  |\S+ vs )")),
            patterns=(r"Rank\s+Agent\s+Elo\s+95% interval\s+Games\s+Score\s+Draws",
                      rf"\s+\d+\s+\S+\s+{NUMBER}\s+\[{NUMBER}, {NUMBER}\]\s+\d+\s+{NUMBER}%\s+{NUMBER}%", PAIRING),
        ),
        Block(
            "solver-runs",
            "long",
            section=True,
            steps=tuple(
                Step(f"python experiments/solve.py --game {game}" + (f" --endgame {k}" if k else ""))
                for game, k in (("kalah:pits=6,seeds=3,empty_capture=true", 22), ("kalah:pits=6,seeds=3,empty_capture=true", 0),
                                ("kalah:pits=6,seeds=4,empty_capture=true", 22), ("kalah:pits=6,seeds=4,empty_capture=true", 0),
                                ("konane-classic:size=5", 0), ("konane-classic:size=6", 0))
            ),
            patterns=(r".*",),
        ),
        Block(
            "solver-kalah-6-5",
            "long",
            section=True,
            steps=(Step("python experiments/solve.py --game kalah:pits=6,seeds=5,empty_capture=true --endgame 20 --threads 2 "
                        "--limit 2400 --table-mb 4096 --counters"),),
            patterns=(r".*",),
        ),
        Block(
            "kalah-table",
            "long",
            section=True,
            steps=(Step("python experiments/solve.py --kalah-table --db-pits 5,6 --db-entries 2.3e8 --limit 2400 --threads 2 "
                        "--table-mb 4096 --quiet --out kalah_table.md", output_file="kalah_table.md", markdown=True,
                        pick=_without_title),),
            patterns=(TABLE_ROW, r"(Computed by |The first player's |Published: ).*"),
        ),
        Block(
            "balanced-openings",
            "long",
            section=True,
            steps=(Step("python experiments/balanced_openings.py --game kalah --plies 8 --bound 2 --count 100 "
                        "--out kalah_balanced_openings.txt --workers 2 --solve-seconds 30"),),
            patterns=(r".*",),
        ),
        Block(
            "accuracy",
            "long",
            section=True,
            steps=(Step("python experiments/accuracy.py", output_file="accuracy-run/accuracy.md",
                        markdown=True),),
            patterns=(TABLE_ROW, r".*"),
        ),
        Block(
            "accuracy-morris",
            "long",
            section=True,
            steps=(Step("python experiments/accuracy.py --games nine-mens-morris,morabaraba --database 10 "
                        "--agents random,greedy,alphabeta,mcts,solver --positions 60 --out accuracy-morris",
                        output_file="accuracy-morris/accuracy.md", markdown=True),),
            patterns=(TABLE_ROW, r".*"),
        ),
        Block(
            "morris-databases",
            "long",
            section=True,
            steps=(Step("python experiments/morris_databases.py --game nine-mens-morris --stones 13"),
                   Step("python experiments/morris_databases.py --game morabaraba --stones 12 --match 200")),
            patterns=(r".*",),
        ),
        Block(
            "game-lengths",
            "long",
            section=True,
            steps=(Step("python experiments/game_lengths.py"),),
            patterns=(r".*",),
        ),
    )
}


# -- the pages --------------------------------------------------------------------------------------


@dataclass
class Found:
    """A block of a page: a fenced block, or a section between two markers. ``name`` is its
    output block's (None for an example); ``start`` and ``end`` are the 0-based indices of its
    first and last line of content (a fence's own lines excluded); ``text`` has the fence's
    indentation removed."""

    name: str | None
    info: str
    start: int
    end: int
    text: str
    shown: bool = False
    indent: str = ""
    section: bool = False
    page: Path = README
    #: The file a reader saves the block as (a module that later examples import).
    file: str | None = None
    lines: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{page_name(self.page)} line {self.start}"


def blocks(text: str, page: Path = README) -> list[Found]:
    """Every fenced block and marked section of a page, in order (fences inside a section are
    the section's)."""
    lines = text.splitlines()
    found = []
    i = 0
    while i < len(lines):
        marker = MARKER.match(lines[i])
        if marker and not (i + 1 < len(lines) and FENCE.match(lines[i + 1])):
            close = next((j for j in range(i + 1, len(lines)) if END.match(lines[j])), None)
            if close is None:
                raise ValueError(f"{page_name(page)} line {i + 1}: section {marker.group('name')} has no <!-- docs-output-end -->")
            body = lines[i + 1 : close]
            while body and not body[0].strip():
                body = body[1:]
            found.append(Found(marker.group("name"), "", i + 1, close, "\n".join(body).strip("\n"), section=True,
                               page=page, lines=lines[i + 1 : close]))
            i = close + 1
            continue
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        indent = fence.group("indent")
        close = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        before = lines[i - 1] if i > 0 else ""
        marker = MARKER.match(before)
        body = [line[len(indent) :] if line.startswith(indent) else line for line in lines[i + 1 : close]]
        file = FILE.match(before)
        found.append(Found(marker.group("name") if marker else None, fence.group("info"), i + 1, close, "\n".join(body),
                           bool(SHOWN.match(before)), indent, page=page, lines=lines[i + 1 : close],
                           file=file.group("path") if file else None))
        i = close + 1
    return found


def every_block() -> list[Found]:
    """The blocks of every page, page by page."""
    return [block for page in pages() for block in blocks(page.read_text(), page)]


def save_docs_files(folder: Path, page: Path | None = None) -> set[str]:
    """Saves the blocks that the pages (or ``page`` alone) have the reader save as files, under
    ``folder``; returns the plugins among them that register a game (a file, or a package's
    folder)."""
    games = set()
    for block in every_block() if page is None else blocks(page.read_text(), page):
        if block.file is None:
            continue
        path = folder / block.file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(block.text + "\n")
        if "@register_game" in block.text:
            games.add(block.file.split("/")[0])
    return games


def own_cache(folder: Path) -> dict[str, str]:
    """The environment of a process that loads a game saved from the docs: numba's cache in a
    folder of its own. The cache folder keys a game from outside the package by its file's path
    and forgets every kernel when that changes (board_arena/kernels/cache.py), which a game saved
    into a new temporary folder at each run would make it do."""
    return {"NUMBA_CACHE_DIR": str(folder / "numba-cache")}


def replace_block(text: str, name: str, new: str, page: Path = README) -> str:
    """A page's text with output block ``name`` replaced by ``new``."""
    lines = text.splitlines()
    block = next(b for b in blocks(text, page) if b.name == name)
    if block.section:
        body = ["", *new.splitlines(), ""]
    else:
        body = [block.indent + line if line else line for line in new.splitlines()]
    return "\n".join(lines[: block.start] + body + lines[block.end :]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--long", action="store_true", help="also the long blocks (benchmarks, strength runs, Ray)")
    parser.add_argument("--check", action="store_true", help="compare only (volatile figures masked); exit 1 on a difference")
    parser.add_argument("--only", action="append", choices=sorted(BLOCKS), help="this block only (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the blocks, their tiers, pages and commands")
    args = parser.parse_args(argv)
    try:
        found = every_block()
    except ValueError as error:
        parser.error(str(error))
    where = {b.name: b.page for b in found if b.name}
    unknown = set(where) - set(BLOCKS)
    if unknown and not args.only:
        parser.error(f"the docs mark blocks this script does not know: {', '.join(sorted(unknown))}")
    if args.list:
        for name, block in BLOCKS.items():
            page = page_name(where[name]) if name in where else "(on no page)"
            commands = "; ".join(step.command for step in block.steps) or "a table made by this script"
            print(f"{name} ({block.tier}, {page}): {commands}")
        return 0
    names = args.only or [name for name, b in BLOCKS.items() if b.tier != "long" or args.long]
    differ = []
    for name in names:
        block = BLOCKS[name]
        if name not in where:
            print(f"{name}: no such marker in the docs; skipped", file=sys.stderr)
            continue
        page = where[name]
        print(f"{name} ({block.tier}, {page_name(page)}): running {len(block.setup) + len(block.steps)} command(s)...",
              file=sys.stderr, flush=True)
        new = block.generate()
        text = page.read_text()
        old = next(b.text for b in blocks(text, page) if b.name == name)
        if block.masked(old) != block.masked(new):
            differ.append(name)
        if not args.check and old != new:
            # Written as each block is made, so that a long refresh stopped midway keeps what it made.
            page.write_text(replace_block(text, name, new, page))
    if not args.check:
        print(f"{len(names)} block(s) regenerated, {len(differ)} changed beyond their volatile figures"
              + (f" ({', '.join(differ)})" if differ else ""))
        return 0
    for name in differ:
        print(f"{name}: the block in {page_name(where[name])} differs from what its commands print now")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
