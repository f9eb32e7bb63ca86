"""The Bot API: programs play as bot accounts, lichess-style (docs/bots-api.md).

- **Bot accounts.** An account becomes a bot account (``POST /api/bot/account/upgrade``, with
  one of its tokens) only if it never shared a table with a person, and stays one. It is shown
  as a bot wherever its name is (seats carry ``bot_account``), rated among bot accounts only
  (ratings.py), plays only through this API (its browser session cannot sit down), and Play now
  never seats it with a person who set ``no_bots``.
- **Tokens.** An account's owner creates them while logged in; the token is shown once and only
  its SHA-256 is stored (a random 256-bit secret needs no slow hash). Each has scopes:
  ``bot:read`` (the streams) and ``bot:play`` (moves, chat, answers, Play now). They are listed
  without the secret and revoked at once: every request reads the token's row, and an open
  stream reads it again every `TICK` seconds, so a revocation on any server ends it within a
  tick.
- **Streams** are newline-delimited JSON (one object a line; an empty line is a keep-alive).
  The account's events (`event_stream`) come from the database every `TICK`; a table's stream
  (`table_stream`) is a `tables.Connection` like a browser's WebSocket, so it carries the very
  messages a browser gets for that seat (the view, the labelled legal actions, the log), plus,
  on request, a sampled world for the seat's turn (`meeple.core.worlds`).
- **Limits.** Each token has its own rate limit (rule ``bot``, `ratelimit.RULES`); a bot account
  holds at most as many live tables as a visitor may create (`FairSettings.max_tables`).
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt
from sqlalchemy import and_, insert, select, update

import meeple
from meeple.core.worlds import WorldError, dump_world

from .friends import InviteAnswer, InviteFriend
from .matchmaking import PlayBody
from .models import SeatNo
from .schema_players import tokens_t, users_t
from .storage import Storage, seats_t, tables_t
from .tables import Connection, LiveTable, TableError, hash_secret

SCOPES = ("bot:read", "bot:play")
TOKEN_PREFIX = "mpl_"
TICK = 0.5  # seconds between an open stream's looks at its token (and the account's events)
KEEP_ALIVE = 5.0  # an empty line after this long without one, so proxies keep the stream open
MAX_TOKENS = 20  # live tokens per account


class TokenBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=40)] = "bot"
    scopes: list[Annotated[str, Field(max_length=20)]] = Field(
        default_factory=lambda: list(SCOPES), min_length=1, max_length=4
    )


class NoBotsBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    no_bots: bool


class MoveBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Annotated[StrictInt, Field(ge=0, lt=1 << 31)]
    move: Annotated[StrictInt, Field(ge=0, lt=1 << 31)] | None = None  # the move it answers
    seat: SeatNo | None = None  # optional check: the seat the program thinks it holds


class ChatBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: Annotated[str, Field(min_length=1, max_length=1000)]


class ChallengeBody(BaseModel):
    """A person challenges a bot account: a new table, the challenger at seat 0, the bot
    account invited to seat 1, the game's default bot level in any other seat."""

    model_config = ConfigDict(extra="forbid")
    game: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_]+$")]
    players: Annotated[StrictInt, Field(ge=1, le=16)] = 2
    options: dict[Annotated[str, Field(max_length=64)], Any] = Field(default_factory=dict)
    time_limit: Annotated[float, Field(gt=0, le=7 * 86400)] | None = None


def _now() -> datetime:
    return datetime.now(UTC)


def people_only(user: dict[str, Any] | None) -> None:
    """A bot account's browser session does not sit down: it plays through this API."""
    if user is not None and user.get("bot"):
        raise TableError("bot_account", "a bot account plays through the Bot API")


