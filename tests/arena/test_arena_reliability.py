"""The arena as a tournament left running overnight meets it: interrupts at any moment, readers
that stop early, workers that die, files that are not ours, two runs on one folder. Each test
drives the real command in a subprocess and sends real signals."""

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from board_arena.arena.tournament.store import RunLock

pytestmark = pytest.mark.slow  # a system test (runs interrupted and killed in subprocesses): python -m pytest -m "not slow" leaves it out

ROOT = Path(__file__).resolve().parents[2]
# Games long enough that a run is still going when the signal comes (most of a second each, so
# 8 games on two workers take about 3 s: faster agents must get bigger budgets here, or the run
# ends before it is interrupted, as it did once MCTS and alpha-beta got faster).
SLOW = ["--game", "kalah", "--agents", "mcts:iterations=50000,alphabeta:depth=9"]


def arena(*args, **popen):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "board_arena.arena.cli", *args],
        stdout=popen.pop("stdout", subprocess.PIPE),
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **popen,
    )


def stored_ids(out):
    path = Path(out) / "results.sqlite"
    if not path.exists():
        return []
    try:
        with closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as db:
            return [row[0] for row in db.execute("SELECT id FROM games")]
    except sqlite3.Error:
        return []


def wait_for(condition, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def processes_running(marker: str) -> list[int]:
    """Pids of live processes whose command line holds ``marker`` (a run's own folder): the run
    and its forked workers."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    stat = (entry / "stat").read_text()
                    if stat.rsplit(")", 1)[1].split()[0] != "Z":
                        found.append(int(entry.name))
            except OSError:
                pass
    return found


linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")


def finish(process, timeout=120):
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


@linux_only
@pytest.mark.parametrize("when", ["start-up", "mid-run", "twice"])
def test_an_interrupt_at_any_moment_is_one_line_and_exit_130_and_the_run_resumes(tmp_path, when):
    out = str(tmp_path / f"run-{when}")
    command = ["run", *SLOW, "--games", "8", "--concurrency", "2", "--quiet", "--out", out]
    run = arena(*command)
    if when == "start-up":
        time.sleep(0.4)  # the interpreter is up and importing numpy and numba
    else:
        wait_for(lambda: len(stored_ids(out)) >= 1)
    run.send_signal(signal.SIGINT)
    if when == "twice":
        time.sleep(0.05)
        run.send_signal(signal.SIGINT)
    code, _, err = finish(run)
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert [line for line in err.splitlines() if line.strip()][-1].startswith("arena run: interrupted")
    wait_for(lambda: not processes_running(out), timeout=10)  # no worker left playing
    kept = stored_ids(out)
    code, text, err = finish(arena(*command))
    assert code == 0, err
    ids = stored_ids(out)
    assert sorted(ids) == list(range(8)) and set(kept) <= set(ids)


@linux_only
def test_a_worker_killed_mid_run_costs_nothing(tmp_path):
    out = str(tmp_path / "run")
    run = arena("run", *SLOW, "--games", "20", "--concurrency", "2", "--quiet", "--out", out)
    wait_for(lambda: len(stored_ids(out)) >= 1 and len(processes_running(out)) >= 3)  # the run, two workers
    worker = max(p for p in processes_running(out) if p != run.pid)
    os.kill(worker, signal.SIGKILL)
    code, _, err = finish(run)
    assert code == 0, err
    assert len(stored_ids(out)) == 20 and sorted(stored_ids(out)) == list(range(20)), "every game stored once"


def test_a_reader_that_stops_early_gets_no_traceback_and_the_plots_are_written(tmp_path):
    out = str(tmp_path / "run")
    code, _, err = finish(arena("run", "--game", "kalah", "--agents", "random,greedy", "--games", "4", "--quiet", "--out", out))
    assert code == 0, err
    for plot in Path(out).glob("*.png"):
        plot.unlink()
    before = (Path(out) / "results.sqlite").read_bytes()
    for command in (["report", out], ["replay", out, "0"]):
        reader = arena(*command)
        reader.stdout.readline()
        reader.stdout.close()  # like `| head -1`
        err = reader.stderr.read()
        reader.wait(timeout=60)
        assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert list(Path(out).glob("*.png")), "the report wrote its plots"
    # A read command never changes the database.
    assert (Path(out) / "results.sqlite").read_bytes() == before


@pytest.mark.parametrize("kind", ["another program's database", "not a database"])
def test_a_foreign_file_is_refused_and_left_untouched(tmp_path, kind):
    out = tmp_path / "theirs"
    out.mkdir()
    path = out / "results.sqlite"
    if kind == "not a database":
        path.write_text("my notes, not a database\n" * 100)
    else:
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE inventory (item TEXT, count INTEGER)")
            db.execute("INSERT INTO inventory VALUES ('cows', 12)")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    listing = sorted(p.name for p in out.iterdir())
    for command in (["run", "--game", "kalah", "--agents", "random,greedy", "--games", "2", "--quiet", "--out", str(out)], ["report", str(out)]):
        code, _, err = finish(arena(*command))
        last = err.strip().splitlines()[-1]
        assert code == 2 and "Traceback" not in err and last.startswith(f"arena {command[0]}: error: "), err
        assert "not an arena results database" in last or "belongs to another program" in last, err
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in out.iterdir() if p.name != "run.lock") == listing


def test_a_run_folder_in_use_is_refused_with_who_holds_it(tmp_path):
    out = str(tmp_path / "run")
    with RunLock(out):
        code, _, err = finish(arena("run", "--game", "kalah", "--agents", "random,greedy", "--games", "2", "--quiet", "--out", out))
    assert code == 2 and "Traceback" not in err, err
    assert f"is in use by another arena run (pid {os.getpid()} on " in err.strip().splitlines()[-1]
    code, _, err = finish(arena("run", "--game", "kalah", "--agents", "random,greedy", "--games", "2", "--quiet", "--out", out))
    assert code == 0, err  # released: the run goes ahead
