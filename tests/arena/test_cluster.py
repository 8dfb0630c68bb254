"""The Ray backend (arena.tournament.cluster): the same games as the process pool, workers and nodes that die
mid-run, and one-line errors for bad or unreachable clusters. Runs on a Ray instance started here
and on a multi-node cluster simulated on this machine (``ray.cluster_utils.Cluster``)."""

import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
import ray

from board_arena import arena
from board_arena.arena.tournament.cluster import RayPool, parse_cluster

pytestmark = pytest.mark.slow  # a system test (Ray: a Ray instance, actors, a simulated cluster): python -m pytest -m "not slow" leaves it out

ROOT = Path(__file__).resolve().parents[2]
#: The actors of a test instance import this checkout's code.
RUNTIME_ENV = {"env_vars": {"PYTHONPATH": str(ROOT)}}
CHEAP = ("kalah:pits=3,seeds=2", ["greedy", "mcts:iterations=50"])
# Games of a few hundred ms each, so that a run is still going when a worker is killed.
SLOW = ("kalah", ["mcts:iterations=3000", "alphabeta:depth=5"])


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, object_store_memory=100 * 1024 * 1024, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR, runtime_env=RUNTIME_ENV)
    yield
    ray.shutdown()


def comparable(run):
    """What the seeds decide (times and finishing order are the machine's)."""
    return [(g.id, g.player0, g.player1, g.game_seed, g.seed0, g.seed1, g.moves, g.result, g.score, g.end_reason) for g in run.games]


