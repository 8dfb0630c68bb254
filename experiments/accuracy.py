"""How often does an agent keep the game-theoretic value? Move accuracy against exact values.

    python experiments/accuracy.py
    python experiments/accuracy.py --positions 60 --budgets 0.01,0.1,1 --out accuracy-run
    python experiments/accuracy.py --games konane:size=5 --agents random,alphabeta,solver --budgets 0.1
    python experiments/accuracy.py --games nine-mens-morris,morabaraba --database 10 --agents random,greedy,alphabeta,mcts,solver

Positions are taken from real games (``--positions`` per game variant, one per game): each game
opens with 0..6 random moves, then two agents drawn from a varied pool (greedy, alpha-beta of
depth 2 and 4, MCTS of 300 iterations, random) play it out, and one of its positions is picked
at random. Every move of every picked position is solved exactly (board_arena/agents/solver.py,
with the Kalah endgame database the solver agent uses); the values are cached in the cache folder
(``$BOARD_ARENA_CACHE/accuracy``), so a second run costs only the agents' time, and the solves'
expensive proofs go into the variant's book of solved positions (``--no-book``: not), which the
perfect-play agent reads: a position solved once stays solved. With ``--database SIZE`` the
positions are only those the game's endgame database of that size holds (the morris games:
positions after placing with at most SIZE cows on the board), whose values it gives.

Each agent is then asked for a move in each position at each budget (seconds per move, wall
clock; an agent is reused across positions and reset between them, as in the arena; an agent
without a time budget, such as random, greedy, minimax or td-kalah, is judged once), and the
move is judged by its exact value: it *keeps the value* when the game-theoretic result after it
(win, draw or loss under perfect play) is the position's, it *keeps the margin* when its final
margin under perfect play is the position's, and the *margin lost* is how much worse that margin
is for the mover. Printed: per game, agent and budget, the share of moves that keep the value
(95% Wilson interval), the share that keep the margin, and the mean margin lost per move (95%
normal interval), as a Markdown table; the
table (``accuracy.md``), the raw judgements (``accuracy.json``) and a plot (``accuracy.png``)
go into ``--out``. The perfect-play agent (``solver``) must keep the value at every move.

Every random choice flows from ``--seed``. Bad arguments are one line and status 2.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_arena import agents, engines  # noqa: E402
from board_arena.agents.base import Limit  # noqa: E402
from board_arena.agents.solver import Book, new_solver_table, solve  # noqa: E402
from board_arena.commandline import OneLineParser, script_status  # noqa: E402
from board_arena.engines import datafile  # noqa: E402

DEFAULT_GAMES = "kalah,konane:size=5"
DEFAULT_AGENTS = "random,greedy,minimax,alphabeta,mcts,td-kalah,solver"
#: The agents that play the games the positions are taken from.
POOL = ("random", "greedy", "alphabeta:depth=2", "alphabeta:depth=4", "mcts:iterations=300")


def parse_games(text: str) -> list[engines.Game]:
    """``kalah,konane:size=5`` -> games (a comma before ``name`` or ``name:`` starts the next game)."""
    specs: list[str] = []
    for part in text.split(","):
        if specs and "=" in part and ":" not in part:
            specs[-1] += "," + part
        else:
            specs.append(part)
    games = []
    for spec in specs:
        name, _, params = spec.partition(":")
        kwargs = {}
        for item in filter(None, params.split(",")):
            key, eq, value = item.partition("=")
            if not eq:
                raise ValueError(f"--games: {item!r} in {spec!r} is not key=value")
            kwargs[key] = json.loads(value) if value in ("true", "false") or value.lstrip("-").isdigit() else value
        game = engines.make(name.strip(), **kwargs)
        if not game.perfect_information:
            raise ValueError(f"--games: {game.name} hides information: its moves have no exact value to judge")
        games.append(game)
    return games


# ----------------------------------------------------------------------------------------------
# Positions and their exact values.


def sample_positions(game: engines.Game, count: int, seed: int, database: tuple[np.ndarray, int] | None = None) -> list[engines.State]:
    """``count`` non-terminal positions, one from each of ``count`` games between varied agents;
    with ``database``, only positions that the game's endgame database holds (a game that reaches
    none gives none)."""
    rng = np.random.default_rng(seed)
    pool = [agents.make_agent(spec, seed=seed + i) for i, spec in enumerate(POOL)]
    positions = []
    while len(positions) < count:
        state = game.new_initial_state(int(rng.integers(2**31)))
        for _ in range(int(rng.integers(0, 7))):
            if state.is_terminal():
                break
            state.apply(int(rng.choice(state.legal_moves())))
        players = [pool[int(i)] for i in rng.integers(len(pool), size=2)]
        seen = []
        while not state.is_terminal():
            if database is None or game.endgame.perfect_play(state, database) is not None:  # type: ignore[union-attr]
                seen.append(state.copy())
            state.apply(players[state.current_player].select_move(state))
        if seen:
            positions.append(seen[int(rng.integers(len(seen)))])
    return positions


class ExactValues:
    """Final margins (player 0's) under perfect play, solved once and cached on disk per variant."""

    def __init__(self, game: engines.Game, table_mb: float, book: bool = True, database: tuple[np.ndarray, int] | None = None):
        self.game = game
        # The variant's book of solved positions (cache folder): the expensive proofs of these
        # solves go into it, where the solver agent (and any later solve) finds them.
        self.book = Book(game) if book else None
        digest = hashlib.sha1(repr(game).encode()).hexdigest()[:12]
        self.path = datafile.cache_root() / "accuracy" / f"{game.name}-{digest}.json"
        self.values: dict[str, int] = {}
        if self.path.is_file():
            try:
                stored = json.loads(self.path.read_text())
                if stored.get("game") == repr(game):
                    self.values = {k: int(v) for k, v in stored["values"].items()}
            except (OSError, ValueError, KeyError, TypeError):
                self.values = {}  # a damaged cache is solved again
        self.table_mb = table_mb
        self._table: np.ndarray | None = None
        self._db = database
        self.solved = 0
        self.cpu_seconds = 0.0

    @staticmethod
    def key(state: engines.State) -> str:
        return hashlib.sha1(np.ascontiguousarray(state.data).tobytes()).hexdigest()

    def margin(self, state: engines.State) -> int:
        """Player 0's final margin of ``state`` under perfect play."""
        if state.is_terminal():
            return int(state.score())
        key = self.key(state)
        if key not in self.values:
            if self._table is None:
                self._table = new_solver_table(self.table_mb)
                size = self.game.endgame.default_size(state) if self.game.endgame else 0  # the solver agent's: built once for both
                if size and self._db is None:
                    self._db = self.game.endgame.database(state, size, build_missing=True, progress=True)
            solution = solve(state, table=self._table, endgame=self._db, book=self.book)
            assert solution.exact and solution.margin is not None
            self.values[key] = solution.margin
            self.solved += 1
            self.cpu_seconds += solution.cpu_seconds
        return self.values[key]

    def move_margins(self, state: engines.State) -> dict[int, int]:
        """Each legal move's final margin (player 0's) under perfect play after it."""
        return {int(m): self.margin(state.copy().play(int(m))) for m in state.legal_moves()}

    def save(self) -> None:
        if self.book is not None and self.solved:
            self.book.save()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f"{self.path.name}.tmp-{os.getpid()}")
        temporary.write_text(json.dumps({"game": repr(self.game), "values": self.values}))
        os.replace(temporary, self.path)


