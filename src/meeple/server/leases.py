"""One bot driver per table: a lease row per running table in the database.

The server holding a table's lease is the only one that runs its bots and its time limit. It
renews all its leases every ``every`` seconds (one UPDATE); a lease not renewed for ``ttl``
seconds (its server died or hung) is taken over by another server, or by the same server after
a restart. Taking over a table whose holder died credits the time nobody drove it to the seat
to move: the stored deadline moves on by that much, so a crash is never charged to a player.

Clocks: every instant here (and every deadline) is the database's time: each server measures
its clock's offset to the database's with each renewal (`storage.Clock`), so servers whose
clocks disagree still agree on who holds what.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field

from sqlalchemy import Engine, and_, delete, exists, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from .storage import Storage, TableRecord, leases_t, seats_t, tables_t

# Only a table with something to drive has a lease: a clock, a bot, or a seat a bot plays for
# a player who left. People playing without a clock need no server in particular.
_NEEDS_DRIVER = or_(
    tables_t.c.time_limit.is_not(None),
    exists().where(seats_t.c.table_id == tables_t.c.id,
                   or_(seats_t.c.kind == "bot", seats_t.c.zombie.is_(True))),
)


def needs_driver(rec: TableRecord) -> bool:
    return rec.status == "running" and (
        rec.time_limit is not None or any(s.kind == "bot" or s.zombie for s in rec.seats))


@dataclass
class Leases:
    """This server's leases: ``mine`` is what it drives now.

    The holder is ``<node>:<random>``, new for each process: a server restarted under the same
    node name (a lone server, or ``MEEPLE_NODE_ID``) takes its earlier self's tables back at
    once instead of waiting for them to expire, and credits the time it was down.
    """

    storage: Storage
    node: str
    ttl: float = 3.0
    every: float = 1.0
    mine: set[str] = field(default_factory=set)
    holder: str = ""
    # each table `take_over` took: (its version before the takeover's own change, after it,
    # the deadline after it), so that a server with the table open already need not read it
    # again (`Presence.drive`); the two versions differ when the takeover credited the table
    # the time nobody drove it (the row, locked by that update, then moved by exactly one)
    stored: dict[str, tuple[int, int, float | None]] = field(default_factory=dict)
    released: bool = False  # handed on by `release_all`: no round renews or takes any more
    # running tables needing a driver that had no lease row, and when this server's rounds
    # first saw each so (its own monotonic clock: no other server's clock is compared)
    unleased_since: dict[str, float] = field(default_factory=dict)
    _round_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.holder = f"{self.node}:{uuid.uuid4().hex[:12]}"

    def acquire(self, table_id: str, engine: Engine | None = None) -> bool:
        """Take the table's lease if nobody living holds it. A takeover from a dead holder
        moves the table's deadline on by the time since that holder last renewed."""
        now = self.storage.clock.now()
        engine = engine or self.storage.engine
        try:
            with engine.begin() as conn:  # the common case: a new table
                conn.execute(insert(leases_t).values(
                    table_id=table_id, holder=self.holder, expires_at=now + self.ttl,
                    renewed_at=now))
            self.mine.add(table_id)
            return True
        except IntegrityError:  # someone holds (or held) it: see whether it is still alive
            pass
        with engine.begin() as conn:
            if self.storage.inline:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            row = conn.execute(select(leases_t).where(leases_t.c.table_id == table_id)
                               .with_for_update()).mappings().first()
            if row is None:  # released meanwhile; the next round takes it
                return False
            ours = row["holder"] == self.holder or row["holder"].startswith(self.node + ":")
            if not ours and row["expires_at"] > now:
                self.mine.discard(table_id)
                return False
            if table_id not in self.mine:  # a takeover (or our own lease from before a restart)
                down = max(0.0, now - row["renewed_at"])
                conn.execute(
                    update(tables_t)
                    .where(tables_t.c.id == table_id, tables_t.c.deadline.is_not(None),
                           tables_t.c.deadline > row["renewed_at"])
                    .values(deadline=tables_t.c.deadline + down, version=tables_t.c.version + 1))
            conn.execute(update(leases_t).where(leases_t.c.table_id == table_id).values(
                holder=self.holder, expires_at=now + self.ttl, renewed_at=now))
        self.mine.add(table_id)
        return True

    def renew(self, engine: Engine | None = None) -> set[str]:
        """Renew every lease of ours; returns the tables we lost (taken over meanwhile).

        Only tables already ours when the renewal began can be lost by it: one acquired while
        it ran (another thread) committed after its read and is not in ``held``."""
        before = set(self.mine)
        with (engine or self.storage.engine).begin() as conn:
            self.storage.sync_clock(conn)
            now = self.storage.clock.now()
            held = set(conn.execute(
                update(leases_t).where(leases_t.c.holder == self.holder)
                .values(expires_at=now + self.ttl, renewed_at=now)
                .returning(leases_t.c.table_id)).scalars())
        lost = before - held
        self.mine -= lost
        return lost

    def take_over(self, engine: Engine | None = None, limit: int = 500) -> list[str]:
        """Take, in one transaction, every lapsed lease on a running table (and our own from
        before a restart), crediting each table the time since its holder last renewed (as
        `acquire` does one by one). Rows another transaction holds (a driver's move reading its
        lease) are skipped this round, not waited for. Returns the tables taken."""
        now = self.storage.clock.now()
        with (engine or self.storage.engine).begin() as conn:
            if self.storage.inline:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            rows = conn.execute(
                select(leases_t.c.table_id)
                .join(tables_t, tables_t.c.id == leases_t.c.table_id)
                .where(tables_t.c.status == "running", _NEEDS_DRIVER,
                       leases_t.c.holder != self.holder,
                       or_(leases_t.c.expires_at < now,
                           leases_t.c.holder.like(self.node + ":%")))
                .order_by(leases_t.c.expires_at)
                .limit(limit)
                .with_for_update(of=leases_t, skip_locked=True)
            ).scalars().all()
            if not rows:
                return []
            renewed = (select(leases_t.c.renewed_at).where(leases_t.c.table_id == tables_t.c.id)
                       .scalar_subquery())
            credited = set(conn.execute(
                update(tables_t)
                .where(tables_t.c.id.in_(rows), tables_t.c.deadline.is_not(None),
                       tables_t.c.deadline > renewed, renewed < now)
                .values(deadline=tables_t.c.deadline + (now - renewed),
                        version=tables_t.c.version + 1)
                .returning(tables_t.c.id)).scalars())
            conn.execute(update(leases_t).where(leases_t.c.table_id.in_(rows)).values(
                holder=self.holder, expires_at=now + self.ttl, renewed_at=now))
            stored = conn.execute(select(tables_t.c.id, tables_t.c.version, tables_t.c.deadline)
                                  .where(tables_t.c.id.in_(rows))).all()
        self.stored.update({tid: (version - (tid in credited), version, deadline)
                            for tid, version, deadline in stored})
        self.mine.update(rows)
        return list(rows)

    def orphans(self, limit: int = 200, engine: Engine | None = None,
                unleased: bool = False) -> list[str]:
        """Running tables nobody living drives (no lease, an expired one, or ours from before a
        restart of this server); ``unleased``: only those without a lease row."""
        now = self.storage.clock.now()
        lapsed = or_(leases_t.c.table_id.is_(None), leases_t.c.expires_at < now,
                     leases_t.c.holder.like(self.node + ":%"))
        with (engine or self.storage.engine).connect() as conn:
            rows = conn.execute(
                select(tables_t.c.id)
                .select_from(tables_t.outerjoin(leases_t, leases_t.c.table_id == tables_t.c.id))
                .where(tables_t.c.status == "running", _NEEDS_DRIVER,
                       leases_t.c.table_id.is_(None) if unleased else lapsed)
                .order_by(tables_t.c.updated_at)
                .limit(limit + len(self.mine))
            ).scalars().all()
        return [r for r in rows if r not in self.mine][:limit]

    def round(self, engine: Engine | None = None) -> tuple[set[str], list[str]]:
        """One lease round: renew ours, take over the lapsed ones in one transaction, then take
        up, one by one, the rare running table that needs a driver and has had no lease row
        for ``ttl`` seconds of this server's rounds. A table that has just started has no
        lease row until the server that started it takes one (`Presence.claim`, a moment after
        the start commits): taking it then would leave the table to a server none of its
        sockets is on, costing every move a publish, so its starter gets as long as a lease
        would. That time is counted on this server's own clock from its first sight of the
        table, not from the row's timestamp, which another server's clock wrote.
        Returns (the tables lost, the tables taken); nothing once `release_all` ran (a round
        in another thread must not take back what a stopping server just handed on)."""
        with self._round_lock:
            if self.released:
                return set(), []
            lost = self.renew(engine)
            taken = self.take_over(engine)
            seen_at = time.monotonic()
            self.unleased_since = {tid: self.unleased_since.get(tid, seen_at)
                                   for tid in self.orphans(engine=engine, unleased=True)}
            for tid, since in list(self.unleased_since.items()):
                if seen_at - since >= self.ttl and self.acquire(tid, engine):
                    taken.append(tid)
                    del self.unleased_since[tid]
            return lost, taken

    def release(self, table_id: str) -> None:
        """A finished table needs no driver."""
        self.mine.discard(table_id)
        with self.storage.engine.begin() as conn:
            conn.execute(delete(leases_t).where(
                and_(leases_t.c.table_id == table_id, leases_t.c.holder == self.holder)))

    def release_all(self) -> None:
        """Hand every table on at once (a graceful stop): expired now, renewed now, so the next
        holder credits no downtime."""
        with self._round_lock:
            self.released = True
            now = self.storage.clock.now()
            self.mine.clear()
            with self.storage.engine.begin() as conn:
                conn.execute(update(leases_t).where(leases_t.c.holder == self.holder)
                             .values(holder="", expires_at=0.0, renewed_at=now))
