"""The analysis notebook (experiments/analysis.ipynb) runs from top to bottom on this code."""

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a system test (the notebook, run top to bottom): python -m pytest -m "not slow" leaves it out

nbformat = pytest.importorskip("nbformat", reason="the notebook test needs the test extra: pip install -e '.[test]'")
nbclient = pytest.importorskip("nbclient", reason="the notebook test needs the test extra: pip install -e '.[test]'")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "experiments" / "analysis.ipynb"


def test_the_analysis_notebook_runs_and_is_stored_without_outputs(tmp_path):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    # Stored stripped: outputs on GitHub would have to come from the committed code.
    assert all(not cell.get("outputs") and not cell.get("execution_count") for cell in notebook.cells if cell.cell_type == "code")
    # The kernel imports this checkout's code (its first cell finds the root from the working
    # folder; PYTHONPATH covers a kernel that starts elsewhere), and writes its run in tmp_path.
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), "TMPDIR": str(tmp_path)}
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        client.execute()
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    outputs = [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if out.output_type == "error"]
    text = "".join(out.get("text", "") for out in outputs) + "".join(str(out.get("data", {}).get("text/plain", "")) for out in outputs)
    assert "<Run kalah: random, greedy, mcts:iterations=100, alphabeta:depth=3; 60 of 60 games played;" in text
    assert "Standings (Elo against the agents' mean; Bradley-Terry" in text and "60 games; the first replays to" in text
    assert "| make('konane', size=4) | solver | 0.1 | 12 | 100% (76-100) | 100% | 0.00 ± 0.00 |" in text  # the accuracy benchmark
    images = [out for out in outputs if "image/png" in out.get("data", {})]
    assert len(images) >= 6  # Elo, scores, history, one game's searches, game lengths, accuracy
    assert any(path.name.startswith("arena-analysis-") for path in tmp_path.iterdir())  # not in the real /tmp
