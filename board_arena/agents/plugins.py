"""Agents from outside the package: a Python file or module given by the user (``arena run
--plugin my_agents.py``), and installed packages that declare agents under the entry-point group
``board_arena.agents``.

A plugin registers its agents itself, as the built-in ones do: a subclass of
:class:`agents.Agent` decorated with :func:`agents.register_agent` (see
``experiments/plugins/`` for two examples). An entry point names a module or an object
(``my_package.agents`` or ``my_package.agents:MyAgent``); loading it imports the module, which
registers its agents (an Agent subclass named by the entry point is registered too).

    # pyproject.toml of a package that brings an agent
    [project.entry-points."board_arena.agents"]
    my-agent = "my_package.agents"
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from types import ModuleType
from typing import Iterable

__all__ = ["load_plugin", "load_plugins", "plugin_name", "plugins_defining", "load_entry_points", "ENTRY_POINT_GROUP"]

ENTRY_POINT_GROUP = "board_arena.agents"

_LOADED: dict[str, ModuleType] = {}


def _is_path(name: str) -> bool:
    return name.endswith(".py") or os.sep in name or (os.altsep is not None and os.altsep in name)


def plugin_name(name: str) -> str:
    """The name by which a run keeps a plugin: a file's absolute path, a module's name."""
    return os.path.abspath(name) if _is_path(name) else name


def load_plugin(name: str) -> ModuleType:
    """Imports the plugin ``name`` (a ``.py`` file, or a module importable by name) once per
    process; its agents register themselves. Returns the module.

    Raises:
        ValueError: no such file or module, or the plugin failed while importing (one line:
            the plugin, the exception and its message).
    """
    if name in _LOADED:
        return _LOADED[name]
    try:
        if _is_path(name):
            path = os.path.abspath(name)
            if not os.path.isfile(path):
                raise ValueError(f"plugin {name!r}: no such file")
            # One module name per file (a hash of its path), so two plugins named alike coexist
            # and the same file loaded twice (the parent, then a forked worker) is one module.
            module_name = "board_arena_plugin_" + hashlib.sha1(path.encode()).hexdigest()[:10]
            module = sys.modules.get(module_name)
            if module is None:
                spec = importlib.util.spec_from_file_location(module_name, path)
                if spec is None or spec.loader is None:
                    raise ValueError(f"plugin {name!r}: not a Python file")
                module = importlib.util.module_from_spec(spec)
                sys.modules[module_name] = module  # pickling and dataclasses look modules up here
                try:
                    spec.loader.exec_module(module)
                except BaseException:
                    del sys.modules[module_name]
                    raise
        else:
            try:
                module = importlib.import_module(name)
            except ModuleNotFoundError as error:
                if error.name and (name == error.name or name.startswith(error.name + ".")):
                    raise ValueError(f"plugin {name!r}: no such module (give a .py file or an importable module)") from None
                raise
    except ValueError:
        raise
    except (Exception, SystemExit) as error:  # a plugin's own failure: one line, not a traceback
        raise ValueError(f"plugin {name!r} failed to load: {type(error).__name__}: {error}") from None
    _LOADED[name] = module
    return module


def plugins_defining(agent_objects: Iterable[object]) -> list[str]:
    """The plugins loaded in this process (by :func:`plugin_name`) that define the classes of
    ``agent_objects``: a run records them so that its other processes load them too."""
    modules = {type(agent).__module__ for agent in agent_objects}
    return [plugin_name(name) for name, module in _LOADED.items() if module.__name__ in modules]


def load_plugins(names: Iterable[str]) -> None:
    """:func:`load_plugin` for each name, in order."""
    for name in names:
        load_plugin(name)


_ENTRY_POINTS_LOADED = False


def load_entry_points() -> list[str]:
    """Loads every installed package's ``board_arena.agents`` entry points (once per process);
    returns their names.

    Raises:
        ValueError: an entry point failed to load (its name and the error, one line).
    """
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED:
        return []
    _ENTRY_POINTS_LOADED = True
    from importlib.metadata import entry_points

    from board_arena.agents.base import Agent, register_agent

    names = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = point.load()
        except Exception as error:
            raise ValueError(
                f"entry point {point.name!r} ({point.value}) of group {ENTRY_POINT_GROUP} failed to load: "
                f"{type(error).__name__}: {error}"
            ) from None
        if isinstance(loaded, type) and issubclass(loaded, Agent):
            register_agent(loaded)
        names.append(point.name)
    return names
