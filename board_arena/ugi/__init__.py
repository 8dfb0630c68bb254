"""UGI, the Universal Game Interface (cutegames' ``ugi.md``: UCI generalised to any two-player
game of sequential moves), spoken both ways: our agents as UGI engines (``arena engine``,
:mod:`board_arena.arena.cli.engine`) and external engine programs as agents in the arena.

:mod:`.protocol` parses and formats the commands both sides use (``position``, ``go``, ``info``,
``query``, ``option``) and holds the score scale; :mod:`.dominoes` is the ``position deal``
extension that tells a Dominoes engine only what its seat sees. ``docs/protocol.md`` describes
the protocol as this package reads it.
"""

from board_arena.ugi.protocol import (
    UGIError,
    go_limit,
    info_line,
    parse_info,
    parse_position,
    position_line,
    query_response,
    score_value,
    score_words,
    state_from_position,
    tokens,
)

__all__ = [
    "UGIError",
    "tokens",
    "parse_position",
    "position_line",
    "state_from_position",
    "go_limit",
    "info_line",
    "parse_info",
    "score_words",
    "score_value",
    "query_response",
]
