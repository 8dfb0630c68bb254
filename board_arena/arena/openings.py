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

The opening moves are part of each stored game's moves; :func:`opening_length` says how many.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter

import numpy as np

__all__ = [
    "resolve_openings",
    "start_position",
    "opening_length",
    "pair_index",
    "format_openings",
    "repeated_games",
    "MAX_RANDOM_PLIES",
]

#: Random opening plies at most (beyond it an opening is a random game, not a start).
MAX_RANDOM_PLIES = 200
#: Lines of an openings file at most, and plies kept per line at most.
MAX_OPENING_LINES = 100_000
MAX_OPENING_PLIES = 1_000


def pair_index(settings, game_id: int) -> int:
    """The pair (of seat-swapped games, or the game without swaps) of a game id, counted per
    pairing: the games of one round of the schedule share it."""
    round_ = game_id // len(settings.pairings)
    return round_ // 2 if settings.swap else round_


def _random_plies(spec: str) -> int | None:
    """N of ``random:N``, or None for anything else."""
    if not spec.startswith("random:"):
        return None
    text = spec[len("random:") :].strip()
    try:
        plies = int(text)
    except ValueError:
        raise ValueError(f"--openings random:N takes a number of plies, not {text[:24]!r}") from None
    if not 1 <= plies <= MAX_RANDOM_PLIES:
        raise ValueError(f"--openings random:N takes 1 to {MAX_RANDOM_PLIES} plies, not {plies}")
    return plies


def resolve_openings(game, spec: str | None, plies: int | None) -> dict:
    """The settings fields for an ``--openings`` value: ``openings`` (``random:N`` or
    ``file:NAME sha1:...``, which names the file and its content) and ``opening_lines`` (each
    sequence as it will be played, cut to ``plies``). A file is read and every line replayed
    here, before anything is played.

    Raises:
        ValueError: an unknown form, an unreadable file, or an illegal move (the message names
            the file, the line number and the move).
    """
    if spec is None:
        if plies is not None:
            raise ValueError("--opening-plies needs --openings FILE")
        return {"openings": None, "opening_lines": ()}
    spec = spec.strip()
    random_plies = _random_plies(spec)
    if random_plies is not None:
        if plies is not None:
            raise ValueError("--opening-plies cuts the lines of an openings file; with random:N give N instead")
        return {"openings": f"random:{random_plies}", "opening_lines": ()}
    if plies is not None and not 1 <= plies <= MAX_OPENING_PLIES:
        raise ValueError(f"--opening-plies must be from 1 to {MAX_OPENING_PLIES}, not {plies}")
    lines = read_openings_file(game, spec, plies)
    digest = hashlib.sha1("\n".join(lines).encode()).hexdigest()[:12]
    return {"openings": f"file:{os.path.basename(spec)} sha1:{digest}", "opening_lines": tuple(lines)}


def read_openings_file(game, path: str, plies: int | None = None) -> list[str]:
    """The move sequences of an openings file, each replayed from the start and written back in
    the game's own notation, cut to ``plies`` plies.

    Raises:
        ValueError: as :func:`resolve_openings`.
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


def start_position(settings, scheduled, game):
    """The state after the opening of a scheduled game and the opening's moves in notation."""
    from board_arena.arena.settings import derive_seed

    state = game.new_initial_state(scheduled.game_seed)
    names: list[str] = []
    if not settings.openings:
        return state, names
    if settings.openings.startswith("random:"):
        # The start seed is the same for both games of a pair: so is the opening.
        _random_opening(state, int(settings.openings.split(":")[1]), derive_seed(scheduled.game_seed, "opening"), names, game)
        return state, names
    line = settings.opening_lines[pair_index(settings, scheduled.id) % len(settings.opening_lines)]
    for token in line.split():
        move = state.parse_move(token)
        names.append(game.format_move(state, move))
        state.apply(move)
    return state, names


def _random_opening(state, plies: int, seed: int, names: list[str], game) -> None:
    """Plays ``plies`` uniformly random legal moves from ``seed``, writing their notation into
    ``names``."""
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if state.is_terminal():
            return
        moves = state.legal_moves()
        rng.shuffle(moves)
        chosen = moves[0]
        for move in moves:  # a move that would end the game leaves the agents nothing: avoid it
            child = state.copy()
            child.apply(move)
            if not child.is_terminal():
                chosen = move
                break
        names.append(game.format_move(state, chosen))
        state.apply(chosen)


def opening_length(settings, result) -> int:
    """How many of a stored game's first plies were the opening (not chosen by the agents)."""
    if not settings.openings:
        return 0
    if settings.openings.startswith("random:"):
        return min(int(settings.openings.split(":")[1]), result.plies)
    line = settings.opening_lines[pair_index(settings, result.id) % len(settings.opening_lines)]
    return len(line.split())


def repeated_games(settings, games) -> int:
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


def format_openings(settings, games) -> list[str]:
    """The report's line on openings and repeated games."""
    if settings.openings and settings.openings.startswith("random:"):
        source = f"{settings.openings.split(':')[1]} random plies per pair"
    elif settings.openings:
        name = settings.openings[len("file:") :].split(" sha1:")[0]
        lengths = Counter(len(line.split()) for line in settings.opening_lines)
        plies = f"{min(lengths)}-{max(lengths)}" if len(lengths) > 1 else f"{min(lengths)}"
        source = f"{len(settings.opening_lines)} sequences of {plies} plies from {name}"
    else:
        source = "none (every game from the start position)"
    repeats = repeated_games(settings, games)
    return [f"Openings: {source}; {repeats} of {len(games)} games repeat an earlier game move for move"]
