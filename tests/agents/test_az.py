"""The network-guided search (``az``) and its networks: the compiled forward pass against a plain
numpy one, the weights file's checks, sequential halving's schedule, and legal, reproducible play
in every perfect-information game."""

import numpy as np
import pytest

from board_arena import agents, engines
from board_arena.agents.az import considered_visits
from board_arena.agents.network import Network, NetworkError

GAMES = ["kalah", "mancala", "nine-mens-morris", "morabaraba", "morabaraba-9", "konane", "konane-classic", "tictactoe"]


def positions(game, count, seed):
    """Positions of random games (none over), a few plies apart."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = game.new_initial_state(int(rng.integers(2**31)))
        while not state.is_terminal() and len(found) < count:
            if rng.random() < 0.3:
                found.append(state.copy())
            moves = state.legal_moves()
            state.apply(moves[int(rng.integers(len(moves)))])
    return found


@pytest.fixture(scope="module")
def networks(tmp_path_factory):
    folder = tmp_path_factory.mktemp("networks")
    paths = {}
    for name in GAMES:
        game = engines.make(name)
        paths[name] = folder / f"{name}.net"
        Network.random(game, hidden=24, blocks=2, seed=len(name)).save(paths[name], trained="no")
    return paths


@pytest.mark.parametrize("name", GAMES)
def test_the_compiled_pass_equals_plain_numpy_on_random_inputs(name):
    game = engines.make(name)
    net = Network.random(game, hidden=20, blocks=2, seed=3)
    rng = np.random.default_rng(4)
    shape = (8, net.inputs)
    # Board planes (0/1, mostly zero) and dense random floats of both signs.
    batch = np.concatenate([(rng.random(shape) < 0.3).astype(np.float32), rng.normal(size=shape).astype(np.float32)])
    logits, values = net.evaluate_numpy(batch)
    from board_arena.agents.network import network_forward

    every = np.arange(net.actions, dtype=np.int64)
    for row, expected_logits, expected_value in zip(batch, logits, values):
        out = np.empty(net.actions, np.float32)
        value = network_forward(net.weights, net.dims, row, every, net.actions, out,
                                np.empty(net.hidden, np.float32), np.empty(net.hidden, np.float32))
        np.testing.assert_allclose(out, expected_logits, rtol=1e-5, atol=1e-5)
        assert value == pytest.approx(float(expected_value), abs=1e-5)
    some = every[::3]
    out = np.empty(len(some), np.float32)
    network_forward(net.weights, net.dims, batch[0], some, len(some), out,
                    np.empty(net.hidden, np.float32), np.empty(net.hidden, np.float32))
    np.testing.assert_allclose(out, logits[0][::3], rtol=1e-5, atol=1e-5)  # only the actions asked for


def test_layers_round_trip_and_a_file_reads_back_equal(tmp_path):
    game = engines.make("konane")
    net = Network.random(game, hidden=16, blocks=3, seed=1)
    again = Network.from_layers(game, net.layers())
    assert np.array_equal(again.weights, net.weights)
    assert net.layers()[0].shape == (16, net.inputs) and net.layers()[-4].shape == (net.actions, 16)
    net.save(tmp_path / "k.net", steps=12)
    loaded = Network.load(tmp_path / "k.net", game)
    assert np.array_equal(loaded.weights, net.weights) and (loaded.hidden, loaded.blocks) == (16, 3)
    assert Network.header(tmp_path / "k.net")["metadata"] == {"steps": 12}


def test_bad_weights_files_are_refused_in_one_line(tmp_path):
    kalah = engines.make("kalah")
    path = tmp_path / "kalah.net"
    Network.random(kalah, hidden=8, blocks=1).save(path)
    data = path.read_bytes()

    def refused(target, game=kalah):
        with pytest.raises(NetworkError) as error:
            Network.load(target, game)
        assert "\n" not in str(error.value)
        return str(error.value)

    assert "no network file" in refused(tmp_path / "missing.net")
    (tmp_path / "short.net").write_bytes(data[:-10])
    assert "truncated" in refused(tmp_path / "short.net")
    altered = bytearray(data)
    altered[-3] ^= 0xFF
    (tmp_path / "altered.net").write_bytes(bytes(altered))
    assert "damaged" in refused(tmp_path / "altered.net")
    (tmp_path / "foreign.net").write_bytes(b"PK\x03\x04 not ours" * 300)
    assert "is not a network file" in refused(tmp_path / "foreign.net")
    assert "a network of kalah, not of konane" in refused(path, engines.make("konane"))
    assert "other parameters (pits=6 here 4)" in refused(path, engines.make("kalah", pits=4))
    with pytest.raises(ValueError, match="layer 0 of a 8x1 network"):
        Network.from_layers(engines.make("mancala", pits=5), Network.random(kalah, 8, 1).layers())
    agent = agents.make_agent(f"az:weights={tmp_path / 'short.net'}")
    with pytest.raises(ValueError, match="truncated"):
        agent.check_game(kalah)
    with pytest.raises(ValueError, match="az needs a network: az:weights=FILE"):
        agents.make_agent("az").check_game(kalah)


def test_sequential_halving_schedule_is_mctx_s():
    # 4 moves, 8 simulations: a visit each, then the best two twice each (worked out by hand
    # from mctx's get_sequence_of_considered_visits).
    assert considered_visits(4, 8).tolist() == [0, 0, 0, 0, 1, 1, 2, 2]
    assert considered_visits(1, 3).tolist() == [0, 1, 2]
    assert considered_visits(16, 200)[:16].tolist() == [0] * 16
    assert len(considered_visits(16, 200)) == 200


@pytest.mark.parametrize("search", ["gumbel", "puct"])
@pytest.mark.parametrize("name", GAMES)
def test_az_plays_legal_moves_and_the_same_seed_plays_the_same(name, search, networks):
    game = engines.make(name)
    spec = f"az:weights={networks[name]},iterations=40,search={search}"
    first, second = agents.make_agent(spec, seed=5), agents.make_agent(spec, seed=5)
    for state in positions(game, 6, seed=len(name)):
        info = first.search(state)
        assert state.is_legal(info.move)
        assert info.simulations == 40 and -1.0 <= info.value <= 1.0
        assert second.select_move(state) == info.move


def test_az_finishes_games_against_random_and_takes_a_time_budget(networks):
    game = engines.make("kalah")
    final = agents.play_game(game, [agents.make_agent(f"az:weights={networks['kalah']},iterations=30", seed=1),
                                    agents.make_agent("random", seed=2)], seed=0)
    assert final.is_terminal()
    agent = agents.make_agent(f"az:weights={networks['konane']},time=0.05", seed=1)
    state = engines.make("konane").new_initial_state(0)
    for _ in range(3):  # the first move plans 64 simulations, the next ones from the speed measured
        info = agent.search(state)
        assert state.is_legal(info.move) and info.simulations >= 1
        state.apply(info.move)


def test_a_network_that_prefers_a_move_gets_it_played_at_one_simulation():
    """With one simulation Gumbel's root plays the top of g + logits, and with a dominant logit,
    that is the move; PUCT's single visit goes to the largest prior."""
    game = engines.make("kalah")
    net = Network.random(game, hidden=8, blocks=0, seed=0)
    layers = [np.zeros_like(layer) for layer in net.layers()]
    layers[-3][2] = 30.0  # the policy's bias: action 2 (pit c) by far
    net = Network.from_layers(game, layers)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.net"
        net.save(path)
        state = game.new_initial_state()
        for search in ("gumbel", "puct"):
            move = agents.make_agent(f"az:weights={path},iterations=2,search={search}", seed=1).select_move(state)
            assert move == game.encoding.move_of(2), search
