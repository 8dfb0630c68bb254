"""The compiled-code layer (``board_arena.kernels``): the kernel cache that never runs stale code,
and the monotonic clock of time budgets."""
