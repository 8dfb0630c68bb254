"""Running a round-robin tournament, resumably, on several processes; and loading a run back."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from board_arena import engines
from board_arena.arena.statistics.ratings import (
    Ratings,
    fit_ratings,
    import_pandas,
    rating_history,
)
from board_arena.arena.statistics.sprt import SprtWatch
from board_arena.arena.tournament.cluster import RayPool
from board_arena.arena.tournament.live import LiveRun
from board_arena.arena.tournament.movelog import MOVE_COLUMNS, move_rows
from board_arena.arena.tournament.pool import (
    InlinePool,
    ProcessPool,
    WorkerPool,
)
from board_arena.arena.tournament.report import write_report
from board_arena.arena.tournament.settings import ScheduledGame, TournamentSettings
from board_arena.arena.tournament.store import GameResult, RunLock, RunStore
from board_arena.arena.tournament.verify import (
    InvalidGame,
    InvalidGamesError,
    verify_games,
)
from board_arena.commandline import ignoring_interrupts, interrupts_kept
from board_arena.ugi.host import LOG_FOLDER

if TYPE_CHECKING:  # pandas is optional: imported when a DataFrame is asked for
    import pandas

__all__ = ["run_tournament", "load_run", "make_pool", "Run", "rating_results"]


def rating_results(games: list[GameResult]) -> list[tuple[str, str, float]]:
    """``(agent, opponent, score)`` per game, as :func:`arena.statistics.ratings.fit_ratings` takes them."""
    return [(g.player0, g.player1, g.score_for(0)) for g in games]


@dataclass
class Run:
    """A tournament run loaded from its folder: settings and finished games.

    Example:
        >>> import tempfile
        >>> from board_arena import arena
        >>> folder = tempfile.mkdtemp()
        >>> settings = arena.TournamentSettings.create("kalah:pits=3,seeds=2", ["random", "greedy"], games=4)
        >>> _ = arena.run_tournament(settings, folder, concurrency=1, progress=False)
        >>> run = arena.load_run(folder)  # any run folder, e.g. arena-runs/kalah-random-greedy-...
        >>> len(run.games), sorted(run.ratings().names)
        (4, ['greedy', 'random'])
        >>> run.records()[0]["player0"]
        'random'
        >>> run.moves()[0]["agent"], run.moves()[0]["depth"]  # greedy looks one ply ahead
        ('random', None)
    """

    out_dir: str
    settings: TournamentSettings
    games: list[GameResult]
    #: Kernels compiled by the workers (at concurrency 1, this process) after their warm-up,
    #: during this call (expected 0; None when no game was played).
    worker_compilations: int | None = None
    #: Stored games that failed verification (:mod:`arena.tournament.verify`), left out of ``games`` and of
    #: everything computed from them (a run loaded with ``skip_invalid``).
    invalid: list[InvalidGame] = field(default_factory=list)

    def __repr__(self) -> str:
        # Short: a run may hold a million games.
        return (
            f"<Run {self.settings.game}: {', '.join(self.settings.labels)}; "
            f"{len(self.games):,} of {self.settings.total_games:,} games played; {self.out_dir}>"
        )

    def records(self) -> list[dict[str, Any]]:
        """The games as plain dicts (one per game, the database's columns but the per-move log,
        which :meth:`moves` gives)."""
        return [{**{k: v for k, v in vars(g).items() if k != "searches"}, "moves": list(g.moves)} for g in self.games]

    def moves(self) -> list[dict[str, Any]]:
        """Every ply of every stored game with what the mover's search reported, as plain dicts:
        ``game_id, ply, seat, agent, move, opening, value, exact, depth, nodes, simulations,
        seconds`` (the ``moves`` view of the database; see :mod:`arena.tournament.movelog`). Fields a search
        did not report are None; so are all but the move in a game stored before the logs. (A run
        of a million games has tens of millions of plies: query the ``moves`` view in SQL then.)
        """
        return move_rows(self.games, self.searches())

    def searches(self, game_ids: list[int] | None = None) -> dict[int, list[list[Any]] | None]:
        """The per-move logs (see :mod:`arena.tournament.movelog`) of the games (or of ``game_ids``), by id,
        read from the run's database (a game just played carries its own)."""
        chosen = None if game_ids is None else set(game_ids)
        wanted = [g for g in self.games if chosen is None or g.id in chosen]
        logs = {g.id: g.searches for g in wanted}
        missing = [g.id for g in wanted if g.searches is None]
        store = RunStore(self.out_dir, readonly=True)
        if missing and store.exists():
            try:
                # A few games by id; many at once in one pass over the table.
                stored = store.searches(missing if len(missing) <= 500 else None)
            finally:
                store.close()
            logs.update((i, stored.get(i)) for i in missing)
        return logs

    def moves_dataframe(self) -> pandas.DataFrame:
        """:meth:`moves` as a pandas DataFrame (needs ``pip install pandas``).

        Raises:
            ImportError: pandas is not installed.
        """
        return import_pandas("moves_dataframe", "moves()").DataFrame(self.moves(), columns=list(MOVE_COLUMNS))

    def rating_history(self, points: int = 20, anchor: str | None = None, intervals: bool = True) -> list[dict[str, Any]]:
        """The ratings refitted on growing prefixes of the games in schedule order: rows
        ``{"games", "agent", "elo", "low", "high"}`` (see :func:`arena.statistics.ratings.rating_history`)."""
        return rating_history(rating_results(sorted(self.games, key=lambda g: g.id)), list(self.settings.labels), anchor, points, intervals)

    def write_report(self, anchor: str | None = None, plots: bool = True) -> str:
        """Writes the plots into the run's folder and returns the report, as ``arena report``
        prints it (see :func:`arena.tournament.report.write_report`)."""
        return write_report(self, anchor, plots)

    def to_dataframe(self) -> pandas.DataFrame:
        """The games as a pandas DataFrame (needs ``pip install pandas``).

        Raises:
            ImportError: pandas is not installed.
        """
        return import_pandas("to_dataframe", "records()").DataFrame(self.records())

    def ratings(self, anchor: str | None = None, intervals: bool = True) -> Ratings:
        """Joint Elo ratings of the agents (see :func:`arena.statistics.ratings.fit_ratings`)."""
        return fit_ratings(rating_results(self.games), list(self.settings.labels), anchor=anchor, intervals=intervals)

    def game_record(self, game_id: int) -> engines.GameRecord:
        """A stored game as a record that replays.

        Raises:
            ValueError: no finished game has that id.
        """
        for g in self.games:
            if g.id == game_id:
                return engines.GameRecord(
                    self.settings.game,
                    dict(self.settings.game_params),
                    g.game_seed,
                    list(g.moves),
                    {"players": [g.player0, g.player1], "end_reason": g.end_reason},
                )
        ids = [g.id for g in self.games]
        span = f"{min(ids)}-{max(ids)}" if ids else "none finished"
        raise ValueError(f"no finished game {game_id} in {self.out_dir} (games: {span})")


