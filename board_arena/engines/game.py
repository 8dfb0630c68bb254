"""The rules of a game as Python: variants with validated parameters, states that people and
notebooks can play, print and copy, and game records that replay.

A :class:`Game` knows the rules; what else a game offers is a capability of its own module,
reached from the game object (as python-chess keeps drawing in ``chess.svg`` and game files in
``chess.pgn``, apart from the board):

=================  ==================================================  =======================
``game.notation``  moves as text both ways, the terminal drawing, the  :mod:`engines.notation`
                   help text
``game.web``       the browser's drawing and moves as clicks           :mod:`engines.web`
``game.encoding``  actions, legal-action masks, observation tensors    :mod:`engines.encoding`
``game.endgame``   endgame databases (None for a game without)         :mod:`engines.endgame`
=================  ==================================================  =======================

Everything here wraps the compiled kernels of :mod:`engines.contract`; nothing here is on a
search's hot path.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any, ClassVar, Iterator, Sequence

import numpy as np

from board_arena.engines import _face, contract
from board_arena.engines.encoding import Encoding
from board_arena.engines.endgame import EndgameDatabases
from board_arena.engines.errors import IllegalMoveError, VariantError, shown
from board_arena.engines.notation import Notation
from board_arena.engines.params import Param
from board_arena.engines.registry import make
from board_arena.engines.web import WebBoard

__all__ = ["Game", "State", "GameRecord", "IllegalMoveError", "VariantError", "PLY_CAP", "shown"]

# What a game's family and preset names are made of (they appear in specs, paths and URLs).
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")

#: The end reason of a game stopped as a draw by a ply cap (a bound for machines, not a rule):
#: the arena counts such games apart.
PLY_CAP = "ply cap"


class Game:
    """A game variant: the rules fixed by a preset and its parameters.

    A game is a subclass registered with :func:`engines.register_game`: it sets the class
    attributes below (``family``, ``PARAMS``, ``PRESETS``, ``kernels``, ``notation_class``,
    ``encoding_class``) and implements the methods listed in :data:`Game.REQUIRED` (the start
    record, the board as data, the words for its illegal-move codes). The browser board has a
    default (``web_class``); endgame databases are optional (``endgame_class``). Make games with
    :func:`engines.make`, not by calling the class.
    """

    #: The methods a game must implement (the base class has no meaningful default for them).
    REQUIRED: ClassVar[tuple[str, ...]] = ("_init_record", "_board", "_reason_words")

    #: The name of the game's family (one per ``Game`` subclass); the page's drawings are keyed by it.
    family: ClassVar[str]
    #: Variant parameters, in the order they are listed.
    PARAMS: ClassVar[tuple[Param, ...]]
    #: Preset name -> parameter values that differ from the defaults; the first is the default.
    PRESETS: ClassVar[dict[str, dict[str, Any]]]
    #: The kernel module registered with :mod:`engines.contract`.
    kernels: ClassVar[ModuleType]
    #: False when players see only part of the state (agents then get :meth:`State.view`).
    perfect_information: ClassVar[bool] = True
    player_names: ClassVar[tuple[str, str]] = ("player 0", "player 1")
    #: One line shown by ``arena list``.
    summary: ClassVar[str] = ""
    #: The weight of implicit minimax backups that ``mcts`` gives this game's heuristic when not
    #: told (its ``minimax`` parameter): the best one found for the game, 0 where none was looked
    #: for (a heuristic nobody measured in a tree search is left out of it).
    implicit_minimax: ClassVar[float] = 0.0

    #: The capabilities, one class each (see the module's docstring); an instance of each is made
    #: with the game, for its variant.
    notation_class: ClassVar[type[Notation]]
    web_class: ClassVar[type[WebBoard]] = WebBoard
    encoding_class: ClassVar[type[Encoding]]
    endgame_class: ClassVar[type[EndgameDatabases] | None] = None

    @classmethod
    def _check_definition(cls) -> None:
        """Raises TypeError unless the class defines what :func:`engines.register_game` needs."""
        needed = ("family", "PARAMS", "PRESETS", "kernels", "notation_class", "encoding_class")
        missing = [name for name in needed if not hasattr(cls, name)]
        missing += [name for name in cls.REQUIRED if getattr(cls, name) is getattr(Game, name)]
        capabilities = {
            "notation_class": Notation, "web_class": WebBoard, "encoding_class": Encoding, "endgame_class": EndgameDatabases
        }
        for attribute, base in capabilities.items():
            capability = getattr(cls, attribute, None)
            if capability is None:
                continue
            if not (isinstance(capability, type) and issubclass(capability, base)):
                raise TypeError(f"{cls.__qualname__}.{attribute} must be a subclass of engines.{base.__name__}, not {shown(capability)}")
            required: tuple[str, ...] = getattr(base, "REQUIRED", ())
            missing += [f"{capability.__qualname__}.{name}" for name in required if getattr(capability, name) is getattr(base, name)]
        if missing:
            raise TypeError(f"{cls.__module__}.{cls.__qualname__} is not a complete game: it lacks {', '.join(missing)}")
        if not isinstance(cls.family, str) or not _NAME.fullmatch(cls.family):
            raise TypeError(f"{cls.__qualname__}.family must be a name of letters, digits, - and _, not {shown(cls.family)}")
        if not isinstance(cls.PRESETS, dict) or not cls.PRESETS:
            raise TypeError(f"{cls.__qualname__}.PRESETS must map one or more preset names to parameter values")
        for preset in cls.PRESETS:
            if not isinstance(preset, str) or not _NAME.fullmatch(preset):
                raise TypeError(f"{cls.__qualname__}: preset {shown(preset)} is not a name of letters, digits, - and _")
        if not isinstance(cls.kernels, ModuleType):
            raise TypeError(f"{cls.__qualname__}.kernels must be the game's kernel module, not {shown(cls.kernels)}")

    def __init__(self, preset: str, **params: Any) -> None:
        if preset not in self.PRESETS:
            raise VariantError(f"unknown preset {shown(preset)} of {self.family}; presets: {', '.join(self.PRESETS)}")
        by_name = {p.name: p for p in self.PARAMS}
        unknown = [k for k in params if k not in by_name]
        if unknown:
            raise VariantError(
                f"{preset} has no parameter {shown(unknown[0])}; parameters: {', '.join(by_name)}"
            )
        values = {p.name: p.default for p in self.PARAMS}
        values.update(self.PRESETS[preset])
        for name, value in params.items():
            values[name] = by_name[name].validate(preset, value)
        self.name = preset
        self.params: MappingProxyType = MappingProxyType(values)
        self._check_params()
        self._moves_buffer = np.empty(self.kernels.MAX_MOVES, np.int64)
        self.notation = self.notation_class(self)
        self.web = self.web_class(self)
        self.encoding = self.encoding_class(self)
        self.endgame = None if self.endgame_class is None else self.endgame_class(self)

    def _check_params(self) -> None:
        """Cross-parameter checks; raise :class:`VariantError`."""

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.params.items() if self.PRESETS[self.name].get(k, self._default(k)) != v}
        args = "".join(f", {k}={v!r}" for k, v in changed.items())
        return f"make({self.name!r}{args})"

    def _default(self, name: str) -> Any:
        return next(p.default for p in self.PARAMS if p.name == name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.name, dict(self.params)) == (other.name, dict(other.params))

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.params.items()))))

    @property
    def max_moves(self) -> int:
        """The most legal moves of any position of any variant of the game (``MAX_MOVES``)."""
        return self.kernels.MAX_MOVES

    @property
    def move_bound(self) -> int:
        """Move ids are ints in ``[0, move_bound)``."""
        return self.kernels.MOVE_BOUND

    @property
    def random_start(self) -> bool:
        """True when the start position is drawn from the game's seed (a deal, a random opening)."""
        return False

    @property
    def start_code(self) -> int:
        """What ``redraw_start`` needs beyond the state record to draw a new start (an opening
        rule); 0 where nothing."""
        return 0

    def new_initial_state(self, seed: int | None = None) -> "State":
        """The start position; ``seed`` draws its random parts (deal, opening) where the game has any.

        Example:
            >>> from board_arena import engines
            >>> state = engines.make("kalah").new_initial_state()
            >>> state.legal_moves()
            [0, 1, 2, 3, 4, 5]
        """
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer or None, not {shown(seed)}")
        if seed is None and self.random_start:
            # A random start needs a seed that the game's record can replay.
            seed = secrets.randbits(63)
        buf = np.zeros(1, self.kernels.STATE_DTYPE)
        self._init_record(buf[0], None if seed is None else int(seed))
        return State(self, buf, None if seed is None else int(seed))

    def from_fen(self, text: str) -> "State":
        """The position that a position string (:meth:`State.fen`) describes, as a set-up state
        of this variant; the form is the game's (``docs/games/<game>.md``, :mod:`engines.fen`).

        Raises:
            PositionError: ``text`` is malformed or a position this variant cannot reach (one
                line: what is wrong and the expected form), or the game has no position string.

        Example:
            >>> from board_arena import engines
            >>> engines.make("kalah", pits=3).from_fen("0,5,5/5,4,4 1 0 N").legal_move_names()
            ['a', 'b', 'c']
        """
        return self.notation.parse_fen(text)

    def first_player_reason(self, state: "State", player: int | None) -> str | None:
        """Why the player to move at the start of ``state``'s game moves first, when a rule of the
        deal decides it, as words to follow that player's name and addressed to ``player`` (who
        may be told what only they see); None when the rules seat player 0 first.

        Dominoes: the holder of the greatest tile leads (``"holds the greatest tile dealt"``).
        """
        return None

    # -- to implement --------------------------------------------------------------------------

    def _init_record(self, record: np.void, seed: int | None) -> None:
        raise NotImplementedError

    def _reason_words(self, state: "State", move: int, code: int) -> str:
        """The words for one of the game's own ``illegal_reason`` codes (``move`` is a move id)."""
        raise NotImplementedError

    def _board(self, state: "State") -> dict[str, Any]:
        """The game's own part of :meth:`board`."""
        raise NotImplementedError

    # -- the rules in words ----------------------------------------------------------------------

    def reason_code(self, state: "State", move: Any) -> int:
        """The kernel's ``illegal_reason`` code for ``move`` in ``state``: 0 exactly when it is
        legal (codes in :mod:`engines.contract` and the game's kernel module)."""
        if not isinstance(move, (int, np.integer)) or isinstance(move, bool) or not -(2**63) <= move < 2**63:
            return contract.REASON_NOT_A_MOVE
        return int(_face.illegal_reason(state.data, move))

    def illegal_reason(self, state: "State", move: Any) -> str | None:
        """Why ``move`` is not legal in ``state``, in one line; None when it is legal.

        The rule comes from the kernel (``illegal_reason``, the same code that generates the legal
        moves); this only puts its code into words.
        """
        code = self.reason_code(state, move)
        if code == contract.LEGAL:
            return None
        if code == contract.REASON_GAME_OVER:
            return f"the game is over: {self.result_text(state)}"
        if code == contract.REASON_NOT_A_MOVE:
            return f"move {shown(move)} is not a move id of this game: {self.notation.MOVE_IDS}"
        return self._reason_words(state, int(move), code)

    def board(self, state: "State") -> dict[str, Any]:
        """The position as plain data (see :meth:`State.board`)."""
        terminal = state.is_terminal()
        return {
            "game": self.name,
            "players": list(self.player_names),
            "to_move": None if terminal else state.current_player,
            "ply": state.ply,
            "terminal": terminal,
            "end_reason": self.end_reason(state),
            "outcome": state.outcome(),
            # A player's view cannot know the margin before the end (it hides the other hand).
            "score": None if state.viewer is not None and not terminal else state.score(),
            **self._board(state),
        }

    def end_reason(self, state: "State") -> str | None:
        """The rule that ended the game, in a few words (``"two cows"``, ``"ply cap"``); None
        while the game goes on. :data:`PLY_CAP` names a game stopped by a bound for machines
        rather than by a rule of the game."""
        return "end of the game" if state.is_terminal() else None

    def status_line(self, state: "State") -> str:
        """The last line of a rendering: the result at the end, else who is to move."""
        if state.is_terminal():
            return self.result_text(state)
        return f"{self.player_names[state.current_player]} to move"

    def result_text(self, state: "State") -> str:
        """One line for a finished game: who won and the score."""
        outcome = state.outcome()
        if outcome is None:
            return "game in progress"
        head = "draw" if outcome == 0 else f"{self.player_names[0 if outcome > 0 else 1]} wins"
        return f"{head} (score {state.score():+d} for {self.player_names[0]})"


