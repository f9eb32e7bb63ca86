"""Accounts: register, log in and out, change password, and the session behind a cookie.

Passwords are hashed with Argon2id (`pwdlib`); sessions live server-side (the cookie holds a
random token, the database its SHA-256), HttpOnly and SameSite=Lax, Secure under an https
public address. A failed login costs the same whether the username exists or not (a dummy hash
is verified) and answers the same 401.

Every login attempt is counted before its password is checked (`RateLimits.attempt`, atomic),
so a burst of N costs N: per device for a browser that logged in to this account before (its
device cookie, `devices.py`), else per username and per address. Over the limit the answer is
429 with ``Retry-After``, and no hash is computed. Hashing runs in a small pool of its own
(`HashPool`), so a burst of logins never holds up session look-ups or table traffic.

A guest who registers or logs in keeps the seats this browser took (its ``meeple_client``
cookie): they become the account's. Logging out and changing the password close the account's
open sockets (``on_logout``).
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pwdlib import PasswordHash
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from .devices import DEVICE_COOKIE, DEVICE_DAYS, Devices
from .models import clean_name
from .policy import check_password, fold
from .ratelimit import RateLimited, RateLimits, wait_words
from .schema_players import mutes_t, ratings_t, sessions_t, users_t
from .storage import Storage, seats_t, tables_t
from .tables import TableError, hash_secret

SESSION_COOKIE = "meeple_session"
SESSION_DAYS = 30
_USERNAME = re.compile(r"^[A-Za-z0-9_-]{3,20}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_\-]{20,64}$")
_hasher = PasswordHash.recommended()  # Argon2id with the library's current parameters
_dummy_hash: str | None = None


def check_username(value: str) -> str:
    """3-20 letters, digits, ``_`` or ``-``, and nothing that reads like a bot's label."""
    if not _USERNAME.match(value):
        raise ValueError("a username is 3-20 characters: letters, digits, _ or -")
    clean_name(value)  # "Bot-3", "seat_2", "B0t3": refused as for display names
    return value


Username = Annotated[str, Field(min_length=1, max_length=40), AfterValidator(check_username)]
Password = Annotated[str, Field(max_length=200), AfterValidator(check_password)]


class HashPool:
    """Password hashing in threads of its own (Argon2 releases the GIL while it works), at most
    ``queue`` waiting: beyond that a request is refused at once (429, retry in a second) rather
    than queued behind a burst."""

    def __init__(self, workers: int, queue: int) -> None:
        self.pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="meeple-hash")
        self.limit = max(1, workers) + max(0, queue)
        self.pending = 0

    async def run(self, fn: Any, *args: Any) -> Any:
        if self.pending >= self.limit:
            raise RateLimited("the server is busy checking passwords; try again in 1 second", 1)
        self.pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)
        finally:
            self.pending -= 1

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")
    username: Username
    password: Password


class LoginBody(BaseModel):
    """Login takes any short string as a username: a malformed one simply fails like a wrong one."""

    model_config = ConfigDict(extra="forbid")
    username: Annotated[str, Field(min_length=1, max_length=40)]
    password: Annotated[str, Field(min_length=1, max_length=200)]


class PasswordChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    old: Annotated[str, Field(min_length=1, max_length=200)]
    new: Password


class MuteBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    username: Annotated[str, Field(min_length=1, max_length=40)]
    muted: bool = True


def _now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def _dummy() -> str:
    global _dummy_hash
    if _dummy_hash is None:
        _dummy_hash = _hasher.hash(secrets.token_urlsafe(16))
    return _dummy_hash


