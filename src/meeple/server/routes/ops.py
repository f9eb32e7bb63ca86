"""Operations: liveness, readiness and Prometheus metrics."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from ..deps import Svc
from ..ops import readiness

router = APIRouter()


@router.get("/healthz")
async def healthz() -> dict[str, Any]:
    """Alive: the event loop answers (restart the process if not)."""
    return {"ok": True}


@router.get("/readyz")
async def readyz(svc: Svc) -> JSONResponse:
    """Ready for traffic: not draining, database (and Redis) reachable."""
    ok, checks = await readiness(svc.manager)
    return JSONResponse({"ok": ok, **checks}, 200 if ok else 503)


@router.get("/metrics")
async def prometheus(svc: Svc) -> Response:
    body, media = svc.manager.metrics.render(svc.manager)
    return Response(body, media_type=media)
