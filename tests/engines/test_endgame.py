"""Kalah endgame database files (engines/mancala/endgame.py, engines/datafile.py): a file proves
itself (format version, variant, seeds, entries, checksum) or is refused with one line; the
builder's command line and experiments/solve.py turn every bad input into one line and status 2."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from board_arena import engines
from board_arena.engines import datafile
from board_arena.engines.mancala import endgame, kernels

PITS, SEEDS = 2, 5
SOLVE_PY = Path(__file__).resolve().parents[2] / "experiments" / "solve.py"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder, and no database remembered from an earlier test."""
    monkeypatch.setenv("BOARD_ARENA_CACHE", str(tmp_path))
    endgame.forget_loaded()
    yield tmp_path
    endgame.forget_loaded()


def built(cache) -> Path:
    endgame.load(PITS, SEEDS, build_missing=True)
    path = endgame.database_path(PITS, SEEDS, kernels.CAPTURE_KALAH, True)
    assert path.is_file()
    return path


def refused(path: Path, match: str) -> str:
    """The one-line message with which loading ``path`` is refused."""
    endgame.forget_loaded()
    with pytest.raises(endgame.DatabaseError, match=match) as caught:
        endgame.load(PITS, SEEDS)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and "--rebuild" in message
    return message


def test_a_saved_database_loads_verified_and_equals_a_fresh_build(cache):
    path = built(cache)
    header = datafile.read_header(path, endgame.FILE_KIND)
    assert header["version"] == endgame.FORMAT_VERSION and header["seeds"] == SEEDS and header["pits"] == PITS
    assert header["entries"] == endgame.database_size(PITS, SEEDS) and header["capture"] == "kalah"
    endgame.forget_loaded()
    db, k = endgame.load(PITS, SEEDS)
    assert k == SEEDS and np.array_equal(db, endgame.build(PITS, SEEDS))


def test_a_database_with_altered_values_is_refused(cache):
    """Negated entries, which would give a wrong margin without a word, are found and refused."""
    path = built(cache)
    data = bytearray(path.read_bytes())
    for i in range(datafile.HEADER_BYTES, len(data)):
        data[i] = (-np.int8(np.uint8(data[i]).view(np.int8))).view(np.uint8)
    path.write_bytes(bytes(data))
    refused(path, "damaged")


def test_a_truncated_database_is_refused(cache):
    path = built(cache)
    path.write_bytes(path.read_bytes()[:-7])
    refused(path, "truncated")


def test_an_empty_database_file_is_refused(cache):
    path = built(cache)
    path.write_bytes(b"")
    refused(path, "empty")


def test_a_foreign_file_is_refused(cache):
    path = built(cache)
    np.save(str(path) + ".npy", np.zeros(10, np.int8))
    os.replace(str(path) + ".npy", path)
    refused(path, "not a board-arena Kalah endgame database file")


def test_a_folder_in_place_of_the_file_is_refused(cache):
    path = endgame.database_path(PITS, SEEDS, kernels.CAPTURE_KALAH, True)
    path.mkdir(parents=True)
    refused(path, "folder")


def test_another_format_version_or_variant_is_refused(cache):
    path = built(cache)
    raw = path.read_bytes()
    header = json.loads(raw[len(datafile.MAGIC):].split(b"\n", 1)[0])
    for field, value, match in (("version", 1, "format version 1"), ("capture", "opposite", "capture='opposite'"),
                                ("seeds", SEEDS + 1, "seeds=")):
        changed = dict(header, **{field: value})
        text = datafile.MAGIC + json.dumps(changed, sort_keys=True).encode() + b"\n"
        path.write_bytes(text.ljust(datafile.HEADER_BYTES, b" ") + raw[datafile.HEADER_BYTES:])
        refused(path, match)


def test_a_refused_database_is_rebuilt_on_request(cache):
    path = built(cache)
    path.write_bytes(b"")
    refused(path, "empty")
    db, _ = endgame.load(PITS, SEEDS, rebuild=True)
    endgame.forget_loaded()
    again, _ = endgame.load(PITS, SEEDS)
    assert np.array_equal(db, again)


