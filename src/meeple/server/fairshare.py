"""A fair share of the bots: no visitor can take the bot pool from everyone else.

- **Caps per visitor** (an account when logged in, else the address): tables open or running at
  once that the visitor created, and bot seats among them (`Visitors.admit`). Counted per
  server (a visitor's requests reach one server behind the shipped proxies' ``ip_hash``).
- **Turns in the pool** (`FairPool`): a bot that wants to think waits for a turn; turns go to the
  visitors in turn, and within a visitor to its tables in turn, and one visitor holds at most
  ``per_visitor`` of the pool's workers at once, so another visitor's table finds a free worker.
- **Ending what nobody uses** (`Visitors.sweep`): an open table with no person seated and no one
  watching ends after ``open_idle`` seconds without a change; a running table of bots only ends
  once no one has watched it for ``unwatched`` seconds. Ended tables get status ``abandoned``.

Each limit has an environment variable (`FairSettings.from_env`; docs/web.md lists them).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

from sqlalchemy import select

from .storage import tables_t
from .tables import TableError

log = logging.getLogger("meeple.server")
LIVE = ("open", "running")


@dataclass
class FairSettings:
    max_tables: int = 8          # MEEPLE_MAX_TABLES_PER_VISITOR
    max_bot_seats: int = 16      # MEEPLE_MAX_BOT_SEATS_PER_VISITOR
    per_visitor: int = 0         # MEEPLE_BOT_WORKERS_PER_VISITOR (0: half the pool, at least 1)
    open_idle: float = 1800.0    # MEEPLE_OPEN_TABLE_SECONDS
    unwatched: float = 300.0     # MEEPLE_UNWATCHED_BOT_TABLE_SECONDS

    @classmethod
    def from_env(cls) -> FairSettings:
        env = os.environ.get
        return cls(max_tables=int(env("MEEPLE_MAX_TABLES_PER_VISITOR") or 8),
                   max_bot_seats=int(env("MEEPLE_MAX_BOT_SEATS_PER_VISITOR") or 16),
                   per_visitor=int(env("MEEPLE_BOT_WORKERS_PER_VISITOR") or 0),
                   open_idle=float(env("MEEPLE_OPEN_TABLE_SECONDS") or 1800.0),
                   unwatched=float(env("MEEPLE_UNWATCHED_BOT_TABLE_SECONDS") or 300.0))


class FairPool:
    """Turns for bots that want to think: visitors in turn, each visitor's tables in turn, at
    most ``slots`` at once and ``per_visitor`` of them for one visitor."""

    def __init__(self, slots: int, per_visitor: int) -> None:
        self.slots = max(1, slots)
        self.per_visitor = per_visitor if per_visitor > 0 else max(1, self.slots // 2)
        self.busy = 0
        self.held: Counter[str] = Counter()
        self.waiting: OrderedDict[str, OrderedDict[str, deque[asyncio.Future[None]]]] = OrderedDict()

    def queued(self) -> int:
        return sum(len(q) for tables in self.waiting.values() for q in tables.values())

    @asynccontextmanager
    async def turn(self, visitor: str, table: str) -> AsyncIterator[None]:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(visitor, OrderedDict()).setdefault(table, deque()).append(fut)
        self._grant()
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():  # granted as it was cancelled: give it back
                self._release(visitor)
            raise
        try:
            yield
        finally:
            self._release(visitor)

    def _release(self, visitor: str) -> None:
        self.busy -= 1
        self.held[visitor] -= 1
        if self.held[visitor] <= 0:
            del self.held[visitor]
        self._grant()

    def _grant(self) -> None:
        while self.busy < self.slots:
            visitor = next((v for v in self.waiting if self.held[v] < self.per_visitor), None)
            if visitor is None:
                return
            tables = self.waiting[visitor]
            table, queue = next(iter(tables.items()))
            fut = queue.popleft()
            if queue:
                tables.move_to_end(table)  # this visitor's next table goes next time
            else:
                del tables[table]
            if tables:
                self.waiting.move_to_end(visitor)  # then the other visitors
            else:
                del self.waiting[visitor]
            if fut.done():  # cancelled while waiting
                continue
            fut.set_result(None)
            self.busy += 1
            self.held[visitor] += 1


@dataclass
class Visitors:
    """Who created which live table (on this server), the caps at creation, and the sweep."""

    settings: FairSettings
    owner: dict[str, str] = field(default_factory=dict)        # table id -> visitor
    bots: dict[str, int] = field(default_factory=dict)         # table id -> bot seats
    unwatched_since: dict[str, float] = field(default_factory=dict)

    def visitor_of(self, table_id: str) -> str:
        return self.owner.get(table_id, f"table:{table_id}")

    def _forget_ended(self, manager: Any, visitor: str) -> list[str]:
        mine = [tid for tid, v in self.owner.items() if v == visitor]
        unknown = [tid for tid in mine if tid not in manager.tables]
        live = {tid for tid in mine if tid in manager.tables
                and manager.tables[tid].rec.status in LIVE}
        if unknown:
            with manager.storage.engine.connect() as conn:
                live |= {r[0] for r in conn.execute(select(tables_t.c.id).where(
                    tables_t.c.id.in_(unknown), tables_t.c.status.in_(LIVE)))}
        for tid in mine:
            if tid not in live:
                self.owner.pop(tid, None)
                self.bots.pop(tid, None)
        return [tid for tid in mine if tid in live]

    def admit(self, manager: Any, visitor: str, bot_seats: int) -> None:
        """Blocking (may read the database): refuse a table over the visitor's caps."""
        live = self._forget_ended(manager, visitor)
        cap = self.settings
        if len(live) >= cap.max_tables:
            raise TableError("too_many", f"you have {len(live)} tables open or running (at most "
                             f"{cap.max_tables} at once); finish or leave one first")
        seats = sum(self.bots.get(tid, 0) for tid in live)
        if bot_seats and seats + bot_seats > cap.max_bot_seats:
            raise TableError("too_many", f"your tables have {seats} bot seats (at most "
                             f"{cap.max_bot_seats} at once); finish a table with bots first")

    def created(self, table_id: str, visitor: str, bot_seats: int) -> None:
        self.owner[table_id] = visitor
        self.bots[table_id] = bot_seats

    def idle(self, t: Any, now: float) -> bool:
        """Should this table end? (an open table nobody sits at or watches, or an unwatched
        table of bots only)."""
        watched = any(not c.closed for c in t.conns)
        if watched:
            self.unwatched_since.pop(t.rec.id, None)
            return False
        since = self.unwatched_since.setdefault(t.rec.id, now)
        seated = any(s.kind in ("human", "invited") for s in t.rec.seats)
        if t.rec.status == "open" and not seated:
            at = t.rec.updated_at
            changed = (at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp()
            return now - max(changed, since) >= self.settings.open_idle
        if t.rec.status == "running" and all(s.kind == "bot" for s in t.rec.seats):
            return now - since >= self.settings.unwatched
        return False

    async def sweep(self, manager: Any) -> list[str]:
        """End the tables this server drives that nobody uses (see `idle`)."""
        now = time.time()
        ended = []
        for t in list(manager.tables.values()):
            # a running table is ended by the server driving it; an open one by any
            if t.rec.status not in LIVE or (t.rec.status == "running"
                                            and t.rec.id not in manager.leases.mine):
                self.unwatched_since.pop(t.rec.id, None)
                continue
            if not self.idle(t, now):
                continue
            async with t.lock:
                if t.rec.status not in LIVE:
                    continue
                if t.bot_task is not None:
                    t.bot_task.cancel()
                    t.bot_task = None
                t.rec.version = await manager.db(manager.storage.set_status, t.rec.id,
                                                  "abandoned")
                t.rec.status = "abandoned"
                manager.changed(t)
            self.unwatched_since.pop(t.rec.id, None)
            ended.append(t.rec.id)
            log.info("table %s ended: nobody played or watched it", t.rec.id)
        return ended

    async def loop(self, manager: Any, every: float = 5.0) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                await self.sweep(manager)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sweep of unused tables failed")
