"""Undo within a turn at the table server: the seat to move takes steps of its turn
back as far as the engine allows; the action log, and so every record, replay and rating, keeps
only what was confirmed. On SQLite always, on PostgreSQL when MEEPLE_TEST_POSTGRES_URL is set.
"""

from __future__ import annotations

import os
import random
import uuid

import pytest

import meeple
from meeple.server.storage import DuplicateMove, SeatRecord, Storage, TableRecord
from server_util import client, create, hello, until

PG = os.environ.get("MEEPLE_TEST_POSTGRES_URL")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'undo.db'}"
    if not PG:
        pytest.skip("set MEEPLE_TEST_POSTGRES_URL to test PostgreSQL")
    return PG


def _pick(m: dict, rng: random.Random) -> int:
    """A step that leads into a compound turn soon: Zarcana plays a card (or places its first
    pyramid), Karvi takes the first choice; otherwise at random."""
    legal = m["legal"]
    if m["game"] == "zarcana":
        for key in ("card", "cell"):
            keyed = [x["id"] for x in legal if key in x["json"]]
            if keyed:
                return keyed[0]
        return rng.choice(legal)["id"]
    return legal[0]["id"]


class Seat:
    """One seat's socket: its messages by move number, its log, its own confirmed moves."""

    def __init__(self, ws, first: dict) -> None:
        self.ws, self.log, self.at, self.mine = ws, [], {}, {}
        self.m = self._seen(first)

    def _seen(self, x: dict) -> dict:
        if x.get("type") == "state":
            self.log[x["log_start"]:] = x["log"]
            self.at[x["move"]] = (x, list(self.log))
        return x

    def next_turn(self) -> dict:
        self.m = self._until(lambda x: x["legal"] or x["status"] == "over")
        return self.m

    def move(self, action: int) -> dict:
        n = self.m["move"]
        self.mine[n] = action
        self.ws.send_json({"type": "move", "action": action, "move": n})
        self.m = self._until(lambda x: x["move"] > n and (x["legal"] or x["status"] == "over"))
        return self.m

    def _until(self, pred) -> dict:
        got = until(self.ws, lambda x: x.get("type") == "error"
                    or (self._seen(x).get("type") == "state" and pred(x)))
        assert got["type"] == "state", got
        return got

    def undo(self, to: int | None = None) -> dict:
        n = self.m["move"]
        back = n - 1 if to is None else to
        self.ws.send_json({"type": "undo", "move": n, **({} if to is None else {"to": to})})
        self.m = self._until(lambda x: x["move"] == back)
        for k in [k for k in self.mine if k >= back]:
            del self.mine[k]
        return self.m

    def error(self, message: dict) -> str:
        """Send ``message``, expect a refusal; a state read on the way becomes the current one."""
        self.ws.send_json(message)
        got = until(self.ws, lambda x: self._seen(x)["type"] == "error")
        self.m = self.at[max(self.at)][0]
        return got["code"]

    def until_undo(self, rng: random.Random, limit: int = 300) -> dict:
        for _ in range(limit):
            if self.m["can_undo"]:
                return self.m
            assert not self.m["can_undo"] and self.m["undo_start"] is None
            self.move(_pick(self.m, rng))
        raise AssertionError("no step to take back came up")


