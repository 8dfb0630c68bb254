"""Games written outside the package, as a user would (see docs/extending/games.md)."""
