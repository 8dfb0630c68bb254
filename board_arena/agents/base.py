"""What every agent shares: the ``Agent`` interface, search budgets, what a search reports, the
spec syntax (``name`` or ``name:key=value,...``) and the one registry of agents."""

from __future__ import annotations

import secrets
import sys
import time
from dataclasses import dataclass, fields, replace
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np
from numba.core import event as numba_event

from board_arena.agents.params import AgentParam, agent_param
from board_arena.engines import Game, State, shown
from board_arena.kernels import caching_disabled, rng_from_seed

__all__ = [
    "Agent",
    "Limit",
    "SearchInfo",
    "register_agent",
    "make_agent",
    "available_agents",
    "agent_class",
    "parse_spec",
    "load_agent_entry_points",
    "agent_registry",
    "restore_agent_registry",
    "ENTRY_POINT_GROUP",
]


@dataclass(frozen=True)
class Limit:
    """A search budget (after python-chess's ``chess.engine.Limit``): the search stops at the first
    limit reached. ``time`` in seconds; ``depth`` in plies; ``nodes`` positions visited (alpha-beta,
    and per world in PIMC); ``iterations`` simulations (MCTS, ISMCTS) or sampled worlds (PIMC).
    ``None`` means no limit. Each agent uses the limits it knows: ``minimax`` (the plain reference)
    only its depth, ``random`` and ``greedy`` none.

    Under a game clock (the arena's ``--tc``) the limit also carries the mover's clock, as a
    chess GUI's ``go wtime winc movestogo`` does: ``remaining`` seconds on it now, the
    ``increment`` added after each move, and ``moves_to_go`` before the clock is refilled (None:
    no refill, the rest of the game is on it), and ``opponent_remaining`` the other side's clock
    (what an engine program is told beside its own, see :mod:`board_arena.ugi.host`). :meth:`Agent.search` turns the clock into a
    ``time`` for this move (:meth:`Agent.time_budget`), so that every agent that reads ``time``
    budgets its clock. None when there is no clock.

    Depth, node and iteration budgets are reproducible: the same seed gives the same move on any
    machine. A time budget is not: how far a search gets depends on the machine and its load.
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    iterations: int | None = None
    remaining: float | None = None
    increment: float | None = None
    moves_to_go: int | None = None
    opponent_remaining: float | None = None


@dataclass
class SearchInfo:
    """What an agent did for its last move.

    ``value`` is the search's estimate for the player who moved, in [-1, 1] (1: a win); ``exact``
    is True when that value is a proven game result. Fields an agent does not use stay None.
    """

    move: int
    value: float | None = None
    exact: bool = False
    depth: int | None = None
    nodes: int | None = None
    simulations: int | None = None
    seconds: float = 0.0
    #: An exact solver's final margin for the player who moved (Kalah: their store minus the
    #: opponent's at the end under perfect play); None when not solved or the game has no margin.
    margin: int | None = None

    def summary(self) -> str:
        """One line for people, e.g. ``depth 9, 812,345 nodes, value +0.12, 0.50 s``."""
        parts = []
        if self.depth is not None:
            parts.append(f"depth {self.depth}")
        if self.nodes is not None:
            parts.append(f"{self.nodes:,} nodes")
        if self.simulations is not None:
            parts.append(f"{self.simulations:,} simulations")
        if self.value is not None:
            if self.exact:
                parts.append({1: "proven win", 0: "proven draw", -1: "proven loss"}[round(self.value)])
                if self.margin is not None and self.margin != 0:
                    parts[-1] += f" by {abs(self.margin)}"
            else:
                parts.append(f"value {self.value:+.2f}")
        parts.append(f"{self.seconds:.2f} s")
        return ", ".join(parts)


class Agent:
    """A player: ``select_move(state)`` returns a legal move id of ``state``.

    Subclasses set ``name``, ``summary`` and ``PARAMS`` and implement ``_select(state, limit)``.
    Make agents with :func:`make_agent` from a spec string. Every random choice of an agent
    draws from its own generator, seeded by ``seed`` (a fresh seed, kept in ``agent.seed``, when
    none is given): the same seed plays the same moves (under a reproducible budget, see
    :class:`Limit`). An agent is reused from game to game with :meth:`reset`, which makes it
    play as a fresh agent of that seed would; a subclass that keeps anything between moves (a
    table, a tree, a generator of its own) forgets it in its ``reset``.
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    PARAMS: ClassVar[tuple[AgentParam, ...]] = ()
    #: True for agents that play hidden-information games from a player's view.
    plays_hidden_information: ClassVar[bool] = False
    #: True for a reference that is given the whole state even where the rules hide part of it.
    sees_everything: ClassVar[bool] = False
    #: The seed of the generator (set by :meth:`reset`) and the generator, ``uint64[1]``.
    seed: int
    rng: np.ndarray

    def __init__(self, seed: int | None = None, **params: Any):
        by_name = {p.name: p for p in self.PARAMS}
        unknown = [k for k in params if k not in by_name]
        if unknown:
            listed = ", ".join(by_name) or "none"
            raise ValueError(f"{self.name} has no parameter {shown(unknown[0])}; parameters: {listed}")
        values = {p.name: p.default for p in self.PARAMS}
        for key, value in params.items():
            values[key] = by_name[key].validate(self.name, value)
        self.params = MappingProxyType(values)
        self._check_params()
        self.last_search: SearchInfo | None = None
        #: True once a search has run since the last reset (tables may hold entries).
        self._searched = False
        # No seed: a fresh one, kept in ``self.seed`` so that the agent's play can be replayed.
        # A fresh agent is a reset one: reusing an agent cannot differ from making another.
        self.reset(secrets.randbits(63) if seed is None else seed)

    def _check_params(self) -> None:
        """Cross-parameter checks; raise ValueError."""

    @property
    def spec(self) -> str:
        """The spec string that makes this agent (parameters that differ from the defaults)."""
        changed = [
            f"{p.name}={format_value(self.params[p.name])}"
            for p in self.PARAMS
            if self.params[p.name] != p.default
        ]
        return self.name + (":" + ",".join(changed) if changed else "")

    def __repr__(self) -> str:
        return f"make_agent({self.spec!r}, seed={self.seed})"

    @property
    def limit(self) -> Limit:
        """The budget given by the agent's parameters (``time``, ``depth``, ``nodes``, ``iterations``)."""
        return Limit(**{f.name: self.params.get(f.name) for f in fields(Limit) if f.name not in _CLOCK_FIELDS})

    #: Moves a game is assumed to last beyond this one when the clock says nothing (no
    #: ``moves_to_go``): the classic ``remaining / 30`` of engines of the cutechess era.
    MOVES_HORIZON: ClassVar[int] = 30
    #: The share of the increment spent on a move (the rest builds a reserve).
    INCREMENT_SHARE: ClassVar[float] = 0.8
    #: The share of the remaining time that no single move may use: what is left for the
    #: arena's own work around a move and for the search's stopping late.
    SAFETY_SHARE: ClassVar[float] = 0.1
    #: The least time a move is given (an empty clock within the arena's margin still moves).
    MIN_MOVE_TIME: ClassVar[float] = 0.001

    def time_budget(self, limit: Limit) -> float | None:
        """Seconds to spend on this move: ``limit.time``, or, under a clock, the clock's share
        for this move if smaller. With ``moves_to_go`` the remaining time is shared evenly among
        the moves before the refill; without, among ``MOVES_HORIZON`` moves; plus
        ``INCREMENT_SHARE`` of the increment; never more than the remaining time less its
        ``SAFETY_SHARE``, and at least ``MIN_MOVE_TIME``. :meth:`search` calls it for every
        move, so any agent that reads ``limit.time`` plays to a clock; an agent that budgets
        otherwise (spending more in the middle game, say) overrides it.

        Returns:
            None when there is neither a time nor a clock (the search has no deadline).

        Example:
            >>> from board_arena import agents
            >>> agent = agents.make_agent("alphabeta")
            >>> agent.time_budget(agents.Limit(remaining=60.0, increment=0.5))  # 60 / 30 + 0.8 * 0.5
            2.4
            >>> agent.time_budget(agents.Limit(remaining=60.0, moves_to_go=10, time=1.0))  # the move time is smaller
            1.0
            >>> agent.time_budget(agents.Limit(remaining=1.0, moves_to_go=1))  # the last move before the refill
            0.9
        """
        if limit.remaining is None:
            return limit.time
        remaining = max(0.0, limit.remaining)
        moves = limit.moves_to_go or self.MOVES_HORIZON
        share = remaining / max(1, moves) + self.INCREMENT_SHARE * (limit.increment or 0.0)
        share = max(self.MIN_MOVE_TIME, min(share, remaining * (1.0 - self.SAFETY_SHARE)))
        return share if limit.time is None else min(share, limit.time)

    def check_game(self, game: Game) -> None:
        """Raises ValueError if this agent cannot play ``game``."""
        if not game.perfect_information and not self.plays_hidden_information:
            raise ValueError(
                f"{self.name} searches the full state, which {game.name} hides; "
                "use a hidden-information agent (pimc, ismcts) or random, greedy"
            )
        size = self.params.get("endgame")  # the searches that read an endgame database
        if size:
            if game.endgame is None:
                raise ValueError(f"{self.name}: endgame={size}, but {game.name} has no endgame databases")
            try:
                game.endgame.check_size(size)
            except ValueError as error:
                raise ValueError(f"{self.name}: endgame={size}: {error}") from None

    def reset(self, seed: int | None = None) -> None:
        """Forgets the previous game (tables, trees, the last search); with ``seed``, also
        re-seeds the agent's generator, so that it then plays exactly the moves that
        ``make_agent(agent.spec, seed=seed)`` would. Without a seed the generator goes on where it
        was (as gymnasium's ``Env.reset(seed=None)`` does): the next game differs from the last.

        The arena makes one agent per worker and spec and resets it before each game, rather
        than making two agents per game (an alpha-beta allocates its table once). A subclass that
        keeps anything between moves clears it in an override that calls ``super().reset(seed)``
        (``__init__`` ends with ``reset(seed)``, after ``_check_params``: a fresh agent is a reset
        one, so the override also sets that state up).

        Example:
            >>> from board_arena import agents, engines
            >>> state = engines.make("kalah").new_initial_state()
            >>> agent = agents.make_agent("mcts:iterations=200", seed=1)
            >>> first = agent.select_move(state)
            >>> agent.reset(seed=1)
            >>> agent.select_move(state) == first == agents.make_agent("mcts:iterations=200", seed=1).select_move(state)
            True
        """
        if seed is not None:
            self.seed = int(seed)
            self.rng = rng_from_seed(self.seed)
        self.last_search = None
        self._searched = False

    def observe(self, state: State, player: int) -> State:
        """What this agent is given to choose ``player``'s move: the player's view in a
        hidden-information game, the state itself otherwise (or for ``sees_everything``)."""
        if state.game.perfect_information or self.sees_everything:
            return state
        return state.view(player)

    def _what_it_may_see(self, state: State) -> State:
        """The state an agent searches: in a hidden-information game, the mover's view, taken
        here when a caller hands over the whole state, so that no agent but a declared
        ``sees_everything`` reference ever searches what its player cannot see."""
        if state.game.perfect_information:
            return state
        names = state.game.player_names
        if self.sees_everything:
            if state.viewer is not None:
                raise ValueError(
                    f"{self.name} searches the whole state, and this is {names[state.viewer]}'s view "
                    "(the hidden tiles are cleared): give it the game's state"
                )
            return state
        if state.viewer is None:
            return state.view(state.current_player)
        if state.viewer != state.current_player:
            raise ValueError(
                f"this is {names[state.viewer]}'s view, but {names[state.current_player]} is to move: "
                "an agent chooses a move from the mover's view"
            )
        return state

    #: Budget of the warm-up search: enough to run (and so compile) every kernel once.
    WARM_UP_LIMIT: ClassVar[Limit] = Limit(depth=1, nodes=1, iterations=1)
    _warmed: ClassVar[set] = set()

    def warm_up(self, game: Game) -> None:
        """Compiles (or loads from numba's cache) this agent's kernels for ``game``, so that no
        clock runs while they compile. A throwaway agent of the same kind and parameters does the
        work (parameters may choose other kernels: ``alphabeta:solve=true`` the solver's), with
        the smallest budget: it loads the kernels its search runs and no other; this agent's
        random state and tables stay as they were. Once per process for each kind, parameters
        and game."""
        key = (type(self), game.kernels.STATE_DTYPE, tuple(self.params.items()))
        if key in Agent._warmed:
            return
        self.check_game(game)
        notice = _CompileNotice(f"{self.name} for {game.name}")
        numba_event.register("numba:compile", notice)
        try:
            state = game.new_initial_state(0)
            type(self)(seed=0, **self.params)._select(self.observe(state, state.current_player), self.WARM_UP_LIMIT)
        finally:
            numba_event.unregister("numba:compile", notice)
        Agent._warmed.add(key)

    def select_move(self, state: State, limit: Limit | None = None) -> int:
        """The move to play in ``state``. In a hidden-information game the agent searches only
        the mover's view: pass the view (``state.view(player)``) or the game's state, whose view
        the agent then takes itself (only a ``sees_everything`` reference searches the state).

        ``limit`` replaces the agent's own budget for this move (the arena's time per move).
        What the search found is kept in :attr:`last_search`; :meth:`search` returns it.
        """
        return self.search(state, limit).move

    def search(self, state: State, limit: Limit | None = None) -> SearchInfo:
        """Like :meth:`select_move`, but returns the whole report of the search (the move, its
        value, depth, nodes, time), which is also kept in :attr:`last_search`."""
        self.check_game(state.game)
        if state.is_terminal():
            raise ValueError("the game is over: there is no move to select")
        state = self._what_it_may_see(state)
        self.warm_up(state.game)
        start = time.perf_counter()
        self._searched = True
        limit = limit or self.limit
        if limit.remaining is not None:  # a clock: this move's share of it, as a time
            limit = replace(limit, time=self.time_budget(limit))
        info = self._select(state, limit)
        info.seconds = time.perf_counter() - start
        self.last_search = info
        return info

    def _select(self, state: State, limit: Limit) -> SearchInfo:
        raise NotImplementedError

    def _endgame(self, state: State) -> tuple[np.ndarray, int] | None:
        """The endgame database ``(db, k)`` that the ``endgame`` parameter asks for (built once
        into the cache folder), or None."""
        size = self.params.get("endgame")
        if not size or state.game.endgame is None:
            return None
        return state.game.endgame.database(state, size, build_missing=True)

    def _database_move(self, state: State, database: tuple[np.ndarray, int] | None) -> SearchInfo | None:
        """Perfect play from the game's endgame database when it holds ``state`` and the game
        says how (``EndgameDatabases.perfect_moves``: the morris games, whose won positions a
        search could keep for ever without winning them), one of the best moves drawn at random;
        None otherwise."""
        endgame = state.game.endgame
        if database is None or endgame is None:
            return None
        moves = endgame.perfect_moves(state, database)
        known = endgame.perfect_play(state, database) if moves else None
        if not moves or known is None:
            return None
        from board_arena.kernels import rng_below

        move = moves[int(rng_below(self.rng, len(moves)))] if len(moves) > 1 else moves[0]
        value = known.result if state.current_player == 0 else -known.result
        return SearchInfo(move=int(move), value=float(value), exact=True, depth=0, nodes=len(state.legal_moves()))


