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
    # its own announcement of the table (``hello``), then the two messages above
    assert heard["received"] == [3]


async def _sharing() -> dict[str, object]:
    """Two buses, as two servers: what each publishes about a table as it opens and closes."""
    seen: dict[str, list] = {"a": [], "b": []}
    a, b = RedisBus(REDIS), RedisBus(REDIS)

    async def on_a(message):
        seen["a"].append(message)
        if message.get("hello"):  # what TableManager.on_bus answers
            a.send({"table": message["table"], "version": 5})

    async def on_b(message):
        seen["b"].append(message)

    table = uuid.uuid4().hex
    out: dict[str, object] = {}
    await a.start(on_a)
    await b.start(on_b)
    try:
        await a.watch(table)  # a's hello reaches nobody else
        await asyncio.sleep(0.2)
        await a.publish({"table": table, "version": 1})  # unknown yet: sent, heard by a alone
        out["alone_after_first"] = table in a.shared
        sent = a.published_messages
        await a.publish({"table": table, "version": 2})
        await a.publish({"table": table, "version": 3})
        out["sent_alone"] = a.published_messages - sent  # nobody else has it open: nothing
        await b.watch(table)  # b opens it: a hears the hello and answers with its version
        await asyncio.sleep(0.3)
        out["a_shares"] = table in a.shared
        out["b_heard_version"] = [m.get("version") for m in seen["b"]]
        await a.publish({"table": table, "version": 6})
        await b.publish({"table": table, "version": 7})
        await asyncio.sleep(0.3)
        out["b_heard"] = [m.get("version") for m in seen["b"]]
        out["a_heard"] = [m.get("version") for m in seen["a"] if not m.get("hello")]
        b.unwatch(table)  # b lets it go: a's next publish reaches only a, then a stops
        await asyncio.sleep(0.3)
        await a.publish({"table": table, "version": 8})
        sent = a.published_messages
        await a.publish({"table": table, "version": 9})
        out["sent_after_b_left"] = a.published_messages - sent
        out["a_shares_after"] = table in a.shared
    finally:
        await a.stop()
        await b.stop()
    return out


def test_a_table_open_on_one_server_costs_no_redis_traffic():
    out = asyncio.run(_sharing())
    assert out["alone_after_first"] is False
    assert out["sent_alone"] == 0
    # a second server opening the table is answered with the first one's version at once, so
    # it reads the database again if a move it did not hear happened after its read
    assert out["a_shares"] is True
    assert out["b_heard_version"] == [5]
    assert out["b_heard"] == [5, 6]
    assert out["a_heard"] == [7]
    assert out["sent_after_b_left"] == 0
    assert out["a_shares_after"] is False
