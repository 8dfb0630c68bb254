"""Files of one array with a header that proves them: endgame databases and opening books.

A file is a 4096-byte header, then the array's bytes. The header is a line of magic words, then
one JSON object: what the file is (``kind``, ``version``), what it is for (the game variant and
its size: fields of the writer's choosing), and what it holds (``dtype``, ``entries``, the
``crc32`` of the array's bytes). :func:`read` checks every one of them against what the reader
expects, so that a file that is empty, truncated, edited, of another format version, of another
game or not ours at all is refused with one line (:class:`DataFileError`) instead of answering
wrongly. The header is text: ``head -c 4096 FILE`` shows what a file is.

:func:`write` writes a file of its own name beside the target (``NAME.tmp-PID``) and renames it
into place, so that a reader never sees half a file and processes writing the same file at once
each publish a whole one; the partial file is removed when writing fails or is interrupted, and
:func:`remove_stale_partials` removes those of processes that died before they could.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["DataFileError", "write", "read", "read_header", "remove_stale_partials", "cache_root", "HEADER_BYTES"]

MAGIC = b"board-arena data file\n"
HEADER_BYTES = 4096
# The checksum is computed in slices: each call releases the interpreter lock, and Ctrl-C is
# seen between them.
_CRC_SLICE = 1 << 26


class DataFileError(ValueError):
    """A file that cannot be used: its one-line message says which file, what is wrong with it
    and what to do."""


def cache_root() -> Path:
    """Where computed data is kept: ``$BOARD_ARENA_CACHE`` or the user's cache folder."""
    root = os.environ.get("BOARD_ARENA_CACHE")
    if root:
        return Path(root)
    return Path(os.path.expanduser("~")) / ".cache" / "board-arena"


def _crc32(array: np.ndarray) -> int:
    data = memoryview(np.ascontiguousarray(array).view(np.uint8).reshape(-1).data)
    crc = 0
    for start in range(0, len(data), _CRC_SLICE):
        crc = zlib.crc32(data[start:start + _CRC_SLICE], crc)
    return crc


def _partial_name(path: Path, pid: int) -> Path:
    return path.with_name(f"{path.name}.tmp-{pid}")


def write(path: Path, kind: str, version: int, fields: dict[str, Any], array: np.ndarray) -> None:
    """Writes ``array`` (one-dimensional) to ``path`` under a header naming ``kind``, ``version``
    and ``fields`` (JSON values), through a partial file renamed into place.

    Raises:
        OSError: the folder cannot be written (nothing is left behind).
    """
    array = np.ascontiguousarray(array)
    header = {"kind": kind, "version": version, **fields, "dtype": np.lib.format.dtype_to_descr(array.dtype),
              "entries": int(len(array)), "crc32": _crc32(array)}
    text = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n"
    if len(text) > HEADER_BYTES:
        raise ValueError(f"the header of {path.name} is longer than {HEADER_BYTES} bytes")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = _partial_name(path, os.getpid())
    try:
        with open(partial, "wb") as out:
            out.write(text.ljust(HEADER_BYTES, b" "))
            array.tofile(out)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def read_header(path: Path, kind: str) -> dict[str, Any]:
    """The header of ``path`` if it is a file of ``kind``.

    Raises:
        FileNotFoundError: there is no such file.
        DataFileError: ``path`` is a folder, empty, shorter than a header, or not a file of ``kind``.
    """
    if path.is_dir():
        raise DataFileError(f"{path} is a folder, not a {kind} file")
    with open(path, "rb") as source:
        head = source.read(HEADER_BYTES)
    if not head:
        raise DataFileError(f"{path} is empty, not a {kind} file")
    if not head.startswith(MAGIC):
        raise DataFileError(f"{path} is not a {kind} file (it does not start with {MAGIC.decode().strip()!r})")
    if len(head) < HEADER_BYTES:
        raise DataFileError(f"{path} is truncated: {len(head)} bytes, shorter than its header")
    try:
        header = json.loads(head[len(MAGIC):].split(b"\n", 1)[0])
    except ValueError:
        raise DataFileError(f"{path} has a damaged header") from None
    if not isinstance(header, dict) or header.get("kind") != kind:
        found = header.get("kind") if isinstance(header, dict) else None
        raise DataFileError(f"{path} is a {found or 'different'} file, not a {kind} file")
    return header


def read(path: Path, kind: str, version: int, expect: dict[str, Any], dtype: np.dtype) -> np.ndarray:
    """The array of ``path``, after checking its header against ``kind``, ``version``, the
    ``expect``ed fields and ``dtype``, its size against the header's entries and its bytes
    against the header's checksum.

    Raises:
        FileNotFoundError: there is no such file.
        DataFileError: the file fails a check (the message names the first).
    """
    header = read_header(path, kind)
    if header.get("version") != version:
        raise DataFileError(f"{path} is a {kind} file of format version {header.get('version')}; "
                            f"this version of board-arena reads version {version}")
    for field, value in expect.items():
        if header.get(field) != value:
            raise DataFileError(f"{path} is a {kind} file for {field}={header.get(field)!r}, not {field}={value!r}")
    try:
        stored = np.lib.format.descr_to_dtype(header["dtype"])
    except (KeyError, TypeError, ValueError):
        stored = None
    if stored != np.dtype(dtype):
        raise DataFileError(f"{path} holds {header.get('dtype')!r} entries, not {np.lib.format.dtype_to_descr(np.dtype(dtype))!r}")
    entries = header.get("entries")
    size = path.stat().st_size
    if not isinstance(entries, int) or entries < 0 or size != HEADER_BYTES + entries * stored.itemsize:
        raise DataFileError(f"{path} is {'truncated' if isinstance(entries, int) and size < HEADER_BYTES + entries * stored.itemsize else 'damaged'}: "
                            f"{size:,} bytes where its header announces {entries} entries")
    array = np.fromfile(path, dtype=stored, count=entries, offset=HEADER_BYTES)
    if _crc32(array) != header.get("crc32"):
        raise DataFileError(f"{path} is damaged: its contents do not match the checksum in its header")
    return array


_PARTIAL = re.compile(r"\.tmp-(\d+)$")


def remove_stale_partials(path: Path) -> list[Path]:
    """Removes the partial files of ``path`` (``NAME.tmp-PID``) whose writer is no longer
    running (killed before it could clean up); returns them."""
    removed: list[Path] = []
    if not path.parent.is_dir():
        return removed
    for candidate in path.parent.glob(f"{path.name}.tmp-*"):
        match = _PARTIAL.search(candidate.name)
        if match is None or _is_running(int(match.group(1))):
            continue
        try:
            candidate.unlink()
            removed.append(candidate)
        except OSError:
            pass
    return removed


def _is_running(pid: int) -> bool:
    if pid == os.getpid() or os.name == "nt":  # Windows: os.kill(pid, 0) would end the process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process, or a platform without signals: leave its file
    return True
