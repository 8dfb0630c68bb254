"""``arena run``: play a round robin between agents, resumably, and print its report."""

from __future__ import annotations

import argparse
import os
import shlex
import sys

from board_arena.arena.cli.options import (
    EXAMPLES,
    add_engines_option,
    add_plugin_option,
    add_skip_invalid_option,
    add_strength_options,
    integer,
    number,
    strength_options,
)

__all__ = ["add_parser", "handle"]

#: Worker processes per core at most: beyond it they only compete for the cores.
MAX_CONCURRENCY_PER_CORE = 4
#: Ray workers at most (a typo must not ask a cluster for a million actors).
MAX_CLUSTER_WORKERS = 10_000


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``run`` command and its options."""
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
    run.add_argument("--games", type=integer, default=100, help="games per pairing (default 100; even unless --noswap)")
    run.add_argument(
        "--concurrency",
        type=integer,
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
    run.add_argument("--seed", type=integer, default=0, help="seed of every start position and agent (default 0)")
    run.add_argument(
        "--move-time",
        type=number,
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
        type=number,
        default=1.0,
        metavar="SECONDS",
        help="seconds an agent may overrun its move time, or its clock under --tc, before it loses the "
        "game on time (a hung agent's worker is then killed and replaced; default 1)",
    )
    run.add_argument(
        "--adjudicate",
        metavar="RULE,...",
        help="end games whose result is clear (off by default), as cutechess and fastchess: resign=V:N "
        "(one side's last N values all <= -V and the other's all >= V: a loss), draw=M:V:N (after M plies, "
        "both sides' last N values within V of 0: a draw), perfect[=SIZE] (a position the game's endgame "
        "database holds, up to SIZE: its perfect-play result; Kalah); e.g. resign=0.9:4,draw=40:0.05:8,perfect",
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
    add_plugin_option(run)
    add_engines_option(run)
    run.add_argument(
        "--ugi-log",
        action="store_true",
        help="every engine program writes each game's protocol log into the run folder's ugi-logs (without: "
        "the engines whose definition says log = true); not with --cluster",
    )
    add_skip_invalid_option(run)
    return run


def _agent_specs(args: argparse.Namespace) -> list[str]:
    from board_arena.arena.tournament.settings import split_agent_list

    specs = split_agent_list(args.agents or "") + list(args.agent)
    if not specs:
        raise ValueError("no agents: give --agents, e.g. --agents mcts,alphabeta")
    return specs


def handle(args: argparse.Namespace) -> int:
    """Plays (or resumes) the run, then prints its report (errors raise ValueError)."""
    from board_arena.arena.tournament.report import print_report
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
        adjudication=args.adjudicate,
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
        skip_invalid=args.skip_invalid, in_process=args.in_process, engine_logs=args.ugi_log,
    )
    print()
    print_report(run, args.anchor, plots=args.plots)
    if not args.plots:
        print(f"Plots: arena report {shlex.quote(out_dir)} draws them")
    return 0
