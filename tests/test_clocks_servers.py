"""Clocks across servers (PostgreSQL and Redis): a real-time table's clocks are the
database's, so a move made on one server leaves the same banks on the other server's copy and
in storage, and the server that drives the table (not the one the player is on) runs the clock
out: the turn is skipped, the seat stays its player's."""

from __future__ import annotations

import json
import time

import pytest

from meeple.server.storage import Storage
from server_proc import Server, fresh_database, needs_services, wait_until
from test_server_race import _seats_played, hello, new_table, recv_until

pytestmark = needs_services


@pytest.fixture(scope="module")
def db():
    url, drop = fresh_database()
    yield url
    drop()


def test_a_real_time_clock_is_kept_in_the_database_for_every_server(db):
    a, b = Server(db), Server(db)
    try:
        speed = {"mode": "realtime", "bank": 60, "increment": 10, "on_timeout": "skip"}
        t = new_table(a, [{"kind": "me"}, {"kind": "bot", "level": "random"}], speed=speed)
        ws, m = hello(b, t["id"], 0, t["secret"])  # the player on B; A drives the bot
        if not m["legal"]:
            m = recv_until(ws, lambda x: x.get("type") == "state" and x["legal"])
        time.sleep(1.0)
        ws.send(json.dumps({"type": "move", "action": m["legal"][0]["id"], "move": m["move"]}))
        mine = recv_until(ws, lambda x: x.get("type") == "state" and x["move"] > m["move"]
                          and x["to_move"] != 0)
        bank = mine["clocks"][0]
        assert 60.0 < bank < 69.5  # 60 s, about a second used, 10 s back for the turn
        store = Storage(db)
        stored = json.loads(store.load_table(t["id"]).clocks)["banks"]
        assert stored[0] == pytest.approx(bank, abs=0.01)
        watch, seen = hello(a, t["id"])  # A's copy shows the same clock
        if seen["move"] == mine["move"]:
            assert seen["clocks"][0] == pytest.approx(bank, abs=0.01)
        watch.close()
        ws.close()
        store.dispose()
    finally:
        a.stop()
        b.stop()


def test_the_driving_server_runs_a_clock_out_for_a_player_on_another(db):
    a, b = Server(db), Server(db)
    try:
        speed = {"mode": "realtime", "bank": 2, "increment": 30, "on_timeout": "skip"}
        t = new_table(a, [{"kind": "me"}, {"kind": "bot", "level": "random"}], speed=speed)
        ws, m = hello(b, t["id"], 0, t["secret"])
        store = Storage(db)
        wait_until(lambda: 0 in _seats_played(store, t["id"]), 20)  # a bot played the turn
        assert not store.load_table(t["id"]).seats[0].zombie
        back = recv_until(ws, lambda x: x.get("type") == "state" and x["legal"], 20)
        assert back["skipping"] is None and back["clocks"][0] > 20  # refilled, running again
        ws.close()
        store.dispose()
    finally:
        a.stop()
        b.stop()
