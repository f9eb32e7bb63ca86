"""Pub/sub between servers side by side: "table X changed, read the log".

One server needs nothing (`LocalBus`). Several servers sharing one database use `RedisBus`:
a server that logs a move publishes the table id, the move's number and action and the table's
new version; a server whose copy is exactly one version behind applies the move at once, any
other reads the table from the database. Moves are public (every seat sees the action taken
through its own view); the log stays the truth, and losing a message costs at most the
periodic resync's period (``Presence.resync``).

Each table's messages travel on a channel of its own (``meeple:table:<id>``), and a server
subscribes to the tables it has open (``watch``/``unwatch``), so it receives only what its
sockets and bots need: with N servers each hears about its own tables, not N times the moves.
Messages about no table (the matchmaker's "seated", an account's sockets to close) go on one
shared channel that every server hears.

A table open on one server only (a load balancer hashing the table id puts all its sockets on
one server) costs no Redis traffic at all: a server publishes a table's messages only while
another server may have it open (`RedisBus.shared`). A server opening a table announces it
(``hello``) on the table's channel; a server that has the table open answers with its version,
so the newcomer reads the database again if it read before a move the other server did not yet
publish; and a publish that Redis delivered to no other server ends the sharing.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

Handler = Callable[[dict[str, Any]], Awaitable[None]]
log = logging.getLogger("meeple.server")

CHANNEL = "meeple:tables"  # messages about no table, heard by every server


def table_channel(table_id: str) -> str:
    return f"meeple:table:{table_id}"


def channel_of(message: dict[str, Any]) -> str:
    table = message.get("table")
    return CHANNEL if table is None else table_channel(str(table))


class LocalBus:
    """A single server: nothing to tell anyone."""

    async def start(self, handler: Handler, wants: Callable[[dict[str, Any]], bool] | None = None,
                    ) -> None:
        return None

    def send(self, message: dict[str, Any]) -> None:
        return None

    async def publish(self, message: dict[str, Any]) -> None:
        return None

    async def watch(self, table_id: str) -> None:
        return None

    def unwatch(self, table_id: str) -> None:
        return None

    async def stop(self) -> None:
        return None


class RedisBus:
    """Redis pub/sub, a channel per table; each server ignores its own messages.

    Messages are sent by one task, in order: those queued while a send is in flight go out
    together, one Redis message per channel (``{"origin", "batch": [...]}``) in one pipelined
    round trip, so under load a server receives and parses one message per batch of a table
    rather than one per move; an idle server's message goes out at once, alone.
    ``received_messages`` and ``received_bytes`` count what this server was sent, and
    ``published_messages`` what it sent (metrics).
    """

    def __init__(self, url: str) -> None:
        import redis.asyncio as redis

        self.origin = uuid.uuid4().hex
        self.client = redis.Redis.from_url(url)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.task: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[None]] = set()
        self._outbox: list[tuple[dict[str, Any], asyncio.Future[None] | None]] = []
        self._sender: asyncio.Task[None] | None = None
        self.watched: set[str] = set()
        self._unwatching: set[asyncio.Task[None]] = set()
        self.received_messages = 0
        self.received_bytes = 0
        self.published_messages = 0
        # tables open here that another server may have open too: only their messages go out.
        # A table is shared from its ``watch`` until a publish reaches no other subscriber, and
        # again from any message another server sends on its channel (``hello`` included).
        self.shared: set[str] = set()
        self._heard: dict[str, int] = {}  # table -> serial of the last message another sent
        self._serial = 0

    async def start(self, handler: Handler, wants: Callable[[dict[str, Any]], bool] | None = None,
                    ) -> None:
        """Listen; ``wants(message)`` (called at once, no task) drops what this server has no
        use for (a message of a table it has just let go)."""
        await self.pubsub.subscribe(CHANNEL)
        self.task = asyncio.create_task(self._listen(handler, wants or (lambda _m: True)))

    async def _listen(self, handler: Handler, wants: Callable[[dict[str, Any]], bool]) -> None:
        while True:
            try:
                msg = await self.pubsub.get_message(timeout=1.0)
                if msg is None:
                    continue
                self.received_messages += 1
                self.received_bytes += len(msg["data"])
                data = json.loads(msg["data"])
                if data.get("origin") == self.origin:
                    continue
                for item in data["batch"] if "batch" in data else (data,):
                    table = item.get("table")
                    if table is not None and str(table) in self.watched:
                        self._serial += 1
                        self._heard[str(table)] = self._serial
                        self.shared.add(str(table))
                    if wants(item):
                        # one task per message, so a slow catch-up of one table delays no
                        # other; per table the order holds (each task goes straight to the
                        # table's FIFO lock)
                        task = asyncio.create_task(handler(item))
                        self._pending.add(task)
                        task.add_done_callback(self._pending.discard)
            except asyncio.CancelledError:
                raise
            except Exception:  # a bad message or a Redis hiccup must not kill the listener
                log.exception("pub/sub listener error")
                await asyncio.sleep(0.5)

    async def watch(self, table_id: str) -> None:
        """Hear this table's messages from now on (before reading it, so nothing falls between
        the read and the subscription)."""
        if table_id not in self.watched:
            self.watched.add(table_id)
            await self.pubsub.subscribe(table_channel(table_id))
            # another server may have it open: publish until a publish shows nobody else hears
            self.shared.add(table_id)
            self._queue({"table": table_id, "hello": True}, None)

    def unwatch(self, table_id: str) -> None:
        """Stop hearing a table this server no longer has open."""
        if table_id in self.watched:
            self.watched.discard(table_id)
            self.shared.discard(table_id)
            self._heard.pop(table_id, None)
            task = asyncio.get_running_loop().create_task(
                self.pubsub.unsubscribe(table_channel(table_id)))
            self._unwatching.add(task)
            task.add_done_callback(self._unwatching.discard)

    def send(self, message: dict[str, Any]) -> None:
        """Queue a message (no waiting: a move's broadcast does not wait on Redis)."""
        self._queue(message, None)

    async def publish(self, message: dict[str, Any]) -> None:
        """Queue a message and wait until it has been handed to Redis (or given up on)."""
        done = asyncio.get_running_loop().create_future()
        self._queue(message, done)
        await done

    def _queue(self, message: dict[str, Any], done: asyncio.Future[None] | None) -> None:
        self._outbox.append((message, done))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send_all())

    def _wanted(self, message: dict[str, Any]) -> bool:
        """Whether anyone but this server may need the message (see ``shared``)."""
        table = message.get("table")
        return table is None or str(table) not in self.watched or str(table) in self.shared

    async def _send_all(self) -> None:
        while self._outbox:
            batch, self._outbox = self._outbox, []
            by_channel: dict[str, list[dict[str, Any]]] = {}
            for message, _ in batch:
                if self._wanted(message):
                    by_channel.setdefault(channel_of(message), []).append(message)
            # a message another server sends after this serial may announce a table it opened
            # after our publish reached Redis: such a table stays shared whatever Redis counts
            serial = self._serial
            for attempt in range(3 if by_channel else 0):  # a dropped connection is retried
                try:
                    async with self.client.pipeline(transaction=False) as pipe:
                        for channel, messages in by_channel.items():
                            if len(messages) == 1:
                                data = json.dumps({**messages[0], "origin": self.origin})
                            else:
                                data = json.dumps({"origin": self.origin, "batch": messages})
                            pipe.publish(channel, data)
                        heard_by = await pipe.execute()
                    self.published_messages += len(by_channel)
                    self._unshare(by_channel, heard_by, serial)
                    break
                except Exception as exc:
                    if attempt == 2:
                        log.warning("pub/sub publish failed: %r", exc)
                        break
                    await asyncio.sleep(0.05 * (attempt + 1))
            for _, done in batch:
                if done is not None and not done.done():
                    done.set_result(None)

    def _unshare(self, by_channel: dict[str, list[dict[str, Any]]], heard_by: list[Any],
                 serial: int) -> None:
        """A table whose publish reached this server alone is open nowhere else: stop sending
        its messages. Not on its ``hello``: Redis may not have our own subscription yet, so
        one listener there can be another server."""
        for messages, count in zip(by_channel.values(), heard_by, strict=True):
            table = messages[0].get("table")
            if (table is None or not isinstance(count, int) or count > 1
                    or any(m.get("hello") for m in messages)):
                continue
            if self._heard.get(str(table), 0) <= serial:
                self.shared.discard(str(table))

    async def ping(self) -> None:
        await self.client.ping()

    async def stop(self) -> None:
        if self._sender is not None and not self._sender.done():
            try:  # what is queued still goes out
                await asyncio.wait_for(asyncio.shield(self._sender), 1.0)
            except Exception:
                pass
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass
        await self.pubsub.aclose()
        await self.client.aclose()


class OpenTables(dict):
    """The tables a server has open, by id: letting one go unsubscribes from its channel, and
    one added without ``await bus.watch(id)`` first is subscribed to at once (in a task)."""

    def __init__(self, bus: LocalBus | RedisBus) -> None:
        super().__init__()
        self.bus = bus
        self._watching: set[asyncio.Task[None]] = set()

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        if isinstance(self.bus, RedisBus) and key not in self.bus.watched:
            task = asyncio.get_running_loop().create_task(self.bus.watch(key))
            self._watching.add(task)
            task.add_done_callback(self._watching.discard)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.bus.unwatch(key)

    def pop(self, key: str, *default: Any) -> Any:
        had = key in self
        value = super().pop(key, *default)
        if had:
            self.bus.unwatch(key)
        return value


def make_bus(url: str | None) -> LocalBus | RedisBus:
    return RedisBus(url) if url else LocalBus()
