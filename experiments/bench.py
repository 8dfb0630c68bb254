"""Speed benchmarks, one core, each figure the median of several timed runs, timed in CPU
seconds (``time.process_time``: what the process got, whatever else the machine runs).

    python experiments/bench.py                              # every game, every section
    python experiments/bench.py --games kalah --sections mcts,alphabeta --repeats 7

Sections, per game, from the start position:

* ``playouts``: random full-game playouts per second; for Kalah also the fraction of a
  hand-written playout loop's rate (``reference_kalah_playouts``: the same games, written for
  Kalah alone; what the generic contract and engine cost);
* ``mcts``: MCTS simulations per second (one random rollout per simulation, 20,000 simulations,
  exploration constant 2 as OpenSpiel's default; plain UCT: ``solver=false,minimax=0``, as
  OpenSpiel's bot is timed);
* ``alphabeta``: alpha-beta nodes per second and the depth completed in 1 second;
* ``sampler``: for games with hidden information (which ``mcts`` and ``alphabeta`` skip), the
  time to sample one hidden world consistent with a player's view (``sample_world``, once per
  ISMCTS iteration; median and mean over 50 views from random games), and ISMCTS iterations per
  second from the start (20,000 iterations);
* ``budget``: the wall time of moves searched with ``time=0.2``, by every agent with a clock, in
  self-play from the start (the longest move must stay under 0.25 s), and their CPU time;
* ``warm``: the import + warm-up time of a fresh process (every agent for every game), first as
  the cache is, then finding every kernel in numba's cache;
* ``ugi``: ``arena engine``'s wall seconds from its start to ``ugiok``, then to the first
  ``readyok`` (its agent's kernels loaded from the cache) and for one ``go depth 1``;
* ``startup``: the CPU (and wall) seconds of compiling every game and agent from an empty cache
  (``warm``'s process with ``NUMBA_CACHE_DIR`` on an empty folder), and of the whole command
  ``arena run --game kalah --agents mcts,alphabeta --games 2`` with a warm cache (interpreter,
  imports, cache loads, worker processes, games, report), beside the same command with
  ``random`` agents (the difference is the agents' search); then the Quick start's command
  (``arena run --game mancala --agents mcts,alphabeta``, 2 games) from an empty cache (a new
  user's first run) and with a warm one;
* ``ugi``: the protocol's cost: games and moves per wall second of ``random`` against
  ``random`` where each side is an engine program speaking UGI (a Python script that plays
  random legal moves with our engine, see ``UGI_RANDOM_ENGINE``), played by the arena's game
  player as ``arena run`` plays it, with the CPU time per move of the three processes; beside
  the same games with the agents in process (wall time: the engines run on other cores).

Where OpenSpiel has the game (``pip install -e ".[bench]"`` installs ``open_spiel``), the same
work is timed in its C++ code in the same run, ours and theirs in turn within each repeat, and
the median of the per-repeat ratios ours/theirs printed (robust to the machine's load): random playouts
through ``RandomRolloutEvaluator``, MCTS through ``pyspiel.MCTSBot`` with
``RandomRolloutEvaluator(1, seed)``, ``solve=False`` and the same number of simulations.

Random games need not last as long in both engines, so the table also gives the mean game length
(our plies; OpenSpiel's actions, from random games played through pyspiel) and the ratio of the
rates per ply ("per ply"): playouts per second times the game length, ours over OpenSpiel's.

nine men's morris against OpenSpiel's ``nine_mens_morris``: the same rules where they matter here
(no diagonals, 9 men, flying at three, shooting from a mill only when every opponent man stands
in mills, a loss with two men or no move, a draw after 200 turns, a shot belonging to its turn;
``tests/engines/test_morabaraba.py`` checks the legal moves and results of both, move for move).
The differences: OpenSpiel makes the shot a separate action of the same player, so a uniformly
random player picks a mill-forming move as often as any other and then a target, while ours
picks among (move, shot) pairs, where a mill-forming move comes once per target. Our random games
therefore shoot more and end sooner (about 80 plies against OpenSpiel's 145 turns, 153 actions):
compare the per-ply ratio as well as the playout ratio. (Also, OpenSpiel ends a game as a loss
for the mover when a mill is formed while the opponent has no man on the board; here the move
then shoots nothing. Random play almost never meets that case.)
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from board_arena import (
    agents,  # noqa: E402
    engines,  # noqa: E402
)
from board_arena.commandline import OneLineParser, positive_int, run_script  # noqa: E402
from board_arena.engines import contract  # noqa: E402
from board_arena.kernels import (  # noqa: E402
    bits_below,
    kernel,
    rng_below,
    rng_from_seed,
    rng_step,
)


@dataclass(frozen=True)
class Case:
    label: str
    game: str
    params: dict = field(default_factory=dict)
    openspiel: str | None = None  # the same rules in OpenSpiel, if it has them


CASES = [
    Case("kalah (6,4)", "kalah", {}, "mancala"),
    Case("mancala (6,4)", "mancala"),
    Case("morabaraba", "morabaraba"),
    Case("morabaraba-9", "morabaraba-9"),
    Case("nine men's morris", "nine-mens-morris", {}, "nine_mens_morris"),
    Case("konane (6x6)", "konane"),
    Case("konane (8x8)", "konane", {"size": 8}),
    Case("konane turning", "konane", {"turning_jumps": True}),
    Case("konane-classic", "konane-classic"),
    Case("dominoes (6,7)", "dominoes"),  # OpenSpiel's dominoes games play other rules
]


def _calibrate(run, seconds: float) -> int:
    """The n for which ``run(n)`` lasts about ``seconds`` of CPU time (this also warms it up)."""
    n = 1
    while True:
        start = time.process_time()
        run(n)
        elapsed = time.process_time() - start
        if elapsed > seconds / 4:
            return max(1, int(n * seconds / elapsed))
        n *= 4


def median_rate(run, repeats: int, seconds: float) -> float:
    """Median over ``repeats`` timed calls of ``run(n)`` (which does n units of work) of units
    per CPU second, with n calibrated so that a call lasts about ``seconds``."""
    return interleaved_rates({"run": run}, repeats, seconds)[0]["run"]


def interleaved_rates(runs: dict, repeats: int, seconds: float) -> tuple[dict, dict]:
    """Rates of several ``run(n)`` timed in turn within each repeat, units per CPU second.

    Returns ``(rates, ratios)``: each run's median rate, and each run's median over the repeats
    of its rate divided by the first run's in the same repeat. Alternating the runs exposes them
    to the same load, so the ratios hold on a busy machine where the rates alone would not.
    """
    sizes = {name: _calibrate(run, seconds) for name, run in runs.items()}
    samples: dict = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            start = time.process_time()
            run(sizes[name])
            samples[name].append(sizes[name] / max(time.process_time() - start, 1e-9))
    first = samples[next(iter(runs))]
    rates = {name: statistics.median(values) for name, values in samples.items()}
    ratios = {name: statistics.median(v / f for v, f in zip(values, first)) for name, values in samples.items()}
    return rates, ratios


#: Random games whose mean length the per-ply ratio uses, on each side: the standard deviation of
#: a random Kalah game's length is 11 plies, so 200 games would give a mean good to +-0.8 plies
#: (one standard error: 2%, the order of the gaps between engines), 4,000 give +-0.17.
LENGTH_GAMES = 4000


def our_playouts(case: Case) -> tuple:
    """(run(n) playing n random games from the start, mean plies per game)."""
    state = engines.make(case.game, **case.params).new_initial_state(seed=0)
    rng = rng_from_seed(0)
    plies = contract.random_playouts(state.data, LENGTH_GAMES, rng) / LENGTH_GAMES
    return (lambda n: contract.random_playouts(state.data, n, rng)), plies


# The hand-written reference for Kalah (6 pits, 4 seeds, the ``kalah`` preset's rules): a playout
# loop written for this one game, as one would write it in C, with nothing generic in between:
# each row one word of 8-bit pits in a register, seeds sown one at a time, the same generator and
# the same draws (the k-th non-empty pit), so it plays exactly our games (``main`` checks the
# plies). Our playouts' fraction of its rate is what the contract and the engine cost.
_KALAH_START = np.uint64(0x0404_0404_0404)
_BYTE_MASK = np.uint64(0xFF)


@kernel
def reference_kalah_playouts(n, rng):
    """Plays ``n`` random Kalah (6, 4) games from the start; returns the plies played in all."""
    x = rng[0]
    plies = 0
    for _ in range(n):
        mine = _KALAH_START  # the mover's row: pit p in bits 8p..8p+7
        theirs = _KALAH_START
        while True:
            count = 0
            for p in range(6):
                if (mine >> np.uint64(8 * p)) & _BYTE_MASK != 0:
                    count += 1
            x, bits = rng_step(x)
            k = bits_below(bits, count)
            pit = 0
            for p in range(6):
                if (mine >> np.uint64(8 * p)) & _BYTE_MASK != 0:
                    if k == 0:
                        pit = p
                        break
                    k -= 1
            seeds = np.int64((mine >> np.uint64(8 * pit)) & _BYTE_MASK)
            mine -= np.uint64(seeds) << np.uint64(8 * pit)
            pos = pit  # 0-5 the mover's pits, 6 its store, 7-12 the opponent's pits
            for _ in range(seeds):
                pos = pos + 1 if pos < 12 else 0
                if pos < 6:
                    mine += np.uint64(1) << np.uint64(8 * pos)
                elif pos > 6:
                    theirs += np.uint64(1) << np.uint64(8 * (pos - 7))
            plies += 1
            if pos < 6 and (mine >> np.uint64(8 * pos)) & _BYTE_MASK == 1:
                opposite = np.uint64(8 * (5 - pos))
                if (theirs >> opposite) & _BYTE_MASK != 0:  # capture (stores are not tracked:
                    theirs &= ~(_BYTE_MASK << opposite)  # the random players never read them)
                    mine &= ~(_BYTE_MASK << np.uint64(8 * pos))
            if mine == 0 or theirs == 0:
                break
            if pos != 6:
                mine, theirs = theirs, mine
    rng[0] = x
    return plies


@kernel
def sample_worlds(view, rng, n):
    """Samples ``n`` worlds consistent with ``view``; returns how many it found."""
    world = contract.new_states(view, 1)
    found = 0
    for _ in range(n):
        found += contract.sample_world(view, rng, world[0])
    return found


@kernel
def random_views(root, rng, n, views):
    """``n`` views of the mover at a uniformly random ply of random games from ``root``."""
    moves = np.empty(contract.max_moves(root), contract.MOVE_DTYPE)
    work = contract.new_states(root, 1)
    path = np.empty(1000, contract.MOVE_DTYPE)
    for i in range(n):
        work[0] = root
        plies = 0
        while not contract.is_terminal(work[0]):
            count = contract.legal_moves(work[0], moves)
            path[plies] = moves[rng_below(rng, count)]
            contract.apply_move(work[0], path[plies])
            plies += 1
        stop = rng_below(rng, plies)
        work[0] = root
        for k in range(stop):
            contract.apply_move(work[0], path[k])
        contract.observe(work[0], contract.current_player(work[0]), views[i])


def sampler_micros(case: Case, repeats: int, seconds: float, n_views: int = 50) -> tuple[float, float]:
    """Median and mean over random mid-game views of the microseconds per ``sample_world``."""
    state = engines.make(case.game, **case.params).new_initial_state(seed=0)
    rng = rng_from_seed(0)
    views = np.zeros(n_views, state.data.dtype)
    random_views(state.data, rng, n_views, views)
    per_view = []
    for i in range(n_views):
        view = views[i]
        rate = median_rate(lambda n: sample_worlds(view, rng, n), repeats, seconds / n_views)
        per_view.append(1e6 / rate)
    return statistics.median(per_view), statistics.fmean(per_view)


def openspiel_playouts(name: str) -> tuple | None:
    """OpenSpiel's C++ random playouts from the start: ``(run(n), mean actions per game)``, where
    ``run(n)`` steps an ``MCTSBot`` limited to one simulation, whose ``RandomRolloutEvaluator(n)``
    then plays ``n`` random games from the root in C++ (the mean from ``LENGTH_GAMES`` games played
    through pyspiel). None without OpenSpiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    state = game.new_initial_state()

    def run(n):
        evaluator = pyspiel.RandomRolloutEvaluator(n, 0)
        pyspiel.MCTSBot(game, evaluator, 2.0, 1, 10**6, False, 0, False).step(state)

    choose = random.Random(0)
    actions = 0
    for _ in range(LENGTH_GAMES):
        game_state = game.new_initial_state()
        while not game_state.is_terminal():
            game_state.apply_action(choose.choice(game_state.legal_actions()))
            actions += 1
    return run, actions / LENGTH_GAMES


