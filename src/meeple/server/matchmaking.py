"""Play now: a queue per game in the database, so any number of servers share it.

Each server's matcher runs every `Settings.matchmaking_interval` seconds: in one transaction
it reads the waiting entries (``SELECT ... FOR UPDATE SKIP LOCKED`` on PostgreSQL, so two
servers never hold the same entry; on SQLite the database's single writer serialises them),
forms tables, writes each table with its seats, and marks its entries ``seated`` with a
conditional update (``status = 'waiting'``) whose row count must match, under a savepoint per
table: an entry is seated at most once, whatever the servers race to do.

Players are matched when their shown ratings are within a window that widens the longer the
oldest of them waits (`window`). An entry may ask for bots after a wait of its choosing: then
a table of the smallest accepted size is formed with whoever matches and bots in the rest.
Players learn of their table by long-polling ``GET /api/play?wait=`` (woken through the pub/sub
bus when another server seated them).

An account has at most one waiting entry per game, which the database enforces (a partial unique
index); a new request replaces the old entry. An entry waits only while its owner's page is
there: each poll marks it seen, and one unseen for `PRESENCE_SECONDS` expires, unless the owner
asked for a turn-based search (``turn_based``), which waits without a page.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import secrets
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator
from sqlalchemy import and_, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

import meeple

from .bot_seats import zombie_level
from .pubsub import LocalBus
from .schema_players import queue_t, users_t
from .storage import SeatRecord, Storage, seats_t, tables_t
from .tables import TableError, TableManager, hash_secret, new_secret

log = logging.getLogger("meeple.server")
WINDOW_START = 100.0  # rating points either side at once
WINDOW_GROWTH = 50.0  # more per second of waiting
WINDOW_OPEN = 30.0    # after this many seconds anyone matches anyone
# a waiting entry whose owner's page has not polled for this long expires (turn-based ones wait)
PRESENCE_SECONDS = float(os.environ.get("MEEPLE_PLAY_PRESENCE_SECONDS") or 60.0)


def window(waited: float) -> float:
    """How far apart two ratings may be after waiting ``waited`` seconds."""
    return float("inf") if waited >= WINDOW_OPEN else WINDOW_START + WINDOW_GROWTH * waited


class PlayBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_]+$")]
    players: list[Annotated[StrictInt, Field(ge=1, le=16)]] = Field(min_length=1, max_length=8)
    options: dict[Annotated[str, Field(max_length=64)], Any] = Field(default_factory=dict)
    time_limit: Annotated[float, Field(gt=0, le=7 * 86400)] | None = None
    bot_after: Annotated[float, Field(ge=0, le=3600)] | None = None
    turn_based: bool = False  # wait without the page open

    @field_validator("options")
    @classmethod
    def _scalars(cls, value: dict[str, Any]) -> dict[str, Any]:
        if len(value) > 16 or any(not (v is None or isinstance(v, bool | int | float)
                                       or (isinstance(v, str) and len(v) <= 64))
                                  for v in value.values()):
            raise ValueError("options are a few short scalars")
        return value


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


class Matchmaker:
    def __init__(self, storage: Storage, manager: TableManager, interval: float = 0.5) -> None:
        self.engine = storage.engine
        self.pg = storage.engine.dialect.name == "postgresql"
        self.manager = manager
        self.interval = interval
        self.task: asyncio.Task[None] | None = None
        self.waiters: dict[int, set[asyncio.Event]] = {}  # user id -> woken when seated

    # ----- the queue --------------------------------------------------------------------------
    def enqueue(self, user_id: int, body: PlayBody, rating: float) -> int:
        """One waiting entry per account and game: a new one replaces the old."""
        info = meeple.game_info(body.game)
        counts = sorted(set(body.players))
        for n in counts:
            if n not in info.player_counts:
                raise TableError("bad_request", f"{info.title} takes {list(info.player_counts)} players")
            info.resolve_options(n, body.options)  # refuse options a count cannot take
        for attempt in range(10):
            try:
                with self.engine.begin() as conn:
                    conn.execute(update(queue_t).where(
                        queue_t.c.user_id == user_id, queue_t.c.game == body.game,
                        queue_t.c.status == "waiting").values(status="cancelled"))
                    now = _now()
                    return int(conn.execute(insert(queue_t).values(
                        user_id=user_id, game=body.game, counts=counts,
                        options=dict(sorted(body.options.items())), time_limit=body.time_limit,
                        rating=rating, bot_after=body.bot_after, status="waiting",
                        created_at=now, seen_at=now, turn_based=body.turn_based,
                    )).inserted_primary_key[0])
            except IntegrityError:  # a concurrent request's entry won the index: replace it
                if attempt == 9:
                    raise TableError("in_progress", "another Play now request is running") from None
        raise AssertionError("unreachable")

    def seen(self, user_id: int) -> None:
        """The owner's page is there: its waiting entries stay."""
        with self.engine.begin() as conn:
            conn.execute(update(queue_t).where(
                queue_t.c.user_id == user_id, queue_t.c.status == "waiting").values(seen_at=_now()))

    def expire(self, now: datetime | None = None) -> int:
        """Entries whose page is gone (not turn-based, unseen for `PRESENCE_SECONDS`)."""
        cut = (now or _now()) - timedelta(seconds=PRESENCE_SECONDS)
        with self.engine.begin() as conn:
            return conn.execute(update(queue_t).where(
                queue_t.c.status == "waiting", queue_t.c.turn_based.is_(False),
                or_(queue_t.c.seen_at < cut,
                    and_(queue_t.c.seen_at.is_(None), queue_t.c.created_at < cut)))
                .values(status="expired")).rowcount

    def cancel(self, user_id: int) -> int:
        with self.engine.begin() as conn:
            return conn.execute(update(queue_t).where(
                queue_t.c.user_id == user_id, queue_t.c.status == "waiting")
                .values(status="cancelled")).rowcount

    def entries(self, user_id: int) -> list[dict[str, Any]]:
        """This account's waiting entries and its latest seated ones."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(queue_t).where(
                queue_t.c.user_id == user_id, queue_t.c.status.in_(("waiting", "seated")))
                .order_by(queue_t.c.id.desc()).limit(10)).mappings().all()
        return [{"id": r["id"], "game": r["game"], "players": r["counts"], "status": r["status"],
                 "table": r["table_id"], "seat": r["seat"],
                 "since": _aware(r["created_at"]).isoformat(),
                 "waited": round(((_aware(r["seated_at"]) if r["seated_at"] else _now())
                                  - _aware(r["created_at"])).total_seconds(), 3)} for r in rows]

    # ----- matching ---------------------------------------------------------------------------
    def match_once(self, now: datetime | None = None) -> list[tuple[str, list[int]]]:
        """Form every table the waiting entries allow; returns (table id, user ids) per table."""
        now = now or _now()
        self.expire(now)
        formed: list[tuple[str, list[int]]] = []
        with self.engine.begin() as conn:
            stmt = (select(queue_t, users_t.c.username, users_t.c.is_bot, users_t.c.no_bots)
                    .join(users_t, users_t.c.id == queue_t.c.user_id)
                    .where(queue_t.c.status == "waiting").order_by(queue_t.c.id).limit(5000))
            if self.pg:
                stmt = stmt.with_for_update(skip_locked=True, of=queue_t)
            rows = [dict(r) for r in conn.execute(stmt).mappings()]
            groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
            for r in rows:
                r["waited"] = (now - _aware(r["created_at"])).total_seconds()
                key = (r["game"], json.dumps(r["options"], sort_keys=True), r["time_limit"])
                groups.setdefault(key, []).append(r)
            for entries in groups.values():
                for plan in _plans(entries):
                    try:
                        with conn.begin_nested():
                            tid = self._seat(conn, plan, now)
                        formed.append((tid, [e["user_id"] for e in plan["people"]]))
                    except _Lost:
                        continue
        return formed

    def _seat(self, conn: Any, plan: dict[str, Any], now: datetime) -> str:
        people, n = plan["people"], plan["players"]
        game, options, time_limit = people[0]["game"], people[0]["options"], people[0]["time_limit"]
        info = meeple.game_info(game)
        resolved = info.resolve_options(n, options)
        order = list(range(n))
        random.shuffle(order)
        tid = secrets.token_hex(6)
        level = zombie_level(game)
        seats = [SeatRecord(n_, "bot", name=f"Bot {n_ + 1} ({level})", level=level) for n_ in range(n)]
        for e, seat in zip(people, order, strict=False):
            seats[seat] = SeatRecord(seat, "human", name=e["username"],
                                     secret_hash=hash_secret(new_secret()), user_id=e["user_id"],
                                     account_bot=bool(e.get("is_bot")))
            e["seat"] = seat
        done = 0
        for e in people:
            done += conn.execute(update(queue_t).where(
                queue_t.c.id == e["id"], queue_t.c.status == "waiting").values(
                status="seated", table_id=tid, seat=e["seat"], seated_at=now)).rowcount
        if done != len(people):
            raise _Lost()  # another server seated one of them first: undo this table
        conn.execute(insert(tables_t).values(
            id=tid, game=game, players=n, seed=secrets.randbits(62), options=resolved,
            status="running", host_hash=hash_secret(new_secret()), time_limit=time_limit,
            rematch_of=None, rematch=None, created_at=now, updated_at=now))
        conn.execute(insert(seats_t), [{"table_id": tid, **s.__dict__} for s in seats])
        return tid

    async def run_once(self) -> list[str]:
        formed = await asyncio.to_thread(self.match_once)
        users: list[int] = []
        for tid, people in formed:
            users += people
            try:
                await self.manager.get(tid)  # load it here: its bots start, its clock runs
            except Exception:
                log.exception("matchmaking: could not open table %s", tid)
        if users:
            self._wake(users)
            if not isinstance(self.manager.bus, LocalBus):
                await self.manager.bus.publish({"table": None, "seated": users})
        return [tid for tid, _ in formed]

    def _wake(self, users: list[int]) -> None:
        for u in users:
            for ev in self.waiters.get(u, ()):
                ev.set()

    async def on_message(self, message: dict[str, Any]) -> None:
        seated = message.get("seated")
        if isinstance(seated, list):
            self._wake([u for u in seated if isinstance(u, int)])

    def on_change(self, t: Any) -> None:
        return None

    async def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass

    async def _loop(self) -> None:
        while True:
            # jitter: servers side by side take turns rather than colliding each round
            await asyncio.sleep(self.interval * random.uniform(0.7, 1.3))
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("matchmaking round failed")

    async def entries_when_seated(self, user_id: int, seconds: float) -> list[dict[str, Any]]:
        """The entries, once one is seated or after ``seconds`` (listening before reading, so
        a table formed in between is not missed)."""
        ev = asyncio.Event()
        self.waiters.setdefault(user_id, set()).add(ev)
        try:
            entries = await asyncio.to_thread(self.entries, user_id)
            if seconds > 0 and any(e["status"] == "waiting" for e in entries):
                try:
                    await asyncio.wait_for(ev.wait(), seconds)
                except TimeoutError:
                    return entries
                entries = await asyncio.to_thread(self.entries, user_id)
            return entries
        finally:
            mine = self.waiters.get(user_id, set())
            mine.discard(ev)
            if not mine:
                self.waiters.pop(user_id, None)


class _Lost(Exception):
    pass


def _mix(b: dict[str, Any], group: list[dict[str, Any]]) -> bool:
    """``b`` may sit with everyone in ``group``: a bot account never sits with a person who
    asked not to play bot accounts (their ``no_bots`` preference)."""
    return all(not ((b.get("is_bot") and g.get("no_bots")) or (g.get("is_bot") and b.get("no_bots")))
               for g in group)


def _plans(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tables from one group's entries (same game, options, time limit), oldest first: each
    entry with the nearest-rated others that accept a common size, within both windows."""
    used: set[int] = set()
    plans = []
    for a in sorted(entries, key=lambda e: e["id"]):
        if a["id"] in used:
            continue
        best: list[dict[str, Any]] | None = None
        size = 0
        for n in sorted(a["counts"], reverse=True):  # the largest table that fills
            near = sorted(
                (b for b in entries if b["id"] not in used and b["id"] != a["id"]
                 and n in b["counts"] and b["user_id"] != a["user_id"]
                 and abs(b["rating"] - a["rating"]) <= min(window(a["waited"]), window(b["waited"]))),
                key=lambda b: abs(b["rating"] - a["rating"]))
            group = [a]
            for b in near:
                if len(group) == n:
                    break
                if b["user_id"] not in {g["user_id"] for g in group} and _mix(b, group):
                    group.append(b)
            if len(group) == n:
                best, size = group, n
                break
        if best is None and a["bot_after"] is not None and a["waited"] >= a["bot_after"]:
            size = min(a["counts"])
            near = sorted((b for b in entries if b["id"] not in used and b["id"] != a["id"]
                           and size in b["counts"] and b["user_id"] != a["user_id"]),
                          key=lambda b: abs(b["rating"] - a["rating"]))
            best = [a]
            for b in near:
                if len(best) == size:
                    break
                if b["user_id"] not in {g["user_id"] for g in best} and _mix(b, best):
                    best.append(b)
        if best is not None:
            used.update(e["id"] for e in best)
            plans.append({"people": best, "players": size})
    return plans