def worker_pids(children: bool = False) -> list[int]:
    """Pids of the live Ray actors that play games (Ray names their processes after the class),
    or with ``children``, of the worker processes they play on (forked: named alike)."""
    found = {}
    for process in psutil.process_iter(["cmdline", "status", "ppid"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if "ray::_GameWorker" in cmdline and process.info["status"] != psutil.STATUS_ZOMBIE:
            found[process.pid] = process.info["ppid"]
    return [pid for pid, parent in found.items() if (parent in found) == children]


def test_ray_plays_the_same_games_as_the_process_pool_at_any_number_of_workers(local_ray, tmp_path):
    settings = arena.TournamentSettings.create(CHEAP[0], CHEAP[1], games=24, seed=5)
    pool = arena.run_tournament(settings, str(tmp_path / "pool"), concurrency=2, progress=False)
    on_ray = arena.run_tournament(settings, str(tmp_path / "ray2"), concurrency=2, progress=False, cluster="ray")
    on_one = arena.run_tournament(settings, str(tmp_path / "ray1"), concurrency=1, progress=False, cluster="ray")
    assert len(pool.games) == 24
    assert comparable(on_ray) == comparable(pool) == comparable(on_one)
    assert on_ray.worker_compilations == 0, "a warm actor compiles nothing more"


def test_a_ray_run_resumes_and_grows_like_a_local_one(local_ray, tmp_path):
    out = str(tmp_path / "run")
    small = arena.TournamentSettings.create(CHEAP[0], CHEAP[1], games=6)
    arena.run_tournament(small, out, progress=False, cluster="ray")
    grown = arena.run_tournament(arena.TournamentSettings.create(CHEAP[0], CHEAP[1], games=12), out, progress=False, cluster="ray")
    local = arena.run_tournament(arena.TournamentSettings.create(CHEAP[0], CHEAP[1], games=12), str(tmp_path / "local"), concurrency=1, progress=False)
    assert comparable(grown) == comparable(local)


def test_a_worker_killed_with_sigkill_mid_run_loses_nothing_and_nothing_comes_twice(local_ray):
    settings = arena.TournamentSettings.create(SLOW[0], SLOW[1], games=12)
    ids = []
    with RayPool(settings, 2, where=parse_cluster("ray")) as pool:
        for result in pool.play(settings.schedule()):
            ids.append(result.id)
            if len(ids) == 1:
                victims = worker_pids()
                assert victims, "the actors' processes are found"
                os.kill(victims[0], signal.SIGKILL)
    assert sorted(ids) == list(range(12)), "every planned game exactly once"
    assert pool.lost >= 1


@pytest.mark.usefixtures("forget_plugins")
def test_an_agent_that_crashes_or_hangs_on_a_ray_actor_loses_its_game_and_the_run_goes_on(local_ray, tmp_path):
    """As on the local pool (tests/arena/test_isolation.py): each actor plays on a worker process
    of its own, which a segmentation fault or a hang past the clock costs, and no more."""
    faulty = str(ROOT / "tests" / "plugins" / "faulty_agents.py")
    settings = arena.TournamentSettings.create(
        "kalah", ["random", "faulty:fault=segfault", "faulty:fault=hang"], games=2, seed=1, gauntlet=True,
        time_control="1", tc_margin=0.3, plugins=[faulty],
    )
    run = arena.run_tournament(settings, str(tmp_path / "run"), concurrency=2, progress=False, cluster="ray")
    assert sorted(g.id for g in run.games) == list(range(settings.total_games))
    for g in run.games:
        seat = 0 if g.player0.startswith("faulty") else 1
        spec = (g.player0, g.player1)[seat]
        expected = (
            f"crash in seat {seat} ({spec}): its worker process died during its search (killed by SIGSEGV), twice in this game"
            if "segfault" in spec
            else f"lost on time in seat {seat} ({spec}): no move after"
        )
        assert g.end_reason.startswith(expected), g.end_reason
        assert g.score_for(seat) == 0.0 and g.plies >= 4


def test_a_bad_cluster_value_is_one_line_and_exit_2(tmp_path):
    for value, expected in [("bogus", "--cluster must be ray"), ("ray://nohost", "--cluster must be ray"), ("ray://127.0.0.1:9", "cannot reach")]:
        out = tmp_path / "never"
        result = subprocess.run(
            [sys.executable, "-m", "board_arena.arena.cli", "run", "--game", "kalah", "--agents", "random,greedy", "--cluster", value, "--out", str(out)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=120,
        )
        lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("Run folder")]
        assert result.returncode == 2, result.stderr
        assert len(lines) == 1 and expected in lines[0], result.stderr
        assert not out.exists(), "nothing is made for a cluster that is not there"


def test_without_ray_installed_the_error_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    from board_arena.arena import cli

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if it were not installed
    code = cli.main(["run", "--game", "kalah", "--agents", "random,greedy", "--cluster", "ray", "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err[-1] == 'arena run: error: --cluster needs Ray, an optional extra: pip install -e ".[ray]"'


@pytest.mark.parametrize("environment, said", [
    ({}, "; if the cluster requires a token, set it here: export RAY_AUTH_MODE=token RAY_AUTH_TOKEN=<the token that"),
    ({"RAY_AUTH_MODE": "token"}, "; RAY_AUTH_MODE=token is set, but no token: export RAY_AUTH_MODE=token RAY_AUTH_TOKEN=<"),
    ({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "abc"}, None),
])
def test_a_ray_client_join_that_fails_says_exactly_what_token_settings_to_make(environment, said, monkeypatch, tmp_path):
    """Ray Client, refused by a cluster that requires a token, only times out: the message says
    which of the mode and the token this shell lacks."""
    from board_arena.arena import TournamentSettings
    from board_arena.arena.tournament.cluster import RayPool

    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.ray/auth_token
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    pool = RayPool(TournamentSettings.create("kalah", ["random", "greedy"]), where="ray://head.example:10001")
    message = pool._unreachable(ConnectionError("ray client connection timeout"))
    assert message.startswith("cannot join the Ray cluster at head.example:10001: ray client connection timeout")
    assert (said in message) if said else message.endswith("timeout"), message


def test_a_node_that_leaves_a_multi_node_cluster_mid_run_loses_nothing():
    from ray.cluster_utils import Cluster

    ray.shutdown()  # this test makes its own cluster
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "_system_config": {"health_check_period_ms": 500, "health_check_failure_threshold": 4}},
    )
    try:
        nodes = [cluster.add_node(num_cpus=1) for _ in range(2)]
        ray.init(address=cluster.address, log_to_driver=False, logging_level=logging.ERROR, runtime_env=RUNTIME_ENV)
        cluster.wait_for_nodes()
        settings = arena.TournamentSettings.create(SLOW[0], SLOW[1], games=10)
        pool = RayPool(settings, where=parse_cluster("auto"))
        pool.open()
        ids = []
        for result in pool.play(settings.schedule()):
            ids.append(result.id)
            if len(ids) == 1:
                cluster.remove_node(nodes[1])
        assert sorted(ids) == list(range(10)), "every planned game exactly once"
        assert pool.lost >= 1
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_ctrl_c_on_a_ray_run_is_one_line_and_exit_130_leaves_no_worker_and_the_run_resumes(tmp_path):
    import sqlite3
    import time

    out = tmp_path / "run"
    command = [sys.executable, "-m", "board_arena.arena.cli", "run", "--game", "kalah", "--agents", "mcts:iterations=100000,alphabeta:depth=9"]
    command += ["--games", "6", "--cluster", "ray", "--quiet", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def stored() -> int:
        try:
            with sqlite3.connect(f"{(out / 'results.sqlite').as_uri()}?mode=ro", uri=True) as db:
                return db.execute("SELECT count(*) FROM games").fetchone()[0]
        except sqlite3.Error:
            return 0

    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 120
    while stored() < 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("arena run: interrupted"), err
    time.sleep(1)
    assert not worker_pids() and not worker_pids(children=True), "no Ray worker is left playing"
    resumed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert stored() == 6


def test_a_local_ray_instance_listens_on_this_machine_only(tmp_path):
    """Every socket that the Ray instance of --cluster ray listens on is a loopback address (in a
    process of its own: this module's instance is another one)."""
    script = """
import json, psutil
from board_arena import arena
from board_arena.arena.tournament.cluster import RayPool
settings = arena.TournamentSettings.create("kalah:pits=3,seeds=2", ["random", "greedy"], games=2)
with RayPool(settings, 1, where="ray") as pool:
    results = list(pool.play(settings.schedule()))
    ray_pids = {p.pid for p in psutil.Process().children(recursive=True)}
    listening = sorted({c.laddr.ip for c in psutil.net_connections("inet") if c.status == "LISTEN" and c.pid in ray_pids})
print(json.dumps([len(results), listening]))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    played, listening = json.loads(result.stdout.strip().splitlines()[-1])
    assert played == 2 and listening, "the instance played and listens somewhere"
    assert all(ip in ("127.0.0.1", "::1", "::ffff:127.0.0.1") for ip in listening), listening
    assert "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER" not in os.environ
