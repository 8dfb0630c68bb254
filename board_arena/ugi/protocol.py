"""The UGI commands both sides use, parsed and formatted: an engine (``arena engine``) reads
``position``, ``go``, ``setoption`` and ``query`` and writes ``option``, ``info``, ``bestmove`` and
``response``; a host writes the former and reads the latter.

Players: UGI's ``p1`` is our player 0 (the first player of the variant: South, White, Black,
Dominoes' first hand dealt) and ``p2`` player 1. Moves are written in the game's own notation,
one word each (``c``, ``a7-d7xg7``, ``a4-c4``, ``6-4L``).

The score scale (a host reads it back with :func:`score_value`): a search's value ``v`` in
[-1, 1] for the mover is ``score cp C`` with ``C = round(1000 * v)``; a proven result
(``SearchInfo.exact``) is ``score mate N``, ``N > 0`` a win and ``N < 0`` a loss (``N`` the
distance in moves where the agent knows it, else +1 or -1), and a proven draw ``score cp 0``.

    >>> from board_arena import engines
    >>> from board_arena.agents import SearchInfo
    >>> game = engines.make("kalah")
    >>> state = game.new_initial_state().play("c", "f")
    >>> position_line(game, state, 0)
    'position startpos moves c f'
    >>> go_limit(tokens("go p1time 60000 p2time 60000 p1inc 500 p2inc 500"), mover=0).limit
    Limit(time=None, depth=None, nodes=None, iterations=None, remaining=60.0, increment=0.5, moves_to_go=None, opponent_remaining=None)
    >>> info_line(SearchInfo(move=2, value=0.25, depth=7, nodes=5000, seconds=0.5), pv=["c"])
    'info depth 7 nodes 5000 score cp 250 time 500 nps 10000 pv c'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from board_arena.agents.base import Limit, SearchInfo
from board_arena.engines import Game, PositionError, State, shown
from board_arena.ugi.errors import UGIError

if TYPE_CHECKING:
    from board_arena.engines.params import Param

__all__ = [
    "UGIError",
    "tokens",
    "Position",
    "parse_position",
    "position_line",
    "state_from_position",
    "apply_moves",
    "GoRequest",
    "go_limit",
    "go_line",
    "score_words",
    "score_value",
    "info_line",
    "parse_info",
    "query_response",
    "QUESTIONS",
    "option_line",
    "parse_setoption",
    "CP_SCALE",
]

#: Centipawns per unit of value: ``score cp 1000`` is a value of 1 (a certain win).
CP_SCALE = 1000
#: The ``query`` questions and what each answers.
QUESTIONS = {
    "gameover": "true or false: has the game ended",
    "p1turn": "true or false: is the first player (our player 0) to move",
    "result": "p1win, p2win, draw, or none while the game goes on",
}




def tokens(line: str) -> list[str]:
    """A command's words (UGI separates them by any run of white space)."""
    return line.split()


# -- position ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A ``position`` command: ``start`` is ``"startpos"``, ``"fen"`` (with ``fen``, its words
    joined by single spaces) or ``"deal"`` (the Dominoes extension, its words in ``deal``), then
    the moves played since, in the game's notation."""

    start: str
    fen: str | None = None
    deal: tuple[str, ...] = ()
    moves: tuple[str, ...] = field(default_factory=tuple)


_POSITION_FORM = "position startpos|fen F|deal ... [moves M1 M2 ...]"


def parse_position(words: Sequence[str]) -> Position:
    """The ``position`` command of ``words`` (its first word ``position``).

    Raises:
        UGIError: not of the form ``position startpos|fen F|deal ... [moves ...]``.
    """
    words = list(words)
    if not words or words[0] != "position":
        raise UGIError(f"not a position command: {shown(' '.join(words))}; expected {_POSITION_FORM}")
    rest = words[1:]
    if not rest:
        raise UGIError(f"position needs startpos, fen or deal; expected {_POSITION_FORM}")
    head, body = rest[0], rest[1:]
    if "moves" in body:
        cut = body.index("moves")
        body, moves = body[:cut], body[cut + 1:]
    else:
        moves = []
    if head == "startpos":
        if body:
            raise UGIError(f"position startpos takes no words before moves, got {shown(' '.join(body))}; expected {_POSITION_FORM}")
        return Position("startpos", moves=tuple(moves))
    if head == "fen":
        if not body:
            raise UGIError(f"position fen needs a position string; expected {_POSITION_FORM}")
        return Position("fen", fen=" ".join(body), moves=tuple(moves))
    if head == "deal":
        return Position("deal", deal=tuple(body), moves=tuple(moves))
    raise UGIError(f"position {shown(head)}: expected {_POSITION_FORM}")


