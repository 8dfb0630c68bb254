"""The compiled game contract: one set of functions that every engine implements and every agent
calls, resolved at compile time from the type of the state.

A state is one record of a game's structured ``STATE_DTYPE`` (``states[i]`` of a record array, or
``buf[0]`` of a one-element array): plain memory that kernels read and write in place, that
copies with ``dst[j] = src[i]`` and that holds everything the game needs, the variant parameters
included. Each game's kernel module is registered with :func:`register` (``engines.register_game``
does it for the game's class); from then on an agent written against this module, for instance::

    @kernel
    def random_playout(state, rng, moves):
        while not contract.is_terminal(state):
            n = contract.legal_moves(state, moves)
            contract.apply_move(state, moves[rng_below(rng, n)])

compiles to a specialised, directly linked and cacheable version for each game it is called with
(the call is typed as a call of the game's own kernel, picked from the record type, so there is
no run-time dispatch, no function-pointer call and no function of this module in between). Under
``NUMBA_DISABLE_JIT=1`` the same names dispatch in Python on ``state.dtype``.

What a kernel module provides (all kernels ``@kernel``-compiled, argument ``s`` is a state record):

==========================  =====================================================================
``STATE_DTYPE``             the numpy structured dtype of a state
``MAX_MOVES``               upper bound on the number of legal moves in any state of any variant
``MOVE_BOUND``              moves are ints in ``[0, MOVE_BOUND)`` (an id may encode a whole path,
                            so agents never allocate arrays of this size)
``legal_moves(s, out)``     writes the legal moves into ``out: int64[>=max_moves(s)]``, returns count,
                            always in the same order for the same state;
                            a non-terminal state always has at least one (a pass is a move)
``apply_move(s, move)``     plays a legal move in place (unchecked: the Python face validates)
``is_terminal(s)``          bool
``current_player(s)``       0 or 1, the player to move (may be the one who just moved)
``outcome(s)``              float64 at a terminal state, player 0's result: 1 win, 0 draw, -1 loss
``score(s)``                int64, player 0's margin (store, capture or pip difference)
``heuristic(s)``            float64 strictly inside (-1, 1), player 0's view, for search horizons
``state_hash(s)``           uint64 hash of everything that decides the future of the game
``illegal_reason(s, move)`` int64 why ``move`` (any int64) is not legal in ``s``: ``LEGAL`` (0)
                            exactly for the moves ``legal_moves`` lists, ``REASON_GAME_OVER``,
                            ``REASON_NOT_A_MOVE`` (outside the game's move encoding), or one of
                            the game's own codes (from ``FIRST_GAME_REASON`` up) naming the rule
                            the move breaks; the Python face only turns codes into words
``write_observation(s, p,   writes player ``p``'s observation tensor (float32, the shape given by
out)``                      the game's ``observation_shape``, flattened) into ``out``; a
                            hidden-information game builds it from ``observe``'s view alone
``redraw_start(s, rng,      draws the random parts of a start position (a deal, an opening) into
code)``                     ``s``, a copy of a start of its variant; ``code`` is the game's
                            ``start_code`` (what the record does not hold); no-op without any
==========================  =====================================================================

A module may also provide ``move_capacity(s)``: the most legal moves of any state of ``s``'s
variant, when that is far below ``MAX_MOVES`` (agents size their move buffers with
:func:`max_moves`, which uses it).

Optional kernels for speed, each with a default built on the required ones (a game's own
``random_playout`` must give exactly what the default gives: the same moves, plies and generator
state; a game's own ``random_legal_move`` the same draw, maybe in another order):

==================================  =============================================================
``random_legal_move(s, rng,         a uniformly random legal move of the non-terminal ``s``: one
scratch)``                          ``rng_below(rng, n)`` (``n`` the number of legal moves) mapped
                                    one to one onto the legal moves, in an order that ``s`` alone
                                    decides: the default takes the move ``legal_moves`` lists at
                                    that index; a game's own may number the moves in an order
                                    that it finds without listing them. So the draw is exactly
                                    uniform and the same generator state gives the same move
                                    (``engines.conformance`` checks both at every position of
                                    random games). ``scratch``: ``int64[>=max_moves(s)]`` for the
                                    default, which lists the moves there. Every random move of a
                                    rollout or a random agent is drawn through it
``random_playout(s, rng,            plays ``random_legal_move`` and ``apply_move`` from ``s`` (in
scratch)``                          place) to the end; returns the plies played. A game's own
                                    version keeps its state in local variables (registers) from
                                    the first ply to the last and writes the record once
==================================  =============================================================

(A contract call compiles to the game's kernel inlined into its caller; a default is a kernel
of this module or a constant, inlined the same way.)

Optional kernels for exact solving (``agents/solver.py``), each with a default for games that lack it:

==============================  =================================================================
``margin(s)``                   int64, player 0's running margin, whose value at a terminal state
                                is the game's final margin (its sign the outcome). Default: the
                                outcome (1, 0, -1) at a terminal state, 0 before: a game without
                                a margin is solved to win, draw or loss
``margin_bounds(s)``            (lo, hi) int64: every continuation of ``s`` changes ``margin`` by
                                at least ``lo`` and at most ``hi`` (player 0's view), so a search
                                whose window lies outside them stops at once. Default: (-1, 1)
                                for the default margin, else no bound
``solve_key(s)``                uint64 hash of everything that decides the *change* of the margin
                                from ``s`` on (a Kalah position without its stores), so that the
                                solver's table shares positions reached with different scores.
                                Default: ``state_hash``
``endgame_value(s, db, k)``     the exact change of ``margin`` from ``s`` to the end under perfect
                                play, from the mover's side, read from an endgame database ``db``
                                (``int8[:]``) of positions up to size ``k``; ``NO_ENDGAME_VALUE``
                                when ``s`` is not in it. Default: never in it
==============================  =================================================================

Games with hidden information also provide ``observe(s, player, view)``, which writes into the
record ``view`` what ``player`` may know (hidden parts cleared), and ``sample_world(view, rng,
world)``, which writes into ``world`` a full state drawn uniformly from the states consistent with
the view (returns False if it could not). On a view, ``legal_moves`` is right when the viewer is
to move, and ``apply_move`` of a move that reveals nothing (a tile played from the own hand) gives
the view after it, which ``greedy`` evaluates.
"""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any, Callable, Iterable