def test_partial_files_are_cleaned_up(cache, monkeypatch):
    """A build killed before it could clean up leaves NAME.tmp-PID: the next build removes it (its
    process is gone). A build interrupted while writing removes its own."""
    path = endgame.database_path(PITS, SEEDS, kernels.CAPTURE_KALAH, True)
    path.parent.mkdir(parents=True)
    dead = 2**22 + 12345  # above Linux's default pid_max: no such process
    stale = path.with_name(f"{path.name}.tmp-{dead}")
    stale.write_bytes(b"half a database")
    built(cache)
    assert not stale.exists()

    real_open = open

    def open_then_interrupt(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        if "w" not in mode:
            return handle

        class Interrupting:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                handle.close()

            def write(self, data):
                handle.write(data)
                raise KeyboardInterrupt  # Ctrl-C while the file is half written

        return Interrupting()

    path.unlink()
    monkeypatch.setattr(datafile, "open", open_then_interrupt, raising=False)
    endgame.forget_loaded()
    with pytest.raises(KeyboardInterrupt):
        endgame.load(PITS, SEEDS, build_missing=True)
    assert list(path.parent.iterdir()) == []


def test_the_builder_with_threads_equals_one_thread():
    assert np.array_equal(endgame.build(3, 9, threads=1), endgame.build(3, 9, threads=3))


def test_a_database_of_another_capture_rule_is_refused():
    state = engines.make("kalah", pits=3, seeds=2, empty_capture=True).new_initial_state()
    other_rule = endgame.build(3, 6, kernels.CAPTURE_KALAH, False)
    with pytest.raises(ValueError, match="not of Kalah captures \\(also on an empty pit\\)"):
        state.game.endgame.check_database(state, other_rule, 6)


@pytest.mark.parametrize("argv,words", [
    (["--pits", "0"], "--pits must be 1..8, not 0"),
    (["--pits", "9"], "--pits must be 1..8, not 9"),
    (["--seeds", "-1"], "--seeds must be 0..63, not -1"),
    (["--seeds", "64"], "--seeds must be 0..63, not 64"),
    (["--seeds", "x"], "invalid int value"),
    (["--threads", "0"], "--threads must be at least 1"),
    (["--capture", "both"], "invalid choice"),
    (["--pits", "8", "--seeds", "40"], "ask for fewer seeds"),
])
def test_the_builders_bad_input_is_one_line_and_status_2(argv, words, capsys, cache):
    assert endgame.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and words in err and err.count("\n") == 1 and "Traceback" not in err
    assert not any(cache.rglob("*"))


def test_the_builder_interrupted_is_one_line_and_status_130(capsys, cache, monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(endgame, "build", interrupt)
    handler = signal.getsignal(signal.SIGINT)
    assert endgame.main(["--pits", "2", "--seeds", "3"]) == 130
    assert signal.getsignal(signal.SIGINT) is handler  # the caller's, as it was
    out, err = capsys.readouterr()
    assert err.strip() == "python -m board_arena.engines.mancala.endgame: interrupted; nothing was written"
    assert not any(cache.rglob("*.egdb*"))


def test_the_builder_builds_then_says_the_file_is_there(capsys, cache):
    assert endgame.main(["--pits", "2", "--seeds", "3", "--threads", "2"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert endgame.main(["--pits", "2", "--seeds", "3"]) == 0
    assert "is there and verified" in capsys.readouterr().out


def _solve_py():
    spec = importlib.util.spec_from_file_location("solve_py", SOLVE_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("argv,words", [
    ([], "give --game or --kalah-table"),
    (["--game", "kalah", "--limit", "-5"], "--limit must be seconds of processor time >= 0"),
    (["--game", "kalah", "--limit", "nan"], "--limit must be"),
    (["--game", "kalah", "--limit", "ten"], "invalid float value"),
    (["--game", "kalah", "--table-mb", "-1"], "--table-mb must be more than 0"),
    (["--game", "kalah", "--table-mb", "1e12"], "at most half the machine's memory"),
    (["--game", "kalah", "--threads", "0"], "--threads must be 1..8"),
    (["--game", "kalah", "--endgame", "64"], "--endgame must be 0..63"),
    (["--kalah-table", "--out", "/nonexistent/x.md"], "does not exist or cannot be written"),
    (["--kalah-table", "--out", "."], "is a folder"),
    (["--kalah-table", "--pits", "0,1"], "--pits takes positive whole numbers"),
    (["--kalah-table", "--pits", "9"], "Kalah has 1..8 pits a row"),
    (["--kalah-table", "--seeds", "a"], "--seeds takes positive whole numbers"),
    (["--kalah-table", "--db-entries", "0"], "--db-entries must be more than 0"),
    (["--kalah-table", "--guess", "3"], "--guess goes with --game"),
    (["--game", "nosuch"], "unknown game 'nosuch'"),
    (["--game", "kalah:pits=0"], "pits=0 is out of range"),
    (["--game", "konane", "--endgame", "4"], "konane has no endgame databases"),
    (["--game", "kalah:pits=8", "--endgame", "40"], "ask for fewer seeds"),
])
def test_every_bad_input_of_solve_py_is_one_line_and_status_2(argv, words, capsys, cache):
    assert _solve_py().main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and words in err and err.count("\n") == 1 and "Traceback" not in err


def test_solve_py_interrupted_is_one_line_and_status_130(capsys, monkeypatch):
    module = _solve_py()

    def interrupt(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(module, "solve_one", interrupt)
    assert module.main(["--game", "kalah:pits=2"]) == 130
    assert capsys.readouterr().err.strip() == "solve.py: interrupted"


def test_a_second_ctrl_c_while_solve_py_saves_the_book_waits_for_the_save(capsys, cache, monkeypatch):
    """The first Ctrl-C stops the search and saves what it proved; a second one while the book
    is written is ignored (here it comes at the start of the save, the worst moment)."""
    module = _solve_py()
    saved = module.Book.save

    def save_interrupted(book):
        signal.raise_signal(signal.SIGINT)
        return saved(book)

    def interrupted(*args, **options):
        raise KeyboardInterrupt

    monkeypatch.setattr(module.Book, "save", save_interrupted)
    monkeypatch.setattr(module, "solve", interrupted)
    monkeypatch.setattr(module, "warm_up", lambda state, db: None)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        assert module.main(["--game", "kalah:pits=2,seeds=2", "--book", "--table-mb", "1", "--quiet"]) == 130
    finally:
        signal.signal(signal.SIGINT, previous)
    books = list(cache.rglob("*.book"))
    assert len(books) == 1, "the book was saved"
    assert [line for line in capsys.readouterr().err.splitlines() if line] == ["solve.py: saving the book (a second Ctrl-C waits for it)", "solve.py: interrupted"]


def test_solve_py_proves_from_a_guess_and_prints_the_search_shape(capsys, cache):
    """--guess replaces the estimates (a wrong guess still ends at the exact margin); --counters
    prints the search's shape."""
    module = _solve_py()
    for guess in ("2", "9", "-4"):
        assert module.main(["--game", "kalah:pits=3,seeds=3,empty_capture=true", "--guess", guess, "--counters",
                            "--table-mb", "1", "--quiet"]) == 0
        out = capsys.readouterr().out
        assert "a win by 2 for South" in out and "search shape: player 0:" in out and "probes found" in out


def test_solve_py_refuses_a_damaged_database_in_one_line(capsys, cache):
    path = built(cache)
    path.write_bytes(path.read_bytes()[:-1])
    endgame.forget_loaded()
    module = _solve_py()
    assert module.main(["--game", f"kalah:pits={PITS},seeds=2,empty_capture=true", "--endgame", str(SEEDS)]) == 2
    err = capsys.readouterr().err
    assert "truncated" in err and "--rebuild" in err and err.count("\n") == 1
    assert module.main(["--game", f"kalah:pits={PITS},seeds=2,empty_capture=true", "--endgame", str(SEEDS),
                        "--rebuild-endgame", "--quiet"]) == 0
    assert "a loss by 2" in capsys.readouterr().out


def test_the_default_database_is_small_and_never_has_more_seeds_than_the_game(cache):
    small = engines.make("kalah", pits=3, seeds=3)
    assert small.endgame.default_size(small.new_initial_state(0)) == 18  # all of its 18 seeds
    kalah = engines.make("kalah")
    assert kalah.endgame.default_size(kalah.new_initial_state(0)) == 16  # the largest of at most 2**25 positions


def test_the_builder_run_as_a_module_says_one_line():
    # Run as `python -m` (as the docs show it): nothing may print before the error, not even
    # Python's warning about a module imported before it runs as __main__.
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-m", "board_arena.engines.mancala.endgame", "--pits", "0"],
                          cwd=root, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--pits must be 1..8, not 0" in done.stderr, done.stderr
