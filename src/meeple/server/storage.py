"""Storage: tables, seats and the append-only action log, on SQLite or PostgreSQL.

The action log is the source of truth: a table's state is ``meeple.make(...)`` plus its logged
actions, so a restarted server rebuilds every table exactly. ``(table_id, n)`` is the primary
key of a logged action, which makes a second write of move ``n`` fail in the database itself:
no double-apply, even between servers side by side.

Only SQLAlchemy Core is used; calls are synchronous and the server runs them in threads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    create_engine,
    event,
    insert,
    select,
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
)

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


# The statements a move runs, built once: rebuilding a Core statement per call costs more than
# SQLite takes to run it (cache keys, coercions), and the server writes one per move.
_INSERT_ACTION = insert(actions_t)
_TOUCH_TABLE = (
    update(tables_t).where(tables_t.c.id == bindparam("tid")).values(updated_at=bindparam("now"))
)
_FINISH_TABLE = (
    update(tables_t).where(tables_t.c.id == bindparam("tid"))
    .values(updated_at=bindparam("now"), status=bindparam("new_status"))
)


class DuplicateMove(Exception):
    """Move ``n`` of this table is already logged (a stale or concurrent write)."""


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


def _now() -> datetime:
    return datetime.now(UTC)


class Storage:
    """The database, migrated to the newest schema on `migrate`."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.inline = url.startswith("sqlite")  # see TableManager._db
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            kwargs["pool_pre_ping"] = True
            kwargs["pool_size"] = 10
        self.engine: Engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)

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
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, target)

    def dispose(self) -> None:
        self.engine.dispose()

    # ----- tables and seats -------------------------------------------------------------------
    def create_table(self, rec: TableRecord) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                insert(tables_t).values(
                    id=rec.id, game=rec.game, players=rec.players, seed=rec.seed,
                    options=rec.options, status=rec.status, host_hash=rec.host_hash,
                    time_limit=rec.time_limit, rematch_of=rec.rematch_of, rematch=rec.rematch,
                    created_at=rec.created_at, updated_at=rec.updated_at,
                )
            )
            conn.execute(
                insert(seats_t),
                [{"table_id": rec.id, **s.__dict__} for s in rec.seats],
            )

    def load_table(self, table_id: str) -> TableRecord | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(tables_t).where(tables_t.c.id == table_id)).mappings().first()
            if row is None:
                return None
            seats = conn.execute(
                select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat)
            ).mappings().all()
        return _table_record(row, seats)

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
                conn.execute(
                    update(tables_t).where(tables_t.c.id == table_id).values(updated_at=_now())
                )
        return done

    def set_status(self, table_id: str, status: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(tables_t).where(tables_t.c.id == table_id)
                .values(status=status, updated_at=_now())
            )

    def set_rematch(self, table_id: str, rematch_id: str) -> bool:
        """Link a rematch once: the first caller wins, later ones get False."""
        with self.engine.begin() as conn:
            return conn.execute(
                update(tables_t)
                .where(tables_t.c.id == table_id, tables_t.c.rematch.is_(None))
                .values(rematch=rematch_id)
            ).rowcount == 1

    # ----- the action log ---------------------------------------------------------------------
    def append_action(
        self, table_id: str, n: int, seat: int, action: int, status: str | None = None
    ) -> None:
        """Log move ``n``. Raises `DuplicateMove` if move ``n`` is already logged."""
        now = _now()
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    _INSERT_ACTION,
                    {"table_id": table_id, "n": n, "seat": seat, "action": action, "at": now},
                )
                if status is None:
                    conn.execute(_TOUCH_TABLE, {"tid": table_id, "now": now})
                else:
                    conn.execute(_FINISH_TABLE, {"tid": table_id, "now": now, "new_status": status})
        except IntegrityError as exc:
            raise DuplicateMove(f"move {n} of table {table_id} is already logged") from exc

    def actions(self, table_id: str, since: int = 0) -> list[int]:
        """The logged actions from move ``since`` on, in order."""
        with self.engine.connect() as conn:
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

    def last_action_time(self, table_id: str) -> datetime | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(actions_t.c.at).where(actions_t.c.table_id == table_id)
                .order_by(actions_t.c.n.desc()).limit(1)
            ).first()
        return None if row is None else _aware(row[0])


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
        seats=[
            SeatRecord(seat=s["seat"], kind=s["kind"], name=s["name"], level=s["level"],
                       secret_hash=s["secret_hash"], zombie=bool(s["zombie"]),
                       client_hash=s.get("client_hash"), user_id=s.get("user_id"))
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