class BotStore:
    """Tokens, bot accounts and what the event stream reads (synchronous; run in threads)."""

    def __init__(self, storage: Storage) -> None:
        self.engine = storage.engine

    # ----- tokens -----------------------------------------------------------------------------
    def create_token(self, user_id: int, name: str, scopes: list[str]) -> dict[str, Any]:
        bad = sorted(set(scopes) - set(SCOPES))
        if bad:
            raise TableError(
                "bad_request", f"unknown scope {bad[0]!r}; scopes: {', '.join(SCOPES)}"
            )
        if len(self.tokens(user_id)) >= MAX_TOKENS:
            raise TableError("too_many", f"at most {MAX_TOKENS} tokens; revoke one first")
        secret = secrets.token_urlsafe(32)
        token = TOKEN_PREFIX + secret
        scope_text = " ".join(s for s in SCOPES if s in scopes)
        with self.engine.begin() as conn:
            tid = conn.execute(
                insert(tokens_t).values(
                    user_id=user_id,
                    token_hash=hash_secret(token),
                    prefix=token[:10],
                    name=name,
                    scopes=scope_text,
                    created_at=_now(),
                )
            ).inserted_primary_key[0]
        return {
            "id": int(tid),
            "token": token,
            "prefix": token[:10],
            "name": name,
            "scopes": scope_text.split(),
        }

    def tokens(self, user_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = (
                conn.execute(
                    select(tokens_t)
                    .where(tokens_t.c.user_id == user_id, tokens_t.c.revoked_at.is_(None))
                    .order_by(tokens_t.c.id)
                )
                .mappings()
                .all()
            )
        return [
            {
                "id": r["id"],
                "prefix": r["prefix"],
                "name": r["name"],
                "scopes": r["scopes"].split(),
                "created_at": r["created_at"].isoformat(),
            }
            for r in rows
        ]

    def revoke(self, user_id: int, token_id: int) -> bool:
        with self.engine.begin() as conn:
            return (
                conn.execute(
                    update(tokens_t)
                    .where(
                        tokens_t.c.id == token_id,
                        tokens_t.c.user_id == user_id,
                        tokens_t.c.revoked_at.is_(None),
                    )
                    .values(revoked_at=_now())
                ).rowcount
                == 1
            )

    def lookup(self, token: str) -> dict[str, Any] | None:
        """The live token's account and scopes, or None (unknown, revoked, account disabled)."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 100:
            return None
        with self.engine.connect() as conn:
            row = (
                conn.execute(
                    select(
                        tokens_t.c.id,
                        tokens_t.c.scopes,
                        tokens_t.c.revoked_at,
                        users_t.c.id.label("uid"),
                        users_t.c.username,
                        users_t.c.is_bot,
                        users_t.c.disabled,
                    )
                    .join(users_t, users_t.c.id == tokens_t.c.user_id)
                    .where(tokens_t.c.token_hash == hash_secret(token))
                )
                .mappings()
                .first()
            )
        if row is None or row["revoked_at"] is not None or row["disabled"]:
            return None
        return {
            "token_id": row["id"],
            "scopes": row["scopes"].split(),
            "id": row["uid"],
            "username": row["username"],
            "bot": bool(row["is_bot"]),
        }

    def live(self, token_id: int) -> bool:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(tokens_t.c.revoked_at, users_t.c.disabled)
                .join(users_t, users_t.c.id == tokens_t.c.user_id)
                .where(tokens_t.c.id == token_id)
            ).first()
        return row is not None and row[0] is None and not row[1]

    # ----- bot accounts -----------------------------------------------------------------------
    def upgrade(self, user_id: int) -> None:
        """Mark the account a bot account, if it never sat at a table with a person (another
        account or a guest) and has no table open or running."""
        me = seats_t.alias("me")
        with self.engine.begin() as conn:
            live = conn.execute(
                select(tables_t.c.id)
                .join(me, me.c.table_id == tables_t.c.id)
                .where(me.c.user_id == user_id, tables_t.c.status.in_(("open", "running")))
                .limit(1)
            ).first()
            if live is not None:
                raise TableError("played_people", "finish or leave your open tables first")
            people = conn.execute(
                select(seats_t.c.table_id)
                .join(me, and_(me.c.table_id == seats_t.c.table_id, me.c.user_id == user_id))
                .where(
                    seats_t.c.kind == "human",
                    seats_t.c.seat != me.c.seat,
                    (seats_t.c.user_id.is_(None)) | (seats_t.c.user_id != user_id),
                )
                .limit(1)
            ).first()
            if people is not None:
                raise TableError(
                    "played_people", "an account that played people cannot become a bot account"
                )
            conn.execute(update(users_t).where(users_t.c.id == user_id).values(is_bot=True))

    def set_no_bots(self, user_id: int, value: bool) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(users_t).where(users_t.c.id == user_id).values(no_bots=value))

    def seats(self, user_id: int, extra: list[str]) -> list[dict[str, Any]]:
        """The account's seats at open or running tables, and at tables ``extra`` (whatever
        their status: the stream tells when they end)."""
        where = tables_t.c.status.in_(("open", "running"))
        if extra:
            where = where | tables_t.c.id.in_(extra)
        with self.engine.connect() as conn:
            rows = (
                conn.execute(
                    select(
                        tables_t.c.id,
                        tables_t.c.game,
                        tables_t.c.players,
                        tables_t.c.options,
                        tables_t.c.status,
                        seats_t.c.seat,
                    )
                    .join(seats_t, seats_t.c.table_id == tables_t.c.id)
                    .where(seats_t.c.user_id == user_id, seats_t.c.kind == "human", where)
                    .limit(200)
                )
                .mappings()
                .all()
            )
        return [dict(r) for r in rows]


class BotAPI:
    """The routes' state: the app's parts they use."""

    def __init__(
        self,
        storage: Storage,
        manager: Any,
        friends: Any,
        chat: Any,
        matchmaker: Any,
        ratings: Any,
        limits: Any,
        visitors: Any,
        settings: Any,
    ) -> None:
        self.store = BotStore(storage)
        self.manager, self.friends, self.chat = manager, friends, chat
        self.matchmaker, self.ratings, self.limits = matchmaker, ratings, limits
        self.visitors, self.settings = visitors, settings

    async def _db(self, fn: Any, *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    async def auth(self, request: Request, scope: str, bot: bool = True) -> dict[str, Any]:
        """The token's account (``Authorization: Bearer <token>``), counted against the
        token's rate limit; 401 without a live token, 403 without ``scope`` or (``bot``) when
        the account is not a bot account."""
        header = request.headers.get("authorization") or ""
        kind, _, token = header.partition(" ")
        who = await self._db(self.store.lookup, token.strip()) if kind.lower() == "bearer" else None
        if who is None:
            raise TableError("unauthorized", "send a live API token: Authorization: Bearer <token>")
        await self.limits.hit("bot", f"token:{who['token_id']}", "too many requests for this token")
        if scope not in who["scopes"]:
            raise TableError("scope", f"this token lacks the {scope} scope")
        if bot and not who["bot"]:
            raise TableError(
                "not_bot", "this account is not a bot account (POST /api/bot/account/upgrade)"
            )
        return who

    async def seat_of(self, t: LiveTable, user_id: int) -> int:
        seat = next(
            (s.seat for s in t.rec.seats if s.kind == "human" and s.user_id == user_id), None
        )
        if seat is None:
            await self.manager.refresh(t)
            seat = next(
                (s.seat for s in t.rec.seats if s.kind == "human" and s.user_id == user_id), None
            )
        if seat is None:
            raise TableError("not_seated", "this bot account holds no seat at this table")
        return seat

    async def check_room(self, user_id: int) -> None:
        """A bot account holds at most as many live tables as a visitor may create."""
        cap = self.visitors.settings.max_tables
        mine = await self._db(self.store.seats, user_id, [])
        if len(mine) >= cap:
            raise TableError(
                "too_many",
                f"this bot account has {len(mine)} tables open or running (at most {cap} at once)",
            )

    # ----- streams ------------------------------------------------------------------------------
    async def event_stream(self, who: dict[str, Any]) -> AsyncIterator[str]:
        """The account's events: invitations (challenges included), its games starting and
        ending. At the start every pending invitation and running game is told again, so a
        program that reconnects picks up where it was."""
        uid = who["id"]
        told: set[tuple[str, int]] = set()
        playing: dict[str, dict[str, Any]] = {}
        wrote = time.monotonic()
        seen_at = 0.0
        while True:
            if not await self._db(self.store.live, who["token_id"]):
                yield REVOKED
                return
            out = []
            invites = await self._db(self.friends.social.invites, uid)
            for inv in invites:
                key = (inv["table"], inv["seat"])
                if key not in told:
                    told.add(key)
                    out.append(await self._invitation(inv))
            told &= {(i["table"], i["seat"]) for i in invites}
            for r in await self._db(self.store.seats, uid, list(playing)):
                tid = r["id"]
                if r["status"] == "running" and tid not in playing:
                    playing[tid] = r
                    out.append(
                        {
                            "type": "gameStart",
                            "table": tid,
                            "seat": r["seat"],
                            "game": r["game"],
                            "players": r["players"],
                            "options": _options(r["options"]),
                        }
                    )
                elif r["status"] not in ("open", "running") and tid in playing:
                    del playing[tid]
                    out.append(
                        {
                            "type": "gameFinish",
                            "table": tid,
                            "seat": r["seat"],
                            "game": r["game"],
                            "status": r["status"],
                        }
                    )
            for event in out:
                yield _line(event)
            now = time.monotonic()
            if out:
                wrote = now
            elif now - wrote >= KEEP_ALIVE:
                wrote = now
                yield "\n"
            if now - seen_at >= 10.0:  # an open stream keeps the account's Play now entries
                seen_at = now
                await self._db(self.matchmaker.seen, uid)
            await asyncio.sleep(TICK)

    async def _invitation(self, inv: dict[str, Any]) -> dict[str, Any]:
        out = {
            "type": "invitation",
            "table": inv["table"],
            "seat": inv["seat"],
            "game": inv["game"],
            "from": inv["from"],
        }
        try:
            t = await self.manager.get(inv["table"])
            out.update(
                players=t.rec.players,
                options=t.rec.options,
                seats=self.manager.seats_json(t),
                time_limit=t.rec.time_limit,
            )
        except TableError:
            pass
        return out

    async def table_stream(
        self, who: dict[str, Any], t: LiveTable, seat: int, world: bool
    ) -> AsyncIterator[str]:
        """The seat's messages as a browser gets them, then ``gameEnd`` and the end of the
        stream. With ``world`` each state of the seat's turn carries a sampled world."""
        conn = Connection(seat=seat, secret_hash=t.seat(seat).secret_hash)
        self.manager.attach(t, conn)
        await self.chat.attach(t, conn, {"id": who["id"], "username": who["username"]})
        checked = wrote = time.monotonic()
        rng = random.Random(secrets.randbits(64))
        try:
            while True:
                now = time.monotonic()
                if now - checked >= TICK:
                    checked = now
                    if not await self._db(self.store.live, who["token_id"]):
                        yield REVOKED
                        return
                try:
                    msg = await asyncio.wait_for(conn.queue.get(), TICK)
                except TimeoutError:
                    if time.monotonic() - wrote >= KEEP_ALIVE:
                        wrote = time.monotonic()
                        yield "\n"
                    continue
                if msg is None:
                    return
                wrote = time.monotonic()
                if (
                    msg.get("type") == "state"
                    and msg.get("legal")
                    and world
                    and msg.get("move") == len(t.state.history)
                ):
                    msg = {**msg, "world": await self._world(t, seat, rng)}
                yield _line(msg)
                if msg.get("type") == "state" and msg.get("status") in ("over", "abandoned"):
                    st = t.state
                    yield _line(
                        {
                            "type": "gameEnd",
                            "table": t.rec.id,
                            "status": msg["status"],
                            "scores": st.scores() if st.is_over() else None,
                            "ranking": st.ranking() if st.is_over() else None,
                            "final_scoring": st.final_scoring(),
                        }
                    )
                    return
        finally:
            self.manager.detach(t, conn)
            self.manager.evict_if_idle(t)

    async def _world(self, t: LiveTable, seat: int, rng: random.Random) -> Any:
        """A world sampled for ``seat`` (fresh randomness each time), or an error object."""
        rec = t.rec
        snapshot = t.state.snapshot()  # read on a worker thread while the table goes on

        def fresh(seed: int) -> Any:
            return meeple.make(rec.game, rec.players, seed, **rec.options)

        try:
            return await asyncio.to_thread(dump_world, snapshot, seat, rng, fresh)
        except WorldError as exc:
            return {"error": str(exc)}


