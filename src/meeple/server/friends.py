"""Friends, invitations by name, friends-only tables, and an account's own tables.

Two accounts are friends when each has added the other; until then the one who added waits
("sent") and the other sees a request ("received"). Only friends see whether the other is
online and at which table, and only a friend (or a bot account) may be invited to a seat by
name. Removing a
friend ends it both ways. A friends-only table lets only its host's friends take an open seat
(an invitation, by link or by name, still seats whoever was invited).

"Online" is an account that asked the server something in the last `ONLINE_SECONDS` (the lobby
and My games poll) or holds a seat whose socket is open at a table (on this server, or stored
in ``meeple_presence`` by another).
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import and_, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from .models import SeatNo, Secret
from .schema_players import users_t
from .schema_social import friends_t, invites_t, seen_t, table_access_t
from .storage import SeatRecord, Storage, presence_t, seats_t, tables_t
from .tables import LiveTable, TableError, TableManager, hash_secret, new_secret, secret_ok

ONLINE_SECONDS = 60.0
PRESENCE_FRESH = 30.0  # a presence row renewed this recently: that seat's socket is open


class FriendBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    username: Annotated[str, Field(min_length=1, max_length=40)]
    add: bool = True


class InviteFriend(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: SeatNo
    username: Annotated[str, Field(min_length=1, max_length=40)]
    host: Secret | None = None  # the host secret of a browser; the host's account needs none


class InviteAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    accept: bool = True


def _now() -> datetime:
    return datetime.now(UTC)


class Social:
    """The friends store (synchronous; the routes run it in threads)."""

    def __init__(self, storage: Storage) -> None:
        self.engine = storage.engine

    # ----- friends --------------------------------------------------------------------------
    def user_id(self, username: str) -> int | None:
        with self.engine.connect() as conn:
            return conn.execute(select(users_t.c.id).where(
                users_t.c.username_key == username.casefold())).scalar()

    def is_bot(self, user_id: int) -> bool:
        with self.engine.connect() as conn:
            return bool(conn.execute(select(users_t.c.is_bot).where(
                users_t.c.id == user_id)).scalar())

    def set_friend(self, user_id: int, other: int, add: bool) -> None:
        with self.engine.begin() as conn:
            if add:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(friends_t).values(
                            user_id=user_id, friend_id=other, created_at=_now()))
                except IntegrityError:
                    pass  # already added
            else:  # ends it both ways: the other is not left with a request from us
                conn.execute(delete(friends_t).where(
                    ((friends_t.c.user_id == user_id) & (friends_t.c.friend_id == other))
                    | ((friends_t.c.user_id == other) & (friends_t.c.friend_id == user_id))))

    def relations(self, user_id: int) -> tuple[dict[int, str], dict[int, str], dict[int, str]]:
        """(friends, sent, received): id -> username each."""
        with self.engine.connect() as conn:
            mine = {r[0]: r[1] for r in conn.execute(
                select(users_t.c.id, users_t.c.username)
                .join(friends_t, friends_t.c.friend_id == users_t.c.id)
                .where(friends_t.c.user_id == user_id))}
            theirs = {r[0]: r[1] for r in conn.execute(
                select(users_t.c.id, users_t.c.username)
                .join(friends_t, friends_t.c.user_id == users_t.c.id)
                .where(friends_t.c.friend_id == user_id))}
        friends = {k: v for k, v in mine.items() if k in theirs}
        return (friends, {k: v for k, v in mine.items() if k not in theirs},
                {k: v for k, v in theirs.items() if k not in mine})

    def are_friends(self, a: int, b: int) -> bool:
        with self.engine.connect() as conn:
            n = len(conn.execute(select(friends_t.c.user_id).where(
                ((friends_t.c.user_id == a) & (friends_t.c.friend_id == b))
                | ((friends_t.c.user_id == b) & (friends_t.c.friend_id == a)))).all())
        return n == 2

    def touch(self, user_id: int, at: float) -> None:
        with self.engine.begin() as conn:
            if conn.execute(update(seen_t).where(seen_t.c.user_id == user_id)
                            .values(seen_at=at)).rowcount == 0:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(seen_t).values(user_id=user_id, seen_at=at))
                except IntegrityError:
                    pass

    def whereabouts(self, ids: list[int], since: float, fresh: float) -> tuple[set[int], dict[int, list[dict[str, Any]]]]:
        """Who of ``ids`` asked anything since ``since``, and each one's live tables with
        whether that seat's socket was stored as open since ``fresh`` (another server's)."""
        if not ids:
            return set(), {}
        with self.engine.connect() as conn:
            seen = {r[0] for r in conn.execute(select(seen_t.c.user_id).where(
                seen_t.c.user_id.in_(ids), seen_t.c.seen_at >= since))}
            rows = conn.execute(
                select(seats_t.c.user_id, seats_t.c.seat, tables_t.c.id, tables_t.c.game,
                       tables_t.c.status, presence_t.c.seen_at)
                .join(tables_t, tables_t.c.id == seats_t.c.table_id)
                .outerjoin(presence_t, and_(presence_t.c.table_id == seats_t.c.table_id,
                                            presence_t.c.seat == seats_t.c.seat))
                .where(seats_t.c.user_id.in_(ids), seats_t.c.kind == "human",
                       tables_t.c.status.in_(("open", "running")))
                .order_by(tables_t.c.updated_at.desc())).all()
        tables: dict[int, list[dict[str, Any]]] = {}
        for uid, seat, tid, game, status, at in rows:
            tables.setdefault(uid, []).append({"id": tid, "game": game, "status": status,
                                               "seat": seat, "here": at is not None and at >= fresh})
        return seen, tables

    # ----- tables ---------------------------------------------------------------------------
    def record_table(self, table_id: str, host_user: int | None, friends_only: bool) -> None:
        with self.engine.begin() as conn:
            conn.execute(insert(table_access_t).values(
                table_id=table_id, host_user_id=host_user, friends_only=friends_only))

    def access(self, table_id: str) -> dict[str, Any] | None:
        """The table's host account and openness; a rematch keeps its first table's."""
        with self.engine.connect() as conn:
            for _hop in range(50):
                row = conn.execute(select(table_access_t).where(
                    table_access_t.c.table_id == table_id)).mappings().first()
                if row is not None:
                    return dict(row)
                table_id = conn.execute(select(tables_t.c.rematch_of).where(
                    tables_t.c.id == table_id)).scalar()
                if table_id is None:
                    return None
        return None

    def finished(self, user_id: int, limit: int = 20) -> list[str]:
        """The account's most recently finished tables."""
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                select(tables_t.c.id).join(seats_t, seats_t.c.table_id == tables_t.c.id)
                .where(seats_t.c.user_id == user_id, tables_t.c.status == "over")
                .order_by(tables_t.c.updated_at.desc()).limit(limit))]

    # ----- invitations by name ----------------------------------------------------------------
    def add_invite(self, table_id: str, seat: int, user_id: int, from_user: int, secret: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(invites_t).where(invites_t.c.table_id == table_id,
                                                 invites_t.c.seat == seat))
            conn.execute(insert(invites_t).values(table_id=table_id, seat=seat, user_id=user_id,
                                                  from_user_id=from_user, secret=secret,
                                                  created_at=_now()))

    def invite(self, table_id: str, seat: int, user_id: int) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(invites_t).where(
                invites_t.c.table_id == table_id, invites_t.c.seat == seat,
                invites_t.c.user_id == user_id)).mappings().first()
        return dict(row) if row else None

    def drop_invite(self, table_id: str, seat: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(invites_t).where(invites_t.c.table_id == table_id,
                                                 invites_t.c.seat == seat))

    def invites(self, user_id: int) -> list[dict[str, Any]]:
        """Invitations to this account whose seat still waits for it."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(invites_t.c.table_id, invites_t.c.seat, invites_t.c.secret,
                       tables_t.c.game, users_t.c.username, seats_t.c.kind, seats_t.c.secret_hash)
                .join(tables_t, tables_t.c.id == invites_t.c.table_id)
                .join(users_t, users_t.c.id == invites_t.c.from_user_id)
                .join(seats_t, and_(seats_t.c.table_id == invites_t.c.table_id,
                                    seats_t.c.seat == invites_t.c.seat))
                .where(invites_t.c.user_id == user_id, tables_t.c.status == "open")).all()
        return [{"table": r.table_id, "seat": r.seat, "game": r.game, "from": r.username}
                for r in rows if r.kind == "invited" and secret_ok(r.secret, r.secret_hash)]


class Friends:
    """Friends over live tables: who is online where, invitations, friends-only tables."""

    def __init__(self, storage: Storage, manager: TableManager, notifier: Any = None) -> None:
        self.social = Social(storage)
        self.manager = manager
        self.notifier = notifier

    async def _db(self, fn: Any, *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    async def record_table(self, t: LiveTable, user: dict[str, Any] | None, friends_only: bool) -> None:
        """Remember who hosts a new table as an account, and whether it is for friends only."""
        if user is None and not friends_only:
            return
        if friends_only and user is None:
            raise TableError("unauthorized", "log in to open a table to your friends only")
        await self._db(self.social.record_table, t.rec.id, user["id"] if user else None, friends_only)

    async def check_join(self, t: LiveTable, seat: int, user: dict[str, Any] | None,
                         secret: str | None) -> None:
        """A seat of a friends-only table is for the host's friends, unless the joiner holds
        that seat's invitation (a secret given for an open seat proves nothing)."""
        if not 0 <= seat < t.rec.players:
            return
        s = t.seat(seat)
        if s.kind == "invited" and secret_ok(secret, s.secret_hash):
            return
        access = await self._db(self.social.access, t.rec.id)
        if not access or not access["friends_only"]:
            return
        host = access["host_user_id"]
        if user is None or (user["id"] != host
                            and not await self._db(self.social.are_friends, user["id"], host)):
            raise TableError("forbidden", "this table is open to the host's friends only")

    def _connected_here(self) -> dict[int, set[str]]:
        """Accounts with a seat's socket open on this server: user id -> table ids."""
        out: dict[int, set[str]] = {}
        for tid, t in self.manager.tables.items():
            if t.rec.status == "over":
                continue
            seats = {c.seat for c in t.conns if not c.closed and c.seat is not None}
            for s in t.rec.seats:
                if s.seat in seats and s.user_id is not None:
                    out.setdefault(s.user_id, set()).add(tid)
        return out

    async def listing(self, user: dict[str, Any]) -> dict[str, Any]:
        now = time.time()
        await self._db(self.social.touch, user["id"], now)
        friends, sent, received = await self._db(self.social.relations, user["id"])
        seen, tables = await self._db(self.social.whereabouts, list(friends), now - ONLINE_SECONDS,
                                      self.manager.storage.clock.now() - PRESENCE_FRESH)
        here = self._connected_here()
        out = []
        for uid, name in sorted(friends.items(), key=lambda kv: kv[1].casefold()):
            live = tables.get(uid, [])
            at = [x for x in live if x["here"] or x["id"] in here.get(uid, set())]
            out.append({"username": name, "online": bool(at) or uid in seen,
                        "table": ({"id": at[0]["id"], "game": at[0]["game"]} if at else None),
                        "tables": [{"id": x["id"], "game": x["game"], "status": x["status"]}
                                   for x in live[:10]]})
        return {"friends": out, "sent": sorted(sent.values(), key=str.casefold),
                "received": sorted(received.values(), key=str.casefold),
                "invites": await self._db(self.social.invites, user["id"])}

    async def invite(self, t: LiveTable, body: InviteFriend, user: dict[str, Any]) -> dict[str, Any]:
        """The host (by secret, or as the account that created the table) reserves a seat for
        a friend; the friend sees it in the lobby and is notified."""
        access = await self._db(self.social.access, t.rec.id)
        is_host = secret_ok(body.host, t.rec.host_hash) or bool(
            access and access["host_user_id"] == user["id"])
        if not is_host:
            raise TableError("forbidden", "only the table's host may do that")
        friend = await self._db(self.social.user_id, body.username)
        # a bot account takes invitations from anyone (it answers them through the Bot API)
        if friend is None or not (await self._db(self.social.is_bot, friend) or await self._db(
                self.social.are_friends, user["id"], friend)):
            raise TableError("no_player", "you can invite your friends (and bot accounts) only")
        if not 0 <= body.seat < t.rec.players:
            raise TableError("bad_seat", "no such seat")
        secret = new_secret()
        seat = body.seat

        def decide(rec: Any, _conn: Any) -> None:
            if rec.status != "open" or rec.seats[seat].kind not in ("open", "invited"):
                raise TableError("seat_taken", f"seat {seat} is not free")
            rec.seats[seat] = SeatRecord(seat, "invited", secret_hash=hash_secret(secret))

        await self.manager.change(t, decide)
        await self._db(self.social.add_invite, t.rec.id, seat, friend, user["id"], secret)
        if self.notifier is not None:
            self.notifier.notify_invite(t, seat, friend, user["username"])
        return {"id": t.rec.id, "seat": seat, "username": body.username}

    async def answer(self, t: LiveTable, seat: int, body: InviteAnswer, user: dict[str, Any],
                     client: str | None) -> dict[str, Any]:
        """Accept (the seat becomes the account's, with a fresh secret) or decline (the seat
        opens again)."""
        row = await self._db(self.social.invite, t.rec.id, seat, user["id"])
        if row is None:
            raise TableError("no_table", "no such invitation")
        if body.accept:
            secret = await self.manager.join(t, seat, user["username"], row["secret"], client,
                                             None, user["id"], bot=bool(user.get("bot")))
            await self._db(self.social.drop_invite, t.rec.id, seat)
            return {"id": t.rec.id, "seat": seat, "secret": secret}
        digest = hash_secret(row["secret"])

        def decide(rec: Any, _conn: Any) -> None:
            s = rec.seats[seat]
            if s.kind != "invited" or s.secret_hash != digest:
                raise TableError("seat_taken", "that invitation is no longer open")
            rec.seats[seat] = SeatRecord(seat)

        await self.manager.change(t, decide)
        await self._db(self.social.drop_invite, t.rec.id, seat)
        return {"id": t.rec.id, "seat": seat, "declined": True}


