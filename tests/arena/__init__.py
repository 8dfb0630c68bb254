"""The arena: tournaments and their settings, ratings, SPRT and openings, clocks, storage, reports
and verification, the worker pool, isolation and the Ray backend, the ``arena`` command and its
subcommands, and the experiments' scripts built on tournaments."""