def load_run(out_dir: str, skip_invalid: bool = False) -> Run:
    """The run stored in ``out_dir``, every game verified (:mod:`arena.tournament.verify`: replayed through
    the engine, its checksum checked).

    Args:
        out_dir: the run folder.
        skip_invalid: leave the games that fail verification out (listed in ``Run.invalid``)
            instead of refusing the run.

    Raises:
        ValueError: there is no run there.
        arena.tournament.verify.InvalidGamesError: (a ValueError) some stored games fail verification, and
            ``skip_invalid`` is false.
    """
    store = RunStore(out_dir, readonly=True)
    try:
        settings = store.settings()
        games, invalid = _verified_games(settings, store, out_dir, skip_invalid)
    finally:
        store.close()
    return Run(out_dir, settings, games, invalid=invalid)


def _verified_games(
    settings: TournamentSettings, store: RunStore, out_dir: str, skip_invalid: bool
) -> tuple[list[GameResult], list[InvalidGame]]:
    """The stored games that pass verification, and those that fail.

    Raises:
        InvalidGamesError: some fail, and ``skip_invalid`` is false.
    """
    stored = store.read_games()
    invalid = verify_games(settings, stored)
    if invalid and not skip_invalid:
        raise InvalidGamesError(out_dir, invalid, len(stored.games))
    failed = {g.id for g in invalid}
    return [g for g in stored.games if g.id not in failed], invalid


#: Games that come back within this many seconds of the last commit are committed with the next.
COMMIT_SECONDS = 0.2


class _Tally:
    """Running points per agent, for the progress bar (kept incrementally: a run may hold a
    million games)."""

    def __init__(self, settings: TournamentSettings, games: Iterable[GameResult]):
        self.labels = settings.labels
        self.points = dict.fromkeys(self.labels, 0.0)
        self.played = dict.fromkeys(self.labels, 0)
        for g in games:
            self.add(g)

    def add(self, g: GameResult) -> None:
        for seat, name in enumerate((g.player0, g.player1)):
            self.points[name] += g.score_for(seat)
            self.played[name] += 1

    def __str__(self) -> str:
        points, played = self.points, self.played
        if len(self.labels) == 2:
            a, b = self.labels
            return f"{a} {points[a]:g} - {points[b]:g} {b}"
        best = sorted(self.labels, key=lambda n: -points[n] / max(played[n], 1))[:3]
        return ", ".join(f"{n} {100 * points[n] / max(played[n], 1):.0f}%" for n in best)