class State:
    """A position of a game, with the moves that led to it.

    ``state.data`` is the compiled state record (what agents search from); the methods below are
    for people, notebooks and the arena. Copies are independent.

    Example:
        >>> from board_arena import engines
        >>> state = engines.make("kalah").new_initial_state()
        >>> state.apply("c")       # South sows its third pit and ends in its store: plays again
        2
        >>> state.current_player
        0
    """

    __slots__ = ("game", "_buf", "seed", "_moves", "custom_start", "viewer")

    def __init__(
        self,
        game: Game,
        buf: np.ndarray,
        seed: int | None,
        moves: Sequence[int] = (),
        custom_start: bool = False,
        viewer: int | None = None,
    ):
        self.game = game
        self._buf = buf
        self.seed = seed
        self._moves = list(moves)
        #: True for a set-up position (its history does not start at the initial state).
        self.custom_start = custom_start
        #: The player whose view this is (hidden-information games), None for the game itself.
        self.viewer = viewer

    @property
    def data(self) -> np.void:
        """The state record (a view into this state's own buffer)."""
        return self._buf[0]

    @property
    def buffer(self) -> np.ndarray:
        """The one-element state array behind :attr:`data`."""
        return self._buf

    @property
    def current_player(self) -> int:
        return int(_face.current_player(self.data))

    @property
    def history(self) -> tuple[int, ...]:
        """The moves played since the initial state."""
        return tuple(self._moves)

    @property
    def ply(self) -> int:
        return len(self._moves)

    def is_terminal(self) -> bool:
        return bool(_face.is_terminal(self.data))

    def legal_moves(self) -> list[int]:
        buf = self.game._moves_buffer
        n = _face.legal_moves(self.data, buf)
        return buf[:n].tolist()

    def legal_move_names(self) -> list[str]:
        return [self.game.notation.format_move(self, m) for m in self.legal_moves()]

    def is_legal(self, move: int) -> bool:
        return self.game.reason_code(self, move) == contract.LEGAL

    def parse_move(self, text: str) -> int:
        """The move written ``text`` (see the game's notation, ``game.notation``); ValueError saying
        why if none."""
        return self.game.notation.parse_move(self, text)

    def format_move(self, move: int) -> str:
        return self.game.notation.format_move(self, move)

    def apply(self, move: int | str) -> int:
        """Plays ``move`` (an id or its notation); returns the move id.

        Raises:
            IllegalMoveError: the move is not legal here (the message says why).
            ValueError: the notation could not be read.
        """
        if isinstance(move, str):
            move = self.game.notation.parse_move(self, move)
        elif not isinstance(move, (int, np.integer)) or isinstance(move, bool):
            raise ValueError(f"a move is an int id or a string in the game's notation, not {shown(move)}")
        move = int(move)
        self._check_not_a_view()
        why = self.game.illegal_reason(self, move)
        if why is not None:
            raise IllegalMoveError(why)
        _face.apply_move(self.data, move)
        self._moves.append(move)
        return move

    def apply_legal(self, move: int) -> None:
        """Plays the move id ``move`` that the caller has found legal (with :meth:`is_legal` or
        ``game.illegal_reason``), without checking it again (python-chess's ``Board.push``): the
        arena checks each agent's move once per ply. An illegal move here leaves a corrupt state;
        :meth:`apply` checks."""
        self._check_not_a_view()
        _face.apply_move(self.data, move)
        self._moves.append(int(move))

    def _check_not_a_view(self) -> None:
        if self.viewer is not None:
            raise ValueError(
                f"this is {self.game.player_names[self.viewer]}'s view of the game: apply moves to "
                "the game's own state (a view does not know the hidden tiles a move may reveal)"
            )

    def play(self, *moves: int | str) -> "State":
        """Applies the moves in turn and returns ``self`` (handy in tests and notebooks)."""
        for move in moves:
            self.apply(move)
        return self

    def legal_actions(self) -> list[int]:
        """The legal moves as action indices (see :meth:`engines.Encoding.action_of`), in move order."""
        return self.game.encoding.actions_of(self.legal_moves()).tolist()

    def legal_action_mask(self) -> np.ndarray:
        """bool[num_actions]: True at the legal actions (:meth:`engines.Encoding.legal_action_mask`)."""
        return self.game.encoding.legal_action_mask(self)

    def observation(self, player: int | None = None) -> np.ndarray:
        """``player``'s observation tensor (:meth:`engines.Encoding.observation`)."""
        return self.game.encoding.observation(self, player)

    def outcome(self) -> float | None:
        """Player 0's result at the end (1 win, 0 draw, -1 loss), None while the game goes on."""
        if not self.is_terminal():
            return None
        return float(_face.outcome(self.data))

    def returns(self) -> tuple[float, float]:
        """Both players' results (0, 0 while the game goes on)."""
        value = self.outcome() or 0.0
        return (value, -value)

    @property
    def winner(self) -> int | None:
        """0 or 1 once the game is won, None otherwise (draw or not over)."""
        value = self.outcome()
        if not value:
            return None
        return 0 if value > 0 else 1

    def board(self) -> dict[str, Any]:
        """The position as plain data (a new dict of lists, ints and strings: JSON as it is, and
        changing it changes nothing in the game). Every game gives ``game``, ``players`` (the
        players' names, indexed by player), ``to_move`` (None at the end), ``ply``, ``terminal``,
        ``end_reason``, ``outcome`` (player 0's result, None while the game goes on) and
        ``score`` (player 0's margin; None in a player's view of a game that goes on), and its
        own keys:

        - Mancala: ``pits`` (per player, that player's pits from their left, ``a`` first) and
          ``stores``;
        - Morabaraba: ``points`` (the 24 points in board order: 0 White, 1 Black, None empty),
          ``point_names``, ``cows`` (per player, the points of their cows), ``in_hand``,
          ``stage`` (per player: ``"placing"``, ``"moving"`` or ``"flying"``), ``blocked_mills``
          (per player, the mills its next move may not count, under ``no_immediate_remill``),
          ``plies_without_shot`` and ``three_cow_plies`` (the draw counters), ``ply_cap``;
        - Konane: ``size``, ``grid`` (rows from the top, as drawn: ``"B"``, ``"W"`` or ``"."``),
          ``stones`` (per player, the points of their stones), ``captures``, ``opening`` (True
          while the classic opening's removals are being played);
        - Dominoes: ``line`` (the tiles from left to right as ``[left, right]`` pips), ``ends``
          (None before the lead), ``hands`` (per player, their tiles as ``"6-4"``, or None where
          this state's viewer may not see them), ``hand_counts``, ``boneyard`` (tiles left to
          draw), ``leader``, ``viewer`` (the player whose view this is, None for the game's
          state).

        Example:
            >>> from board_arena import engines
            >>> board = engines.make("kalah", pits=3, seeds=2).new_initial_state().board()
            >>> board["pits"], board["stores"], board["to_move"]
            ([[2, 2, 2], [2, 2, 2]], [0, 0], 0)
        """
        return self.game.board(self)

    @property
    def end_reason(self) -> str | None:
        """The rule that ended the game in a few words (``"two cows"``, ``"blocked"``,
        ``"ply cap"``, ...), None while it goes on."""
        return self.game.end_reason(self)

    def score(self) -> int:
        """Player 0's margin (store, capture or pip difference)."""
        return int(_face.score(self.data))

    def heuristic(self) -> float:
        return float(_face.heuristic(self.data))

    def hash(self) -> int:
        return int(_face.state_hash(self.data))

    def copy(self) -> "State":
        return State(self.game, self._buf.copy(), self.seed, self._moves, self.custom_start, self.viewer)

    def view(self, player: int) -> "State":
        """What ``player`` may know: for a perfect-information game, a copy; otherwise a state
        whose record is the game's ``observe`` view (hidden parts cleared), which renders for that
        player, lists their legal moves when they are to move, and has no seed (it would reveal
        the deal) and no record. Moves are applied to the game's state, not to a view.
        """
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, not {player!r}")
        if self.game.perfect_information:
            return self.copy()
        if self.viewer is not None and self.viewer != player:
            raise ValueError(f"this is already {self.game.player_names[self.viewer]}'s view")
        buf = np.zeros(1, self.game.kernels.STATE_DTYPE)
        _face.observe(self.data, player, buf[0])
        return State(self.game, buf, None, self._moves, self.custom_start, viewer=player)

    def fen(self) -> str:
        """The position as one line of text (:mod:`engines.fen`): the board, who moves and every
        counter a rule reads; ``game.from_fen(state.fen()) == state``.

        Raises:
            PositionError: a hidden-information game (Dominoes) has none.

        Example:
            >>> from board_arena import engines
            >>> engines.make("kalah", pits=3).new_initial_state().play("c").fen()
            '4,4,0/5,5,5 1 0 N'
        """
        return self.game.notation.fen(self)

    def record(self, **metadata: Any) -> "GameRecord":
        """The game so far as a record that replays (moves in the game's notation).

        Raises:
            ValueError: the state comes from a set-up position, which a record cannot replay.
        """
        if self.viewer is not None:
            raise ValueError("a player's view has no record: a record replays the deal, which a view hides")
        if self.custom_start:
            raise ValueError("a game from a set-up position has no record: records replay from the start")
        names = []
        replay = self.game.new_initial_state(self.seed)
        for move in self._moves:
            names.append(self.game.notation.format_move(replay, move))
            _face.apply_move(replay.data, move)
            replay._moves.append(move)
        return GameRecord(self.game.name, dict(self.game.params), self.seed, names, dict(metadata))

    def render(self, **options: Any) -> str:
        return self.game.notation.render(self, **options)

    def __str__(self) -> str:
        return self.game.notation.render(self)

    def __repr__(self) -> str:
        return f"<{self.game.name} state, ply {self.ply}, {self.game.player_names[self.current_player]} to move>"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and self.game == other.game
            and self._buf.tobytes() == other._buf.tobytes()
        )

    def __hash__(self) -> int:
        return self.hash()


