"""Bot worker processes that end with their server, ``kill -9`` included.

A `ProcessPoolExecutor` worker outlives a server killed with SIGKILL (nobody tells it). Each
worker therefore asks Linux to kill it when its parent dies (``prctl(PR_SET_PDEATHSIG)``), and
also watches its parent's pid (other systems, and the moment between spawn and prctl).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1


def bot_process_pool(workers: int) -> ProcessPoolExecutor:
    """Spawned workers (forking a process that runs threads is unsafe) tied to this process."""
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_tie_to_parent, initargs=(os.getpid(),))


def _tie_to_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(0)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="meeple-parent-watch").start()


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)