# ----------------------------------------------------------------------------------------------
# Judging the agents.


@dataclass
class Row:
    game: str
    agent: str
    budget: float | None  # None: the agent takes no time budget (judged once)
    moves: int
    kept: int  # moves that keep the result (win, draw or loss)
    lost: list[int]  # margin lost by each move (0: it keeps the margin)

    @property
    def share(self) -> float:
        return self.kept / self.moves

    def share_interval(self) -> tuple[float, float]:
        """Wilson's 95% interval of the share of moves that keep the value."""
        n, p, z = self.moves, self.share, 1.96
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def mean_lost(self) -> tuple[float, float]:
        """Mean margin lost per move and the half-width of its 95% normal interval."""
        lost = np.asarray(self.lost, float)
        half = 1.96 * lost.std(ddof=1) / math.sqrt(len(lost)) if len(lost) > 1 else float("nan")
        return float(lost.mean()), half


def takes_time(spec: str) -> bool:
    """Whether the agent's moves depend on a time budget (random, greedy, minimax and td-kalah's
    do not: they are judged once)."""
    return any(param.name == "time" for param in type(agents.make_agent(spec)).PARAMS)


def judge(game: engines.Game, positions: list, margins: list[dict[int, int]], spec: str, budget: float | None,
          seed: int) -> Row | None:
    """The agent's moves at ``budget`` seconds per move (None: its own budget), judged by their
    exact values (None if the agent does not play the game)."""
    agent = agents.make_agent(spec, seed=seed)
    try:
        agent.check_game(game)
    except ValueError:
        return None
    agent.warm_up(game)
    limit = Limit(time=budget) if budget is not None else agent.limit
    kept, lost = 0, []
    for i, (state, values) in enumerate(zip(positions, margins)):
        agent.reset(seed + i)
        move = agent.select_move(state, limit)
        sign = 1 if state.current_player == 0 else -1
        best = max(sign * v for v in values.values())
        mine = sign * values[int(move)]
        kept += int(np.sign(mine) == np.sign(best))
        lost.append(int(best - mine))
    return Row(repr(game), spec, budget, len(positions), kept, lost)


