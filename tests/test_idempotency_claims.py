"""A retry takes over the idempotency claim of a request whose server died, and a request that
was only slow then commits nothing: only the latest claim stores an answer, with its effect.
SQLite always, PostgreSQL when MEEPLE_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa

from meeple.server import idempotency
from meeple.server.idempotency import IdempotencyError, Stored
from meeple.server.storage import Claim, ClaimLost, SeatRecord, Storage, TableRecord, tables_t
from server_proc import PG, fresh_database
from server_util import client, create, downgrade

pg = pytest.param("postgres", marks=pytest.mark.postgres)


@pytest.fixture(params=["sqlite", pg])
def store(request, tmp_path):
    if request.param == "postgres" and not PG:
        pytest.skip("set MEEPLE_TEST_POSTGRES_URL to test PostgreSQL")
    s = Storage(PG if request.param == "postgres" else f"sqlite:///{tmp_path / 'claims.db'}")
    s.migrate()
    yield s
    s.dispose()


def _table(players: int = 3) -> TableRecord:
    return TableRecord(
        id=uuid.uuid4().hex[:12], game="trickarus", players=players, seed=7,
        options={"mode": "competitive"}, host_hash="h" * 64,
        seats=[SeatRecord(0, "human", "Ann", secret_hash="s" * 64)] + [SeatRecord(n) for n in range(1, players)],
    )


def _age(store: Storage, key: str, seconds: float) -> None:
    """The key's claim was made ``seconds`` ago (its request still without an answer)."""
    with store.engine.begin() as conn:
        conn.execute(sa.update(idempotency.idempotency_t).where(idempotency.idempotency_t.c.key == key)
                     .values(created_at=datetime.now(UTC) - timedelta(seconds=seconds)))


def _taken_over(store: Storage) -> tuple[str, Claim, Claim]:
    """A key claimed by a first request, then by its retry after the first went quiet."""
    key = uuid.uuid4().hex
    first = idempotency.claim(store, key, "body")
    assert isinstance(first, Claim)
    _age(store, key, 4.0)  # the page's retries of in_progress span 4.5 s
    retry = idempotency.claim(store, key, "body")
    assert isinstance(retry, Claim) and retry.token != first.token
    return key, first, retry


def test_a_retry_within_pending_seconds_gets_in_progress_and_after_it_takes_over(store):
    key = uuid.uuid4().hex
    assert isinstance(idempotency.claim(store, key, "body"), Claim)
    _age(store, key, idempotency.PENDING_SECONDS - 1)
    with pytest.raises(IdempotencyError) as err:
        idempotency.claim(store, key, "body")
    assert err.value.code == "in_progress"
    _age(store, key, 4.0)  # within the page's retries of in_progress (4.5 s)
    assert isinstance(idempotency.claim(store, key, "body"), Claim)


def test_a_slow_create_whose_claim_was_taken_over_commits_nothing(store):
    key, first, retry = _taken_over(store)
    slow, again = _table(), _table()
    with pytest.raises(ClaimLost):
        store.create_table(slow, first, {"id": slow.id})
    assert store.load_table(slow.id) is None  # rolled back with the answer
    # the slow one refused, or failing on our side, touches the retry's claim neither
    assert idempotency.finish(store, first, 409, {"error": "x"}) is False
    idempotency.forget(store, first)
    with pytest.raises(IdempotencyError) as err:  # the retry still runs
        idempotency.repeat(store, key)
    assert err.value.code == "in_progress"
    store.create_table(again, retry, {"id": again.id})
    assert store.answered(retry) and not store.answered(first)
    with pytest.raises(ClaimLost):  # a late first answer cannot overwrite the retry's either
        store.create_table(_table(), first, {"id": "late"})
    assert idempotency.repeat(store, key) == Stored(200, {"id": again.id})
    assert idempotency.claim(store, key, "body") == Stored(200, {"id": again.id})


def test_a_slow_join_whose_claim_was_taken_over_takes_no_seat(store):
    rec = _table()
    store.create_table(rec)
    _, first, retry = _taken_over(store)

    def sit(name: str):
        def decide(r: TableRecord, _conn) -> dict:
            r.seats[1] = SeatRecord(1, "human", name, secret_hash="t" * 64)
            return {"id": r.id, "seat": 1, "name": name}
        return decide

    with pytest.raises(ClaimLost):
        store.transact(rec.id, sit("slow"), first)
    assert store.load_table(rec.id).seats[1].kind == "open"
    store.transact(rec.id, sit("retry"), retry)
    assert store.load_table(rec.id).seats[1].name == "retry"


