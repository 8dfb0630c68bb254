"""Round-robin tournaments between agents, with joint Elo ratings, plots and resumable results.

Command line: ``arena run --game mancala --agents mcts,alphabeta`` (see ``arena --help``).
In Python::

    import arena
    settings = arena.TournamentSettings.create("kalah", ["mcts", "alphabeta:depth=4"], games=20)
    run = arena.run_tournament(settings, "arena-runs/demo", concurrency=2)
    run.ratings().elo                 # joint Bradley-Terry Elo, mean 0
    run.records()                     # the games as plain dicts; run.to_dataframe() with pandas
    arena.fit_ratings([("a", "b", 1.0), ("a", "b", 0.5)])   # ratings of any results
"""

from arena.ratings import Ratings, expected_score, fit_ratings
from arena.settings import ScheduledGame, TournamentSettings
from arena.store import GameResult
from arena.tournament import Run, load_run, rating_results, run_tournament

__all__ = [
    "TournamentSettings",
    "ScheduledGame",
    "GameResult",
    "Run",
    "run_tournament",
    "load_run",
    "rating_results",
    "fit_ratings",
    "expected_score",
    "Ratings",
]
