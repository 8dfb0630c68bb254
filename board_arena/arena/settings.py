"""Tournament settings (one dataclass, after fastchess's ``TournamentOptions``), saved beside the
results so that a run can be resumed and its report rebuilt, and the schedule of games they imply.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass, field
from typing import Any, Iterator

from board_arena import agents, engines

__all__ = ["TournamentSettings", "ScheduledGame", "split_agent_list", "parse_game_spec", "derive_seed"]


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
    return agents.parse_spec(text)


def derive_seed(*parts) -> int:
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
    seed reproduces). ``labels`` name the agents in reports (their specs, numbered if repeated).
    """

    game: str
    game_params: dict[str, Any]
    agents: tuple[str, ...]
    games: int = 100
    seed: int = 0
    move_time: float | None = None
    swap: bool = True
    labels: tuple[str, ...] = field(default=())
    #: ``random:N`` or ``file:NAME sha1:...`` (see arena.openings); the file's sequences, as played.
    openings: str | None = None
    opening_lines: tuple[str, ...] = field(default=())
    #: An SPRT of the first agent against the second (arena.sprt.Sprt's fields); ``games`` is
    #: then the most games the match may take.
    sprt: dict | None = None
    #: The first agent plays each of the others, and they do not play each other.
    gauntlet: bool = False
    #: Python files or modules that register agents, loaded by every process of the run.
    plugins: tuple[str, ...] = field(default=())

    def __post_init__(self):
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
        if not self.labels:
            object.__setattr__(self, "labels", _labels(self.agents))
        if self.sprt is not None:
            from board_arena.arena.sprt import Sprt

            Sprt(**self.sprt)  # checks the values
            if len(self.agents) != 2 or not self.swap:
                raise ValueError("--sprt tests one match: it needs exactly two agents and seat swapping (no --noswap)")
        if self.openings and self.openings.startswith("random:"):
            from board_arena.arena.openings import _random_plies

            _random_plies(self.openings)  # checks N
        elif self.openings and not self.opening_lines:
            raise ValueError(f"openings {self.openings!r} without their sequences")

    # -- validation and construction ----------------------------------------------------------

    @classmethod
    def create(cls, game: str, agent_specs, **options: Any) -> "TournamentSettings":
        """Validated settings: ``game`` may carry parameters (``kalah:pits=5``); every agent spec is
        made once, so a bad one fails here with its message, before anything is played."""
        from board_arena.agents.plugins import (
            load_plugins,
            plugin_name,
            plugins_defining,
        )

        # A file is kept by its absolute path: the run resumes from any folder, and the same file
        # named two ways is one run. Loaded first: a plugin may bring the game.
        named = tuple(plugin_name(name) for name in options.get("plugins") or ())
        load_plugins(named)
        name, raw = parse_game_spec(game)
        extra = options.pop("game_params", {}) or {}
        made = engines.make(name, **{**raw, **extra})
        specs = tuple(agent_specs)
        # Strength-testing options (arena.openings, arena.sprt) arrive as the user wrote them.
        from board_arena.arena.openings import resolve_openings

        if "openings" in options or "opening_plies" in options:
            options.update(resolve_openings(made, options.pop("openings", None), options.pop("opening_plies", None)))
        if isinstance(options.get("sprt"), str):
            from board_arena.arena.sprt import Sprt

            options["sprt"] = Sprt.parse(options["sprt"]).to_dict()
        made_agents = [agents.make_agent(spec) for spec in specs]
        for agent in made_agents:
            agent.check_game(made)
        # Plugins loaded from Python (agents.load_plugin) that define these agents or the game
        # are recorded too: worker processes that do not fork, and Ray actors, must load them.
        options["plugins"] = tuple(dict.fromkeys(named + tuple(plugins_defining([made, *made_agents]))))
        return cls(game=made.name, game_params=dict(made.params), agents=specs, **options)

    def make_game(self) -> engines.Game:
        return engines.make(self.game, **self.game_params)

    # -- persistence ---------------------------------------------------------------------------

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "TournamentSettings":
        data = json.loads(text)
        data["agents"] = tuple(data["agents"])
        data["labels"] = tuple(data["labels"])
        for name in ("opening_lines", "plugins"):
            if name in data:
                data[name] = tuple(data[name])
        return cls(**data)

    def differences(self, other: "TournamentSettings") -> list[str]:
        """The fields that differ, as ``name: this vs other``."""
        mine, theirs = asdict(self), asdict(other)
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
            k: v for k, v in asdict(self).items() if k != "games" and not (k in _STRENGTH_DEFAULTS and v == _STRENGTH_DEFAULTS[k])
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
        return self.games * len(self.pairings)

    def schedule(self) -> Iterator[ScheduledGame]:
        """Every game of the round robin, lazily, in a fixed order: round by round over the
        pairings, so that a run extended with more games keeps every game id and seed it had."""
        pairings = self.pairings
        game_id = 0
        for k in range(self.games):
            pair_index, second = divmod(k, 2) if self.swap else (k, 0)
            for p, (i, j) in enumerate(pairings):
                players = (j, i) if second else (i, j)
                game_seed = derive_seed(self.seed, "start", p, pair_index)
                agent_seeds = (derive_seed(self.seed, "agent", game_id, 0), derive_seed(self.seed, "agent", game_id, 1))
                yield ScheduledGame(game_id, (i, j), players, game_seed, agent_seeds)
                game_id += 1


#: The fields added for strength testing (issue 13), with their defaults as stored.
_STRENGTH_DEFAULTS = {"openings": None, "opening_lines": (), "sprt": None, "gauntlet": False, "plugins": ()}


def _short(value, limit: int = 80) -> str:
    """A setting's value in a message: its repr, cut (an openings file's sequences are long)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _labels(specs) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return tuple(labels)
