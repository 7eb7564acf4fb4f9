"""Ctrl-C and SIGTERM: every command stops the same way, with one line on stderr.

SIGTERM is raised in the main thread as ``Terminated``, a KeyboardInterrupt, so whatever
cleans up after Ctrl-C (temporary files and folders removed, a run's manifest saved) cleans
up after SIGTERM too; the exit status says which it was: 130 (128 + SIGINT) or 143
(128 + SIGTERM), as a shell reports a process killed by the signal.
"""

from __future__ import annotations

import _imp
import _thread
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

import click

from bonken_sim.processes import interrupts_held

INTERRUPTED = 128 + signal.SIGINT  # 130
TERMINATED = 128 + signal.SIGTERM  # 143


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C."""


_received: list[int] = []  # SIGTERM seen in this command (a handler may catch Terminated)


def _stop(signum: int, frame: Any) -> None:
    """The handler of SIGINT and SIGTERM: KeyboardInterrupt or Terminated, where it is safe.

    Never inside an import, nor inside a section that holds interrupts
    (``processes.held_interrupts``: a figure being drawn, a cleanup), nor inside the hook
    of ``_unraisable``: the signal is delivered again 5 ms later instead, until the import,
    the section or the hook is done. The import system takes its global lock in a few
    places just before the ``try`` that releases it; an exception raised there leaves the
    lock held, and every later import (the cleanup's, a worker pool's) waits for ever. And
    an interrupt raised while a module runs its top level is lost or disguised: a C
    extension's initialisation turns it into ``ImportError: initialization failed``
    (matplotlib's ft2font, in a report stopped while it imports), which a library that
    tries an optional import swallows, so that the command carried on as if it had not
    been stopped.

    A delivery again is dropped while SIGINT is ignored (``_thread.interrupt_main`` does
    nothing then), so no command ignores Ctrl-C before it has taken one: where a child
    process must not see it, SIGINT is blocked around its start instead
    (``report.page.pool.start_forkserver``)."""
    if _imp.lock_held() or _in_import_or_hook(frame) or interrupts_held():
        _deliver_later(signum)
        return
    if signum == signal.SIGTERM:
        _received.append(signum)
        raise Terminated
    raise KeyboardInterrupt


def _in_import_or_hook(frame: Any) -> bool:
    """Whether the main thread, stopped at ``frame``, is inside an import (the import
    system's own frames are on its stack) or inside the hook of ``_unraisable``, where an
    interrupt raised is ignored (the hook's own delivery again can come before the hook
    has returned, on a loaded machine: the new thread runs before the hook's wait for its
    start is over)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib._bootstrap"):
            return True
        if frame.f_code is _HOOK_CODE:
            return True
        frame = frame.f_back
    return False


def _deliver_later(signum: int) -> None:
    """Deliver ``signum`` to the main thread again in 5 ms, from another thread: the
    handler then runs where the main thread is by then."""
    retry = threading.Timer(0.005, _thread.interrupt_main, (signum,))
    retry.daemon = True
    retry.start()


def _unraisable(hook: Any) -> Any:
    """``sys.unraisablehook`` that gives an interrupt back to the main thread.

    An interrupt that lands in a weakref callback or a finalizer (the import system has
    some) cannot propagate: Python prints "Exception ignored in ..." and carries on. It is
    delivered again instead, to stop the command where it can: later, not now, for the
    hook runs in the main thread too, and an interrupt raised inside the hook is ignored
    in turn (one delivered again before the hook has returned waits once more:
    ``_in_import_or_hook``)."""

    def on_unraisable(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            terminated = isinstance(unraisable.exc_value, Terminated)
            _deliver_later(signal.SIGTERM if terminated else signal.SIGINT)
            return
        hook(unraisable)

    return on_unraisable


_HOOK_CODE = _unraisable(None).__code__  # every hook _unraisable makes runs this code


@contextlib.contextmanager
def interrupts_handled() -> Iterator[None]:
    """While a command runs, Ctrl-C raises KeyboardInterrupt and SIGTERM ``Terminated`` in
    the main thread (see ``_stop``), and an interrupt Python would ignore is delivered again
    (see ``_unraisable``). Not in another thread: signals are handled in the main thread
    only, and the defaults are kept. A SIGINT ignored on entry (a background job) stays
    ignored."""
    _received.clear()
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old_int = signal.getsignal(signal.SIGINT)
    if old_int is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _stop)
    old_term = signal.signal(signal.SIGTERM, _stop)
    old_hook = sys.unraisablehook
    sys.unraisablehook = _unraisable(old_hook)
    try:
        yield
    finally:
        sys.unraisablehook = old_hook
        signal.signal(signal.SIGTERM, old_term)
        if old_int is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, old_int)


def exit_status() -> int:
    """The exit status of the command stopped by an interrupt: 143 after SIGTERM, else 130.

    A SIGTERM handler installed by the work itself (a run saves its manifest on SIGTERM as on
    Ctrl-C) hides the signal from this one: such a stop counts as Ctrl-C.
    """
    return TERMINATED if _received else INTERRUPTED


def say(text: str) -> None:
    """``bonken-sim: text`` as the only line on stderr; on a terminal the ``^C`` it echoed
    (and any progress bar) is wiped first, so the line stands alone."""
    wipe = "\r\033[K" if _isatty(sys.stderr) else ""
    click.echo(f"{wipe}bonken-sim: {text}", err=True)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # replaced or closed
        return False
