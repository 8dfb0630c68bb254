"""A plugin that lets OpenSpiel's C++ MCTS (``pyspiel.MCTSBot`` with random rollouts) play our
``kalah`` and ``nine-mens-morris``, so that a run rates our agents against a standard reference:

    arena run --game kalah --agents openspiel-mcts,mcts,alphabeta --move-time 0.05 \\
        --plugin experiments/plugins/openspiel_mcts.py --gauntlet --games 40

(needs ``pip install open_spiel``, part of the ``bench`` and ``test`` extras). For each move the
adapter replays our game's moves into an OpenSpiel state, checking at every step that both
engines agree on the legal moves (so a rule difference is an error, never a silent mismatch),
and maps the bot's action back to our move id. It keeps the last position it replayed (cleared
by ``reset``) and replays only the moves since, so a move costs the same early and late in a
game; the replay's time comes out of the move's budget, as an engine's overhead does.

Move mapping:

- ``kalah`` (our 6 pits, 4 seeds, Kalah captures) is OpenSpiel's ``mancala``: our move ``i`` (the
  mover's ``i``-th pit in sowing order) is OpenSpiel's board index ``1 + i`` for the first player
  and ``8 + i`` for the second.
- ``nine-mens-morris`` is OpenSpiel's ``nine_mens_morris``; both number the 24 points row by row
  from the top left (``a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1``).
  A placement is the point, a slide or a flight ``24 + 24 * from + to``; a capture is a second
  OpenSpiel decision by the same player (the point shot), where ours is one compound move
  (``d2-d1xg1``): the bot then chooses the capture too. When a move may close a mill, the
  move's time is shared: ``SHOT_SHARE`` of it kept for the shot, the rest for the move, each
  decision given at least ``MIN_SECONDS`` (and, should the clock run out before the bot's root
  has children, on which OpenSpiel's ``MCTSBot.step`` crashes, the few simulations that make
  them).

The budget is ``time`` seconds per move (the arena's ``--move-time`` replaces it), which the bot
spends on simulations (``max_wall_clock_time``); ``simulations`` caps them instead when given
(reproducible, with the agent's seed). Parameters: ``uct_c`` OpenSpiel's exploration constant
(2 for rewards in [-1, 1], its own default), ``rollouts`` random playouts per leaf, ``solve``
OpenSpiel's MCTS-Solver backup of proven values.
"""

from __future__ import annotations

import time

from board_arena import agents
from board_arena.agents import Agent, AgentParam, SearchInfo

try:
    import pyspiel
except ImportError:  # the agent still registers, and says what it needs when used
    pyspiel = None

MORRIS_POINTS = "a7 d7 g7 b6 d6 f6 c5 d5 e5 a4 b4 c4 e4 f4 g4 c3 d3 e3 b2 d2 f2 a1 d1 g1".split()
MORRIS_INDEX = {name: i for i, name in enumerate(MORRIS_POINTS)}
#: Our game (by its rules, as our registry names them) -> OpenSpiel's game and its parameters.
KALAH_PARAMS = {"pits": 6, "seeds": 4, "capture": "kalah", "empty_capture": False}


def _kalah_actions(state, move: int) -> list[int]:
    return [(1 if state.current_player == 0 else 8) + move]


def _morris_actions(state, move: int) -> list[int]:
    text = state.format_move(move)
    step, _, shot = text.partition("x")
    origin, _, target = step.partition("-")
    actions = [MORRIS_INDEX[origin]] if not target else [24 + 24 * MORRIS_INDEX[origin] + MORRIS_INDEX[target]]
    if shot:
        actions.append(MORRIS_INDEX[shot])
    return actions


def _spiel_game(game):
    """(OpenSpiel game, our move -> its actions) for the games the adapter knows."""
    if game.family == "mancala" and dict(game.params) == KALAH_PARAMS:
        return pyspiel.load_game("mancala"), _kalah_actions
    if game.name == "nine-mens-morris" or (game.family == "morabaraba" and game.params.get("cows") == 9 and not game.params.get("diagonals")):
        return pyspiel.load_game("nine_mens_morris"), _morris_actions
    return None, None