MCTS_SIMULATIONS = 20_000
#: The exploration constant of both MCTS implementations (OpenSpiel's MCTSBot ``uct_c``), so that
#: the trees they grow are alike.
MCTS_C = 2.0


def tree_search_rates(case: Case, agent_name: str, repeats: int) -> tuple[float, float | None, float | None]:
    """Simulations per CPU second of ``MCTS_SIMULATIONS``-simulation searches from the start (from
    the mover's view in a hidden-information game: one sampled world per ISMCTS iteration), and
    OpenSpiel's ``MCTSBot``'s when it has the game, each repeat timing ours then theirs:
    ``(ours, theirs, median ratio)``, medians (None without OpenSpiel)."""
    state = engines.make(case.game, **case.params).new_initial_state(seed=0)
    # Like for like with OpenSpiel's bot (random rollouts, no solver): ``mcts`` without its solver
    # and implicit minimax, whose costs and gains docs/benchmarks.md measures apart.
    plain = ",solver=false,minimax=0" if agent_name == "mcts" else ""
    agent = agents.make_agent(f"{agent_name}:iterations={MCTS_SIMULATIONS},c={MCTS_C}{plain}", seed=0)
    agent.warm_up(state.game)
    seen = agent.observe(state, state.current_player)
    theirs = openspiel_mcts(case.openspiel) if case.openspiel else None
    ours_rates, their_rates = [], []
    for seed in range(repeats):
        start = time.process_time()
        agent.select_move(seen)
        ours_rates.append(agent.last_search.simulations / (time.process_time() - start))
        if theirs:
            start = time.process_time()
            theirs(seed)
            their_rates.append(MCTS_SIMULATIONS / (time.process_time() - start))
    if not theirs:
        return statistics.median(ours_rates), None, None
    ratio = statistics.median(a / b for a, b in zip(ours_rates, their_rates))
    return statistics.median(ours_rates), statistics.median(their_rates), ratio


