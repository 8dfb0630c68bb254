"""The conformance suite that every game passes (after OpenSpiel's ``api_test`` and pgx's
``v1_api_test``): for a game plugin's author as much as for the built-in games.

:func:`check_game` checks a registered game by name and returns its failures, each named by the
check that found it (empty when the game conforms), so that a command can print them::

    >>> from board_arena.engines.conformance import check_game
    >>> check_game("kalah", {"pits": 3}, quick=True)
    []

It plays random games to the end through the Python face and checks, at every position, the
checks of :data:`CHECKS`: legal-move invariants (unique ids in range, at most ``MAX_MOVES``,
none exactly at the end), notation round trips, position strings read back (games that write
them), illegal moves refused with one line, ``illegal_reason`` 0 exactly for the legal moves,
copies independent and hashes stable, the heuristic inside (-1, 1), the rendering, the action
mapping and the observations, and for hidden-information games each player's view and worlds
sampled from it; at the end: the outcome and returns, the end reason, a record that replays, and
that the same seed gives the same game. Then the contract's random moves (exactly uniform,
reproducible, the playout move for move the default loop's) and, unless ``quick``, a compiled
run against a pure-Python one (``NUMBA_DISABLE_JIT=1``).

:func:`check_conformance` runs the same checks and raises at the first failure (for tests, which
add a game invariant of their own); :func:`kernel_digest` hashes seeded random games played
through the kernels alone, and :func:`pure_python_digest` computes it with compilation off (run
as ``python -m board_arena.engines.conformance SPEC`` it prints that digest).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from board_arena.engines import contract
from board_arena.engines.errors import IllegalMoveError
from board_arena.engines.game import Game, GameRecord, State
from board_arena.engines.notation import Notation
from board_arena.engines.registry import game_class, make
from board_arena.kernels import kernel, rng_below, rng_from_seed, rng_state_for

__all__ = [
    "CHECKS",
    "ConformanceFailure",
    "check_game",
    "check_variant",
    "variant_label",
    "check_conformance",
    "check_position",
    "check_illegal_reasons",
    "check_actions",
    "check_observations",
    "check_views",
    "check_random_moves",
    "play_random_game",
    "chi_square_bound",
    "perft",
    "kernel_digest",
    "pure_python_digest",
]

#: The checks, by the name a failure carries, and what each one requires.
CHECKS: dict[str, str] = {
    "legal-moves": "unique ids in [0, move_bound), at most max_moves, none exactly when the game is over",
    "heuristic": "strictly inside (-1, 1) before the end",
    "copy-and-hash": "a copy hashes alike, a move applied to a copy leaves the original alone",
    "render": "the drawing is a string, of the game's state and of each player's view",
    "notation": "every legal move's notation parses back to the move",
    "position-string": "a game that writes position strings (fen) reads each back to an equal state: one line, same moves and hash",
    "illegal-moves": "an illegal move id is refused with an IllegalMoveError of one line",
    "illegal-reasons": "illegal_reason is 0 exactly for the legal moves; other codes have one line of words",
    "actions": "the action mapping is a bijection on the legal moves, the mask exactly their actions",
    "observations": "each player's observation has the variant's shape, is float32, finite, deterministic",
    "views": "a player's view shows the mover's moves; worlds sampled from it show the same view",
    "invariant": "the invariant the caller gives holds at every position",
    "plays": "every legal move of a random game applies through the Python face",
    "ends": "a random game ends",
    "outcome": "the outcome is 1, 0 or -1 and the returns and the winner agree with it",
    "end-reason": "None before the end, one line at the end",
    "record": "the game's record replays to the same state",
    "same-seed": "the same seeds give the same start and the same game",
    "random-moves": "random_legal_move is exactly uniform and reproducible",
    "random-playout": "random_playout plays move for move what the default loop plays",
    "pure-python": "a compiled run and a pure-Python one (NUMBA_DISABLE_JIT=1) agree",
}

#: A random game still going after this many plies fails ``ends``.
MAX_PLIES = 100_000


class ConformanceFailure(AssertionError):
    """A check that a game fails: ``check`` (a key of :data:`CHECKS`) and what it found."""

    def __init__(self, message: str, check: str | None = None) -> None:
        super().__init__(message if check is None else f"{check}: {message}")
        self.check = check
        self.detail = message


def _expect(condition: Any, message: str) -> None:
    if not condition:
        raise ConformanceFailure(message)


class _Checker:
    """Runs named checks: in ``strict`` mode the first failure is raised (with its check's name),
    else each check's first failure is kept and that check skipped from then on, so that one
    broken rule does not hide the others."""

    def __init__(self, label: str, strict: bool) -> None:
        self.label = label
        self.strict = strict
        self.failures: dict[str, str] = {}
        self.where = ""

    def failed(self, check: str) -> bool:
        return check in self.failures

    def run(self, check: str, function: Callable[..., Any], *args: Any) -> bool:
        """Runs ``function(*args)`` as ``check``; True when it passed (or had failed before)."""
        if check in self.failures:
            return False
        try:
            function(*args)
        except ConformanceFailure as error:
            if error.check is not None:  # named and placed by a check run within this one
                raise
            self._fail(check, error.detail)
            return False
        except Exception as error:
            if self.strict:
                raise
            self._fail(check, f"{type(error).__name__}: {error}")
            return False
        return True

    def _fail(self, check: str, detail: str) -> None:
        detail = " ".join(str(detail).split())
        if self.where:
            detail = f"{detail} ({self.where})"
        if self.strict:
            raise ConformanceFailure(detail, check)
        self.failures[check] = detail

    def report(self) -> list[str]:
        return [f"{self.label}: {check}: {detail}" for check, detail in self.failures.items()]


# -- checks of one position -----------------------------------------------------------------


def _check_legal_moves(state: State) -> None:
    game = state.game
    moves = state.legal_moves()
    _expect(len(moves) == len(set(moves)), f"duplicate legal moves {moves}")
    _expect(len(moves) <= game.max_moves, f"{len(moves)} legal moves, more than MAX_MOVES = {game.max_moves}")
    _expect(len(moves) <= contract.max_moves(state.data), "more legal moves than the variant's capacity (move_capacity)")
    _expect(all(0 <= m < game.move_bound for m in moves), f"a legal move id outside [0, {game.move_bound}): {moves}")
    _expect(state.current_player in (0, 1), f"current_player is {state.current_player}")
    if state.is_terminal():
        _expect(moves == [], f"a terminal state has the legal moves {moves[:8]}")
    else:
        _expect(moves, "a state that is not terminal has no legal move (a pass is a move)")


def _check_heuristic(state: State) -> None:
    if not state.is_terminal():
        h = state.heuristic()
        _expect(-1.0 < h < 1.0, f"heuristic {h} outside (-1, 1)")


def _check_position_string(state: State) -> None:
    game = state.game
    if not game.perfect_information or type(game.notation).fen is Notation.fen:
        return  # no position strings (a hidden-information game, or a game that writes none)
    text = state.fen()
    _expect(isinstance(text, str) and text == " ".join(text.split()) and text.isascii() and text.isprintable(),
            f"the position string {text!r} is not one line of printable words")
    _expect("moves" not in text.split(), f"the position string {text!r} holds the word moves (UGI's position command ends there)")
    again = game.from_fen(text)
    _expect(again == state, f"the position string {text!r} reads back to another state")
    _expect(again.legal_moves() == state.legal_moves() and again.hash() == state.hash(),
            f"the state read from {text!r} has other legal moves or another hash")


def _check_copy(state: State) -> None:
    _expect(state.copy().hash() == state.hash(), "a copy hashes differently")
    _expect(state.copy() == state, "a copy is not equal to its original")


def _check_render(state: State) -> None:
    _expect(isinstance(state.render(), str), "render() does not return a string")


def _check_notation(state: State) -> None:
    for move in state.legal_moves():
        text = state.format_move(move)
        _expect(isinstance(text, str) and text, f"move {move} is written {text!r}")
        back = state.parse_move(text)
        _expect(back == move, f"the notation {text!r} of move {move} parses back to {back}")


def _check_illegal_moves(state: State) -> None:
    game = state.game
    moves = state.legal_moves()
    legal = set(moves)
    illegal = next((m for m in range(game.move_bound) if m not in legal), None)
    for bad in (illegal, -1, game.move_bound):
        if bad is None:
            continue
        try:
            state.copy().apply(bad)
        except IllegalMoveError as error:
            _expect(str(error) and "\n" not in str(error), f"the refusal of move {bad} is not one line: {str(error)!r}")
        else:
            raise ConformanceFailure(f"the illegal move {bad} was accepted")


@kernel
def _reason_codes(s, moves, out):
    for i in range(len(moves)):
        out[i] = contract.illegal_reason(s, moves[i])


def check_illegal_reasons(state: State, sample: int = 256) -> None:
    """The kernel's ``illegal_reason`` is 0 exactly for the legal moves, among: every legal move,
    every id below 4096 (the whole encoding of the small games), a seeded sample of the rest,
    the legal moves with one bit flipped (near misses: another shot, end, direction, jump count)
    and ids outside the encoding; each nonzero code has one line of words.

    Raises:
        ConformanceFailure: it does not.
    """
    game = state.game
    legal = state.legal_moves()
    bound = game.move_bound
    choose = np.random.default_rng(state.hash() & 0xFFFF_FFFF)
    near = [m ^ (1 << b) for m in legal for b in range(min(bound.bit_length(), 24))]
    candidates = set(legal) | set(range(min(bound, 4096))) | set(near) | {-1, bound, 2**62}
    candidates |= set(choose.integers(0, bound, sample).tolist())
    moves = np.array(sorted(candidates), np.int64)
    codes = np.empty(len(moves), np.int64)
    _reason_codes(state.data, moves, codes)
    accepted = set(moves[codes == contract.LEGAL].tolist())
    _expect(accepted == set(legal), (
        f"illegal_reason is 0 for {sorted(accepted - set(legal))[:5]} (not legal) "
        f"and nonzero for {sorted(set(legal) - accepted)[:5]} (legal)"
    ))
    if state.is_terminal():
        _expect(set(codes.tolist()) == {contract.REASON_GAME_OVER}, "a move at the end is refused for another reason than the game being over")
    for i in choose.choice(len(moves), size=min(8, len(moves)), replace=False):
        if codes[i] != contract.LEGAL:
            words = game.illegal_reason(state, int(moves[i]))
            _expect(words and "\n" not in words, f"the words for code {int(codes[i])} of move {int(moves[i])} are {words!r}")


def check_actions(state: State, moves: list[int] | None = None) -> None:
    """The action mapping is a bijection on the legal moves: each legal move has its own action in
    ``0..num_actions-1``, which maps back to the move, and the legal-action mask is exactly the
    set of those actions.

    Raises:
        ConformanceFailure: it is not.
    """
    encoding = state.game.encoding
    moves = state.legal_moves() if moves is None else moves
    actions = state.legal_actions()
    _expect(len(set(actions)) == len(actions), "two legal moves share an action")
    _expect(all(0 <= a < encoding.num_actions for a in actions), f"an action outside [0, {encoding.num_actions})")
    _expect([encoding.move_of(a) for a in actions] == moves, "move -> action -> move is not the identity")
    _expect([encoding.action_of(m) for m in moves] == actions, "action_of differs from legal_actions")
    mask = state.legal_action_mask()
    _expect(mask.dtype == np.bool_ and mask.shape == (encoding.num_actions,), f"the mask is {mask.dtype}{list(mask.shape)}")
    _expect(np.flatnonzero(mask).tolist() == sorted(actions), "the mask is not the legal moves")


def check_observations(state: State) -> None:
    """Each player's observation has the variant's shape, is float32, finite, deterministic and
    leaves the state unchanged.

    Raises:
        ConformanceFailure: it does not.
    """
    shape = state.game.encoding.observation_shape
    before = state.buffer.tobytes()
    for player in (0, 1):
        obs = state.observation(player)
        _expect(obs.dtype == np.float32 and obs.shape == shape, f"player {player}'s observation is {obs.dtype}{list(obs.shape)}, not float32{list(shape)}")
        _expect(np.isfinite(obs).all(), f"player {player}'s observation is not finite")
        _expect(np.array_equal(obs, state.observation(player)), "the observation is not deterministic")
    _expect(state.buffer.tobytes() == before, "observing changed the state")
    default = 0 if state.is_terminal() else state.current_player
    _expect(np.array_equal(state.observation(), state.observation(default)),
            "the default observation is not the mover's (player 0's at the end)")


def check_views(state: State, samples: int = 2) -> None:
    """Hidden information: each player's view hides nothing it should show (the mover's legal
    moves, the render), and every world sampled from a view is a true state that shows the same
    view: two different true states consistent with one view give byte-identical views.

    Raises:
        ConformanceFailure: it does not.
    """
    game = state.game
    kernels = game.kernels
    shape = game.encoding.observation_shape
    rng = rng_from_seed(state.hash() & 0xFFFF_FFFF)
    for player in (0, 1):
        view = state.view(player)
        _expect(view.viewer == player and view.history == state.history, "a view has another viewer or history")
        _expect(view.buffer.tobytes() == state.view(player).buffer.tobytes(), "observe is not deterministic")
        _expect(isinstance(view.render(), str), "a view's render() does not return a string")
        _expect(view.is_terminal() == state.is_terminal() and view.current_player == state.current_player,
                "a view disagrees on the end or the player to move")
        if player == state.current_player:
            _expect(view.legal_moves() == state.legal_moves(), "the mover's view has other legal moves")
            check_illegal_reasons(view)
        world = np.zeros(1, kernels.STATE_DTYPE)
        again = np.zeros(1, kernels.STATE_DTYPE)
        for _ in range(samples):
            _expect(kernels.sample_world(view.data, rng, world[0]), "no world is consistent with a true view")
            kernels.observe(world[0], player, again[0])
            _expect(again.tobytes() == view.buffer.tobytes(), "a sampled world shows a different view")
            # Nothing hidden leaks into the observation: a world that shows the same view gives
            # the same observation as the true state (and as the view itself).
            seen = np.zeros(int(np.prod(shape)), np.float32)
            kernels.write_observation(world[0], player, seen)
            _expect(np.array_equal(seen.reshape(shape), state.observation(player)), "two worlds with one view give different observations")
        _expect(np.array_equal(view.observation(), state.observation(player)), "a view's observation differs from its player's")


#: The checks of every position, in the order they run.
_POSITION_CHECKS: tuple[tuple[str, Callable[[State], None]], ...] = (
    ("legal-moves", _check_legal_moves),
    ("heuristic", _check_heuristic),
    ("copy-and-hash", _check_copy),
    ("render", _check_render),
    ("notation", _check_notation),
    ("position-string", _check_position_string),
    ("illegal-moves", _check_illegal_moves),
    ("illegal-reasons", check_illegal_reasons),
    ("actions", check_actions),
    ("observations", check_observations),
)


def _check_position(checker: _Checker, state: State, invariant: Callable[[State], Any] | None) -> None:
    for name, check in _POSITION_CHECKS:
        checker.run(name, check, state)
    if invariant is not None:
        checker.run("invariant", invariant, state)
    if not state.game.perfect_information and not state.is_terminal():
        checker.run("views", check_views, state)


def check_position(state: State, invariant: Callable[[State], Any] | None = None) -> None:
    """Every check of one position (:data:`CHECKS`), and ``invariant(state)`` if given.

    Raises:
        ConformanceFailure: the first check that fails, named.
    """
    _check_position(_Checker(state.game.name, strict=True), state, invariant)


# -- whole games ------------------------------------------------------------------------------


def _play(checker: _Checker, game: Game, seed: int, move_seed: int, invariant: Callable[[State], Any] | None,
          check: bool) -> State | None:
    choose = np.random.default_rng(move_seed)
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        checker.where = f"seed {seed}, ply {state.ply}"
        if check:
            _check_position(checker, state, invariant)
        moves = state.legal_moves()
        if not moves or state.ply >= MAX_PLIES:
            if state.ply >= MAX_PLIES:
                checker.run("ends", _expect, False, f"a random game is still going after {MAX_PLIES} plies")
            return None
        move = moves[choose.integers(len(moves))]
        before = state.copy()
        child = state.copy()
        if not checker.run("plays", child.apply, move):
            return None
        if check:
            checker.run("copy-and-hash", _expect, state == before, "applying a move to a copy changed the original")
        state.apply(move)
        if check:
            checker.run("copy-and-hash", _expect, state == child and child.hash() == state.hash(),
                        "the same move applied to a copy gives another state")
    checker.where = f"seed {seed}, the end at ply {state.ply}"
    if check:
        _check_position(checker, state, invariant)
    return state


def play_random_game(game: Game, seed: int, move_seed: int, invariant: Callable[[State], Any] | None = None,
                     check: bool = True) -> State:
    """Plays one random game through the Python face (checking every position unless told not
    to); returns its final state.

    Raises:
        ConformanceFailure: a check fails (named).
    """
    state = _play(_Checker(game.name, strict=True), game, seed, move_seed, invariant, check)
    if state is None:  # a game without a legal move before its end, unchecked
        raise ConformanceFailure("a state that is not terminal has no legal move", "legal-moves")
    return state


def _check_outcome(state: State) -> None:
    outcome = state.outcome()
    _expect(outcome in (-1.0, 0.0, 1.0), f"outcome {outcome} at the end")
    assert outcome is not None
    _expect(state.returns() == (outcome, -outcome), f"returns {state.returns()} for the outcome {outcome}")
    _expect(state.winner == (None if outcome == 0 else (0 if outcome > 0 else 1)), f"winner {state.winner} for the outcome {outcome}")


def _check_end_reason(state: State) -> None:
    reason = state.end_reason
    _expect(isinstance(reason, str) and reason and "\n" not in reason, f"the end reason is {reason!r}")


def _check_record(state: State) -> None:
    replayed = GameRecord.from_json(state.record().to_json()).replay()
    _expect(replayed == state, "the record does not replay to the same state")


def _games(checker: _Checker, game: Game, games: int, invariant: Callable[[State], Any] | None) -> list[State]:
    finals = []
    checker.run("end-reason", lambda: _expect(game.new_initial_state(0).end_reason is None, "a start has an end reason"))
    for g in range(games):
        checker.where = f"seed {g}"
        checker.run("same-seed", lambda: _expect(game.new_initial_state(g) == game.new_initial_state(g), "same seed, different start"))
        state = _play(checker, game, seed=g, move_seed=1000 + g, invariant=invariant, check=True)
        if state is None:
            continue
        checker.where = f"seed {g}, the end at ply {state.ply}"
        checker.run("outcome", _check_outcome, state)
        checker.run("end-reason", _check_end_reason, state)
        checker.run("record", _check_record, state)
        if not checker.failed("same-seed"):
            quiet = _Checker(checker.label, strict=False)  # the checks ran on the first playing
            again = _play(quiet, game, seed=g, move_seed=1000 + g, invariant=None, check=False)
            checker.run("same-seed", _expect, again is not None and again.history == state.history and again == state,
                        "same seeds, different game")
        finals.append(state)
    checker.where = ""
    return finals


def check_conformance(game: Game, games: int = 20, invariant: Callable[[State], Any] | None = None) -> list[State]:
    """Random games to the end with every check of one game (:data:`CHECKS` but the random moves
    and the pure-Python run), ``invariant(state)`` at every position; returns the final states.

    Raises:
        ConformanceFailure: the first check that fails, named.
    """
    return _games(_Checker(game.name, strict=True), game, games, invariant)


# -- the contract's random moves ---------------------------------------------------------------
#
# Exact uniformity of ``random_legal_move``: the contract has it draw one ``rng_below(rng, n)``
# (``n`` legal moves) and map it to the moves one to one. A generator state that makes
# ``rng_below(rng, n)`` return any chosen ``k`` can be computed (``rng_state_for``, the
# generator run backwards), and the draws for k = 0..n-1 must then be the n legal moves, each once.


@kernel
def _draw_errors(root, rng, scratch, moves, drawn_counts):
    """Plays one random game from ``root`` (in place) by ``contract.random_legal_move``; at every
    position checks that the draws of the n values of ``rng_below(rng, n)`` are the n legal moves,
    each once, each taking one number from the generator (exact uniformity), and that the same
    generator state draws the same move (reproducibility). Returns the positions that fail."""
    errors = 0
    twin = np.empty(1, np.uint64)
    while not contract.is_terminal(root):
        n = contract.legal_moves(root, moves)
        if n == 0:
            return errors + 1
        drawn_counts[:n] = 0
        ok = True
        for k in range(n):
            start = rng_state_for(k, n)
            twin[0] = start
            ok &= rng_below(twin, n) == k
            rng[0] = start
            drawn = contract.random_legal_move(root, rng, scratch)
            ok &= rng[0] == twin[0]
            twin[0] = start
            ok &= contract.random_legal_move(root, twin, scratch) == drawn
            for i in range(n):
                if moves[i] == drawn:
                    drawn_counts[i] += 1
                    break
        for i in range(n):
            ok &= drawn_counts[i] == 1
        errors += not ok
        contract.apply_move(root, contract.random_legal_move(root, rng, scratch))
    return errors


@kernel
def _draw_counts(s, rng, scratch, moves, per_move, counts):
    """Draws ``per_move`` times as many moves as ``s`` has by ``random_legal_move``; ``counts[i]``
    (zeroed by the caller) counts the draws of the ``i``-th listed move. Returns the number of
    legal moves."""
    n = contract.legal_moves(s, moves)
    for _ in range(n * per_move):
        drawn = contract.random_legal_move(s, rng, scratch)
        for i in range(n):
            if moves[i] == drawn:
                counts[i] += 1
                break
    return n


def chi_square_bound(dof: int, z: float = 4.75) -> float:
    """The chi-square statistic with ``dof`` degrees of freedom that a uniform sample exceeds with
    probability about 1e-6 (``z`` standard deviations; Wilson and Hilferty's cube-root normal
    approximation, good to a few percent from 1 degree of freedom on)."""
    a = 2.0 / (9.0 * dof)
    return dof * (1.0 - a + z * a**0.5) ** 3


def _random_moves(checker: _Checker, game: Game, games: int, per_move: int) -> None:
    width = game.max_moves
    scratch = np.empty(width, contract.MOVE_DTYPE)
    moves = np.empty(width, contract.MOVE_DTYPE)
    for g in range(games):
        checker.where = f"seed {g}"
        checker.run("random-moves", _random_moves_of_one_game, checker, game, g, per_move, scratch, moves)
    checker.where = ""


def _random_moves_of_one_game(checker: _Checker, game: Game, g: int, per_move: int, scratch: np.ndarray,
                              moves: np.ndarray) -> None:
    state = game.new_initial_state(seed=g)
    drawn_counts = np.zeros(game.max_moves, np.int64)
    checker.run("random-moves", lambda: _expect(
        _draw_errors(state.copy().data, rng_from_seed(g), scratch, moves, drawn_counts) == 0,
        "random_legal_move is not one draw mapped one to one to the legal moves",
    ))
    # Uniformity, at a position some plies in (more moves than at the start in most games).
    rng = rng_from_seed(100 + g)
    for _ in range(3 * g + 2):
        if state.is_terminal():
            break
        state.apply(int(contract.random_legal_move(state.data, rng, scratch)))
    if not state.is_terminal():
        checker.run("random-moves", _uniform, state, rng, scratch, moves, per_move)
    # The game's playout against the default loop, from the start and from mid-game.
    for start in (game.new_initial_state(seed=g), state):
        checker.run("random-playout", _same_playout, start, g, scratch, moves)


def _uniform(state: State, rng: np.ndarray, scratch: np.ndarray, moves: np.ndarray, per_move: int) -> None:
    counts = np.zeros(len(moves), np.int64)
    n = _draw_counts(state.data, rng, scratch, moves, per_move, counts)
    if n > 1:
        observed = counts[:n]
        expected = observed.sum() / n
        statistic = float(((observed - expected) ** 2 / expected).sum())
        _expect(statistic < chi_square_bound(n - 1), f"random_legal_move is not uniform (chi-square {statistic:.1f}, {n - 1} dof)")


def _same_playout(start: State, g: int, scratch: np.ndarray, moves: np.ndarray) -> None:
    ours, theirs = start.copy().data, start.copy().data
    rng_ours, rng_theirs = rng_from_seed(200 + g), rng_from_seed(200 + g)
    plies = contract.random_playout(ours, rng_ours, scratch)
    _expect(plies == contract.default_random_playout(theirs, rng_theirs, moves), "random_playout plays another number of plies")
    _expect(ours.tobytes() == theirs.tobytes() and rng_ours[0] == rng_theirs[0], "random_playout differs from the default loop")


def check_random_moves(game: Game, games: int = 3, per_move: int = 300) -> None:
    """The contract's random move and playout: ``random_legal_move`` is exactly uniform and
    reproducible at every position of random games, its counts from a seeded generator at one
    position of each game pass a chi-square test of uniformity, and ``random_playout`` (the
    game's own where it has one) plays move for move what the default loop plays.

    Raises:
        ConformanceFailure: the first check that fails, named.
    """
    _random_moves(_Checker(game.name, strict=True), game, games, per_move)


# -- the entry points ---------------------------------------------------------------------------


def variant_label(game: Game) -> str:
    """How failures name a variant: the preset's name, or the call that makes it."""
    text = repr(game)
    return game.name if text == f"make({game.name!r})" else text


def check_variant(game: Game, *, quick: bool = False, invariant: Callable[[State], Any] | None = None) -> list[str]:
    """Every check of :data:`CHECKS` on one variant; returns the failures, each as
    ``"<variant>: <check>: <what it found> (<where>)"``, one per failing check (empty when the
    variant conforms). ``quick``: fewer games, and no pure-Python run.
    """
    checker = _Checker(variant_label(game), strict=False)
    _games(checker, game, 2 if quick else 5, invariant)
    # The kernel-level checks play to the end in compiled code, which a game that does not end
    # (or has no move before its end) would never leave.
    if not any(checker.failed(check) for check in ("legal-moves", "ends", "plays")):
        _random_moves(checker, game, 1 if quick else 3, 100 if quick else 300)
        if not quick:
            checker.run("pure-python", _check_pure_python, game)
    return checker.report()


def _check_pure_python(game: Game) -> None:
    params = dict(game.params)
    compiled = kernel_digest(game.name, params, [0])
    plain = pure_python_digest(game.name, params, [0])
    _expect(compiled == plain, "seeded random games played through the kernels differ from the same games in pure Python")


def check_game(name: str, params: Mapping[str, Any] | None = None, *, quick: bool = False) -> list[str]:
    """Checks the registered game ``name``: every preset of its family, or with ``params`` (a
    mapping, maybe empty) the one variant ``make(name, **params)``. Returns the failures, each
    as ``"<variant>: <check>: <what it found> (<where>)"`` with the check's name of
    :data:`CHECKS`; empty when the game conforms. ``quick``: fewer games per variant and no
    pure-Python run.

    Raises:
        VariantError: no game has that name, or a parameter is unknown or out of range.
    """
    if params is not None:
        variants: Iterable[Game] = [make(name, **params)]
    else:
        variants = [make(preset) for preset in game_class(name).PRESETS]
    failures: list[str] = []
    for game in variants:
        failures += check_variant(game, quick=quick)
    return failures


# -- perft and digests ------------------------------------------------------------------------


@kernel
def perft(root, depth):
    """Legal move sequences of exactly ``depth`` moves from ``root``, depth first with one state
    per level; the last level's moves are counted, not played."""
    if depth == 0:
        return 1
    states = contract.new_states(root, depth)
    moves = np.empty((depth, contract.max_moves(root)), contract.MOVE_DTYPE)
    count = np.zeros(depth, np.int64)
    index = np.zeros(depth, np.int64)
    states[0] = root
    count[0] = contract.legal_moves(states[0], moves[0])
    if depth == 1:
        return count[0]
    total = 0
    level = 0
    while level >= 0:
        if index[level] == count[level]:
            level -= 1
            continue
        move = moves[level, index[level]]
        index[level] += 1
        child = level + 1
        states[child] = states[level]
        contract.apply_move(states[child], move)
        n = contract.legal_moves(states[child], moves[child])
        if child == depth - 1:
            total += n
        else:
            count[child] = n
            index[child] = 0
            level = child
    return total


def kernel_digest(name: str, params: Mapping[str, Any], seeds: Iterable[int]) -> str:
    """Digest of seeded random games played through the kernels: moves, hashes, heuristics,
    outcomes and scores, and the final state of a ``contract.random_playout``."""
    game = make(name, **params)
    digest = hashlib.sha256()
    moves = np.empty(game.max_moves, contract.MOVE_DTYPE)
    for seed in seeds:
        state = game.new_initial_state(seed)
        record = state.data
        rng = rng_from_seed(seed)
        plies = 0
        while not contract.is_terminal(record) and plies < MAX_PLIES:
            n = contract.legal_moves(record, moves)
            if n == 0:
                break
            digest.update(moves[:n].tobytes())
            digest.update(repr((int(contract.state_hash(record)), float(contract.heuristic(record)))).encode())
            contract.apply_move(record, moves[rng_below(rng, n)])
            plies += 1
            if not game.perfect_information:
                digest.update(_view_digest(game, record, rng))
        digest.update(repr((float(contract.outcome(record)), int(contract.score(record)))).encode())
        digest.update(record.tobytes())
        start = game.new_initial_state(seed)
        contract.random_playout(start.data, rng_from_seed(seed + 1), moves)
        digest.update(start.data.tobytes())
    return digest.hexdigest()


def _view_digest(game: Game, record: np.void, rng: np.ndarray) -> bytes:
    """Both players' views of ``record`` and a world sampled from each (hidden information)."""
    view = np.zeros(1, game.kernels.STATE_DTYPE)
    world = np.zeros(1, game.kernels.STATE_DTYPE)
    out = b""
    for player in (0, 1):
        contract.observe(record, player, view[0])
        ok = contract.sample_world(view[0], rng, world[0])
        out += view.tobytes() + world.tobytes() + bytes([bool(ok)])
    return out


def pure_python_digest(name: str, params: Mapping[str, Any], seeds: Iterable[int]) -> str:
    """:func:`kernel_digest` computed in a subprocess with ``NUMBA_DISABLE_JIT=1``.

    The subprocess gets this process's import path (as multiprocessing's spawn does), so that it
    imports the same ``board_arena`` whether the package is installed, on ``PYTHONPATH`` or only
    on the path that pytest or a script put it on; and it loads the game as this process did:
    the plugin that brought it, or the module of its class.
    """
    game = make(name, **params)
    loader = sys.modules.get("board_arena.agents.plugins")  # not imported: no plugin was loaded
    plugins = loader.plugins_defining([game]) if loader is not None else []
    module = type(game).__module__
    modules = [] if plugins or module.startswith("board_arena.") else [module]
    path = [p if p else os.getcwd() for p in sys.path]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=os.pathsep.join(path))
    spec = {"name": name, "params": dict(params), "seeds": list(seeds), "plugins": plugins, "modules": modules}
    done = subprocess.run(
        [sys.executable, "-m", "board_arena.engines.conformance", json.dumps(spec)], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or [f"status {done.returncode}"]
        raise RuntimeError(f"the pure-Python digest failed: {lines[-1]}")
    return done.stdout.strip()


def _main(argv: list[str]) -> int:
    import importlib

    spec = json.loads(argv[0])
    if spec["plugins"]:
        from board_arena.agents.plugins import load_plugins

        load_plugins(spec["plugins"])
    for module in spec["modules"]:
        importlib.import_module(module)
    print(kernel_digest(spec["name"], spec["params"], spec["seeds"]))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
