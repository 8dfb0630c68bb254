"""The error of UGI commands, in a module of its own so that the protocol and its Dominoes
extension, which each need the other's functions, both raise it without importing each other at
their tops."""

__all__ = ["UGIError"]


class UGIError(ValueError):
    """A UGI command that is malformed or does not fit the game (one line: what is wrong and
    the expected form)."""
