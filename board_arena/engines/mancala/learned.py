"""``td-kalah``: Mancala's own agent, a Kalah player whose evaluation is learned by self-play
(``experiments/learn_kalah.py``: TD(0) learning of a linear afterstate value, fed by the batched
environment), playing the move whose resulting position it values most, one ply ahead.

The value of a position after a move, for the player who made it, is ``tanh(w . features)``
(:func:`kalah_features`: each pit's seed count one-hot, the store margin, whether the mover moves
again). The weights ship beside this module (``td_kalah.json``, for Kalah(6,4)); a ``weights``
parameter loads others. Importing :mod:`board_arena.agents` registers the agent.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from board_arena.agents.base import Agent, SearchInfo, register_agent
from board_arena.agents.params import AgentParam
from board_arena.engines import Game
from board_arena.kernels import rng_below

__all__ = ["kalah_features", "feature_count", "TDKalahAgent", "BUNDLED_WEIGHTS", "MAX_COUNT"]

BUNDLED_WEIGHTS = Path(__file__).resolve().parent / "td_kalah.json"
#: Seed counts at or above this share one feature.
MAX_COUNT = 12
#: The same for the n-tuples of two facing pits (own pit j and the opponent's pit opposite).
PAIR_COUNT = 8


def feature_count(pits: int) -> int:
    return 2 * pits * (MAX_COUNT + 1) + pits * PAIR_COUNT * PAIR_COUNT + 4


def kalah_features(obs: np.ndarray, again: np.ndarray) -> np.ndarray:
    """Features of positions seen by the player who just moved.

    Args:
        obs: float32 ``[..., 2, pits + 1]``, the game's observation from that player's side.
        again: bool ``[...]``, that player moves again.

    Returns:
        float32 ``[..., feature_count(pits)]``: per pit (own row then the opponent's) a one-hot
        of its seed count (``MAX_COUNT`` and more together); per pair of facing pits (an n-tuple:
        captures happen across them) a one-hot of the two counts (``PAIR_COUNT`` and more
        together); the store margin and the margin of seeds on each side (which the end sweeps
        to their owner), both over the seeds in play; the move-again flag and a bias.
    """
    pits = obs.shape[-1] - 1
    lead = obs.shape[:-2]
    own = obs[..., 0, :pits]
    opposite = obs[..., 1, :pits][..., ::-1]  # the opponent's pit facing own pit j
    counts = np.minimum(obs[..., :pits], MAX_COUNT).astype(np.int64).reshape(*lead, 2 * pits)
    onehot = np.zeros((*counts.shape, MAX_COUNT + 1), np.float32)
    np.put_along_axis(onehot, counts[..., None], 1.0, axis=-1)
    pair = (np.minimum(own, PAIR_COUNT - 1) * PAIR_COUNT + np.minimum(opposite, PAIR_COUNT - 1)).astype(np.int64)
    pairs = np.zeros((*pair.shape, PAIR_COUNT * PAIR_COUNT), np.float32)
    np.put_along_axis(pairs, pair[..., None], 1.0, axis=-1)
    total = np.maximum(obs.sum(axis=(-1, -2)), 1.0)
    margin = (obs[..., 0, pits] - obs[..., 1, pits]) / total
    side = (own.sum(axis=-1) - opposite.sum(axis=-1)) / total
    return np.concatenate(
        [
            onehot.reshape(*lead, -1),
            pairs.reshape(*lead, -1),
            margin[..., None],
            side[..., None],
            again[..., None].astype(np.float32),
            np.ones_like(margin)[..., None],
        ],
        axis=-1,
    ).astype(np.float32)


def load_weights(path: str | Path) -> tuple[np.ndarray, dict]:
    """(weights, metadata) from a JSON file written by ``experiments/learn_kalah.py``; the
    metadata's ``pits`` is the number of pits the weights are for (told by their count).

    Raises:
        ValueError: the file cannot be read, or holds no weights of a Kalah variant.
    """
    try:
        data = json.loads(Path(path).read_text())
        weights = np.asarray(data["weights"], np.float32)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"cannot read TD weights from {path}: {error}") from None
    fits = [pits for pits in range(1, 9) if weights.shape == (feature_count(pits),)]
    if not isinstance(data, dict) or not fits or not np.isfinite(weights).all():
        raise ValueError(f"{path} holds no TD weights of a Kalah variant (experiments/learn_kalah.py writes them)")
    return weights, {**data, "pits": fits[0]}


@register_agent
class TDKalahAgent(Agent):
    name = "td-kalah"
    summary = "learned linear afterstate value (TD self-play, experiments/learn_kalah.py), one ply"
    PARAMS = (
        AgentParam("weights", "", "a weights file of experiments/learn_kalah.py; empty: the bundled Kalah(6,4) ones", effect="file"),
    )

    def _check_params(self):
        path = self.params["weights"] or BUNDLED_WEIGHTS
        self.weights, self.meta = load_weights(path)

    def check_game(self, game: Game) -> None:
        if game.family != "mancala" or feature_count(game.params["pits"]) != len(self.weights):
            raise ValueError(
                f"td-kalah plays the Mancala variant its weights were learned on "
                f"({self.meta.get('game', 'kalah')} with {self.meta['pits']} pits), not {game.name}"
                f"{'' if game.family != 'mancala' else ' with ' + str(game.params['pits']) + ' pits'}"
            )

    def warm_up(self, game: Game) -> None:
        self.check_game(game)

    def _select(self, state, limit):
        game = state.game
        me = state.current_player
        moves = state.legal_moves()
        best, best_value, ties = moves[0], -np.inf, 0
        for move in moves:
            child = state.copy()
            child.apply(move)
            if child.is_terminal():
                value = float(child.returns()[me]) * 2.0  # a result beats any estimate
            else:
                again = np.array(child.current_player == me)
                value = float(np.tanh(kalah_features(game.encoding.observation(child, me), again) @ self.weights))
            if value > best_value:
                best, best_value, ties = move, value, 1
            elif value == best_value:
                ties += 1
                if rng_below(self.rng, ties) == 0:  # ties broken at random, as greedy does
                    best = move
        return SearchInfo(move=int(best), value=max(-1.0, min(1.0, best_value)), depth=1)
