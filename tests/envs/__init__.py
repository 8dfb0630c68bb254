"""The learning environments: the batched environment against the engine, PettingZoo and Gymnasium."""