class Accounts:
    """The account store (synchronous; the routes run it in threads: Argon2 is CPU work)."""

    def __init__(self, storage: Storage) -> None:
        self.engine = storage.engine
        self.devices = Devices(storage)
        self.hashing = HashPool(int(os.environ.get("MEEPLE_HASH_WORKERS") or 2),
                                int(os.environ.get("MEEPLE_HASH_QUEUE") or 16))

    def create(self, username: str, password: str) -> int:
        if self.name_taken(username):
            raise TableError("username_taken", "that username reads like another player's")
        digest = hash_password(password)
        try:
            with self.engine.begin() as conn:
                return int(conn.execute(insert(users_t).values(
                    username=username, username_key=username.casefold(), password_hash=digest,
                    name_fold=fold(username), disabled=False,
                    created_at=_now())).inserted_primary_key[0])
        except IntegrityError:
            raise TableError("username_taken", "that username is taken") from None

    def name_taken(self, name: str) -> bool:
        """An account's name reads like ``name`` (case, look-alikes, digits for letters)."""
        with self.engine.connect() as conn:
            return conn.execute(select(users_t.c.id).where(
                users_t.c.name_fold == fold(name)).limit(1)).first() is not None

    def find(self, username: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(users_t).where(
                users_t.c.username_key == username.casefold())).mappings().first()
        return dict(row) if row else None

    def by_id(self, user_id: int) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(users_t).where(users_t.c.id == user_id)).mappings().first()
        return dict(row) if row else None

    def verify(self, username: str, password: str) -> dict[str, Any] | None:
        """The user if the password is right; the same Argon2 work when the user is unknown."""
        user = self.find(username) if _USERNAME.match(username) else None
        ok = _hasher.verify(password, user["password_hash"] if user else _dummy())
        return user if ok and user else None

    def set_password(self, user_id: int, password: str, keep_token: str | None = None) -> None:
        """A new password ends every other session of the account."""
        digest = hash_password(password)
        with self.engine.begin() as conn:
            conn.execute(update(users_t).where(users_t.c.id == user_id).values(password_hash=digest))
            stmt = delete(sessions_t).where(sessions_t.c.user_id == user_id)
            if keep_token:
                stmt = stmt.where(sessions_t.c.token_hash != hash_secret(keep_token))
            conn.execute(stmt)

    def set_disabled(self, user_id: int, disabled: bool) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(users_t).where(users_t.c.id == user_id).values(disabled=disabled))
            if disabled:
                conn.execute(delete(sessions_t).where(sessions_t.c.user_id == user_id))

    def new_session(self, user_id: int) -> str:
        token = secrets.token_urlsafe(32)
        now = _now()
        with self.engine.begin() as conn:
            conn.execute(insert(sessions_t).values(
                token_hash=hash_secret(token), user_id=user_id, created_at=now,
                expires_at=now + timedelta(days=SESSION_DAYS)))
        return token

    def session_user(self, token: str | None) -> dict[str, Any] | None:
        """``{id, username, bot}`` of a live session on an enabled account, else None."""
        if not token or not _TOKEN.match(token):
            return None
        with self.engine.connect() as conn:
            row = conn.execute(
                select(users_t.c.id, users_t.c.username, users_t.c.disabled, users_t.c.is_bot,
                       sessions_t.c.expires_at)
                .join(sessions_t, sessions_t.c.user_id == users_t.c.id)
                .where(sessions_t.c.token_hash == hash_secret(token))).mappings().first()
        if row is None or row["disabled"] or _aware(row["expires_at"]) < _now():
            return None
        return {"id": row["id"], "username": row["username"], "bot": bool(row["is_bot"])}

    def end_session(self, token: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(sessions_t).where(sessions_t.c.token_hash == hash_secret(token)))

    def claim_guest_seats(self, user_id: int, client: str | None) -> list[str]:
        """Seats this browser took as a guest become the account's; returns their tables."""
        if not client:
            return []
        digest = hash_secret(client)
        where = (seats_t.c.client_hash == digest, seats_t.c.user_id.is_(None),
                 seats_t.c.kind == "human")
        with self.engine.begin() as conn:
            tables = [r[0] for r in conn.execute(select(seats_t.c.table_id).where(*where))]
            if tables:
                conn.execute(update(seats_t).where(*where).values(user_id=user_id))
        return sorted(set(tables))

    def ratings(self, user_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(ratings_t).where(ratings_t.c.user_id == user_id)
                                .order_by(ratings_t.c.game)).mappings().all()
        return [{"game": r["game"], "rating": r["display"], "games": r["games"], "wins": r["wins"],
                 "provisional": r["games"] < PROVISIONAL_GAMES} for r in rows]

    def mutes(self, user_id: int) -> list[str]:
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                select(users_t.c.username).join(mutes_t, mutes_t.c.muted_id == users_t.c.id)
                .where(mutes_t.c.user_id == user_id).order_by(users_t.c.username))]

    def muted_ids(self, user_id: int) -> set[int]:
        with self.engine.connect() as conn:
            return {r[0] for r in conn.execute(
                select(mutes_t.c.muted_id).where(mutes_t.c.user_id == user_id))}

    def set_mute(self, user_id: int, other: int, muted: bool) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(mutes_t).where(mutes_t.c.user_id == user_id,
                                               mutes_t.c.muted_id == other))
            if muted and other != user_id:
                conn.execute(insert(mutes_t).values(user_id=user_id, muted_id=other))

    def live_tables(self, user_id: int) -> list[str]:
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(
                select(tables_t.c.id).join(seats_t, seats_t.c.table_id == tables_t.c.id)
                .where(seats_t.c.user_id == user_id, tables_t.c.status.in_(("open", "running")))
                .order_by(tables_t.c.updated_at.desc()).limit(100))]

    def count(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(users_t)).scalar_one())


