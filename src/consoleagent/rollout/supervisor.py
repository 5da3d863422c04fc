"""A deadline around one episode, so a hung episode ends as ``env_error`` and returns its account.

Every step of the environment is already bounded (element actions, navigation, settling, ``wait``
and the task's own time limit), and LLM calls carry timeouts; the deadline catches what slips
through, such as a browser that stops answering. It uses SIGALRM, so it works in the main thread
of a worker process (where rollout workers run); elsewhere it is a no-op and the lease's TTL is
the backstop (the account returns to the pool when the lease expires).
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator


class EpisodeDeadline(Exception):
    """The episode ran past its deadline."""


@contextmanager
def deadline(seconds: float | None) -> Iterator[bool]:
    """Raise EpisodeDeadline in the block after ``seconds``; yields whether the deadline is armed."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield False
        return

    def expire(signum: int, frame: object) -> None:
        raise EpisodeDeadline(f"the episode ran past its {seconds:.0f}s deadline and was stopped")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