def openspiel_mcts(name: str):
    """``search(seed)``: one ``MCTS_SIMULATIONS``-simulation step of OpenSpiel's C++ ``MCTSBot``
    from the start, or None without OpenSpiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)

    def search(seed: int) -> None:
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        bot = pyspiel.MCTSBot(game, evaluator, MCTS_C, MCTS_SIMULATIONS, 10**9, False, seed, False)
        bot.step(game.new_initial_state())

    search(0)  # warm up
    return search


BUDGET_SECONDS = 0.2
BUDGET_MOVES = 8


def budget_times(case: Case, agent_name: str) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each of ``BUDGET_MOVES`` moves of ``agent_name:time=0.2`` in
    self-play from the start (timed around ``select_move``, so everything the agent does counts)."""
    game = engines.make(case.game, **case.params)
    players = [agents.make_agent(f"{agent_name}:time={BUDGET_SECONDS}", seed=s) for s in (0, 1)]
    for agent in players:
        agent.warm_up(game)
    state = game.new_initial_state(seed=0)
    times, cpu_times = [], []
    while len(times) < BUDGET_MOVES and not state.is_terminal():
        agent = players[state.current_player]
        start, cpu_start = time.perf_counter(), time.process_time()
        move = agent.select_move(agent.observe(state, state.current_player))
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
        state.apply(move)
    return times, cpu_times


