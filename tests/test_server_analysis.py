""""Analyse my game" on the server: only a finished game, run in the background with progress,
stored once, the same figures as `meeple.analyse`, counted in the visitor's budget."""

from __future__ import annotations

import os

import pytest

import meeple
from meeple.server import analysis as server_analysis
from server_util import client, create, wait_for


@pytest.fixture(params=["sqlite", "postgresql"])
def c(request, tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'analysis.db'}"
    if request.param == "postgresql":
        url = os.environ.get("MEEPLE_TEST_POSTGRES_URL", "")
        if not url:
            pytest.skip("set MEEPLE_TEST_POSTGRES_URL")
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
