"""Tournament settings (one dataclass, after fastchess's ``TournamentOptions``), saved beside the
results so that a run can be resumed and its report rebuilt, and the schedule of games they imply.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Iterator

from board_arena import agents, engines
from board_arena.agents.plugins import load_plugins, plugin_name, plugins_defining
from board_arena.arena.statistics.sprt import Sprt
from board_arena.arena.tournament.adjudication import Adjudication
from board_arena.arena.tournament.clock import TimeControl, parse_time_control
from board_arena.arena.tournament.openings import Openings, parse_openings
from board_arena.ugi.host import engine_definitions_used

__all__ = [
    "TournamentSettings",
    "ScheduledGame",
    "split_agent_list",
    "parse_game_spec",
    "parse_param_options",
    "derive_seed",
]


def split_agent_list(text: str) -> list[str]:
    """Splits a comma-separated list of agent specs whose parameters also use commas.

    A piece with ``=`` and no ``:`` continues the previous agent's parameters; any other piece
    starts a new agent: ``random,alphabeta:depth=4,mcts:iterations=500,c=2`` is three agents.
    """
    specs: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if "=" in piece and ":" not in piece and specs and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


def parse_game_spec(text: str) -> tuple[str, dict[str, str]]:
    """``kalah`` or ``kalah:pits=5,seeds=3`` -> (name, raw parameters); same syntax as agents."""
    return agents.parse_spec(text, kind="game")


def parse_param_options(items: Iterable[str]) -> dict[str, str]:
    """The values of repeated ``--param NAME=VALUE`` options, by name.

    Raises:
        ValueError: an item without ``=`` or without a name.
    """
    params = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--param takes NAME=VALUE, e.g. --param pits=5, not {item!r}")
        params[key.strip()] = value.strip()
    return params


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the tournament seed, a purpose (``"start"``, ``"agent"``) and a game's
    coordinates: stable across runs, and different purposes never share a stream."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


#: Bounds on what a run may hold: beyond them a schedule, a report or a rating fit stops being
#: sensible on one machine (and a typo like --games 100000000 must not run for days).
MAX_GAMES_PER_PAIRING = 100_000
MAX_GAMES_PER_RUN = 1_000_000
MAX_AGENTS = 64
MIN_MOVE_TIME = 0.001
MAX_MOVE_TIME = 86_400.0


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: who plays which seat, from which start, with which seeds."""

    id: int
    pairing: tuple[int, int]  # agent indices, in settings order
    players: tuple[int, int]  # agent index for seat 0 and seat 1
    game_seed: int  # the start (deal, opening); shared by the two games of a colour-swapped pair
    agent_seeds: tuple[int, int]


