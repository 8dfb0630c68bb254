"""The tournament core: what a tournament is, how its games are played, and what is kept of them.

- what to play: :mod:`.settings` (one dataclass and the schedule it implies), :mod:`.openings`
  (the moves before the agents take over), :mod:`.clock` (game clocks);
- where and how the games are played: :mod:`.worker` (the game player), :mod:`.pool` (the
  scheduler and its local backends), :mod:`.cluster` (the Ray backend), :mod:`.run` (a run from
  start to resume, and :class:`~.run.Run`, a run loaded back);
- what is kept: :mod:`.store` (the SQLite database), :mod:`.movelog` (per-move logs),
  :mod:`.verify` (stored games that prove themselves), :mod:`.live` (the games in progress);
- what is made of it: :mod:`.report`, :mod:`.plots`, :mod:`.export`.

The ratings and the sequential test are :mod:`board_arena.arena.statistics`: they know results,
not games. Importing this package loads nothing; its modules are imported on their own.
"""