@dataclass
class GameRecord:
    """A game as played: variant, seed and moves in the game's notation; it replays.

    Example:
        >>> from board_arena import engines
        >>> state = engines.make("kalah").new_initial_state().play("c", "f")
        >>> record = state.record()
        >>> record.moves
        ['c', 'f']
        >>> engines.GameRecord.from_json(record.to_json()).replay() == state
        True
    """

    game: str
    params: dict[str, Any]
    seed: int | None
    moves: list[str]
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(
            {"game": self.game, "params": self.params, "seed": self.seed, "moves": self.moves, "metadata": self.metadata}
        )

    @classmethod
    def from_json(cls, text: str) -> "GameRecord":
        """The record written by :meth:`to_json`.

        Raises:
            ValueError: the text is not such a record (the message says what is wrong); the
                game, its parameters and the moves are checked when the record replays.
        """
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, TypeError) as error:
            raise ValueError(f"not JSON ({error})") from None
        if not isinstance(data, dict):
            raise ValueError(f"a game record is a JSON object, not {type(data).__name__}")
        missing = [key for key in ("game", "params", "seed", "moves") if key not in data]
        if missing:
            raise ValueError(f"a game record needs the keys game, params, seed and moves; missing: {', '.join(missing)}")
        game, params, seed, moves = data["game"], data["params"], data["seed"], data["moves"]
        metadata = data.get("metadata", {})
        if not isinstance(game, str):
            raise ValueError(f"'game' must be a game's name, not {shown(game)}")
        if not isinstance(params, dict):
            raise ValueError(f"'params' must be an object of variant parameters, not {shown(params)}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ValueError(f"'seed' must be an integer or null, not {shown(seed)}")
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise ValueError(f"'moves' must be a list of moves in the game's notation, not {shown(moves)}")
        if not isinstance(metadata, dict):
            raise ValueError(f"'metadata' must be an object, not {shown(metadata)}")
        return cls(game, params, seed, moves, metadata)

    def positions(self) -> Iterator[tuple[State, str | None]]:
        """Yields ``(state, next move)`` for every position, ending with ``(final state, None)``.

        Raises:
            ValueError: a move of the record is unreadable or illegal (the message gives the ply).
        """
        state = make(self.game, **self.params).new_initial_state(self.seed)
        for ply, text in enumerate(self.moves, start=1):
            yield state, text
            state = state.copy()
            try:
                state.apply(text)
            except ValueError as error:
                raise ValueError(f"record move {ply} ({text!r}): {error}") from None
        yield state, None

    def replay(self) -> State:
        """The final position of the record."""
        for state, _ in self.positions():
            pass
        return state
