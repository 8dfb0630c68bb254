"""Output files: checked before the work that fills them starts, and written whole or not at all
(a full disk or a kill leaves the previous file, never a truncated one).

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = check_writable(os.path.join(folder, "table.md"), "--out")
    >>> write_text_whole(path, "| m | n |\\n")
    >>> open(path).read()
    '| m | n |\\n'
    >>> check_writable(os.path.join(folder, "missing", "table.md"), "--out")
    Traceback (most recent call last):
    ...
    ValueError: --out: cannot write ...: the folder ... does not exist
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from typing import IO, Iterator

__all__ = ["check_writable", "write_text_whole", "open_whole"]


def check_writable(path: str | os.PathLike[str], option: str) -> str:
    """``path`` as a string, once it is known that a file can be written there: its folder
    exists and takes a new file, and ``path`` is not a folder. Nothing is left behind.

    Args:
        path: the file to write.
        option: how the user named it (``--out``), for the message.

    Raises:
        ValueError: one line saying why the file cannot be written.
    """
    text = os.fspath(path)
    if not text:
        raise ValueError(f"{option}: give a file name, not an empty one")
    folder = os.path.dirname(os.path.abspath(text))
    if os.path.isdir(text):
        raise ValueError(f"{option}: cannot write {text}: it is a folder (give a file name)")
    if not os.path.isdir(folder):
        raise ValueError(f"{option}: cannot write {text}: the folder {folder} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-", suffix=".tmp"):
            pass  # a file can be made there (deleted at once)
    except OSError as error:
        raise ValueError(f"{option}: cannot write {text}: {error.strerror or error}") from None
    if os.path.exists(text) and not os.access(text, os.W_OK):
        raise ValueError(f"{option}: cannot write {text}: it is read-only")
    return text


def write_text_whole(path: str | os.PathLike[str], text: str) -> None:
    """Writes ``text`` to ``path`` whole or not at all (see :func:`open_whole`).

    Raises:
        OSError: the file cannot be written (the previous one, if any, is left as it was).
    """
    with open_whole(path) as handle:
        handle.write(text)


@contextmanager
def open_whole(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """A text file to write ``path`` with: a temporary file beside it, renamed into place when
    the block ends without an exception, and removed otherwise.

    Raises:
        OSError: the file cannot be written (the previous one, if any, is left as it was).
    """
    target = os.fspath(path)
    handle = tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=os.path.dirname(os.path.abspath(target)), prefix=".partial-", suffix=".tmp", delete=False
    )
    try:
        with handle:
            yield handle
        os.chmod(handle.name, 0o666 & ~_umask())  # as open() would have made it, not 0600
        os.replace(handle.name, target)
    finally:
        if os.path.exists(handle.name):
            os.unlink(handle.name)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
