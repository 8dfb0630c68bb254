"""Games written outside the package, as a user would (see README, "Adding a game")."""
