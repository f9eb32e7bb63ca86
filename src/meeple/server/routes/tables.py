"""One table: its summary, seats (join, host's bot, invite, reopen, replace), rematch, chat,
and its WebSocket.

Routes with a body look the table up inside, after the body is validated (a bad body is a 422
whatever the table); the others take it as a dependency (`deps.Table`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from fastapi import APIRouter, Request, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from .. import botapi, clocks
from ..accounts import SESSION_COOKIE
from ..deps import ERROR_STATUS, OptionalUser, Services, Svc, Table, services
from ..middleware import client_token
from ..models import (
    ClientMessage,
    Hello,
    HostSeat,
    Invited,
    Join,
    Leave,
    Move,
    Reclaim,
    Rematch,
    RematchAnswer,
    Say,
    Seated,
    TableSummary,
    Undo,
    Vote,
)
from ..storage import Claim
from ..tables import Connection, LiveTable, TableError, TableManager, secret_ok

log = logging.getLogger("meeple.server")

router = APIRouter()
_SUMMARY = {"response_model": TableSummary, "response_model_exclude_unset": True}


@router.get("/api/tables/{table_id}/chat")
async def api_chat(t: Table, svc: Svc) -> list[dict[str, Any]]:
    """The table's chat (what its players and spectators saw), for replays."""
    return await svc.chat.messages(t.rec.id)


@router.get("/api/tables/{table_id}", **_SUMMARY)
async def api_table(t: Table, svc: Svc) -> dict[str, Any]:
    return svc.manager.summary(t)


@router.post("/api/tables/{table_id}/join", response_model=Seated)
async def api_join(
    table_id: str, body: Join, request: Request, svc: Svc, user: OptionalUser
) -> Any:
    t = await svc.table(table_id)
    botapi.people_only(user)
    await svc.friends.check_join(t, body.seat, user, body.secret)
    if user is None:
        await svc.guest_name(body.name)

    async def run(claim: Claim | None) -> dict[str, Any]:
        secret = await svc.manager.join(
            t,
            body.seat,
            user["username"] if user else body.name,
            body.secret,
            client_token(request),
            claim,
            user["id"] if user else None,
        )
        return {"id": t.rec.id, "seat": body.seat, "secret": secret}

    return await svc.once(request, body, run)


@router.post("/api/tables/{table_id}/bot", **_SUMMARY)
async def api_bot(table_id: str, body: HostSeat, svc: Svc) -> dict[str, Any]:
    t = await svc.table(table_id)
    await svc.manager.host_seat(t, body.host, body.seat, "bot", body.level)
    return svc.manager.summary(t)


@router.post("/api/tables/{table_id}/invite", response_model=Invited)
async def api_invite(table_id: str, body: HostSeat, svc: Svc) -> dict[str, Any]:
    t = await svc.table(table_id)
    secret = await svc.manager.host_seat(t, body.host, body.seat, "invite", None)
    return {
        "id": t.rec.id,
        "seat": body.seat,
        "secret": secret,
        "link": f"{svc.settings.public_url or ''}/table/{t.rec.id}#seat={body.seat}&invite={secret}",
    }


@router.post("/api/tables/{table_id}/reopen", **_SUMMARY)
async def api_reopen(table_id: str, body: HostSeat, svc: Svc) -> dict[str, Any]:
    """Before the start: the host removes whoever holds the seat (or an unused invite)."""
    t = await svc.table(table_id)
    await svc.manager.host_reopen(t, body.host, body.seat)
    return svc.manager.summary(t)


@router.post("/api/tables/{table_id}/replace", **_SUMMARY)
async def api_replace(table_id: str, body: HostSeat, svc: Svc) -> dict[str, Any]:
    """During the game: the host hands a long-gone player's seat to a bot."""
    t = await svc.table(table_id)
    await svc.manager.host_replace(t, body.host, body.seat, body.level)
    return svc.manager.summary(t)


@router.post(
    "/api/tables/{table_id}/rematch",
    response_model=RematchAnswer,
    response_model_exclude_unset=True,
)
async def api_rematch(
    table_id: str, body: Rematch, request: Request, svc: Svc, user: OptionalUser
) -> Any:
    t = await svc.table(table_id)
    return await svc.once(
        request,
        body,
        lambda claim: svc.manager.rematch(
            t, body.seat, body.secret, client_token(request), claim, user["id"] if user else None
        ),
    )


# ----- the table's WebSocket ----------------------------------------------------------------------
@router.websocket("/ws/tables/{table_id}")
async def ws_table(ws: WebSocket, table_id: str) -> None:
    svc = services(ws)
    manager, settings = svc.manager, svc.settings
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
        await _table_socket(svc, ws, table_id)
    finally:
        left = manager.client_sockets.get(addr, 1) - 1
        if left > 0:
            manager.client_sockets[addr] = left
        else:
            manager.client_sockets.pop(addr, None)


async def _table_socket(svc: Services, ws: WebSocket, table_id: str) -> None:
    manager, settings = svc.manager, svc.settings
    try:
        t = await svc.table(table_id)
        try:  # a socket that never says hello is not kept open
            hello = await asyncio.wait_for(_receive(ws, settings.max_message_bytes), 30)
        except TimeoutError:
            raise TableError("bad_message", "no hello") from None
        if not isinstance(hello, Hello):
            raise TableError("bad_message", "say hello first")
        token = ws.cookies.get(SESSION_COOKIE)
        user = await asyncio.to_thread(svc.accounts.session_user, token) if token else None
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
    conn = Connection(
        seat=hello.seat, secret_hash=None if hello.seat is None else t.seat(hello.seat).secret_hash
    )
    manager.attach(t, conn)  # the newcomer gets everything; the others only who is here
    writer = asyncio.create_task(_writer(ws, conn))
    if user is not None and token:
        svc.sockets.attach(conn, user["id"], token)
    await svc.chat.attach(t, conn, user)
    try:
        while not conn.closed:
            try:
                msg = await _receive(ws, settings.max_message_bytes)
            except TableError as exc:
                conn.push({"type": "error", "code": exc.code, "message": str(exc)})
                continue
            try:
                if isinstance(msg, Say) and manager.holds_seat(t, conn):
                    await svc.chat.say(t, conn, msg.text)
                    continue
                await _handle(manager, t, conn, msg)
            except TableError as exc:
                conn.push({"type": "error", "code": exc.code, "message": str(exc)})
            except Exception:  # e.g. the database is unreachable: nothing was applied
                log.exception("table %s: message failed", t.rec.id)
                conn.push(
                    {
                        "type": "error",
                        "code": "server_error",
                        "message": "the server could not handle that; try again",
                    }
                )
    except WebSocketDisconnect:
        pass
    finally:
        writer.cancel()
        if user is not None:
            svc.sockets.detach(conn, user["id"])
        manager.detach(t, conn)
        manager.evict_if_idle(t)


async def _refuse(ws: WebSocket, exc: TableError) -> None:
    try:
        await ws.send_json({"type": "error", "code": exc.code, "message": str(exc)})
        await ws.close(code=4000 + ERROR_STATUS.get(exc.code, 400) % 1000)
    except (WebSocketDisconnect, RuntimeError):
        pass


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