def _resume_line(settings: TournamentSettings, valid: int, invalid: list[InvalidGame], remaining: int, watch: SprtWatch | None) -> str:
    """What a resumed run found in its folder, in one line."""
    found = f"{valid + len(invalid):,} of {settings.total_games:,} games stored already, all verified"
    if invalid:
        found = (f"{valid + len(invalid):,} of {settings.total_games:,} games stored already; "
                 f"{len(invalid):,} fail verification and are left out")
    if watch is not None and watch.decision:
        return f"Resuming: {found}; the SPRT has decided ({watch.decision}): nothing to play"
    if remaining <= 0:
        return f"Resuming: {found}; nothing to play"
    return f"Resuming: {found}; playing the other {remaining:,}"


class _NoBar:
    """The progress bar of a quiet run: tqdm is not even imported."""

    monitor_interval = 0

    def __init__(self, *args: Any, **kwargs: Any):
        pass

    def set_postfix_str(self, *args: Any, **kwargs: Any) -> None:
        pass

    def update(self, *args: Any) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar_class(progress: bool = True) -> Any:
    """tqdm's bar, imported when a run plays: a widget under IPython (``tqdm.auto``, which imports
    the notebook widgets and asyncio), text elsewhere; :class:`_NoBar` without ``progress``."""
    if not progress:
        return _NoBar
    if "IPython" in sys.modules:
        from tqdm.auto import tqdm as widget_or_text

        return widget_or_text
    from tqdm import tqdm as text

    return text


def make_pool(
    settings: TournamentSettings, concurrency: int | None = None, cluster: str | None = None, in_process: bool = False
) -> WorkerPool:
    """The worker pool that plays a run's games: on Ray when ``cluster`` is given (``"ray"``,
    ``"auto"`` or ``"ray://HOST:PORT"``; ``concurrency`` Ray workers, default one per CPU of the
    cluster), else on worker processes (default: one per core; one at ``concurrency`` 1, so that
    an agent that crashes its process loses its game and no more, see :mod:`arena.tournament.pool`). With
    ``in_process``, in this process, one game at a time (for a profiler or a debugger; an agent
    that crashes then ends the run).

    Raises:
        ValueError: a ``concurrency`` below 1, or a malformed ``cluster``; ``in_process`` with a
            cluster or another concurrency than 1.
    """
    if in_process:
        if cluster is not None or (concurrency or 1) != 1:
            raise ValueError("in-process play is one game at a time in this process: no cluster, concurrency 1")
        return InlinePool(settings)
    if cluster is not None:
        return RayPool(settings, concurrency, where=cluster)
    return ProcessPool(settings, concurrency or os.cpu_count() or 1)