def _line(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":")) + "\n"


REVOKED = _line({"type": "error", "code": "unauthorized", "message": "this token was revoked"})


def _options(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


NDJSON = "application/x-ndjson"


def router(api_: BotAPI, current: Any, table: Any, create_table: Any) -> APIRouter:
    """The Bot API's routes. ``current(request)`` is the logged-in account (token management,
    challenges); ``table(id)`` a live table; ``create_table(request, user, body)`` creates a
    challenge's table as `POST /api/tables` would (the visitor's caps included)."""
    api = APIRouter()
    store = api_.store

    # ----- the owner, logged in: tokens and preferences ---------------------------------------
    @api.get("/api/tokens")
    async def list_tokens(request: Request) -> dict[str, Any]:
        user = await current(request)
        return {"tokens": await asyncio.to_thread(store.tokens, user["id"])}

    @api.post("/api/tokens")
    async def create_token(body: TokenBody, request: Request) -> dict[str, Any]:
        """A new token, shown this once."""
        user = await current(request)
        return await asyncio.to_thread(store.create_token, user["id"], body.name, body.scopes)

    @api.delete("/api/tokens/{token_id}")
    @api.post("/api/tokens/{token_id}/revoke")
    async def revoke_token(token_id: int, request: Request) -> dict[str, Any]:
        user = await current(request)
        if not await asyncio.to_thread(store.revoke, user["id"], token_id):
            raise TableError("no_player", "no such token")
        return {"revoked": token_id}

    @api.post("/api/me/no_bots")
    async def no_bots(body: NoBotsBody, request: Request) -> dict[str, Any]:
        """Play now never seats me with a bot account."""
        user = await current(request)
        await asyncio.to_thread(store.set_no_bots, user["id"], body.no_bots)
        return {"no_bots": body.no_bots}

    @api.post("/api/players/{username}/challenge")
    async def challenge(username: str, body: ChallengeBody, request: Request) -> Any:
        """A person challenges a bot account: a table where the challenger holds seat 0 and
        the bot account is invited to seat 1 (see `ChallengeBody`)."""
        user = await current(request)
        people_only(user)
        other = await asyncio.to_thread(api_.friends.social.user_id, username[:40])
        if other is None or not await asyncio.to_thread(api_.friends.social.is_bot, other):
            raise TableError("no_player", "only bot accounts take challenges")
        if body.players < 2:
            raise TableError("bad_request", "a challenge needs at least 2 players")
        seats = [{"kind": "me"}, {"kind": "open"}] + [{"kind": "bot"}] * (body.players - 2)
        made = await create_table(
            request,
            user,
            {
                "game": body.game,
                "players": body.players,
                "options": body.options,
                "seats": seats,
                "time_limit": body.time_limit,
            },
        )
        t = await table(made["id"])
        await api_.friends.invite(
            t, InviteFriend(seat=1, username=username[:40], host=made["host"]), user
        )
        return {**made, "challenged": username}

    # ----- a program, with a token ------------------------------------------------------------
    @api.get("/api/bot/account")
    async def account(request: Request) -> dict[str, Any]:
        who = await api_.auth(request, "bot:read", bot=False)
        return {"username": who["username"], "bot": who["bot"], "scopes": who["scopes"]}

    @api.post("/api/bot/account/upgrade")
    async def upgrade(request: Request) -> dict[str, Any]:
        """This account becomes a bot account, for good (only if it never played people)."""
        who = await api_.auth(request, "bot:play", bot=False)
        if not who["bot"]:
            await asyncio.to_thread(store.upgrade, who["id"])
        return {"username": who["username"], "bot": True}

    @api.get("/api/bot/stream/events")
    async def events(request: Request) -> StreamingResponse:
        who = await api_.auth(request, "bot:read")
        return StreamingResponse(api_.event_stream(who), media_type=NDJSON)

    @api.get("/api/bot/table/{table_id}/stream")
    async def table_stream(
        table_id: str, request: Request, world: bool = False
    ) -> StreamingResponse:
        who = await api_.auth(request, "bot:read")
        t = await table(table_id)
        seat = await api_.seat_of(t, who["id"])
        return StreamingResponse(api_.table_stream(who, t, seat, world), media_type=NDJSON)

    @api.post("/api/bot/table/{table_id}/move")
    async def move(table_id: str, body: MoveBody, request: Request) -> dict[str, Any]:
        """Play ``action`` (an id from ``legal``) for the bot's own seat; ``move`` is the move
        number it answers (the state's ``move``): a move sent twice is played once."""
        who = await api_.auth(request, "bot:play")
        t = await table(table_id)
        seat = await api_.seat_of(t, who["id"])
        if body.seat is not None and body.seat != seat:
            raise TableError("forbidden", f"this bot account holds seat {seat}, not {body.seat}")
        n = len(t.state.history) if body.move is None else body.move
        await api_.manager.move(t, seat, body.action, n)
        return {"ok": True, "move": n}

    @api.post("/api/bot/table/{table_id}/chat")
    async def say(table_id: str, body: ChatBody, request: Request) -> dict[str, Any]:
        who = await api_.auth(request, "bot:play")
        t = await table(table_id)
        seat = await api_.seat_of(t, who["id"])
        conn = Connection(seat=seat, secret_hash=t.seat(seat).secret_hash)
        conn.closed = True  # says, never listens
        await api_.chat.say(t, conn, body.text)
        return {"ok": True}

    @api.post("/api/bot/invitation/{table_id}/{seat}/{answer}")
    async def answer(table_id: str, seat: int, answer: str, request: Request) -> dict[str, Any]:
        """``accept`` or ``decline`` an invitation (a challenge is one) to a seat."""
        who = await api_.auth(request, "bot:play")
        if answer not in ("accept", "decline"):
            raise TableError("bad_request", "accept or decline")
        if answer == "accept":
            await api_.check_room(who["id"])
        user = {"id": who["id"], "username": who["username"], "bot": True}
        return await api_.friends.answer(
            await table(table_id), seat, InviteAnswer(accept=answer == "accept"), user, None
        )

    @api.post("/api/bot/play")
    async def play(body: PlayBody, request: Request) -> dict[str, Any]:
        """Play now, for the bot account (the open event stream keeps the entry waiting)."""
        who = await api_.auth(request, "bot:play")
        await api_.check_room(who["id"])
        rating = await asyncio.to_thread(api_.ratings.rating_of, who["id"], body.game)
        entry = await asyncio.to_thread(api_.matchmaker.enqueue, who["id"], body, rating)
        return {"id": entry, "status": "waiting", "rating": rating}

    @api.post("/api/bot/play/cancel")
    async def cancel(request: Request) -> dict[str, Any]:
        who = await api_.auth(request, "bot:play")
        return {"cancelled": await asyncio.to_thread(api_.matchmaker.cancel, who["id"])}

    return api