def position_line(game: Game, state: State, seat: int) -> str:
    """The ``position`` command a host sends to the engine that plays ``seat`` in ``state`` (a
    game's state, not a view): ``position startpos moves ...`` when the game began at the
    variant's fixed start, ``position fen <the initial state's fen> moves ...`` when the start was
    drawn at random (Konane's openings), ``position fen <fen>`` for a set-up position, and for a
    hidden-information game the seat's view (``position deal ...``, :mod:`board_arena.ugi.dominoes`).

    Raises:
        ValueError: ``seat`` is not 0 or 1, ``state`` is a view, or a hidden-information game
            other than Dominoes (no extension says how to tell its seat what it sees).
    """
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {shown(seat)}")
    if state.viewer is not None:
        raise ValueError("position_line takes the game's state, not a player's view")
    if not game.perfect_information:
        from board_arena.ugi import dominoes

        if not dominoes.speaks(game):
            raise ValueError(f"{game.name} hides information and has no UGI extension to tell a seat what it sees")
        return "position " + " ".join(dominoes.view_words(state, seat))
    if state.custom_start:
        return f"position fen {state.fen()}"
    start = game.new_initial_state(state.seed)
    names = []
    replay = start.copy()
    for move in state.history:
        names.append(game.notation.format_move(replay, move))
        replay.apply_legal(move)
    head = f"position fen {start.fen()}" if game.random_start else "position startpos"
    return head + (" moves " + " ".join(names) if names else "")


def apply_moves(state: State, moves: Sequence[str]) -> State:
    """Plays ``moves`` (in the game's notation) on ``state`` in place.

    Raises:
        UGIError: a move is unreadable or illegal (the message gives its number and why).
    """
    for number, text in enumerate(moves, start=1):
        try:
            state.apply(text)
        except ValueError as error:
            raise UGIError(f"move {number} ({shown(text)}) of the position: {error}") from None
    return state


def state_from_position(game: Game, position: Position) -> State:
    """The state a ``position`` command describes (for Dominoes, the seat's view).

    Raises:
        UGIError: the command does not fit the game (a random start given as ``startpos``, a
            bad position string, an illegal move), in one line.
    """
    if position.start == "deal" and game.perfect_information:
        raise UGIError(f"position deal is the Dominoes extension; {game.name} takes position startpos|fen F [moves ...]")
    if not game.perfect_information:
        from board_arena.ugi import dominoes

        if not dominoes.speaks(game):
            raise UGIError(f"{game.name} hides information and has no UGI position form")
        if position.start != "deal":
            raise UGIError(f"{game.name} is told the seat's view: {dominoes.FORM}")
        return dominoes.view_from_words(game, position.deal, position.moves)
    if position.start == "startpos":
        if game.random_start:
            raise UGIError(f"{game.name} draws its start at random: send position fen F [moves ...] with its start's position string")
        state = game.new_initial_state()
    else:
        assert position.fen is not None
        try:
            state = game.from_fen(position.fen)
        except PositionError as error:
            raise UGIError(str(error)) from None
    return apply_moves(state, position.moves)


# -- go ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GoRequest:
    """A ``go`` command: the budget it gives (None when it gives none: the agent's own), and
    whether it asks for an ``infinite`` search (until ``stop``)."""

    limit: Limit | None
    infinite: bool = False


_GO_FORM = "go [p1time MS p2time MS p1inc MS p2inc MS [movestogo N]] [movetime MS] [depth D] [nodes N] [infinite]"
_GO_NUMBERS = ("p1time", "p2time", "p1inc", "p2inc", "movestogo", "movetime", "depth", "nodes")