@agents.register_agent
class OpenSpielMCTSAgent(Agent):
    name = "openspiel-mcts"
    summary = "OpenSpiel's C++ MCTS with random rollouts, for kalah and nine-mens-morris (plugin; needs open_spiel)"
    PARAMS = (
        AgentParam("time", None, "seconds per move (1 when neither time nor simulations is given)", low=0.001, high=86400.0, kind=float, allow_none=True, effect="seconds"),
        AgentParam("simulations", None, "simulations per move instead of a time (reproducible)", low=1, high=10**9, kind=int, allow_none=True, effect="work"),
        AgentParam("uct_c", 2.0, "UCT exploration constant", low=0.0, high=100.0, effect="setting"),
        AgentParam("rollouts", 1, "random playouts per evaluated leaf", low=1, high=1000, effect="work"),
        AgentParam("solve", True, "back up proven wins and losses (MCTS-Solver)", effect="work"),
    )

    DEFAULT_TIME = 1.0
    #: The least time a decision is given (seconds): the bot must expand its root in it.
    MIN_SECONDS = 0.01
    #: The part of a move's time kept for the shot when the move may close a mill.
    SHOT_SHARE = 1 / 3

    def check_game(self, game):
        super().check_game(game)
        if pyspiel is None:
            raise ValueError("openspiel-mcts needs OpenSpiel: pip install open_spiel")
        if _spiel_game(game)[0] is None:
            raise ValueError(f"openspiel-mcts plays kalah (6 pits, 4 seeds) and nine-mens-morris, not {game.name} {dict(game.params)}")

    def reset(self, seed: int | None = None) -> None:
        self._last = None  # (game, seed, moves, our state, OpenSpiel's state) of the last replay
        super().reset(seed)

    def _replay(self, state):
        """OpenSpiel's state after our game's moves, checking the legal moves at every step; from
        the last replayed position when this game continues it, else from the start."""
        if state.custom_start:
            raise ValueError("openspiel-mcts replays the game from its start: a set-up position has none")
        spiel_game, to_actions = _spiel_game(state.game)
        history = tuple(state.history)
        last = self._last
        if last is not None and last[:2] == (state.game, state.seed) and history[: len(last[2])] == last[2]:
            done, replay, spiel = len(last[2]), last[3].copy(), last[4].clone()
        else:
            done, replay, spiel = 0, state.game.new_initial_state(state.seed), spiel_game.new_initial_state()
        for move in history[done:] + (None,):
            ours = sorted(a for m in replay.legal_moves() for a in to_actions(replay, m)[:1])
            if sorted(set(ours)) != sorted(spiel.legal_actions()):
                raise ValueError(
                    f"OpenSpiel's {spiel_game} and our {state.game.name} disagree on the legal moves after "
                    f"{replay.ply} plies (a rule difference)"
                )
            if move is None:
                self._last = (state.game, state.seed, history, replay, spiel.clone())
                return spiel, to_actions
            for action in to_actions(replay, move):
                spiel.apply_action(action)
            replay.apply(move)

    def _bot(self, spiel_game, seconds, simulations, seed):
        evaluator = pyspiel.RandomRolloutEvaluator(self.params["rollouts"], seed)
        return pyspiel.MCTSBot(
            spiel_game,
            evaluator,
            self.params["uct_c"],
            simulations or 10**9,
            1000,  # MB of tree at most
            self.params["solve"],
            seed,
            False,
            pyspiel.ChildSelectionPolicy.UCT,
            seconds if seconds else -1.0,
        )

    def _decide(self, spiel, seconds, simulations, seed):
        """The bot's action at ``spiel``. Its clock is checked between simulations, and the root's
        children appear only at its second simulation: a clock that runs out first (a loaded
        machine can take the whole budget between two simulations) leaves a root without children,
        on which ``MCTSBot.step`` crashes the process. Searched through ``mcts_search`` instead,
        such a root is searched again with the few simulations that expand it and no clock."""
        root = self._bot(spiel.get_game(), seconds, simulations, seed).mcts_search(spiel)
        if not root.children:
            root = self._bot(spiel.get_game(), None, len(spiel.legal_actions()) + 2, seed).mcts_search(spiel)
        return root.best_child().action

    def _select(self, state, limit):
        start = time.perf_counter()  # the replay and the rest of the adapter's work count as the bot's time
        spiel, to_actions = self._replay(state)
        # The arena's --move-time comes as limit.time and replaces the agent's own budget.
        simulations = None if limit.time else limit.iterations or self.params["simulations"]
        seconds = limit.time or (None if simulations else self.DEFAULT_TIME)
        seed = (self.seed + 7919 * state.ply) % 2**31  # one per move, from the agent's seed
        may_shoot = any(len(to_actions(state, m)) > 1 for m in state.legal_moves())
        share = None
        if seconds is not None:
            left = seconds - (time.perf_counter() - start)
            share = max(self.MIN_SECONDS, left - seconds * self.SHOT_SHARE if may_shoot else left)
        first = self._decide(spiel, share, simulations, seed)
        candidates = [m for m in state.legal_moves() if to_actions(state, m)[0] == first]
        if len(candidates) > 1:  # a mill: the same player chooses the shot, with the time left
            spiel.apply_action(first)
            left = None if seconds is None else max(self.MIN_SECONDS, seconds - (time.perf_counter() - start))
            second = self._decide(spiel, left, simulations, seed + 1)
            candidates = [m for m in candidates if to_actions(state, m)[1:] == [second]]
            if not candidates:
                raise ValueError(f"OpenSpiel's capture {second} is not one of ours here (a rule difference)")
        return SearchInfo(move=candidates[0])
