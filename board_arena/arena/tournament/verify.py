"""Stored games that prove themselves: every game of a run is checked when the run is loaded (for
a report, an export, a replay, a resume, or from Python), and a game that fails is named with
what is wrong and left out of everything computed from the run.

A stored game is valid when

* **its moves replay**: from the start its seed draws, every move id is legal in turn (the
  game's own ``illegal_reason``, in one compiled pass over all the games of the run), the
  stored plies count them, and the position they reach agrees
  with the stored end: a game ended by the rules (or the ply cap) is over, with the stored
  result and score; a game lost by an agent's failure is not, the failing seat was to move,
  it lost, and the score is 0; an adjudicated game (arena.tournament.adjudication) is not over,
  the run has the rule its end reason names, the values it quotes meet that rule, its result
  is the rule's (and, when the endgame database is in the cache folder, a perfect-play result
  and score are the database's for the position reached; ``arena verify`` also finds the values
  quoted in the game's per-move log);
* **it belongs to the run**: its id is one of the schedule's, and the agents in its seats are
  the ones the schedule puts there;
* **its checksum holds**: each row carries a BLAKE2b checksum of its columns and move ids
  (:func:`arena.tournament.store.row_checksum`), written with it, which catches any later change (an
  edited move, result, score, seed, time or agent), by hand or by another program. A game whose
  checksum fails is examined further to say what changed (its seeds against the schedule, its
  notation against its move ids, its opening against the run's openings).

``arena verify DIR`` (:func:`verify_run` with ``thorough=True``) does that examination for every
game: the seeds against the schedule, the opening plies against the run's openings, and every
move's notation against its move id (plain Python, a ply at a time: far slower than the compiled replay).

A run stored before move ids and checksums existed still loads: its games replay from their
notation (in Python, slower), without a checksum to check. As git does with its objects and
SQLite with ``PRAGMA integrity_check``, nothing is ever repaired or deleted: a failing game stays
in the database as it is, and a command refuses the run (status 2) unless ``--skip-invalid``
leaves such games out.
"""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Iterator, Sequence

import numpy as np

from board_arena import engines
from board_arena.arena.tournament._replay import draw_starts, replay_games
from board_arena.arena.tournament.adjudication import (
    ADJUDICATED,
    SCORE_RULES,
    parse_verdict,
    perfect_reason,
)
from board_arena.arena.tournament.settings import TournamentSettings
from board_arena.arena.tournament.store import (
    CHECKSUM_FAILED,
    RESULT_TEXT,
    GameResult,
    RunStore,
    StoredGames,
)

__all__ = ["InvalidGame", "InvalidGamesError", "verify_games", "verify_run", "failed_seat"]

#: Games replayed per compiled call (their positions are kept for the few checks done in Python).
CHUNK = 1 << 15
#: Invalid games an error message names (``arena verify`` lists them all).
NAMED_IN_ERRORS = 3

_FAILURE = re.compile(r"(?:(?:error|crash|lost on time) in seat|illegal move .* by seat) ([01]) \(")


@dataclass(frozen=True)
class InvalidGame:
    """A stored game that failed verification: its id and what is wrong with it."""

    id: int
    problems: tuple[str, ...]

    def __str__(self) -> str:
        return f"game {self.id}: {'; '.join(self.problems)}"


class InvalidGamesError(ValueError):
    """A run holds games that fail verification (``invalid``); its message names the first few
    and says how to go on."""

    def __init__(self, out_dir: str, invalid: Sequence[InvalidGame], total: int):
        self.out_dir = out_dir
        self.invalid = list(invalid)
        named = "; ".join(str(g) for g in self.invalid[:NAMED_IN_ERRORS])
        more = f"; and {len(self.invalid) - NAMED_IN_ERRORS} more" if len(self.invalid) > NAMED_IN_ERRORS else ""
        super().__init__(
            f"{len(self.invalid)} of {total} stored games of {out_dir} fail verification ({named}{more}); "
            f"'arena verify {out_dir}' lists them all; --skip-invalid leaves them out"
        )


def failed_seat(end_reason: str) -> int | None:
    """The seat that lost by failing (an agent that raised, crashed its worker, ran out of time
    or played an illegal move), from a stored end reason; None for a game that ended by the
    rules or the ply cap."""
    match = _FAILURE.match(end_reason)
    return int(match.group(1)) if match else None


