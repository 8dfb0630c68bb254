"""Openings: the moves played before the agents take over, the same for both games of a
seat-swapped pair (after fastchess's ``-openings``), so that a match samples many positions
instead of replaying one game from the start again and again.

Two sources:

- ``random:N``: ``N`` uniformly random legal plies, drawn from a seed made of the tournament seed
  and the pair (a move that would end the game is avoided while another exists).
- a file of move sequences in the game's notation (the tokens of ``State.format_move``, separated
  by white space), one sequence per line; blank lines and lines that start with ``[`` or ``#``
  are skipped, so the text records that ``arena export`` writes (``[Tag "value"]`` lines, then the
  game's moves on one line) serve as openings. ``opening_plies`` keeps the first ``K`` plies of
  every line (default: the whole line). Pairs take the lines in order and start again from the
  first after the last (fastchess's sequential order); the games of one round, one per pairing,
  share a line.

The setting is parsed once into an :class:`Openings` value (``TournamentSettings.openings``);
the run's database keeps it in the form of every earlier version (``openings``: ``random:N`` or
``file:NAME sha1:DIGEST``, and ``opening_lines``). The opening moves are part of each stored
game's moves; :func:`opening_length` says how many.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Iterable

import numpy as np

from board_arena.engines import Game, State

if TYPE_CHECKING:  # annotations only: settings imports this module
    from board_arena.arena.tournament.settings import TournamentSettings
    from board_arena.arena.tournament.store import GameResult

__all__ = [
    "Openings",
    "parse_openings",
    "read_openings_file",
    "opening_length",
    "format_openings",
    "repeated_games",
    "MAX_RANDOM_PLIES",
]

#: Random opening plies at most (beyond it an opening is a random game, not a start).
MAX_RANDOM_PLIES = 200
#: Lines of an openings file at most, and plies kept per line at most.
MAX_OPENING_LINES = 100_000
MAX_OPENING_PLIES = 1_000
_RANDOM = "random:"
_FILE = "file:"
_DIGEST = " sha1:"


@dataclass(frozen=True)
class Openings:
    """How the games of a run start: ``random_plies`` uniformly random plies per pair, or the
    move sequences ``lines`` of a file, in the game's notation as they are played (already cut to
    ``--opening-plies``), taken pair by pair in order and cycling. ``file`` and ``digest`` name
    the file and its lines (a changed file is another run).

    Example:
        >>> Openings.parse(None, "random:4")
        Openings(random_plies=4, lines=(), file='', digest='')
        >>> Openings.parse(None, "random:4").spec, Openings.from_spec("random:4").label
        ('random:4', 'random:4')

    Raises:
        ValueError: neither or both kinds, or a count out of range.
    """

    random_plies: int = 0
    lines: tuple[str, ...] = ()
    file: str = ""
    digest: str = ""

    def __post_init__(self) -> None:
        if bool(self.random_plies) == bool(self.lines):
            raise ValueError("openings are random:N or the lines of a file (one of them)")
        if self.random_plies and not 1 <= self.random_plies <= MAX_RANDOM_PLIES:
            raise ValueError(f"--openings random:N takes 1 to {MAX_RANDOM_PLIES} plies, not {self.random_plies}")

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def parse(cls, game: Game | None, text: str, plies: int | None = None) -> "Openings":
        """The openings of an ``--openings`` value: ``random:N``, or a file of move sequences
        (read, and every line replayed, here: before anything is played), each cut to ``plies``
        (``--opening-plies``).

        Raises:
            ValueError: an unknown form, an unreadable file, or an illegal move (the message
                names the file, the line number and the move); ``plies`` with ``random:N``.
        """
        text = text.strip()
        if text.startswith(_RANDOM):
            if plies is not None:
                raise ValueError("--opening-plies cuts the lines of an openings file; with random:N give N instead")
            return cls(random_plies=_random_plies(text))
        if plies is not None and not 1 <= plies <= MAX_OPENING_PLIES:
            raise ValueError(f"--opening-plies must be from 1 to {MAX_OPENING_PLIES}, not {plies}")
        if game is None:
            raise ValueError(f"openings from the file {text!r} need the game they are played in")
        lines = tuple(read_openings_file(game, text, plies))
        digest = hashlib.sha1("\n".join(lines).encode()).hexdigest()[:12]
        return cls(lines=lines, file=os.path.basename(text), digest=digest)

    @classmethod
    def from_spec(cls, spec: str, lines: Iterable[str] = ()) -> "Openings":
        """The openings as a run's database stores them: :attr:`spec` and the lines.

        Raises:
            ValueError: a malformed spec, or a file's spec without its lines.
        """
        if spec.startswith(_RANDOM):
            return cls(random_plies=_random_plies(spec))
        name, sep, digest = spec[len(_FILE) :].rpartition(_DIGEST)
        lines = tuple(lines)
        if not spec.startswith(_FILE) or not sep or not lines:
            raise ValueError(f"openings {spec!r} without their sequences")
        return cls(lines=lines, file=name, digest=digest)

    @property
    def spec(self) -> str:
        """As stored: ``random:N`` or ``file:NAME sha1:DIGEST``."""
        return f"{_RANDOM}{self.random_plies}" if self.random_plies else f"{_FILE}{self.file}{_DIGEST}{self.digest}"

    @property
    def label(self) -> str:
        """For people: ``random:N`` or ``file:NAME``."""
        return f"{_RANDOM}{self.random_plies}" if self.random_plies else f"{_FILE}{self.file}"

    @cached_property
    def _tokens(self) -> tuple[tuple[str, ...], ...]:
        """Each line's moves, split once."""
        return tuple(tuple(line.split()) for line in self.lines)

    # -- playing ----------------------------------------------------------------------------

    def play(self, state: State, pair: int, seed: int) -> list[tuple[int, str]]:
        """Plays the opening of ``pair`` (the two games of a seat-swapped pair share it) on
        ``state``, a game's start; returns its plies as (the player who moved, the move in
        notation). A random opening draws from ``seed``, and avoids a ply that would end the game
        while another exists."""
        if self.random_plies:
            return _random_opening(state, self.random_plies, seed)
        plies = []
        for token in self._tokens[pair % len(self._tokens)]:
            move = state.parse_move(token)
            plies.append((state.current_player, state.format_move(move)))
            state.apply(move)
        return plies

    def plies(self, pair: int) -> int:
        """How many plies the opening of ``pair`` has (a random one: fewer when the game ends
        first)."""
        return self.random_plies or len(self._tokens[pair % len(self._tokens)])

    def describe(self) -> str:
        """For the report: ``4 random plies per pair``, ``12 sequences of 6-8 plies from book.txt``."""
        if self.random_plies:
            return f"{self.random_plies} random plies per pair"
        lengths = Counter(len(tokens) for tokens in self._tokens)
        plies = f"{min(lengths)}-{max(lengths)}" if len(lengths) > 1 else f"{min(lengths)}"
        return f"{len(self.lines)} sequences of {plies} plies from {self.file}"


