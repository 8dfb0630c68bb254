"""What the project's command lines share (``arena``, the endgame builder, the experiments'
scripts): a bad argument is one line and status 2, never argparse's usage block.

Kept apart from the subpackages so that a command can parse its arguments before it imports
numba (``arena`` starts on the standard library alone).
"""

from __future__ import annotations

import _thread
import argparse
import difflib
import os
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NoReturn, Sequence

__all__ = [
    "OneLineParser", "positive_int", "int_list", "run_script", "script_status", "interrupts_kept", "interrupt_handled",
    "ignoring_interrupts",
]


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and status 2:
    ``PROG: error: MESSAGE (see PROG --help)``.

        >>> parser = OneLineParser(prog="demo")
        >>> _ = parser.add_argument("--games", type=int)
        >>> parser.parse_args(["--games", "x"])
        Traceback (most recent call last):
        ...
        SystemExit: 2
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        """As argparse's, but an unrecognized argument is reported by the (sub)command that was
        given it, with the nearest option it has: ``arena run: error: unrecognized arguments:
        --gmaes 10; did you mean --games?``."""
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            parser = self._command_parser(namespace)
            message = f"unrecognized arguments: {' '.join(extras)}"
            flags = [word.split("=", 1)[0] for word in extras if word.startswith("-")]
            options = [option for action in parser._actions for option in action.option_strings]
            near = difflib.get_close_matches(flags[0], options, n=1, cutoff=0.6) if flags else []
            parser.error(message + (f"; did you mean {near[0]}?" if near else ""))
        return namespace

    def _command_parser(self, namespace: Any) -> argparse.ArgumentParser:
        """The parser of the subcommand ``namespace`` was parsed for (this one if none)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(namespace, action.dest, None) or "")
                if isinstance(chosen, OneLineParser):
                    return chosen._command_parser(namespace)
        return self


def positive_int(text: str) -> int:
    """An argparse ``type``: a whole number of at least 1 (a count of games, runs, simulations)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or str(value) != text.strip().lstrip("+"):
        raise argparse.ArgumentTypeError(f"give a whole number of at least 1, not {text!r}")
    return value


def int_list(text: str) -> list[int]:
    """An argparse ``type``: whole numbers of at least 1 separated by commas (``1,2``)."""
    try:
        return [positive_int(item) for item in text.split(",")]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"give whole numbers of at least 1 separated by commas, not {text!r}") from None


def run_script(main: Callable[[], int | None], prog: str) -> NoReturn:
    """Runs a script's ``main`` and exits with its status; a ``ValueError`` it raises (what the
    arguments name turned out wrong once read: an unknown game or agent, a value out of range) is
    one line, ``PROG: error: MESSAGE``, and status 2, as argparse's own errors are."""
    try:
        status = main()
    except ValueError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        sys.exit(2)
    sys.exit(status or 0)


def _in_llvmlite(frame: Any) -> bool:
    """Whether ``frame`` or a caller runs llvmlite's Python code, which LLVM calls back from C
    while numba compiles (an exception raised there is printed and dropped by ctypes)."""
    package = sys.modules.get("llvmlite")
    folder = os.path.dirname(getattr(package, "__file__", None) or "") + os.sep
    while folder != os.sep and frame is not None:
        if frame.f_code.co_filename.startswith(folder):
            return True
        frame = frame.f_back
    return False


# Whether interrupts_kept is in effect: a dropped interrupt is sent again only then.
_KEEPING: list[bool] = []


def _send_again_soon() -> None:
    retry = threading.Timer(0.01, _interrupt_again)
    retry.daemon = True
    retry.start()


def _interrupt_again() -> None:
    if not _KEEPING:  # the command is over
        return
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # ignored for a moment: try again after
        _send_again_soon()
        return
    # Sent whatever the handler is now: one that chains to ours (an agent's search) handles it too.
    if hasattr(signal, "pthread_kill"):  # a signal, which also wakes a sleep
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)
    else:
        _thread.interrupt_main()


def _interrupt(signum: int, frame: Any) -> None:
    if _in_llvmlite(frame):
        _send_again_soon()
        return
    raise KeyboardInterrupt


@contextmanager
def interrupts_kept() -> Iterator[None]:
    """Ctrl-C inside raises ``KeyboardInterrupt`` in the main thread, as Python's own handler
    does, but is never lost: ctypes prints and drops an exception that leaves a callback from C
    code, so an interrupt that comes while llvmlite calls numba's hooks (as a kernel compiles)
    would be dropped. An interrupt that comes while llvmlite's code runs is sent again 10 ms later,
    until it comes outside. (Only where Python's own handler is in place, in the main
    thread; it is put back at the end.)"""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, _interrupt)
    _KEEPING.append(True)
    try:
        yield
    finally:
        _KEEPING.clear()
        if signal.getsignal(signal.SIGINT) is _interrupt:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def interrupt_handled() -> None:
    """Call where a ``KeyboardInterrupt`` is caught and the command then ends with a status of its
    own (130 after Ctrl-C, 0 after a game the player quit). CPython marks an interrupt that leaves
    code run by ``exec`` of a text (numba compiles through such code, as do dataclasses: an
    interrupt while a kernel compiles often passes there), and a ``python -m`` command whose mark
    is still set at exit is killed by SIGINT from its own interpreter, caught or not. A shell
    shows that as 130 too, but a program that ran the command sees death by a signal, not the
    status the command chose. An ``exec`` of a text that runs to its end clears the mark."""
    exec("")


def script_status(
    prog: str,
    parse_args: Callable[[Sequence[str] | None], Any],
    run: Callable[[Any], int],
    argv: Sequence[str] | None = None,
    interrupted: str = "interrupted",
) -> int:
    """The status of a script's ``main`` that its tests call: ``run(parse_args(argv))``'s, or
    argparse's for a bad argument; an interrupt is one line, ``PROG: INTERRUPTED``, and status
    130, and a ``ValueError`` one line, ``PROG: MESSAGE``, and status 2."""
    try:
        args = parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    try:
        with interrupts_kept():
            return run(args)
    except KeyboardInterrupt:
        interrupt_handled()
        print(f"{prog}: {interrupted}", file=sys.stderr)
        return 130
    except ValueError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2


@contextmanager
def ignoring_interrupts() -> Iterator[None]:
    """SIGINT ignored inside (in the main thread): for work that an interrupt must not cut short,
    such as stopping the workers, and for starting them (a child inherits the ignore)."""
    if threading.current_thread() is not threading.main_thread():  # signal() works there only
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