def markdown(rows: list[Row]) -> str:
    lines = [
        "| game | agent | s/move | moves | keeps the value (95% interval) | keeps the margin | margin lost per move (95% interval) |",
        "|---|---|---:|---:|---|---:|---|",
    ]
    for row in rows:
        low, high = row.share_interval()
        mean, half = row.mean_lost()
        budget = "-" if row.budget is None else f"{row.budget:g}"
        lines.append(f"| {row.game} | {row.agent} | {budget} | {row.moves} | {100 * row.share:.0f}% "
                     f"({100 * low:.0f}-{100 * high:.0f}) | {100 * row.lost.count(0) / row.moves:.0f}% "
                     f"| {mean:.2f} ± {half:.2f} |")
    return "\n".join(lines)


#: How far apart the agents are drawn at one budget, in decades of the log axis.
DODGE = 0.03
#: One marker an agent, so that agents on top of one another can still be told apart.
MARKERS = "osD^vP*X"


def plot(rows: list[Row], path: Path) -> "Figure":
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    games = list(dict.fromkeys(row.game for row in rows))
    fig = Figure(figsize=(6 * len(games), 4.5))
    for g, game in enumerate(games):
        ax = fig.add_subplot(1, len(games), g + 1)
        budgets = sorted({row.budget for row in rows if row.budget is not None}) or [1.0]
        judged = list(dict.fromkeys(row.agent for row in rows if row.game == game))
        for k, agent in enumerate(judged):
            mine = [row for row in rows if row.game == game and row.agent == agent]
            # Each agent a little to the side of the budget (on the log axis), so that agents
            # with the same share (several at 100%) do not hide one another.
            shifted = np.array(budgets) * 10 ** (DODGE * (k - (len(judged) - 1) / 2))
            if mine[0].budget is None:  # no time budget: one value, drawn across the budgets
                mine = mine * len(budgets)
            share = np.array([100 * row.share for row in mine])
            low, high = np.array([row.share_interval() for row in mine]).T * 100
            yerr = np.maximum(0.0, [share - low, high - share])  # rounding would make 0 slightly negative
            marker = MARKERS[k % len(MARKERS)]
            ax.errorbar(shifted, share, yerr=yerr, fmt=f"{marker}-" if mine[0].budget is not None else f"{marker}--",
                        capsize=3, label=agent)
        ax.set_xscale("log")
        ax.set_xlabel("seconds per move")
        ax.set_ylabel("moves that keep the value, % (95% interval)")
        ax.set_ylim(0, 102)
        ax.grid(alpha=0.3)
        ax.set_title(game, fontsize=10)
        ax.legend(fontsize=8)
    FigureCanvasAgg(fig)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    return fig


