"""Operations: health, readiness, Prometheus metrics, the SIGTERM drain, no orphan
worker processes, idempotency keys, deep JSON, and upgrading a database with running tables.

The subprocess tests run when MEEPLE_TEST_POSTGRES_URL and MEEPLE_TEST_REDIS_URL are set; the
rest run everywhere on SQLite.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from importlib import resources

import pytest
import sqlalchemy as sa
from websockets.sync.client import connect

from meeple.server.storage import Storage
from server_proc import PG, Server, browser, fresh_database, needs_services, wait_until
from server_util import client, create, hello, join


@pytest.fixture(scope="module")
def db():
    if not PG:
        pytest.skip("set MEEPLE_TEST_POSTGRES_URL")
    url, drop = fresh_database()
    yield url
    drop()


def _children(pid: int) -> set[int]:
    out = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.add(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@needs_services
def test_health_readiness_and_metrics(db):
    s = Server(db)
    try:
        assert s.get("/healthz") == (200, {"ok": True})
        status, ready = s.get("/readyz")
        assert status == 200 and ready["database"] == "ok" and ready["redis"] == "ok"
        status, t = s.post("/api/tables", {"game": "trickarus", "players": 3, "name": "Ann",
                                           "seats": [{"kind": "me"}, {"kind": "bot"}, {"kind": "bot"}]},
                           browser=browser())
        with connect(f"{s.ws}/ws/tables/{t['id']}") as ws:
            ws.send(json.dumps({"type": "hello", "seat": 0, "secret": t["secret"]}))
            m = json.loads(ws.recv(timeout=10))
            ws.send(json.dumps({"type": "move", "action": m["legal"][0]["id"], "move": 0}))
            json.loads(ws.recv(timeout=10))
            _, text = s.get("/metrics")
        for name in ("meeple_moves_total", "meeple_move_seconds_bucket", "meeple_db_seconds_count",
                     'meeple_tables{status="running"}', "meeple_sockets 1.0", "meeple_bot_queue",
                     "meeple_tables_driven", "meeple_bus_delay_seconds_count"):
            assert name in text, name
    finally:
        s.stop()


@needs_services
def test_sigterm_drains_sockets_leases_and_new_tables(db):
    a = Server(db, bot_delay=0.2, env={"MEEPLE_DRAIN_SECONDS": "3"})
    b = Server(db, bot_delay=0.2)
    try:
        _, t = a.post("/api/tables", {"game": "trickarus", "players": 3, "name": None,
                                      "seats": [{"kind": "bot", "level": "random"}] * 3},
                      browser=browser())
        store = Storage(db)
        wait_until(lambda: len(store.actions(t["id"])) >= 2)
        with connect(f"{a.ws}/ws/tables/{t['id']}") as ws:
            ws.send(json.dumps({"type": "hello"}))
            json.loads(ws.recv(timeout=10))
            a.proc.terminate()
            msgs = []
            try:
                while True:
                    msgs.append(json.loads(ws.recv(timeout=5)))
            except Exception:
                pass
            assert {"type": "reconnect", "message": "this server is restarting; reconnect"} in msgs
        status, ready = a.get("/readyz")
        assert status == 503 and ready["draining"] is True
        status, refused = a.post("/api/tables", {"game": "trickarus", "players": 3,
                                                 "seats": [{"kind": "bot"}] * 3}, browser=browser())
        assert status == 503 and refused["error"] == "draining"
        n = len(store.actions(t["id"]))  # b takes the table over at once (no lease to wait out)
        wait_until(lambda: len(store.actions(t["id"])) > n + 1, 3.0)
        a.proc.wait(15)
        store.dispose()
    finally:
        a.stop()
        b.stop()


@needs_services
def test_bot_worker_processes_die_with_a_killed_server(db):
    s = Server(db, bot_processes=True, bot_delay=0.0)
    try:
        _, t = s.post("/api/tables", {"game": "trickarus", "players": 3, "name": None,
                                      "seats": [{"kind": "bot", "level": "random"}] * 3},
                      browser=browser())
        store = Storage(db)
        wait_until(lambda: len(store.actions(t["id"])) >= 1, 30)
        store.dispose()
        workers = wait_until(lambda: _children(s.proc.pid), 10)
        s.kill()
        wait_until(lambda: not any(_alive(p) for p in workers), 5)
    finally:
        s.stop()


@needs_services
def test_the_same_request_twice_gives_the_same_answer(db):
    s = Server(db)
    try:
        me = browser()
        body = {"game": "trickarus", "players": 3, "name": "Ann",
                "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}]}
        first = s.post("/api/tables", body, browser=me, headers={"idempotency-key": "create-0001"})
        again = s.post("/api/tables", body, browser=me, headers={"idempotency-key": "create-0001"})
        assert first[0] == again[0] == 200 and first[1]["id"] == again[1]["id"]
        assert first[1]["secret"] == again[1]["secret"]
        other = s.post("/api/tables", {**body, "players": 4}, browser=me,
                       headers={"idempotency-key": "create-0001"})
        assert other[0] == 422 and other[1]["error"] == "key_reused"
        tid, bo = first[1]["id"], browser()
        join = {"seat": 1, "name": "Bo"}
        j1 = s.post(f"/api/tables/{tid}/join", join, browser=bo, headers={"idempotency-key": "join-00001"})
        j2 = s.post(f"/api/tables/{tid}/join", join, browser=bo, headers={"idempotency-key": "join-00001"})
        assert j1[0] == j2[0] == 200 and j1[1]["secret"] == j2[1]["secret"]
        # without the key the retry is a second request: the seat is taken by then
        assert s.post(f"/api/tables/{tid}/join", join, browser=bo)[0] == 409
        # another browser cannot read the answer by guessing the key
        stranger = s.post(f"/api/tables/{tid}/join", join, browser=browser(),
                          headers={"idempotency-key": "join-00001"})
        assert stranger[0] == 409 and "secret" not in stranger[1]
    finally:
        s.stop()


def test_json_nested_deeply_is_a_clean_400(tmp_path):
    """2 KB of nested brackets raised a RecursionError (a 500 with a traceback)."""
    with client(f"sqlite:///{tmp_path / 'deep.db'}") as c:
        for body in ("[" * 1500 + "]" * 1500, '{"game": ' + "[" * 3000 + "]" * 3000 + "}",
                     '{"a": ' * 1500 + "1" + "}" * 1500):
            r = c.post("/api/tables", content=body, headers={"content-type": "application/json"})
            # FastAPI refuses a body it cannot parse itself; the answer has our shape
            assert r.status_code == 400 and r.json()["error"] == "bad_request", r.text
        r = c.get("/api/nothing-here")
        assert r.status_code == 404 and r.json()["error"] == "not_found"
        t = create(c)
        with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            hello(ws, 0, t["secret"])
            ws.send_text("[" * 1900 + "]" * 1900)
            assert ws.receive_json()["code"] == "bad_message"
            ws.send_json({"type": "ping"})
            assert ws.receive_json() == {"type": "pong"}


def test_a_retried_join_on_sqlite_answers_the_same(tmp_path):
    with client(f"sqlite:///{tmp_path / 'idem.db'}") as c:
        t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
        c.cookies.clear()
        c.get("/api/games")
        h = {"idempotency-key": "retry-of-a-lost-answer"}
        a = c.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": "Bo"}, headers=h)
        b = c.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": "Bo"}, headers=h)
        assert a.status_code == b.status_code == 200 and a.json() == b.json()
        assert join(c, t["id"], 1, "Cy").status_code == 409


def _database_at_0002_with_a_running_table(url: str) -> str:
    """A database as release 0002 left it: one running table, a move logged, no 0003 columns."""
    from alembic import command
    from alembic.config import Config

    engine = sa.create_engine(url)
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("meeple.server").joinpath("migrations")))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0002")
    tid = os.urandom(6).hex()
    now = datetime.now(UTC)
    import meeple

    options = meeple.game_info("trickarus").resolve_options(3, {})
    first = meeple.make("trickarus", 3, 7, **options).legal_actions()[0]
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO meeple_tables (id, game, players, seed, options, status, host_hash, "
            "time_limit, created_at, updated_at) VALUES (:id, 'trickarus', 3, 7, :opt, 'running', "
            ":h, NULL, :now, :now)"), {"id": tid, "opt": json.dumps(options), "h": "h" * 64,
                                       "now": now})
        for seat in range(3):
            conn.execute(sa.text(
                "INSERT INTO meeple_seats (table_id, seat, kind, name, level, zombie) VALUES "
                "(:id, :s, 'bot', :n, 'random', false)"), {"id": tid, "s": seat, "n": f"Bot {seat + 1}"})
        conn.execute(sa.text("INSERT INTO meeple_actions (table_id, n, seat, action, at) VALUES "
                             "(:id, 0, 0, :a, :now)"), {"id": tid, "a": first, "now": now})
    engine.dispose()
    return tid


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_upgrading_a_database_with_running_tables_resumes_them(kind, tmp_path, request):
    if kind == "sqlite":
        url = f"sqlite:///{tmp_path / 'old.db'}"
    else:
        url = request.getfixturevalue("db")
    tid = _database_at_0002_with_a_running_table(url)
    with client(url) as c:  # migrates to head, then takes the table up and its bots play on
        wait_until(lambda: c.get(f"/api/tables/{tid}").json()["status"] == "over", 60)
    store = Storage(url)
    rec = store.load_table(tid)
    assert rec.status == "over" and rec.version > 0 and len(store.actions(tid)) > 1
    store.dispose()




@needs_services
def test_servers_starting_together_on_an_empty_database_all_start():
    """Found by the load benchmark: two servers migrating one empty database at once both
    created Alembic's version table, and one died. Migrations now take a lock."""
    url, drop = fresh_database()
    servers: list[Server] = []
    try:
        with ThreadPoolExecutor(3) as pool:
            servers = list(pool.map(lambda _: Server(url), range(3)))
        assert all(s.get("/readyz")[0] == 200 for s in servers)
    finally:
        for s in servers:
            s.stop()
        drop()


