"""Round-robin tournaments between agents, with joint Elo ratings, plots and resumable results.

Command line: ``arena run --game mancala --agents mcts,alphabeta`` (see ``arena --help``).
In Python::

    from board_arena import arena
    settings = arena.TournamentSettings.create("kalah", ["mcts", "alphabeta:depth=4"], games=20)
    run = arena.run_tournament(settings, "arena-runs/demo", concurrency=2)
    run.ratings().elo["mcts"]         # joint Bradley-Terry Elo against the mean, by agent name
    run.records()                     # the games as plain dicts; run.to_dataframe() with pandas
    run.moves()                       # every ply with its search; run.moves_dataframe() with pandas
    print(run.write_report())         # the report and plots of `arena report`
    arena.fit_ratings([("a", "b", 1.0), ("a", "b", 0.5)])   # ratings of any results

The parts:

- :mod:`.tournament`: the tournament core (settings and schedule, openings, clocks, the game
  player and its worker pools, storage and verification, reports, plots, export, live games);
- :mod:`.statistics`: joint ratings and the SPRT, over results alone;
- :mod:`.cli`: the ``arena`` command, one module per command;
- :mod:`.terminal`: a person against an agent in the terminal (``arena play``);
- :mod:`.web`: the browser board and the run browser (``arena serve``).
"""

from typing import Any

# The names below are imported on first use (PEP 562), so that the ``arena`` command starts with
# the standard library only and handles an interrupt during the heavy imports (numba) itself.
_HOMES = {
    "TournamentSettings": "board_arena.arena.tournament.settings",
    "ScheduledGame": "board_arena.arena.tournament.settings",
    "GameResult": "board_arena.arena.tournament.store",
    "Run": "board_arena.arena.tournament.run",
    "run_tournament": "board_arena.arena.tournament.run",
    "load_run": "board_arena.arena.tournament.run",
    "rating_results": "board_arena.arena.tournament.run",
    "make_pool": "board_arena.arena.tournament.run",
    "WorkerPool": "board_arena.arena.tournament.pool",
    "Openings": "board_arena.arena.tournament.openings",
    "Adjudication": "board_arena.arena.tournament.adjudication",
    "fit_ratings": "board_arena.arena.statistics.ratings",
    "expected_score": "board_arena.arena.statistics.ratings",
    "Ratings": "board_arena.arena.statistics.ratings",
}
__all__ = list(_HOMES)


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