def parse_openings(game: Game, text: str | None, plies: int | None = None) -> Openings | None:
    """The openings of the ``--openings`` and ``--opening-plies`` values (None: none).

    Raises:
        ValueError: as :meth:`Openings.parse`; ``plies`` without a file.
    """
    if text is None:
        if plies is not None:
            raise ValueError("--opening-plies needs --openings FILE")
        return None
    return Openings.parse(game, text, plies)


def _random_plies(spec: str) -> int:
    """N of ``random:N``.

    Raises:
        ValueError: N is not a whole number within bounds.
    """
    text = spec[len(_RANDOM) :].strip()
    try:
        plies = int(text)
    except ValueError:
        raise ValueError(f"--openings random:N takes a number of plies, not {text[:24]!r}") from None
    if not 1 <= plies <= MAX_RANDOM_PLIES:
        raise ValueError(f"--openings random:N takes 1 to {MAX_RANDOM_PLIES} plies, not {plies}")
    return plies


def read_openings_file(game: Game, path: str, plies: int | None = None) -> list[str]:
    """The move sequences of an openings file, each replayed from the start and written back in
    the game's own notation, cut to ``plies`` plies.

    Raises:
        ValueError: as :meth:`Openings.parse`.
    """
    if game.random_start:
        raise ValueError(
            f"--openings FILE needs a game whose start is always the same; {game.name} draws its start "
            "from the seed (use --openings random:N)"
        )
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(64 * 2**20 + 1)
    except FileNotFoundError:
        raise ValueError(f"--openings: no file {path!r} (give random:N or a file of move sequences)") from None
    except UnicodeDecodeError:
        raise ValueError(f"--openings: {path} is not UTF-8 text") from None
    except OSError as error:
        raise ValueError(f"--openings: cannot read {path}: {error.strerror or error}") from None
    if len(text) > 64 * 2**20:
        raise ValueError(f"--openings: {path} is larger than 64 MB")
    sequences: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        tokens = line.split()
        if not tokens or tokens[0].startswith(("[", "#")):
            continue
        if len(sequences) >= MAX_OPENING_LINES:
            raise ValueError(f"--openings: {path} holds more than {MAX_OPENING_LINES:,} sequences")
        state = game.new_initial_state(0)
        names = []
        for ply, token in enumerate(tokens[: plies or MAX_OPENING_PLIES], start=1):
            if state.is_terminal():
                raise ValueError(f"{path}:{number}: the game is over before move {ply} {token!r}")
            try:
                move = state.parse_move(token)
                names.append(state.format_move(move))
                state.apply(move)
            except ValueError as error:
                raise ValueError(f"{path}:{number}: illegal move {ply} {token[:24]!r}: {error}") from None
        if state.is_terminal():
            raise ValueError(f"{path}:{number}: the sequence ends the game; an opening must leave moves to play "
                             "(for whole games, such as arena export writes, keep their start: --opening-plies K)")
        sequences.append(" ".join(names))
    if not sequences:
        raise ValueError(f"--openings: {path} holds no move sequence (one per line; lines starting with [ or # are skipped)")
    return sequences