def go_limit(words: Sequence[str], mover: int) -> GoRequest:
    """The budget of a ``go`` command for the player ``mover`` (0 is UGI's p1): the mover's
    ``pNtime`` and ``pNinc`` (milliseconds) as ``Limit(remaining=..., increment=...)``,
    ``movetime`` as ``Limit(time=...)``, ``depth`` and ``nodes`` as they are.

    Raises:
        UGIError: an unknown word or a value that is not a whole number >= 0.
    """
    words = list(words)
    if words and words[0] == "go":
        words = words[1:]
    values: dict[str, int] = {}
    infinite = False
    i = 0
    while i < len(words):
        word = words[i]
        if word == "infinite":
            infinite = True
            i += 1
            continue
        if word not in _GO_NUMBERS:
            raise UGIError(f"go: unknown word {shown(word)}; expected {_GO_FORM}")
        if i + 1 >= len(words) or not words[i + 1].lstrip("-").isdigit() or len(words[i + 1]) > 15:
            raise UGIError(f"go: {word} needs a whole number; expected {_GO_FORM}")
        values[word] = int(words[i + 1])
        i += 2
    mine = "p1" if mover == 0 else "p2"
    fields: dict[str, Any] = {}
    if f"{mine}time" in values:
        fields["remaining"] = max(0, values[f"{mine}time"]) / 1000
        fields["increment"] = max(0, values.get(f"{mine}inc", 0)) / 1000
        if "movestogo" in values and values["movestogo"] > 0:
            fields["moves_to_go"] = values["movestogo"]
    if "movetime" in values:
        fields["time"] = max(1, values["movetime"]) / 1000
    for name in ("depth", "nodes"):
        if name in values:
            if values[name] < 1:
                raise UGIError(f"go: {name} must be at least 1, not {values[name]}")
            fields[name] = values[name]
    return GoRequest(Limit(**fields) if fields else None, infinite)


def go_line(limit: Limit, mover: int, other_remaining: float | None = None, other_increment: float | None = None) -> str:
    """The ``go`` command for ``limit`` when ``mover`` (0 is p1) is to move; under a clock the
    other player's clock (``other_remaining``, ``other_increment``, seconds) is sent too, as UGI
    has it (both players' times)."""
    words = ["go"]
    if limit.remaining is not None:
        mine, theirs = ("p1", "p2") if mover == 0 else ("p2", "p1")
        clock = {
            f"{mine}time": limit.remaining, f"{theirs}time": other_remaining if other_remaining is not None else limit.remaining,
            f"{mine}inc": limit.increment or 0.0, f"{theirs}inc": other_increment if other_increment is not None else limit.increment or 0.0,
        }
        for name in ("p1time", "p2time", "p1inc", "p2inc"):
            words += [name, str(max(0, round(1000 * clock[name])))]
        if limit.moves_to_go:
            words += ["movestogo", str(limit.moves_to_go)]
    if limit.time is not None:
        words += ["movetime", str(max(1, round(1000 * limit.time)))]
    if limit.depth is not None:
        words += ["depth", str(limit.depth)]
    if limit.nodes is not None:
        words += ["nodes", str(limit.nodes)]
    if len(words) == 1:
        words.append("infinite")
    return " ".join(words)


# -- info and the score scale -------------------------------------------------------------------


def score_words(info: SearchInfo) -> str | None:
    """``cp C`` or ``mate N`` for a search's value (the scale in the module's docstring); None
    when the search gave no value."""
    if info.value is None or not math.isfinite(info.value):
        return None
    if info.exact:
        result = round(info.value)
        return "cp 0" if result == 0 else f"mate {1 if result > 0 else -1}"
    return f"cp {round(CP_SCALE * max(-1.0, min(1.0, info.value)))}"


def score_value(kind: str, number: int) -> tuple[float, bool]:
    """The value for the mover in [-1, 1] and whether it is proven, of ``score KIND NUMBER``
    (``cp`` or ``mate``): the inverse of :func:`score_words`.

    Raises:
        UGIError: ``kind`` is neither ``cp`` nor ``mate``.
    """
    if kind == "cp":
        return max(-1.0, min(1.0, number / CP_SCALE)), False
    if kind == "mate":
        return (1.0 if number > 0 else -1.0), True  # mate 0: the mover is already mated
    raise UGIError(f"score {shown(kind)}: expected score cp C or score mate N")