@dataclass(frozen=True)
class TournamentSettings:
    """Everything that decides a tournament's results (concurrency and the output folder do not).

    ``games`` is per pairing; with ``swap`` (the default) they are played as pairs from the same
    start (same deal, same random opening) with the seats swapped. ``move_time`` replaces every
    agent's own budget by that many seconds per move (searches then stop on the clock, which no
    seed reproduces). ``time_control`` gives each side a game clock (arena.tournament.clock), which agents
    are told and budget (:meth:`agents.Agent.time_budget`) within their own limits; with both,
    a move gets the smaller. ``labels`` name the agents in reports (their specs, numbered if
    repeated).
    """

    game: str
    game_params: dict[str, Any]
    agents: tuple[str, ...]
    games: int = 100
    seed: int = 0
    move_time: float | None = None
    swap: bool = True
    labels: tuple[str, ...] = field(default=())
    #: How the games start (random plies or a file's lines, see arena.tournament.openings); None: from the
    #: game's start.
    openings: Openings | None = None
    #: An SPRT of the first agent against the second (arena.statistics.sprt.Sprt's fields); ``games`` is
    #: then the most games the match may take.
    sprt: dict[str, Any] | None = None
    #: The first agent plays each of the others, and they do not play each other.
    gauntlet: bool = False
    #: Python files or modules that register agents, loaded by every process of the run.
    plugins: tuple[str, ...] = field(default=())
    #: Seconds an agent may take beyond its time for a move before it loses the game on time
    #: (a hung agent's worker is killed then, see arena.tournament.pool).
    tc_margin: float = 1.0
    #: A clock per side (``--tc``); None: no clock.
    time_control: TimeControl | None = None
    #: The rules that end a game early (``--adjudicate``, arena.tournament.adjudication); None: none.
    adjudication: Adjudication | None = None
    #: The engine programs among the agents (board_arena.ugi.host.EngineDefinition.to_dict),
    #: which every worker process and Ray actor of the run registers.
    ugi_engines: tuple[dict[str, Any], ...] = field(default=())

    def __post_init__(self) -> None:
        if len(self.agents) < 2:
            raise ValueError("a tournament needs at least two agents, e.g. --agents mcts,alphabeta")
        if len(self.agents) > MAX_AGENTS:
            raise ValueError(f"a tournament has at most {MAX_AGENTS} agents, not {len(self.agents)}")
        if not 1 <= self.games <= MAX_GAMES_PER_PAIRING:
            raise ValueError(f"games per pairing must be from 1 to {MAX_GAMES_PER_PAIRING:,}, not {self.games:,}")
        if self.total_games > MAX_GAMES_PER_RUN:
            raise ValueError(
                f"{self.games:,} games for each of {len(self.pairings)} pairings is {self.total_games:,} games; "
                f"a run holds at most {MAX_GAMES_PER_RUN:,} (fewer games or agents, or several runs)"
            )
        if self.swap and self.games % 2:
            raise ValueError(f"games per pairing must be even to swap seats in pairs, not {self.games} (or use --noswap)")
        if self.move_time is not None and not (MIN_MOVE_TIME <= self.move_time <= MAX_MOVE_TIME):
            raise ValueError(f"move time must be from {MIN_MOVE_TIME:g} to {MAX_MOVE_TIME:g} seconds, not {self.move_time}")
        if not (0.0 <= self.tc_margin <= MAX_MOVE_TIME):
            raise ValueError(f"the time margin must be from 0 to {MAX_MOVE_TIME:g} seconds, not {self.tc_margin}")
        if not self.labels:
            object.__setattr__(self, "labels", _labels(self.agents))
        if self.sprt is not None:
            Sprt(**self.sprt)  # checks the values
            if len(self.agents) != 2 or not self.swap:
                raise ValueError("--sprt tests one match: it needs exactly two agents and seat swapping (no --noswap)")
        if self.time_control is not None and not isinstance(self.time_control, TimeControl):
            raise ValueError(f"time_control must be an arena.tournament.clock.TimeControl (TournamentSettings.create parses text), not {self.time_control!r}")
        if self.adjudication is not None and not isinstance(self.adjudication, Adjudication):
            raise ValueError(f"adjudication must be an arena.tournament.adjudication.Adjudication (TournamentSettings.create parses text), not {self.adjudication!r}")
        if self.openings is not None and not isinstance(self.openings, Openings):
            raise ValueError(f"openings must be an arena.tournament.openings.Openings (TournamentSettings.create parses text), not {self.openings!r}")

    # -- validation and construction ----------------------------------------------------------

    @classmethod
    def create(cls, game: str, agent_specs: Iterable[str], **options: Any) -> "TournamentSettings":
        """Validated settings from what a user writes.

        Args:
            game: the game, with parameters if any (``kalah:pits=5``).
            agent_specs: the agents' specs (``mcts:iterations=500``).
            options: the other fields; ``game_params`` (more parameters of the game),
                ``openings`` (``random:N`` or a file's path) with ``opening_plies``, ``sprt`` as
                text (``elo0=0,elo1=10``), ``time_control`` as text (``40/60+0.5``, see
                :func:`arena.tournament.clock.parse_time_control`), ``adjudication`` as text
                (``resign=0.9:4,perfect``, see :mod:`arena.tournament.adjudication`), and
                ``plugins`` as given; ``ugi_engines`` are recorded from the agents (the engines
                registered, see :func:`board_arena.ugi.host.register_engines`, that the specs name).

        Raises:
            ValueError: a bad game, agent, parameter or option (its message says what is
                allowed); every agent is made once here, so that nothing fails after the run has
                begun.
        """
        # A file is kept by its absolute path: the run resumes from any folder, and the same file
        # named two ways is one run. Loaded first: a plugin may bring the game.
        named = tuple(plugin_name(name) for name in options.get("plugins") or ())
        load_plugins(named)
        name, raw = parse_game_spec(game)
        extra = options.pop("game_params", {}) or {}
        made = engines.make(name, **{**raw, **extra})
        specs = tuple(agent_specs)
        # Strength-testing options (arena.tournament.openings, arena.statistics.sprt) arrive as the user wrote them.
        if "openings" in options or "opening_plies" in options:
            text = options.pop("openings", None)
            plies = options.pop("opening_plies", None)
            options["openings"] = text if isinstance(text, Openings) else parse_openings(made, text, plies)
        if isinstance(options.get("time_control"), str):
            options["time_control"] = parse_time_control(options["time_control"])
        if isinstance(options.get("sprt"), str):
            options["sprt"] = Sprt.parse(options["sprt"]).to_dict()
        if isinstance(options.get("adjudication"), str):
            options["adjudication"] = Adjudication.parse(options["adjudication"])
        if options.get("adjudication") is not None:
            options["adjudication"] = options["adjudication"].for_game(made)
        made_agents = [agents.make_agent(spec) for spec in specs]
        for agent in made_agents:
            agent.check_game(made)
        # Plugins loaded from Python (agents.load_plugin) that define these agents or the game
        # are recorded too: worker processes that do not fork, and Ray actors, must load them.
        options["plugins"] = tuple(dict.fromkeys(named + tuple(plugins_defining([made, *made_agents]))))
        options["ugi_engines"] = engine_definitions_used(made_agents)
        return cls(game=made.name, game_params=dict(made.params), agents=specs, **options)

    def make_game(self) -> engines.Game:
        """The game with its parameters (a new object each call: a worker makes it once)."""
        return engines.make(self.game, **self.game_params)

    def describe(self) -> str:
        """The settings in one line, as reports and plots head them: ``kalah (pits=6, ...); 2
        agents, 100 games per pairing, seed 0``."""
        params = ", ".join(f"{k}={v}" for k, v in self.make_game().params.items())
        budget = f", {self.move_time:g} s per move" if self.move_time else ""
        budget += f", clock {self.time_control}" if self.time_control else ""
        swap = "" if self.swap else ", no seat swap"
        gauntlet = f", gauntlet of {self.labels[0]}" if self.gauntlet else ""
        openings = f", openings {self.openings.label}" if self.openings else ""
        adjudication = f", adjudication {self.adjudication.spec}" if self.adjudication else ""
        most = "at most " if self.sprt else ""
        return (
            f"{self.game} ({params}); {len(self.agents)} agents, {most}{self.games} games per pairing, "
            f"seed {self.seed}{budget}{swap}{gauntlet}{openings}{adjudication}"
        )

    # -- persistence ---------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The settings as a run's database stores them: plain JSON values, in the layout of
        every version so far (``openings`` as its spec, ``random:N`` or ``file:NAME sha1:...``,
        and the file's ``opening_lines`` beside it), so that earlier runs load, resume and keep
        their default folder."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["game_params"] = dict(self.game_params)
        data["sprt"] = None if self.sprt is None else dict(self.sprt)
        data["openings"] = None if self.openings is None else self.openings.spec
        data["opening_lines"] = () if self.openings is None else self.openings.lines
        if self.tc_margin == _TC_MARGIN:  # stored only when set, so that earlier runs' settings read the same
            del data["tc_margin"]
        if self.time_control is None:  # likewise
            del data["time_control"]
        else:
            data["time_control"] = self.time_control.spec
        if self.adjudication is None:  # likewise
            del data["adjudication"]
        else:
            data["adjudication"] = self.adjudication.spec
        if not self.ugi_engines:  # likewise
            del data["ugi_engines"]
        else:
            data["ugi_engines"] = [dict(engine) for engine in self.ugi_engines]
        return data

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON (what the run's database holds)."""
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "TournamentSettings":
        """The settings :meth:`to_json` wrote, by this or an earlier version.

        Raises:
            ValueError, TypeError, KeyError: text that no version wrote.
        """
        data = json.loads(text)
        data["agents"] = tuple(data["agents"])
        data["labels"] = tuple(data["labels"])
        if "plugins" in data:
            data["plugins"] = tuple(data["plugins"])
        if "ugi_engines" in data:
            data["ugi_engines"] = tuple(data["ugi_engines"])
        if data.get("time_control") is not None:
            data["time_control"] = parse_time_control(data["time_control"])
        if data.get("adjudication") is not None:
            data["adjudication"] = Adjudication.parse(data["adjudication"])
        spec, lines = data.pop("openings", None), data.pop("opening_lines", ())
        data["openings"] = None if spec is None else Openings.from_spec(spec, lines)
        return cls(**data)

    def differences(self, other: "TournamentSettings") -> list[str]:
        """The fields that differ, as ``name: this vs other``."""
        mine, theirs = self.to_dict(), other.to_dict()
        for data in (mine, theirs):
            data.setdefault("tc_margin", _TC_MARGIN)
            data.setdefault("time_control", None)
            data.setdefault("adjudication", None)
            data.setdefault("ugi_engines", [])
        return [f"{k}: {_short(mine[k])} vs {_short(theirs[k])}" for k in mine if mine[k] != theirs[k]]

    def default_out_dir(self) -> str:
        """``arena-runs/<game>-<agents>-<hash>``: the same settings give the same folder, so that
        running the same command again resumes the run (and with more games, extends it)."""
        names = "-".join(re.sub(r"[^A-Za-z0-9]+", "", spec.split(":")[0]) for spec in self.agents)
        if len(names) > 40:
            names = f"{names[:32]}-{len(self.agents)}agents"
        # The number of games is left out, so that the same command with more games grows the run.
        # Strength-testing fields left at their defaults are left out too, so that runs made
        # before they existed keep their folder.
        identity = {
            k: v for k, v in self.to_dict().items() if k != "games" and not (k in _STRENGTH_DEFAULTS and v == _STRENGTH_DEFAULTS[k])
        }
        digest = hashlib.sha1(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:8]
        return os.path.join("arena-runs", f"{self.game}-{names}-{digest}")

    # -- schedule ------------------------------------------------------------------------------

    @property
    def pairings(self) -> list[tuple[int, int]]:
        """The pairs of agent indices that play each other, in schedule order."""
        n = len(self.agents)
        if self.gauntlet:
            return [(0, j) for j in range(1, n)]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    @property
    def max_batch(self) -> int | None:
        """The most games a worker is sent at once when the run sets a limit: one pair under an
        SPRT, so that few games are in flight when it decides (fast games otherwise travel by
        the dozen, and all of them would be played out)."""
        return 2 if self.sprt else None

    @property
    def total_games(self) -> int:
        """Games in the whole run: ``games`` for each pairing."""
        return self.games * len(self.pairings)

    def pair_index(self, game_id: int) -> int:
        """The pair (of seat-swapped games, or the game without swaps) of a game id, counted per
        pairing: the games of one round of the schedule share it."""
        round_ = game_id // len(self.pairings)
        return round_ // 2 if self.swap else round_

    def start_position(self, scheduled: ScheduledGame, game: engines.Game) -> tuple[engines.State, list[tuple[int, str]]]:
        """The state a scheduled game starts from, after its opening (arena.tournament.openings), and the
        opening's plies as (the player who moved, the move in notation); ``game`` is
        :meth:`make_game`'s."""
        state = game.new_initial_state(scheduled.game_seed)
        if self.openings is None:
            return state, []
        # The start seed is the same for both games of a pair: so is the opening.
        return state, self.openings.play(state, self.pair_index(scheduled.id), derive_seed(scheduled.game_seed, "opening"))

    def schedule(self) -> Iterator[ScheduledGame]:
        """Every game of the round robin, lazily, in a fixed order: round by round over the
        pairings, so that a run extended with more games keeps every game id and seed it had."""
        return (self.scheduled_game(game_id) for game_id in range(self.total_games))

    def seats(self, game_id: int) -> tuple[int, int]:
        """The agent indices in seat 0 and seat 1 of game ``game_id`` (no seed drawn: quick)."""
        pairings = self.pairings
        k, p = divmod(game_id, len(pairings))
        i, j = pairings[p]
        return (j, i) if self.swap and k % 2 else (i, j)

    def scheduled_game(self, game_id: int) -> ScheduledGame:
        """Game ``game_id`` of :meth:`schedule`, computed on its own.

        Raises:
            ValueError: the run has no game ``game_id``.
        """
        if not 0 <= game_id < self.total_games:
            raise ValueError(f"the run has games 0 to {self.total_games - 1}, not {game_id}")
        pairings = self.pairings
        p = game_id % len(pairings)
        game_seed = derive_seed(self.seed, "start", p, self.pair_index(game_id))
        agent_seeds = (derive_seed(self.seed, "agent", game_id, 0), derive_seed(self.seed, "agent", game_id, 1))
        return ScheduledGame(game_id, pairings[p], self.seats(game_id), game_seed, agent_seeds)


#: The default time margin (TournamentSettings.tc_margin), left out of the stored settings.
_TC_MARGIN = 1.0

#: The strength-testing fields (openings, SPRT, gauntlet, plugins) and the values a stored run without them reads.
_STRENGTH_DEFAULTS = {"openings": None, "opening_lines": (), "sprt": None, "gauntlet": False, "plugins": (),
                      "ugi_engines": ()}


def _short(value: object, limit: int = 80) -> str:
    """A setting's value in a message: its repr, cut (an openings file's sequences are long)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _labels(specs: Iterable[str]) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(labels)
