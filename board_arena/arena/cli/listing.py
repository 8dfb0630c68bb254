"""``arena list``: the games and agents with their parameters and defaults.

(The module is not called ``list``: importing it would set ``list`` in the package's namespace,
hiding the builtin there.)
"""

from __future__ import annotations

import argparse

from board_arena.arena.cli.options import add_plugin_option

__all__ = ["add_parser", "handle", "LIST_WIDTH"]

#: ``arena list`` lines fit this many columns.
LIST_WIDTH = 100


def add_parser(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """The ``list`` command and its options."""
    listing = commands.add_parser(
        "list",
        help="games, presets and agents with their parameters",
        description="List the games and agents with their parameters and defaults (NAME: only the games and agents whose name contains it).",
    )
    listing.add_argument("name", nargs="?", metavar="NAME", help="show only the games and agents whose name contains NAME")
    add_plugin_option(listing)
    return listing


def _listing(head: str, text: str) -> list[str]:
    """``head`` then ``text`` wrapped to LIST_WIDTH columns, continuation lines indented."""
    import textwrap

    indent = " " * 32
    return textwrap.wrap(text, LIST_WIDTH, initial_indent=f"{head:<31} ", subsequent_indent=indent) or [head]


def handle(args: argparse.Namespace) -> int:
    """Prints the games and agents whose name contains ``args.name`` (all without one)."""
    from board_arena import agents, engines
    from board_arena.agents.base import format_value

    wanted = (args.name or "").lower()
    games = [name for name in engines.available_games() if wanted in name]
    agent_names = [name for name in agents.available_agents() if wanted in name]
    if not games and not agent_names:
        raise ValueError(
            f"no game or agent name contains {args.name!r}; games: {', '.join(engines.available_games())}; "
            f"agents: {', '.join(agents.available_agents())}"
        )
    lines = []
    if games:
        lines.append("Games (--game NAME[:param=value,...]), parameters with their defaults:")
        for name in games:
            cls = engines.game_class(name)
            preset = cls.PRESETS[name]
            family = f"{cls.family} preset" if name != cls.family else cls.family
            lines += _listing(f"  {name}", f"{cls.summary} [{family}]")
            for p in cls.PARAMS:
                lines += _listing(f"      {p.name}={format_value(preset.get(p.name, p.default))}", f"{p.doc}; {p.allowed()}")
    if agent_names:
        lines += [""] if lines else []
        lines.append("Agents (--agents NAME[:param=value,...]), parameters with their defaults:")
        for name in agent_names:
            agent_cls = agents.agent_class(name)
            hidden = "" if agent_cls.plays_hidden_information else " (perfect-information games)"
            lines += _listing(f"  {name}", f"{agent_cls.summary}{hidden}")
            for p in agent_cls.PARAMS:
                lines += _listing(f"      {p.name}={format_value(p.default)}", f"{p.doc}; {p.allowed()}")
    print("\n".join(lines))
    return 0
