"""Agent parameters: a validated parameter (:class:`engines.Param`) that also declares what its
value spends or touches beyond the move the agent chooses, so that a program that runs agents for
others (``arena serve``) decides what a request may set from the declaration, never from the
parameter's name.

    >>> AgentParam("iterations", 1000, "simulations per move", low=1, high=10**9, effect="work").effect
    'work'
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from board_arena.engines.params import Param

__all__ = ["AgentParam", "PARAM_EFFECTS", "agent_param"]

#: What an agent parameter may declare as its ``effect``: ``"setting"`` shapes the search and
#: costs nothing by itself (an exploration constant); ``"work"`` is an amount of search (depth,
#: positions, simulations, worlds, an exact solve) that a clock may bound; ``"seconds"`` is time
#: per move; ``"memory_mb"`` is memory allocated, in MiB; ``"file"`` names a file to read;
#: ``"database"`` builds or loads a database on disk.
PARAM_EFFECTS = ("setting", "work", "seconds", "memory_mb", "file", "database")


@dataclass(frozen=True)
class AgentParam(Param):
    """A parameter of an agent, with ``effect``: what its value spends or touches (one of
    :data:`PARAM_EFFECTS`). ``arena serve`` refuses ``file`` and ``database`` parameters from a
    page, caps ``seconds`` and ``memory_mb`` ones, and takes the default of a parameter that
    declares none (``effect=None``).

    Raises:
        ValueError: ``effect`` is not one of :data:`PARAM_EFFECTS`.
    """

    effect: str | None = None

    def __post_init__(self) -> None:
        if self.effect is not None and self.effect not in PARAM_EFFECTS:
            raise ValueError(f"parameter {self.name}: effect {self.effect!r} is not one of {', '.join(PARAM_EFFECTS)}")


def agent_param(param: Param) -> AgentParam:
    """``param`` as an agent parameter: itself if it is one, else the same parameter declaring no
    effect (an agent of a plugin may list plain :class:`engines.Param` values)."""
    if isinstance(param, AgentParam):
        return param
    if not isinstance(param, Param):
        raise TypeError(f"an agent's PARAMS hold agents.AgentParam values, not {type(param).__name__}")
    return AgentParam(**{f.name: getattr(param, f.name) for f in fields(Param)})
