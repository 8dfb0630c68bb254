"""A UGI session with ``arena engine``, as a transcript: each line sent (``> ``) and each reply
(``< ``), one command at a time (the next is sent once the engine has answered: ``ugiok``,
``readyok``, ``response``, ``bestmove``). docs/protocol.md shows one.

    python experiments/ugi_session.py                                   # kalah, alphabeta:depth=6
    python experiments/ugi_session.py --game konane --agent mcts:iterations=500 --seed 2

The lines sent are :data:`SCRIPT`, or the ``--send`` options in order; in a line, ``{played}``
stands for the moves the engine has chosen so far, and ``{start}`` for the variant's start
(``startpos``, or ``fen F`` where the start is drawn at random: ``--start-seed`` draws it).
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from board_arena import engines

#: The default session: the handshake, a search from the start, the move played, queries.
SCRIPT = (
    "ugi",
    "isready",
    "uginewgame",
    "position {start}",
    "query p1turn",
    "go depth 6",
    "position {start} moves {played}",
    "query p1turn",
    "go nodes 5000",
    "position {start} moves {played}",
    "query gameover",
    "query result",
    "quit",
)
#: The reply that ends the engine's answer to each command that has one.
ANSWERS = {"ugi": "ugiok", "isready": "readyok", "query": "response", "go": "bestmove"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="kalah")
    parser.add_argument("--agent", default="alphabeta:depth=6")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--start-seed", type=int, default=1, help="the seed of a random start (Konane's openings)")
    parser.add_argument("--send", action="append", help="a line to send (repeatable; default: the session above)")
    args = parser.parse_args(argv)
    name, _, raw = args.game.partition(":")
    params = dict(item.split("=", 1) for item in raw.split(",") if item)
    game = engines.make(name, **params)
    start = f"fen {game.new_initial_state(args.start_seed).fen()}" if game.random_start else "startpos"
    engine = subprocess.Popen(
        [sys.executable, "-m", "board_arena.arena.cli", "engine", "--game", args.game, "--agent", args.agent, "--seed", args.seed],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1,
    )
    assert engine.stdin is not None and engine.stdout is not None
    played: list[str] = []
    for template in args.send or SCRIPT:
        line = template.format(start=start, played=" ".join(played)).rstrip()
        if line.endswith(" moves"):
            line = line[: -len(" moves")]
        print(f"> {line}", flush=True)
        engine.stdin.write(line + "\n")
        engine.stdin.flush()
        answer = ANSWERS.get(line.split()[0])
        while answer is not None:
            reply = engine.stdout.readline()
            if not reply:
                break
            reply = reply.rstrip("\n")
            print(f"< {reply}", flush=True)
            if reply.split()[:1] == [answer]:
                if answer == "bestmove" and reply.split()[1] != "(none)":
                    played.append(reply.split()[1])
                break
    engine.stdin.close()
    return engine.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(main())
