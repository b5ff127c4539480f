"""Crash points: named places where a crash test can kill this process on purpose.

``CALICO_CRASH_AT=<name>`` in the environment makes :func:`crash_point` with that name send
SIGKILL to its own process, exactly there: no cleanup, no flush, like a host killing the bot or
the machine losing power between two steps. The crash tests (``tests/e2e/test_crashes.py``)
start the bot as a subprocess with it set, then start it again without it and check that
nothing was lost nor posted twice. Unset (always, outside those tests), a crash point is a
dictionary lookup.
"""

from __future__ import annotations

import os
import signal

ENV = "CALICO_CRASH_AT"
_TARGET = os.environ.get(ENV)


def crash_point(name: str) -> None:
    """Die here if this is the crash point the environment names."""
    if _TARGET is not None and name == _TARGET:
        os.kill(os.getpid(), signal.SIGKILL)