def router(friends: Friends, current: Any, table: Any, client_token: Any,
           summary: Any) -> APIRouter:
    """``/api/friends`` (list, add, remove), invitations by name, and ``/api/my/finished``.
    ``current(request)`` is the logged-in account (401 otherwise); ``table(id)`` a live table;
    ``summary(record)`` a stored table as the lobby shows it."""
    api = APIRouter()
    social = friends.social

    @api.get("/api/friends")
    async def list_friends(request: Request) -> dict[str, Any]:
        return await friends.listing(await current(request))

    @api.post("/api/friends")
    async def set_friend(body: FriendBody, request: Request) -> dict[str, Any]:
        user = await current(request)
        other = await asyncio.to_thread(social.user_id, body.username)
        if other is None or other == user["id"]:
            raise TableError("no_player", "no such player")
        await asyncio.to_thread(social.set_friend, user["id"], other, body.add)
        return await friends.listing(user)

    @api.post("/api/tables/{table_id}/invite_friend")
    async def invite_friend(table_id: str, body: InviteFriend, request: Request) -> dict[str, Any]:
        user = await current(request)
        return await friends.invite(await table(table_id), body, user)

    @api.post("/api/tables/{table_id}/invitation/{seat}")
    async def answer_invite(table_id: str, seat: int, body: InviteAnswer,
                            request: Request) -> dict[str, Any]:
        user = await current(request)
        return await friends.answer(await table(table_id), seat, body, user, client_token(request))

    @api.get("/api/my/finished")
    async def my_finished(request: Request) -> dict[str, Any]:
        """The account's recently finished tables (Rematch from any browser)."""
        user = await current(request)

        def load() -> list[dict[str, Any]]:  # the stored records: no game is replayed for this
            out = []
            for tid in social.finished(user["id"]):
                rec = friends.manager.storage.load_table(tid)
                seat = next((s.seat for s in rec.seats if s.user_id == user["id"]), None) if rec else None
                if rec is not None and seat is not None:
                    out.append({**summary(rec), "seat": seat})
            return out

        return {"tables": await asyncio.to_thread(load)}

    return api
