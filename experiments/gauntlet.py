"""Gauntlets against OpenSpiel's C++ MCTS: our agents' scores at several times per move.

    python experiments/gauntlet.py                       # the tables of docs/benchmarks.md (long: hours)
    python experiments/gauntlet.py --game kalah --times 0.1 --games 20 --out gauntlet-runs
    python experiments/gauntlet.py --agents mcts,mcts:solver=false --out mcts-gauntlet

For each game and each time per move, one arena run (``arena run --gauntlet``): the opponent
(``openspiel-mcts``, the plugin ``experiments/plugins/openspiel_mcts.py``) plays each of our
agents ``--games`` games in seat-swapped pairs, each pair from its own random opening
(``--openings random:4``: four uniformly random plies, the same for both games of a pair), every
searching agent given the same wall-clock time per move (``--move-time``). The runs are stored in
``--out`` (one folder per game and time, ``kalah-100ms``; openings other than random:4 add their
name, ``kalah-100ms-kalah-balanced-openings``): running the same command again resumes
them, and with more ``--games`` grows them.

Printed per game, and written as Markdown (``--out``/GAME.md, the tables of docs/benchmarks.md): each of our
agents at each time, its score against the opponent with the 95% interval of the arena's reports
(Wilson, on the effective number of games), wins-draws-losses, games, the mean wall time each
side used per move, the share of a core the run's process had while the games were played
(processor time over wall time, measured at ``--concurrency 1``, where both agents search in
this process: on a shared machine a time per move buys less search than on a quiet one), and the
mean one-minute load average over the games. Each side's processor time per move is its wall
time times that share.

``--opening-values`` (games with an endgame database: Kalah) also solves each pair's opening
exactly (board_arena/agents/solver.py with the largest endgame database in the cache folder, at
most ``--solve-seconds`` of processor time each; the proven bounds of the margin cached in
``--values``, by default ``--out``/opening-values.json, the format that
``experiments/balanced_openings.py`` writes too) and splits each score by what the opening is
worth, under perfect play, to the seat our agent held: won, drawn, lost (or undecided within
the time). A seat-swapped pair
from a decisive opening gives each agent the winning side once and the losing side once, so a
score above 50% needs wins from lost positions: the opponent's mistakes. The split says how much
of a score comes from converting won positions and how much from swindling lost ones.

``--openings experiments/data/kalah_balanced_openings.txt`` plays from solved openings worth at
most 2 seeds to either side (``experiments/balanced_openings.py``), as chess testers play from
books of balanced positions: the score then measures the agents rather than the dice of the
openings.

The default agents are our best per game (``BEST``). Bad arguments are one line and status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_arena import agents, arena, engines  # noqa: E402
from board_arena.agents.plugins import load_plugins  # noqa: E402
from board_arena.arena.tournament.report import score_interval  # noqa: E402
from board_arena.arena.tournament.settings import parse_game_spec, split_agent_list  # noqa: E402
from board_arena.commandline import OneLineParser, script_status  # noqa: E402

PLUGIN = str(Path(__file__).resolve().parent / "plugins" / "openspiel_mcts.py")
OPPONENT = "openspiel-mcts"
DEFAULT_GAMES = "kalah,nine-mens-morris"
DEFAULT_TIMES = "0.02,0.1,0.3"
DEFAULT_OPENINGS = "random:4"
#: Our best agent per game (docs/benchmarks.md has the gauntlets that chose each). Kalah's
#: reads the 16-seed endgame database, built into the cache folder at its first use (about 30 MB;
#: python -m board_arena.engines.mancala.endgame --seeds 16 --no-empty-capture builds it first).
BEST = {"kalah": "alphabeta:endgame=16", "nine-mens-morris": "alphabeta"}
#: Written in each run folder: what the arena does not store (processor time, load).
METER_FILE = "gauntlet.json"


@dataclass
class Row:
    """One of our agents at one time per move against the opponent."""

    game: str
    agent: str
    move_time: float | None
    score: float
    low: float
    high: float
    wins: int
    draws: int
    losses: int
    games: int
    ours_ms: float
    theirs_ms: float
    cpu_share: float | None
    load: float | None
    #: With --opening-values: (points, games) from openings won, drawn and lost for our seat.
    by_value: dict[str, tuple[float, int]] | None = None


class Meter:
    """Processor time, wall time and load average while a run's games are played, added to what
    earlier invocations on the same folder measured (a resumed run keeps its figures).

    Counted from the first game that ends to the last (the warm-up and compilation before the
    first game are not play); the share is meaningful at concurrency 1, where the games are
    played in this process one after the other."""

    def __init__(self, folder: Path):
        self.path = folder / METER_FILE
        saved = json.loads(self.path.read_text()) if self.path.is_file() else {}
        self.cpu = float(saved.get("cpu_seconds", 0.0))
        self.wall = float(saved.get("wall_seconds", 0.0))
        self.loads: list[float] = list(saved.get("loads", []))
        self._last: tuple[float, float] | None = None

    def on_result(self, _result) -> None:
        now = (time.process_time(), time.perf_counter())
        if self._last is not None:
            self.cpu += now[0] - self._last[0]
            self.wall += now[1] - self._last[1]
        self._last = now
        self.loads.append(round(os.getloadavg()[0], 2))

    def save(self) -> None:
        self.path.write_text(json.dumps({"cpu_seconds": self.cpu, "wall_seconds": self.wall, "loads": self.loads}))

    @property
    def share(self) -> float | None:
        return self.cpu / self.wall if self.wall > 0 else None

    @property
    def load(self) -> float | None:
        return sum(self.loads) / len(self.loads) if self.loads else None


def folder_name(game_spec: str, move_time: float | None, openings: str = DEFAULT_OPENINGS) -> str:
    """``kalah-100ms``, ``kalah-pits-5-budgets``: one run folder per game variant and time;
    openings other than the default add their name (``kalah-100ms-random-2``,
    ``kalah-100ms-kalah-balanced-openings``), so that runs of both kinds share ``--out``."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", game_spec).strip("-")
    name = f"{name}-{round(1000 * move_time)}ms" if move_time else f"{name}-budgets"
    if openings != DEFAULT_OPENINGS:
        name += "-" + re.sub(r"[^A-Za-z0-9]+", "-", Path(openings).stem if Path(openings).suffix else openings).strip("-")
    return name


