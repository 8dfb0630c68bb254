"""``arena export``: a run's games as text records, one block per game, after PGN's tag pairs.

    # board-arena games of arena-runs/kalah-greedy-mcts-1a2b3c4d (kalah, 2 games)
    [Game "kalah"]
    [Params "pits=6,seeds=4,capture=kalah,empty_capture=false"]
    [Id "0"]
    [Seed "8390262713524196"]
    [Player0 "greedy"]
    [Player1 "mcts:iterations=300"]
    [Seed0 "1620834297614046977"]
    [Seed1 "3215930488839880416"]
    [Result "0-1"]
    [Score "-12"]
    [Plies "41"]
    [EndReason "rules"]
    [TimeControl "40/60+0.5"]
    c f a d b e ...

Each block: tag lines ``[Name "value"]`` (the value a JSON string: quotes and backslashes
escaped), then ONE line holding every move of the game in its notation (the tokens of
``State.format_move``, separated by spaces; empty for a game without moves), then a blank line.
Lines that start with ``#`` are comments. ``Result`` is seat 0's: ``1-0``, ``0-1`` or
``1/2-1/2``; ``Score`` is seat 0's margin; ``Seed`` the start of the game (deal, opening),
``Seed0``/``Seed1`` the agents' seeds; ``Player0``/``Player1`` the agents' labels; ``EndReason``
``rules``, ``ply cap`` or what stopped the game. ``TimeControl`` is the run's game clock as
``--tc`` and PGN write it (moves/seconds+increment; absent without a clock) and ``MoveTime``
its limit per move in seconds (absent without one). ``Game`` and ``Params`` make the game again
(``engines.make(game, **params)``), ``Seed`` starts it, and the moves replay it.

Because the moves of a game sit on one line, the file serves as an openings file for
``arena run --openings FILE`` (which skips the ``[`` and ``#`` lines and reads each other line as
a sequence of moves).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from typing import IO, Iterable

from board_arena import engines
from board_arena.agents.base import format_value
from board_arena.arena.tournament.run import Run, load_run
from board_arena.arena.tournament.store import RESULT_TEXT, GameResult, RunStore
from board_arena.files import check_writable, open_whole

__all__ = ["TextRecord", "format_game", "write_games", "read_records", "export_run", "RESULT_TEXT"]

EXPORT_NAME = "games.txt"


@dataclass
class TextRecord:
    """One game block of an export: its tags (name -> text) and its moves in notation."""

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)

    def game_record(self) -> engines.GameRecord:
        """The game as a record that replays (from the ``Game``, ``Params`` and ``Seed`` tags).

        Raises:
            ValueError: a tag the replay needs is missing or unreadable.
        """
        try:
            name, params, seed = self.tags["Game"], self.tags.get("Params", ""), int(self.tags["Seed"])
        except (KeyError, ValueError) as error:
            raise ValueError(f"a record needs the tags Game and Seed (an integer): {error}") from None
        values = dict(item.split("=", 1) for item in params.split(",") if item)
        game = engines.make(name, **values)
        return engines.GameRecord(name, dict(game.params), seed, list(self.moves), dict(self.tags))


def _tag(name: str, value: object) -> str:
    return f"[{name} {json.dumps(str(value), ensure_ascii=False)}]"


def format_game(g: GameResult, game_name: str, params_text: str, limits: dict[str, str] | None = None) -> str:
    """The block of one stored game (an :class:`arena.GameResult`), ending with a blank line;
    ``limits`` are the run's time tags (``TimeControl``, ``MoveTime``), after the others."""
    lines = [
        _tag("Game", game_name),
        _tag("Params", params_text),
        _tag("Id", g.id),
        _tag("Seed", g.game_seed),
        _tag("Player0", g.player0),
        _tag("Player1", g.player1),
        _tag("Seed0", g.seed0),
        _tag("Seed1", g.seed1),
        _tag("Result", RESULT_TEXT[g.result]),
        _tag("Score", g.score),
        _tag("Plies", g.plies),
        _tag("EndReason", g.end_reason),
        *(_tag(name, value) for name, value in (limits or {}).items()),
        " ".join(g.moves),
        "",
    ]
    return "\n".join(lines) + "\n"