@pytest.mark.parametrize("game", ["zarcana", "karvi"])
def test_undo_takes_steps_back_and_the_record_keeps_only_confirmed_ones(db, game):
    rng = random.Random(game)
    with client(db) as c:
        t = create(c, game=game, players=2, seats=[{"kind": "me"}, {"kind": "bot", "level": "random"}])
        with c.websocket_connect(f"/ws/tables/{t['id']}") as ws, \
                c.websocket_connect(f"/ws/tables/{t['id']}") as spectator:
            hello(spectator, None)
            me = Seat(ws, hello(ws, 0, t["secret"]))
            if not me.m["legal"]:
                me.next_turn()
            assert me.m["can_undo"] is False  # nothing to take back at a turn's start
            assert me.error({"type": "undo", "move": me.m["move"]}) == "no_undo"
            m = me.until_undo(rng)
            n, start = m["move"], m["undo_start"]
            assert 0 <= start < n
            undone = me.mine[n - 1]
            # refused: a stale move number, a step before the span, a spectator
            assert me.error({"type": "undo", "move": n + 1}) == "stale"
            if start > 0:
                assert me.error({"type": "undo", "move": n, "to": start - 1}) == "no_undo"
            spectator.send_json({"type": "undo", "move": n})
            assert until(spectator, lambda x: x["type"] == "error")["code"] == "forbidden"
            # taken back: the seat sees exactly what it saw before that step, log included
            before, log_before = me.at[n - 1]
            back = me.undo()
            for key in ("view", "legal", "to_move", "can_undo", "undo_start"):
                assert back[key] == before[key], key
            assert me.log == log_before
            spectated = until(spectator, lambda x: x.get("type") == "state" and x["move"] == n - 1)
            assert spectated["can_undo"] is False and spectated["legal"] == []
            # another step instead, then play on to the end, taking steps back now and then
            others = [x["id"] for x in back["legal"] if x["id"] != undone]
            if others:
                me.move(others[0])
                # checked now: a later random undo may take step n - 1 back again
                kept = Storage(db)
                assert kept.actions(t["id"])[n - 1] == others[0] != undone
                kept.dispose()
            undos = 1
            while me.m["status"] != "over":
                if me.m["can_undo"] and rng.random() < 0.3:
                    me.undo(me.m["undo_start"] if rng.random() < 0.5 else None)
                    undos += 1
                else:
                    me.move(rng.choice(me.m["legal"])["id"])
            final = me.m
        record = c.get(f"/api/tables/{t['id']}/record").json()
        replay = c.get(f"/api/tables/{t['id']}/replay", params={"seat": 0}).json()
    assert undos >= 2
    store = Storage(db)
    assert store.actions(t["id"]) == record["actions"]  # the log is the record: no gap, no extra
    assert store.load_table(t["id"]).undos == undos
    for k, a in me.mine.items():  # every confirmed step of mine is where I played it
        assert record["actions"][k] == a
    again = meeple.replay(record)
    assert again.ranking() == final["ranking"] and again.view(0) == final["view"]
    assert replay["steps"] == len(record["actions"]) and replay["view"] == final["view"]
    store.dispose()


def test_a_restart_after_an_undo_rebuilds_the_table_as_it_was(tmp_path):
    db = f"sqlite:///{tmp_path / 'restart.db'}"
    rng = random.Random(3)
    with client(db) as c1:
        t = create(c1, game="zarcana", players=2, seats=[{"kind": "me"}, {"kind": "bot", "level": "random"}])
        with c1.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            me = Seat(ws, hello(ws, 0, t["secret"]))
            if not me.m["legal"]:
                me.next_turn()
            me.until_undo(rng)
            back = me.undo()
    with client(db) as c2, c2.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        again = hello(ws, 0, t["secret"])
        for key in ("move", "view", "legal", "can_undo", "undo_start"):
            assert again[key] == back[key], key
        assert again["log"] == me.log


