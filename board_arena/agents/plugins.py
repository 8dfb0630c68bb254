"""Agents and games from outside the package: a Python file, package folder or module given by
the user (``arena run --plugin my_agents.py``). Installed packages declare agents under the
entry-point group ``board_arena.agents``, loaded by the agents' registry
(:func:`agents.base.load_agent_entry_points`), and games under ``board_arena.games``, loaded by
:mod:`engines.registry`.

A plugin registers what it brings itself, as the built-in ones do: a subclass of
:class:`agents.Agent` decorated with :func:`agents.register_agent` (see
``experiments/plugins/`` for two examples), a subclass of :class:`engines.Game` registered with
:func:`engines.register_game` (``tests/games/tictactoe``). An entry point names a module or an object
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

__all__ = ["load_plugin", "load_plugins", "plugin_name", "plugins_defining", "loaded_plugins", "restore_loaded_plugins"]

_LOADED: dict[str, ModuleType] = {}


def _is_path(name: str) -> bool:
    """Whether the plugin ``name`` is a file or folder (a folder here is one even without a slash)."""
    return name.endswith(".py") or os.sep in name or (os.altsep is not None and os.altsep in name) or os.path.isdir(name)


def _name_on_path(path: str) -> str | None:
    """The name under which the module file ``path`` (a ``.py`` file or a package's
    ``__init__.py``) imports from ``sys.path``, if it does.

    A plugin importable by name is imported by that name, so that it is one module however it
    is named (imported by a test, then given as ``--plugin``, its registrations are not made
    twice) and in every process alike (numba's cached machine code names the modules of the
    functions it calls, and imports them by that name).
    """
    stem = os.path.dirname(path) if os.path.basename(path) == "__init__.py" else os.path.splitext(path)[0]
    for entry in sys.path:
        try:
            relative = os.path.relpath(stem, os.path.abspath(entry or os.curdir))
        except ValueError:  # another drive
            continue
        parts = relative.split(os.sep)
        if not all(part.isidentifier() for part in parts):
            continue
        name = ".".join(parts)
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.origin and os.path.abspath(spec.origin) == path:
            return name
    return None


def plugin_name(name: str) -> str:
    """The name by which a run keeps a plugin: a file's absolute path, a module's name."""
    return os.path.abspath(name) if _is_path(name) else name


def load_plugin(name: str) -> ModuleType:
    """Imports the plugin ``name`` (a ``.py`` file, a package's folder, or a module importable by
    name) once per process; its agents and games register themselves. Returns the module.

    Raises:
        ValueError: no such file or module, or the plugin failed while importing (one line:
            the plugin, the exception and its message).
    """
    if name in _LOADED:
        return _LOADED[name]
    try:
        if _is_path(name):
            path = os.path.abspath(name)
            if os.path.isdir(path):  # a package: its __init__.py, with its modules beside it
                path = os.path.join(path, "__init__.py")
                if not os.path.isfile(path):
                    raise ValueError(f"plugin {name!r}: a folder without __init__.py")
            elif not os.path.isfile(path):
                raise ValueError(f"plugin {name!r}: no such file")
            on_path = _name_on_path(path)
            # A file that sys.path does not reach gets a module name of its own (a hash of its
            # path), so two plugins named alike coexist and the same file loaded twice (the
            # parent, then a forked worker) is one module.
            module_name = on_path or "board_arena_plugin_" + hashlib.sha1(path.encode()).hexdigest()[:10]
            module = sys.modules.get(module_name)
            if module is None and on_path is not None:
                module = importlib.import_module(on_path)
            elif module is None:
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


def plugins_defining(objects: Iterable[object]) -> list[str]:
    """The plugins loaded in this process (by :func:`plugin_name`) that define the classes of
    ``objects`` (agents, a game): a run records them so that its other processes load them too."""
    modules = {type(thing).__module__ for thing in objects}

    def defines(plugin: ModuleType) -> bool:  # in the plugin's module, or a module of its package
        return any(m == plugin.__name__ or m.startswith(plugin.__name__ + ".") for m in modules)

    return [plugin_name(name) for name, module in _LOADED.items() if defines(module)]


def load_plugins(names: Iterable[str]) -> None:
    """:func:`load_plugin` for each name, in order."""
    for name in names:
        load_plugin(name)


def loaded_plugins() -> dict[str, ModuleType]:
    """The plugins loaded in this process, by the name each was loaded with (a copy: what
    :func:`restore_loaded_plugins` takes)."""
    return dict(_LOADED)


def restore_loaded_plugins(saved: dict[str, ModuleType], unimport: bool = False) -> None:
    """Forgets the plugins loaded since ``saved`` was taken (by :func:`loaded_plugins`), so that
    loading one again imports it again (with ``unimport``: its module also leaves
    ``sys.modules``). For tests and tools that load plugins for a while."""
    for name, module in _LOADED.items():
        if unimport and name not in saved:
            sys.modules.pop(module.__name__, None)
    _LOADED.clear()
    _LOADED.update(saved)
