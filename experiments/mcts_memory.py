"""Bytes per node of ``mcts`` at the peak of one search, measured with tracemalloc (which numpy's
array allocations report to) around a search that grows its tree to about a million records.

    python experiments/mcts_memory.py --game kalah --simulations 400000

``--agent`` measures another ``mcts`` spec (``mcts:minimax=0`` the records without the implicit
minimax value, which is on by default for Kalah). Prints the peak traced memory of the search, the records (tried and untried children) and nodes
(tried children, one per simulation that made one) it ended with, and the bytes per each.
"""

from __future__ import annotations

import time
import tracemalloc

import numpy as np

from board_arena import agents, engines
from board_arena.agents.base import Limit
from board_arena.agents.mcts import (
    COUNT_NODES,
    COUNT_RECORDS,
    COUNT_SIMULATIONS,
    grow_tree,
    init_tree,
    mcts_run,
)
from board_arena.commandline import OneLineParser, positive_int, run_script
from board_arena.engines import contract
from board_arena.kernels import rng_from_seed


def main() -> None:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kalah", help="game spec (default kalah)")
    parser.add_argument("--simulations", type=positive_int, default=400_000, help="simulations of the measured search")
    parser.add_argument("--agent", default="mcts", help="the mcts spec whose settings search (default: the defaults)")
    args = parser.parse_args()
    agent = agents.make_agent(args.agent, seed=0)
    game = engines.make(args.game)
    settings = agent.settings(game)
    root = game.new_initial_state(seed=0).data
    rng = rng_from_seed(0)
    room = contract.max_moves(root)
    dtype = agent._node_dtype(game.new_initial_state(seed=0))  # as the agent chooses

    def search(simulations: int) -> np.ndarray:
        """The ``mcts`` agent's search (``MCTSAgent._grow``, one thread); returns its counters."""
        no_values = np.empty(0, np.float32)

        def run(tree: np.ndarray, counters: np.ndarray, target: int, deadline: int) -> int:
            values = tree["value"] if settings.alpha > 0.0 else no_values
            return mcts_run(root, tree, values, counters, settings, target, deadline, rng)

        return grow_tree(run, dtype, init_tree, Limit(iterations=simulations), simulations, room)[1]

    search(10)  # compile outside the measure
    tracemalloc.start()
    start = time.process_time()
    counters = search(args.simulations)
    cpu = time.process_time() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    records, nodes = int(counters[COUNT_RECORDS]), int(counters[COUNT_NODES])
    print(
        f"{args.game}, {agent.spec}: {counters[COUNT_SIMULATIONS]:,} simulations in {cpu:.2f} s CPU; {records:,} records "
        f"({dtype.itemsize} bytes each), {nodes:,} nodes (tried children); peak {peak / 2**20:.1f} MiB: "
        f"{peak / records:.1f} bytes per record, {peak / nodes:.1f} bytes per node"
    )


if __name__ == "__main__":
    run_script(main, "mcts_memory.py")
