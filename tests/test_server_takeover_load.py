"""What a server does when many players of one table arrive at once (another server died and
its tables' players reconnect here): the table is read from the database once, however many of
its sockets ask for it at the same moment.

The web platform, "A server killed at the peak".
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from server_util import client, create  # noqa: E402


def test_concurrent_loads_of_one_table_read_it_once(tmp_path: Path) -> None:
    with client(f"sqlite:///{tmp_path / 'l.db'}") as c:
        made = create(c, seats=[{"kind": "me"}])  # open seats: nobody drives it meanwhile
        manager = c.app.state.manager
        storage = manager.storage
        table_id = made["id"]
        del manager.tables[table_id]  # as on a server that never had it open
        reads: list[str] = []
        lock = threading.Lock()
        real = storage.snapshot

        def slow_snapshot(tid: str, since: int = 0):  # a networked database: it takes a while
            with lock:
                reads.append(tid)
            time.sleep(0.1)
            return real(tid, since)

        storage.snapshot = slow_snapshot
        storage.inline = False  # storage calls in threads, as on PostgreSQL: the gets overlap

        async def arrive() -> list:
            return await asyncio.gather(*(manager.get(table_id) for _ in range(6)))

        try:
            tables = c.portal.call(arrive)
        finally:
            storage.inline = True
            storage.snapshot = real
        assert len({id(t) for t in tables}) == 1
        assert reads == [table_id]


def test_sockets_arriving_together_share_a_chat_read_not_yet_begun(tmp_path: Path) -> None:
    """Each socket gets the table's chat after it is attached. Sockets of one table asking while
    a read of it waits for a database thread share that read; one asking after a read began
    gets a read of its own (a message said meanwhile reached only the sockets attached then)."""
    from concurrent.futures import ThreadPoolExecutor

    with client(f"sqlite:///{tmp_path / 'c.db'}") as c:
        chat = c.app.state.services.chat
        storage = chat.storage
        first, second = create(c)["id"], create(c)["id"]
        reads: list[str] = []
        began, go = threading.Event(), threading.Event()
        real = chat._load

        def load(tid: str, message_id: int | None = None):
            reads.append(tid)
            began.set()
            go.wait(10)
            return real(tid, message_id)

        async def arrive() -> list:
            asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(1))
            busy = asyncio.ensure_future(chat._history(first))  # takes the only thread
            while not began.is_set():
                await asyncio.sleep(0.01)
            together = [asyncio.ensure_future(chat._history(second)) for _ in range(3)]
            late = asyncio.ensure_future(chat._history(first))  # that read has begun
            await asyncio.sleep(0.05)
            go.set()
            return await asyncio.gather(busy, late, *together)

        chat._load, storage.inline = load, False
        try:
            c.portal.call(arrive)
        finally:
            chat._load, storage.inline = real, True
        assert sorted(reads) == sorted([first, first, second])
