"""The FastAPI app: lobby API, table WebSocket, replays, and the static web client.

``create_app(settings)`` builds everything; `meeple serve` runs it under uvicorn. Storage is
migrated and every running table resumed (from its action log) when the app starts.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import logging
import re
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

import meeple
from meeple.bots import levels
from meeple.core import MeepleError
from meeple.core.text import seat_names

from . import accounts as accounts_mod
from . import analysis as analysis_mod
from . import botapi, clocks, idempotency
from . import friends as friends_mod
from . import matchmaking as matchmaking_mod
from . import notify as notify_mod
from . import ratings as ratings_mod
from . import rulings as rulings_mod
from .accounts import SESSION_COOKIE, Accounts, AccountSockets, CrossSite, session_token
from .chat import Chat
from .config import Settings
from .fairshare import FairPool, FairSettings, Visitors
from .headers import SecurityHeaders
from .idempotency import IdempotencyError
from .matchmaking import Matchmaker
from .models import (
    ClientMessage,
    CreateTable,
    Hello,
    HostSeat,
    Join,
    Leave,
    Move,
    Reclaim,
    Rematch,
    Say,
    Undo,
    Vote,
)
from .ops import Metrics, readiness
from .pubsub import make_bus
from .ratelimit import RateLimits
from .ratings import Ratings
from .storage import Storage, TableRecord
from .tables import Connection, LiveTable, TableError, TableManager, new_secret, secret_ok

log = logging.getLogger("meeple.server")

WEB = Path(str(resources.files("meeple").joinpath("web")))
MAX_BODY = 16 * 1024
_SAFE_FILE = re.compile(r"^[A-Za-z0-9_\-]+\.(js|css|svg|png|json)$")
_MEDIA = {"js": "text/javascript", "css": "text/css", "svg": "image/svg+xml",
          "png": "image/png", "json": "application/json"}
_ERROR_STATUS = {"no_table": 404, "forbidden": 403, "seat_taken": 409, "stale": 409,
                 "not_over": 409, "not_running": 409, "too_many": 429, "one_seat": 409,
                 "not_open": 409, "not_gone": 409, "draining": 503, "in_progress": 409,
                 "key_reused": 422, "bad_key": 400, "rate_limited": 429, "unauthorized": 401,
                 "disabled": 403, "username_taken": 409, "no_player": 404, "no_game": 404,
                 "cross_site": 403, "no_undo": 409, "no_client": 400, "name_taken": 409,
                 "scope": 403, "not_bot": 403, "bot_account": 403,
                 "not_seated": 403, "played_people": 409}
CLIENT_COOKIE = "meeple_client"
_CLIENT_TOKEN = re.compile(r"^[A-Za-z0-9_\-]{16,64}$")


def renderer_url(game: str) -> str | None:
    """The game's browser renderer, if its folder has one (``games/<id>/web/renderer.js``)."""
    path = resources.files(f"meeple.games.{game}").joinpath("web", "renderer.js")
    return f"/games/{game}/web/renderer.js" if path.is_file() else None


def games_json() -> list[dict[str, Any]]:
    out = []
    for g in meeple.games():
        info = meeple.game_info(g["id"])
        out.append({**g, "bots": levels(info), "renderer": renderer_url(g["id"]),
                    "hidden_information": info.hidden_information})
    return out


