"""A plugin agent that fails the way engines do, for the isolation tests
(tests/arena/test_isolation.py): ``faulty:fault=F`` plays the first legal move until ply
``after``, then, when it is to move:

- ``abort``: ``os.abort()`` (its process dies of SIGABRT);
- ``segfault``: reads address 0 through ctypes (SIGSEGV, as a bug in native code would);
- ``raise``: raises RuntimeError;
- ``exit``: ``sys.exit(0)``, as a script's last line might;
- ``interrupt``: raises ``KeyboardInterrupt``, as if it had caught a Ctrl-C of its own;
- ``memory``: raises ``MemoryError`` (which carries no message);
- ``hang``: sleeps ``sleep`` seconds (an hour by default);
- ``abort-once``: aborts if the file named by ``$FAULTY_ONCE_FILE`` does not exist yet, creating
  it first: the next attempt plays on (a worker killed once, as from outside).

The arena's warm-up search (ply 0) never faults. No core file is written.
"""

from __future__ import annotations

import ctypes
import os
import resource
import sys
import time

from board_arena import agents
from board_arena.agents import Agent, SearchInfo
from board_arena.engines import Param


@agents.register_agent
class FaultyAgent(Agent):
    name = "faulty"
    summary = "plays the first legal move, then fails as told (a test plugin)"
    PARAMS = (
        Param("fault", "raise", "how it fails", choices=("abort", "segfault", "raise", "exit", "interrupt", "memory", "hang", "abort-once")),
        Param("after", 4, "the ply from which it fails", low=1, high=1000),
        Param("sleep", 3600.0, "seconds a hang lasts", low=0.0, high=3600.0),
    )

    def _select(self, state, limit):
        if state.ply >= self.params["after"]:
            self._fail(self.params["fault"], self.params["sleep"])
        return SearchInfo(move=int(state.legal_moves()[0]))

    @staticmethod
    def _fail(fault: str, sleep: float) -> None:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if fault == "abort-once":
            marker = os.environ["FAULTY_ONCE_FILE"]
            if os.path.exists(marker):
                return
            open(marker, "w").close()
            fault = "abort"
        if fault == "abort":
            os.abort()
        if fault == "segfault":
            ctypes.string_at(0)
        if fault == "exit":
            sys.exit(0)
        if fault == "interrupt":
            raise KeyboardInterrupt
        if fault == "memory":
            raise MemoryError
        if fault == "hang":
            time.sleep(sleep)
            return
        raise RuntimeError("the faulty agent fails as told")