def info_line(info: SearchInfo, pv: Sequence[str] = ()) -> str:
    """The ``info`` line of a search: depth, nodes, score, time (ms), nps, and the pv (the moves
    the agent reports, in notation) for the fields the agent filled in."""
    words = ["info"]
    if info.depth is not None:
        words += ["depth", str(info.depth)]
    if info.nodes is not None:
        words += ["nodes", str(info.nodes)]
    score = score_words(info)
    if score is not None:
        words += ["score", score]
    milliseconds = max(0, round(1000 * info.seconds))
    words += ["time", str(milliseconds)]
    if info.nodes is not None and info.seconds > 0:
        words += ["nps", str(round(info.nodes / info.seconds))]
    if pv:
        words += ["pv", *pv]
    return " ".join(words)


_INFO_NUMBERS = ("depth", "seldepth", "nodes", "time", "nps", "multipv", "hashfull", "tthits", "currmovenumber")


def parse_info(words: Sequence[str]) -> dict[str, Any]:
    """The fields of an ``info`` line: the numbers by name, ``score`` as ``(value, proven)``
    (:func:`score_value`), ``pv`` as a list of moves and ``string`` as text; words it does not
    know are skipped, as UCI hosts do.

    Example:
        >>> parse_info("info depth 4 score mate -1 nodes 90 pv a b".split())
        {'depth': 4, 'score': (-1.0, True), 'nodes': 90, 'pv': ['a', 'b']}
    """
    words = list(words)
    if words and words[0] == "info":
        words = words[1:]
    fields: dict[str, Any] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word == "string":
            fields["string"] = " ".join(words[i + 1:])
            break
        if word == "pv":
            fields["pv"] = words[i + 1:]
            break
        if word == "score" and i + 2 < len(words) and words[i + 1] in ("cp", "mate"):
            number = words[i + 2]
            if number.lstrip("-").isdigit():
                fields["score"] = score_value(words[i + 1], int(number))
            i += 3
            continue
        if word in _INFO_NUMBERS and i + 1 < len(words) and words[i + 1].isdigit():
            fields[word] = int(words[i + 1])
            i += 2
            continue
        i += 1
    return fields


# -- query ---------------------------------------------------------------------------------------


def query_response(state: State, question: str) -> str:
    """The ``response ...`` line to ``query QUESTION`` about ``state``, by our rules.

    Raises:
        UGIError: the question is not one of :data:`QUESTIONS`.
    """
    if question == "gameover":
        return f"response {'true' if state.is_terminal() else 'false'}"
    if question == "p1turn":
        return f"response {'true' if not state.is_terminal() and state.current_player == 0 else 'false'}"
    if question == "result":
        outcome = state.outcome()
        answer = "none" if outcome is None else "draw" if outcome == 0 else "p1win" if outcome > 0 else "p2win"
        return f"response {answer}"
    raise UGIError(f"query {shown(question)}: the questions are {', '.join(QUESTIONS)}")


# -- options -------------------------------------------------------------------------------------


def option_line(param: Param) -> str:
    """The ``option`` line of a parameter: ``check`` for true/false, ``combo`` for a choice,
    ``spin`` for a bounded integer, ``string`` otherwise (numbers with a fraction, or ``none``)."""
    from board_arena.agents.base import format_value

    default = format_value(param.default)
    if param.type is bool and not param.allow_none:
        return f"option name {param.name} type check default {default}"
    if param.choices is not None:
        return f"option name {param.name} type combo default {default} " + " ".join(f"var {c}" for c in param.choices)
    if param.type is int and not param.allow_none and param.low is not None and param.high is not None:
        return f"option name {param.name} type spin default {default} min {int(param.low)} max {int(param.high)}"
    return f"option name {param.name} type string default {default}"


def parse_setoption(words: Sequence[str]) -> tuple[str, str]:
    """``(name, value)`` of ``setoption name N [value V]`` (both may hold spaces; a button's
    value is empty).

    Raises:
        UGIError: no ``name``.
    """
    words = list(words)
    if len(words) < 3 or words[0] != "setoption" or words[1] != "name":
        raise UGIError("expected setoption name N value V")
    rest = words[2:]
    if "value" in rest:
        cut = rest.index("value")
        name, value = rest[:cut], rest[cut + 1:]
    else:
        name, value = rest, []
    if not name:
        raise UGIError("expected setoption name N value V")
    return " ".join(name), " ".join(value)
