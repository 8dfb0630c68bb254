"""The ``arena`` command: ``run``, ``report``, ``verify``, ``list``, ``replay``, ``export``, ``play``, ``serve``.

Every error a user can cause (an unknown game or agent, a bad parameter, a folder holding another
run) ends the command with one line saying what was wrong and what is allowed, and status 2.
"""

from __future__ import annotations

import argparse
import gc
import os
import shlex
import signal
import sys
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeVar

from board_arena.commandline import OneLineParser, interrupt_handled, interrupts_kept

if TYPE_CHECKING:  # annotations only: the command imports the arena when it runs (see main)
    from board_arena.arena.tournament.run import Run

__all__ = ["main"]

EXAMPLES = """examples:
  arena run --game mancala --agents mcts,alphabeta
  arena run --game kalah:pits=5,seeds=3 --agents random,alphabeta:depth=4,mcts:iterations=500 --games 20
  arena run --game mancala --agents mcts,alphabeta --cluster auto
  arena run --game kalah --agents mcts,alphabeta --tc 10+0.1
  arena report arena-runs/mancala-mcts-alphabeta-1a2b3c4d
  arena verify arena-runs/mancala-mcts-alphabeta-1a2b3c4d
  arena replay arena-runs/mancala-mcts-alphabeta-1a2b3c4d 0
  arena export arena-runs/mancala-mcts-alphabeta-1a2b3c4d --out games.txt
  arena list
  arena play --game mancala --opponent mcts:iterations=20000
  arena serve
"""


#: Worker processes per core at most: beyond it they only compete for the cores.
MAX_CONCURRENCY_PER_CORE = 4
#: Ray workers at most (a typo must not ask a cluster for a million actors).
MAX_CLUSTER_WORKERS = 10_000


