"""The conformance checker that every engine passes (after pgx's and PettingZoo's ``api_test``).

``check_conformance(game)`` plays random games to the end through the Python face and checks, at
every position: legal-move invariants (unique ids in range, at most ``MAX_MOVES``, none only at the
end), notation round trips, illegal moves refused, ``illegal_reason`` 0 exactly for the legal moves
(:func:`check_illegal_reasons`), copies independent, hashes stable, heuristic
inside (-1, 1), an optional game invariant, and for hidden-information games each player's view
and worlds sampled from it (:func:`check_views`); at the end: outcome and returns, a record that replays
to the same state; and that the same seed gives the same game.

``kernel_digest(name, params, seeds)`` plays seeded random games through the kernels alone and
hashes everything they return; run as a script it prints that digest, which is how the tests
compare a compiled run with a pure-Python (``NUMBA_DISABLE_JIT=1``) one.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from board_arena import engines
from board_arena.engines import IllegalMoveError, contract
from board_arena.kernels import kernel, rng_below, rng_from_seed
from board_arena.kernels.random import GOLDEN, MIX1, MIX2

ROOT = Path(__file__).resolve().parent.parent


def check_position(state, invariant=None):
    game = state.game
    moves = state.legal_moves()
    assert len(moves) == len(set(moves)), f"duplicate legal moves {moves}"
    assert len(moves) <= game.max_moves
    assert len(moves) <= contract.max_moves(state.data), "more legal moves than the variant's capacity"
    assert all(0 <= m < game.move_bound for m in moves), moves
    assert state.current_player in (0, 1)
    if state.is_terminal():
        assert moves == [], "a terminal state has no legal moves"
        return
    assert moves, "a state that is not terminal has a legal move (a pass is a move)"
    h = state.heuristic()
    assert -1.0 < h < 1.0, f"heuristic {h} outside (-1, 1)"
    assert state.copy().hash() == state.hash()
    assert isinstance(state.render(), str)
    for move in moves:
        text = state.format_move(move)
        assert state.parse_move(text) == move, f"notation {text!r} does not parse back to {move}"
    illegal = next((m for m in range(game.move_bound) if m not in moves), None)
    for bad in (illegal, -1, game.move_bound):
        if bad is None:
            continue
        try:
            state.copy().apply(bad)
        except IllegalMoveError as error:
            assert str(error) and "\n" not in str(error)
        else:
            raise AssertionError(f"illegal move {bad} was accepted")
    check_illegal_reasons(state)
    if invariant is not None:
        invariant(state)
    check_actions(state, moves)
    check_observations(state)
    if not game.perfect_information:
        check_views(state)


@kernel
def _reason_codes(s, moves, out):
    for i in range(len(moves)):
        out[i] = contract.illegal_reason(s, moves[i])


def check_illegal_reasons(state, sample=256):
    """The kernel's ``illegal_reason`` is 0 exactly for the legal moves, among: every legal move,
    every id below 4096 (the whole encoding of the small games), a seeded sample of the rest,
    the legal moves with one bit flipped (near misses: another shot, end, direction, jump count)
    and ids outside the encoding; each nonzero code has one line of words."""
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
    assert accepted == set(legal), (
        f"illegal_reason is 0 for {sorted(accepted - set(legal))[:5]} (not legal) "
        f"and nonzero for {sorted(set(legal) - accepted)[:5]} (legal)"
    )
    if state.is_terminal():
        assert set(codes.tolist()) == {contract.REASON_GAME_OVER}
    for i in choose.choice(len(moves), size=min(8, len(moves)), replace=False):
        if codes[i] != contract.LEGAL:
            words = game.illegal_reason(state, int(moves[i]))
            assert words and "\n" not in words, words


def check_actions(state, moves):
    """The action mapping is a bijection on the legal moves: each legal move has its own action in
    ``0..num_actions-1``, which maps back to the move, and the legal-action mask is exactly the
    set of those actions."""
    game = state.game
    actions = state.legal_actions()
    assert len(set(actions)) == len(actions), "two legal moves share an action"
    assert all(0 <= a < game.num_actions for a in actions)
    assert [game.move_of(a) for a in actions] == moves, "move -> action -> move is not the identity"
    assert [game.action_of(m) for m in moves] == actions
    mask = state.legal_action_mask()
    assert mask.dtype == np.bool_ and mask.shape == (game.num_actions,)
    assert np.flatnonzero(mask).tolist() == sorted(actions), "the mask is not the legal moves"


def check_observations(state):
    """Each player's observation has the variant's shape, is float32, finite, deterministic and
    leaves the state unchanged."""
    game = state.game
    before = state.buffer.tobytes()
    for player in (0, 1):
        obs = state.observation(player)
        assert obs.dtype == np.float32 and obs.shape == game.observation_shape
        assert np.isfinite(obs).all()
        assert np.array_equal(obs, state.observation(player)), "observation is not deterministic"
    assert state.buffer.tobytes() == before, "observing changed the state"
    assert np.array_equal(state.observation(), state.observation(state.current_player))


def check_views(state, samples=2):
    """Hidden information: each player's view hides nothing it should show (the mover's legal
    moves, the render), and every world sampled from a view is a true state that shows the same
    view: two different true states consistent with one view give byte-identical views."""
    kernels = state.game.kernels
    rng = rng_from_seed(state.hash() & 0xFFFF_FFFF)
    for player in (0, 1):
        view = state.view(player)
        assert view.viewer == player and view.history == state.history
        assert view.buffer.tobytes() == state.view(player).buffer.tobytes(), "observe is not deterministic"
        assert isinstance(view.render(), str)
        assert view.is_terminal() == state.is_terminal() and view.current_player == state.current_player
        if player == state.current_player:
            assert view.legal_moves() == state.legal_moves(), "the mover's view has other legal moves"
            check_illegal_reasons(view)
        world = np.zeros(1, kernels.STATE_DTYPE)
        again = np.zeros(1, kernels.STATE_DTYPE)
        for _ in range(samples):
            assert kernels.sample_world(view.data, rng, world[0]), "no world is consistent with a true view"
            kernels.observe(world[0], player, again[0])
            assert again.tobytes() == view.buffer.tobytes(), "a sampled world shows a different view"
            # Nothing hidden leaks into the observation: a world that shows the same view gives
            # the same observation as the true state (and as the view itself).
            seen = np.zeros(int(np.prod(state.game.observation_shape)), np.float32)
            kernels.write_observation(world[0], player, seen)
            assert np.array_equal(seen.reshape(state.game.observation_shape), state.observation(player)), (
                "two worlds with one view give different observations"
            )
        assert np.array_equal(view.observation(), state.observation(player))


def play_random_game(game, seed, move_seed, invariant=None, check=True):
    """Plays one random game through the Python face (checking every position); returns it."""
    choose = np.random.default_rng(move_seed)
    state = game.new_initial_state(seed)
    while not state.is_terminal():
        if check:
            check_position(state, invariant)
        moves = state.legal_moves()
        move = moves[choose.integers(len(moves))]
        before = state.copy()
        child = state.copy()
        child.apply(move)
        assert state == before, "applying a move to a copy changed the original"
        state.apply(move)
        assert state == child
        assert child.hash() == state.hash()
    if check:
        check_position(state, invariant)
    return state


def check_conformance(game, games=20, invariant=None):
    """Random games to the end with every check of this module; returns the final states."""
    finals = []
    for g in range(games):
        assert game.new_initial_state(g) == game.new_initial_state(g), "same seed, different start"
        state = play_random_game(game, seed=g, move_seed=1000 + g, invariant=invariant)
        outcome = state.outcome()
        assert outcome in (-1.0, 0.0, 1.0)
        assert state.returns() == (outcome, -outcome)
        assert state.winner == (None if outcome == 0 else (0 if outcome > 0 else 1))
        record = state.record()
        replayed = engines.GameRecord.from_json(record.to_json()).replay()
        assert replayed == state, "the record does not replay to the same state"
        again = play_random_game(game, seed=g, move_seed=1000 + g, check=False)
        assert again.history == state.history and again == state, "same seeds, different game"
        finals.append(state)
    return finals


# Exact uniformity of ``random_legal_move``: the contract has it draw one ``rng_below(rng, n)``
# (``n`` legal moves) and map it to the moves one to one. The generator's next number is
# ``mix64(state + GOLDEN)``, a bijection, so a generator state that makes ``rng_below(rng, n)``
# return any chosen ``k`` can be computed (splitmix64's finaliser inverted step by step), and the
# draws for k = 0..n-1 must then be the n legal moves, each once.
_MIX1_INVERSE = np.uint64(pow(int(MIX1), -1, 2**64))
_MIX2_INVERSE = np.uint64(pow(int(MIX2), -1, 2**64))
_U27, _U30, _U31, _U32, _U54, _U60, _U62 = (np.uint64(k) for k in (27, 30, 31, 32, 54, 60, 62))


@kernel(inline="always")
def generator_for(k, n):
    """A generator state (``rng[0]``) whose next ``rng_below(rng, n)`` is ``k`` (0 <= k < n < 2**32):
    the one whose next 64 bits are ``ceil(k * 2**32 / n) << 32``."""
    z = ((np.uint64(k) << _U32) + np.uint64(n - 1)) // np.uint64(n) << _U32
    z ^= (z >> _U31) ^ (z >> _U62)  # mix64 backwards
    z *= _MIX2_INVERSE
    z ^= (z >> _U27) ^ (z >> _U54)
    z *= _MIX1_INVERSE
    z ^= (z >> _U30) ^ (z >> _U60)
    return z - GOLDEN


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
        drawn_counts[:n] = 0
        ok = True
        for k in range(n):
            start = generator_for(k, n)
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


def check_random_moves(game, games=3, per_move=300):
    """The contract's random move and playout: ``random_legal_move`` is exactly uniform and
    reproducible at every position of random games (:func:`_draw_errors`), its counts from a
    seeded generator at one position of each game pass a chi-square test of uniformity, and
    ``random_playout`` (the game's own where it has one) plays move for move what the default
    loop plays."""
    width = game.max_moves
    scratch = np.empty(width, contract.MOVE_DTYPE)
    moves = np.empty(width, contract.MOVE_DTYPE)
    for g in range(games):
        state = game.new_initial_state(seed=g)
        drawn_counts = np.zeros(width, np.int64)
        assert _draw_errors(state.copy().data, rng_from_seed(g), scratch, moves, drawn_counts) == 0, (
            f"{game.name}: random_legal_move is not one draw mapped one to one to the legal moves"
        )
        # Uniformity, at a position some plies in (more moves than at the start in most games).
        rng = rng_from_seed(100 + g)
        for _ in range(3 * g + 2):
            if state.is_terminal():
                break
            state.apply(int(contract.random_legal_move(state.data, rng, scratch)))
        if not state.is_terminal():
            counts = np.zeros(width, np.int64)
            n = _draw_counts(state.data, rng, scratch, moves, per_move, counts)
            observed = counts[:n]
            expected = observed.sum() / n
            if n > 1:
                statistic = float(((observed - expected) ** 2 / expected).sum())
                assert statistic < chi_square_bound(n - 1), (
                    f"{game.name}: random_legal_move is not uniform (chi-square {statistic:.1f}, {n - 1} dof)"
                )
        # The game's playout against the default loop, from the start and from mid-game.
        for start in (game.new_initial_state(seed=g), state):
            ours, theirs = start.copy().data, start.copy().data
            rng_ours, rng_theirs = rng_from_seed(200 + g), rng_from_seed(200 + g)
            plies = contract.random_playout(ours, rng_ours, scratch)
            assert plies == contract.default_random_playout(theirs, rng_theirs, moves), game.name
            assert ours.tobytes() == theirs.tobytes() and rng_ours[0] == rng_theirs[0], (
                f"{game.name}: random_playout differs from the default loop"
            )


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


def kernel_digest(name: str, params: dict, seeds) -> str:
    """Digest of seeded random games played through the kernels: moves, hashes, heuristics,
    outcomes and scores, and the final state of a ``contract.random_playout``."""
    game = engines.make(name, **params)
    digest = hashlib.sha256()
    moves = np.empty(game.max_moves, contract.MOVE_DTYPE)
    for seed in seeds:
        state = game.new_initial_state(seed)
        record = state.data
        rng = rng_from_seed(seed)
        while not contract.is_terminal(record):
            n = contract.legal_moves(record, moves)
            digest.update(moves[:n].tobytes())
            digest.update(repr((int(contract.state_hash(record)), float(contract.heuristic(record)))).encode())
            contract.apply_move(record, moves[rng_below(rng, n)])
            if not game.perfect_information:
                digest.update(_view_digest(game, record, rng))
        digest.update(repr((float(contract.outcome(record)), int(contract.score(record)))).encode())
        digest.update(record.tobytes())
        start = game.new_initial_state(seed)
        contract.random_playout(start.data, rng_from_seed(seed + 1), moves)
        digest.update(start.data.tobytes())
    return digest.hexdigest()


def _view_digest(game, record, rng) -> bytes:
    """Both players' views of ``record`` and a world sampled from each (hidden information)."""
    view = np.zeros(1, game.kernels.STATE_DTYPE)
    world = np.zeros(1, game.kernels.STATE_DTYPE)
    out = b""
    for player in (0, 1):
        contract.observe(record, player, view[0])
        ok = contract.sample_world(view[0], rng, world[0])
        out += view.tobytes() + world.tobytes() + bytes([bool(ok)])
    return out


def pure_python_digest(name: str, params: dict, seeds) -> str:
    """:func:`kernel_digest` computed in a subprocess with ``NUMBA_DISABLE_JIT=1``.

    The subprocess gets this process's import path (as multiprocessing's spawn does), so that it
    imports the same ``board_arena`` whether the package is installed, on ``PYTHONPATH`` or only
    on the path that pytest or a script put it on (run as a script, this file's own folder comes
    first on its path, not the checkout).
    """
    path = [p if p else os.getcwd() for p in sys.path]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=os.pathsep.join(path))
    args = json.dumps({"name": name, "params": params, "seeds": list(seeds)})
    done = subprocess.run(
        [sys.executable, __file__, args], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    )
    return done.stdout.strip()


if __name__ == "__main__":
    spec = json.loads(sys.argv[1])
    print(kernel_digest(spec["name"], spec["params"], spec["seeds"]))
