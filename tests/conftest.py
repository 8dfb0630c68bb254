"""Fixtures shared by the test modules. The whole suite runs with tic-tac-toe registered beside
the built-in games: a game written outside the package (tests/games/tictactoe) that every test
over "every game" then covers."""

import pytest

import tests.games.tictactoe  # noqa: F401  (registers the game)

# Plugins that tests load on purpose (tests/plugins: agents that crash, hang, raise): never
# imported by the doctest collection, which would register them for the whole suite.
collect_ignore = ["plugins"]


@pytest.fixture
def forget_plugins():
    """The plugins a test loads leave the registry as it was (other tests list the built-in
    agents); the next load imports them afresh."""
    import sys

    from board_arena.agents import base, plugins

    registry, loaded = dict(base._AGENTS), dict(plugins._LOADED)
    yield
    base._AGENTS.clear()
    base._AGENTS.update(registry)
    for name, module in plugins._LOADED.items():
        if name not in loaded:
            sys.modules.pop(module.__name__, None)
    plugins._LOADED.clear()
    plugins._LOADED.update(loaded)
