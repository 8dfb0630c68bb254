"""What ``arena report`` prints: the whole report when the run's folder cannot take its plots (a
full disk, a read-only folder), each figure said plainly (both Elo figures labelled, the
pairings a gauntlet never plays left blank), and ratings read by agent name."""

import ctypes
import errno
import os
import shutil
import sys
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from board_arena import arena
from board_arena.arena.cli import main
from board_arena.arena.tournament.report import write_report
from tests.support.cli import arena_cli

TINY = "kalah:pits=3,seeds=2"



@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report") / "run"
    status, _, err = arena_cli("run", "--game", TINY, "--agents", "greedy,random", "--games", "4", "--concurrency", "1",
                               "--quiet", "--out", str(folder))
    assert status == 0, err
    return folder


# -- a report that survives its folder ---------------------------------------------------------


def test_a_report_whose_plots_cannot_be_written_prints_the_report_and_says_so(run_folder, tmp_path, monkeypatch):
    folder = tmp_path / "full"
    shutil.copytree(run_folder, folder)
    for plot in folder.glob("*.png"):
        plot.unlink()

    def disk_full(self, path, **options):
        Path(path).write_bytes(b"\x89PNG half")  # a partial file, as a full disk leaves one
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(Figure, "savefig", disk_full)
    status, out, err = arena_cli("report", str(folder))
    assert status == 0 and err == ""
    assert "Standings" in out and "Crosstable" in out
    assert [line for line in out.splitlines() if line.startswith("Plots:")] == [
        f"Plots: not written, {folder} cannot take them (No space left on device)"
    ]
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in run_folder.iterdir() if p.suffix != ".png")


def test_a_report_in_a_read_only_folder_prints_the_report(run_folder, tmp_path):
    """The folder and its files read-only to the process (a user namespace without root's
    rights: root ignores file modes), as a run copied from another machine or a read-only mount."""
    folder = tmp_path / "readonly"
    folder.mkdir()
    shutil.copy(run_folder / "results.sqlite", folder)  # the database alone, as a run is sent (no -wal, -shm)
    write_report(arena.load_run(str(folder)), plots=False)  # every kernel and module loaded before the fork
    write_report(arena.load_run(str(run_folder)))
    for path in folder.iterdir():
        path.chmod(0o444)
    folder.chmod(0o555)
    out_read, out_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no rights over root's files from here on
        status = 3
        try:
            if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0:  # CLONE_NEWUSER
                os._exit(4)
            sys.stdout = sys.stderr = pipe = open(out_write, "w", closefd=False)
            status = main(["report", str(folder)])
            pipe.flush()
        finally:
            os._exit(status)
    os.close(out_write)
    with os.fdopen(out_read) as pipe:
        printed = pipe.read()
    _, code = os.waitpid(pid, 0)
    folder.chmod(0o755)
    if os.waitstatus_to_exitcode(code) == 4:
        pytest.skip("no user namespaces here")
    assert os.waitstatus_to_exitcode(code) == 0, printed
    assert "Standings" in printed and "Traceback" not in printed
    assert f"Plots: not written, {folder} cannot take them (Permission denied)" in printed
    assert not list(folder.glob("*.png")) and not list(folder.glob("*.partial"))


# -- what the report says -----------------------------------------------------------------------


def test_a_gauntlet_leaves_the_pairings_it_never_plays_blank(tmp_path):
    status, out, _ = arena_cli("run", "--game", TINY, "--agents", "greedy,random,minimax:depth=1", "--gauntlet",
                               "--games", "2", "--concurrency", "1", "--quiet", "--out", str(tmp_path / "g"))
    assert status == 0
    table = out[out.index("Crosstable") :].split("\n\n")[0].splitlines()[1:]
    cells = {line.split()[0]: line for line in table[1:]}
    assert "0-0-0" not in out
    assert len(cells["random"].split()) == 3 and len(cells["greedy"].split()) == 4  # random's cell against minimax is blank


def test_both_elo_figures_say_what_they_are(tmp_path):
    status, out, _ = arena_cli("run", "--game", TINY, "--agents", "minimax:depth=4,random", "--sprt", "elo0=0,elo1=100",
                               "--games", "40", "--concurrency", "1", "--quiet", "--out", str(tmp_path / "s"))
    assert status == 0
    assert "Standings (Elo against the agents' mean;" in out
    assert "  Elo difference minimax:depth=4 - random: +" in out


def test_ratings_are_read_by_agent_name(run_folder):
    ratings = arena.load_run(str(run_folder)).ratings()
    assert ratings.elo["greedy"] == ratings.elo_of("greedy") == float(ratings.elo[ratings.names.index("greedy")])
    assert dict(ratings.elo).keys() == {"greedy", "random"} and "greedy" in ratings.elo
    assert dict(ratings.games) == {"greedy": 4.0, "random": 4.0}
    assert (ratings.high - ratings.low)["random"] > 0  # arithmetic keeps the names
    with pytest.raises(KeyError, match="no agent 'mcts'; agents: greedy, random"):
        ratings.elo["mcts"]
