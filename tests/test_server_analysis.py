""""Analyse my game" on the server: only a finished game, run in the background with progress,
stored once, the same figures as `meeple.analyse`, counted in the visitor's budget."""

from __future__ import annotations

import os

import pytest
import sqlalchemy as sa

import meeple
from meeple.bots.analysis import METHOD_VERSION
from meeple.server import analysis as server_analysis
from meeple.server.storage import Storage
from server_util import client, create, downgrade, wait_for


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "postgresql":
        found = os.environ.get("MEEPLE_TEST_POSTGRES_URL", "")
        if not found:
            pytest.skip("set MEEPLE_TEST_POSTGRES_URL")
        return found
    return f"sqlite:///{tmp_path / 'analysis.db'}"


@pytest.fixture()
def c(url, monkeypatch):
    monkeypatch.setattr(server_analysis, "BUDGET", "3/minute")
    with client(url) as cl:
        yield cl


def finished(c, game="scarvus", players=3) -> str:
    t = create(c, game=game, players=players, seats=[{"kind": "bot", "level": "medium"}] * players, name=None)
    wait_for(lambda: c.get(f"/api/tables/{t['id']}").json()["status"] == "over", 60)
    return t["id"]


def done(c, tid, seat, depth="quick") -> dict:
    seen: list[int] = []

    def ready() -> bool:
        r = c.get(f"/api/tables/{tid}/analysis", params={"seat": seat, "depth": depth}).json()
        seen.append(r["done"])
        return r["status"] == "done"

    wait_for(ready, 120)
    return c.get(f"/api/tables/{tid}/analysis", params={"seat": seat, "depth": depth}).json()


def test_a_live_game_is_never_analysed(c):
    t = create(c, game="scarvus", players=3)  # my seat waits for me: the game stays running
    assert c.get(f"/api/tables/{t['id']}").json()["status"] == "running"
    r = c.post(f"/api/tables/{t['id']}/analysis", json={"seat": 0})
    assert r.status_code == 409 and r.json()["error"] == "not_over"
    assert c.get(f"/api/tables/{t['id']}/analysis", params={"seat": 0}).status_code == 409


def test_analyse_a_finished_game_once_with_the_same_figures_as_the_api(c):
    tid = finished(c)
    assert c.get(f"/api/tables/{tid}/analysis", params={"seat": 1}).json()["status"] == "none"
    first = c.post(f"/api/tables/{tid}/analysis", json={"seat": 1, "depth": "quick"})
    assert first.status_code == 200 and first.json()["status"] in ("running", "done")
    got = done(c, tid, 1)
    record = c.get(f"/api/tables/{tid}/record").json()
    expected = meeple.analyse(record, 1, "quick").to_json()
    assert got["result"] == expected and got["done"] == got["total"] == len(expected["decisions"])
    # stored once: a second press reads it back, and costs no budget
    for _ in range(4):
        again = c.post(f"/api/tables/{tid}/analysis", json={"seat": 1, "depth": "quick"}).json()
        assert again["status"] == "done" and again["result"] == expected


def test_bad_requests_and_the_visitors_budget(c, monkeypatch):
    # each analysis here looks at its seat's first two decisions only: this test is about the
    # requests, and a loaded machine takes minutes for three whole analyses
    real = server_analysis.analysis_points
    monkeypatch.setattr(server_analysis, "analysis_points", lambda record, seat: real(record, seat)[:2])
    tid = finished(c)
    assert c.post(f"/api/tables/{tid}/analysis", json={"seat": 3}).status_code == 400
    assert c.post(f"/api/tables/{tid}/analysis", json={"seat": 0, "depth": "forever"}).status_code == 422
    assert c.post("/api/tables/ffff/analysis", json={"seat": 0}).status_code == 404
    assert c.get(f"/api/tables/{tid}/analysis", params={"seat": 0, "depth": "x"}).status_code == 400
    for seat in range(3):  # three analyses started: the budget (3 a minute here) is spent
        assert c.post(f"/api/tables/{tid}/analysis", json={"seat": seat}).status_code == 200
    over = c.post(f"/api/tables/{tid}/analysis", json={"seat": 0, "depth": "deep"})
    assert over.status_code == 429 and over.json()["error"] == "rate_limited"
    for seat in range(3):
        got = done(c, tid, seat)
        assert got["result"]["seat"] == seat and got["total"] == len(got["result"]["decisions"]) == 2


def test_the_analysis_runs_in_bot_worker_processes(tmp_path, monkeypatch):
    """`meeple serve` thinks in worker processes: each decision's job crosses to one and back."""
    real = server_analysis.analysis_points
    monkeypatch.setattr(server_analysis, "analysis_points", lambda record, seat: real(record, seat)[:2])
    with client(f"sqlite:///{tmp_path / 'procs.db'}", bot_processes=True) as c:
        tid = finished(c, "savage_bowl", 4)
        assert c.post(f"/api/tables/{tid}/analysis", json={"seat": 2}).status_code == 200
        got = done(c, tid, 2)
        record = c.get(f"/api/tables/{tid}/record").json()
        points = real(record, 2)[:2]
        assert got["result"] == meeple.analyse(record, 2, "quick", only=points).to_json()


