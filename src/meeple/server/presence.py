"""A table's place among the servers: who is here (seat presence), who drives it (leases), and
the periodic resync of this server's copies.

With one server, a seat is connected when it has a socket here. Beside other servers, each one
stores when it last held each seat's socket (`Storage.touch_presence`) and reads the others'
rows with the resync. The server holding a table's lease (`leases.py`) runs its bots and
clocks; the others only follow. `TableManager` owns one `Presence` (``manager.presence``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from .leases import needs_driver
from .pubsub import LocalBus

if TYPE_CHECKING:
    from .tables import Connection, LiveTable, TableManager

log = logging.getLogger("meeple.server")

IDLE_SECONDS = 60.0  # a copy with no socket, not driven, unused this long is forgotten


async def every(seconds: float, fn: Any) -> None:
    """Run ``await fn()`` every ``seconds``, for ever; a failed round is logged, not fatal."""
    while True:
        await asyncio.sleep(seconds)
        try:
            await fn()
        except asyncio.CancelledError:
            raise
        except Exception:  # e.g. the database is briefly unreachable: try again next round
            log.warning("%s failed", getattr(fn, "__name__", fn), exc_info=True)


class Presence:
    """Seat presence, leases and resync for one server's live tables."""

    def __init__(self, manager: TableManager) -> None:
        self.manager = manager
        self.storage = manager.storage
        self.settings = manager.settings
        self.leases = manager.leases
        self._touched: set[tuple[str, int]] = set()  # seats whose socket came or went here
        # the seen_at this server last stored per seat: a row still holding it is our own
        self._wrote: dict[tuple[str, int], float] = {}
        self._presence_due = 0.0
        self._sweep_due = 0.0
        self.lease_thread: LeaseThread | None = None
        self.pending: set[asyncio.Future[None]] = set()  # tables being taken up

    def tasks(self) -> list[asyncio.Task[None]]:
        """The periodic work: lease renewal, resync, and (beside other servers) presence rows.

        On a networked database the lease rounds run in a thread of their own, on a database
        connection of their own (`LeaseThread`): on the event loop and the shared pool they
        waited behind the moves of an overloaded server, whose leases then lapsed and whose
        takeovers of a dead server's tables took many seconds."""
        tasks = [asyncio.create_task(every(self.settings.resync_seconds, self.resync))]
        if self.storage.inline:  # SQLite answers inline: a round costs the loop no wait
            tasks.append(asyncio.create_task(every(self.leases.every, self.lease_tick)))
        else:
            self.lease_thread = LeaseThread(self)
            tasks.append(asyncio.create_task(self.lease_thread.run()))
        if self.shared:
            tasks.append(asyncio.create_task(every(min(1.0, self.period), self.tick)))
        return tasks

    # ----- presence -----------------------------------------------------------------------------
    @property
    def shared(self) -> bool:
        """Beside other servers, a seat's socket may be on any of them: each server stores
        when it last held each seat's socket (`Storage.touch_presence`)."""
        return not isinstance(self.manager.bus, LocalBus)

    @property
    def period(self) -> float:
        """How often every seat with a socket here is stored again."""
        return max(0.2, min(10.0, self.settings.seat_gone_seconds / 4))

    @property
    def fresh(self) -> float:
        """A row renewed this recently means a socket is held there now."""
        return self.period + 2.0

    async def tick(self) -> None:
        """Store, in one statement, the seats whose socket came or went here since the last
        tick, and every `period` seconds all the seats with a socket here; about once a minute
        (or `seat_gone_seconds`), forget the rows that no longer matter."""
        tables = self.manager.tables
        seats, self._touched = self._touched, set()
        if time.monotonic() >= self._presence_due:
            self._presence_due = time.monotonic() + self.period
            seats |= {
                (tid, c.seat)
                for tid, t in tables.items()
                if t.rec.status != "over"
                for c in t.conns
                if not c.closed and c.seat is not None
            }
        if seats:
            at = self.storage.clock.now()
            await self.manager.db(self.storage.touch_presence, sorted(seats), at)
            self._wrote.update(dict.fromkeys(seats, at))
        if time.monotonic() >= self._sweep_due:  # rows that can no longer change an answer
            self._sweep_due = time.monotonic() + max(
                1.0, min(60.0, self.settings.seat_gone_seconds)
            )
            await self.manager.db(
                self.storage.sweep_presence,
                self.storage.clock.now() - 2 * self.settings.seat_gone_seconds,
            )

    async def read(self) -> None:
        """Which seats have a socket on another server (the rows not last written by this one),
        for the open tables with people; a change is shown like a socket coming or going here.
        A seat's arrival elsewhere shows within a touch tick and a resync; its leaving, once its
        row is older than `fresh` (nothing says "left" across servers but the silence)."""
        tables = self.manager.tables
        ids = [
            tid
            for tid, t in tables.items()
            if t.rec.status != "over" and any(s.kind == "human" for s in t.rec.seats)
        ]
        self._wrote = {k: v for k, v in self._wrote.items() if k[0] in tables}
        rows = await self.manager.db(self.storage.presence, ids) if ids else []
        seen: dict[str, dict[int, float]] = {tid: {} for tid in ids}
        for tid, seat, at in rows:
            if self._wrote.get((tid, seat)) != at:
                seen[tid][seat] = at
        for tid, now_seen in seen.items():
            t = tables.get(tid)
            if t is None or not (now_seen or t.seen_elsewhere):
                continue
            t.seen_elsewhere = now_seen
            shown = self.elsewhere(t)  # a row changed, or grew too old to count
            if shown != t.shown_elsewhere:
                before = self.present(t) | t.shown_elsewhere
                t.shown_elsewhere = shown
                self.announce(t, before)

    def touch_soon(self, t: LiveTable, seat: int) -> None:
        """A seat's socket came or went here: stored with the next tick (within a second)."""
        if self.shared:
            self._touched.add((t.rec.id, seat))

    def present(self, t: LiveTable) -> set[int | None]:
        """The seats with a socket on this server."""
        return {c.seat for c in t.conns if not c.closed and c.seat is not None}

    def elsewhere(self, t: LiveTable) -> set[int | None]:
        """The seats with a socket on another server, by its recent presence rows."""
        if not t.seen_elsewhere:
            return set()
        cut = self.storage.clock.now() - self.fresh
        return {seat for seat, at in t.seen_elsewhere.items() if at >= cut}

    def shown(self, t: LiveTable) -> set[int | None]:
        """The seats shown as connected: a socket here or on another server."""
        return self.present(t) | self.elsewhere(t)

    def announce(
        self, t: LiveTable, before: set[int | None], skip: Connection | None = None
    ) -> None:
        """Tell the table's sockets (but ``skip``) who is connected, if it changed since ``before``."""
        now = self.shown(t)
        if now == before:
            return
        msg = {"type": "seats", "table": t.rec.id, "seats": self.manager.seats_json(t, now)}
        for c in list(t.conns):
            if c is not skip:
                c.push(msg)

    # ----- leases ---------------------------------------------------------------------------------
    async def lease_tick(self) -> None:
        """Renew our leases, stop driving the ones taken from us, take up orphaned tables."""
        if self.manager.draining:  # handed on: renewing would take them back
            return
        lost, taken = await self.manager.db(self.leases.round)
        self.lost(lost)
        await asyncio.gather(*(self.take_up(tid) for tid in taken))

    def lost(self, tables: set[str]) -> None:
        """Stop driving the tables another server took from us."""
        for tid in tables:
            t = self.manager.tables.get(tid)
            if t is not None:
                self.manager.bots.stop(t)

    async def take_up(self, table_id: str) -> None:
        """Drive a table whose lease this server just took (a failure is logged: the table
        stays ours, and its next event or resync brings the copy up to date)."""
        try:
            await self.drive(table_id)
        except Exception:
            log.exception("could not take up table %s", table_id)

    async def drive(self, table_id: str) -> None:
        """Drive a table whose lease this server just took. A copy open here already is read
        again only when the takeover cannot tell what changed: a copy at the version the
        takeover left takes nothing, one just before the takeover's own change takes its new
        deadline (a dead server's tables, whose players came here first, cost no read)."""
        manager = self.manager
        stored = self.leases.stored.pop(table_id, None)
        t = manager.tables.get(table_id)
        if t is None:
            t = await manager.get(table_id)  # loaded fresh, deadline included; schedules itself
        else:
            async with t.lock:
                if stored is not None and t.rec.version >= stored[1]:
                    manager.bots.schedule(t)  # as new as the takeover, or newer
                elif stored is not None and t.rec.version == stored[0]:
                    t.rec.version = stored[1]  # the takeover's credit is all that changed
                    t.deadline = t.rec.deadline = stored[2]
                    manager.changed(t, publish=False)
                else:
                    await manager.catch_up(t)  # a takeover may have moved the deadline on
                    manager.changed(t, publish=False)
        if t.rec.status == "over":
            await manager.db(self.leases.release, table_id)

    async def claim(self, t: LiveTable) -> None:
        """A table this server just started: drive it (unless another server already does)."""
        if (
            needs_driver(t.rec)
            and t.rec.id not in self.leases.mine
            and not self.manager.draining
            and await self.manager.db(self.leases.acquire, t.rec.id)
        ):
            self.manager.bots.schedule(t)

    # ----- resync ---------------------------------------------------------------------------------
    async def resync(self) -> None:
        """Re-read every open table whose stored version moved without our hearing of it (a
        lost pub/sub message costs at most this period), and forget tables nobody uses here."""
        manager, tables = self.manager, self.manager.tables
        idle = time.monotonic() - IDLE_SECONDS
        for tid, t in list(tables.items()):
            # a copy asked for a moment ago may be about to get a socket (hello can take 30 s):
            # forgetting it then would leave that socket on a copy nobody updates
            if (
                not t.conns
                and tid not in self.leases.mine
                and not t.lock.locked()
                and t.used_at < idle
            ):
                del tables[tid]
        if not tables:
            return
        versions = await manager.db(self.storage.versions, list(tables))
        if self.shared:
            await self.read()
        for tid, version in versions.items():
            t = tables.get(tid)
            if t is not None and version != t.rec.version:
                async with t.lock:
                    if t.rec.version >= version:
                        continue  # a move in flight (ours, or on the bus) when we read: not lost
                    if await manager.catch_up(t):
                        manager.metrics.resyncs.inc()
                        manager.changed(t, publish=False)


