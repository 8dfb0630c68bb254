"""UGI, the Universal Game Interface (cutegames' ``ugi.md``: UCI generalised to any two-player
game of sequential moves), spoken both ways: our agents as UGI engines (:mod:`.engine`, which
``arena engine`` runs) and engine programs as agents of the arena (the host, :mod:`.host`).

:mod:`.protocol` parses and formats the lines both sides use (``position``, ``go``, ``info``,
``query``, ``option``), holds the score scale and writes a seat's ``position`` command
(:func:`.protocol.position_line`); :mod:`.dominoes` is the ``position deal`` extension that tells
a Dominoes engine only what its seat sees. ``docs/protocol.md`` describes the protocol as this
package reads it. Nothing is imported here: each side imports the module it needs.
"""
