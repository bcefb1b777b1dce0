"""A time budget per request: work that runs past it stops with a clear error, not a dead worker.

Every accepted answer scores in bounded time (the bounds live with the questions and the
figures; tests/test_bounded.py draws their extremes). This is the second line: should some
answer still take long (a bug, a slow machine), the request stops at its budget with a page
or a JSON body that says so, well before gunicorn's timeout kills the worker and takes the
requests queued behind it down too.

The budget is a SIGALRM timer, so it applies where the request runs in the process's main
thread (gunicorn's sync workers, as compose runs them); elsewhere (a threaded development
server, a Celery pool thread) the request runs unbudgeted, as before.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class TooSlow(Exception):
    """The work ran past its time budget and was stopped."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"stopped after its time budget of {seconds:g} s")
        self.seconds = seconds


_active = threading.local()


def can_budget() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Raise TooSlow inside the block once `seconds` have passed (None or 0: no budget; a
    budget inside another keeps the outer one)."""
    if not seconds or seconds <= 0 or not can_budget() or getattr(_active, "on", False):
        yield
        return

    def expire(_signum: int, _frame: object) -> None:
        raise TooSlow(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    _active.on = True
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _active.on = False