@needs_services
def test_moves_sent_together_arrive_in_order_in_fewer_redis_messages():
    """A burst of 200 messages (a busy server's moves) reaches the other server complete and in
    order, in fewer Redis messages than messages: those queued while a send is in flight go out
    as one batch, so every server parses one message per batch."""
    import asyncio

    import redis.asyncio as redis_lib

    from meeple.server.pubsub import RedisBus, table_channel
    from server_proc import REDIS

    async def run() -> tuple[list[int], int]:
        a, b, spy = RedisBus(REDIS), RedisBus(REDIS), redis_lib.Redis.from_url(REDIS).pubsub()
        got: list[int] = []
        await spy.subscribe(table_channel("t"))
        await b.start(lambda m: _append(got, m))
        await b.watch("t")
        await a.start(lambda m: _append([], m))
        await asyncio.sleep(0.2)
        for i in range(200):
            a.send({"table": "t", "n": i})
        await a.publish({"table": "t", "n": 200})  # waits for everything queued before it
        for _ in range(100):
            if len(got) == 201:
                break
            await asyncio.sleep(0.05)
        raw = 0
        while (m := await spy.get_message(ignore_subscribe_messages=True, timeout=0.2)) is not None:
            raw += json.loads(m["data"]).get("origin") == a.origin
        for bus in (a, b):
            await bus.stop()
        await spy.aclose()
        return got, raw

    async def _append(into: list[int], m: dict) -> None:
        into.append(m["n"])

    got, raw = asyncio.run(run())
    assert got == list(range(201))
    assert raw < 201, raw
