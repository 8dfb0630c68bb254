"""Trust beyond ``arena run``: agents that check their parameters when made (a tournament refuses
to start rather than play lost games), scripts whose arguments are checked before any work and
whose outputs are found writable first, a report that survives a folder that cannot take its
plots, and a report that says plainly what each figure is (both Elo figures labelled, pairings
a gauntlet never plays left blank, ratings read by agent name)."""

import ctypes
import errno
import io
import os
import shutil
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from board_arena import agents, arena
from board_arena.arena.cli import main
from board_arena.arena.tournament.report import write_report

TINY = "kalah:pits=3,seeds=2"


def arena_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trust") / "run"
    status, _, err = arena_cli("run", "--game", TINY, "--agents", "greedy,random", "--games", "4", "--concurrency", "1",
                               "--quiet", "--out", str(folder))
    assert status == 0, err
    return folder


# -- agents refuse what they cannot do, before the tournament starts --------------------------------


@pytest.mark.parametrize(
    "spec, game, words",
    [
        ("alphabeta:endgame=40", "kalah", "holds 1 to 29 seeds (a database of 30 seeds on 6 pits would hold over"),
        ("alphabeta:endgame=13", TINY, "holds 1 to 12 seeds (the game has 12 seeds), not 13"),
        ("alphabeta:endgame=4", "konane", "konane has no endgame databases"),
        ("td-kalah:weights=/nonexistent/w.json", "kalah", "cannot read TD weights from /nonexistent/w.json"),
        ("td-kalah:weights=/", "kalah", "cannot read TD weights from /"),
    ],
)
def test_an_agent_that_cannot_play_stops_the_tournament_before_it_starts(spec, game, words, tmp_path):
    out = tmp_path / "never"
    status, _, err = arena_cli("run", "--game", game, "--agents", f"{spec},random", "--out", str(out))
    lines = [line for line in err.splitlines() if not line.startswith("Run folder")]
    assert status == 2 and len(lines) == 1 and words in lines[0], err
    assert not out.exists()


def test_td_weights_of_no_kalah_variant_are_refused(tmp_path):
    weights = tmp_path / "w.json"
    weights.write_text('{"weights": [1, 2, 3]}')
    with pytest.raises(ValueError, match="holds no TD weights of a Kalah variant"):
        agents.make_agent(f"td-kalah:weights={weights}")


# -- a report that survives its folder ----------------------------------------------------------


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


# -- the scripts check their arguments before any work --------------------------------------------


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--game", "kalah", "--table-mb", "1e12"], "--table-mb must be more than 0 and at most half"),
        (["--game", "kalah", "--table-mb", "-1"], "--table-mb must be more than 0 and at most half"),
        (["--game", "kalah", "--table-mb", "nan"], "--table-mb must be more than 0 and at most half"),
        (["--game", "kalah", "--limit", "-5"], "--limit must be seconds of processor time >= 0"),
        (["--game", "kalah", "--limit", "inf"], "--limit must be seconds of processor time >= 0"),
        (["--kalah-table", "--out", "/nonexistent/x.md"], "--out /nonexistent/x.md: the folder /nonexistent does not exist"),
        (["--kalah-table", "--out", "/"], "--out / is a folder"),
        (["--kalah-table", "--pits", "9"], "Kalah has 1..8 pits a row"),
        (["--kalah-table", "--seeds", "0"], "--seeds takes positive whole numbers"),
        (["--kalah-table", "--endgame", "12"], "--endgame goes with --game"),
        (["--game", "kalah", "--endgame", "40"], "holds 1 to 29 seeds"),
        (["--game", "kalah", "--endgame", "-1"], "--endgame must be 0..63"),
        (["--game", "kalah", "--out", "x.md"], "--out goes with --kalah-table"),
        (["--game", "nope"], "unknown game 'nope'"),
        ([], "give --game or --kalah-table"),
        (["--game", "kalah", "--table-mb", "abc"], "invalid float value: 'abc'"),
    ],
)
def test_solve_checks_every_argument_before_any_work(argv, words, capsys):
    from experiments import solve

    assert solve.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and words in err, err


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--out", "/nonexistent/w.json"], "--out: cannot write /nonexistent/w.json"),
        (["--steps", "0"], "--steps must be from 1"),
        (["--epsilon", "2"], "--epsilon in [0, 1]"),
        (["--replace-shipped", "--out", "w.json"], "give --out FILE or --replace-shipped, not both"),
    ],
)
def test_learn_kalah_checks_its_arguments_and_never_writes_the_shipped_weights_unasked(argv, words, capsys):
    from experiments import learn_kalah

    with pytest.raises(SystemExit) as stop:
        learn_kalah.main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and words in err, err


def test_learn_kalah_writes_here_unless_asked_to_replace_the_shipped_weights(tmp_path, monkeypatch, capsys):
    from board_arena.engines.mancala.learned import BUNDLED_WEIGHTS
    from experiments import learn_kalah

    shipped = BUNDLED_WEIGHTS.read_bytes()
    monkeypatch.chdir(tmp_path)
    learn_kalah.main(["--steps", "2", "--num-envs", "4", "--games", "2"])
    assert (tmp_path / "td_kalah.json").is_file() and BUNDLED_WEIGHTS.read_bytes() == shipped
    assert "td-kalah:weights=td_kalah.json vs greedy" in capsys.readouterr().out


# -- Ray --------------------------------------------------------------------------------------------


def test_a_ray_start_up_that_fails_is_one_line_with_what_to_try(tmp_path, capsys, monkeypatch):
    """Ray's start-up times out on a loaded machine (3 of 4 tries at load 7 on the development
    machine), with a plain Exception: simulated here."""
    ray = pytest.importorskip("ray")
    from board_arena.arena import cli

    def timed_out(*args, **kwargs):
        raise Exception("The current node timed out during startup. This could happen because some of the raylet failed to startup or the GCS has become overloaded.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)  # as in a process without Ray running
    monkeypatch.setattr(ray, "init", timed_out)
    monkeypatch.setattr(ray, "shutdown", lambda: None)  # the module's own instance stays up
    out = tmp_path / "never"
    code = cli.main(["run", "--game", "kalah", "--agents", "random,greedy", "--cluster", "ray", "--out", str(out)])
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip() and not line.startswith("Run folder")]
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("arena run: error: Ray did not start on this machine (load ")
    assert "timed out during startup" in err[0] and "leave out --cluster" in err[0]
    assert not out.exists()
