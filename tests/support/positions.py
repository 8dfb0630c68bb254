"""Positions that several test modules set up."""

RUNNING_MILL = dict(white="a7 d7 g7 e4 f4", black="b6 c5 c3 e3 d2 a1")
"""Morabaraba (``Game.position`` keywords): White's mill a7-d7-g7; g7-g4 breaks it and closes
e4-f4-g4, and g4-g7 would close a7-d7-g7 again: a "running mill".

::

    7  W-----------W-----------W
    6  |   B-------.-------.   |
    5  |   |   B---.---.   |   |
    4  .---.---.       W---W---.
    3  |   |   B---.---B   |   |
    2  |   .-------B-------.   |
    1  B-----------.-----------.
"""