def play(args, game_spec: str, specs: list[str], move_time: float | None, games: int) -> list[Row]:
    """Plays (or resumes) one gauntlet; returns a row per agent of ours."""
    settings = arena.TournamentSettings.create(
        game_spec, [args.opponent, *specs], games=games, seed=args.seed, move_time=move_time,
        openings=args.openings, gauntlet=True, plugins=tuple(args.plugin),
    )
    game = settings.make_game()
    folder = Path(args.out) / folder_name(game_spec, move_time, args.openings)
    folder.mkdir(parents=True, exist_ok=True)
    meter = Meter(folder)
    try:
        # At concurrency 1 the games are played in this process, so that the meter reads the
        # processor time the searches had (the arena would play them on a worker process).
        run = arena.run_tournament(settings, str(folder), concurrency=args.concurrency, progress=not args.quiet,
                                   on_result=meter.on_result, in_process=args.concurrency == 1)
    finally:
        meter.save()
    share = meter.share if args.concurrency == 1 else None
    margins = None
    if args.opening_values and game.endgame is not None:
        margins = opening_margins(run, args.values, args.table_mb, args.solve_seconds)
    rows = []
    for label in settings.labels[1:]:
        played = [g for g in run.games if label in (g.player0, g.player1)]
        if not played:
            continue
        seats = [0 if g.player0 == label else 1 for g in played]
        scores = [g.score_for(seat) for g, seat in zip(played, seats)]
        mean, low, high = score_interval(scores)
        ours = [(g.time0, g.moves0) if seat == 0 else (g.time1, g.moves1) for g, seat in zip(played, seats)]
        theirs = [(g.time1, g.moves1) if seat == 0 else (g.time0, g.moves0) for g, seat in zip(played, seats)]
        rows.append(Row(
            game=game_spec, agent=label, move_time=move_time, score=mean, low=low, high=high,
            wins=scores.count(1.0), draws=scores.count(0.5), losses=scores.count(0.0), games=len(played),
            ours_ms=_ms_per_move(ours), theirs_ms=_ms_per_move(theirs), cpu_share=share, load=meter.load,
            by_value=None if margins is None else _split_by_value(played, seats, scores, margins),
        ))
    return rows


