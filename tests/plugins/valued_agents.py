"""A plugin agent whose reported values are fixed, for the adjudication tests
(tests/arena/test_adjudication.py): ``valued:value=V`` plays the first legal move and reports
``V`` (its own side's value) for every move from ply ``after`` on, and no value before;
``report=false`` never reports one.
"""

from __future__ import annotations

from board_arena import agents
from board_arena.agents import Agent, SearchInfo
from board_arena.engines import Param


@agents.register_agent
class ValuedAgent(Agent):
    name = "valued"
    summary = "plays the first legal move and reports a fixed value (a test plugin)"
    PARAMS = (
        Param("value", 0.0, "the value it reports for the side that moved", low=-1.0, high=1.0),
        Param("after", 0, "the first ply whose move reports the value", low=0, high=1000),
        Param("report", True, "whether it reports a value at all"),
    )

    def _select(self, state, limit):
        move = int(state.legal_moves()[0])
        if not self.params["report"] or state.ply < self.params["after"]:
            return SearchInfo(move=move)
        return SearchInfo(move=move, value=float(self.params["value"]))