def record_summary(rec: TableRecord) -> dict[str, Any]:
    return {
        "id": rec.id, "game": rec.game, "players": rec.players, "options": rec.options,
        "status": rec.status, "time_limit": rec.time_limit, "rematch": rec.rematch,
        "seats": [{"seat": s.seat, "kind": s.kind, "name": s.name, "level": s.level,
                   "zombie": s.zombie, "account": s.user_id is not None,
                   "bot_account": s.account_bot} for s in rec.seats],
    }


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes (413) before anyone parses them.

    A pure ASGI middleware: the bytes are counted as they stream in, so a chunked body (no
    content-length) is cut at the limit too instead of being read whole. Bodies under the limit
    are buffered (they are small) and handed on unchanged.
    """

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await _too_large(send)
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await _too_large(send)
                return
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _too_large(send: Any) -> None:
    await JSONResponse({"error": "too_large", "detail": "request too large"}, 413)(
        {"type": "http"}, None, send)


class PublicURL:
    """Make every request look as if it came to the public address (scheme and host), so each
    redirect and link the app builds from the request points there, whatever Host header or
    scheme the proxy in front passed on."""

    def __init__(self, app: Any, url: str) -> None:
        self.app = app
        parts = urlsplit(url)
        self.https = parts.scheme == "https"
        self.host = parts.netloc.encode("latin-1")
        port = parts.port or (443 if self.https else 80)
        self.server = (parts.hostname or "", port)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            secure = {"http": "https", "websocket": "wss"}[scope["type"]]
            plain = {"http": "http", "websocket": "ws"}[scope["type"]]
            headers = [(k, v) for k, v in scope.get("headers", []) if k != b"host"]
            scope = {**scope, "scheme": secure if self.https else plain, "server": self.server,
                     "headers": [(b"host", self.host), *headers]}
        await self.app(scope, receive, send)


class ClientCookie:
    """Give each browser a random client token (an HttpOnly cookie) on its first response.

    It tells the server "the same browser" (one open seat per browser and table); it is no
    secret of any seat. ``Secure`` when the public address is https.
    """

    def __init__(self, app: Any, secure: bool = False) -> None:
        self.app = app
        self.secure = secure

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or client_token(Request(scope)):
            await self.app(scope, receive, send)
            return
        cookie = (f"{CLIENT_COOKIE}={new_secret()}; Path=/; Max-Age=31536000; HttpOnly; "
                  f"SameSite=Lax{'; Secure' if self.secure else ''}")

        async def with_cookie(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"set-cookie", cookie.encode())]}
            await send(message)

        await self.app(scope, receive, with_cookie)


def client_token(request: Request) -> str | None:
    token = request.cookies.get(CLIENT_COOKIE)
    return token if token and _CLIENT_TOKEN.match(token) else None


def _trimmed_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    """Which fields were wrong and why, never the input itself (it could be megabytes)."""
    return [{"loc": [str(x)[:40] for x in e.get("loc", ())][:6], "msg": str(e.get("msg", ""))[:200],
             "type": str(e.get("type", ""))[:40]} for e in exc.errors()[:8]]


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    storage = Storage(settings.database_url)
    metrics = Metrics()
    manager = TableManager(settings, storage, make_bus(settings.redis_url), metrics)
    secure = (settings.public_url or "").startswith("https://")
    limits = RateLimits(settings.redis_url, settings.rate_limits)
    accounts = Accounts(storage)
    ratings = Ratings(storage)
    chat = Chat(storage, manager, limits, accounts)
    matchmaker = Matchmaker(storage, manager, settings.matchmaking_interval)
    notifier = notify_mod.Notifier(storage, manager, settings.public_url)
    friends = friends_mod.Friends(storage, manager, notifier)
    sockets = AccountSockets(manager.bus)
    fair = FairSettings.from_env()
    manager.fair = FairPool(settings.bot_workers, fair.per_visitor)
    manager.visitors = visitors = Visitors(fair)
    manager.hooks += [ratings, chat, matchmaker, notifier, sockets]

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        await asyncio.to_thread(storage.migrate)
        await manager.start()
        sweeper = asyncio.create_task(manager._every(3600, lambda: manager._db(
            idempotency.sweep, storage)))
        await matchmaker.start()
        unused = asyncio.create_task(visitors.loop(manager))
        lag = asyncio.create_task(manager.metrics.watch_loop())
        if settings.tune_gc:
            # What is loaded by now lives as long as the server: keep the cyclic GC from walking
            # it again and again (a full collection paused the loop ~250 ms at 200 tables), and
            # collect the young generation less often. Process-wide, so only `meeple serve` asks.
            gc.collect()
            gc.freeze()
            gc.set_threshold(20_000, 20, 50)
            manager.metrics.watch_gc()
        yield
        sweeper.cancel()
        unused.cancel()
        lag.cancel()
        await matchmaker.stop()
        await manager.stop()
        storage.dispose()
        accounts.hashing.shutdown()

    app = FastAPI(title="meeple", lifespan=lifespan)
    app.state.manager = manager
    app.state.storage = storage
    app.state.accounts = accounts
    app.state.ratings = ratings
    app.state.matchmaker = matchmaker
    app.state.notifier = notifier
    app.state.visitors = visitors
    app.add_middleware(ClientCookie, secure=secure)
    app.add_middleware(BodyLimit)
    app.add_middleware(CrossSite, public_url=settings.public_url)
    app.add_middleware(SecurityHeaders)
    if settings.public_url:
        app.add_middleware(PublicURL, url=settings.public_url)

    @app.exception_handler(TableError)
    async def _table_error(_: Request, exc: TableError) -> JSONResponse:
        wait = getattr(exc, "retry_after", None)  # a rate limit says when to come back
        return JSONResponse({"error": exc.code, "detail": str(exc)}, _ERROR_STATUS.get(exc.code, 400),
                            headers={"Retry-After": str(wait)} if wait else None)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": "bad_request", "detail": _trimmed_errors(exc)}, 422)

    @app.exception_handler(MeepleError)
    async def _meeple_error(_: Request, exc: MeepleError) -> JSONResponse:
        return JSONResponse({"error": type(exc).__name__, "detail": str(exc)}, 400)

    @app.exception_handler(IdempotencyError)
    async def _key_error(_: Request, exc: IdempotencyError) -> JSONResponse:
        return JSONResponse({"error": exc.code, "detail": str(exc)}, _ERROR_STATUS[exc.code])

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        """FastAPI's own refusals (a body it cannot parse, 2 KB of nested brackets included;
        an unknown path or method) in the same shape as ours: ``{error, detail}``."""
        if exc.status_code < 400:
            return await http_exception_handler(request, exc)
        code = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}.get(
            exc.status_code, f"http_{exc.status_code}")
        return JSONResponse({"error": code, "detail": exc.detail}, exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(RecursionError)
    async def _too_deep(_: Request, exc: RecursionError) -> JSONResponse:
        """JSON nested deeper than the parser's recursion limit (2 KB of brackets)."""
        return JSONResponse({"error": "bad_request", "detail": "JSON nested too deeply"}, 400)

    # ----- operations -------------------------------------------------------------------------
    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Alive: the event loop answers (restart the process if not)."""
        return {"ok": True}

    @app.get("/readyz")
    async def readyz() -> JSONResponse:
        """Ready for traffic: not draining, database (and Redis) reachable."""
        ok, checks = await readiness(manager)
        return JSONResponse({"ok": ok, **checks}, 200 if ok else 503)

    @app.get("/metrics")
    async def prometheus() -> Response:
        body, media = metrics.render(manager)
        return Response(body, media_type=media)

    async def once(request: Request, body: Any, run: Any) -> Any:
        """Run ``run(key)`` at most once per ``Idempotency-Key`` (see idempotency.py)."""
        raw = request.headers.get("idempotency-key")
        if raw is None:
            return await run(None)
        # the answer is kept for this browser (or session) only: holds a seat's secrets
        key = idempotency.scoped(raw, client_token(request) or session_token(request),
                                 request.method, request.url.path)
        digest = hashlib.sha256(body.model_dump_json().encode()).hexdigest()
        stored = await manager._db(idempotency.claim, storage, key, digest)
        if stored is not None:
            return JSONResponse(stored.answer, stored.status)
        try:
            out = await run(key)
        except TableError as exc:
            status = _ERROR_STATUS.get(exc.code, 400)
            if status < 500:
                await manager._db(idempotency.finish, storage, key, status,
                                  {"error": exc.code, "detail": str(exc)})
            else:
                await manager._db(idempotency.forget, storage, key)
            raise
        except BaseException:
            await manager._db(idempotency.forget, storage, key)
            raise
        await manager._db(idempotency.finish, storage, key, 200, out)
        return out
    # ----- players: accounts, ratings, Play now -----------------------------------------------
    async def user_of(request: Request) -> dict[str, Any] | None:
        token = session_token(request)
        return await asyncio.to_thread(accounts.session_user, token) if token else None

    async def guest_name(name: str | None) -> None:
        """A guest's name may not read as an account's (case, look-alikes, digits)."""
        if name and await asyncio.to_thread(accounts.name_taken, name):
            raise TableError("name_taken", "that name reads like a player's account; log in or "
                             "pick another")

    async def current(request: Request) -> dict[str, Any]:
        user = await user_of(request)
        if user is None:
            raise TableError("unauthorized", "log in first")
        return user

    async def claimed(table_ids: list[str]) -> None:
        """Seats a guest took became an account's: live tables re-read them."""
        for tid in table_ids:
            t = manager.tables.get(tid)
            if t is not None:
                async with t.lock:
                    await manager.catch_up(t)
                    manager._changed(t)

    async def muted(user: dict[str, Any]) -> None:
        chat.set_muted(user["id"], await asyncio.to_thread(accounts.muted_ids, user["id"]))

    app.include_router(accounts_mod.router(accounts, limits, secure, claimed, client_token, muted,
                                           sockets.close))
    app.include_router(ratings_mod.router(ratings))
    app.include_router(matchmaking_mod.router(matchmaker, current, ratings, limits))
    app.include_router(notify_mod.router(notifier, current))
    app.include_router(analysis_mod.router(manager, limits))

    @app.get("/api/my/tables")
    async def api_my_tables(request: Request) -> dict[str, Any]:
        """Open and running tables where my account has a seat, and whether it is my turn."""
        user = await current(request)
        ids = await asyncio.to_thread(accounts.live_tables, user["id"])
        out = []
        for tid in ids:
            try:
                t = await manager.get(tid)
            except TableError:
                continue
            seat = next((s.seat for s in t.rec.seats if s.user_id == user["id"]), None)
            if seat is None:
                continue
            out.append({**manager.summary(t), "seat": seat,
                        "my_turn": t.rec.status == "running" and t.state.to_move == seat
                        and not t.bot_plays(seat)})
        out.sort(key=lambda x: not x["my_turn"])
        return {"tables": out}

    @app.get("/api/tables/{table_id}/chat")
    async def api_chat(table_id: str) -> list[dict[str, Any]]:
        """The table's chat (what its players and spectators saw), for replays."""
        return await chat.messages((await table(table_id)).rec.id)

    # ----- lobby API --------------------------------------------------------------------------
    @app.get("/api/games")
    async def api_games() -> list[dict[str, Any]]:
        return games_json()

    @app.get("/api/tables")
    async def api_tables() -> dict[str, Any]:
        live = await asyncio.to_thread(storage.list_tables, ("open", "running"), 200)
        live.sort(key=lambda r: not any(s.kind == "human" for s in r.seats))  # people first
        done = await asyncio.to_thread(storage.list_tables, ("over",), 50)
        return {"open": [record_summary(r) for r in live if r.status == "open"],
                "running": [record_summary(r) for r in live if r.status == "running"],
                "over": [record_summary(r) for r in done]}

    @app.post("/api/tables")
    async def api_create(body: CreateTable, request: Request) -> Any:
        await limits.hit("create_table", accounts_mod.client_address(request))
        user = await user_of(request)
        botapi.people_only(user)
        if user is None:
            await guest_name(body.name)
        return await once(request, body, lambda key: new_table(request, user, body, key))

    async def new_table(request: Request, user: dict[str, Any] | None, body: CreateTable,
                        key: str | None = None) -> dict[str, Any]:
        """A table as `POST /api/tables` makes it, within the visitor's caps."""
        visitor = f"user:{user['id']}" if user else f"addr:{accounts_mod.client_address(request)}"
        bot_seats = sum(s.kind == "bot" for s in body.seats)
        if settings.rate_limits:  # the caps per visitor (off with the limits: load tests)
            await asyncio.to_thread(visitors.admit, manager, visitor, bot_seats)
        t, host, taken = await manager.create(
            body.game, body.players, body.options,
            [(s.kind, s.level) for s in body.seats], user["username"] if user else body.name,
            body.time_limit, client=client_token(request), idem_key=key,
            user=user["id"] if user else None,
            speed=body.speed.model_dump() if body.speed else None,
        )
        await friends.record_table(t, user, body.friends_only)
        if settings.rate_limits:
            visitors.created(t.rec.id, visitor, bot_seats)
        log.info("table created", extra={"table": t.rec.id, "game": t.rec.game})
        return manager.create_answer(t, host, taken)

    async def challenge_table(request: Request, user: dict[str, Any],
                              body: dict[str, Any]) -> dict[str, Any]:
        await limits.hit("create_table", accounts_mod.client_address(request))
        return await new_table(request, user, CreateTable.model_validate(body))

    async def table(table_id: str) -> LiveTable:
        if not re.fullmatch(r"[0-9a-f]{1,32}", table_id):
            raise TableError("no_table", "no such table")
        return await manager.get(table_id)

    @app.get("/api/tables/{table_id}")
    async def api_table(table_id: str) -> dict[str, Any]:
        return manager.summary(await table(table_id))

    @app.post("/api/tables/{table_id}/join")
    async def api_join(table_id: str, body: Join, request: Request) -> Any:
        t = await table(table_id)
        user = await user_of(request)
        botapi.people_only(user)
        await friends.check_join(t, body.seat, user, body.secret)
        if user is None:
            await guest_name(body.name)

        async def run(key: str | None) -> dict[str, Any]:
            secret = await manager.join(t, body.seat, user["username"] if user else body.name,
                                        body.secret, client_token(request), key,
                                        user["id"] if user else None)
            return {"id": t.rec.id, "seat": body.seat, "secret": secret}

        return await once(request, body, run)

    @app.post("/api/tables/{table_id}/bot")
    async def api_bot(table_id: str, body: HostSeat) -> dict[str, Any]:
        t = await table(table_id)
        await manager.host_seat(t, body.host, body.seat, "bot", body.level)
        return manager.summary(t)

    @app.post("/api/tables/{table_id}/invite")
    async def api_invite(table_id: str, body: HostSeat) -> dict[str, Any]:
        t = await table(table_id)
        secret = await manager.host_seat(t, body.host, body.seat, "invite", None)
        return {"id": t.rec.id, "seat": body.seat, "secret": secret,
                "link": f"{settings.public_url or ''}/table/{t.rec.id}#seat={body.seat}&invite={secret}"}

    @app.post("/api/tables/{table_id}/reopen")
    async def api_reopen(table_id: str, body: HostSeat) -> dict[str, Any]:
        """Before the start: the host removes whoever holds the seat (or an unused invite)."""
        t = await table(table_id)
        await manager.host_reopen(t, body.host, body.seat)
        return manager.summary(t)

    @app.post("/api/tables/{table_id}/replace")
    async def api_replace(table_id: str, body: HostSeat) -> dict[str, Any]:
        """During the game: the host hands a long-gone player's seat to a bot."""
        t = await table(table_id)
        await manager.host_replace(t, body.host, body.seat, body.level)
        return manager.summary(t)

    @app.post("/api/tables/{table_id}/rematch")
    async def api_rematch(table_id: str, body: Rematch, request: Request) -> Any:
        t = await table(table_id)
        user = await user_of(request)
        return await once(request, body, lambda key: manager.rematch(
            t, body.seat, body.secret, client_token(request), key, user["id"] if user else None))

    app.include_router(friends_mod.router(friends, current, table, client_token, record_summary))
    bots = botapi.BotAPI(storage, manager, friends, chat, matchmaker, ratings, limits, visitors,
                         settings)
    app.include_router(botapi.router(bots, current, table, challenge_table))

    @app.get("/api/tables/{table_id}/replay")
    async def api_replay(table_id: str, step: int | None = None, seat: int | None = None) -> dict[str, Any]:
        """Any step of a finished game from any seat's view (nothing is secret any more)."""
        t = await table(table_id)
        if t.rec.status != "over":
            raise TableError("not_over", "replays open when the game is over")
        st = t.state
        total = len(st.history)
        step = total if step is None else step
        if not 0 <= step <= total or (seat is not None and not 0 <= seat < t.rec.players):
            raise TableError("bad_request", "no such step or seat")
        at = meeple.replay(st.record(), upto=step)
        return {
            "id": t.rec.id, "game": t.rec.game, "step": step, "steps": total, "seat": seat,
            "view": at.view(seat), "log": at.log(seat, names=t.names()), "to_move": at.to_move,
            "moves": [{"seat": s, "label": d} for s, d in _move_labels(t)],
            "seats": manager.seats_json(t), "scores": st.scores(), "ranking": st.ranking(),
        }

    @app.get("/api/tables/{table_id}/record")
    async def api_record(table_id: str) -> dict[str, Any]:
        t = await table(table_id)
        if t.rec.status != "over":
            raise TableError("not_over", "the record is published when the game is over")
        return t.state.record(table=t.rec.id, seats=[s.name for s in t.rec.seats])

    # ----- the table's WebSocket --------------------------------------------------------------
    @app.websocket("/ws/tables/{table_id}")
    async def ws_table(ws: WebSocket, table_id: str) -> None:
        await ws.accept()
        if manager.draining:  # the load balancer has not noticed yet: try another server
            await ws.send_json({"type": "reconnect", "message": "this server is restarting"})
            await ws.close(code=1012)
            return
        addr = ws.client.host if ws.client else "?"
        if manager.client_sockets.get(addr, 0) >= settings.max_sockets_per_client:
            await _refuse(ws, TableError("too_many", "too many open connections from your address"))
            return
        manager.client_sockets[addr] = manager.client_sockets.get(addr, 0) + 1
        try:
            await _table_socket(ws, table_id)
        finally:
            left = manager.client_sockets.get(addr, 1) - 1
            if left > 0:
                manager.client_sockets[addr] = left
            else:
                manager.client_sockets.pop(addr, None)

    async def _table_socket(ws: WebSocket, table_id: str) -> None:
        try:
            t = await table(table_id)
            try:  # a socket that never says hello is not kept open
                hello = await asyncio.wait_for(_receive(ws, settings.max_message_bytes), 30)
            except TimeoutError:
                raise TableError("bad_message", "no hello") from None
            if not isinstance(hello, Hello):
                raise TableError("bad_message", "say hello first")
            token = ws.cookies.get(SESSION_COOKIE)
            user = await asyncio.to_thread(accounts.session_user, token) if token else None
            if hello.seat is not None:
                if not 0 <= hello.seat < t.rec.players:
                    raise TableError("bad_seat", "no such seat")
                s = t.seat(hello.seat)
                # a seat opens with its secret, or for the logged-in account that holds it
                mine = user is not None and s.user_id == user["id"]
                if s.kind != "human" or not (mine or secret_ok(hello.secret, s.secret_hash)):
                    await manager.refresh(t)  # joined on another server a moment ago?
                    s = t.seat(hello.seat)
                    mine = user is not None and s.user_id == user["id"]
                if s.kind != "human" or not (mine or secret_ok(hello.secret, s.secret_hash)):
                    raise TableError("forbidden", "wrong seat secret")
            if sum(not c.closed for c in t.conns) >= settings.max_sockets_per_table:
                raise TableError("too_many", "this table has as many watchers as it takes")
        except TableError as exc:
            await _refuse(ws, exc)
            return
        except WebSocketDisconnect:
            return
        conn = Connection(seat=hello.seat,
                          secret_hash=None if hello.seat is None else t.seat(hello.seat).secret_hash)
        manager.attach(t, conn)  # the newcomer gets everything; the others only who is here
        writer = asyncio.create_task(_writer(ws, conn))
        if user is not None and token:
            sockets.attach(conn, user["id"], token)
        await chat.attach(t, conn, user)
        try:
            while not conn.closed:
                try:
                    msg = await _receive(ws, settings.max_message_bytes)
                except TableError as exc:
                    conn.push({"type": "error", "code": exc.code, "message": str(exc)})
                    continue
                try:
                    if isinstance(msg, Say) and manager.holds_seat(t, conn):
                        await chat.say(t, conn, msg.text)
                        continue
                    await _handle(manager, t, conn, msg)
                except TableError as exc:
                    conn.push({"type": "error", "code": exc.code, "message": str(exc)})
                except Exception:  # e.g. the database is unreachable: nothing was applied
                    log.exception("table %s: message failed", t.rec.id)
                    conn.push({"type": "error", "code": "server_error",
                               "message": "the server could not handle that; try again"})
        except WebSocketDisconnect:
            pass
        finally:
            writer.cancel()
            if user is not None:
                sockets.detach(conn, user["id"])
            manager.detach(t, conn)
            manager.evict_if_idle(t)

    # ----- pages and static files -------------------------------------------------------------
    # The pages are static HTML; their scripts read the path (table id, username, game).
    pages = {"/": "index.html", "/table/{_id}": "table.html", "/replay/{_id}": "replay.html",
             "/account": "account.html", "/player/{_id}": "player.html",
             "/leaderboard/{_id}": "leaderboard.html", "/play": "play.html", "/my": "mygames.html"}
    def page_of(page: str) -> Any:
        async def serve_page() -> FileResponse:
            return FileResponse(WEB / page)
        return serve_page

    for route, page in pages.items():
        app.add_api_route(route, page_of(page), methods=["GET"], include_in_schema=False)

    @app.get("/rulings/{game}", include_in_schema=False)
    async def rulings(game: str) -> HTMLResponse:
        """The game's rulings page: how meeple reads its rulebook, and what was reconstructed."""
        if game not in {g["id"] for g in meeple.games()}:
            raise TableError("no_table", "no such game")
        path = rulings_mod.rulings_file(game)
        if path is None:
            raise TableError("no_table", f"this install has no rulings page; see {meeple.game_info(game).rules_doc}"
                             " in the meeple source")
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        return HTMLResponse(rulings_mod.render_page(meeple.game_info(game).title, text))

    @app.get("/games/{game}/web/{name}")
    async def game_asset(game: str, name: str) -> FileResponse:
        if game not in {g["id"] for g in meeple.games()} or not _SAFE_FILE.match(name):
            raise TableError("no_table", "no such file")
        path = Path(str(resources.files(f"meeple.games.{game}").joinpath("web", name)))
        if not path.is_file():
            raise TableError("no_table", "no such file")
        return FileResponse(path, media_type=_MEDIA[name.rsplit(".", 1)[1]])

    app.mount("/static", StaticFiles(directory=WEB), name="static")
    return app