def run_tournament(
    settings: TournamentSettings,
    out_dir: str | None = None,
    concurrency: int | None = None,
    progress: bool = True,
    on_result: Callable[[GameResult], None] | None = None,
    cluster: str | None = None,
    skip_invalid: bool = False,
    in_process: bool = False,
    engine_logs: bool = False,
) -> Run:
    """Plays every game of ``settings`` not yet in ``out_dir`` and returns the whole run.

    Games already stored are kept and not replayed; each new game is committed as it ends, so an
    interrupted run loses nothing and resumes when called again. The results depend on the
    settings only, not on ``concurrency`` (each game has its own seeds), nor on where they are
    played.

    Args:
        settings: the tournament.
        out_dir: the run folder (default :meth:`TournamentSettings.default_out_dir`).
        concurrency: games played at once (default: the cores here, or the CPUs of the cluster).
        progress: show a progress bar (on standard error).
        on_result: called with each game once it is stored.
        cluster: play the games on Ray (see :mod:`arena.tournament.cluster`): ``"ray"`` starts a Ray
            instance on this machine, ``"auto"`` joins this machine's cluster,
            ``"ray://HOST:PORT"`` a remote one.
        skip_invalid: when the folder holds games that fail verification (:mod:`arena.tournament.verify`),
            leave them out (they stay stored as they are, and are not played again) instead of
            refusing to resume.
        in_process: play in this process, one game at a time, rather than on a worker process
            (for a profiler or a debugger: an agent that crashes its process then ends the run).
        engine_logs: every engine program (board_arena.ugi.host) writes each game's protocol
            log into the run folder's ``ugi-logs`` (without, only those whose definition asks);
            not on a cluster.

    Raises:
        ValueError: ``out_dir`` holds a run with other settings; a bad or unreachable
            ``cluster``, or Ray not installed; ``concurrency`` below 1.
        arena.tournament.verify.InvalidGamesError: (a ValueError) stored games fail verification, and
            ``skip_invalid`` is false (nothing is played).
        arena.tournament.pool.WorkerLost: workers kept dying (the games finished are stored).
    """
    out_dir = out_dir or settings.default_out_dir()
    if settings.adjudication is not None:  # built once here, not by every worker at once
        settings.adjudication.load_database(settings.make_game(), progress=progress)
    # Joined before the run folder is made: a bad cluster address leaves nothing behind. The
    # pool plays the stored settings: they are these (RunStore.open refuses any other run). A
    # Ctrl-C while a kernel compiles here is kept, not dropped (commandline.interrupts_kept).
    with interrupts_kept(), make_pool(settings, concurrency, cluster, in_process) as pool:
        with RunLock(out_dir) as lock:
            store = RunStore(out_dir)
            live = LiveRun(out_dir)  # the games in progress, for arena serve (arena.tournament.live)
            try:
                try:
                    store.open(settings)
                    if not isinstance(pool, RayPool):
                        live.begin()
                        pool.live_dir = live.folder
                        pool.engine_logs = (os.path.join(out_dir, LOG_FOLDER), engine_logs)
                except ValueError:  # a full disk, say: a folder made for this run goes again
                    store.close()
                    lock.discard_made_folder = True
                    raise
                compilations = _play_missing(pool, store, out_dir, progress, on_result, skip_invalid)
            finally:
                live.end()
                store.close()
    run = load_run(out_dir, skip_invalid)
    run.worker_compilations = compilations
    return run


def _play_missing(
    pool: WorkerPool,
    store: RunStore,
    out_dir: str,
    progress: bool,
    on_result: Callable[[GameResult], None] | None,
    skip_invalid: bool,
) -> int | None:
    """Plays the games not yet stored on ``pool``, storing each as it comes back (this process is
    the only writer); returns the kernels compiled by the workers after their warm-up (None when
    no game was played). The games stored already are verified first; with ``progress``, one
    line on standard error says what was found."""
    settings = pool.settings
    stored, invalid = _verified_games(settings, store, out_dir, skip_invalid)
    done = {g.id for g in stored} | {g.id for g in invalid}  # a game that fails is not played again
    remaining = settings.total_games - sum(1 for i in done if i < settings.total_games)
    # An SPRT (arena.statistics.sprt) ends the schedule once it decides: no new game is handed out, and the
    # games in flight finish and are stored.
    watch = SprtWatch.for_run(settings, stored)
    if progress and done:
        print(_resume_line(settings, len(stored), invalid, remaining, watch), file=sys.stderr)
    if remaining <= 0 or (watch is not None and watch.decision):
        return None
    todo: Iterable[ScheduledGame] = (g for g in settings.schedule() if g.id not in done)  # lazy: a schedule may be long
    if watch is not None:
        todo = watch.until_decided(todo)
    # Compile (or load) every kernel before the progress bar and any clock start (the local
    # backends, here; Ray actors warm up on their own nodes, at the same time as each other).
    pool.prepare()
    tally = _Tally(settings, stored)
    tqdm = _progress_bar_class(progress)
    tqdm.monitor_interval = 0  # no monitor thread: worker processes may be forked (arena.tournament.pool)
    bar = tqdm(
        total=settings.total_games,
        initial=settings.total_games - remaining,
        unit="game",
        disable=not progress,
        dynamic_ncols=True,
        file=sys.stderr,
    )
    bar.set_postfix_str(str(tally), refresh=False)

    # Games are committed together when they come back faster than COMMIT_SECONDS apart (one
    # transaction each would cost the single writer more than cheap games take to play); an
    # interrupt commits what has arrived before it stops.
    pending: list[GameResult] = []
    last_commit = time.monotonic()

    def commit() -> None:
        nonlocal last_commit
        store.add_many(pending)
        for result in pending:
            tally.add(result)
            if on_result:
                on_result(result)
        bar.set_postfix_str(str(tally), refresh=False)
        bar.update(len(pending))
        pending.clear()
        last_commit = time.monotonic()

    try:
        for result in pool.play(todo):
            pending.append(result)
            if watch is not None:
                watch.add(result)
            if time.monotonic() - last_commit >= COMMIT_SECONDS:
                commit()
        return pool.compilations
    finally:
        with ignoring_interrupts():
            commit()
            bar.close()
