"""Storage: tables, seats and the action log, on SQLite or PostgreSQL.

The action log is the source of truth: a table's state is ``meeple.make(...)`` plus its logged
actions, so a restarted server rebuilds every table exactly. ``(table_id, n)`` is the primary
key of a logged action, which makes a second write of move ``n`` fail in the database itself:
no double-apply, even between servers side by side. The log only grows, except that an undo
within a turn deletes the undone steps of the turn in progress (and bumps the table's
``undos``, which every later move is checked against): a finished game's log, which records,
replays and ratings are made from, holds no undone step.

Only SQLAlchemy Core is used; calls are synchronous and the server runs them in threads,
except a move on PostgreSQL (`MoveWriter`): one statement, sent from the event loop itself.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from typing import Any, TypeVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    exists,
    false,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

metadata = MetaData()

tables_t = Table(
    "meeple_tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("game", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("options", JSON, nullable=False),
    Column("status", String(16), nullable=False, index=True),  # open | running | over
    Column("host_hash", String(64), nullable=False),
    Column("time_limit", Float, nullable=True),
    Column("rematch_of", String(32), nullable=True),
    Column("rematch", String(32), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    # 0003: bumped by every change, so a server sees it missed one by comparing one number
    Column("version", Integer, nullable=False, server_default="0"),
    Column("deadline", Float, nullable=True),  # epoch seconds; the seat to move's time limit
    # 0006: bumped by every undo (which deletes the undone steps from the action log)
    Column("undos", Integer, nullable=False, server_default="0"),
    # 0007: the move the last undo went back to (a move after it in the same turn keeps the
    # turn's deadline, so taking steps back and forth never buys time)
    Column("undone_to", Integer, nullable=True),
    # 0008: the table's speed (clocks.py: real time or turn-based, the time-out rule) and its
    # clocks' state (JSON text: each seat's bank, a turn being skipped, votes), written with
    # each move in the move's own statement
    Column("speed", JSON, nullable=True),
    Column("clocks", Text, nullable=True),
)
# 0003: two racing rematch presses can never make two new tables
Index("ux_meeple_tables_rematch_of", tables_t.c.rematch_of, unique=True)

seats_t = Table(
    "meeple_seats",
    metadata,
    Column("table_id", String(32), ForeignKey("meeple_tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),  # open | invited | human | bot
    Column("name", String(64), nullable=True),
    Column("level", String(64), nullable=True),
    Column("secret_hash", String(64), nullable=True),
    Column("zombie", Boolean, nullable=False, default=False),
    Column("client_hash", String(64), nullable=True),  # the browser that took it (0002)
    Column("user_id", Integer, nullable=True, index=True),  # the account that holds it (0004)
    # that account is a bot account (0012_botapi): shown as a bot wherever the seat is
    Column("account_bot", Boolean, nullable=False, default=False, server_default=false()),
)

actions_t = Table(
    "meeple_actions",
    metadata,
    Column("table_id", String(32), ForeignKey("meeple_tables.id"), primary_key=True),
    Column("n", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("action", Integer, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

# 0003: which server drives a running table's bots and timers (see leases.py)
leases_t = Table(
    "meeple_leases",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("holder", String(64), nullable=False, index=True),
    Column("expires_at", Float, nullable=False),
    Column("renewed_at", Float, nullable=False),
)

# 0005: when a person's seat last had a socket on some server (renewed while it has one)
presence_t = Table(
    "meeple_presence",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("seen_at", Float, nullable=False),
)

# 0003: the stored answer of each idempotency key (see idempotency.py)
idempotency_t = Table(
    "meeple_idempotency",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("request_hash", String(64), nullable=False),
    Column("status", Integer, nullable=True),  # None: the first request is still running
    Column("answer", JSON, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # 0014: the claim's own random token (a retry that takes the claim over gets a new one)
    Column("token", String(32), nullable=True),
)


# The statements a move runs, built once: rebuilding a Core statement per call costs more than
# SQLite takes to run it (cache keys, coercions), and the server writes one per move.
_INSERT_ACTION = insert(actions_t)
_TOUCH_TABLE = (
    update(tables_t).where(tables_t.c.id == bindparam("tid"))
    .values(updated_at=bindparam("now"), deadline=bindparam("deadline"),
            clocks=func.coalesce(bindparam("clocks", type_=Text), tables_t.c.clocks),
            version=tables_t.c.version + 1)
    .returning(tables_t.c.version)
)
_FINISH_TABLE = (
    update(tables_t).where(tables_t.c.id == bindparam("tid"))
    .values(updated_at=bindparam("now"), status=bindparam("new_status"), deadline=None,
            version=tables_t.c.version + 1)
    .returning(tables_t.c.version)
)
_BUMP = update(tables_t).where(tables_t.c.id == bindparam("tid")).values(
    updated_at=bindparam("now"), version=tables_t.c.version + 1)
T = TypeVar("T")
# A move logged only while the table's undo count is the one the mover's copy was built with:
# the table row is updated (and locked) first, and the action is inserted only if that update
# found the row, so a move racing an undo either lands before it or not at all.
_TOUCH_IF_UNDOS = _TOUCH_TABLE.where(tables_t.c.undos == bindparam("expected_undos"))
_PG_MOVE_IF_UNDOS = text(
    "WITH touched AS (UPDATE meeple_tables SET updated_at = :now, deadline = :deadline,"
    " clocks = COALESCE(CAST(:clocks AS TEXT), clocks), version = version + 1 WHERE id = :tid AND undos = :expected_undos RETURNING version),"
    " logged AS (INSERT INTO meeple_actions (table_id, n, seat, action, \"at\")"
    " SELECT :table_id, :n, :seat, :action, :at FROM touched RETURNING n)"
    " SELECT touched.version FROM touched, logged"
)
# A bot's move (or anything a table's driver decides) is logged only while the mover still
# holds the table's lease: a server that hung and woke after another took its tables over is
# refused, not raced. The lease row is read ``FOR SHARE``, so a takeover in flight
# is waited for and then seen. The second column tells a lost lease from an undo.
_PG_DRIVER_MOVE = text(
    "WITH lease AS (SELECT 1 FROM meeple_leases WHERE table_id = :tid AND holder = :holder"
    " FOR SHARE),"
    " touched AS (UPDATE meeple_tables SET updated_at = :now, deadline = :deadline,"
    " clocks = COALESCE(CAST(:clocks AS TEXT), clocks), version = version + 1 WHERE id = :tid AND undos = :expected_undos"
    " AND EXISTS (SELECT 1 FROM lease) RETURNING version),"
    " logged AS (INSERT INTO meeple_actions (table_id, n, seat, action, \"at\")"
    " SELECT :table_id, :n, :seat, :action, :at FROM touched RETURNING n)"
    " SELECT (SELECT version FROM touched), EXISTS (SELECT 1 FROM lease)"
)


class Clock:
    """Wall-clock seconds by the database's clock, which every server shares.

    Lease expiry and time limits compare instants written by one server with another's clock;
    each server keeps the offset of its own clock to the database's (`Storage.sync_clock`, one
    query with each lease renewal), so servers whose clocks disagree still agree on these.
    ``skew`` pretends this machine's clock is off (tests).
    """

    def __init__(self, skew: float = 0.0) -> None:
        self.skew = skew
        self.offset = 0.0  # database clock minus this machine's
        self.best_rtt = math.inf

    def local(self) -> float:
        return time.time() + self.skew

    def now(self) -> float:
        return self.local() + self.offset


class MoveWriter:
    """`Storage.append_action` for PostgreSQL, from the event loop: psycopg's async connections
    (a few, opened on demand), so a move's one statement costs no hand-off to a thread and back
    (two wake-ups, each a wait for a core on a busy machine, and the GIL in between).

    Belongs to one event loop (the server's): `close` it there.
    """

    def __init__(self, storage: Storage, size: int = 8, synchronous: bool = True) -> None:
        self.synchronous = synchronous
        self.sql = str(_PG_MOVE_IF_UNDOS.compile(dialect=storage.engine.dialect))
        self.driver_sql = str(_PG_DRIVER_MOVE.compile(dialect=storage.engine.dialect))
        self.conninfo = storage.engine.url.set(drivername="postgresql").render_as_string(
            hide_password=False)
        self.size = size
        self.free: list[Any] = []
        self.slots = asyncio.Semaphore(size)
        self.loop: asyncio.AbstractEventLoop | None = None

    async def append(self, table_id: str, n: int, seat: int, action: int,
                     deadline: float | None, undos: int, holder: str | None = None,
                     clocks: str | None = None) -> int:
        """Log move ``n`` and the next deadline (and clocks' state, unless None); the table's new version. `DuplicateMove` if
        move ``n`` is already logged or the table's undo count is no longer ``undos``;
        `NotDriver` if ``holder`` is given and no longer holds the table's lease; a broken
        connection is dropped and its error raised."""
        import psycopg

        now = _now()
        params = {"table_id": table_id, "n": n, "seat": seat, "action": action, "at": now,
                  "tid": table_id, "now": now, "deadline": deadline, "expected_undos": undos,
                  "holder": holder, "clocks": clocks}
        if self.loop is not asyncio.get_running_loop():  # connections serve one loop only
            self.loop, self.free, self.slots = asyncio.get_running_loop(), [], asyncio.Semaphore(
                self.size)
        async with self.slots:
            conn = self.free.pop() if self.free else await self._connect()
            ok = False
            try:
                cur = await conn.execute(self.sql if holder is None else self.driver_sql, params)
                row = await cur.fetchone()
                ok = True
            except psycopg.errors.UniqueViolation as exc:
                ok = True  # the connection is fine
                raise DuplicateMove(f"move {n} of table {table_id} is already logged") from exc
            finally:
                if ok and not conn.closed:
                    self.free.append(conn)
                else:
                    await conn.close()
        return _logged(row, table_id, n)

    async def _connect(self) -> Any:
        import psycopg

        conn = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
        if not self.synchronous:  # MEEPLE_DB_SYNC_COMMIT=off: see config.py
            await conn.execute("SET synchronous_commit = off")
        return conn

    async def close(self) -> None:
        while self.free:
            await self.free.pop().close()


class DuplicateMove(Exception):
    """Move ``n`` of this table is already logged (a stale or concurrent write)."""


class NotDriver(DuplicateMove):
    """A driver's move from a server that no longer holds the table's lease (it hung and
    another server took the table over): not logged."""


def _logged(row: Any, table_id: str, n: int) -> int:
    """The version a move statement returned, or why it logged nothing."""
    if row is not None and len(row) > 1 and not row[1]:
        raise NotDriver(f"table {table_id} is driven by another server; move {n} was not logged")
    if row is None or row[0] is None:
        raise DuplicateMove(f"table {table_id} had steps undone; move {n} was not logged")
    return int(row[0])


@dataclass(frozen=True)
class Claim:
    """An idempotency key as one request holds it: ``token`` tells this request's claim from a
    retry's that took the key over (see idempotency.py)."""

    key: str
    token: str


class ClaimLost(Exception):
    """A retry took this request's claim over: its effect must not commit (the retry's does)."""


@dataclass
class SeatRecord:
    seat: int
    kind: str = "open"
    name: str | None = None
    level: str | None = None
    secret_hash: str | None = None
    zombie: bool = False
    client_hash: str | None = None
    user_id: int | None = None
    account_bot: bool = False


@dataclass
class TableRecord:
    id: str
    game: str
    players: int
    seed: int
    options: dict[str, Any]
    host_hash: str
    status: str = "open"
    time_limit: float | None = None
    rematch_of: str | None = None
    rematch: str | None = None
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    updated_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    seats: list[SeatRecord] = field(default_factory=list)
    version: int = 0
    deadline: float | None = None
    undos: int = 0
    undone_to: int | None = None
    speed: dict[str, Any] | None = None
    clocks: str | None = None  # JSON text, read and written by clocks.py


def _now() -> datetime:
    return datetime.now(UTC)


class Storage:
    """The database, migrated to the newest schema on `migrate`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.inline = url.startswith("sqlite")  # see TableManager.db
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            # No ping per checkout (a round trip per call, on every move): a connection found
            # dead fails that one call, and SQLAlchemy then drops the whole pool.
            kwargs["pool_recycle"] = 600
            kwargs["pool_size"] = 16  # one per database thread (TableManager.db_threads)
            kwargs["max_overflow"] = 8
        self.engine: Engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self.autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self.clock = Clock()
        # idempotency claims whose answer was committed with their effect (`create_table`,
        # `transact`): the request needs no second write of it (`Services.once`)
        self._answered: set[Claim] = set()

    def answered(self, claim: Claim) -> bool:
        """Whether ``claim``'s answer was committed with its effect (asked once: forgotten then)."""
        try:
            self._answered.remove(claim)
        except KeyError:
            return False
        return True

    def own_engine(self) -> Engine:
        """An engine with a connection of its own, for work that must not queue behind the
        shared pool when moves fill it (the lease loop, `Presence`). SQLite: the shared one."""
        if self.inline:
            return self.engine
        return create_engine(self.url, pool_size=1, max_overflow=1, pool_recycle=600)

    def sync_clock(self, conn: Any) -> None:
        """Measure this machine's clock against the database's (PostgreSQL; SQLite is a file on
        this machine). The offset of a quick round trip is kept; a slow one is trusted only
        when no quick one came for a while (clocks drift)."""
        if conn.dialect.name != "postgresql":
            return
        t0 = self.clock.local()
        db = float(conn.exec_driver_sql(
            "SELECT extract(epoch FROM clock_timestamp())").scalar_one())
        t1 = self.clock.local()
        rtt = t1 - t0
        self.clock.best_rtt = min(self.clock.best_rtt * 1.05, 10.0)  # forget old quick ones
        if rtt <= self.clock.best_rtt:
            self.clock.best_rtt = rtt
            self.clock.offset = db - (t0 + t1) / 2

    def migrate(self, target: str = "head") -> None:
        """Bring the schema to Alembic's head (runs on every start; a no-op when current).
        ``target`` names an older revision (tests build yesterday's schema with it)."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option(
            "script_location", str(resources.files("meeple.server").joinpath("migrations"))
        )
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # servers starting together on one database migrate one after the other (the
                # lock ends with this transaction); the later ones then find the schema current
                conn.exec_driver_sql("SELECT pg_advisory_xact_lock(7316016)")
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, target)

    def dispose(self) -> None:
        self.engine.dispose()

    def ping(self) -> None:
        """One round trip (readiness)."""
        with self.engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")

    # ----- tables and seats -------------------------------------------------------------------
    def create_table(self, rec: TableRecord, claim: Claim | None = None,
                     answer: dict[str, Any] | None = None) -> None:
        """Store a new table; with ``claim``, its answer in the same transaction (`ClaimLost`:
        neither)."""
        with self.engine.begin() as conn:
            insert_table(conn, rec)
            if claim is not None:
                store_answer(conn, claim, 200, answer)
        if claim is not None and answer is not None:
            self._answered.add(claim)

    def transact(self, table_id: str, decide: Callable[[TableRecord, Any], T],
                 claim: Claim | None = None) -> tuple[TableRecord, T]:
        """Decide a change of a table in the database, in one transaction.

        The table row is locked (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite takes its
        write lock first), ``decide(rec, conn)`` sees the stored truth, changes ``rec`` in place
        (seats, status, deadline, rematch) or raises, and what changed is written with the
        version bumped. With ``claim`` the result (a JSON dict) is stored as that claim's
        answer in the same transaction (`ClaimLost`: nothing is). Returns the new record and
        ``decide``'s result.
        """
        with self.engine.begin() as conn:
            if self.inline:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            row = conn.execute(
                select(tables_t).where(tables_t.c.id == table_id).with_for_update()
            ).mappings().first()
            if row is None:
                raise LookupError(table_id)
            seats = conn.execute(
                select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat)
            ).mappings().all()
            rec = _table_record(row, seats)
            before = copy.deepcopy(rec)
            result = decide(rec, conn)
            for old, new in zip(before.seats, rec.seats, strict=True):
                if old != new:
                    conn.execute(
                        update(seats_t)
                        .where(seats_t.c.table_id == table_id, seats_t.c.seat == new.seat)
                        .values(**{k: v for k, v in new.__dict__.items() if k != "seat"})
                    )
            rec.version = before.version + 1
            rec.updated_at = _now()
            conn.execute(
                update(tables_t).where(tables_t.c.id == table_id).values(
                    status=rec.status, deadline=rec.deadline, rematch=rec.rematch,
                    version=rec.version, updated_at=rec.updated_at, undos=rec.undos,
                    undone_to=rec.undone_to, clocks=rec.clocks)
            )
            if claim is not None:
                store_answer(conn, claim, 200, result)  # type: ignore[arg-type]
        if claim is not None:
            self._answered.add(claim)
        return rec, result

    def snapshot(self, table_id: str, since: int = 0) -> tuple[TableRecord | None, list[int]]:
        """The table's record, then its actions from ``since`` on, on one connection.

        The record is read first: the actions may be newer than its version, never older, so a
        version compared later can only cause one read too many, never a move missed."""
        with self.engine.connect() as conn:
            rec = _load(conn, table_id)
            return rec, (_actions(conn, table_id, since) if rec is not None else [])

    def versions(self, ids: Iterable[str]) -> dict[str, int]:
        """Each table's version (the tables a server has open, to resync the ones that moved)."""
        ids = list(ids)
        out: dict[str, int] = {}
        with self.engine.connect() as conn:
            for i in range(0, len(ids), 500):
                out.update(conn.execute(
                    select(tables_t.c.id, tables_t.c.version)
                    .where(tables_t.c.id.in_(ids[i:i + 500]))).all())
        return out

    def load_table(self, table_id: str) -> TableRecord | None:
        with self.engine.connect() as conn:
            return _load(conn, table_id)

    def list_tables(self, statuses: tuple[str, ...], limit: int = 200) -> list[TableRecord]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(tables_t)
                .where(tables_t.c.status.in_(statuses))
                .order_by(tables_t.c.updated_at.desc())
                .limit(limit)
            ).mappings().all()
            ids = [r["id"] for r in rows]
            seats = conn.execute(
                select(seats_t).where(seats_t.c.table_id.in_(ids)).order_by(seats_t.c.seat)
            ).mappings().all() if ids else []
        by_table: dict[str, list[Any]] = {}
        for s in seats:
            by_table.setdefault(s["table_id"], []).append(s)
        return [_table_record(r, by_table.get(r["id"], [])) for r in rows]

    def update_seat(self, table_id: str, seat: SeatRecord, only_if_kind: str | None = None) -> bool:
        """Write a seat; with ``only_if_kind`` only if the stored seat still has that kind."""
        values = {k: v for k, v in seat.__dict__.items() if k != "seat"}
        stmt = update(seats_t).where(seats_t.c.table_id == table_id, seats_t.c.seat == seat.seat)
        if only_if_kind is not None:
            stmt = stmt.where(seats_t.c.kind == only_if_kind)
        with self.engine.begin() as conn:
            done = conn.execute(stmt.values(**values)).rowcount == 1
            if done:
                conn.execute(_BUMP, {"tid": table_id, "now": _now()})
        return done

    def set_status(self, table_id: str, status: str) -> int:
        """Set a table's status; returns its new version."""
        with self.engine.begin() as conn:
            row = conn.execute(
                update(tables_t).where(tables_t.c.id == table_id)
                .values(status=status, updated_at=_now(), version=tables_t.c.version + 1,
                        **({"deadline": None} if status == "over" else {}))
                .returning(tables_t.c.version)
            ).first()
        return int(row[0]) if row is not None else 0

    def set_rematch(self, table_id: str, rematch_id: str) -> bool:
        """Link a rematch once: the first caller wins, later ones get False."""
        with self.engine.begin() as conn:
            return conn.execute(
                update(tables_t)
                .where(tables_t.c.id == table_id, tables_t.c.rematch.is_(None))
                .values(rematch=rematch_id, version=tables_t.c.version + 1)
            ).rowcount == 1

    # ----- presence -----------------------------------------------------------------------------
    def touch_presence(self, seats: Iterable[tuple[str, int]], at: float | None = None) -> None:
        """These seats have a socket on this server at ``at`` (now by default; one statement)."""
        at = self.clock.now() if at is None else at
        rows = [{"table_id": tid, "seat": seat, "seen_at": at} for tid, seat in seats]
        if not rows:
            return
        if self.engine.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as upsert
        else:
            from sqlalchemy.dialects.sqlite import insert as upsert
        stmt = upsert(presence_t)
        stmt = stmt.on_conflict_do_update(index_elements=["table_id", "seat"],
                                          set_={"seen_at": stmt.excluded.seen_at})
        with self.engine.begin() as conn:
            conn.execute(stmt, rows)

    def presence(self, ids: Iterable[str]) -> list[tuple[str, int, float]]:
        """The stored presence rows (table, seat, seen at) of these tables."""
        ids = list(ids)
        out: list[tuple[str, int, float]] = []
        with self.engine.connect() as conn:
            for i in range(0, len(ids), 500):
                out.extend(tuple(r) for r in conn.execute(
                    select(presence_t.c.table_id, presence_t.c.seat, presence_t.c.seen_at)
                    .where(presence_t.c.table_id.in_(ids[i:i + 500]))).all())
        return out

    def sweep_presence(self, older_than: float) -> int:
        """Forget presence rows seen before ``older_than`` (database clock) or of finished
        tables: neither can change an answer (a seat not seen for the wait counts as away
        with or without its row; only running tables are asked). Returns the rows removed."""
        over = exists().where(tables_t.c.id == presence_t.c.table_id, tables_t.c.status == "over")
        with self.engine.begin() as conn:
            return conn.execute(delete(presence_t).where(
                or_(presence_t.c.seen_at < older_than, over))).rowcount or 0

    # ----- the action log ---------------------------------------------------------------------
    def append_action(
        self, table_id: str, n: int, seat: int, action: int, status: str | None = None,
        deadline: float | None = None, undos: int | None = None, holder: str | None = None,
        clocks: str | None = None,
    ) -> int:
        """Log move ``n`` (and the next move's deadline, or the final status) in one transaction.

        Returns the table's new version. Raises `DuplicateMove` if move ``n`` is already logged,
        or (with ``undos``) if the table's undo count is no longer ``undos``: an undo removed
        steps the caller's copy still holds. With ``holder`` (a driver's move: a bot's), raises
        `NotDriver` unless that lease holder still holds the table's lease.
        """
        now = _now()
        if undos is not None:  # the server's moves: one statement on PostgreSQL
            return self._append_if_undos(table_id, n, seat, action, deadline, undos, now, holder,
                                         clocks)
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    _INSERT_ACTION,
                    {"table_id": table_id, "n": n, "seat": seat, "action": action, "at": now},
                )
                if status is None:
                    row = conn.execute(_TOUCH_TABLE, {"tid": table_id, "now": now,
                                                      "deadline": deadline,
                                                      "clocks": clocks}).first()
                else:
                    row = conn.execute(_FINISH_TABLE, {"tid": table_id, "now": now,
                                                       "new_status": status}).first()
        except IntegrityError as exc:
            raise DuplicateMove(f"move {n} of table {table_id} is already logged") from exc
        return int(row[0]) if row is not None else 0

    def _append_if_undos(self, table_id: str, n: int, seat: int, action: int,
                         deadline: float | None, undos: int, now: datetime,
                         holder: str | None = None, clocks: str | None = None) -> int:
        params = {"table_id": table_id, "n": n, "seat": seat, "action": action, "at": now,
                  "tid": table_id, "now": now, "deadline": deadline, "expected_undos": undos,
                  "holder": holder, "clocks": clocks}
        try:
            if self.engine.dialect.name == "postgresql":  # one statement, one round trip
                with self.autocommit.connect() as conn:
                    row = conn.execute(_PG_MOVE_IF_UNDOS if holder is None else _PG_DRIVER_MOVE,
                                       params).first()
            else:
                with self.engine.begin() as conn:
                    if holder is not None and self.inline:
                        conn.exec_driver_sql("BEGIN IMMEDIATE")  # the write lock first
                    if holder is not None and not holds_lease(conn, table_id, holder):
                        return _logged((None, False), table_id, n)
                    row = conn.execute(_TOUCH_IF_UNDOS, params).first()
                    if row is not None:
                        conn.execute(_INSERT_ACTION, params)
        except IntegrityError as exc:
            raise DuplicateMove(f"move {n} of table {table_id} is already logged") from exc
        return _logged(row, table_id, n)

    def actions(self, table_id: str, since: int = 0) -> list[int]:
        """The logged actions from move ``since`` on, in order."""
        with self.engine.connect() as conn:
            return _actions(conn, table_id, since)

    def last_action_time(self, table_id: str) -> datetime | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(actions_t.c.at).where(actions_t.c.table_id == table_id)
                .order_by(actions_t.c.n.desc()).limit(1)
            ).first()
        return None if row is None else _aware(row[0])


