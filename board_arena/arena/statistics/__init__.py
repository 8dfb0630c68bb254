"""The statistics of results, apart from how the games were played: joint Elo ratings with their
intervals (:mod:`.ratings`) and the sequential test of a match on game pairs (:mod:`.sprt`).

Importing this package loads nothing; its modules are imported on their own.
"""