def verify_run(out_dir: str, thorough: bool = True, progress: bool = False) -> tuple[TournamentSettings, int, list[InvalidGame]]:
    """Verifies every stored game of the run in ``out_dir`` (read-only); ``progress`` shows a
    bar (on standard error) while the games are examined one by one.

    Returns:
        The run's settings, the number of stored games, and the games that fail (by id).

    Raises:
        ValueError: there is no readable run there.
    """
    store = RunStore(out_dir, readonly=True)
    try:
        settings = store.settings()
        stored = store.read_games()
        # The per-move logs of the games adjudicated by a score rule: their values are checked too.
        scored = [g.id for g in stored.games if type(g.end_reason) is str and g.end_reason.startswith(SCORE_RULES)]
        logs = store.searches(scored) if thorough and scored else {}
    finally:
        store.close()
    return settings, len(stored.games), verify_games(settings, stored, thorough, progress, logs)


def verify_games(
    settings: TournamentSettings,
    stored: StoredGames,
    thorough: bool = False,
    progress: bool = False,
    logs: dict[int, list[list[Any]] | None] | None = None,
) -> list[InvalidGame]:
    """The games of ``stored`` (a run of ``settings``) that fail verification (see the module
    docstring), in id order. ``thorough`` examines every game as a failed checksum does.
    ``logs``: per-move logs by game id (:meth:`arena.tournament.store.RunStore.searches`), against
    which the values that an adjudicated game's end reason quotes are checked.

    The common case is quick: the rows are checked with a few
    comparisons each, the replay is compiled and its findings compared as arrays; only the
    games found wrong are looked at again to say why.
    """
    games = stored.games
    n = len(games)
    game = settings.make_game()
    problems: dict[int, list[str]] = {}
    move_ids, offsets = stored.move_ids, stored.offsets
    total = settings.total_games
    seats = _seat_table(settings)
    columns = attrgetter(*_COLUMN_KINDS)
    strings = {str}
    # One pass with a few comparisons per game; the games it doubts are looked at again.
    doubted = [
        i
        for i, g in enumerate(games)
        if tuple(map(type, columns(g))) != _KINDS
        or type(g.moves) is not list
        or not set(map(type, g.moves)) <= strings
        or not 0 <= g.id < total
        or (g.player0, g.spec0, g.player1, g.spec1) != seats[g.id % len(seats)][(g.id // len(seats)) & 1]
        or g.result not in RESULT_TEXT
        or g.plies != len(g.moves)
    ]
    replayable = np.ones(n, np.bool_)  # False: the moves cannot be replayed, so the end is not compared
    for i in doubted:
        problems[i], replayable[i] = _row_problems(settings, seats, games[i])
    counts = np.fromiter((len(g.moves) if replayable[i] else 0 for i, g in enumerate(games)), np.int64, n)
    for i in np.flatnonzero(replayable & stored.has_ids & (np.diff(offsets) != counts)).tolist():
        problems.setdefault(i, []).append(f"{offsets[i + 1] - offsets[i]} move ids but {counts[i]} moves in notation")
    notation_ids: dict[int, list[int]] = {}
    for i in np.flatnonzero(replayable & ~stored.has_ids).tolist():
        # Stored before move ids: the notation is replayed here, in Python.
        ids, problem = _ids_from_notation(game, games[i].game_seed, games[i].moves)
        notation_ids[i] = ids
        if problem:
            problems.setdefault(i, []).append(problem)
            replayable[i] = False
    if notation_ids:
        move_ids, offsets = _merge_ids(stored, notation_ids)
    seeds = [g.game_seed if replayable[i] else 0 for i, g in enumerate(games)]
    replay = _replay(game, seeds, move_ids, offsets)
    disagree = replayable & ~_agrees(games, replay)
    failed_checksum = stored.checksum == CHECKSUM_FAILED
    examine = replayable & (failed_checksum | thorough)
    looked_at = np.flatnonzero(disagree | examine | failed_checksum).tolist()
    if progress and looked_at:
        from tqdm import tqdm  # imported only for a bar: loading a run needs none

        looked_at = tqdm(looked_at, desc="games examined", unit="game", file=sys.stderr, leave=False)
    for i in looked_at:
        g = games[i]
        played = move_ids[offsets[i] : offsets[i + 1]]
        found = problems.setdefault(i, [])
        if disagree[i]:
            found += _end_problems(settings, game, g, replay, i, played, (logs or {}).get(g.id))
        if examine[i]:
            found += _examined(settings, game, g, played if stored.has_ids[i] else None)
        if failed_checksum[i]:
            found.append("its checksum fails: the row was changed after it was stored")
    return [InvalidGame(games[i].id, tuple(dict.fromkeys(found))) for i, found in sorted(problems.items()) if found]


# -- the checks --------------------------------------------------------------------------------


#: The type each column must hold (SQLite stores whatever it is given).
_COLUMN_KINDS = {
    **dict.fromkeys(("id", "game_seed", "seed0", "seed1", "score", "plies", "moves0", "moves1"), int),
    **dict.fromkeys(("result", "time0", "time1"), float),
    **dict.fromkeys(("player0", "player1", "spec0", "spec1", "end_reason", "finished_at"), str),
}
_KINDS = tuple(_COLUMN_KINDS.values())


def _type_problems(g: GameResult) -> list[str]:
    """The columns of a row that hold a value of the wrong type (nothing else is checked then)."""
    return [
        f"{name} holds {getattr(g, name)!r}, not a value of type {kind.__name__}"
        for name, kind in _COLUMN_KINDS.items()
        if type(getattr(g, name)) is not kind
    ]


def _seat_table(settings: TournamentSettings) -> list[tuple[tuple[str, str, str, str], ...]]:
    """Per pairing (in schedule order), the seats of its games of even and odd rounds as
    ``(label 0, spec 0, label 1, spec 1)``: game ``id`` is pairing ``id % P`` of round ``id // P``."""
    table = []
    for p in range(len(settings.pairings)):
        rounds = []
        for game_id in (p, p + len(settings.pairings)):
            a, b = settings.seats(game_id)
            rounds.append((settings.labels[a], settings.agents[a], settings.labels[b], settings.agents[b]))
        table.append(tuple(rounds))
    return table


def _row_problems(settings: TournamentSettings, seats: list[tuple[tuple[str, str, str, str], ...]],
                  g: GameResult) -> tuple[list[str], bool]:
    """What is wrong with a row on its own or against the schedule's seats (no replay), and
    whether its moves can still be replayed."""
    if tuple(map(type, attrgetter(*_COLUMN_KINDS)(g))) != _KINDS:
        return _type_problems(g), False
    problems = []
    replayable = type(g.moves) is list and all(type(m) is str for m in g.moves)
    if not replayable:
        problems.append("its moves are not a JSON list of moves in notation")
    elif g.plies != len(g.moves):
        problems.append(f"{g.plies} plies stored, but {len(g.moves)} moves")
    if g.result not in RESULT_TEXT:
        problems.append(f"result {g.result!r} is none of 1 (seat 0 won), 0 (a draw), -1 (seat 1 won)")
    if not 0 <= g.id < settings.total_games:
        problems.append(f"the run's schedule has games 0 to {settings.total_games - 1}, not {g.id}")
        return problems, replayable
    expected = seats[g.id % len(seats)][(g.id // len(seats)) & 1]
    for seat, found in enumerate(((g.player0, g.spec0), (g.player1, g.spec1))):
        if found != expected[2 * seat : 2 * seat + 2]:
            problems.append(f"seat {seat} holds {found[0]!r} ({found[1]}), but the schedule puts {expected[2 * seat]!r} there")
    return problems, replayable


def _agrees(games: list[GameResult], replay: _Replay) -> np.ndarray:
    """bool[N]: whether each game's stored end is the one its replay reaches (every move legal),
    as whole-array comparisons (the words for a game that disagrees: :func:`_end_problems`)."""
    n = len(games)
    result = np.fromiter((g.result if type(g.result) is float else np.nan for g in games), np.float64, n)
    score = np.fromiter((g.score if type(g.score) is int else -(2**62) for g in games), np.int64, n)
    # The end reason as a number: 0 rules, 1 ply cap, 2 + s lost by seat s's failure, -1 unknown.
    kinds = {"rules": 0, engines.PLY_CAP: 1}
    end = np.fromiter((kinds.get(g.end_reason, -1) for g in games), np.int64, n)
    for i in np.flatnonzero(end < 0).tolist():
        failed = failed_seat(games[i].end_reason) if type(games[i].end_reason) is str else None
        end[i] = -1 if failed is None else 2 + failed
    legal = replay.failed_ply < 0
    by_rules = (end == 0) | (end == 1)
    ended = by_rules & replay.terminal & (replay.outcome == result) & (replay.ply_cap == (end == 1))
    ended &= score == np.where(replay.ply_cap, 0, replay.score)  # a ply-cap draw is stored with score 0
    loser = end - 2
    lost = (end >= 2) & ~replay.terminal & (replay.to_move == loser) & (result == np.where(loser == 0, -1.0, 1.0)) & (score == 0)
    return legal & (ended | lost)


def _ids_from_notation(game: engines.Game, seed: int, moves: list[str]) -> tuple[list[int], str | None]:
    """The move ids of a game's notation, replayed from its start; with the first problem (an
    unreadable or illegal move), the ids before it."""
    state = game.new_initial_state(seed)
    ids: list[int] = []
    for ply, text in enumerate(moves, start=1):
        try:
            move = state.parse_move(text)
        except ValueError as error:
            return ids, f"move {ply} ({text!r}) does not replay: {error}"
        why = game.illegal_reason(state, move)
        if why is not None:
            return ids, f"move {ply} ({text!r}) is illegal there: {why}"
        state.apply_legal(move)
        ids.append(move)
    return ids, None


def _merge_ids(stored: StoredGames, notation_ids: dict[int, list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Every game's move ids in one array: the stored ones, and those read from the notation."""
    pieces = []
    for i in range(len(stored.games)):
        if i in notation_ids:
            pieces.append(np.asarray(notation_ids[i], np.int64))
        else:
            pieces.append(stored.move_ids[stored.offsets[i] : stored.offsets[i + 1]])
    offsets = np.zeros(len(pieces) + 1, np.int64)
    np.cumsum([len(p) for p in pieces], out=offsets[1:])
    return (np.concatenate(pieces) if pieces else np.zeros(0, np.int64)), offsets


@dataclass
class _Replay:
    """What the compiled replay found, per game (see :func:`arena.tournament._replay.replay_games`), and
    which games ended by the ply cap."""

    failed_ply: np.ndarray
    failed_code: np.ndarray
    terminal: np.ndarray
    outcome: np.ndarray
    score: np.ndarray
    to_move: np.ndarray
    ply_cap: np.ndarray


def _replay(game: engines.Game, seeds: list[int], move_ids: np.ndarray, offsets: np.ndarray) -> _Replay:
    """Replays every game (from the start of its seed) in compiled code, a chunk at a time."""
    n = len(seeds)
    out = _Replay(
        np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.bool_), np.zeros(n, np.float64),
        np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.bool_),
    )
    if n == 0:
        return out
    template = game.new_initial_state(0).data
    code = np.int64(game.start_code)
    rngs = _generators(seeds) if game.random_start else np.zeros((n, 1), np.uint64)
    # The contract promises that redraw_start draws a start of the variant; the records replay
    # from new_initial_state(seed), so that the two agree is checked (a game whose redraw_start
    # draws differently gets its starts one by one, in Python).
    probe = np.zeros(1, template.dtype)
    draw_starts(probe, template, code, rngs[:1].copy(), 0)  # a copy: drawing advances the generator
    compiled_starts = probe.tobytes() == game.new_initial_state(seeds[0]).buffer.tobytes()
    for first in range(0, n, CHUNK):
        count = min(CHUNK, n - first)
        states = np.zeros(count, template.dtype)
        if compiled_starts:
            draw_starts(states, template, code, rngs, first)
        else:
            for j in range(count):
                states[j] = game.new_initial_state(seeds[first + j]).data
        replay_games(states, move_ids, offsets, first, out.failed_ply, out.failed_code, out.terminal, out.outcome,
                     out.score, out.to_move)
        # Which drawn games ended by the ply cap is the face's to say (a draw ends that way or by a rule).
        for j in np.flatnonzero(out.terminal[first : first + count] & (out.outcome[first : first + count] == 0)).tolist():
            final = engines.State(game, states[j : j + 1].copy(), seeds[first + j])
            out.ply_cap[first + j] = game.end_reason(final) == engines.PLY_CAP
    return out


def _generators(seeds: list[int]) -> np.ndarray:
    """``rng_from_seed(seed)`` of every seed, as one uint64 ``[N, 1]`` array (the same hash,
    without a Python call and an array per game)."""
    digests = b"".join(hashlib.blake2b(str(int(seed)).encode(), digest_size=8).digest() for seed in seeds)
    return np.frombuffer(digests, np.uint64).reshape(-1, 1).copy()


def _end_problems(
    settings: TournamentSettings, game: engines.Game, g: GameResult, replay: _Replay, i: int, ids: np.ndarray,
    log: list[list[Any]] | None = None,
) -> list[str]:
    """What the replay of game ``i`` contradicts in its row."""
    ply = int(replay.failed_ply[i])
    if ply >= 0:
        state = game.new_initial_state(g.game_seed)
        for move in ids[:ply]:
            state.apply_legal(int(move))
        why = game.illegal_reason(state, int(ids[ply]))
        text = g.moves[ply] if ply < len(g.moves) else f"id {int(ids[ply])}"
        return [f"move {ply + 1} ({text!r}) is illegal there: {why}"]
    problems = []
    seat = failed_seat(g.end_reason)
    terminal = bool(replay.terminal[i])
    if g.end_reason in ("rules", engines.PLY_CAP):
        if not terminal:
            problems.append(f"it is stored as ended ({g.end_reason}), but after its {len(ids)} moves the game goes on")
        else:
            ended = RESULT_TEXT[float(replay.outcome[i])]
            if g.result in RESULT_TEXT and RESULT_TEXT[g.result] != ended:
                problems.append(f"result {RESULT_TEXT[g.result]} stored, but its moves end {ended}")
            expected_score = 0 if replay.ply_cap[i] else int(replay.score[i])  # a ply-cap draw is stored with score 0
            if g.score != expected_score:
                problems.append(f"score {g.score} stored, but its moves end with {expected_score}")
            if (g.end_reason == engines.PLY_CAP) != bool(replay.ply_cap[i]):
                how = "by the ply cap" if replay.ply_cap[i] else "by the rules"
                problems.append(f"it is stored as ended by {g.end_reason!r}, but its moves end {how}")
    elif g.end_reason.startswith(ADJUDICATED):
        problems += _adjudication_problems(settings, game, g, terminal, ids, log)
    elif seat is not None:
        lost = -1.0 if seat == 0 else 1.0
        if terminal:
            problems.append(f"it is stored as lost by seat {seat}'s failure, but its moves end the game")
        elif int(replay.to_move[i]) != seat:
            problems.append(f"it is stored as lost by seat {seat}'s failure, but seat {int(replay.to_move[i])} was to move")
        if g.result != lost:
            problems.append(f"result {RESULT_TEXT.get(g.result, g.result)} stored, but seat {seat} lost by failing ({RESULT_TEXT[lost]})")
        if g.score != 0:
            problems.append(f"score {g.score} stored, but a game lost by a failure has score 0")
    else:
        problems.append(f"end reason {g.end_reason[:60]!r} is none the arena writes")
    return problems


def _adjudication_problems(
    settings: TournamentSettings, game: engines.Game, g: GameResult, terminal: bool, ids: np.ndarray,
    log: list[list[Any]] | None = None,
) -> list[str]:
    """What is wrong with an adjudicated game: its end against the run's rules (the score rules
    by the values the end reason quotes, and those against the game's per-move ``log`` when it
    is given; perfect play by the database when it is at hand)."""
    rules = settings.adjudication
    verdict = parse_verdict(g.end_reason)
    if verdict is None:
        return [f"end reason {g.end_reason[:60]!r} is none the arena writes"]
    kind, seat, values = verdict
    if rules is None:
        return [f"it is stored as adjudicated ({kind}), but the run adjudicates nothing"]
    problems = []
    if terminal:
        problems.append(f"it is stored as adjudicated ({kind}), but its moves end the game")
    if kind == "resign":
        if rules.resign is None:
            return problems + ["it is stored as adjudicated by the resign rule, which the run does not have"]
        assert seat is not None
        lost, won = values
        lost_result = -1.0 if seat == 0 else 1.0
        if g.result != lost_result:
            problems.append(f"result {RESULT_TEXT.get(g.result, g.result)} stored, but seat {seat} resigned ({RESULT_TEXT[lost_result]})")
        if len(lost) != rules.resign.moves or len(won) != rules.resign.moves or max(lost) > -rules.resign.value or min(won) < rules.resign.value:
            problems.append(f"the values its end reason quotes do not meet the run's rule resign={rules.resign.value:g}:{rules.resign.moves}")
        elif log is not None and not (_quotes(log, seat, lost) and _quotes(log, 1 - seat, won)):
            problems.append("the values its end reason quotes are not the last ones its per-move log holds")
    elif kind == "draw":
        if rules.draw is None:
            return problems + ["it is stored as adjudicated by the draw rule, which the run does not have"]
        if g.result != 0.0:
            problems.append(f"result {RESULT_TEXT.get(g.result, g.result)} stored, but it is adjudicated a draw")
        if len(ids) < rules.draw.after:
            problems.append(f"it is adjudicated a draw after {len(ids)} plies, but the run's rule starts at ply {rules.draw.after}")
        if any(len(v) != rules.draw.moves or max(map(abs, v)) > rules.draw.value for v in values):
            problems.append(f"the values its end reason quotes do not meet the run's rule draw={rules.draw.after}:{rules.draw.value:g}:{rules.draw.moves}")
        elif log is not None and not all(_quotes(log, seat, v) for seat, v in enumerate(values)):
            problems.append("the values its end reason quotes are not the last ones its per-move log holds")
    else:
        if rules.perfect is None:
            return problems + ["it is stored as adjudicated by perfect play, which the run does not have"]
        if g.result in RESULT_TEXT and type(g.score) is int and perfect_reason(g.result, g.score) != g.end_reason:
            problems.append(f"its end reason does not say its result {RESULT_TEXT[g.result]} with score {g.score}")
        database = rules.load_database(game, build_missing=False)
        if database is not None and game.endgame is not None and not terminal:  # else it cannot be checked here
            state = game.new_initial_state(g.game_seed)
            for move in ids.tolist():
                state.apply_legal(int(move))
            known = game.endgame.perfect_play(state, database)
            if known is None:
                problems.append("it is adjudicated by perfect play, but the endgame database does not hold its last position")
            elif (known.result, known.score) != (g.result, g.score) or perfect_reason(known.result, known.score) != g.end_reason:
                problems.append(f"it is stored as {RESULT_TEXT.get(g.result, g.result)} with score {g.score} by perfect play, "
                                f"but the endgame database says {RESULT_TEXT[known.result]} with score {known.score}")
        return problems
    if g.score != 0:
        problems.append(f"score {g.score} stored, but a game adjudicated by the {kind} rule has score 0")
    return problems


def _quotes(log: list[list[Any]], seat: int, quoted: list[float]) -> bool:
    """Whether ``quoted`` (an end reason's values, to 3 decimals) are the last values that
    ``seat``'s agent reported in a per-move log (which holds 6 decimals: within half a
    thousandth each)."""
    values = [entry[1] for entry in log if isinstance(entry, list) and len(entry) > 1 and entry[0] == seat][-len(quoted):]
    return len(values) == len(quoted) and all(
        isinstance(v, (int, float)) and abs(float(v) - q) <= 0.0005 + 1e-9 for v, q in zip(values, quoted))


def _examined(settings: TournamentSettings, game: engines.Game, g: GameResult, ids: np.ndarray | None) -> list[str]:
    """What a closer look finds: the seeds against the schedule, the opening against the run's
    openings, the notation against the move ids (plain Python, a ply at a time)."""
    if not 0 <= g.id < settings.total_games or not isinstance(g.moves, list):
        return []
    problems = []
    scheduled = settings.scheduled_game(g.id)
    if g.game_seed != scheduled.game_seed:
        problems.append(f"start seed {g.game_seed} is not the schedule's {scheduled.game_seed}")
    for seat, seed in enumerate((g.seed0, g.seed1)):
        if seed != scheduled.agent_seeds[seat]:
            problems.append(f"seat {seat}'s agent seed {seed} is not the schedule's {scheduled.agent_seeds[seat]}")
    if settings.openings is not None:
        _, opening = settings.start_position(scheduled, game)
        for ply, (_, name) in enumerate(opening):
            if ply >= len(g.moves) or g.moves[ply] != name:
                stored = repr(g.moves[ply]) if ply < len(g.moves) else "nothing"
                problems.append(f"move {ply + 1} is {stored}, but the run's opening plays {name!r} there")
                break
    if ids is not None:
        for ply, written in _notation(game, g.game_seed, ids):
            if ply >= len(g.moves) or g.moves[ply] != written:
                stored = repr(g.moves[ply]) if ply < len(g.moves) else "missing"
                problems.append(f"move {ply + 1} is {stored} in notation, but its move id plays {written!r}")
                break
    return problems


def _notation(game: engines.Game, seed: int, ids: np.ndarray) -> Iterator[tuple[int, str]]:
    """(ply, the move in notation) of every legal move of ``ids`` replayed from the start."""
    state = game.new_initial_state(seed)
    for ply, move in enumerate(ids.tolist()):
        if game.illegal_reason(state, move) is not None:
            return
        yield ply, game.notation.format_move(state, move)
        state.apply_legal(move)