def _shown(text: str, limit: int = 24) -> str:
    """An argument as an error message echoes it: at most a short prefix."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + f"... ({len(text)} characters)"


_Value = TypeVar("_Value")


def _typed(convert: Callable[[str], _Value], what: str) -> Callable[[str], _Value]:
    """An argparse type: ``convert`` of the text, or an error that echoes only its prefix."""

    def parse(text: str) -> _Value:
        try:
            if len(text) > 24 or not text.isascii():  # no number a person means is this long; int("٣") is 3
                raise ValueError
            return convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {_shown(text)}") from None

    return parse


_integer = _typed(int, "an integer")
_number = _typed(float, "a number")


def _build_parser() -> argparse.ArgumentParser:
    from board_arena.arena.strength import add_plugin_option, add_strength_options

    parser = OneLineParser(
        prog="arena",
        description="Round-robin tournaments between game-playing agents, with joint Elo ratings.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    commands.required = True

    run = commands.add_parser(
        "run",
        help="play a round robin (resumes a run in the same folder)",
        description="Play a round robin between agents; every pairing plays --games games, in "
        "seat-swapped pairs from the same start. Results are stored as games finish; the same "
        "command resumes an interrupted run.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("--game", required=True, metavar="NAME[:param=value,...]", help="game and variant parameters (see arena list)")
    run.add_argument(
        "--agents",
        metavar="SPEC,SPEC,...",
        help="agent specs, e.g. random,alphabeta:depth=4,mcts:iterations=500 (see arena list)",
    )
    run.add_argument("--agent", action="append", default=[], metavar="SPEC", help="one more agent (repeatable)")
    run.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="a variant parameter of the game (repeatable)")
    run.add_argument("--games", type=_integer, default=100, help="games per pairing (default 100; even unless --noswap)")
    run.add_argument(
        "--concurrency",
        type=_integer,
        help=f"games played at once (default: the number of cores, or the CPUs of the --cluster; "
        f"at most {MAX_CONCURRENCY_PER_CORE} per core here)",
    )
    run.add_argument(
        "--cluster",
        metavar="ray|auto|ray://HOST:PORT",
        help="play the games on Ray: ray starts a Ray instance on this machine, auto joins the "
        "cluster this machine joined with ray start, ray://HOST:PORT a remote cluster (needs "
        'pip install -e ".[ray]")',
    )
    run.add_argument("--seed", type=_integer, default=0, help="seed of every start position and agent (default 0)")
    run.add_argument(
        "--move-time",
        type=_number,
        metavar="SECONDS",
        help="seconds per move for the searching agents (alphabeta, mcts, pimc, ismcts), replacing "
        "their own budgets (not reproducible); random, greedy and minimax have no clock",
    )
    run.add_argument(
        "--tc",
        metavar="[MOVES/]SECONDS[+INC]",
        help="a clock per side, as cutechess's tc: 10+0.1 is 10 s for the game plus 0.1 s after each move, "
        "40/60 is 60 s for every 40 moves (added when they are made), 40/60+0.5 both; agents are told "
        "their clock and budget it within their own limits (not reproducible unless those limits "
        "end every search first); an opening's plies are free; with --move-time the smaller wins",
    )
    run.add_argument(
        "--tc-margin",
        type=_number,
        default=1.0,
        metavar="SECONDS",
        help="seconds an agent may overrun its move time, or its clock under --tc, before it loses the "
        "game on time (a hung agent's worker is then killed and replaced; default 1)",
    )
    run.add_argument("--noswap", action="store_true", help="do not swap seats between the two games of a pair")
    run.add_argument(
        "--in-process",
        action="store_true",
        help="play the games in this process, one at a time, for a profiler or a debugger (an agent that "
        "crashes then ends the run; by default even --concurrency 1 plays on a worker process)",
    )
    add_strength_options(run)
    run.add_argument("--out", metavar="DIR", help="run folder (default: arena-runs/<game>-<agents>-<hash of the settings>)")
    run.add_argument("--anchor", metavar="AGENT", help="agent rated 0 (default: mean rating 0)")
    run.add_argument(
        "--plots",
        action="store_true",
        help="after the report, draw the plots (elo.png, scores.png, history.png) into the run folder; "
        "arena report draws them any time",
    )
    run.add_argument("--quiet", action="store_true", help="no progress bar")

    report = commands.add_parser(
        "report",
        help="print the report of a run and draw its plots",
        description="Print the report of a run from its database, then draw its plots (elo.png, scores.png, "
        "history.png) into the run folder.",
    )
    report.add_argument("dir", metavar="DIR", help="run folder")
    report.add_argument("--anchor", metavar="AGENT", help="agent rated 0 (default: mean rating 0)")

    verify = commands.add_parser(
        "verify",
        help="check every stored game of a run",
        description="Check every stored game of a run: each replays through the engine to its stored result, "
        "score and length, belongs to the run's schedule (seats, seeds, opening), its notation matches its "
        "moves, and its checksum holds. Lists every game that fails; exit status 1 if one does.",
    )
    verify.add_argument("dir", metavar="DIR", help="run folder")

    listing = commands.add_parser(
        "list",
        help="games, presets and agents with their parameters",
        description="List the games and agents with their parameters and defaults (NAME: only the games and agents whose name contains it).",
    )
    listing.add_argument("name", nargs="?", metavar="NAME", help="show only the games and agents whose name contains NAME")

    replay = commands.add_parser(
        "replay",
        help="print a stored game move by move",
        description="Print a stored game move by move with the board: game GAME_ID of a run folder, "
        "or a game record file saved by arena play.",
    )
    replay.add_argument("path", metavar="DIR|FILE", help="run folder, or a .json game record")
    replay.add_argument("game_id", type=_integer, nargs="?", metavar="GAME_ID", help="game number in a run folder (0 is the first)")

    export = commands.add_parser(
        "export",
        help="write a run's games as text records",
        description="Write the games of a run as text records: per game, tag lines ([Game \"kalah\"], "
        "[Result \"1-0\"], ...), then one line with all its moves in the game's notation, then a blank "
        "line. The file serves as an openings file (arena run --openings FILE --opening-plies K).",
    )
    export.add_argument("dir", metavar="DIR", help="run folder")
    export.add_argument("--out", metavar="FILE", help="where to write (default DIR/games.txt; - for standard output)")

    from board_arena.arena.terminal import add_play_parser

    add_play_parser(commands)

    serve = commands.add_parser(
        "serve",
        help="play in the browser: a board you click, spectator games, tournament runs live",
        description="Start a local web server with a page where you play any game against an "
        "agent by clicking on the board, watch two agents play, or browse the tournament runs of "
        "--runs, and watch one that arena run is playing. The address (with the token that "
        "opens the page) is printed and opened in a browser when one is available.",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only; never every interface)")
    serve.add_argument("--port", type=_integer, default=0, help="port (default: a free one, printed)")
    serve.add_argument("--runs", default="arena-runs", metavar="DIR", help="folder of tournament runs to show (default arena-runs)")
    serve.add_argument("--no-browser", action="store_true", help="do not open a browser")
    serve.add_argument(
        "--max-move-time", type=_number, default=10.0, metavar="SECONDS",
        help="the longest time per move an agent spec from the page may ask for, and the longest any search runs (default 10)",
    )
    serve.add_argument("--max-table-mb", type=_number, default=64.0, metavar="MB",
                       help="the largest table an agent spec from the page may ask for, in MiB (default 64)")
    serve.add_argument("--max-searches", type=_integer, default=None, metavar="N",
                       help="searches at once, each in a worker process (default: the number of cores, at most 4)")
    serve.add_argument("--max-games", type=_integer, default=200, metavar="N",
                       help="games kept at once; the least recently used go first (default 200)")
    serve.add_argument("--verbose", action="store_true", help="log every request (default: errors only)")
    for name in ("run", "play", "list", "serve"):
        add_plugin_option(commands.choices[name])
    for name in ("run", "report", "export"):
        commands.choices[name].add_argument(
            "--skip-invalid",
            action="store_true",
            help="leave out the stored games that fail verification (see arena verify) instead of refusing the run",
        )
    return parser


def _agent_specs(args: argparse.Namespace) -> list[str]:
    from board_arena.arena.tournament.settings import split_agent_list

    specs = split_agent_list(args.agents or "") + list(args.agent)
    if not specs:
        raise ValueError("no agents: give --agents, e.g. --agents mcts,alphabeta")
    return specs


def _report(run: Run, anchor: str | None, plots: bool) -> None:
    from board_arena.arena.tournament.report import print_report

    print_report(run, anchor, plots=plots)


def _cmd_run(args: argparse.Namespace) -> int:
    from board_arena.arena.strength import strength_options
    from board_arena.arena.tournament.run import run_tournament
    from board_arena.arena.tournament.settings import (
        TournamentSettings,
        parse_param_options,
    )

    if args.cluster is None:
        most = MAX_CONCURRENCY_PER_CORE * (os.cpu_count() or 1)
        if args.concurrency is not None and not 1 <= args.concurrency <= most:
            raise ValueError(
                f"--concurrency must be from 1 to {most} ({MAX_CONCURRENCY_PER_CORE} per core here), not {args.concurrency:,}"
            )
    elif args.concurrency is not None and not 1 <= args.concurrency <= MAX_CLUSTER_WORKERS:
        raise ValueError(f"--concurrency on a cluster must be from 1 to {MAX_CLUSTER_WORKERS:,} workers, not {args.concurrency:,}")
    if args.in_process and (args.cluster is not None or (args.concurrency or 1) != 1):
        raise ValueError("--in-process plays one game at a time in this process: no --cluster, no --concurrency above 1")
    if args.cluster is not None:  # a bad value or a missing Ray: before the agents compile
        from board_arena.arena.tournament.cluster import import_ray, parse_cluster

        parse_cluster(args.cluster)
        import_ray()
    settings = TournamentSettings.create(
        args.game,
        _agent_specs(args),
        game_params=parse_param_options(args.param),
        games=args.games,
        seed=args.seed,
        move_time=args.move_time,
        tc_margin=args.tc_margin,
        time_control=args.tc,
        swap=not args.noswap,
        **strength_options(args),
    )
    if args.anchor is not None and args.anchor not in settings.labels:
        raise ValueError(f"--anchor {args.anchor!r} is not one of the agents: {', '.join(settings.labels)}")
    out_dir = settings.default_out_dir() if args.out is None else args.out
    if not out_dir:
        raise ValueError("--out: give a folder name, not an empty one")
    from board_arena.arena.tournament.store import check_run_folder

    check_run_folder(out_dir, settings)  # before saying where the run goes
    print(f"Run folder: {out_dir}", file=sys.stderr)
    run = run_tournament(
        settings, out_dir, 1 if args.in_process else args.concurrency, progress=not args.quiet, cluster=args.cluster,
        skip_invalid=args.skip_invalid, in_process=args.in_process,
    )
    print()
    _report(run, args.anchor, plots=args.plots)
    if not args.plots:
        print(f"Plots: arena report {shlex.quote(out_dir)} draws them")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from board_arena.arena.tournament.run import load_run

    _report(load_run(args.dir, args.skip_invalid), args.anchor, plots=True)
    return 0


#: ``arena verify``'s exit status when some game fails (2 stays for errors of use).
EXIT_INVALID = 1


def _cmd_verify(args: argparse.Namespace) -> int:
    from board_arena.arena.tournament.verify import verify_run

    settings, count, invalid = verify_run(args.dir, progress=sys.stderr.isatty())
    for game in invalid:
        print(game)
    if invalid:
        print(f"{len(invalid):,} of {count:,} stored games fail verification (of {settings.total_games:,} in the run)")
        return EXIT_INVALID
    print(f"All {count:,} stored games verified (of {settings.total_games:,} in the run): each replays to its stored end, "
          "follows the schedule and the openings, and its checksum holds")
    return 0


#: ``arena list`` lines fit this many columns.
LIST_WIDTH = 100


def _listing(head: str, text: str) -> list[str]:
    """``head`` then ``text`` wrapped to LIST_WIDTH columns, continuation lines indented."""
    import textwrap

    indent = " " * 32
    return textwrap.wrap(text, LIST_WIDTH, initial_indent=f"{head:<31} ", subsequent_indent=indent) or [head]


def _cmd_list(args: argparse.Namespace) -> int:
    from board_arena import agents, engines
    from board_arena.agents.base import format_value

    wanted = (args.name or "").lower()
    games = [name for name in engines.available_games() if wanted in name]
    agent_names = [name for name in agents.available_agents() if wanted in name]
    if not games and not agent_names:
        raise ValueError(
            f"no game or agent name contains {args.name!r}; games: {', '.join(engines.available_games())}; "
            f"agents: {', '.join(agents.available_agents())}"
        )
    lines = []
    if games:
        lines.append("Games (--game NAME[:param=value,...]), parameters with their defaults:")
        for name in games:
            cls = engines.game_class(name)
            preset = cls.PRESETS[name]
            family = f"{cls.family} preset" if name != cls.family else cls.family
            lines += _listing(f"  {name}", f"{cls.summary} [{family}]")
            for p in cls.PARAMS:
                lines += _listing(f"      {p.name}={format_value(preset.get(p.name, p.default))}", f"{p.doc}; {p.allowed()}")
    if agent_names:
        lines += [""] if lines else []
        lines.append("Agents (--agents NAME[:param=value,...]), parameters with their defaults:")
        for name in agent_names:
            agent_cls = agents.agent_class(name)
            hidden = "" if agent_cls.plays_hidden_information else " (perfect-information games)"
            lines += _listing(f"  {name}", f"{agent_cls.summary}{hidden}")
            for p in agent_cls.PARAMS:
                lines += _listing(f"      {p.name}={format_value(p.default)}", f"{p.doc}; {p.allowed()}")
    print("\n".join(lines))
    return 0


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked for (reading the installed distributions' metadata
    costs every command some 30 ms of CPU otherwise)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option_string: str | None = None) -> None:
        print(f"arena (board-arena) {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("board-arena")
    except PackageNotFoundError:
        return "(not installed)"


def _cmd_replay(args: argparse.Namespace) -> int:
    from board_arena import engines
    from board_arena.arena.tournament.movelog import search_note
    from board_arena.arena.tournament.run import load_run

    if os.path.isfile(args.path):
        try:
            with open(args.path, encoding="utf-8") as handle:
                record = engines.GameRecord.from_json(handle.read())
            engines.make(record.game, **record.params)
        except UnicodeDecodeError:
            raise ValueError(f"{args.path} is not a game record (not UTF-8 text)") from None
        except (OSError, ValueError) as error:
            raise ValueError(f"{args.path} is not a game record ({error})") from None
        players = record.metadata.get("players", ["player 0", "player 1"])
        heading = f"{args.path}: {players[0]} (seat 0) vs {players[1]} (seat 1), {record.game}, seed {record.seed}"
        finished = record.metadata.get("finished", True)
        end_reason = record.metadata.get("end_reason") or ("rules" if finished else "stopped before the end")
        searches = record.metadata.get("searches")
    else:
        if args.game_id is None:
            raise ValueError("give the game number after the run folder, e.g. arena replay DIR 0")
        run = load_run(args.path, skip_invalid=True)
        failed = next((g for g in run.invalid if g.id == args.game_id), None)
        if failed is not None:
            raise ValueError(f"{failed} (see arena verify {args.path})")
        record = run.game_record(args.game_id)
        stored = next(g for g in run.games if g.id == args.game_id)
        players = [stored.player0, stored.player1]
        heading = f"Game {args.game_id}: {players[0]} (seat 0) vs {players[1]} (seat 1), {run.settings.game}, start seed {stored.game_seed}"
        end_reason = stored.end_reason
        from board_arena.arena.tournament.openings import opening_length

        opening = opening_length(run.settings, stored)
        if opening:
            heading += f"\nPlies 1-{opening} are the opening (played before the agents took over)"
        searches = run.searches([args.game_id]).get(args.game_id)
    game = engines.make(record.game, **record.params)
    positions = list(record.positions())  # the whole record is checked before anything is printed
    print(heading)
    for ply, (state, move) in enumerate(positions):
        print()
        print(game.render(state))
        if move is not None:
            print(
                f"Move {ply + 1}: {game.player_names[state.current_player]} ({players[state.current_player]}) plays {move}"
                + search_note(searches, ply)
            )
    print()
    print(f"Result: {game.result_text(state)}" if end_reason == "rules" else f"Result: {end_reason}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from board_arena.arena.tournament.export import export_run

    path, count = export_run(args.dir, args.out, args.skip_invalid)
    if path != "-":
        print(f"{count} games written to {path}")
    return 0


#: Bounds of arena serve's limits: a move of at most an hour, a table of at most 64 GiB.
SERVE_LIMITS = {"max_move_time": (0.01, 3600.0), "max_table_mb": (1.0, 65536.0), "max_searches": (1, 256), "max_games": (1, 100_000)}


def _cmd_serve(args: argparse.Namespace) -> int:
    from board_arena.arena.web.server import check_host, serve

    if not 0 <= args.port < 65536:
        raise ValueError(f"--port must be from 0 to 65535, not {args.port}")
    check_host(args.host)
    limits = {"max_move_time": args.max_move_time, "max_table_mb": args.max_table_mb, "max_games": args.max_games,
              "max_searches": max(1, min(4, os.cpu_count() or 1)) if args.max_searches is None else args.max_searches}
    for name, (low, high) in SERVE_LIMITS.items():
        if not low <= limits[name] <= high:
            raise ValueError(f"--{name.replace('_', '-')} must be from {low:g} to {high:g}, not {limits[name]:g}")
    try:
        return serve(args.host, args.port, args.runs, open_browser=not args.no_browser, verbose=args.verbose, **limits)
    except OSError as error:
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from None


_COMMANDS = ("run", "report", "verify", "list", "replay", "export", "play", "serve")
#: Exit status after an interrupt (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130
#: Exit status when the reader of the output went away (128 + SIGPIPE), as for `git log | head`.
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console command: every error a user can cause is one line
    and status 2; an interrupt at any moment (start-up included) is one line and status 130."""
    words = sys.argv[1:] if argv is None else list(argv)
    # The command's name before the parser exists (building it imports numba: Ctrl-C may come then).
    command = f"arena {words[0]}" if words and words[0] in _COMMANDS else "arena"
    # The arena command's own process (not a call from Python): the objects of the imports
    # (numba's, a few hundred thousand) live as long as it does. The cyclic collector, which
    # would go over them again and again and free nothing, is off while they are made, and
    # they are then kept out of its passes, which also keeps it from copying their pages into
    # the forked workers (what gc.freeze is for).
    own_process = argv is None
    if own_process:
        gc.disable()
        # numpy's OpenBLAS starts a thread per core when numpy is imported, and they spin: about
        # 0.1 s of CPU at each start of a command whose linear algebra is a few small matrices
        # (the ratings), with the games in worker processes already one per core. As Ray does
        # for its workers, one thread, unless the user has said otherwise.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        with interrupts_kept():
            try:
                args = _build_parser().parse_args(argv)
            except SystemExit as stop:  # --help, --version, or a usage error (already printed)
                return stop.code if isinstance(stop.code, int) else 0 if stop.code is None else 2
            command = f"arena {args.command}"
            if own_process:
                gc.freeze()
                gc.enable()
            from board_arena.arena.strength import load_agent_plugins
            from board_arena.arena.terminal import cmd_play

            load_agent_plugins(args)

            handlers = {"run": _cmd_run, "report": _cmd_report, "verify": _cmd_verify, "list": _cmd_list, "replay": _cmd_replay,
                        "export": _cmd_export, "play": cmd_play, "serve": _cmd_serve}
            return handlers[args.command](args)
    except ValueError as error:
        print(f"{command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut this short
        interrupt_handled()
        if command == "arena run":
            print("\narena run: interrupted; finished games are stored (run the same command to resume)", file=sys.stderr)
        else:
            print(f"\n{command}: interrupted", file=sys.stderr)
        if not own_process:  # called from Python: its caller's Ctrl-C as it was
            signal.signal(signal.SIGINT, previous)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader (| head) has gone: stop writing, quietly. Point stdout at nothing so that
        # the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
