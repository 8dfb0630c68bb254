"""Policy and value networks for the network-guided searches (``az``): a residual MLP over a
game's observation tensor, its weights in a checked file, and its forward pass in compiled code.

The network, for an observation ``x`` (the game's ``encoding.observation``, flattened, of
``inputs`` floats) and ``hidden`` units::

    h = relu(W_in x + b_in)
    h = relu(h + W2 relu(W1 h + b1) + b2)        (``blocks`` times, each with its own weights)
    logits = W_policy h + b_policy               (one per action of ``encoding.action_space``)
    value = tanh(w_value . h + b_value)          (for the player to move, in (-1, 1))

All weights are one float32 array (:attr:`Network.weights`) in the order above, each matrix
stored so that the compiled pass reads it contiguously: ``W_in`` and the blocks' matrices by
input (``[in, out]``, so a zero input, the usual case in board planes, costs nothing), the policy
matrix by action (``[action, hidden]``, so that a position's logits cost only its legal actions).
:meth:`Network.layers` gives them as the ``[out, in]`` matrices a learning library uses
(``torch.nn.Linear.weight``), and :meth:`Network.from_layers` takes them back.

A weights file is a data file (:mod:`engines.datafile`) of kind ``network``: its header names the
game variant and the network's sizes, and its checksum covers the weights, so that a missing,
truncated, altered or foreign file, or one of another game or size, is refused in one line.

    >>> from board_arena import engines
    >>> from board_arena.agents.network import Network
    >>> game = engines.make("kalah")
    >>> net = Network.random(game, hidden=16, blocks=1, seed=0)
    >>> logits, value = net.evaluate(game.new_initial_state())
    >>> logits.shape, -1.0 < value < 1.0
    ((6,), True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from board_arena.engines import datafile
from board_arena.kernels import kernel

if TYPE_CHECKING:
    from board_arena.engines import Game, State

__all__ = ["Network", "NetworkError", "FILE_KIND", "FILE_VERSION", "network_forward", "MAX_HIDDEN", "MAX_BLOCKS"]

FILE_KIND = "network"
FILE_VERSION = 1
#: Bounds on the sizes a network file may declare (beyond them a file is taken as damaged).
MAX_HIDDEN = 4096
MAX_BLOCKS = 64

# Slots of the ``dims`` array that the compiled pass takes.
DIM_INPUTS = 0
DIM_HIDDEN = 1
DIM_BLOCKS = 2
DIM_ACTIONS = 3


class NetworkError(ValueError):
    """A network that cannot be used (a bad file, another game's, sizes that do not fit)."""


def weight_count(inputs: int, hidden: int, blocks: int, actions: int) -> int:
    """The number of floats of a network of these sizes."""
    return inputs * hidden + hidden + blocks * 2 * (hidden * hidden + hidden) + actions * (hidden + 1) + hidden + 1


def _variant(game: Game) -> dict[str, Any]:
    """What a file says of the game it is for: the preset and every parameter."""
    return {"game": game.name, "params": {k: (v if isinstance(v, (bool, int, float, str)) else str(v)) for k, v in game.params.items()}}


@dataclass(frozen=True)
class Network:
    """A residual MLP's sizes and weights, for one game variant (``game``)."""

    game: Game
    hidden: int
    blocks: int
    weights: np.ndarray  # float32[weight_count(...)], the layout of the module's docstring

    def __post_init__(self) -> None:
        if not 1 <= self.hidden <= MAX_HIDDEN or not 0 <= self.blocks <= MAX_BLOCKS:
            raise NetworkError(f"a network has 1 to {MAX_HIDDEN} hidden units and 0 to {MAX_BLOCKS} blocks, "
                               f"not {self.hidden} and {self.blocks}")
        expected = weight_count(self.inputs, self.hidden, self.blocks, self.actions)
        if self.weights.dtype != np.float32 or self.weights.shape != (expected,):
            raise NetworkError(f"a {self.hidden}x{self.blocks} network of {self.game.name} has {expected} float32 weights, "
                               f"not {self.weights.shape} {self.weights.dtype}")
        if not np.isfinite(self.weights).all():
            raise NetworkError("a network's weights must be finite numbers")

    @property
    def inputs(self) -> int:
        """The observation's size (flattened)."""
        return int(np.prod(self.game.encoding.observation_shape))

    @property
    def actions(self) -> int:
        """The game's number of actions (the policy's outputs)."""
        return self.game.encoding.num_actions

    @property
    def dims(self) -> np.ndarray:
        """int64[4]: (inputs, hidden, blocks, actions), as the compiled pass takes them."""
        return np.array([self.inputs, self.hidden, self.blocks, self.actions], np.int64)

    # -- making one ---------------------------------------------------------------------------

    @classmethod
    def random(cls, game: Game, hidden: int = 64, blocks: int = 2, seed: int = 0) -> "Network":
        """A network with freshly drawn weights (He-uniform matrices, zero biases; each block's
        second matrix at a tenth of that scale, so that a new network starts close to its
        trunk), the same for the same seed."""
        rng = np.random.default_rng(seed)
        inputs = int(np.prod(game.encoding.observation_shape))
        actions = game.encoding.num_actions

        def matrix(out: int, into: int, scale: float = 1.0) -> np.ndarray:
            bound = scale * math.sqrt(6.0 / into)
            return rng.uniform(-bound, bound, (out, into)).astype(np.float32)

        layers: list[np.ndarray] = [matrix(hidden, inputs), np.zeros(hidden, np.float32)]
        for _ in range(blocks):
            layers += [matrix(hidden, hidden), np.zeros(hidden, np.float32),
                       matrix(hidden, hidden, 0.1), np.zeros(hidden, np.float32)]
        layers += [matrix(actions, hidden, 0.1), np.zeros(actions, np.float32),
                   matrix(1, hidden, 0.1)[0], np.zeros(1, np.float32)]
        return cls.from_layers(game, layers)

    def layers(self) -> list[np.ndarray]:
        """The weights as a learning library holds them: ``[W_in, b_in, (W1, b1, W2, b2) per
        block, W_policy, b_policy, w_value, b_value]``, each matrix ``[out, in]`` (copies)."""
        inputs, hidden, actions = self.inputs, self.hidden, self.actions
        w = self.weights
        at = 0

        def take(n: int) -> np.ndarray:
            nonlocal at
            part = w[at:at + n]
            at += n
            return part

        out = [take(inputs * hidden).reshape(inputs, hidden).T.copy(), take(hidden).copy()]
        for _ in range(self.blocks):
            out += [take(hidden * hidden).reshape(hidden, hidden).T.copy(), take(hidden).copy(),
                    take(hidden * hidden).reshape(hidden, hidden).T.copy(), take(hidden).copy()]
        out += [take(actions * hidden).reshape(actions, hidden).copy(), take(actions).copy(),
                take(hidden).copy(), take(1).copy()]
        return out

    @classmethod
    def from_layers(cls, game: Game, layers: list[np.ndarray]) -> "Network":
        """The network of ``layers`` (in :meth:`layers`'s order and shapes) for ``game``.

        Raises:
            NetworkError: the layers do not form a network of ``game`` (the message says which).
        """
        arrays = [np.asarray(layer, np.float32) for layer in layers]
        if len(arrays) < 6 or (len(arrays) - 6) % 4:
            raise NetworkError(f"a network is 6 arrays plus 4 per block, not {len(arrays)}")
        blocks = (len(arrays) - 6) // 4
        first = arrays[0]
        if first.ndim != 2:
            raise NetworkError("the first layer must be a matrix [hidden, inputs]")
        hidden = first.shape[0]
        inputs = int(np.prod(game.encoding.observation_shape))
        actions = game.encoding.num_actions
        shapes = [(hidden, inputs), (hidden,)] + [(hidden, hidden), (hidden,)] * (2 * blocks)
        shapes += [(actions, hidden), (actions,), (hidden,), (1,)]
        for i, (array, shape) in enumerate(zip(arrays, shapes)):
            if array.shape != shape:
                raise NetworkError(f"layer {i} of a {hidden}x{blocks} network of {game.name} has shape {shape}, not {array.shape}")
        parts = [arrays[0].T, arrays[1]]
        for b in range(blocks):
            w1, b1, w2, b2 = arrays[2 + 4 * b: 6 + 4 * b]
            parts += [w1.T, b1, w2.T, b2]
        parts += arrays[-4:]
        flat = np.concatenate([np.ascontiguousarray(part).reshape(-1) for part in parts]).astype(np.float32)
        return cls(game, hidden, blocks, flat)

    # -- files --------------------------------------------------------------------------------

    def save(self, path: str | Path, **metadata: Any) -> None:
        """Writes the network to ``path`` (a checked data file; ``metadata``: JSON values kept in
        its header, such as how it was trained)."""
        fields = {**_variant(self.game), "inputs": self.inputs, "hidden": self.hidden, "blocks": self.blocks,
                  "actions": self.actions, "metadata": metadata}
        datafile.write(Path(path), FILE_KIND, FILE_VERSION, fields, self.weights)

    @classmethod
    def load(cls, path: str | Path, game: Game) -> "Network":
        """The network in ``path``, which must be one of ``game``'s variant.

        Raises:
            NetworkError: no such file, or a file that is not a network, is damaged, truncated, or
                of another game, variant or observation (one line naming the file and the fault).
        """
        path = Path(path)
        try:
            header = datafile.read_header(path, FILE_KIND)
        except FileNotFoundError:
            raise NetworkError(f"no network file {path}") from None
        except (datafile.DataFileError, OSError) as error:
            raise NetworkError(str(error)) from None
        stored_game, stored_params = header.get("game"), header.get("params")
        if stored_game != game.name:
            raise NetworkError(f"{path} is a network of {stored_game}, not of {game.name}")
        if stored_params != _variant(game)["params"]:
            given = _variant(game)["params"]
            differ = sorted(k for k in set(given) | set(stored_params or {}) if (stored_params or {}).get(k) != given.get(k))
            raise NetworkError(f"{path} is a network of {game.name} with other parameters "
                               f"({', '.join(f'{k}={(stored_params or {}).get(k)} here {given.get(k)}' for k in differ)})")
        hidden, blocks = header.get("hidden"), header.get("blocks")
        if not isinstance(hidden, int) or not isinstance(blocks, int) or not 1 <= hidden <= MAX_HIDDEN or not 0 <= blocks <= MAX_BLOCKS:
            raise NetworkError(f"{path} has a damaged header (hidden={hidden!r}, blocks={blocks!r})")
        inputs = int(np.prod(game.encoding.observation_shape))
        expect = {"inputs": inputs, "actions": game.encoding.num_actions}
        try:
            weights = datafile.read(path, FILE_KIND, FILE_VERSION, expect, np.dtype(np.float32))
        except (datafile.DataFileError, OSError) as error:
            raise NetworkError(str(error)) from None
        try:
            return cls(game, hidden, blocks, weights)
        except NetworkError as error:
            raise NetworkError(f"{path}: {error}") from None

    @staticmethod
    def header(path: str | Path) -> dict[str, Any]:
        """What a network file says of itself (its game, sizes and metadata), unchecked beyond
        being a network file."""
        try:
            return datafile.read_header(Path(path), FILE_KIND)
        except FileNotFoundError:
            raise NetworkError(f"no network file {path}") from None
        except (datafile.DataFileError, OSError) as error:
            raise NetworkError(str(error)) from None

    # -- evaluating ---------------------------------------------------------------------------

    def evaluate(self, state: State) -> tuple[np.ndarray, float]:
        """(logits of every action, value for the player to move) of ``state``, by the compiled
        pass."""
        obs = state.observation().reshape(-1).astype(np.float32)
        actions = np.arange(self.actions, dtype=np.int64)
        logits = np.empty(self.actions, np.float32)
        value = network_forward(self.weights, self.dims, obs, actions, self.actions, logits,
                                np.empty(self.hidden, np.float32), np.empty(self.hidden, np.float32))
        return logits, float(value)

    def evaluate_numpy(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(logits ``[n, actions]``, values ``[n]``) of a batch of flattened observations, in plain
        numpy from :meth:`layers` (the reference the compiled pass is tested against)."""
        x = np.asarray(observations, np.float32).reshape(len(observations), -1)
        layers = self.layers()
        h = np.maximum(x @ layers[0].T + layers[1], 0.0)
        for b in range(self.blocks):
            w1, b1, w2, b2 = layers[2 + 4 * b: 6 + 4 * b]
            h = np.maximum(h + np.maximum(h @ w1.T + b1, 0.0) @ w2.T + b2, 0.0)
        logits = h @ layers[-4].T + layers[-3]
        values = np.tanh(h @ layers[-2] + layers[-1][0])
        return logits, values


@kernel(inline="always")
def _accumulate(matrix, x, n_in, out, n_out):
    """``out += W x`` for the ``[n_in, n_out]`` matrix ``matrix`` (flat), four inputs at a time
    (a group of four zero inputs, common in board planes, costs nothing). The sums run in a fixed
    order whatever the machine's vector width, so every machine computes the same floats.
    ``matrix`` is a slice that starts at the matrix: indices from an offset that numba cannot
    prove non-negative would keep LLVM from vectorising the inner loop (a wrap-around test each)."""
    i = 0
    while i + 4 <= n_in:
        x0 = x[i]
        x1 = x[i + 1]
        x2 = x[i + 2]
        x3 = x[i + 3]
        if x0 != 0.0 or x1 != 0.0 or x2 != 0.0 or x3 != 0.0:
            r0 = i * n_out
            r1 = r0 + n_out
            r2 = r1 + n_out
            r3 = r2 + n_out
            for j in range(n_out):
                out[j] += x0 * matrix[r0 + j] + x1 * matrix[r1 + j] + x2 * matrix[r2 + j] + x3 * matrix[r3 + j]
        i += 4
    while i < n_in:
        xi = x[i]
        if xi != 0.0:
            row = i * n_out
            for j in range(n_out):
                out[j] += xi * matrix[row + j]
        i += 1


@kernel(inline="always")
def _biased(bias, out, n, residual):
    """``out = bias``, or ``out += bias`` when ``residual``."""
    for j in range(n):
        out[j] = (out[j] if residual else np.float32(0.0)) + bias[j]


@kernel(inline="always")
def _dot(row, h, n):
    """``row . h``, with four partial sums in a fixed order (the same floats on every machine)."""
    s0 = np.float32(0.0)
    s1 = np.float32(0.0)
    s2 = np.float32(0.0)
    s3 = np.float32(0.0)
    j = 0
    while j + 4 <= n:
        s0 += row[j] * h[j]
        s1 += row[j + 1] * h[j + 1]
        s2 += row[j + 2] * h[j + 2]
        s3 += row[j + 3] * h[j + 3]
        j += 4
    while j < n:
        s0 += row[j] * h[j]
        j += 1
    return (s0 + s1) + (s2 + s3)


@kernel(inline="always")
def _relu(out, n):
    for j in range(n):
        out[j] = max(out[j], np.float32(0.0))


@kernel
def network_forward(weights, dims, obs, actions, n, logits, h, t):
    """The network's value of observation ``obs`` (float32[inputs]) for the player to move, and
    in ``logits[i]`` the logit of action ``actions[i]`` for ``i < n`` (only those are computed).
    ``h``, ``t``: float32[>= hidden] each, two separate arrays (the layers' vectors). The layout
    is :class:`Network`'s."""
    inputs = dims[DIM_INPUTS]
    hidden = dims[DIM_HIDDEN]
    blocks = dims[DIM_BLOCKS]
    actions_total = dims[DIM_ACTIONS]
    square = hidden * hidden
    _biased(weights[inputs * hidden:], h, hidden, False)
    _accumulate(weights[:inputs * hidden], obs, inputs, h, hidden)
    _relu(h, hidden)
    at = inputs * hidden + hidden
    for _ in range(blocks):
        _biased(weights[at + square:], t, hidden, False)  # t = relu(W1 h + b1)
        _accumulate(weights[at:at + square], h, hidden, t, hidden)
        _relu(t, hidden)
        at += square + hidden
        _biased(weights[at + square:], h, hidden, True)  # h = relu(h + W2 t + b2)
        _accumulate(weights[at:at + square], t, hidden, h, hidden)
        _relu(h, hidden)
        at += square + hidden
    policy_bias = at + actions_total * hidden
    for k in range(n):
        a = actions[k]
        logits[k] = weights[policy_bias + a] + _dot(weights[at + a * hidden:], h, hidden)
    at = policy_bias + actions_total
    total = weights[at + hidden] + _dot(weights[at:], h, hidden)
    return math.tanh(total)
