"""``arena check-game``: the conformance suite (:mod:`engines.conformance`) on one game, for the
author of a game plugin as much as for the built-in games."""

from __future__ import annotations

import argparse

from board_arena.arena.cli.options import add_plugin_option

__all__ = ["add_parser", "handle", "EXIT_NONCONFORMING"]

#: ``arena check-game``'s exit status when a check fails (2 stays for errors of use).
EXIT_NONCONFORMING = 1


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``check-game`` command and its options."""
    check = commands.add_parser(
        "check-game",
        help="check that a game keeps the contract every agent relies on",
        description="Play random games of a game through its Python face and its kernels and check the "
        "contract at every position (legal moves, notation, position strings, illegal moves refused, copies, hashes, "
        "actions, observations, views, outcomes, records, seeds, random moves and playouts, and a "
        "compiled run against a pure-Python one). GAME alone checks every preset of its family; "
        "GAME:param=value,... one variant. Lists each failure by the check that found it; exit status 1 if one does.",
    )
    check.add_argument("game", metavar="GAME", help="a registered game or preset, with parameters if wanted (kalah:pits=4)")
    check.add_argument("--quick", action="store_true", help="fewer random games per variant, and no pure-Python run")
    add_plugin_option(check)
    return check


def handle(args: argparse.Namespace) -> int:
    """Prints each variant's failures, or that it conforms; status ``EXIT_NONCONFORMING`` if a
    check fails."""
    from board_arena.arena.tournament.settings import parse_game_spec
    from board_arena.engines import game_class, make
    from board_arena.engines.conformance import check_variant, variant_label

    name, raw = parse_game_spec(args.game)
    variants = [make(name, **raw)] if raw else [make(preset) for preset in game_class(name).PRESETS]
    failing = 0
    for game in variants:
        failures = check_variant(game, quick=args.quick)
        for failure in failures:
            print(failure, flush=True)
        if not failures:
            print(f"{variant_label(game)}: conforms", flush=True)
        failing += bool(failures)
    if failing:
        print(f"{failing} of {len(variants)} variants of {args.game} fail the conformance checks")
        return EXIT_NONCONFORMING
    return 0
