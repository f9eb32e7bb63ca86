"""Storage on SQLite (always) and PostgreSQL (when MEEPLE_TEST_POSTGRES_URL is set), and Redis
pub/sub between two servers (when MEEPLE_TEST_REDIS_URL is set). "What must hold":
the append-only action log, exact resume, the same behaviour on both databases.
"""

from __future__ import annotations

import os
import uuid

import pytest

import meeple
from meeple.server.storage import DuplicateMove, SeatRecord, Storage, TableRecord
from server_util import client, create, hello, join, until, wait_for

PG = os.environ.get("MEEPLE_TEST_POSTGRES_URL")
REDIS = os.environ.get("MEEPLE_TEST_REDIS_URL")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    if not PG:
        pytest.skip("set MEEPLE_TEST_POSTGRES_URL to test PostgreSQL")
    return PG


def _table(tid: str, players: int = 3) -> TableRecord:
    return TableRecord(
        id=tid, game="trickarus", players=players, seed=2**62 - 1, options={"mode": "competitive"},
        host_hash="h" * 64, seats=[SeatRecord(0, "human", "Ann", secret_hash="s" * 64),
                                   SeatRecord(1, "bot", "Bot", "random"), SeatRecord(2)],
    )


def test_migrations_run_twice_and_tables_round_trip(url):
    store = Storage(url)
    store.migrate()
    store.migrate()  # a second start finds the schema current
    tid = uuid.uuid4().hex[:12]
    store.create_table(_table(tid))
    rec = store.load_table(tid)
    assert rec is not None and rec.seed == 2**62 - 1 and rec.options == {"mode": "competitive"}
    assert [s.kind for s in rec.seats] == ["human", "bot", "open"] and rec.seats[0].name == "Ann"
    assert store.load_table("missing") is None
    store.dispose()


@pytest.fixture()
def stored(url):
    """A migrated store holding one fresh 3-seat table; yields (store, table id)."""
    store = Storage(url)
    store.migrate()
    tid = uuid.uuid4().hex[:12]
    store.create_table(_table(tid))
    yield store, tid
    store.dispose()


def test_the_action_log_is_append_only_and_a_move_number_is_written_once(stored):
    store, tid = stored
    for n, a in enumerate([5, 9, 1]):
        store.append_action(tid, n, n % 3, a)
    with pytest.raises(DuplicateMove):
        store.append_action(tid, 1, 1, 30)  # a stale or concurrent second write of move 1
    assert store.actions(tid) == [5, 9, 1] and store.actions(tid, since=2) == [1]
    store.append_action(tid, 3, 0, 2, status="over")
    assert store.load_table(tid).status == "over"
    assert store.last_action_time(tid) is not None


def test_seat_claims_are_atomic(stored):
    store, tid = stored
    first = store.update_seat(tid, SeatRecord(2, "human", "Bo", secret_hash="b" * 64), "open")
    second = store.update_seat(tid, SeatRecord(2, "human", "Cy", secret_hash="c" * 64), "open")
    assert first and not second
    assert store.load_table(tid).seats[2].name == "Bo"
    assert store.set_rematch(tid, "r1") and not store.set_rematch(tid, "r2")


def test_a_whole_game_resumes_exactly_from_storage(url):
    """Play half a game through the server, restart it on the same database, compare states."""
    with client(url) as c:
        t = create(c, players=4, seats=[{"kind": "me"}] + [{"kind": "bot"}] * 3)
        with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            m = hello(ws, 0, t["secret"])
            for _ in range(4):
                ws.send_json({"type": "move", "action": m["legal"][-1]["id"], "move": m["move"]})
                m = until(ws, lambda x, n=m["move"]: x["type"] == "state" and x["legal"] and x["move"] > n)
    store = Storage(url)
    rec = store.load_table(t["id"])
    state = meeple.make(rec.game, rec.players, rec.seed, **rec.options)
    for a in store.actions(t["id"]):
        state.apply(a)
    assert state.view(0) == m["view"]
    with client(url) as c2, c2.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        assert hello(ws, 0, t["secret"])["view"] == state.view(0)