def insert_table(conn: Any, rec: TableRecord) -> None:
    """Insert a table and its seats on an open connection (inside the caller's transaction)."""
    conn.execute(
        insert(tables_t).values(
            id=rec.id, game=rec.game, players=rec.players, seed=rec.seed,
            options=rec.options, status=rec.status, host_hash=rec.host_hash,
            time_limit=rec.time_limit, rematch_of=rec.rematch_of, rematch=rec.rematch,
            created_at=rec.created_at, updated_at=rec.updated_at, version=rec.version,
            deadline=rec.deadline, undos=rec.undos, undone_to=rec.undone_to,
            speed=rec.speed, clocks=rec.clocks,
        )
    )
    conn.execute(insert(seats_t), [{"table_id": rec.id, **s.__dict__} for s in rec.seats])


def store_answer(conn: Any, claim: Claim, status: int, answer: dict[str, Any] | None) -> None:
    """Record an idempotency key's answer, inside the effect's transaction. Only the claim
    still held stores one; else `ClaimLost`, so that the effect rolls back."""
    stored = conn.execute(update(idempotency_t).where(*held(claim))
                          .values(status=status, answer=answer))
    if stored.rowcount != 1:
        raise ClaimLost(claim.key)


def held(claim: Claim) -> tuple[Any, ...]:
    """Where ``claim``'s row is still that request's and has no answer yet."""
    return (idempotency_t.c.key == claim.key, idempotency_t.c.token == claim.token,
            idempotency_t.c.status.is_(None))