def _ms_per_move(times: list[tuple[float, int]]) -> float:
    return 1000 * sum(t for t, _ in times) / max(1, sum(n for _, n in times))


def opening_margins(run: arena.Run, path: Path, table_mb: float, cpu_seconds: float) -> dict[int, list[int]]:
    """Bounds ``[lower, upper]`` of the final margin (player 0's, under perfect play) of each
    game's opening position, by game id, equal when solved within ``cpu_seconds``; each position
    solved once and kept in the JSON file ``path`` (the runs of one game at several times share
    their openings)."""
    from board_arena.agents.solver import new_solver_table, solve
    from board_arena.arena.tournament.openings import opening_length

    settings = run.settings
    game = settings.make_game()
    known: dict[str, list[int]] = json.loads(path.read_text()) if path.is_file() else {}
    table = db = None
    margins = {}
    for g in run.games:
        state = game.new_initial_state(g.game_seed)
        for move in g.moves[: opening_length(settings, g)]:
            state.apply(move)
        key = f"{game!r} {' '.join(g.moves[: opening_length(settings, g)])}"
        if key not in known:
            if table is None:
                table = new_solver_table(table_mb)
                db = game.endgame.database(state, game.endgame.default_size(state), build_missing=True)
            solution = solve(state, table=table, endgame=db, cpu_time=cpu_seconds)
            known[key] = [solution.lower, solution.upper]
            path.write_text(json.dumps(known, indent=0))
        margins[g.id] = known[key]
    return margins


def _split_by_value(played, seats, scores, margins) -> dict[str, tuple[float, int]]:
    """(points, games) of our agent from the openings won, drawn and lost for its seat, and from
    those whose result the solver left undecided."""
    split = {"won": (0.0, 0), "drawn": (0.0, 0), "lost": (0.0, 0), "undecided": (0.0, 0)}
    for g, seat, score in zip(played, seats, scores):
        lower, upper = margins[g.id] if seat == 0 else (-margins[g.id][1], -margins[g.id][0])
        kind = "won" if lower > 0 else "lost" if upper < 0 else "drawn" if lower == upper == 0 else "undecided"
        points, games = split[kind]
        split[kind] = (points + score, games + 1)
    return split