async def _refuse(ws: WebSocket, exc: TableError) -> None:
    try:
        await ws.send_json({"type": "error", "code": exc.code, "message": str(exc)})
        await ws.close(code=4000 + _ERROR_STATUS.get(exc.code, 400) % 1000)
    except (WebSocketDisconnect, RuntimeError):
        pass


def _move_labels(t: LiveTable) -> list[tuple[int, str]]:
    st = meeple.make(t.rec.game, t.rec.players, t.rec.seed, **t.rec.options)
    out = []
    with seat_names(t.names()):
        for a in t.state.history:
            seat = st.to_move
            out.append((seat, st.describe(a)))
            st.apply(a)
    return out


async def _receive(ws: WebSocket, limit: int) -> Any:
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text = message.get("text")
    if text is None:
        raise TableError("bad_message", "messages are JSON text frames")
    if len(text) > limit:
        raise TableError("too_large", f"messages are at most {limit} bytes")
    try:
        return ClientMessage.validate_python(json.loads(text))
    except RecursionError:
        raise TableError("bad_message", "invalid message: nested too deeply") from None
    except (ValueError, ValidationError) as exc:
        raise TableError("bad_message", f"invalid message: {str(exc)[:200]}") from None


async def _handle(manager: TableManager, t: LiveTable, conn: Connection, msg: Any) -> None:
    if not manager.holds_seat(t, conn):  # reopened or handed to a bot since this hello
        conn.push({"type": "error", "code": "seat_lost", "message": "this seat is no longer yours"})
        conn.push(None)
        conn.closed = True
        return
    if isinstance(msg, Move):
        if conn.seat is None:
            raise TableError("forbidden", "spectators do not move")
        await manager.move(t, conn.seat, msg.action, msg.move)
    elif isinstance(msg, Undo):
        if conn.seat is None:
            raise TableError("forbidden", "spectators do not move")
        await manager.undo(t, conn.seat, msg.move, msg.to)
    elif isinstance(msg, Leave | Reclaim):
        if conn.seat is None:
            raise TableError("forbidden", "spectators have no seat")
        await manager.set_zombie(t, conn.seat, isinstance(msg, Leave))
    elif isinstance(msg, Vote):
        if conn.seat is None:
            raise TableError("forbidden", "spectators do not vote")
        conn.push({"type": "vote", **await clocks.vote(manager, t, conn.seat, msg.seat)})
    elif isinstance(msg, Hello):
        raise TableError("bad_message", "already said hello")
    else:  # ping
        conn.push({"type": "pong"})


async def _writer(ws: WebSocket, conn: Connection) -> None:
    try:
        while True:
            msg = await conn.queue.get()
            if msg is None:
                await ws.close()
                return
            await ws.send_text(json.dumps(msg, separators=(",", ":")))
    except Exception:
        conn.closed = True
