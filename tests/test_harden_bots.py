"""A fair share of the bots: turns in the pool by visitor and table, caps per visitor, unused
tables ended, people's tables first in the lobby, and (on a real server) another table's bots
keep their pace while one visitor opens as many bot tables as the caps allow."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
import uuid

from sqlalchemy import func, select

from meeple.server.fairshare import FairPool
from meeple.server.storage import Storage, actions_t
from server_proc import Server, wait_until
from server_util import client, create

PASSWORD = "correct horse battery"


def test_the_pool_serves_visitors_then_tables_in_turn():
    async def run() -> list[str]:
        pool = FairPool(slots=2, per_visitor=1)
        order: list[str] = []
        gate = asyncio.Event()

        async def think(visitor: str, table: str) -> None:
            async with pool.turn(visitor, table):
                order.append(f"{visitor}/{table}")
                await gate.wait()

        hog = [asyncio.create_task(think("hog", f"t{i}")) for i in range(10)]
        await asyncio.sleep(0)
        other = asyncio.create_task(think("ann", "mine"))
        await asyncio.sleep(0)
        assert pool.busy == 2 and pool.held["hog"] == 1  # one worker stays for others
        gate.set()
        await asyncio.gather(*hog, other)
        return order

    order = asyncio.run(run())
    assert order[:2] == ["hog/t0", "ann/mine"], order  # not behind the hog's ten
    assert order[2:] == [f"hog/t{i}" for i in range(1, 10)]


def test_a_cancelled_wait_gives_its_turn_back():
    async def run() -> None:
        pool = FairPool(slots=1, per_visitor=1)
        release = asyncio.Event()

        async def think(visitor: str) -> None:
            async with pool.turn(visitor, visitor):
                await release.wait()

        first = asyncio.create_task(think("a"))
        await asyncio.sleep(0)
        waiting = asyncio.create_task(think("b"))
        await asyncio.sleep(0)
        waiting.cancel()
        release.set()
        await first
        assert pool.busy == 0 and not pool.held
        await asyncio.wait_for(think("c"), 1)  # the pool still grants

    asyncio.run(run())


def test_a_visitor_is_capped_in_tables_and_bot_seats(tmp_path):
    with client(f"sqlite:///{tmp_path / 'c.db'}") as c:
        caps = c.app.state.visitors.settings
        caps.max_tables, caps.max_bot_seats = 3, 4
        me_bot = [{"kind": "me"}, {"kind": "bot", "level": "random"}]
        for _ in range(2):
            create(c, players=2, seats=me_bot)
        r = c.post("/api/tables", json={"game": "trickarus", "players": 4, "name": "Ann",
                                        "seats": [{"kind": "me"}] + [{"kind": "bot"}] * 3})
        assert r.status_code == 429 and "bot seats" in r.json()["detail"], r.text
        create(c, players=2, seats=me_bot)
        r = c.post("/api/tables", json={"game": "trickarus", "players": 2, "name": "Ann",
                                        "seats": [{"kind": "me"}, {"kind": "open"}]})
        assert r.status_code == 429 and "at most 3" in r.json()["detail"], r.text
        # an account is a visitor of its own
        c.post("/api/register", json={"username": "u" + uuid.uuid4().hex[:10],
                                      "password": PASSWORD})
        assert c.post("/api/tables", json={"game": "trickarus", "players": 2,
                                           "seats": me_bot}).status_code == 200


def test_unused_tables_end_and_watched_ones_stay(tmp_path):
    with client(f"sqlite:///{tmp_path / 'u.db'}", bot_delay=0.5) as c:
        visitors, manager = c.app.state.visitors, c.app.state.manager
        visitors.settings.open_idle, visitors.settings.unwatched = 0.0, 0.3
        nobody = create(c, players=2, seats=[{"kind": "open"}, {"kind": "open"}], name=None)
        sat = create(c, players=2, seats=[{"kind": "me"}, {"kind": "open"}])
        bots = create(c, players=2, seats=[{"kind": "bot", "level": "random"}] * 2, name=None)
        watched = create(c, players=2, seats=[{"kind": "bot", "level": "random"}] * 2, name=None)
        with c.websocket_connect(f"/ws/tables/{watched['id']}") as ws:
            ws.send_json({"type": "hello", "seat": None, "secret": None})
            ws.receive_json()
            ended = c.portal.call(visitors.sweep, manager)  # starts the unwatched clocks
            time.sleep(0.4)
            ended += c.portal.call(visitors.sweep, manager)
        assert sorted(ended) == sorted([nobody["id"], bots["id"]])
        status = {t: c.get(f"/api/tables/{t}").json()["status"]
                  for t in (nobody["id"], sat["id"], bots["id"], watched["id"])}
        assert status == {nobody["id"]: "abandoned", sat["id"]: "open",
                          bots["id"]: "abandoned", watched["id"]: "running"}, status
        lobby = c.get("/api/tables").json()
        assert nobody["id"] not in [t["id"] for t in lobby["open"]]


def test_the_lobby_lists_tables_with_people_first(tmp_path):
    with client(f"sqlite:///{tmp_path / 'l.db'}", bot_delay=30) as c:
        person = create(c, players=2, seats=[{"kind": "me"}, {"kind": "bot", "level": "random"}])
        for _ in range(3):  # newer, all bots
            create(c, players=2, seats=[{"kind": "bot", "level": "random"}] * 2, name=None)
        running = c.get("/api/tables").json()["running"]
        assert running[0]["id"] == person["id"], [t["id"] for t in running]


# ----- the hog, on a real server -----------------------------------------------------------------
def _post(base: str, path: str, body: dict, cookie: str | None = None) -> tuple[int, dict, str]:
    headers = {"content-type": "application/json"}
    if cookie:
        headers["cookie"] = cookie
    req = urllib.request.Request(base + path, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            jar = "; ".join(h.split(";")[0] for h in r.headers.get_all("set-cookie") or [])
            return r.status, json.loads(r.read()), jar
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read()), ""


def _account(base: str) -> str:
    status, _, jar = _post(base, "/api/register", {"username": "u" + uuid.uuid4().hex[:10],
                                                   "password": PASSWORD})
    assert status == 200
    return jar


def test_another_tables_bots_keep_their_pace_while_a_visitor_opens_all_the_bot_tables(tmp_path):
    db = f"sqlite:///{tmp_path / 'hog.db'}"
    # bots in worker processes, as `meeple serve` runs them
    server = Server(db, redis_url=None, bot_delay=0.15, bot_processes=True,
                    env={"MEEPLE_RATE_LIMITS": "on", "MEEPLE_LIMIT_CREATE_TABLE": "1000/minute"})
    store = Storage(db)
    try:
        ann, hog = _account(server.http), _account(server.http)
        status, mine, _ = _post(server.http, "/api/tables", {
            "game": "zarcana", "players": 2, "seats": [{"kind": "bot", "level": "random"}] * 2},
            ann)
        assert status == 200, mine

        def moves() -> int:
            with store.engine.connect() as conn:
                return int(conn.execute(select(func.count()).select_from(actions_t).where(
                    actions_t.c.table_id == mine["id"])).scalar_one())

        def rate(seconds: float = 6.0) -> float:
            n0, t0 = moves(), time.monotonic()
            time.sleep(seconds)
            return (moves() - n0) / (time.monotonic() - t0)

        wait_until(lambda: moves() >= 3, 60)  # the worker processes have started
        alone = rate()
        opened = 0
        while True:
            status, t, _ = _post(server.http, "/api/tables", {
                "game": "trickarus", "players": 4,
                "seats": [{"kind": "bot", "level": "expert"}] * 4}, hog)
            if status != 200:
                assert status == 429 and t["error"] == "too_many", t
                break
            opened += 1
        assert opened >= 2
        time.sleep(1.0)
        crowded = rate()
        assert crowded >= 0.8 * alone, (alone, crowded, opened)
        assert alone > 0
    finally:
        store.dispose()
        server.stop()
