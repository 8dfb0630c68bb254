"""Every registered game passes the conformance checker: one test over every preset, so a game
added to the registry cannot skip it; and the contract refuses what would confuse its dispatch."""

import numpy as np
import pytest

from board_arena import engines
from board_arena.engines import contract
from tests.conformance import check_conformance


@pytest.mark.parametrize("name", engines.available_games())
def test_every_registered_game_passes_conformance(name):
    game = engines.make(name)
    for final in check_conformance(game, games=5):
        reason = final.end_reason
        assert isinstance(reason, str) and reason and "\n" not in reason
    assert game.new_initial_state(seed=0).end_reason is None


def test_every_registered_kernel_module_belongs_to_a_game_of_the_registry():
    # A kernel module registered with the contract but reachable through no preset would escape
    # the test above.
    families = {family.kernels for family in engines.game_classes()}
    assert set(contract.registered_modules()) == families
    assert {engines.game_class(name).kernels for name in engines.available_games()} == families


def test_a_second_game_with_the_same_state_type_is_refused():
    class Impostor:
        __name__ = "impostor.kernels"

    mancala = engines.make("kalah").kernels
    for name in contract._REQUIRED:
        setattr(Impostor, name, getattr(mancala, name))
    with pytest.raises(TypeError, match="is the state type of board_arena.engines.mancala.kernels already"):
        contract.register(Impostor)
    contract.register(mancala)  # registering a game again is harmless
    assert contract.kernels_for(np.dtype(mancala.STATE_DTYPE)) is mancala
