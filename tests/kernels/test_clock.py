"""The clock of time budgets: the platform's own monotonic clock, read in compiled code and in
Python alike, so that a deadline set in Python is met in a kernel."""

import sys
import time

import numpy as np
import pytest

from board_arena.kernels import (
    CLOCK_FAILED,
    clock,
    deadline_after,
    kernel,
    monotonic_ns,
)


@kernel
def _readings(n):
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = monotonic_ns()
    return out


def test_the_clock_is_the_platforms_monotonic_clock():
    if sys.platform == "win32":
        assert clock.IS_WINDOWS
    else:
        # clock_gettime with this platform's constant (1 on Linux, 6 on macOS, 4 on FreeBSD).
        assert not clock.IS_WINDOWS and clock.CLOCK_ID == time.CLOCK_MONOTONIC


def test_the_clock_increases_and_keeps_time_in_nanoseconds():
    readings = _readings(10_000)
    assert (readings > 0).all() and (readings < CLOCK_FAILED).all()
    assert (np.diff(readings) >= 0).all()
    start, python_start = monotonic_ns(), time.monotonic_ns()
    time.sleep(0.05)
    elapsed, python_elapsed = monotonic_ns() - start, time.monotonic_ns() - python_start
    assert 0.05e9 <= elapsed < 5e9
    assert abs(elapsed - python_elapsed) < 0.02e9


@pytest.mark.parametrize("spec", ["alphabeta", "mcts", "ismcts"])
def test_a_time_budget_set_in_python_ends_the_compiled_search(spec):
    from board_arena import agents, engines

    game = engines.make("dominoes" if spec == "ismcts" else "kalah")
    agent = agents.make_agent(f"{spec}:time=0.05", seed=1)
    agent.warm_up(game)
    state = game.new_initial_state(seed=1)
    start = time.perf_counter()
    agent.select_move(state)
    assert time.perf_counter() - start < 1.0


def test_a_deadline_is_a_reading_of_the_same_clock_and_none_without_a_time():
    assert deadline_after(None) == 0 and deadline_after(0) == 0
    before = monotonic_ns()
    deadline = deadline_after(2.5)
    assert before + 2.5e9 <= deadline <= monotonic_ns() + 2.5e9