import numba
import numpy as np
from numba import types
from numba.extending import lower_builtin, overload, type_callable

from board_arena.kernels import kernel, rng_below
from board_arena.kernels.cache import register_state_module

__all__ = [
    "MOVE_DTYPE",
    "register",
    "registered_modules",
    "kernels_for",
    "state_dtype",
    "legal_moves",
    "apply_move",
    "is_terminal",
    "current_player",
    "outcome",
    "score",
    "heuristic",
    "state_hash",
    "illegal_reason",
    "LEGAL",
    "REASON_GAME_OVER",
    "REASON_NOT_A_MOVE",
    "FIRST_GAME_REASON",
    "observe",
    "sample_world",
    "write_observation",
    "redraw_start",
    "max_moves",
    "move_bound",
    "margin",
    "margin_bounds",
    "solve_key",
    "endgame_value",
    "has_margin",
    "NO_ENDGAME_VALUE",
    "UNBOUNDED_MARGIN",
    "new_states",
    "value_for",
    "random_legal_move",
    "random_playout",
    "default_random_playout",
    "random_playouts",
    "REQUIRED_MEMBERS",
]

#: What every game's kernel module defines (:func:`register` checks it).
REQUIRED_MEMBERS = (
    "STATE_DTYPE",
    "MAX_MOVES",
    "MOVE_BOUND",
    "legal_moves",
    "apply_move",
    "is_terminal",
    "current_player",
    "outcome",
    "score",
    "heuristic",
    "state_hash",
    "illegal_reason",
    "write_observation",
    "redraw_start",
)

#: ``illegal_reason`` codes shared by every game; each game numbers its own from FIRST_GAME_REASON.
LEGAL = 0
REASON_GAME_OVER = 1
REASON_NOT_A_MOVE = 2
FIRST_GAME_REASON = 3

_KERNELS: dict[np.dtype, ModuleType] = {}
#: The same, by numba's type of a state record (what compiled code is typed with).
_KERNELS_BY_TYPE: dict[Any, ModuleType] = {}

#: A state: one record of a game's ``STATE_DTYPE`` (``buf[0]`` of a one-element array), which
#: kernels read and write in place.
Record = np.void