@pytest.mark.redis
def test_two_servers_share_a_table_through_redis(tmp_path):
    """A move made on server A reaches a player connected to server B (same DB, Redis pub/sub)."""
    if not REDIS:
        pytest.skip("set MEEPLE_TEST_REDIS_URL to test Redis pub/sub")
    url = PG or f"sqlite:///{tmp_path / 'shared.db'}"
    with client(url, redis_url=REDIS) as a, client(url, redis_url=REDIS) as b:
        t = create(a, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
        j = join(b, t["id"], 1, "Bo").json()
        with a.websocket_connect(f"/ws/tables/{t['id']}") as wa, \
                b.websocket_connect(f"/ws/tables/{t['id']}") as wb:
            ma = hello(wa, 0, t["secret"])
            hello(wb, 1, j["secret"])
            if not ma["legal"]:  # A may hear of B's join a moment later, through Redis
                ma = until(wa, lambda x: x["type"] == "state" and bool(x["legal"]))
            wa.send_json({"type": "move", "action": ma["legal"][0]["id"], "move": 0})
            mb = until(wb, lambda x: x["type"] == "state" and x["move"] >= 1 and x["legal"])
            assert mb["to_move"] == 1
            # B's player answers on B; A's player sees it, and the bot (seat 2, run by whichever
            # server logs its move first) carries on; both servers agree on the table
            wb.send_json({"type": "move", "action": mb["legal"][0]["id"], "move": mb["move"]})
            until(wa, lambda x: x["type"] == "state" and x["move"] >= 3)
            until(wb, lambda x: x["type"] == "state" and x["move"] >= 3)
            store = Storage(url)

            def history(c):
                return c.app.state.manager.tables[t["id"]].state.history

            wait_for(lambda: history(a) == history(b) == store.actions(t["id"]))
            assert len(history(a)) >= 3


@pytest.mark.postgres
@pytest.mark.parametrize("synchronous", [True, False])
def test_move_writer_logs_from_the_event_loop(synchronous):
    """PostgreSQL's move path (no thread): logs the move and bumps the version, refuses the
    same move number twice and a move built before an undo, and answers before the WAL flush
    only when told to."""
    import asyncio

    from meeple.server.storage import DuplicateMove, MoveWriter

    if not PG:
        pytest.skip("set MEEPLE_TEST_POSTGRES_URL to test PostgreSQL")
    store = Storage(PG)
    store.migrate()
    tid = uuid.uuid4().hex[:12]
    store.create_table(_table(tid))
    writer = MoveWriter(store, synchronous=synchronous)

    async def run() -> tuple[int, str]:
        version = await writer.append(tid, 0, 0, 5, 123.5, undos=0)
        with pytest.raises(DuplicateMove):
            await writer.append(tid, 0, 0, 6, None, undos=0)
        with pytest.raises(DuplicateMove):  # built on a copy an undo has since changed
            await writer.append(tid, 1, 0, 6, None, undos=1)
        conn = writer.free[-1]  # the connection went back to the pool after the refusal
        setting = (await (await conn.execute("SHOW synchronous_commit")).fetchone())[0]
        await writer.close()
        return version, setting

    version, setting = asyncio.run(run())
    assert version == store.load_table(tid).version and store.actions(tid) == [5]
    assert store.load_table(tid).deadline == 123.5
    assert setting == ("on" if synchronous else "off")
    store.dispose()


def test_a_table_just_started_is_left_to_its_starter_to_lease(url, monkeypatch):
    """Leases: a running table that needs a driver and has no lease row is an orphan only once
    this server's rounds have seen it so for a lease's time; just started, its own server is
    about to lease it, and another server's lease round taking it first would drive it from
    afar. The time is this server's own: a row stamped a minute ago by a starter whose clock
    runs late is no orphan yet."""
    from datetime import timedelta
    from types import SimpleNamespace

    from sqlalchemy import update

    from meeple.server import leases
    from meeple.server.storage import tables_t

    store = Storage(url)
    store.migrate()
    tid = uuid.uuid4().hex[:12]
    rec = _table(tid)
    rec.status = "running"  # a bot seat: it needs a driver
    store.create_table(rec)
    with store.engine.begin() as conn:
        conn.execute(update(tables_t).where(tables_t.c.id == tid)
                     .values(updated_at=rec.updated_at - timedelta(seconds=60)))
    clock = SimpleNamespace(monotonic=lambda: 1000.0)
    monkeypatch.setattr(leases, "time", clock, raising=False)
    other = leases.Leases(store, "other")
    for at in (1000.0, 1000.0 + other.ttl - 0.1):
        clock.monotonic = lambda at=at: at
        _lost, taken = other.round()
        assert tid not in taken and tid not in other.mine
    clock.monotonic = lambda: 1000.0 + other.ttl  # nobody leased it for as long as a lease lasts
    _lost, taken = other.round()
    assert tid in taken and tid in other.mine
    store.dispose()