def markdown(rows: list[Row], opponent: str, openings: str) -> str:
    """One table per game, our agents by time per move."""
    out = []
    for game in dict.fromkeys(r.game for r in rows):
        out += [
            f"{game} against {opponent}, openings {openings}, seat-swapped pairs:",
            "",
            "| agent | time per move | score | 95% interval | W-D-L | games | ms per move, ours / opponent's (wall) "
            "| CPU / wall | load |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in (r for r in rows if r.game == game):
            budget = f"{1000 * r.move_time:g} ms" if r.move_time else "own budget"
            share = "-" if r.cpu_share is None else f"{100 * r.cpu_share:.0f}%"
            load = "-" if r.load is None else f"{r.load:.2f}"
            out.append(
                f"| {r.agent} | {budget} | {100 * r.score:.1f}% | [{100 * r.low:.1f}%, {100 * r.high:.1f}%] "
                f"| {r.wins}-{r.draws}-{r.losses} | {r.games} | {r.ours_ms:.1f} / {r.theirs_ms:.1f} | {share} | {load} |"
            )
        out.append("")
        split = [r for r in rows if r.game == game and r.by_value]
        if split:
            out += [
                "Score by the opening's exact value for our seat (points / games):",
                "",
                "| agent | time per move | from won openings | from drawn | from lost | undecided |",
                "|---|---:|---:|---:|---:|---:|",
            ]
            for r in split:
                budget = f"{1000 * r.move_time:g} ms" if r.move_time else "own budget"
                cells = [f"{100 * p / n:.0f}% ({p:g} / {n})" if n else "-" for p, n in r.by_value.values()]
                out.append(f"| {r.agent} | {budget} | " + " | ".join(cells) + " |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def parse_args(argv):
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default=DEFAULT_GAMES, help=f"games, with parameters if any (default {DEFAULT_GAMES})")
    parser.add_argument("--agents", help="our agents' specs, for every game (default: our best per game, "
                        + ", ".join(f"{g} {s}" for g, s in BEST.items()) + ")")
    parser.add_argument("--opponent", default=OPPONENT, help=f"the opponent's spec (default {OPPONENT})")
    parser.add_argument("--times", default=DEFAULT_TIMES,
                        help=f"seconds per move, comma-separated; 'none': the agents' own budgets (default {DEFAULT_TIMES})")
    parser.add_argument("--games", default="100",
                        help="games per agent and time, even; one number, or one per time (default 100)")
    parser.add_argument("--openings", default=DEFAULT_OPENINGS,
                        help=f"random:N or a file of openings (default {DEFAULT_OPENINGS}; others name the run folders)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=1,
                        help="games played at once (default 1: one core, and the processor share measured)")
    parser.add_argument("--plugin", action="append", default=None,
                        help="a plugin that registers agents, repeatable (default experiments/plugins/openspiel_mcts.py)")
    parser.add_argument("--out", default="gauntlet-runs", help="folder of the runs and of a Markdown table per game, GAME.md (default gauntlet-runs)")
    parser.add_argument("--opening-values", action="store_true",
                        help="solve each opening exactly (games with an endgame database) and split the scores by its value")
    parser.add_argument("--values", help="with --opening-values: the JSON file of solved openings, read and extended "
                        "(default OUT/opening-values.json; experiments/balanced_openings.py writes the same format)")
    parser.add_argument("--table-mb", type=float, default=1024.0,
                        help="with --opening-values: the solver's table, MiB (default 1024)")
    parser.add_argument("--solve-seconds", type=float, default=30.0,
                        help="with --opening-values: processor seconds per opening at most (default 30); "
                        "an opening not solved by then is counted by its proven bounds, or as undecided")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    args.plugin = [str(Path(p).resolve()) if p.endswith(".py") else p for p in (args.plugin or [PLUGIN])]
    try:
        args.times = [None if t.strip().lower() == "none" else float(t) for t in args.times.split(",")]
    except ValueError:
        parser.error(f"--times takes seconds separated by commas (or none), not {args.times!r}")
    try:
        counts = [int(n) for n in args.games.split(",")]
    except ValueError:
        parser.error(f"--games takes a number of games (or one per time), not {args.games!r}")
    if len(counts) not in (1, len(args.times)):
        parser.error(f"--games gives {len(counts)} numbers for {len(args.times)} times: give one, or one per time")
    args.games = counts * len(args.times) if len(counts) == 1 else counts
    if not 0 < args.table_mb <= 16384:
        parser.error(f"--table-mb must be more than 0 and at most 16384, not {args.table_mb:g}")
    if not args.solve_seconds > 0:
        parser.error(f"--solve-seconds must be more than 0, not {args.solve_seconds:g}")
    if args.concurrency < 1:
        parser.error(f"--concurrency must be at least 1, not {args.concurrency}")
    out = Path(args.out)
    args.values = Path(args.values) if args.values else out / "opening-values.json"
    if out.exists() and not out.is_dir():
        parser.error(f"--out {out} is a file, not a folder")
    try:
        load_plugins(args.plugin)
        args.game = split_agent_list(args.game)
        for spec in args.game:
            name, params = parse_game_spec(spec)
            engines.make(name, **params)
        if args.agents is not None:
            args.agents = split_agent_list(args.agents)
        for spec in [args.opponent, *(args.agents or [])]:
            agents.make_agent(spec)
    except (ValueError, KeyError, ImportError) as error:
        parser.error(str(error).strip("'\""))
    return args


def main(argv=None) -> int:
    return script_status("gauntlet.py", parse_args, run, argv, "interrupted (run the same command to resume)")


def run(args) -> int:
    rows: list[Row] = []
    for game_spec in args.game:
        name = parse_game_spec(game_spec)[0]
        specs = args.agents or [BEST.get(name, "alphabeta")]
        for move_time, games in zip(args.times, args.games):
            rows += play(args, game_spec, specs, move_time, games)
        table = markdown([r for r in rows if r.game == game_spec], args.opponent, args.openings)
        print(table, flush=True)
        (Path(args.out) / f"{folder_name(game_spec, None, args.openings).replace('-budgets', '')}.md").write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
