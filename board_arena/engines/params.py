"""Validated parameters: what a game variant (``engines.make("kalah", pits=4)``) and an agent
(``mcts:iterations=2000``) take, each with its default, its allowed values and one line of
description, so that every listing and every error message says the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from board_arena.engines.errors import VariantError, shown

__all__ = ["Param"]


@dataclass(frozen=True)
class Param:
    """A validated parameter of a game variant or an agent: name, default, allowed values and a
    one-line description.

    The kind (bool, int or str) is the type of ``default`` unless ``kind`` is given; ints are
    checked against ``low``/``high``, strings against ``choices``; ``None`` is allowed only when
    ``allow_none`` is set. ``aliases`` are ``(value, choice)`` pairs accepted for a choice (so that a
    parameter of several readings can take ``True``/``False`` for two of them).

    Agents' parameters are :class:`agents.AgentParam`, which also declare what their value spends
    or touches.
    """

    name: str
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | None = None
    allow_none: bool = False
    kind: type | None = None
    aliases: tuple[tuple[Any, str], ...] = ()

    @property
    def type(self) -> type:
        return self.kind or type(self.default)

    def allowed(self) -> str:
        """The allowed values, as written in error messages and listings."""
        if self.type is bool:
            text = "true or false"
        elif self.choices is not None:
            text = " or ".join(repr(c) for c in self.choices)
        elif self.type is int:
            text = f"an integer from {self.low} to {self.high}"
        elif self.type is float:
            text = f"a number from {self.low:g} to {self.high:g}"
        else:
            text = f"a {self.type.__name__}"
        return text + (" or none" if self.allow_none else "")

    def validate(self, game: str, value: Any) -> Any:
        """Returns ``value`` converted to the parameter's kind, or raises :class:`VariantError`.

        Strings are accepted for every kind (as typed on a command line: ``pits=5``,
        ``turning_jumps=true``, ``no_shot_draw_plies=none``).
        """
        value = self._resolve_alias(value)
        if isinstance(value, str) and self.type is not str:
            value = self._from_text(game, value)
        if value is None:
            if self.allow_none:
                return None
            raise VariantError(f"{game}: {self.name}=None is not allowed; allowed: {self.allowed()}")
        kind = self.type
        if kind is bool:
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
        elif kind is int:
            if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
                value = int(value)
                if (self.low is None or value >= self.low) and (self.high is None or value <= self.high):
                    return value
                raise VariantError(
                    f"{game}: {self.name}={value} is out of range; allowed: {self.allowed()}"
                )
        elif kind is float:
            if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
                value = float(value)
                if (self.low is None or value >= self.low) and (self.high is None or value <= self.high):
                    return value
                raise VariantError(
                    f"{game}: {self.name}={value:g} is out of range; allowed: {self.allowed()}"
                )
        elif isinstance(value, kind):
            if self.choices is None or value in self.choices:
                return value
            raise VariantError(f"{game}: {self.name}={shown(value)} is not allowed; allowed: {self.allowed()}")
        raise VariantError(f"{game}: {self.name}={shown(value)} has the wrong type; allowed: {self.allowed()}")

    def _resolve_alias(self, value: Any) -> Any:
        for alias, choice in self.aliases:
            if isinstance(alias, bool):
                if isinstance(value, (bool, np.bool_)) and bool(value) == alias:
                    return choice
                if isinstance(value, str) and value.strip().lower() == str(alias).lower():
                    return choice
            elif isinstance(value, str) and value.strip().lower() == alias:
                return choice
        return value

    def _from_text(self, game: str, text: str) -> Any:
        low = text.strip().lower()
        if low in ("none", "null", "off") and self.allow_none:
            return None
        if self.type is bool:
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
        elif self.type in (int, float):
            try:
                return self.type(low)
            except ValueError:
                pass
        raise VariantError(f"{game}: {self.name}={shown(text)} is not valid; allowed: {self.allowed()}")