class _CompileNotice(numba_event.Listener):
    """Says once, on standard error, that kernels are being compiled (a cache miss: the first use
    after an install or an edit), so that a pause of some seconds does not look like a hang."""

    def __init__(self, what: str):
        self.what = what
        self.said = False

    def on_start(self, event):
        if not self.said:
            self.said = True
            why = "no cache folder: every process compiles" if caching_disabled() else "first use only: numba caches the machine code"
            print(f"compiling {self.what} ({why})...", file=sys.stderr, flush=True)

    def on_end(self, event):
        pass


def format_value(value: Any) -> str:
    """A parameter value as written in a spec (``none``, ``true``, ``0.5``, ``2000``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:g}" if isinstance(value, float) else str(value)


_AGENTS: dict[str, type[Agent]] = {}


def register_agent(cls: type[Agent]) -> type[Agent]:
    """Class decorator: makes an agent available to :func:`make_agent` under ``cls.name``. A plain
    :class:`engines.Param` among its ``PARAMS`` becomes an :class:`AgentParam` that declares no
    effect."""
    cls.PARAMS = tuple(agent_param(p) for p in cls.PARAMS)
    _AGENTS[cls.name] = cls
    return cls


def available_agents() -> list[str]:
    """The names :func:`make_agent` accepts: the built-in agents, the installed packages' (entry
    points) and the plugins loaded so far."""
    load_agent_entry_points()
    return list(_AGENTS)


def agent_class(name: str) -> type[Agent]:
    """The agent class registered under ``name``. The installed packages' agents (entry points)
    are loaded at the first name not known yet: a run of built-in agents never reads the
    metadata of every installed distribution.

    Raises:
        ValueError: no agent has that name (the message lists the names), or an installed
            package's agent failed to load (its entry point and the error).
    """
    if name not in _AGENTS:
        load_agent_entry_points()
    try:
        return _AGENTS[name]
    except KeyError:
        raise ValueError(f"unknown agent {shown(name)}; available: {', '.join(_AGENTS)}") from None


#: The entry-point group under which installed packages declare agents.
ENTRY_POINT_GROUP = "board_arena.agents"
_ENTRY_POINTS_LOADED = False


def load_agent_entry_points() -> list[str]:
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


def agent_registry() -> dict[str, type[Agent]]:
    """The agents registered so far, by name (a copy: what :func:`restore_agent_registry` takes)."""
    return dict(_AGENTS)


def restore_agent_registry(saved: dict[str, type[Agent]]) -> None:
    """Makes the registry ``saved`` again (taken by :func:`agent_registry`): the agents
    registered since are forgotten. For tests and tools that register agents for a while."""
    _AGENTS.clear()
    _AGENTS.update(saved)


def parse_spec(spec: str, kind: str = "agent") -> tuple[str, dict[str, str]]:
    """Splits ``name:key=value,key=value`` into the name and its raw (string) parameters. The
    syntax is shared with game strings (``kalah:pits=4``): ``kind`` ("agent" or "game") names
    which one the messages speak of.

    Raises:
        ValueError: the spec is malformed (the message shows the expected form).
    """
    what, example = ("game", "kalah:pits=4,seeds=3") if kind == "game" else ("agent spec", "mcts:iterations=2000,c=1.4")
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a{'n' if what[0] in 'aeiou' else ''} {what} is a name or name:key=value,..., not {shown(spec)}")
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ValueError(f"bad parameter {shown(item)} in {what} {shown(spec)}; write key=value, e.g. {example}")
        if key.strip() in params:
            raise ValueError(f"parameter {key.strip()!r} given twice in {what} {shown(spec)}")
        params[key.strip()] = value.strip()
    return name.strip(), params


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """The agent described by ``spec`` (``name`` or ``name:key=value,...``), seeded with ``seed``.

    Raises:
        ValueError: unknown agent or parameter, or a value out of range (the message lists what
            exists).

    Example:
        >>> from board_arena import agents, engines
        >>> agent = agents.make_agent("alphabeta:depth=4", seed=1)
        >>> state = engines.make("kalah").new_initial_state()
        >>> agent.select_move(state) in state.legal_moves()
        True
    """
    name, params = parse_spec(spec)
    return agent_class(name)(seed=seed, **params)


#: The fields of a :class:`Limit` that describe a game clock (no agent parameter sets them).
_CLOCK_FIELDS = ("remaining", "increment", "moves_to_go", "opponent_remaining")

# Parameters shared by the searches, so that they read the same everywhere.
TIME = AgentParam(
    "time", None, "seconds per move (not reproducible across machines)", low=0.001, high=86400.0, kind=float,
    allow_none=True, effect="seconds",
)
DEPTH = AgentParam("depth", None, "search depth in plies", low=1, high=200, kind=int, allow_none=True, effect="work")
NODES = AgentParam("nodes", None, "positions visited per move", low=1, high=10**12, kind=int, allow_none=True, effect="work")
ITERATIONS = AgentParam("iterations", None, "simulations per move", low=1, high=10**9, kind=int, allow_none=True, effect="work")

