"""Round-robin tournaments between agents, with joint Elo ratings, plots and resumable results.

Command line: ``arena run --game mancala --agents mcts,alphabeta`` (see ``arena --help``).
In Python::

    import arena
    settings = arena.TournamentSettings.create("kalah", ["mcts", "alphabeta:depth=4"], games=20)
    run = arena.run_tournament(settings, "arena-runs/demo", concurrency=2)
    run.ratings().elo                 # joint Bradley-Terry Elo, mean 0
    run.records()                     # the games as plain dicts; run.to_dataframe() with pandas
    run.moves()                       # every ply with its search; run.moves_dataframe() with pandas
    print(run.write_report())         # the report and plots of `arena report`
    arena.fit_ratings([("a", "b", 1.0), ("a", "b", 0.5)])   # ratings of any results
"""

# The names below are imported on first use (PEP 562), so that the ``arena`` command starts with
# the standard library only and handles an interrupt during the heavy imports (numba) itself.
_HOMES = {
    "TournamentSettings": "arena.settings",
    "ScheduledGame": "arena.settings",
    "GameResult": "arena.store",
    "Run": "arena.tournament",
    "run_tournament": "arena.tournament",
    "load_run": "arena.tournament",
    "rating_results": "arena.tournament",
    "fit_ratings": "arena.ratings",
    "expected_score": "arena.ratings",
    "Ratings": "arena.ratings",
}
__all__ = list(_HOMES)


def __getattr__(name):
    if name not in _HOMES:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + __all__)
