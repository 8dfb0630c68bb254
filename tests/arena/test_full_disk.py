"""A run started or resumed on a full disk (a small tmpfs filled to a few pages) stops with one
line and status 2, and leaves its folder as it was: the stored games readable, no ``live/``
folder, nothing written aside; a folder made for a run that could not begin is removed again."""

import os
import subprocess
import sys

import pytest

from board_arena.arena import load_run
from tests.support.cli import arena_cli

PAGE = 4096
RUN = ["run", "--game", "kalah:pits=3,seeds=2", "--agents", "random,greedy", "--in-process"]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.geteuid() != 0, reason="mounts a small tmpfs (Linux, as root)"
)


@pytest.fixture
def disk(tmp_path):
    """A 512 KiB file system of its own."""
    folder = tmp_path / "disk"
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(disk, pages_left: int) -> None:
    """Fills ``disk`` but for ``pages_left`` pages."""
    filler = disk / "filler"
    filler.unlink(missing_ok=True)
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * PAGE)
        except OSError:
            pass
    os.truncate(filler, max(0, os.path.getsize(filler) - pages_left * PAGE))


def check_one_line_error(status: int, err: str) -> None:
    assert status == 2, err
    errors = [line for line in err.splitlines() if "arena run: error: " in line]  # a progress bar may precede it
    assert len(errors) == 1 and "Traceback" not in err, err


def test_a_run_resumed_on_a_full_disk_stops_in_one_line_and_keeps_its_games(disk):
    out = str(disk / "run")
    assert arena_cli(*RUN, "--games", "2", "--out", out)[0] == 0
    refused = 0
    for pages_left in range(0, 24, 2):
        fill(disk, pages_left)
        status, _, err = arena_cli(*RUN, "--games", "4", "--out", out)
        if status != 0:
            refused += 1
            check_one_line_error(status, err)
            assert len(load_run(out).games) == 2, "the stored games are kept"
            assert not os.path.exists(os.path.join(out, "live"))
            assert not [name for name in os.listdir(out) if name.endswith(".tmp")]
        if status == 0:
            break
    assert refused, "the full disk was refused at least once"
    (disk / "filler").unlink()
    assert arena_cli(*RUN, "--games", "4", "--out", out)[0] == 0
    assert len(load_run(out).games) == 4


def test_a_run_started_on_a_full_disk_stops_in_one_line_and_leaves_no_folder(disk):
    refused = 0
    for pages_left in range(0, 24, 2):
        fill(disk, pages_left)
        out = str(disk / f"run-{pages_left}")
        status, _, err = arena_cli(*RUN, "--games", "2", "--out", out)
        if status == 0:
            break
        refused += 1
        check_one_line_error(status, err)
        # Refused before it began, the run leaves no folder; refused at its first game's
        # insert, a run of no games that resumes.
        assert not os.path.exists(out) or load_run(out).games == [], os.listdir(out)
    assert refused, "the full disk was refused at least once"
