"""Helpers shared by the server tests: an app on a fresh database, tables, WebSocket reading."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from meeple.server import Settings, create_app


def client(database_url: str, **settings: Any) -> TestClient:
    """A TestClient (use as a context manager so startup runs migrations and resumes tables)."""
    return TestClient(create_app(Settings(database_url=database_url, **settings)))


def create(c: TestClient, game: str = "trickarus", players: int = 3, seats: list[dict] | None = None,
           name: str | None = "Ann", **extra: Any) -> dict[str, Any]:
    seats = seats if seats is not None else [{"kind": "me"}] + [{"kind": "bot"}] * (players - 1)
    r = c.post("/api/tables", json={"game": game, "players": players, "seats": seats, "name": name, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def hello(ws: Any, seat: int | None = None, secret: str | None = None) -> dict[str, Any]:
    ws.send_json({"type": "hello", "seat": seat, "secret": secret})
    return ws.receive_json()


def until(ws: Any, pred: Callable[[dict[str, Any]], bool], limit: int = 100_000) -> dict[str, Any]:
    """Read messages until one satisfies ``pred`` (errors included), failing after ``limit``."""
    for _ in range(limit):
        m = ws.receive_json()
        if pred(m):
            return m
    raise AssertionError("expected message never came")


def my_turn(m: dict[str, Any]) -> bool:
    return m.get("type") == "state" and (bool(m["legal"]) or m["status"] == "over")


def wait_for(pred: Callable[[], bool], seconds: float = 20.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError("condition not reached in time")


def join(c: TestClient, table_id: str, seat: int, name: str, secret: str | None = None) -> Any:
    """Join from a fresh browser (a new client cookie): one browser takes one seat per table."""
    c.cookies.clear()
    c.get("/api/games")  # the first response hands the browser its client cookie
    body: dict[str, Any] = {"seat": seat, "name": name}
    if secret is not None:
        body["secret"] = secret
    return c.post(f"/api/tables/{table_id}/join", json=body)


def downgrade(store: Any, revision: str) -> None:
    """Take ``store``'s schema down to an older Alembic revision (a migration's way back)."""
    from importlib import resources

    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("meeple.server").joinpath("migrations")))
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)