def write_games(run: Run, handle: IO[str]) -> int:
    """Writes every stored game of ``run`` (an :class:`arena.Run`) to ``handle``; returns how many."""
    game = run.settings.make_game()
    params_text = ",".join(f"{k}={format_value(v)}" for k, v in game.params.items())
    limits = {}
    if run.settings.time_control is not None:
        limits["TimeControl"] = run.settings.time_control.spec
    if run.settings.move_time is not None:
        limits["MoveTime"] = f"{run.settings.move_time:g}"
    handle.write(f"# board-arena games of {run.out_dir} ({run.settings.game}, {len(run.games)} games)\n")
    for g in run.games:
        handle.write(format_game(g, run.settings.game, params_text, limits))
    return len(run.games)


def export_run(out_dir: str, out: str | None = None, skip_invalid: bool = False) -> tuple[str, int]:
    """Writes the verified games of the run in ``out_dir`` to ``out`` (default
    ``out_dir/games.txt``; ``-`` for stdout); returns where and how many. The file is written
    whole or not at all: the games go to a temporary file beside it, renamed into place.

    Raises:
        ValueError: no run in ``out_dir``, or ``out`` cannot be written (found before the run
            is read).
        arena.tournament.verify.InvalidGamesError: (a ValueError) stored games fail verification, and
            ``skip_invalid`` is false.
    """
    path = os.path.join(out_dir, EXPORT_NAME) if out is None else out
    if path == "-":
        return "-", write_games(load_run(out_dir, skip_invalid), sys.stdout)
    store = RunStore(out_dir, readonly=True)
    try:
        store.settings()  # there is a run here (before anything is written)
    finally:
        store.close()
    check_writable(path, "--out")
    try:
        with open_whole(path) as handle:
            count = write_games(load_run(out_dir, skip_invalid), handle)
    except OSError as error:
        raise ValueError(f"cannot write {path}: {error.strerror or error}") from None
    return path, count


def parse_records(lines: Iterable[str]) -> list[TextRecord]:
    """The game blocks of the lines of an export (see the module docstring).

    Raises:
        ValueError: a tag line is malformed, or a block has more than one line of moves.
    """
    records: list[TextRecord] = []
    current: TextRecord | None = None
    moves_seen = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line:
            if current is not None and current.tags:
                records.append(current)  # a block ends at a blank line (its moves line may be empty)
                current, moves_seen = None, False
            continue
        if current is None:
            current = TextRecord()
        if line.startswith("["):
            name, _, rest = line[1:].partition(" ")
            if not line.endswith("]") or not name or not rest:
                raise ValueError(f"line {number}: a tag is [Name \"value\"], not {line[:40]!r}")
            try:
                current.tags[name] = json.loads(rest[:-1])
            except json.JSONDecodeError:
                raise ValueError(f"line {number}: the value of tag {name} is not a quoted string") from None
        elif moves_seen:
            raise ValueError(f"line {number}: a game's moves are on one line; this block has a second")
        else:
            current.moves = line.split()
            moves_seen = True
    if current is not None and current.tags:
        records.append(current)
    return records


def read_records(path: str) -> list[TextRecord]:
    """The game blocks of an export file (see :func:`parse_records`).

    Example:
        >>> import tempfile, os
        >>> from board_arena import arena
        >>> from board_arena.arena.tournament.export import export_run, read_records
        >>> folder = tempfile.mkdtemp()
        >>> settings = arena.TournamentSettings.create("kalah:pits=3,seeds=2", ["random", "greedy"], games=2)
        >>> _ = arena.run_tournament(settings, folder, concurrency=1, progress=False)
        >>> path, count = export_run(folder)
        >>> records = read_records(path)
        >>> [r.tags["Player0"] for r in records]
        ['random', 'greedy']
        >>> state = records[0].game_record().replay()  # the moves replay to the stored end
        >>> state.is_terminal()
        True
    """
    with open(path, encoding="utf-8") as handle:
        return parse_records(handle)
