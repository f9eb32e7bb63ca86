"""Post-game analysis on the web: "Analyse my game" at a finished table and in its replay.

Only a finished game is analysed (a live one would tell a player what the bots think of their
hand), and once it is over every seat's cards are public, so anyone who may watch its replay may
analyse any seat. An analysis runs on the bot workers (`BotSeats.pool`), one job per decision
so that it takes turns with the bots' moves, and is stored once per (table, seat, depth) in
``meeple_analyses`` (migration ``0010_analysis``): a second press, on this server or another,
reads the stored one or the progress of the one under way. Starting one counts against the
visitor's ``analyse`` budget (a moving-window rate limit, like the other limits).

Each stored analysis keeps the version of the method that made it (`METHOD_VERSION`, column
``method``, migration ``0013_s4_anver``). One made by an older method (or before versions were
kept) is reported ``outdated`` and still shown; a press analyses it again and replaces it. The
replacement is claimed like a failed analysis: one conditional update wins on any server.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any, Literal

from fastapi import APIRouter, Request
from limits import parse_many
from sqlalchemy import JSON, Column, Float, ForeignKey, Integer, String, Table, select, update
from sqlalchemy.exc import IntegrityError

from meeple.bots.analysis import DEPTHS, METHOD_VERSION, analyse, analysis_points, merge

from .accounts import client_address
from .models import SeatNo, Strict
from .ratelimit import RateLimits
from .storage import Storage, metadata
from .tables import TableError, TableManager

log = logging.getLogger("meeple.server")

BUDGET = "5/minute;20/hour"
"""Analyses a visitor (an address) may start: each costs the bot workers seconds to minutes."""
STALE = 120.0
"""A running analysis whose progress has not moved for this long was lost with its server; the
next request starts it again."""

analyses_t = Table(
    "meeple_analyses", metadata,
    Column("table_id", String(32), ForeignKey("meeple_tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("depth", String(16), primary_key=True),
    Column("status", String(16), nullable=False),  # running | done | failed
    Column("done", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    Column("result", JSON, nullable=True),
    Column("updated_at", Float, nullable=False),  # epoch seconds (the database's clock)
    Column("method", Integer, nullable=True),  # METHOD_VERSION that made it (NULL: unknown)
)


class StartAnalysis(Strict):
    seat: SeatNo
    depth: Literal["quick", "deep"] = "quick"


def outdated(method: int | None) -> bool:
    """Made by an older analysis method than this server's (or by one of unknown version)."""
    return method is None or method < METHOD_VERSION


def _row(r: Any, now: float) -> dict[str, Any]:
    status = r.status
    if status == "running" and now - r.updated_at >= STALE:
        status = "stale"  # its server went quiet: the next start runs it again
    return {"status": status, "done": r.done, "total": r.total, "result": r.result,
            "depth": r.depth, "seat": r.seat, "method": r.method,
            "method_current": METHOD_VERSION, "outdated": outdated(r.method)}


def _none(seat: int, depth: str) -> dict[str, Any]:
    return {"status": "none", "done": 0, "total": 0, "result": None, "depth": depth,
            "seat": seat, "method": None, "method_current": METHOD_VERSION, "outdated": False}


def _key(table_id: str, seat: int, depth: str) -> Any:
    c = analyses_t.c
    return (c.table_id == table_id) & (c.seat == seat) & (c.depth == depth)


def read(storage: Storage, table_id: str, seat: int, depth: str) -> dict[str, Any] | None:
    with storage.engine.connect() as conn:
        r = conn.execute(select(analyses_t).where(_key(table_id, seat, depth))).first()
    return _row(r, storage.clock.now()) if r is not None else None


def claim(storage: Storage, table_id: str, seat: int, depth: str, total: int) -> bool:
    """Mark the analysis as running here; False when it is done by this method (or a newer
    one) or running elsewhere."""
    now = storage.clock.now()
    with storage.engine.begin() as conn:
        try:
            with conn.begin_nested():
                conn.execute(analyses_t.insert().values(
                    table_id=table_id, seat=seat, depth=depth, status="running", done=0,
                    total=total, result=None, updated_at=now, method=METHOD_VERSION))
            return True
        except IntegrityError:
            pass
        # Taken over only when it failed, its server went quiet or an older method made it (one
        # winner: the update names the row's old time and method, so of two servers that read
        # the same row only the first to write takes it; the other then reads it running).
        r = conn.execute(select(analyses_t).where(_key(table_id, seat, depth))).first()
        if r is None or (r.status == "done" and not outdated(r.method)) or (
                r.status == "running" and now - r.updated_at < STALE):
            return False
        return take_over(conn, r, total, now)