def our_alphabeta(case: Case, repeats: int) -> tuple[float, float]:
    """(nodes per CPU second, depth completed) of 1-second searches from the start, medians."""
    state = engines.make(case.game, **case.params).new_initial_state(seed=0)
    agent = agents.make_agent("alphabeta:time=1", seed=0)
    agent.warm_up(state.game)
    rates, depths = [], []
    for _ in range(repeats):
        agent.reset()  # an empty table each time: the figure is for a fresh search
        start = time.process_time()
        agent.select_move(state)
        rates.append(agent.last_search.nodes / (time.process_time() - start))
        depths.append(agent.last_search.depth)
    return statistics.median(rates), statistics.median(depths)


WARM_START = textwrap.dedent(
    """
    import time
    start, cpu = time.perf_counter(), time.process_time()
    import numpy as np
    from numba.core import event
    from board_arena import agents, engines
    from board_arena.engines import contract
    from board_arena.kernels import rng_from_seed

    class Count(event.Listener):
        compiled = 0

        def on_start(self, event):
            Count.compiled += 1

        def on_end(self, event):
            pass

    event.register("numba:compile", Count())
    for name, params in {games!r}:
        game = engines.make(name, **params)
        state = game.new_initial_state(seed=0)
        contract.random_playouts(state.data, 1, rng_from_seed(0))
        specs = ("minimax", "alphabeta", "mcts") if game.perfect_information else ("pimc", "ismcts")
        for spec in ("random", "greedy") + specs:
            agents.make_agent(spec).warm_up(game)
        state.apply(state.legal_moves()[0])
        str(state)
    print(time.perf_counter() - start, time.process_time() - cpu, Count.compiled)
    """
)


