"""Fixtures shared by the test modules. The whole suite runs with tic-tac-toe registered beside
the built-in games: a game written outside the package (tests/games/tictactoe) that every test
over "every game" then covers."""

import pytest

import tests.games.tictactoe  # noqa: F401  (registers the game)

# Plugins that tests load on purpose (tests/plugins: agents that crash, hang, raise): never
# imported by the doctest collection, which would register them for the whole suite.
collect_ignore = ["plugins"]


@pytest.fixture(autouse=True)
def registries_restored():
    """Every test leaves the agent and engine registries as it found them: what a test registers
    (a plugin's agents, an engines file's engines) would otherwise show in other tests' listings."""
    from board_arena.agents import base
    from board_arena.ugi import host

    agents, engines = base.agent_registry(), host.engine_registry()
    yield
    base.restore_agent_registry(agents)
    host.restore_engine_registry(engines)


@pytest.fixture
def forget_plugins():
    """The plugins a test loads leave the registry as it was (other tests list the built-in
    agents); the next load imports them afresh."""
    from board_arena.agents import base, plugins

    registry, loaded = base.agent_registry(), plugins.loaded_plugins()
    yield
    base.restore_agent_registry(registry)
    plugins.restore_loaded_plugins(loaded, unimport=True)