class LeaseThread:
    """The lease rounds of a server on a networked database, off the event loop.

    Each round (every ``Leases.every`` seconds) renews this server's leases and takes over the
    lapsed ones in a thread of its own, on a connection of its own, so that neither a busy
    event loop nor a pool full of moves delays it; the tables taken are then driven from the
    loop. A lease still means the server drives the table: the loop stamps a heartbeat, and a
    round whose loop has not stamped for ``ttl - every`` seconds (it hangs, or is so far
    behind that it drives nothing) renews nothing and takes nothing, so its leases lapse as if
    it had died.
    """

    def __init__(self, presence: Presence) -> None:
        self.presence = presence
        self.leases = presence.leases
        self.beat = time.monotonic()
        self.stop = threading.Event()

    @property
    def stale(self) -> float:
        """The heartbeat age past which a round holds back."""
        return max(self.leases.every, self.leases.ttl - self.leases.every)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        thread = threading.Thread(target=self.rounds, args=(loop,), name="meeple-leases",
                                  daemon=True)
        self.beat = time.monotonic()
        thread.start()
        try:
            while True:  # the heartbeat
                self.beat = time.monotonic()
                await asyncio.sleep(min(0.25, self.leases.every / 2))
        finally:  # cancelled with the server's tasks: no round after this one
            self.stop.set()
            await asyncio.to_thread(thread.join, 10)

    def rounds(self, loop: asyncio.AbstractEventLoop) -> None:
        engine = self.presence.storage.own_engine()
        try:
            while not self.stop.wait(self.leases.every):
                if self.presence.manager.draining:  # handed on: renewing would take them back
                    continue
                if time.monotonic() - self.beat > self.stale:
                    log.warning("event loop %.1f s late: lease round skipped",
                                time.monotonic() - self.beat)
                    continue
                try:
                    lost, taken = self.leases.round(engine)
                except Exception:  # e.g. the database is briefly unreachable: next round
                    log.warning("lease round failed", exc_info=True)
                    continue
                if (lost or taken) and not self.stop.is_set():
                    loop.call_soon_threadsafe(self.hand_over, lost, taken)
        finally:
            if engine is not self.presence.storage.engine:
                engine.dispose()

    def hand_over(self, lost: set[str], taken: list[str]) -> None:
        """On the loop: stop driving what was lost, drive what was taken."""
        self.presence.lost(lost)
        for tid in taken:
            task = asyncio.ensure_future(self.presence.take_up(tid))
            self.presence.pending.add(task)
            task.add_done_callback(self.presence.pending.discard)
