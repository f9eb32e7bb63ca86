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


class _AllWorkers(ProcessPoolExecutor):
    """A pool whose workers all start with the first task.

    CPython starts spawned workers on demand, one when no worker is idle by its count; that
    count lags, so while one worker runs a long search a quick move may be handed to it as well
    and wait the search out, though a second worker is allowed. The bot pool's fairness
    (fairshare.FairPool keeps a worker free for other visitors) needs every worker there.
    """

    def _adjust_process_count(self) -> None:
        processes, spawn = getattr(self, "_processes", None), getattr(self, "_spawn_process", None)
        if processes is None or spawn is None:  # another Python's pool: its own way
            super()._adjust_process_count()  # type: ignore[misc]
            return
        while len(processes) < self._max_workers:  # type: ignore[attr-defined]
            spawn()


def bot_process_pool(workers: int) -> ProcessPoolExecutor:
    """Spawned workers (forking a process that runs threads is unsafe) tied to this process."""
    return _AllWorkers(workers, mp_context=multiprocessing.get_context("spawn"),
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
