"""A server hears only the tables it has open: each table's messages go on its own channel."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from meeple.server.pubsub import OpenTables, RedisBus

REDIS = os.environ.get("MEEPLE_TEST_REDIS_URL")
pytestmark = [pytest.mark.redis,
              pytest.mark.skipif(not REDIS, reason="set MEEPLE_TEST_REDIS_URL")]


async def _exchange() -> dict[str, list]:
    heard: dict[str, list] = {"a": [], "b": []}
    a, b = RedisBus(REDIS), RedisBus(REDIS)

    async def on_a(message):
        heard["a"].append(message)

    async def on_b(message):
        heard["b"].append(message)

    mine, other = uuid.uuid4().hex, uuid.uuid4().hex
    await a.start(on_a)
    await b.start(on_b)
    try:
        tables = OpenTables(a)
        await a.watch(mine)
        tables[mine] = object()
        await b.publish({"table": mine, "version": 1})
        await b.publish({"table": other, "version": 1})  # not open on a
        await b.publish({"table": None, "seated": [7]})  # about no table: every server
        await asyncio.sleep(0.5)
        heard["after_open"] = list(heard["a"])
        del tables[mine]  # a lets the table go
        await asyncio.sleep(0.3)
        await b.publish({"table": mine, "version": 2})
        await asyncio.sleep(0.5)
        heard["received"] = [a.received_messages]
    finally:
        await a.stop()
        await b.stop()
    heard["ids"] = [mine, other]
    return heard


def test_a_server_hears_its_own_tables_and_the_shared_channel_only():
    heard = asyncio.run(_exchange())
    mine, _other = heard["ids"]
    got = [(m.get("table"), m.get("version"), m.get("seated")) for m in heard["after_open"]]
    assert sorted(got, key=str) == sorted([(mine, 1, None), (None, None, [7])], key=str)
    # after the table was let go, its next move did not reach this server at all
    assert [m.get("version") for m in heard["a"] if m.get("table") == mine] == [1]
    assert heard["received"] == [2]