#: The dtype of move buffers (``legal_moves`` output) everywhere.
MOVE_DTYPE = np.int64


def state_dtype(fields: Iterable[tuple[Any, ...]]) -> np.dtype:
    """A state dtype with every byte defined: ``fields`` in order, with no padding between them
    (list the widest first), and a ``_pad`` tail up to a multiple of 8 bytes.

    Why: numpy copies structured arrays field by field and leaves padding bytes undefined, so a
    state with padding could compare or hash differently from its own copy.
    """
    fields = list(fields)
    packed = np.dtype(fields, align=False)
    packed_offsets = {name: field[1] for name, field in (packed.fields or {}).items()}
    aligned_offsets = {name: field[1] for name, field in (np.dtype(fields, align=True).fields or {}).items()}
    for name, offset in packed_offsets.items():
        if offset != aligned_offsets[name]:
            raise ValueError(f"state field {name!r} is not aligned; list the widest fields first")
    tail = -packed.itemsize % 8
    if tail:
        fields = fields + [("_pad", np.uint8, (tail,))]
    return np.dtype(fields, align=True)


def register(module: ModuleType) -> None:
    """Register a game's kernel module (see the module docstring for what it must provide)."""
    missing = [name for name in REQUIRED_MEMBERS if not hasattr(module, name)]
    if missing:
        raise TypeError(f"{module.__name__} lacks contract members: {', '.join(missing)}")
    dtype = np.dtype(module.STATE_DTYPE)
    if dtype.itemsize != sum(dtype.fields[name][0].itemsize for name in dtype.names):
        raise TypeError(f"{module.__name__}.STATE_DTYPE has padding; build it with state_dtype()")
    # The state type picks the kernels at compile time: two games with one type would be confused.
    other = _KERNELS.get(dtype)
    if other is not None and other.__name__ != module.__name__:
        raise TypeError(
            f"{module.__name__}.STATE_DTYPE is the state type of {other.__name__} already: "
            "each game needs a state type of its own (add or rename a field)"
        )
    _KERNELS[dtype] = module
    _KERNELS_BY_TYPE[numba.from_dtype(dtype)] = module
    # Agents compiled for this state type run the module's kernels: the cache must know whose.
    register_state_module(str(dtype.descr), module)


def registered_modules() -> list[ModuleType]:
    """The kernel modules of every registered game, in registration order."""
    return list(_KERNELS.values())


def kernels_for(state_or_dtype: Any) -> ModuleType:
    """The kernel module for a state record, a state array, a dtype or a numba record type."""
    module = _KERNELS_BY_TYPE.get(state_or_dtype) if isinstance(state_or_dtype, numba.types.Type) else None
    if module is None:
        dtype = getattr(state_or_dtype, "dtype", state_or_dtype)
        module = _KERNELS.get(dtype) if isinstance(dtype, np.dtype) else None
    if module is None:
        raise TypeError(f"no game registered for the state type {state_or_dtype}")
    return module


# Each contract function is a Python function (what runs under NUMBA_DISABLE_JIT=1) that compiled
# code calls as the game's own kernel, picked at compile time from the state's record type: the
# call site is typed as a call of the game's kernel and lowered as one (numba.extending's
# type_callable and lower_builtin), so there is no function in between, whose arguments numba
# would reference-count at every call. Where the contract has a default, it is a kernel of this
# module or a constant of the game, picked the same way. Integer arguments are passed on as
# int64, so that a game's kernel is compiled once, not once per int type of its callers.