PROVISIONAL_GAMES = 5  # a rating is shown with "?" until this many rated games


def session_token(request: Request) -> str | None:
    token = request.cookies.get(SESSION_COOKIE)
    return token if token and _TOKEN.match(token) else None


def client_address(request: Request) -> str:
    return request.client.host if request.client else "?"


def router(accounts: Accounts, limits: RateLimits, secure: bool, on_claim: Any,
           client_token: Any, on_mute: Any, on_logout: Any = None) -> APIRouter:
    """``/api/register``, ``/api/login``, ``/api/logout``, ``/api/me``, ``/api/password``,
    ``/api/mutes``. ``on_claim(table_ids)`` tells live tables their seats changed hands;
    ``client_token(request)`` is the browser's guest cookie; ``on_mute(user)`` applies a mute
    to the account's open sockets; ``on_logout(user_id, only=, keep=)`` closes the sockets of
    ended sessions (`AccountSockets.close`)."""
    api = APIRouter()
    hashing = accounts.hashing

    def set_cookie(response: Response, token: str) -> None:
        response.set_cookie(SESSION_COOKIE, token, max_age=SESSION_DAYS * 86400, path="/",
                            httponly=True, samesite="lax", secure=secure)

    async def me_json(user: dict[str, Any]) -> dict[str, Any]:
        ratings = await asyncio.to_thread(accounts.ratings, user["id"])
        mutes = await asyncio.to_thread(accounts.mutes, user["id"])
        prefs = await asyncio.to_thread(accounts.by_id, user["id"]) or {}
        return {"username": user["username"], "ratings": ratings, "mutes": mutes,
                "bot": bool(prefs.get("is_bot")), "no_bots": bool(prefs.get("no_bots"))}

    async def log_in(response: Response, request: Request, user_id: int, username: str) -> None:
        token = await asyncio.to_thread(accounts.new_session, user_id)
        set_cookie(response, token)
        device = await asyncio.to_thread(accounts.devices.issue,
                                         request.cookies.get(DEVICE_COOKIE), username)
        response.set_cookie(DEVICE_COOKIE, device, max_age=DEVICE_DAYS * 86400, path="/",
                            httponly=True, samesite="lax", secure=secure)
        claimed = await asyncio.to_thread(accounts.claim_guest_seats, user_id, client_token(request))
        if claimed:
            await on_claim(claimed)

    async def sessions_ended(user_id: int, only: str | None = None, keep: str | None = None,
                             ) -> None:
        if on_logout is not None:
            await on_logout(user_id, only=only, keep=keep)

    @api.post("/api/register")
    async def register(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        await limits.hit("register", client_address(request), "too many new accounts from here")
        user_id = await hashing.run(accounts.create, body.username, body.password)
        await log_in(response, request, user_id, body.username)
        return await me_json({"id": user_id, "username": body.username})

    @api.post("/api/login")
    async def login(body: LoginBody, request: Request, response: Response) -> dict[str, Any]:
        addr, name = client_address(request), body.username.casefold()
        device = await asyncio.to_thread(accounts.devices.known,
                                         request.cookies.get(DEVICE_COOKIE), name)
        if device is not None:  # this browser logged in to this account before: its own allowance
            wait = await limits.attempt("login_device", device)
            why = "too many login attempts from this browser"
        else:
            wait = max(await limits.attempt("login_user", name),
                       await limits.attempt("login_addr", addr))
            why = ("too many login attempts for this account from browsers it does not know "
                   "(a browser you logged in with before is not held back)")
        if wait:
            raise RateLimited(f"{why}; try again in {wait_words(wait)}", wait)
        user = await hashing.run(accounts.verify, body.username, body.password)
        if user is None:
            raise TableError("unauthorized", "wrong username or password")
        if user["disabled"]:
            raise TableError("disabled", "this account is disabled")
        await log_in(response, request, user["id"], user["username"])
        return await me_json(user)

    @api.post("/api/logout")
    async def logout(request: Request, response: Response) -> dict[str, Any]:
        token = session_token(request)
        if token:
            user = await asyncio.to_thread(accounts.session_user, token)
            await asyncio.to_thread(accounts.end_session, token)
            if user is not None:
                await sessions_ended(user["id"], only=token)
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=secure)
        return {"ok": True}

    async def current(request: Request) -> dict[str, Any]:
        user = await asyncio.to_thread(accounts.session_user, session_token(request))
        if user is None:
            raise TableError("unauthorized", "log in first")
        return user

    @api.get("/api/me")
    async def me(request: Request) -> dict[str, Any]:
        return await me_json(await current(request))

    @api.get("/api/session")
    async def session(request: Request) -> dict[str, Any]:
        """Who is logged in, if anyone: what every page asks first, so a guest is not an error
        (a 401 in the browser's console on each page)."""
        user = await asyncio.to_thread(accounts.session_user, session_token(request))
        return {"user": await me_json(user) if user is not None else None}

    @api.post("/api/password")
    async def change_password(body: PasswordChange, request: Request) -> dict[str, Any]:
        user = await current(request)
        await limits.hit("password_change", f"user:{user['id']}", "too many password changes")
        if await hashing.run(accounts.verify, user["username"], body.old) is None:
            raise TableError("unauthorized", "wrong password")
        await hashing.run(accounts.set_password, user["id"], body.new, session_token(request))
        await sessions_ended(user["id"], keep=session_token(request))
        return {"ok": True}

    @api.post("/api/mutes")
    async def mute(body: MuteBody, request: Request) -> dict[str, Any]:
        user = await current(request)
        other = await asyncio.to_thread(accounts.find, body.username)
        if other is None:
            raise TableError("no_player", "no such player")
        await asyncio.to_thread(accounts.set_mute, user["id"], other["id"], body.muted)
        await on_mute(user)
        return {"mutes": await asyncio.to_thread(accounts.mutes, user["id"])}

    return api


