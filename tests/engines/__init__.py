"""The games' rules and what each game carries: the kernels against plain-Python references, the
conformance suite, the board as data, action and observation encodings, why a move is illegal, the
Kalah endgame databases, and a game added from outside the package."""