def _set_method(url: str, tid: str, seat: int, method: int | None) -> None:
    """What a server of an older analysis method (or one from before versions) left stored."""
    store = Storage(url)
    with store.engine.begin() as conn:
        conn.execute(sa.update(server_analysis.analyses_t).where(
            server_analysis.analyses_t.c.table_id == tid,
            server_analysis.analyses_t.c.seat == seat).values(method=method))
    store.dispose()


@pytest.mark.parametrize("old", [METHOD_VERSION - 1, None])
def test_an_analysis_of_an_older_method_is_outdated_and_analysed_again_on_request(c, url, monkeypatch, old):
    real = server_analysis.analysis_points
    monkeypatch.setattr(server_analysis, "analysis_points", lambda record, seat: real(record, seat)[:2])
    tid = finished(c)
    assert c.post(f"/api/tables/{tid}/analysis", json={"seat": 0}).status_code == 200
    current = done(c, tid, 0)
    assert current["method"] == current["method_current"] == METHOD_VERSION
    assert current["outdated"] is False
    _set_method(url, tid, 0, old)
    got = c.get(f"/api/tables/{tid}/analysis", params={"seat": 0}).json()
    # still shown (it is what there is), but said to be out of date
    assert got["status"] == "done" and got["outdated"] is True and got["method"] == old
    assert got["method_current"] == METHOD_VERSION and got["result"] == current["result"]
    # a press analyses it again, with this method, and replaces the stored one
    again = c.post(f"/api/tables/{tid}/analysis", json={"seat": 0}).json()
    assert again["status"] in ("running", "done") and again["method"] == METHOD_VERSION
    assert again["outdated"] is False
    redone = done(c, tid, 0)
    assert redone["method"] == METHOD_VERSION and redone["outdated"] is False
    assert redone["result"] == current["result"]  # the same method gives the same figures
    # stored once again: the next presses read it (two presses so far; the budget is 3)
    for _ in range(3):
        assert c.post(f"/api/tables/{tid}/analysis", json={"seat": 0}).json()["status"] == "done"


def test_one_server_takes_over_an_outdated_analysis(c, url):
    """Two servers read the same outdated row; the one that writes first runs it again, and the
    other's conditional update finds the row changed (and its claim then reads it running)."""
    tid = finished(c)
    store = Storage(url)
    server_analysis.claim(store, tid, 1, "quick", 5)
    server_analysis.record_progress(store, tid, 1, "quick", 5, "done", {"decisions": []})
    _set_method(url, tid, 1, METHOD_VERSION - 1)
    key = server_analysis._key(tid, 1, "quick")
    with store.engine.connect() as conn:
        seen = conn.execute(sa.select(server_analysis.analyses_t).where(key)).first()
    store.clock.now = lambda: seen.updated_at + 1.0  # a later moment than the stored row's
    assert server_analysis.claim(store, tid, 1, "quick", 5)  # the first server
    with store.engine.begin() as conn:  # the second, with the row it read before
        assert not server_analysis.take_over(conn, seen, 5, seen.updated_at + 2.0)
    assert not server_analysis.claim(store, tid, 1, "quick", 5)
    row = server_analysis.read(store, tid, 1, "quick")
    assert row["status"] == "running" and row["method"] == METHOD_VERSION and row["result"] is None
    store.dispose()


def test_the_migration_marks_analyses_stored_before_it_outdated(tmp_path):
    """``0013_s4_anver``: an analysis stored before versions were kept is of unknown method, so
    it is outdated; the migration also goes down and up again."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    store = Storage(url)
    store.migrate("0012_botapi")
    with store.engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO meeple_tables (id, game, players, seed, options, status, host_hash, "
            "created_at, updated_at) VALUES ('abc', 'trickarus', 2, 7, '{}', 'over', :h, "
            "'2020-01-01', '2020-01-01')"), {"h": "h" * 64})
        conn.execute(sa.text(
            "INSERT INTO meeple_analyses (table_id, seat, depth, status, done, total, result, "
            "updated_at) VALUES ('abc', 0, 'quick', 'done', 0, 0, '{}', 1.0)"))
    store.migrate()
    row = server_analysis.read(store, "abc", 0, "quick")
    assert row["status"] == "done" and row["method"] is None and row["outdated"] is True
    downgrade(store, "0012_botapi")
    with store.engine.connect() as conn:
        assert "method" not in {col["name"] for col in sa.inspect(conn).get_columns("meeple_analyses")}
    store.migrate()
    assert server_analysis.read(store, "abc", 0, "quick")["outdated"] is True
    store.dispose()