def test_an_undo_on_one_server_refuses_a_move_another_server_built_on_the_undone_step(db):
    """Two servers on one database, each with its own copy of the table. After an undo on the
    first, the second's copy still holds the undone step: a move it would log after that step
    is refused (no gap in the log), and the same step played again is logged, not taken for
    a retry of the undone one."""
    rng = random.Random(8)
    with client(db, node_id=f"a{uuid.uuid4().hex[:6]}") as c1, \
            client(db, node_id=f"b{uuid.uuid4().hex[:6]}") as c2:
        t = create(c1, game="zarcana", players=2, seats=[{"kind": "me"}, {"kind": "bot", "level": "random"}])
        with c1.websocket_connect(f"/ws/tables/{t['id']}") as ws1:
            one = Seat(ws1, hello(ws1, 0, t["secret"]))
            if not one.m["legal"]:
                one.next_turn()
            m = one.until_undo(rng)
            n = m["move"]
            step = one.mine[n - 1]
            with c2.websocket_connect(f"/ws/tables/{t['id']}") as ws2:
                two = Seat(ws2, hello(ws2, 0, t["secret"]))
                assert two.m["move"] == n
                one.undo()
                # the second server has not heard: its copy still holds the undone step, yet
                # that step played again there is logged, not taken for a retry of the old one
                ws2.send_json({"type": "move", "action": step, "move": n - 1})
                again = until(ws2, lambda x: x["type"] == "error" or x["move"] == n, limit=50)
                assert again["type"] == "state", again
                assert Storage(db).actions(t["id"])[n - 1:] == [step]
                # the first server learns of it when refused, then takes it back once more
                assert one.error({"type": "undo", "move": n - 1}) == "stale"
                if one.m["move"] != n:
                    one._until(lambda x: x["move"] == n)
                one.undo()
                # now the second server's copy is the stale one: a move it would log after the
                # undone step is refused, and the log keeps no gap
                ws2.send_json({"type": "move", "action": again["legal"][0]["id"], "move": n})
                got = until(ws2, lambda x: x["type"] in ("error", "state"))
                assert got.get("code") == "stale", got
                assert Storage(db).actions(t["id"])[n - 1:] == []
    assert len(Storage(db).actions(t["id"])) == n - 1


def test_a_move_logged_against_an_old_undo_count_is_not_logged(db):
    store = Storage(db)
    store.migrate()
    tid = uuid.uuid4().hex[:12]
    store.create_table(TableRecord(id=tid, game="trickarus", players=3, seed=1, options={},
                                   host_hash="h" * 64, status="running",
                                   seats=[SeatRecord(0, "human", "Ann", secret_hash="s" * 64),
                                          SeatRecord(1, "bot", "B", "random"),
                                          SeatRecord(2, "bot", "C", "random")]))
    store.append_action(tid, 0, 0, 7, undos=0)

    def undo(rec, conn):
        from meeple.server.storage import delete_actions
        delete_actions(conn, tid, 0)
        rec.undos += 1

    rec, _ = store.transact(tid, undo)
    assert rec.undos == 1 and store.actions(tid) == []
    with pytest.raises(DuplicateMove):
        store.append_action(tid, 1, 0, 9, undos=0)  # built on the undone move 0
    with pytest.raises(DuplicateMove):
        store.append_action(tid, 0, 0, 9, undos=0)
    assert store.actions(tid) == []
    store.append_action(tid, 0, 0, 9, undos=1)
    assert store.actions(tid) == [9] and store.load_table(tid).undos == 1
    store.dispose()


def test_taking_steps_back_and_forth_never_buys_time(db):
    """With a time limit, an undo gives the steps back but not the time: the moves after it in
    the same turn keep the turn's deadline (else undo, replay, undo... would hold a table for
    ever), and the next turn starts with a fresh one."""
    rng = random.Random(11)
    with client(db) as c:
        t = create(c, game="zarcana", players=2, time_limit=3600,
                   seats=[{"kind": "me"}, {"kind": "bot", "level": "random"}])
        with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            me = Seat(ws, hello(ws, 0, t["secret"]))
            if not me.m["legal"]:
                me.next_turn()
            m = me.until_undo(rng)
            held = m["deadline"]
            back = me.undo()
            assert back["deadline"] == held  # the undo itself leaves the clock alone
            again = me.move(back["legal"][0]["id"])
            while again["to_move"] == 0 and again["status"] == "running" and again["move"] > back["move"]:
                if not again["can_undo"] or again["undo_start"] > back["move"]:
                    break  # a reveal since: the span (and its clock) started again
                assert again["deadline"] == held, "a move after an undo in the same turn bought time"
                again = me.move(again["legal"][0]["id"])
            if again["to_move"] != 0:
                again = me.next_turn()
            if again["status"] == "running":
                assert again["deadline"] > held  # a new turn: a fresh deadline
