"""The lobby: games, the tables listed, a new table, and my tables."""

from __future__ import annotations

import asyncio
import logging
from importlib import resources
from typing import Any

from fastapi import APIRouter, Request

import meeple
from meeple.bots import levels

from .. import accounts as accounts_mod
from .. import botapi
from ..deps import CurrentUser, OptionalUser, Services, Svc, services
from ..middleware import client_token
from ..models import Created, CreateTable, Lobby, MyTables
from ..storage import Claim, TableRecord
from ..tables import TableError

log = logging.getLogger("meeple.server")

router = APIRouter()


def renderer_url(game: str) -> str | None:
    """The game's browser renderer, if its folder has one (``games/<id>/web/renderer.js``)."""
    path = resources.files(f"meeple.games.{game}").joinpath("web", "renderer.js")
    return f"/games/{game}/web/renderer.js" if path.is_file() else None


def games_json() -> list[dict[str, Any]]:
    out = []
    for g in meeple.games():
        info = meeple.game_info(g["id"])
        out.append(
            {
                **g,
                "bots": levels(info),
                "renderer": renderer_url(g["id"]),
                "hidden_information": info.hidden_information,
            }
        )
    return out


def record_summary(rec: TableRecord) -> dict[str, Any]:
    return {
        "id": rec.id,
        "game": rec.game,
        "players": rec.players,
        "options": rec.options,
        "status": rec.status,
        "time_limit": rec.time_limit,
        "rematch": rec.rematch,
        "seats": [
            {
                "seat": s.seat,
                "kind": s.kind,
                "name": s.name,
                "level": s.level,
                "zombie": s.zombie,
                "account": s.user_id is not None,
                "bot_account": s.account_bot,
            }
            for s in rec.seats
        ],
    }


@router.get("/api/my/tables", response_model=MyTables, response_model_exclude_unset=True)
async def api_my_tables(svc: Svc, user: CurrentUser) -> dict[str, Any]:
    """Open and running tables where my account has a seat, and whether it is my turn."""
    manager = svc.manager
    ids = await asyncio.to_thread(svc.accounts.live_tables, user["id"])
    out = []
    for tid in ids:
        try:
            t = await manager.get(tid)
        except TableError:
            continue
        seat = next((s.seat for s in t.rec.seats if s.user_id == user["id"]), None)
        if seat is None:
            continue
        out.append(
            {
                **manager.summary(t),
                "seat": seat,
                "my_turn": t.rec.status == "running"
                and t.state.to_move == seat
                and not t.bot_plays(seat),
            }
        )
    out.sort(key=lambda x: not x["my_turn"])
    return {"tables": out}


@router.get("/api/games")
async def api_games() -> list[dict[str, Any]]:
    return games_json()


@router.get("/api/tables", response_model=Lobby, response_model_exclude_unset=True)
async def api_tables(svc: Svc) -> dict[str, Any]:
    live = await asyncio.to_thread(svc.storage.list_tables, ("open", "running"), 200)
    live.sort(key=lambda r: not any(s.kind == "human" for s in r.seats))  # people first
    done = await asyncio.to_thread(svc.storage.list_tables, ("over",), 50)
    return {
        "open": [record_summary(r) for r in live if r.status == "open"],
        "running": [record_summary(r) for r in live if r.status == "running"],
        "over": [record_summary(r) for r in done],
    }


@router.post("/api/tables", response_model=Created, response_model_exclude_unset=True)
async def api_create(body: CreateTable, request: Request, svc: Svc, user: OptionalUser) -> Any:
    await svc.limits.hit("create_table", accounts_mod.client_address(request))
    botapi.people_only(user)
    if user is None:
        await svc.guest_name(body.name)
    return await svc.once(request, body, lambda claim: new_table(svc, request, user, body, claim))


async def new_table(
    svc: Services,
    request: Request,
    user: dict[str, Any] | None,
    body: CreateTable,
    claim: Claim | None = None,
) -> dict[str, Any]:
    """A table as `POST /api/tables` makes it, within the visitor's caps."""
    manager, settings = svc.manager, svc.settings
    visitor = f"user:{user['id']}" if user else f"addr:{accounts_mod.client_address(request)}"
    bot_seats = sum(s.kind == "bot" for s in body.seats)
    if settings.rate_limits:  # the caps per visitor (off with the limits: load tests)
        await asyncio.to_thread(svc.visitors.admit, manager, visitor, bot_seats)
    t, host, taken = await manager.create(
        body.game,
        body.players,
        body.options,
        [(s.kind, s.level) for s in body.seats],
        user["username"] if user else body.name,
        body.time_limit,
        client=client_token(request),
        claim=claim,
        user=user["id"] if user else None,
        speed=body.speed.model_dump() if body.speed else None,
    )
    await svc.friends.record_table(t, user, body.friends_only)
    if settings.rate_limits:
        svc.visitors.created(t.rec.id, visitor, bot_seats)
    log.info("table created", extra={"table": t.rec.id, "game": t.rec.game})
    return manager.create_answer(t, host, taken)


async def challenge_table(
    request: Request, user: dict[str, Any], body: dict[str, Any]
) -> dict[str, Any]:
    """A challenge's table (the Bot API), made as `POST /api/tables` makes one."""
    svc = services(request)
    await svc.limits.hit("create_table", accounts_mod.client_address(request))
    return await new_table(svc, request, user, CreateTable.model_validate(body))