def delete_actions(conn: Any, table_id: str, since: int) -> None:
    """Undo: delete the logged moves from ``since`` on (inside the caller's transaction)."""
    conn.execute(delete(actions_t).where(actions_t.c.table_id == table_id, actions_t.c.n >= since))


def holds_lease(conn: Any, table_id: str, holder: str) -> bool:
    """Whether ``holder`` holds the table's lease now (inside the caller's transaction)."""
    return conn.execute(select(leases_t.c.holder).where(
        leases_t.c.table_id == table_id, leases_t.c.holder == holder)).first() is not None


def count_actions(conn: Any, table_id: str) -> int:
    return int(conn.execute(select(func.count()).select_from(actions_t)
                            .where(actions_t.c.table_id == table_id)).scalar_one())


def _load(conn: Any, table_id: str) -> TableRecord | None:
    row = conn.execute(select(tables_t).where(tables_t.c.id == table_id)).mappings().first()
    if row is None:
        return None
    seats = conn.execute(
        select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat)
    ).mappings().all()
    return _table_record(row, seats)


def _actions(conn: Any, table_id: str, since: int) -> list[int]:
    rows = conn.execute(
        select(actions_t.c.n, actions_t.c.action)
        .where(actions_t.c.table_id == table_id, actions_t.c.n >= since)
        .order_by(actions_t.c.n)
    ).all()
    expected = since
    out = []
    for n, action in rows:
        if n != expected:
            raise RuntimeError(f"action log of {table_id} has a gap at move {expected}")
        out.append(action)
        expected += 1
    return out


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _table_record(row: Any, seats: list[Any]) -> TableRecord:
    options = row["options"]
    if isinstance(options, str):  # some drivers hand JSON back as text
        options = json.loads(options)
    return TableRecord(
        id=row["id"], game=row["game"], players=row["players"], seed=row["seed"],
        options=options, host_hash=row["host_hash"], status=row["status"],
        time_limit=row["time_limit"], rematch_of=row["rematch_of"], rematch=row["rematch"],
        created_at=_aware(row["created_at"]), updated_at=_aware(row["updated_at"]),
        version=row.get("version") or 0, deadline=row.get("deadline"),
        undos=row.get("undos") or 0, undone_to=row.get("undone_to"),
        speed=_json(row.get("speed")), clocks=row.get("clocks"),
        seats=[
            SeatRecord(seat=s["seat"], kind=s["kind"], name=s["name"], level=s["level"],
                       secret_hash=s["secret_hash"], zombie=bool(s["zombie"]),
                       client_hash=s.get("client_hash"), user_id=s.get("user_id"),
                       account_bot=bool(s.get("account_bot") or False))
            for s in seats
        ],
    )


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    """WAL lets readers work during a write; NORMAL sync is durable across a process crash."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()