def test_the_first_request_answers_as_its_retry_does(tmp_path, monkeypatch):
    """Through the routes: a create and a join that went quiet past PENDING_SECONDS while a
    retry took their claim over answer the retry's answer, or 409 while it still runs."""
    with client(f"sqlite:///{tmp_path / 'once.db'}") as c:
        manager = c.app.state.services.manager
        store = manager.storage

        def take_over(claim: Claim) -> Claim:
            _age(store, claim.key, 4.0)
            with store.engine.connect() as conn:
                digest = conn.execute(sa.select(idempotency.idempotency_t.c.request_hash).where(
                    idempotency.idempotency_t.c.key == claim.key)).scalar_one()
            retry = idempotency.claim(store, claim.key, digest)
            assert isinstance(retry, Claim)
            return retry

        real_create, real_join = manager.create, manager.join

        async def create_late(*args, claim, **kwargs):  # the retry creates first
            await real_create(*args, claim=take_over(claim), **kwargs)
            return await real_create(*args, claim=claim, **kwargs)

        monkeypatch.setattr(manager, "create", create_late)
        body = {"game": "trickarus", "players": 3, "name": "Ann",
                "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}]}
        h = {"idempotency-key": "create-taken-over"}
        c.get("/api/games")  # the browser's client cookie
        a = c.post("/api/tables", json=body, headers=h)
        monkeypatch.setattr(manager, "create", real_create)
        b = c.post("/api/tables", json=body, headers=h)
        assert a.status_code == b.status_code == 200 and a.json() == b.json()
        with store.engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.count()).select_from(tables_t)).scalar_one() == 1

        keys = []

        async def join_late(t, seat, name, secret, client, claim, user):  # the retry runs on
            keys.append(take_over(claim).key)
            return await real_join(t, seat, name, secret, client, claim, user)

        tid = a.json()["id"]
        monkeypatch.setattr(manager, "join", join_late)
        c.cookies.clear()
        c.get("/api/games")  # Bo's browser
        h, seat = {"idempotency-key": "join-taken-over"}, {"seat": 1, "name": "Bo"}
        r = c.post(f"/api/tables/{tid}/join", json=seat, headers=h)
        assert r.status_code == 409 and r.json()["error"] == "in_progress", r.text
        monkeypatch.setattr(manager, "join", real_join)
        assert store.load_table(tid).seats[1].kind == "open"
        assert manager.tables[tid].rec.seats[1].kind == "open"
        # the page's next retry: the retry's claim is fresh; once it is quiet too, it runs
        assert c.post(f"/api/tables/{tid}/join", json=seat, headers=h).status_code == 409
        _age(store, keys[0], 4.0)
        r = c.post(f"/api/tables/{tid}/join", json=seat, headers=h)
        assert r.status_code == 200 and store.load_table(tid).seats[1].name == "Bo"
        assert c.post(f"/api/tables/{tid}/join", json=seat, headers=h).json() == r.json()

        async def join_second(t, seat, name, secret, client, claim, user):  # the retry sat first
            await real_join(t, seat, name, secret, client, take_over(claim), user)
            return await real_join(t, seat, name, secret, client, claim, user)  # refused

        tid = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])["id"]
        monkeypatch.setattr(manager, "join", join_second)
        c.cookies.clear()
        c.get("/api/games")
        r = c.post(f"/api/tables/{tid}/join", json=seat, headers=h)  # the retry's seat, not 409
        monkeypatch.setattr(manager, "join", real_join)
        assert r.status_code == 200 and store.load_table(tid).seats[1].name == "Bo", r.text
        assert c.post(f"/api/tables/{tid}/join", json=seat, headers=h).json() == r.json()


@pytest.mark.parametrize("kind", ["sqlite", pg])
def test_the_migration_gives_claims_a_token(kind, tmp_path):
    """``0014_s6_claims`` on a database at 0013 holding a pending claim (no token): the claim is
    kept and taken over like any other; the migration also goes down and up again."""
    if kind == "postgres" and not PG:
        pytest.skip("set MEEPLE_TEST_POSTGRES_URL to test PostgreSQL")
    url, drop = fresh_database() if kind == "postgres" else (f"sqlite:///{tmp_path / 'old.db'}", None)
    store = Storage(url)
    try:
        store.migrate("0013_s4_anver")
        with store.engine.begin() as conn:
            conn.execute(sa.text("INSERT INTO meeple_idempotency (key, request_hash, created_at) "
                                 "VALUES ('k' || 'ey', 'body', :at)"),
                         {"at": datetime.now(UTC) - timedelta(seconds=60)})
        store.migrate()
        retry = idempotency.claim(store, "key", "body")
        assert isinstance(retry, Claim) and len(retry.token) == 32
        assert idempotency.finish(store, retry, 200, {"ok": True})
        assert idempotency.claim(store, "key", "body") == Stored(200, {"ok": True})
        downgrade(store, "0013_s4_anver")
        with store.engine.connect() as conn:
            assert "token" not in {c["name"] for c in sa.inspect(conn).get_columns("meeple_idempotency")}
        store.migrate()
        assert idempotency.claim(store, "key", "body") == Stored(200, {"ok": True})
    finally:
        store.dispose()
        if drop:
            drop()