def parse_args(argv):
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=DEFAULT_GAMES, help=f"game variants (default {DEFAULT_GAMES})")
    parser.add_argument("--agents", default=DEFAULT_AGENTS, help=f"agents to judge (default {DEFAULT_AGENTS})")
    parser.add_argument("--budgets", default="0.01,0.1,1", help="seconds per move (default 0.01,0.1,1)")
    parser.add_argument("--positions", type=int, default=40, help="positions per game variant (default 40)")
    parser.add_argument("--database", type=int, default=None, metavar="SIZE",
                        help="take only positions that the game's endgame database of this size holds (the morris "
                             "games: cows on the board after placing), built once; their values are read from it")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--table-mb", type=float, default=512.0, help="table of the exact solves, MiB (default 512)")
    parser.add_argument("--out", default="accuracy-run", help="folder of the table, data and plot")
    parser.add_argument("--no-book", dest="book", action="store_false",
                        help="do not add the exact solves' proofs to the variant's book of solved positions")
    args = parser.parse_args(argv)
    if args.positions < 2:
        parser.error(f"--positions must be at least 2, not {args.positions}")
    if not 0 < args.table_mb <= 16384:
        parser.error(f"--table-mb must be more than 0 and at most 16384, not {args.table_mb:g}")
    try:
        args.budgets = [float(b) for b in args.budgets.split(",")]
    except ValueError:
        parser.error(f"--budgets takes seconds separated by commas, not {args.budgets!r}")
    if not all(0 < b <= 60 for b in args.budgets):
        parser.error(f"--budgets must be seconds in (0, 60], not {args.budgets}")
    try:
        args.games = parse_games(args.games)
        args.agents = [spec.strip() for spec in args.agents.split(",") if spec.strip()]
        for spec in args.agents:
            agents.make_agent(spec)
        if args.database is not None:
            for game in args.games:
                if game.endgame is None:
                    raise ValueError(f"--database: {game.name} has no endgame databases")
                game.endgame.check_size(args.database)
    except (ValueError, KeyError) as error:
        parser.error(str(error).strip("'\""))
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        parser.error(f"--out {out} is a file, not a folder")
    return args


def main(argv=None) -> int:
    return script_status("accuracy.py", parse_args, run, argv)


def run(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    for g, game in enumerate(args.games):
        started = time.perf_counter()
        database = None
        if args.database is not None:
            assert game.endgame is not None
            database = game.endgame.database(game.new_initial_state(0), args.database, build_missing=True, progress=True)
        positions = sample_positions(game, args.positions, args.seed + 1000 * g, database)
        exact = ExactValues(game, args.table_mb, book=args.book, database=database)
        try:
            margins = [exact.move_margins(state) for state in positions]
        finally:
            exact.save()
        print(f"{game!r}: {len(positions)} positions, {exact.solved} new exact solves "
              f"({exact.cpu_seconds:.1f} s processor time), {time.perf_counter() - started:.0f} s in all", flush=True)
        for a, spec in enumerate(args.agents):
            for budget in args.budgets if takes_time(spec) else [None]:
                row = judge(game, positions, margins, spec, budget, args.seed + 7919 * a)
                if row is not None:
                    rows.append(row)
    table = markdown(rows)
    print(table)
    (out / "accuracy.md").write_text(table + "\n")
    (out / "accuracy.json").write_text(json.dumps([row.__dict__ for row in rows], indent=1))
    plot(rows, out / "accuracy.png")
    print(f"Table, data and plot: {out}/accuracy.md, accuracy.json, accuracy.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