def _random_opening(state: State, plies: int, seed: int) -> list[tuple[int, str]]:
    """Plays ``plies`` uniformly random legal moves from ``seed``; returns (the player who moved,
    the move in notation) for each."""
    rng = np.random.default_rng(seed)
    played: list[tuple[int, str]] = []
    for _ in range(plies):
        if state.is_terminal():
            break
        moves = state.legal_moves()
        rng.shuffle(moves)
        chosen = moves[0]
        for move in moves:  # a move that would end the game leaves the agents nothing: avoid it
            child = state.copy()
            child.apply_legal(move)
            if not child.is_terminal():
                chosen = move
                break
        played.append((state.current_player, state.format_move(chosen)))
        state.apply_legal(chosen)
    return played


def opening_length(settings: TournamentSettings, result: GameResult) -> int:
    """How many of a stored game's first plies were the opening (not chosen by the agents)."""
    if settings.openings is None:
        return 0
    return min(settings.openings.plies(settings.pair_index(result.id)), result.plies)


def repeated_games(settings: TournamentSettings, games: Iterable[GameResult]) -> int:
    """Games that repeat an earlier game exactly: the same moves in the same order (and, in a
    game whose start is drawn from the seed, from the same start)."""
    random_start = settings.make_game().random_start
    seen: set = set()
    repeats = 0
    for g in sorted(games, key=lambda g: g.id):
        key = (g.game_seed if random_start else None, tuple(g.moves))
        if key in seen:
            repeats += 1
        seen.add(key)
    return repeats


def format_openings(settings: TournamentSettings, games: list[GameResult]) -> list[str]:
    """The report's line on openings and repeated games."""
    source = settings.openings.describe() if settings.openings else "none (every game from the start position)"
    repeats = repeated_games(settings, games)
    return [f"Openings: {source}; {repeats} of {len(games)} games repeat an earlier game move for move"]