def take_over(conn: Any, seen: Any, total: int, now: float) -> bool:
    """Restart the analysis row ``seen`` (as read a moment ago) here, unless another server
    changed it since: the update names the time and method that were read."""
    c = analyses_t.c
    same_method = c.method.is_(None) if seen.method is None else c.method == seen.method
    took = conn.execute(update(analyses_t).where(_key(seen.table_id, seen.seat, seen.depth))
                        .where(c.updated_at == seen.updated_at, same_method)
                        .values(status="running", done=0, total=total, result=None,
                                updated_at=now, method=METHOD_VERSION))
    return bool(took.rowcount == 1)


def record_progress(storage: Storage, table_id: str, seat: int, depth: str, done: int,
                    status: str = "running", result: Any = None) -> None:
    with storage.engine.begin() as conn:
        conn.execute(update(analyses_t).where(_key(table_id, seat, depth)).values(
            done=done, status=status, result=result, updated_at=storage.clock.now()))


def analyse_one(record: dict[str, Any], seat: int, depth: str, index: int) -> dict[str, Any]:
    """One decision's analysis, in a bot worker (a top-level function: it crosses processes)."""
    return analyse(record, seat, depth, only=[index]).to_json()


class Analyses:
    """Starts and follows analyses; keeps its running tasks referenced until they end."""

    def __init__(self, manager: TableManager, limits: RateLimits) -> None:
        self.manager, self.limits = manager, limits
        self.tasks: set[asyncio.Task[None]] = set()
        limits.rules.setdefault("analyse", parse_many(BUDGET))

    async def finished_record(self, table_id: str, seat: int) -> dict[str, Any]:
        if not re.fullmatch(r"[0-9a-f]{1,32}", table_id):
            raise TableError("no_table", "no such table")
        t = await self.manager.get(table_id)
        if t.rec.status != "over":
            raise TableError("not_over", "a game is analysed once it is over")
        if not 0 <= seat < t.rec.players:
            raise TableError("bad_request", "no such seat")
        return t.state.record()

    async def start(self, table_id: str, seat: int, depth: str, visitor: str) -> dict[str, Any]:
        record = await self.finished_record(table_id, seat)
        db = self.manager.db
        storage = self.manager.storage
        known = await db(read, storage, table_id, seat, depth)
        if known is not None and (known["status"] == "running" or (
                known["status"] == "done" and not known["outdated"])):
            return known
        await self.limits.hit("analyse", visitor)
        points = await asyncio.to_thread(analysis_points, record, seat)
        if await db(claim, storage, table_id, seat, depth, len(points)):
            task = asyncio.create_task(self._run(record, table_id, seat, depth, points))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        return await db(read, storage, table_id, seat, depth)

    async def _run(self, record: dict[str, Any], table_id: str, seat: int, depth: str,
                   points: list[int]) -> None:
        loop = asyncio.get_running_loop()
        db, storage = self.manager.db, self.manager.storage
        parts = []
        t0 = time.perf_counter()
        try:
            if not points:  # nothing to choose: an empty analysis, still stored once
                parts.append(await loop.run_in_executor(self.manager.bots.pool, _empty, record, seat, depth))
            for k, index in enumerate(points):
                parts.append(await loop.run_in_executor(
                    self.manager.bots.pool, analyse_one, record, seat, depth, index))
                if k + 1 < len(points):
                    await db(record_progress, storage, table_id, seat, depth, k + 1)
            from meeple.bots.analysis import Analysis

            result = merge(Analysis.from_json(p) for p in parts).to_json()
            await db(record_progress, storage, table_id, seat, depth, len(points), "done", result)
            log.info("analysis of table %s seat %d (%s) took %.1f s", table_id, seat, depth,
                     time.perf_counter() - t0)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("analysis of table %s seat %d failed", table_id, seat)
            await db(record_progress, storage, table_id, seat, depth, len(parts), "failed")


def _empty(record: dict[str, Any], seat: int, depth: str) -> dict[str, Any]:
    return analyse(record, seat, depth, only=[]).to_json()


def router(manager: TableManager, limits: RateLimits) -> APIRouter:
    """``POST /api/tables/{id}/analysis`` starts (or finds) an analysis of a seat;
    ``GET /api/tables/{id}/analysis?seat=&depth=`` follows it: status, progress and, once done,
    the analysis (`meeple.bots.analysis.Analysis.to_json`), with the method version that made
    it (``method``, ``method_current``; ``outdated``: an older one, which a POST replaces)."""
    api = APIRouter()
    analyses = Analyses(manager, limits)

    @api.post("/api/tables/{table_id}/analysis")
    async def start(table_id: str, body: StartAnalysis, request: Request) -> dict[str, Any]:
        return await analyses.start(table_id, body.seat, body.depth, client_address(request))

    @api.get("/api/tables/{table_id}/analysis")
    async def follow(table_id: str, seat: int, depth: str = "quick") -> dict[str, Any]:
        if depth not in DEPTHS:
            raise TableError("bad_request", f"depth is one of {', '.join(DEPTHS)}")
        await analyses.finished_record(table_id, seat)
        found = await manager.db(read, manager.storage, table_id, seat, depth)
        return found or _none(seat, depth)

    return api