class _Constant:
    """What a ``choose`` of :func:`_forward` returns where the contract function's value is a
    constant of the game (an int or a tuple of them)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _forward(function: Any, choose: Callable[..., Any], widened: tuple[int, ...] = ()) -> None:
    """Compiles a call of ``function`` inside a kernel to a direct call of the kernel that
    ``choose(*argument types)`` returns, the arguments at the positions ``widened`` converted to
    int64; where ``choose`` returns a :class:`_Constant`, the call is its value."""

    @type_callable(function)
    def typing(context):
        def typer(*args):
            args = tuple(types.unliteral(a) for a in args)
            chosen = choose(*args)
            if isinstance(chosen, _Constant):
                return numba.typeof(chosen.value)(*args)
            called = tuple(types.int64 if i in widened else a for i, a in enumerate(args))
            return context.resolve_function_type(context.resolve_value_type(chosen), called, {})

        # numba reads the parameters of a call from the typer's signature: the function's own.
        typer.__signature__ = inspect.signature(function).replace(return_annotation=inspect.Signature.empty)  # type: ignore[attr-defined]
        return typer

    @lower_builtin(function, types.VarArg(types.Any))
    def lowering(context, builder, signature, args):
        chosen = choose(*signature.args)
        if isinstance(chosen, _Constant):
            return context.get_constant_generic(builder, signature.return_type, chosen.value)
        kernel_type = context.typing_context.resolve_value_type(chosen)
        return context.get_function(kernel_type, signature)(builder, args)


def _game_kernel(name: str) -> Callable[..., Any]:
    """A ``choose`` for :func:`_forward`: the game's kernel ``name``."""
    return lambda s, *rest: getattr(kernels_for(s), name)


def legal_moves(s: Record, out: np.ndarray) -> int:
    return kernels_for(s).legal_moves(s, out)


def apply_move(s: Record, move: int) -> None:
    return kernels_for(s).apply_move(s, move)


def is_terminal(s: Record) -> bool:
    return kernels_for(s).is_terminal(s)


def current_player(s: Record) -> int:
    return kernels_for(s).current_player(s)


def outcome(s: Record) -> float:
    return kernels_for(s).outcome(s)


def score(s: Record) -> int:
    return kernels_for(s).score(s)


def heuristic(s: Record) -> float:
    return kernels_for(s).heuristic(s)


def state_hash(s: Record) -> int:
    return kernels_for(s).state_hash(s)


def illegal_reason(s: Record, move: int) -> int:
    return kernels_for(s).illegal_reason(s, move)


def observe(s: Record, player: int, view: Record) -> None:
    return kernels_for(s).observe(s, player, view)


def sample_world(view: Record, rng: np.ndarray, world: Record) -> bool:
    return kernels_for(view).sample_world(view, rng, world)


def write_observation(s: Record, player: int, out: np.ndarray) -> None:
    return kernels_for(s).write_observation(s, player, out)


def redraw_start(s: Record, rng: np.ndarray, code: int) -> None:
    return kernels_for(s).redraw_start(s, rng, code)


for _function, _widened in (
    (legal_moves, ()), (apply_move, (1,)), (is_terminal, ()), (current_player, ()), (outcome, ()), (score, ()),
    (heuristic, ()), (state_hash, ()), (illegal_reason, (1,)), (observe, (1,)), (sample_world, ()),
    (write_observation, (1,)), (redraw_start, (2,)),
):
    _forward(_function, _game_kernel(_function.__name__), _widened)


def random_legal_move(s: Record, rng: np.ndarray, scratch: np.ndarray) -> int:
    module = kernels_for(s)
    if hasattr(module, "random_legal_move"):
        return module.random_legal_move(s, rng, scratch)
    return scratch[rng_below(rng, module.legal_moves(s, scratch))]


@kernel(inline="always")
def _listed_random_move(s, rng, scratch):
    """The default ``random_legal_move``: the listed move at a random index."""
    return scratch[rng_below(rng, legal_moves(s, scratch))]


_forward(random_legal_move, lambda s, rng, scratch: getattr(kernels_for(s), "random_legal_move", _listed_random_move))


def max_moves(s: Record) -> int:
    """The most legal moves of any state of ``s``'s variant (for sizing move buffers)."""
    module = kernels_for(s)
    return module.move_capacity(s) if hasattr(module, "move_capacity") else module.MAX_MOVES


def _max_moves(s):
    module = kernels_for(s)
    return module.move_capacity if hasattr(module, "move_capacity") else _Constant(module.MAX_MOVES)


_forward(max_moves, _max_moves)


def move_bound(s: Record) -> int:
    return kernels_for(s).MOVE_BOUND


_forward(move_bound, lambda s: _Constant(kernels_for(s).MOVE_BOUND))


# Optional kernels for exact solving (module docstring): the game's own when it has them, else a
# default built on the required ones.

#: What ``endgame_value`` returns for a position that its database does not hold.
NO_ENDGAME_VALUE = np.iinfo(np.int64).min
#: The ``margin_bounds`` of a game that declares a margin but no bound on its change.
UNBOUNDED_MARGIN = 1 << 30


