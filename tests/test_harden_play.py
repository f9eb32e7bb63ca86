"""Play now: one waiting entry per account and game, enforced by the database even under
concurrent requests (on PostgreSQL, real servers), and entries that expire once their owner's
page is gone unless a turn-based search was asked for."""

from __future__ import annotations

import json
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from meeple.server.matchmaking import PRESENCE_SECONDS, PlayBody, _now
from meeple.server.schema_players import queue_t
from meeple.server.storage import Storage
from server_proc import Server, fresh_database, needs_services
from server_util import client

PASSWORD = "correct horse battery"


def _register(base: str) -> str:
    req = urllib.request.Request(base + "/api/register", json.dumps(
        {"username": "p" + uuid.uuid4().hex[:10], "password": PASSWORD}).encode(),
        {"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(req) as r:
        return "; ".join(h.split(";")[0] for h in r.headers.get_all("set-cookie"))


@needs_services
@pytest.mark.postgres
@pytest.mark.redis
def test_concurrent_play_now_requests_leave_one_waiting_entry_on_postgres():
    url, drop = fresh_database()
    servers = [Server(url), Server(url)]
    try:
        jar = _register(servers[0].http)
        body = {"game": "trickarus", "players": [3], "turn_based": True}

        def play(i: int):
            return servers[i % 2].post("/api/play", body, headers={"cookie": jar})[0]

        with ThreadPoolExecutor(10) as pool:
            codes = list(pool.map(play, range(10)))
        assert codes.count(200) >= 1 and set(codes) <= {200, 409}, codes
        store = Storage(url)
        with store.engine.connect() as conn:
            rows = conn.execute(select(queue_t.c.status)).all()
        store.dispose()
        assert [r[0] for r in rows].count("waiting") == 1, rows
    finally:
        for s in servers:
            s.stop()
        drop()


def test_an_entry_expires_when_its_page_is_gone_unless_turn_based(tmp_path):
    with client(f"sqlite:///{tmp_path / 'q.db'}") as c:
        mm = c.app.state.matchmaker
        c.post("/api/register", json={"username": "p" + uuid.uuid4().hex[:10], "password": PASSWORD})
        me = c.get("/api/me").json()
        uid = c.app.state.accounts.find(me["username"])["id"]
        engine = c.app.state.storage.engine
        long_ago = _now() - timedelta(seconds=2 * PRESENCE_SECONDS)

        def page_left() -> None:
            with engine.begin() as conn:
                conn.execute(update(queue_t).values(seen_at=long_ago, created_at=long_ago))

        live = mm.enqueue(uid, PlayBody(game="trickarus", players=[3]), 1500.0)
        patient = mm.enqueue(uid, PlayBody(game="zarcana", players=[2], turn_based=True), 1500.0)
        assert mm.expire() == 0  # just asked: the page is there
        page_left()
        assert c.get("/api/play").status_code == 200  # ... and back: it polls, so it is seen
        assert mm.expire() == 0
        page_left()
        # the matchmaker's own loop may expire it first: what counts is the entries' status
        assert mm.expire() in (0, 1)
        with engine.connect() as conn:
            status = dict(conn.execute(select(queue_t.c.id, queue_t.c.status)).all())
        assert status == {live: "expired", patient: "waiting"}
