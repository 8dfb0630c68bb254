"""One registry of games: ``make(name, **params)``, ``available_games()`` and ``register_game``.

Every preset of every registered game is a name here (``mancala``, ``kalah``, ...). The built-in
games are registered when :mod:`board_arena.engines` is imported. A game from outside the package
registers its ``Game`` subclass with :func:`register_game`, from a ``--plugin`` file or package,
or from an installed package that declares it under the entry-point group ``board_arena.games``
(loaded at the first lookup of a game name)::

    # pyproject.toml of a package that brings a game
    [project.entry-points."board_arena.games"]
    my-game = "my_package.my_game"          # a module that calls register_game, or
    my-game = "my_package.my_game:MyGame"   # the Game subclass itself

This module sits below the Python face of the games (:mod:`engines.game` replays records through
:func:`make`), so it knows a game class only by what it provides.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable

from board_arena.engines import contract
from board_arena.engines.errors import VariantError, shown

if TYPE_CHECKING:
    from board_arena.engines.game import Game

__all__ = [
    "make",
    "available_games",
    "game_class",
    "game_classes",
    "register_game",
    "on_game_registered",
    "load_game_entry_points",
    "ENTRY_POINT_GROUP",
]

#: The entry-point group under which installed packages declare games.
ENTRY_POINT_GROUP = "board_arena.games"

_CLASSES: list[type[Game]] = []  # in registration order: the order of available_games()
_PRESETS: dict[str, type[Game]] = {}
_LISTENERS: list[Callable[[type[Game]], None]] = []
_ENTRY_POINTS_LOADED = False


def register_game(cls: type[Game]) -> type[Game]:
    """Makes every preset of a ``Game`` subclass a game name of :func:`make` (and of the arena,
    the browser, the environments), and registers its kernel module with the compiled contract.
    Usable as a class decorator; registering the same class again does nothing.

    Args:
        cls: a subclass of :class:`engines.Game` with ``family``, ``PRESETS``, ``PARAMS``,
            ``kernels`` and the methods the Python face leaves to each game.

    Returns:
        ``cls``.

    Raises:
        TypeError: ``cls`` is not a complete ``Game`` subclass, or its kernel module lacks a
            member of the contract or shares another game's state type (the message says which).
        ValueError: its family or one of its preset names is another game's already.

    Example:
        >>> from board_arena import engines
        >>> engines.register_game(engines.game_class("kalah"))  # already registered: nothing happens
        <class 'board_arena.engines.mancala.Mancala'>
    """
    if cls in _CLASSES:
        return cls
    check = getattr(cls, "_check_definition", None)
    if not isinstance(cls, type) or check is None:
        raise TypeError(f"register_game takes a subclass of engines.Game, not {shown(cls)}")
    check()
    for other in _CLASSES:
        if other.family == cls.family:
            raise ValueError(f"the game family {cls.family!r} of {_qualified(cls)} is {_qualified(other)}'s already")
    for preset in cls.PRESETS:
        if preset in _PRESETS:
            raise ValueError(f"the game name {preset!r} of {_qualified(cls)} is {_qualified(_PRESETS[preset])}'s already")
    contract.register(cls.kernels)
    _CLASSES.append(cls)
    _PRESETS.update(dict.fromkeys(cls.PRESETS, cls))
    for listener in _LISTENERS:
        listener(cls)
    return cls


def on_game_registered(callback: Callable[[type[Game]], None]) -> None:
    """Calls ``callback(cls)`` for every game class registered from now on (the Gymnasium
    environments register their ids this way for games that arrive after their import)."""
    _LISTENERS.append(callback)


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def load_game_entry_points() -> list[str]:
    """Loads the games that installed packages declare under ``board_arena.games`` (once per
    process; a listing of the games does it first, and so does the lookup of a name not known
    yet); returns the entry points' names.

    An entry point that fails to load is skipped with a one-line warning naming it: a broken
    package must not take the other games down.
    """
    global _ENTRY_POINTS_LOADED
    if _ENTRY_POINTS_LOADED:
        return []
    _ENTRY_POINTS_LOADED = True  # before loading: a loaded module registers through this module
    from importlib.metadata import entry_points

    names = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = point.load()
            if isinstance(loaded, type):
                register_game(loaded)
        except Exception as error:
            warnings.warn(
                f"entry point {point.name!r} ({point.value}) of group {ENTRY_POINT_GROUP} failed to load: "
                f"{type(error).__name__}: {error}",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        names.append(point.name)
    return names


def available_games() -> list[str]:
    """The names :func:`make` accepts, one per preset, in registration order (the built-in
    games first)."""
    load_game_entry_points()
    return list(_PRESETS)


def game_classes() -> list[type[Game]]:
    """Every registered ``Game`` subclass (one per family), in registration order."""
    load_game_entry_points()
    return list(_CLASSES)


def game_class(name: str) -> type[Game]:
    """The ``Game`` subclass behind a preset name (its ``PARAMS`` describe the parameters).

    Raises:
        VariantError: no game has that name (the message lists the names).
    """
    if not (isinstance(name, str) and name in _PRESETS):  # a known name needs no scan of the installed packages
        load_game_entry_points()
    try:
        return _PRESETS[name]
    except (KeyError, TypeError):
        raise VariantError(f"unknown game {shown(name)}; available: {', '.join(_PRESETS)}") from None


def make(name: str, **params: Any) -> Game:
    """The game ``name`` (a preset) with variant parameters changed by ``params``.

    Raises:
        VariantError: unknown game, unknown parameter or a value out of range (a ValueError).

    Example:
        >>> from board_arena import engines
        >>> game = engines.make("kalah", pits=4, seeds=3)
        >>> game.params["pits"], game.params["capture"]
        (4, 'kalah')
    """
    return game_class(name)(name, **params)