def has_margin(s: Record) -> bool:
    """Whether the game of ``s`` declares a margin (else it is solved to win, draw or loss); a
    game whose variants differ says so with a plain-Python ``has_margin(s)``."""
    module = kernels_for(s)
    if hasattr(module, "has_margin"):
        return bool(module.has_margin(s))
    return hasattr(module, "margin")


@kernel
def _outcome_margin(s):
    if not is_terminal(s):
        return np.int64(0)
    v = outcome(s)
    return np.int64(1) if v > 0 else (np.int64(-1) if v < 0 else np.int64(0))


def margin(s: Record) -> int:
    module = kernels_for(s)
    return module.margin(s) if hasattr(module, "margin") else _outcome_margin(s)


_forward(margin, lambda s: getattr(kernels_for(s), "margin", _outcome_margin))


def margin_bounds(s: Record) -> tuple[int, int]:
    module = kernels_for(s)
    if hasattr(module, "margin_bounds"):
        return module.margin_bounds(s)
    return (-UNBOUNDED_MARGIN, UNBOUNDED_MARGIN) if hasattr(module, "margin") else (-1, 1)


def _margin_bounds(s):
    module = kernels_for(s)
    if hasattr(module, "margin_bounds"):
        return module.margin_bounds
    bound = UNBOUNDED_MARGIN if hasattr(module, "margin") else 1
    return _Constant((np.int64(-bound), np.int64(bound)))


_forward(margin_bounds, _margin_bounds)


def solve_key(s: Record) -> int:
    module = kernels_for(s)
    return module.solve_key(s) if hasattr(module, "solve_key") else module.state_hash(s)


_forward(solve_key, lambda s: getattr(kernels_for(s), "solve_key", kernels_for(s).state_hash))


def endgame_value(s: Record, db: np.ndarray, k: int) -> int:
    module = kernels_for(s)
    return module.endgame_value(s, db, k) if hasattr(module, "endgame_value") else NO_ENDGAME_VALUE


def _endgame_value(s, db, k):
    module = kernels_for(s)
    return module.endgame_value if hasattr(module, "endgame_value") else _Constant(NO_ENDGAME_VALUE)


_forward(endgame_value, _endgame_value, (2,))


def new_states(s: Record, n: int) -> np.ndarray:
    """An uninitialised array of ``n`` states of the same game as ``s``."""
    return np.empty(n, kernels_for(s).STATE_DTYPE)


@overload(new_states)
def _new_states(s, n):
    dtype = kernels_for(s).STATE_DTYPE
    return lambda s, n: np.empty(n, dtype)


# ----------------------------------------------------------------------------------------------
# Small generic kernels built on the contract.


@kernel
def value_for(s, player):
    """The terminal outcome of ``s`` from ``player``'s point of view (1 win, 0 draw, -1 loss)."""
    v = outcome(s)
    return v if player == 0 else -v


@kernel(inline="always")
def default_random_playout(s, rng, scratch):
    """The contract's default ``random_playout``: ``random_legal_move`` and ``apply_move`` from
    ``s`` (in place) to the end; returns the plies played. A game's own ``random_playout`` must
    give exactly this (the tests compare them)."""
    plies = 0
    while not is_terminal(s):
        apply_move(s, random_legal_move(s, rng, scratch))
        plies += 1
    return plies


def random_playout(s: Record, rng: np.ndarray, scratch: np.ndarray) -> int:
    """Plays uniformly random moves from ``s`` (in place) to the end; returns the plies played.

    rng: uint64[1]; scratch: int64[>=max_moves(s)]. The game's own kernel when it has one, else
    :func:`default_random_playout`.
    """
    module = kernels_for(s)
    if hasattr(module, "random_playout"):
        return module.random_playout(s, rng, scratch)
    return default_random_playout(s, rng, scratch)


_forward(random_playout, lambda s, rng, scratch: getattr(kernels_for(s), "random_playout", default_random_playout))


@kernel
def random_playouts(root, n, rng):
    """Plays ``n`` random games from ``root`` (left unchanged); returns the plies played in all."""
    work = new_states(root, 1)
    moves = np.empty(max_moves(root), MOVE_DTYPE)
    plies = 0
    for _ in range(n):
        work[0] = root
        plies += random_playout(work[0], rng, moves)
    return plies