def router(matchmaker: Matchmaker, current: Any, ratings: Any, limits: Any) -> APIRouter:
    api = APIRouter()

    @api.post("/api/play")
    async def play(body: PlayBody, request: Request) -> dict[str, Any]:
        user = await current(request)
        if user.get("bot"):
            raise TableError("bot_account", "a bot account asks for games through the Bot API")
        await limits.hit("play", f"user:{user['id']}")
        rating = await asyncio.to_thread(ratings.rating_of, user["id"], body.game)
        entry = await asyncio.to_thread(matchmaker.enqueue, user["id"], body, rating)
        return {"id": entry, "status": "waiting", "rating": rating}

    @api.get("/api/play")
    async def status(request: Request, wait: float = 0.0) -> dict[str, Any]:
        """My entries; with ``wait`` (at most 30 s) first wait until one of them is seated."""
        user = await current(request)
        await asyncio.to_thread(matchmaker.seen, user["id"])
        return {"entries": await matchmaker.entries_when_seated(user["id"], min(max(wait, 0.0), 30.0))}

    @api.post("/api/play/cancel")
    async def cancel(request: Request) -> dict[str, Any]:
        user = await current(request)
        return {"cancelled": await asyncio.to_thread(matchmaker.cancel, user["id"])}

    return api
