"""The routes' typed answers (`meeple.server.models`, "answers") carry exactly what the table
manager says, key for key: the browser client reads these JSON shapes.

The web platform, "What a player gets > A lobby".
"""

from __future__ import annotations

import json

import pytest

from meeple.server.routes.lobby import record_summary
from server_util import client, create, join


@pytest.fixture()
def c(tmp_path):
    with client(f"sqlite:///{tmp_path / 'routes.db'}") as cl:
        yield cl


def plain(x):
    return json.loads(json.dumps(x))


def test_lobby_and_table_answers_are_the_managers_dicts_unchanged(c):
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}], time_limit=30)
    assert set(t) == {"id", "host", "table", "seat", "secret"}
    manager = c.app.state.manager
    live = manager.tables[t["id"]]
    assert c.get(f"/api/tables/{t['id']}").json() == plain(manager.summary(live))
    assert t["table"] == plain(manager.summary(live))
    watcher = create(c, seats=[{"kind": "open"}, {"kind": "bot"}, {"kind": "bot"}])
    assert set(watcher) == {"id", "host", "table"}  # no seat taken: no seat, no secret
    joined = join(c, t["id"], 1, "Bo").json()
    assert set(joined) == {"id", "seat", "secret"}
    listed = c.get("/api/tables").json()
    stored = {r.id: r for r in c.app.state.storage.list_tables(("open", "running", "over"), 200)}
    for kind in ("open", "running", "over"):
        for row in listed[kind]:
            assert row == plain(record_summary(stored[row["id"]]))
            assert all("connected" not in s for s in row["seats"])
    assert {r["id"] for r in listed["running"]} >= {t["id"]}
    summary = c.get(f"/api/tables/{t['id']}").json()
    assert all(s["connected"] is None and "away" not in s for s in summary["seats"])
    assert summary == plain(manager.summary(manager.tables[t["id"]]))
