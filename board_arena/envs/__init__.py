"""Learning environments: a batched compiled environment (:class:`BatchedEnv`), PettingZoo AEC
environments (:mod:`envs.pettingzoo`) and Gymnasium single-agent environments
(:mod:`envs.gymnasium`, registered as ``board-arena/<game>-v0``). The last two need the ``rl``
extra (``pip install "board-arena[rl]"``)."""

from board_arena.envs.batched import BatchedEnv, IllegalActionError, NotAnActionError

__all__ = ["BatchedEnv", "IllegalActionError", "NotAnActionError"]
