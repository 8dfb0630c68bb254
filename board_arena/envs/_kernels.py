"""The kernels of :mod:`envs.batched`, apart from its Python face so that an edit of the face
recompiles nothing (a cached kernel is stamped with the modules it imports).

Arrays: ``states`` a record array of the game's ``STATE_DTYPE`` ``[N]``; ``obs`` float32
``[N, prod(observation_shape)]``; ``masks`` bool ``[N, num_actions]``; ``rewards`` float32
``[N, 2]``; ``dones`` bool ``[N]``; ``to_play`` int64 ``[N]``; ``rngs`` uint64 ``[N, 1]`` (one
generator per slot); ``moves`` int64 scratch of ``MAX_MOVES``; the action tables as in
:class:`engines.encoding.ActionSpace`.
"""

from __future__ import annotations

from board_arena.engines import contract
from board_arena.engines.encoding import write_action_mask
from board_arena.kernels import kernel, rng_below


@kernel
def reset_all(states, template, code, rngs, obs, masks, to_play, moves, dense, sorted_moves, sorted_actions):
    """Every slot a new game: the template start with its random parts drawn from the slot's rng."""
    for i in range(states.shape[0]):
        states[i] = template
        contract.redraw_start(states[i], rngs[i], code)
        p = contract.current_player(states[i])
        to_play[i] = p
        contract.write_observation(states[i], p, obs[i])
        write_action_mask(states[i], moves, dense, sorted_moves, sorted_actions, masks, i)


@kernel
def step_all(states, template, code, rngs, actions, action_moves, dense, sorted_moves, sorted_actions,
              obs, masks, rewards, dones, to_play, moves):
    """Plays ``actions[i]`` in game ``i`` for every i; a game that ends gives its rewards (player
    0's and player 1's outcome) and restarts. Returns -1, or the first slot whose action is not
    legal (then no game is played)."""
    num_actions = action_moves.shape[0]
    for i in range(states.shape[0]):
        a = actions[i]
        if a < 0 or a >= num_actions or not masks[i, a]:
            return i
    for i in range(states.shape[0]):
        a = actions[i]
        s = states[i]
        contract.apply_move(s, action_moves[a])
        if contract.is_terminal(s):
            v = contract.outcome(s)
            rewards[i, 0] = v
            rewards[i, 1] = -v
            dones[i] = True
            states[i] = template
            contract.redraw_start(states[i], rngs[i], code)
        else:
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
            dones[i] = False
        p = contract.current_player(states[i])
        to_play[i] = p
        contract.write_observation(states[i], p, obs[i])
        write_action_mask(states[i], moves, dense, sorted_moves, sorted_actions, masks, i)
    return -1


@kernel
def random_actions(masks, rng, out):
    """``out[i]``: a uniformly random legal action of slot ``i`` (``masks: bool[N, A]``)."""
    for i in range(masks.shape[0]):
        n = 0
        for a in range(masks.shape[1]):
            n += masks[i, a]
        k = rng_below(rng, n)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


@kernel
def random_step(states, template, code, rngs, action_rng, actions, action_moves, dense, sorted_moves,
                 sorted_actions, obs, masks, rewards, dones, to_play, moves):
    """:func:`random_actions` then :func:`step_all`, without a return to Python between them."""
    random_actions(masks, action_rng, actions)
    step_all(states, template, code, rngs, actions, action_moves, dense, sorted_moves, sorted_actions,
              obs, masks, rewards, dones, to_play, moves)


@kernel
def afterstates(states, action_moves, masks, scratch, obs, again, terminal, value):
    """For every game ``i`` and legal action ``a``: the position after it, seen by the mover
    (``obs[i, a]``), whether the mover moves again, whether it ends the game and then the mover's
    result (``value[i, a]``)."""
    for i in range(states.shape[0]):
        mover = contract.current_player(states[i])
        for a in range(masks.shape[1]):
            if not masks[i, a]:
                continue
            scratch[0] = states[i]
            contract.apply_move(scratch[0], action_moves[a])
            contract.write_observation(scratch[0], mover, obs[i, a])
            done = contract.is_terminal(scratch[0])
            terminal[i, a] = done
            again[i, a] = not done and contract.current_player(scratch[0]) == mover
            value[i, a] = contract.value_for(scratch[0], mover) if done else 0.0
