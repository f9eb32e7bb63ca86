"""What the routes share, as FastAPI dependencies: the app's parts (`Services`), the caller's
account, a live table, and requests run at most once per ``Idempotency-Key``.

`create_app` builds one `Services` and keeps it in ``app.state.services``; a route asks for it
(or for the account, or the table) with ``Depends`` instead of closing over `create_app`'s
locals.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from . import idempotency
from .accounts import Accounts, AccountSockets, session_token
from .chat import Chat
from .config import Settings
from .fairshare import Visitors
from .friends import Friends
from .matchmaking import Matchmaker
from .middleware import client_token
from .notify import Notifier
from .ratelimit import RateLimits
from .ratings import Ratings
from .storage import ClaimLost, Storage
from .tables import LiveTable, TableError, TableManager

if TYPE_CHECKING:
    from pydantic import BaseModel

# the HTTP status of each refusal code (a WebSocket closes with 4000 + its last three digits)
ERROR_STATUS = {
    "no_table": 404,
    "forbidden": 403,
    "seat_taken": 409,
    "stale": 409,
    "not_over": 409,
    "not_running": 409,
    "too_many": 429,
    "one_seat": 409,
    "not_open": 409,
    "not_gone": 409,
    "draining": 503,
    "in_progress": 409,
    "key_reused": 422,
    "bad_key": 400,
    "rate_limited": 429,
    "unauthorized": 401,
    "disabled": 403,
    "username_taken": 409,
    "no_player": 404,
    "no_game": 404,
    "cross_site": 403,
    "no_undo": 409,
    "no_client": 400,
    "name_taken": 409,
    "scope": 403,
    "not_bot": 403,
    "bot_account": 403,
    "not_seated": 403,
    "played_people": 409,
}
_TABLE_ID = re.compile(r"[0-9a-f]{1,32}")


@dataclass
class Services:
    """The parts of one running app, built once by `create_app`."""

    settings: Settings
    storage: Storage
    manager: TableManager
    accounts: Accounts
    ratings: Ratings
    chat: Chat
    matchmaker: Matchmaker
    notifier: Notifier
    friends: Friends
    sockets: AccountSockets
    limits: RateLimits
    visitors: Visitors

    async def table(self, table_id: str) -> LiveTable:
        """A live table by its id (a malformed id is no table, before any lookup)."""
        if not _TABLE_ID.fullmatch(table_id):
            raise TableError("no_table", "no such table")
        return await self.manager.get(table_id)

    async def user_of(self, request: Request) -> dict[str, Any] | None:
        token = session_token(request)
        return await asyncio.to_thread(self.accounts.session_user, token) if token else None

    async def guest_name(self, name: str | None) -> None:
        """A guest's name may not read as an account's (case, look-alikes, digits)."""
        if name and await asyncio.to_thread(self.accounts.name_taken, name):
            raise TableError(
                "name_taken", "that name reads like a player's account; log in or pick another"
            )

    async def claimed(self, table_ids: list[str]) -> None:
        """Seats a guest took became an account's: live tables re-read them."""
        for tid in table_ids:
            t = self.manager.tables.get(tid)
            if t is not None:
                await self.manager.reread(t)

    async def muted(self, user: dict[str, Any]) -> None:
        self.chat.set_muted(
            user["id"], await asyncio.to_thread(self.accounts.muted_ids, user["id"])
        )

    async def once(self, request: Request, body: BaseModel, run: Any) -> Any:
        """Run ``run(claim)`` at most once per ``Idempotency-Key`` (see idempotency.py)."""
        raw = request.headers.get("idempotency-key")
        if raw is None:
            return await run(None)
        # the answer is kept for this browser (or session) only: holds a seat's secrets
        key = idempotency.scoped(
            raw, client_token(request) or session_token(request), request.method, request.url.path
        )
        digest = hashlib.sha256(body.model_dump_json().encode()).hexdigest()
        db, storage = self.manager.db, self.storage
        claim = await db(idempotency.claim, storage, key, digest)
        if isinstance(claim, idempotency.Stored):
            return JSONResponse(claim.answer, claim.status)
        try:
            out = await run(claim)
        except ClaimLost:  # a retry took the claim over: nothing of ours committed
            return await self._repeat(key)
        except TableError as exc:
            storage.answered(claim)
            status = ERROR_STATUS.get(exc.code, 400)
            if status >= 500:
                await db(idempotency.forget, storage, claim)
            elif not await db(idempotency.finish, storage, claim, status,
                              {"error": exc.code, "detail": str(exc)}):
                return await self._repeat(key)
            raise
        except BaseException:
            storage.answered(claim)
            await db(idempotency.forget, storage, claim)
            raise
        # the answer was committed with the effect (a table, a seat), or is stored now
        if storage.answered(claim) or await db(idempotency.finish, storage, claim, 200, out):
            return out
        return await self._repeat(key)

    async def _repeat(self, key: str) -> JSONResponse:
        """A request whose claim a retry took over answers as a retry would (never touching
        the retry's claim): the stored answer, else 409 ``in_progress``."""
        again = await self.manager.db(idempotency.repeat, self.storage, key)
        return JSONResponse(again.answer, again.status)


def services(conn: HTTPConnection) -> Services:
    return conn.app.state.services  # type: ignore[no-any-return]


async def user_of(request: Request) -> dict[str, Any] | None:
    """The logged-in account, or None for a guest."""
    return await services(request).user_of(request)


async def current(request: Request) -> dict[str, Any]:
    """The logged-in account (401 ``unauthorized`` for a guest)."""
    user = await user_of(request)
    if user is None:
        raise TableError("unauthorized", "log in first")
    return user


async def live_table(table_id: str, request: Request) -> LiveTable:
    return await services(request).table(table_id)


Svc = Annotated[Services, Depends(services)]
OptionalUser = Annotated[dict[str, Any] | None, Depends(user_of)]
CurrentUser = Annotated[dict[str, Any], Depends(current)]
Table = Annotated[LiveTable, Depends(live_table)]
