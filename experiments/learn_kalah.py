"""Learns a Kalah(6,4) evaluation by self-play and checks that it beats ``greedy``.

TD(0) learning of a linear afterstate value (``engines.mancala.learned.kalah_features``: each
pit's seed count one-hot, the store margin, the move-again flag), numpy only, fed by the batched
compiled environment: every step, ``BatchedEnv.afterstates`` shows each game's legal moves'
results; the learner plays the move it values most (epsilon-greedy), and moves the value of each
player's previous afterstate towards the value of the next one (negated when the other player
moved, the exact result when the game ended). The weights go to ``td_kalah.json`` in the current
folder (``--out FILE``; ``arena run --agents td-kalah:weights=FILE`` plays them), or, with
``--replace-shipped``, to ``board_arena/engines/mancala/td_kalah.json``, the weights the
registered agent ``td-kalah`` ships with; the script then plays them against ``greedy`` and
``random`` (both seats) and prints the scores.

    python experiments/learn_kalah.py                      # train (under a minute), save, evaluate
    python experiments/learn_kalah.py --replace-shipped    # the same, into the package's weights
    python experiments/learn_kalah.py --evaluate-only      # evaluate the shipped weights
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from board_arena import agents, engines
from board_arena.commandline import OneLineParser
from board_arena.engines.mancala.learned import (
    BUNDLED_WEIGHTS,
    feature_count,
    kalah_features,
)
from board_arena.envs import BatchedEnv
from board_arena.files import check_writable, write_text_whole


def train(steps: int, num_envs: int, seed: int, alpha: float, epsilon: float) -> tuple[np.ndarray, dict]:
    env = BatchedEnv("kalah", num_envs=num_envs, seed=seed)
    pits = env.game.params["pits"]
    w = np.zeros(feature_count(pits), np.float64)
    rng = np.random.default_rng(seed)
    rows = np.arange(num_envs)
    prev_feat = np.zeros((num_envs, len(w)), np.float32)
    prev_player = np.zeros(num_envs, np.int64)
    has_prev = np.zeros(num_envs, np.bool_)
    games = 0
    start = time.perf_counter()
    for step in range(steps):
        mask = env.mask
        obs, again, terminal, exact = env.afterstates()
        feats = kalah_features(obs, again)
        values = np.where(terminal, exact, np.tanh(feats @ w))
        values = np.where(mask, values, -np.inf)
        best = values.argmax(axis=1)
        explore = rng.random(num_envs) < epsilon * (1.0 - step / steps)
        if explore.any():
            noise = np.where(mask, rng.random(mask.shape), -1.0)
            best = np.where(explore, noise.argmax(axis=1), best)
        chosen_value = values[rows, best]
        mover = env.to_play.copy()
        if has_prev.any():
            # TD(0) between a player's previous afterstate and the next afterstate of the game.
            target = np.where(prev_player == mover, chosen_value, -chosen_value)
            current = np.tanh(prev_feat @ w)
            delta = np.where(has_prev, (target - current) * (1.0 - current**2), 0.0)
            w += alpha * (delta[:, None] * prev_feat).sum(axis=0) / max(1, has_prev.sum())
        chosen_feat = feats[rows, best]
        _, _, _, dones = env.step(best)
        games += int(dones.sum())
        prev_feat = chosen_feat
        prev_player = mover
        has_prev = ~dones  # a finished game's last afterstate is exact: nothing to learn from it
    seconds = time.perf_counter() - start
    meta = {
        "game": "kalah",
        "pits": pits,
        "seeds": env.game.params["seeds"],
        "steps": steps * num_envs,
        "games": games,
        "seconds": round(seconds, 1),
        "num_envs": num_envs,
        "seed": seed,
        "alpha": alpha,
        "epsilon": epsilon,
    }
    return w.astype(np.float32), meta


def evaluate(spec: str, opponent: str, games: int, seed: int) -> float:
    """td-kalah's score (wins + draws / 2, over games) against ``opponent``, half the games in
    each seat, starts from seeds."""
    game = engines.make("kalah")
    score = 0.0
    for g in range(games):
        td = agents.make_agent(spec, seed=seed + g)
        other = agents.make_agent(opponent, seed=seed + 10_000 + g)
        seat = g % 2
        players = [td, other] if seat == 0 else [other, td]
        final = agents.play_game(game, players, seed=seed + g)
        score += (final.returns()[seat] + 1.0) / 2.0
    return score / games


def main(argv: list[str] | None = None) -> None:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=6000, help="batched steps (each steps every game)")
    parser.add_argument("--num-envs", type=int, default=512)
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--epsilon", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", type=int, default=200, help="evaluation games against each opponent")
    parser.add_argument("--out", type=Path, default=None, help="where the weights go (default: td_kalah.json here)")
    parser.add_argument("--replace-shipped", action="store_true", help=f"write the package's own weights, {BUNDLED_WEIGHTS}")
    parser.add_argument("--evaluate-only", action="store_true", help="evaluate --out (default: the shipped weights)")
    args = parser.parse_args(argv)
    for name, low, high in (("steps", 1, 10**7), ("num_envs", 1, 1 << 20), ("games", 1, 10**6)):
        if not low <= getattr(args, name) <= high:
            parser.error(f"--{name.replace('_', '-')} must be from {low:,} to {high:,}, not {getattr(args, name):,}")
    if not (0 < args.alpha <= 10 and 0 <= args.epsilon <= 1):
        parser.error(f"--alpha must be in (0, 10] and --epsilon in [0, 1], not {args.alpha} and {args.epsilon}")
    if args.replace_shipped and args.out is not None:
        parser.error("give --out FILE or --replace-shipped, not both")
    out = BUNDLED_WEIGHTS if args.replace_shipped or (args.evaluate_only and args.out is None) else args.out or Path("td_kalah.json")
    if not args.evaluate_only:
        try:
            check_writable(out, "--out")  # before the training, not after it
        except ValueError as error:
            parser.error(str(error))
        weights, meta = train(args.steps, args.num_envs, args.seed, args.alpha, args.epsilon)
        write_text_whole(out, json.dumps({**meta, "weights": [round(float(x), 6) for x in weights]}) + "\n")
        print(
            f"trained on {meta['steps']:,} positions ({meta['games']:,} self-play games) in {meta['seconds']} s; "
            f"weights in {out}"
        )
    spec = "td-kalah" if out.resolve() == BUNDLED_WEIGHTS else f"td-kalah:weights={out}"
    for opponent in ("random", "greedy"):
        score = evaluate(spec, opponent, args.games, seed=1000)
        print(f"{spec} vs {opponent}: score {score:.3f} over {args.games} games (both seats)")


if __name__ == "__main__":
    main()