class CrossSite:
    """Refuse state-changing requests (and WebSockets) that a browser says come from another
    site: ``Sec-Fetch-Site: cross-site``, or an ``Origin`` that is not this server's own (by the
    request's scheme and Host, or the public address). Requests without those headers (scripts,
    old browsers) pass: the cookies are SameSite=Lax, so browsers do not send them cross-site
    on a POST anyway; this is the second lock."""

    SAFE = {"GET", "HEAD", "OPTIONS"}

    def __init__(self, app: Any, public_url: str | None = None) -> None:
        self.app = app
        self.public = public_url

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        kind = scope["type"]
        if (kind == "http" and scope["method"] not in self.SAFE) or kind == "websocket":
            headers = dict(scope.get("headers") or [])
            site = headers.get(b"sec-fetch-site", b"").decode("latin-1").lower()
            origin = headers.get(b"origin")
            bad = site == "cross-site"
            if origin is not None and not bad:
                origin_s = origin.decode("latin-1").rstrip("/").lower()
                host = headers.get(b"host", b"").decode("latin-1").lower()
                scheme = {"websocket": "http", "http": "http"}[kind]
                raw_scheme = scope.get("scheme", scheme)
                own = {f"{'https' if raw_scheme in ('https', 'wss') else 'http'}://{host}"}
                if self.public:
                    own.add(self.public.lower())
                bad = origin_s not in own
            if bad:
                if kind == "websocket":
                    await send({"type": "websocket.close", "code": 4403})
                    return
                from fastapi.responses import JSONResponse

                await JSONResponse({"error": "cross_site", "detail": "cross-site request refused"},
                                   403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class AccountSockets:
    """The open WebSockets each session opened, so that logging out (that session) and a new
    password (every other session) close them, on this server and, through the pub/sub bus,
    on every other: a socket must not keep acting for an account whose session ended."""

    def __init__(self, bus: Any) -> None:
        self.bus = bus
        self.by_user: dict[int, dict[Any, str]] = {}  # user id -> {connection: session hash}

    def attach(self, conn: Any, user_id: int, token: str) -> None:
        self.by_user.setdefault(user_id, {})[conn] = hash_secret(token)

    def detach(self, conn: Any, user_id: int) -> None:
        mine = self.by_user.get(user_id)
        if mine is not None:
            mine.pop(conn, None)
            if not mine:
                self.by_user.pop(user_id, None)

    async def close(self, user_id: int, only: str | None = None, keep: str | None = None) -> None:
        """Close ``user_id``'s sockets of session ``only`` (a token), or all but ``keep``'s."""
        message = {"table": None, "sessions_ended": user_id,
                   "only": hash_secret(only) if only else None,
                   "keep": hash_secret(keep) if keep else None}
        self._close_here(message)
        await self.bus.publish(message)

    def _close_here(self, message: dict[str, Any]) -> None:
        for conn, session in list(self.by_user.get(message["sessions_ended"], {}).items()):
            if (message["only"] and session != message["only"]) or session == message["keep"]:
                continue
            conn.push({"type": "error", "code": "logged_out",
                       "message": "this account's session ended; log in again"})
            conn.push(None)
            conn.closed = True

    async def on_message(self, message: dict[str, Any]) -> None:
        if isinstance(message.get("sessions_ended"), int):
            self._close_here(message)

    def on_change(self, t: Any) -> None:
        return None
