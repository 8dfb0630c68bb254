"""Fixtures shared by the test modules."""

import sys

import pytest


@pytest.fixture
def forget_plugins():
    """The plugins a test loads leave the registry as it was (other tests list the built-in
    agents)."""
    from board_arena.agents import base, plugins

    registry, loaded = dict(base._AGENTS), dict(plugins._LOADED)
    yield
    base._AGENTS.clear()
    base._AGENTS.update(registry)
    plugins._LOADED.clear()
    plugins._LOADED.update(loaded)
    for name in [m for m in sys.modules if m.startswith("board_arena_plugin_")]:
        del sys.modules[name]