@dataclass(frozen=True)
class Timing:
    """Wall and CPU seconds of a fresh process (CPU: user + system, its children included)."""

    wall: float
    cpu: float

    def __str__(self) -> str:
        return f"{self.cpu:6.2f} s CPU ({self.wall:.2f} s wall)"


def run_process(command: list[str], env: dict | None = None) -> tuple[Timing, str]:
    """Runs ``command`` from the repository's root; its timing and standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # Python as users run it: writing bytecode (a shell that sets PYTHONDONTWRITEBYTECODE would
    # have every run compile the package's sources to bytecode again, which no user pays).
    environ = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env={**environ, **(env or {})})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {done.stderr.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu), done.stdout


def warm_start(cases: list[Case], cache: str | None = None, blas_threads: int | None = None) -> tuple[Timing, int]:
    """Import + warm-up of every agent for every case in a fresh process (every kernel of the
    cache folder ``cache`` if given, else numba's usual one; numpy's OpenBLAS on ``blas_threads``
    threads if given, else its default of one per core); the in-process timing (no interpreter
    start; the CPU time of all the process's threads) and the number of kernels compiled."""
    code = WARM_START.format(games=[(c.game, c.params) for c in cases])
    env = {"NUMBA_CACHE_DIR": cache} if cache else {}
    if blas_threads is not None:
        env["OPENBLAS_NUM_THREADS"] = str(blas_threads)
    _, out = run_process([sys.executable, "-c", code], env)
    wall, cpu, compiled = out.split()
    return Timing(float(wall), float(cpu)), int(compiled)


def median_timing(timings: list[Timing]) -> Timing:
    return Timing(statistics.median(t.wall for t in timings), statistics.median(t.cpu for t in timings))


#: The start-up command timed by the ``startup`` section, and one whose agents cost nothing, so
#: that the difference is the agents' search.
ARENA_RUN = ["run", "--game", "kalah", "--agents", "mcts,alphabeta", "--games", "2"]
ARENA_RUN_CHEAP = ["run", "--game", "kalah", "--agents", "random,random", "--games", "2"]


#: The Quick start's command, with 2 games instead of its 100: its first run (what compiling costs
#: a new user) and a warm start.
QUICK_START = ["run", "--game", "mancala", "--agents", "mcts,alphabeta", "--games", "2"]
#: Games per timed run of the ``ugi`` section (the first, which starts the engines, untimed).
UGI_GAMES = 20


def arena_run_cold(args: list[str], repeats: int) -> Timing:
    """Median timing of the ``arena`` command with ``args``, each time from an empty cache folder
    (a first run: every kernel it uses compiled)."""
    timings = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(repeats):
            out = ["--out", os.path.join(folder, f"run{i}"), "--quiet"]
            env = {"NUMBA_CACHE_DIR": os.path.join(folder, f"cache{i}")}
            timings.append(run_process([sys.executable, "-m", "board_arena.arena.cli", *args, *out], env)[0])
    return median_timing(timings)


def arena_run(args: list[str], repeats: int) -> Timing:
    """Median timing of the ``arena`` command with ``args``, warm cache, a fresh run folder each
    time (the whole command: interpreter start, imports, cache loads, worker processes, games,
    report)."""
    timings = []
    with tempfile.TemporaryDirectory() as folder:
        for i in range(repeats + 1):
            out = ["--out", os.path.join(folder, str(i)), "--quiet"]
            timing, _ = run_process([sys.executable, "-m", "board_arena.arena.cli", *args, *out])
            if i:  # the first run loads (or compiles) what the cache lacks
                timings.append(timing)
    return median_timing(timings)


def ugi_engine_times(case: Case) -> tuple[float, float, float]:
    """Wall seconds of ``arena engine`` (warm cache) from its start to ``ugiok``, then to the
    first ``readyok`` (the agent's kernels loaded), then of one ``go depth 1`` to its
    ``bestmove``: what a UGI host waits for."""
    spec = case.game if not case.params else case.game + ":" + ",".join(f"{k}={v}" for k, v in case.params.items())
    agent = "alphabeta" if engines.game_class(case.game).perfect_information else "pimc"
    game = engines.make(case.game, **case.params)
    start_line = f"fen {game.new_initial_state(0).fen()}" if game.random_start and game.perfect_information else "startpos"
    if not game.perfect_information:
        from board_arena.ugi.protocol import position_line

        start_line = position_line(game, game.new_initial_state(0), game.new_initial_state(0).current_player)[len("position "):]
    command = [sys.executable, "-m", "board_arena.arena.cli", "engine", "--game", spec, "--agent", agent, "--seed", "1"]
    began = time.perf_counter()
    engine = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    assert engine.stdin is not None and engine.stdout is not None

    def until(line: str, answer: str) -> float:
        engine.stdin.write(line + "\n")
        engine.stdin.flush()
        while not engine.stdout.readline().startswith(answer):
            pass
        return time.perf_counter()

    ugiok = until("ugi", "ugiok")
    readyok = until("isready", "readyok")
    engine.stdin.write(f"position {start_line}\n")
    bestmove = until("go depth 1", "bestmove")
    engine.stdin.write("quit\n")
    engine.stdin.close()
    engine.wait(timeout=60)
    return ugiok - began, readyok - ugiok, bestmove - readyok
def ugi_rates(game: str, games: int) -> tuple[float, float, float]:
    """(games per wall second, moves per wall second, CPU seconds per move of the host and both
    engines) of ``games`` games of random against random, each side an ``arena engine --agent
    random`` process speaking UGI, played by the arena's ``GamePlayer`` (the first game, in which
    the engines start, untimed)."""
    import psutil

    from board_arena.arena.tournament.settings import TournamentSettings
    from board_arena.arena.tournament.worker import GamePlayer
    from board_arena.ugi import host

    names = host.register_engines(
        host.EngineDefinition(f"bench-ugi-{seat}", (sys.executable, "-m", "board_arena.arena.cli", "engine", "--game", game,
                                                    "--agent", "random", "--seed", str(seat)),
                              directory=str(ROOT), ready_timeout=120.0)
        for seat in (0, 1)
    )
    settings = TournamentSettings.create(game, names, games=games)
    player = GamePlayer(settings)
    schedule = list(settings.schedule())
    player.play(schedule[0])  # the engines start and load their kernels: not timed
    processes = [psutil.Process(agent._slot.process.process.pid) for agent in player._agents.values()]
    before, cpu = sum(sum(p.cpu_times()[:2]) for p in processes), time.process_time()
    start = time.perf_counter()
    results = [player.play(scheduled) for scheduled in schedule[1:]]
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu
    failed = [r.end_reason for r in results if r.end_reason != "rules"]
    if failed:
        raise RuntimeError(f"an engine of the ugi benchmark failed: {failed[0]}")
    plies = sum(r.plies for r in results)
    cpu += sum(sum(p.cpu_times()[:2]) for p in processes) - before  # the engines' own, since their start
    for agent in player._agents.values():
        agent.close()
    return (len(schedule) - 1) / wall, plies / wall, cpu / plies


def in_process_rates(game: str, games: int) -> tuple[float, float]:
    """(games, moves) per wall second of the same games as :func:`ugi_rates`, with the
    ``random`` agents in process."""
    from board_arena.arena.tournament.settings import TournamentSettings
    from board_arena.arena.tournament.worker import GamePlayer

    settings = TournamentSettings.create(game, ["random", "random"], games=games)
    player = GamePlayer(settings)
    schedule = list(settings.schedule())
    player.play(schedule[0])
    start = time.perf_counter()
    plies = sum(player.play(scheduled).plies for scheduled in schedule[1:])
    wall = time.perf_counter() - start
    return (len(schedule) - 1) / wall, plies / wall


SECTIONS = ("playouts", "mcts", "alphabeta", "sampler", "budget", "warm", "startup", "ugi")


def main(argv=None) -> None:
    parser = OneLineParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(c.game for c in CASES), help="comma-separated games")
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS))
    parser.add_argument("--repeats", type=positive_int, default=5, help="timed runs per figure (median)")
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one timed playout run")
    args = parser.parse_args(argv)
    wanted = args.games.split(",")
    unknown = [g for g in wanted if g not in {c.game for c in CASES}]
    if unknown:
        parser.error(f"no benchmark for {', '.join(unknown)}; benchmarks: {', '.join(dict.fromkeys(c.game for c in CASES))}")
    sections = args.sections.split(",")
    if set(sections) - set(SECTIONS):
        parser.error(f"unknown section in {args.sections!r}; sections: {', '.join(SECTIONS)}")
    cases = [c for c in CASES if c.game in wanted]

    found = "found" if _has_openspiel() else 'not installed (pip install -e ".[bench]" times it beside ours)'
    print(f"one core, median of {args.repeats} runs; OpenSpiel {found}")
    if "playouts" in sections:
        print()
        print(
            f"{'random playouts':<20} {'ours/s':>12} {'plies':>7} {'OpenSpiel C++/s':>16} {'actions':>7} "
            f"{'ratio':>7} {'per ply':>7} {'of hand-written':>15}"
        )
        for case in cases:
            ours, plies = our_playouts(case)
            runs = {"ours": ours}
            spiel = openspiel_playouts(case.openspiel) if case.openspiel else None
            if spiel:
                runs["openspiel"] = spiel[0]
            if case.game == "kalah" and not case.params:
                rng = rng_from_seed(0)
                runs["hand-written"] = lambda n: reference_kalah_playouts(n, rng)
                check = contract.random_playouts(engines.make("kalah").new_initial_state().data, 100, rng_from_seed(1))
                assert reference_kalah_playouts(100, rng_from_seed(1)) == check, "the reference plays other games"
            rates, ratios = interleaved_rates(runs, args.repeats, args.seconds)
            length = spiel[1] if spiel else None
            ratio = 1 / ratios["openspiel"] if spiel else None
            print(
                f"{case.label:<20} {rates['ours']:>12,.0f} {plies:>7.1f} {_ref(rates.get('openspiel')):>16} "
                f"{(f'{length:.1f}' if length else '-'):>7} {_fmt(ratio):>7} "
                f"{_fmt(ratio * plies / length if ratio and length else None):>7} "
                f"{_fmt(1 / ratios['hand-written'] if 'hand-written' in ratios else None):>15}"
            )
    perfect = [c for c in cases if engines.game_class(c.game).perfect_information]
    hidden = [c for c in cases if c not in perfect]
    if "mcts" in sections and perfect:
        print()
        print(f"{'MCTS simulations':<20} {'ours/s':>12} {'':>7} {'OpenSpiel C++/s':>16} {'ratio':>7}")
        for case in perfect:
            rate, reference, ratio = tree_search_rates(case, "mcts", args.repeats)
            print(f"{case.label:<20} {rate:>12,.0f} {'':>7} {_ref(reference):>16} {_fmt(ratio):>7}")
    if "alphabeta" in sections and perfect:
        print()
        print(f"{'alpha-beta, 1 s':<20} {'nodes/s':>12} {'depth':>7}")
        for case in perfect:
            rate, depth = our_alphabeta(case, args.repeats)
            print(f"{case.label:<20} {rate:>12,.0f} {depth:>7g}")
    if "sampler" in sections and hidden:
        print()
        print(f"{'hidden worlds':<20} {'sample_world us, median':>24} {'mean':>7} {'ISMCTS iterations/s':>20}")
        for case in hidden:
            median, mean = sampler_micros(case, args.repeats, args.seconds)
            rate = tree_search_rates(case, "ismcts", args.repeats)[0]
            print(f"{case.label:<20} {median:>24.2f} {mean:>7.2f} {rate:>20,.0f}")
    if "budget" in sections:
        print()
        print(f"{'time=0.2 per move':<20} {'agent':>9} {'moves':>7} {'median s':>9} {'longest s':>10} {'CPU s':>7}")
        for case in cases:
            hidden = not engines.game_class(case.game).perfect_information
            for name in ("pimc", "ismcts") if hidden else ("alphabeta", "mcts"):
                times, cpu = budget_times(case, name)
                print(
                    f"{case.label:<20} {name:>9} {len(times):>7} {statistics.median(times):>9.3f} "
                    f"{max(times):>10.3f} {statistics.median(cpu):>7.3f}"
                )
    if "warm" in sections:
        print()
        first, _ = warm_start(cases)
        warm = median_timing([warm_start(cases)[0] for _ in range(args.repeats)])
        print(f"import + warm-up of every agent, fresh process: first {first}, warm (from cache) {warm}")
        # numpy's OpenBLAS starts a thread per core at numpy's import, which spins for a while:
        # CPU time of numpy's, not of this package, which the arena command avoids (cli.main).
        one = median_timing([warm_start(cases, blas_threads=1)[0] for _ in range(args.repeats)])
        print(f"{'  the same, OpenBLAS on one thread':<47} {one}  (as the arena command runs; median of {args.repeats})")
    if "startup" in sections:
        print()
        with tempfile.TemporaryDirectory() as empty:
            cold, compiled = warm_start(cases, cache=empty)
        print(f"{'every game and agent compiled':<40} {cold}  ({compiled} kernels, empty cache)")
        command = "arena " + " ".join(ARENA_RUN)
        print(f"{command:<40} {arena_run(ARENA_RUN, args.repeats)}  (warm cache, median of {args.repeats})")
        cheap = "  with --agents random,random"
        print(f"{cheap:<40} {arena_run(ARENA_RUN_CHEAP, args.repeats)}  (the same without search)")
        print(f"the Quick start's command with 2 games: arena {' '.join(QUICK_START)}")
        print(f"{'  first run (empty cache)':<40} {arena_run_cold(QUICK_START, args.repeats)}  (median of {args.repeats})")
        print(f"{'  warm cache':<40} {arena_run(QUICK_START, args.repeats)}  (median of {args.repeats})")
    if "ugi" in sections:
        print()
        print(f"{'arena engine, wall s':<20} {'to ugiok':>9} {'readyok':>9} {'go depth 1':>11}  (warm cache, median of {args.repeats})")
        for case in cases:
            ugi_engine_times(case)  # loads what the cache lacks
            runs = [ugi_engine_times(case) for _ in range(args.repeats)]
            ugiok, readyok, go = (statistics.median(run[i] for run in runs) for i in range(3))
            print(f"{case.label:<20} {ugiok:>9.2f} {readyok:>9.2f} {go:>11.3f}")
        print(f"{'random vs random':<20} {'':>10} {'games/s':>9} {'moves/s':>9} {'CPU ms/move':>12}")
        for case in cases:
            if case.params:
                continue  # the presets only: a variant is spelled as --game of both engines alike
            rates = [ugi_rates(case.game, UGI_GAMES) for _ in range(args.repeats)]
            games_rate, moves_rate, cpu = (statistics.median(r[i] for r in rates) for i in range(3))
            inline = [in_process_rates(case.game, UGI_GAMES) for _ in range(args.repeats)]
            print(f"{case.label:<20} {'over UGI':>10} {games_rate:>9,.1f} {moves_rate:>9,.0f} {cpu * 1000:>12.3f}")
            print(f"{'':<20} {'in process':>10} {statistics.median(r[0] for r in inline):>9,.1f} "
                  f"{statistics.median(r[1] for r in inline):>9,.0f}")


def _has_openspiel() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return False
    return True


def _ref(reference: float | None) -> str:
    return f"{reference:,.0f}" if reference else "-"


def _fmt(ratio: float | None) -> str:
    return f"{ratio:.2f}x" if ratio else "-"


if __name__ == "__main__":
    run_script(main, "bench.py")
