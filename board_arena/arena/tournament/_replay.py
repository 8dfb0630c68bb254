"""The kernels of :mod:`arena.tournament.verify`, apart from its Python face so that an edit of the face
recompiles nothing (a cached kernel is stamped with the modules it imports).

Arrays: ``states`` a record array of the game's ``STATE_DTYPE`` ``[C]`` (a chunk of ``C`` games,
game ``first + j`` in ``states[j]``); ``template`` one start record of the variant; ``rngs``
uint64 ``[N, 1]`` (game ``i``'s start generator); ``move_ids`` int64, every game's moves
concatenated, game ``i``'s in ``move_ids[offsets[i]:offsets[i + 1]]``; the outputs ``[N]``:
``failed_ply``, ``failed_code``, ``terminal``, ``outcome``, ``score``, ``to_move``.
"""

from __future__ import annotations

from board_arena.engines import contract
from board_arena.kernels import kernel


@kernel
def draw_starts(states, template, code, rngs, first):
    """The start of game ``first + j`` in ``states[j]``: the template with its random parts (a
    deal, an opening) drawn from the game's generator (a no-op for a game without any)."""
    for j in range(states.shape[0]):
        states[j] = template
        contract.redraw_start(states[j], rngs[first + j], code)


@kernel
def replay_games(states, move_ids, offsets, first, failed_ply, failed_code, terminal, outcome, score, to_move):
    """Replays game ``first + j`` from its start ``states[j]``, which ends as its last position
    (the position before the first illegal move, if one is). ``failed_ply`` is -1 when every move
    is legal, else the first illegal one's ply (0 the first move), whose ``illegal_reason`` code
    is ``failed_code``; then the last position's ``terminal``, ``outcome`` (player 0's, 0 while the
    game goes on), ``score`` and player ``to_move``."""
    for j in range(states.shape[0]):
        i = first + j
        s = states[j]
        failed_ply[i] = -1
        failed_code[i] = contract.LEGAL
        for k in range(offsets[i], offsets[i + 1]):
            why = contract.illegal_reason(s, move_ids[k])
            if why != contract.LEGAL:
                failed_ply[i] = k - offsets[i]
                failed_code[i] = why
                break
            contract.apply_move(s, move_ids[k])
        terminal[i] = contract.is_terminal(s)
        outcome[i] = contract.outcome(s) if terminal[i] else 0.0
        score[i] = contract.score(s)
        to_move[i] = contract.current_player(s)
