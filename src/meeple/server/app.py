"""The FastAPI app: lobby API, table WebSocket, replays, and the static web client.

``create_app(settings)`` builds the parts (`deps.Services`) and includes the routers (the app's
own in `routes/`, the others beside their logic); `meeple serve` runs it under uvicorn. Storage
is migrated and every running table resumed (from its action log) when the app starts.
"""

from __future__ import annotations

import asyncio
import gc
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from meeple.core import MeepleError

from . import accounts as accounts_mod
from . import analysis as analysis_mod
from . import botapi, idempotency
from . import friends as friends_mod
from . import matchmaking as matchmaking_mod
from . import notify as notify_mod
from . import ratings as ratings_mod
from .accounts import Accounts, AccountSockets, CrossSite
from .chat import Chat
from .config import Settings
from .deps import ERROR_STATUS, Services, current
from .fairshare import FairPool, FairSettings, Visitors
from .headers import SecurityHeaders
from .idempotency import IdempotencyError
from .matchmaking import Matchmaker
from .middleware import BodyLimit, ClientCookie, PublicURL, client_token
from .ops import Metrics
from .presence import every
from .pubsub import make_bus
from .ratelimit import RateLimits
from .ratings import Ratings
from .routes import lobby, pages, replays
from .routes import ops as ops_routes
from .routes import tables as table_routes
from .storage import Storage
from .tables import TableError, TableManager


def _trimmed_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    """Which fields were wrong and why, never the input itself (it could be megabytes)."""
    return [{"loc": [str(x)[:40] for x in e.get("loc", ())][:6], "msg": str(e.get("msg", ""))[:200],
             "type": str(e.get("type", ""))[:40]} for e in exc.errors()[:8]]


def build_services(settings: Settings) -> Services:
    """The app's parts, wired to each other (hooks told of every table change)."""
    storage = Storage(settings.database_url)
    manager = TableManager(settings, storage, make_bus(settings.redis_url), Metrics())
    limits = RateLimits(settings.redis_url, settings.rate_limits)
    accounts = Accounts(storage)
    ratings = Ratings(storage)
    chat = Chat(storage, manager, limits, accounts)
    matchmaker = Matchmaker(storage, manager, settings.matchmaking_interval)
    notifier = notify_mod.Notifier(storage, manager, settings.public_url)
    friends = friends_mod.Friends(storage, manager, notifier)
    sockets = AccountSockets(manager.bus)
    fair = FairSettings.from_env()
    manager.bots.fair = FairPool(settings.bot_workers, fair.per_visitor)
    manager.bots.visitors = visitors = Visitors(fair)
    manager.hooks += [ratings, chat, matchmaker, notifier, sockets]
    return Services(settings=settings, storage=storage, manager=manager, accounts=accounts,
                    ratings=ratings, chat=chat, matchmaker=matchmaker, notifier=notifier,
                    friends=friends, sockets=sockets, limits=limits, visitors=visitors)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings.from_env()
    svc = build_services(settings)
    storage, manager, accounts, matchmaker, visitors = (
        svc.storage, svc.manager, svc.accounts, svc.matchmaker, svc.visitors)
    secure = (settings.public_url or "").startswith("https://")

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        await asyncio.to_thread(storage.migrate)
        await manager.start()
        sweeper = asyncio.create_task(every(3600, lambda: manager.db(
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
    app.state.services = svc
    app.state.manager = manager
    app.state.storage = storage
    app.state.accounts = accounts
    app.state.ratings = svc.ratings
    app.state.matchmaker = matchmaker
    app.state.notifier = svc.notifier
    app.state.visitors = visitors
    app.add_middleware(ClientCookie, secure=secure)
    app.add_middleware(BodyLimit)
    app.add_middleware(CrossSite, public_url=settings.public_url)
    app.add_middleware(SecurityHeaders)
    if settings.public_url:
        app.add_middleware(PublicURL, url=settings.public_url)
    _error_handlers(app)

    app.include_router(ops_routes.router)
    app.include_router(accounts_mod.router(accounts, svc.limits, secure, svc.claimed,
                                           client_token, svc.muted, svc.sockets.close))
    app.include_router(ratings_mod.router(svc.ratings))
    app.include_router(matchmaking_mod.router(matchmaker, current, svc.ratings, svc.limits))
    app.include_router(notify_mod.router(svc.notifier, current))
    app.include_router(analysis_mod.router(manager, svc.limits))
    app.include_router(lobby.router)
    app.include_router(table_routes.router)
    app.include_router(friends_mod.router(svc.friends, current, svc.table, client_token,
                                          lobby.record_summary))
    bots = botapi.BotAPI(storage, manager, svc.friends, svc.chat, matchmaker, svc.ratings,
                         svc.limits, visitors, settings)
    app.include_router(botapi.router(bots, current, svc.table, lobby.challenge_table))
    app.include_router(replays.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=pages.WEB), name="static")
    return app


def _error_handlers(app: FastAPI) -> None:
    """Every refusal in one shape: ``{error, detail}``."""

    @app.exception_handler(TableError)
    async def _table_error(_: Request, exc: TableError) -> JSONResponse:
        wait = getattr(exc, "retry_after", None)  # a rate limit says when to come back
        return JSONResponse({"error": exc.code, "detail": str(exc)}, ERROR_STATUS.get(exc.code, 400),
                            headers={"Retry-After": str(wait)} if wait else None)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": "bad_request", "detail": _trimmed_errors(exc)}, 422)

    @app.exception_handler(MeepleError)
    async def _meeple_error(_: Request, exc: MeepleError) -> JSONResponse:
        return JSONResponse({"error": type(exc).__name__, "detail": str(exc)}, 400)

    @app.exception_handler(IdempotencyError)
    async def _key_error(_: Request, exc: IdempotencyError) -> JSONResponse:
        return JSONResponse({"error": exc.code, "detail": str(exc)}, ERROR_STATUS[exc.code])

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
