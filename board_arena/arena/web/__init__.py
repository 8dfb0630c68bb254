"""``arena serve``: play any game against an agent in the browser, watch two agents, browse runs.

The server (:mod:`arena.web.server`) is the standard library's threaded HTTP server speaking JSON;
the page is plain HTML/JS/CSS shipped in ``arena/web/static`` (no build step). Every board is
drawn from ``state.board()``; every move goes to the engine in the game's own notation.
"""

from board_arena.arena.web.server import GameServer, make_server, serve

__all__ = ["GameServer", "make_server", "serve"]
