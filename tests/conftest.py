"""The whole suite runs with tic-tac-toe registered beside the built-in games: a game written
outside the package (tests/games/tictactoe) that every test over "every game" then covers."""

import tests.games.tictactoe  # noqa: F401  (registers the game)
