"""Live play over WebSocket: views per seat, stale and double moves, reconnects, restarts,
zombie mode and time limits. The web platform, "Live updates" and "What must hold".
"""

from __future__ import annotations

import json
import random

import pytest
from starlette.websockets import WebSocketDisconnect

import meeple
from meeple.server.storage import Storage
from server_util import client, create, hello, join, my_turn, until, wait_for


@pytest.fixture()
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'ws.db'}"


@pytest.fixture()
def c(db):
    with client(db) as cl:
        yield cl


def play_to_end(ws, rng, first=None, check=None, log=None):
    """Answer every turn with a random legal choice until the end screen; return the last state.

    ``log`` collects the seat's log from the incremental ``log_start``/``log`` of every message.
    """
    log = [] if log is None else log

    def seen(x):
        if x.get("type") == "state":
            log[x["log_start"]:] = x["log"]
        return my_turn(x)

    m = first
    if m is None or not my_turn(m):
        if m is not None:
            seen(m)
        m = until(ws, seen)
    else:
        seen(m)
    while m["status"] != "over":
        if check:
            check(m)
        choice = rng.choice(m["legal"])
        ws.send_json({"type": "move", "action": choice["id"], "move": m["move"]})
        m = until(ws, lambda x, n=m["move"]: seen(x) and x["move"] > n)
    return m


@pytest.mark.parametrize("game", [g["id"] for g in meeple.games()])
def test_every_game_plays_to_the_end_against_bots(c, db, game):
    """Each registered game, smallest player count, one person against random bots."""
    info = meeple.game_info(game)
    players = min(info.player_counts)
    t = create(c, game=game, players=players)
    store = Storage(db)

    def logged_before_told(m):  # "every applied move is stored before anyone is told"
        assert len(store.actions(t["id"])) >= m["move"]
        assert m["seat"] == 0

    log: list = []
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws, \
            c.websocket_connect(f"/ws/tables/{t['id']}") as spy:
        first = hello(ws, 0, t["secret"])
        spy_log: list = hello(spy)["log"]
        end = play_to_end(ws, random.Random(1), first, logged_before_told, log)

        def watched(x):
            if x["type"] == "state":
                spy_log[x["log_start"]:] = x["log"]
            return x["type"] == "state" and x["status"] == "over"

        spy_end = until(spy, watched, limit=10**6)
    assert end["ranking"] and len(end["scores"]) == players
    record = c.get(f"/api/tables/{t['id']}/record").json()
    final = meeple.replay(record)
    assert final.ranking() == end["ranking"]
    # the log pieced together from the messages is exactly the seat's log, nothing more;
    # the spectator got exactly the public view and log
    # (its sentences name the seats as the table does)
    names = record["meta"]["seats"]
    assert log == final.log(0, names=names)
    assert spy_end["view"] == final.view(None) and spy_log == final.log(None, names=names)
    assert spy_end["legal"] == []


def test_a_seat_acts_only_with_its_secret(c):
    t = create(c)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, "wrong-secret-xyz")
        assert m == {"type": "error", "code": "forbidden", "message": "wrong seat secret"}
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:  # a bot's seat has no secret at all
        assert hello(ws, 1, t["secret"])["code"] == "forbidden"


def test_spectator_sees_the_public_view_and_cannot_move(c):
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
    join(c, t["id"], 1, "Bo")
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws)
        assert m["seat"] is None and m["legal"] == [] and "hand" not in m["view"]
        assert not any(e.get("type") == "deal" for e in m["log"])  # dealt hands are private events
        ws.send_json({"type": "move", "action": 0, "move": 0})
        assert until(ws, lambda x: x["type"] == "error")["code"] == "forbidden"


def test_each_seat_sees_only_its_own_hand(c):
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
    j = join(c, t["id"], 1, "Bo").json()
    with c.websocket_connect(f"/ws/tables/{t['id']}") as a, c.websocket_connect(f"/ws/tables/{t['id']}") as b:
        ma, mb = hello(a, 0, t["secret"]), hello(b, 1, j["secret"])
        hand_a = {x["code"] for x in ma["view"]["hand"]}
        hand_b = {x["code"] for x in mb["view"]["hand"]}
        assert hand_a and hand_b and not hand_a & hand_b
        text_a = json.dumps(ma)
        for code in hand_b:  # nothing of seat 1's hand anywhere in seat 0's message, log included
            assert f'"{code}"' not in text_a
        assert ma["legal"] and not mb["legal"]  # seat 0 leads


def test_stale_and_double_moves_are_rejected_and_applied_once(c, db):
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
    for seat in (1, 2):
        join(c, t["id"], seat, f"P{seat}")
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, t["secret"])
        a = m["legal"][0]["id"]
        ws.send_json({"type": "move", "action": a, "move": 0})
        # the double-click (or a retry after a lost answer): answered like the first, applied once
        ws.send_json({"type": "move", "action": a, "move": 0})
        assert until(ws, lambda x: x["type"] == "state" and x["move"] == 1)["to_move"] == 1
        other = next(x["id"] for x in m["legal"] if x["id"] != a)
        ws.send_json({"type": "move", "action": other, "move": 0})  # another choice for move 0
        assert until(ws, lambda x: x["type"] == "error")["code"] == "stale"
        ws.send_json({"type": "move", "action": a, "move": 1})  # not my turn any more
        assert until(ws, lambda x: x["type"] == "error")["code"] == "not_your_turn"
    assert Storage(db).actions(t["id"]) == [a]


def test_illegal_malformed_and_oversized_messages_are_refused_but_the_seat_stays(c):
    t = create(c)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, t["secret"])
        illegal = next(a for a in range(meeple.game_info("trickarus").num_actions)
                       if a not in {x["id"] for x in m["legal"]})
        for bad, code in [
            ({"type": "move", "action": illegal, "move": 0}, "illegal"),
            ({"type": "move", "action": "7", "move": 0}, "bad_message"),
            ({"type": "move", "action": -1, "move": 0}, "bad_message"),
            ({"type": "move", "action": 1, "move": 0, "x": 1}, "bad_message"),
            ({"type": "teleport"}, "bad_message"),
            ({"type": "hello"}, "bad_message"),
        ]:
            ws.send_json(bad)
            assert until(ws, lambda x: x["type"] == "error")["code"] == code, bad
        ws.send_text("not json")
        assert until(ws, lambda x: x["type"] == "error")["code"] == "bad_message"
        ws.send_bytes(b'{"type": "ping"}')
        assert until(ws, lambda x: x["type"] == "error")["code"] == "bad_message"
        ws.send_text(json.dumps({"type": "ping", "pad": "x" * 5000}))
        assert until(ws, lambda x: x["type"] == "error")["code"] == "too_large"
        ws.send_json({"type": "move", "action": m["legal"][0]["id"], "move": 0})
        assert until(ws, lambda x: x["type"] == "state" and x["move"] >= 1)


def test_reconnect_restores_view_and_log(c):
    t = create(c)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, t["secret"])
        ws.send_json({"type": "move", "action": m["legal"][0]["id"], "move": 0})
        before = until(ws, lambda x: my_turn(x) and x["move"] > 0)
        full_log = m["log"] + [e for e in before["log"]]
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        again = hello(ws, 0, t["secret"])
        assert again["view"] == before["view"] and again["legal"] == before["legal"]
        assert again["log_start"] == 0 and len(again["log"]) >= len(full_log) - len(m["log"])


def test_a_restarted_server_resumes_every_table_from_its_log(db):
    with client(db) as c1:
        t = create(c1, players=3)
        with c1.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            m = hello(ws, 0, t["secret"])
            for _ in range(3):
                ws.send_json({"type": "move", "action": m["legal"][0]["id"], "move": m["move"]})
                m = until(ws, lambda x, n=m["move"]: my_turn(x) and x["move"] > n)
    with client(db) as c2:  # a new process would do exactly this: migrate, then rebuild from the log
        with c2.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            again = hello(ws, 0, t["secret"])
            assert again["move"] == m["move"] and again["view"] == m["view"]
            end = play_to_end(ws, random.Random(2), again)
    assert meeple.replay(_record(db, t["id"])).ranking() == end["ranking"]


def _record(db, table_id):
    store = Storage(db)
    rec = store.load_table(table_id)
    return {"format": meeple.core.RECORD_FORMAT, "game": rec.game, "players": rec.players,
            "seed": rec.seed, "options": rec.options, "actions": store.actions(table_id)}


def test_a_bot_resumes_a_bot_turn_after_restart(db):
    with client(db) as c1:
        t = create(c1, players=3, seats=[{"kind": "me"}, {"kind": "bot"}, {"kind": "bot"}])
        with c1.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            hello(ws, 0, t["secret"])
            ws.send_json({"type": "leave"})  # every seat is a bot now; the game runs by itself
    with client(db) as c2:
        wait_for(lambda: c2.get(f"/api/tables/{t['id']}").json()["status"] == "over")


def test_leaving_hands_the_seat_to_a_bot_and_reclaiming_takes_it_back(tmp_path):
    # paced bots, so that the game cannot end before the seat is reclaimed
    with client(f"sqlite:///{tmp_path / 'z.db'}", bot_delay=0.1) as c:
        _leave_and_reclaim(c)


def _leave_and_reclaim(c):
    t = create(c, players=3)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, t["secret"])
        ws.send_json({"type": "leave"})
        z = until(ws, lambda x: x["type"] == "state" and x["seats"][0]["zombie"])
        assert z["legal"] == []
        until(ws, lambda x: x["type"] == "state" and x["move"] > m["move"])  # the bot played for me
        ws.send_json({"type": "reclaim"})
        back = until(ws, lambda x: x["type"] == "state" and not x["seats"][0]["zombie"])
        assert back["seats"][0]["kind"] == "human" and back["status"] == "running"
        mine = until(ws, lambda x: x["type"] == "state" and bool(x["legal"]))
        assert mine["to_move"] == 0


def test_a_time_per_move_skips_a_slow_players_turn_and_keeps_their_seat(c):
    """A table made with a time per move (the old ``time_limit``) runs a real-time clock of
    that bank: when it runs out a bot plays that turn, and the seat stays its player's."""
    t = create(c, players=3, time_limit=0.3)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, t["secret"])
        assert m["deadline"] is not None and m["legal"]
        assert m["speed"]["mode"] == "realtime" and m["speed"]["bank"] == 0.3
        skipped = until(ws, lambda x: x["type"] == "state" and x["skipping"] == 0)
        assert skipped["move"] == 0 and not skipped["legal"] and not skipped["seats"][0]["zombie"]
        after = until(ws, lambda x: x["type"] == "state" and x["move"] >= 1 and x["to_move"] != 0)
        assert after["skipping"] is None and not after["seats"][0]["zombie"]


def test_a_seat_handed_to_a_bot_takes_no_moves_from_its_player(tmp_path):
    with client(f"sqlite:///{tmp_path / 'z.db'}", bot_delay=30) as c:  # the stand-in bot waits
        t = create(c, players=3, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
        for seat in (1, 2):
            join(c, t["id"], seat, f"P{seat}")
        with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            m = hello(ws, 0, t["secret"])
            ws.send_json({"type": "leave"})
            until(ws, lambda x: x["type"] == "state" and x["seats"][0]["zombie"])
            ws.send_json({"type": "move", "action": m["legal"][0]["id"], "move": 0})
            assert until(ws, lambda x: x["type"] == "error")["code"] == "not_your_turn"


def test_bots_think_in_worker_processes(tmp_path):
    """`meeple serve` runs bots in spawned processes; an all-bot game finishes through them."""
    with client(f"sqlite:///{tmp_path / 'proc.db'}", bot_processes=True, bot_workers=1) as c:
        t = create(c, players=2, seats=[{"kind": "bot", "level": "heuristic"}, {"kind": "bot"}],
                   name=None)
        wait_for(lambda: c.get(f"/api/tables/{t['id']}").json()["status"] == "over", seconds=60)
        record = c.get(f"/api/tables/{t['id']}/record").json()
        assert meeple.replay(record).is_over()


def test_the_same_move_from_two_tabs_is_applied_once(c, db):
    """Two tabs of one seat both answer move 0: one is applied, the other refused."""
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
    for seat in (1, 2):
        join(c, t["id"], seat, f"P{seat}")
    with c.websocket_connect(f"/ws/tables/{t['id']}") as a, \
            c.websocket_connect(f"/ws/tables/{t['id']}") as b:
        ma, mb = hello(a, 0, t["secret"]), hello(b, 0, t["secret"])
        a.send_json({"type": "move", "action": ma["legal"][0]["id"], "move": 0})
        b.send_json({"type": "move", "action": mb["legal"][-1]["id"], "move": 0})
        seen = [until(x, lambda m: m["type"] == "state" and m["move"] >= 1) for x in (a, b)]
        assert seen[0]["view"] == seen[1]["view"] and seen[0]["move"] == 1
        # the loser of the race is told so, on its own tab
        refused = [until(x, lambda m: m["type"] == "error") for x in
                   ([b] if seen[0]["view"]["trick"][0]["card"]["code"] ==
                    ma["legal"][0]["json"]["play"] else [a])]
        assert refused[0]["code"] in ("stale", "not_your_turn")
    assert len(Storage(db).actions(t["id"])) == 1


def test_a_connect_sends_one_small_update_to_others_not_the_full_state(c):
    """spectators arriving send the players nothing; a seat arriving sends
    each other socket one small seats message (who is here), never the full state again."""
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
    j = join(c, t["id"], 1, "Bo").json()
    with c.websocket_connect(f"/ws/tables/{t['id']}") as a:
        hello(a, 0, t["secret"])
        spies = [c.websocket_connect(f"/ws/tables/{t['id']}") for _ in range(5)]
        for s in spies:
            assert hello(s.__enter__())["type"] == "state"
        a.send_json({"type": "ping"})
        assert a.receive_json() == {"type": "pong"}  # nothing queued before the pong
        with c.websocket_connect(f"/ws/tables/{t['id']}") as b:
            assert hello(b, 1, j["secret"])["type"] == "state"
            m = a.receive_json()
            assert m["type"] == "seats" and m["seats"][1]["connected"] is True
            assert "view" not in m and "log" not in m
            a.send_json({"type": "ping"})
            assert a.receive_json() == {"type": "pong"}
        m = a.receive_json()
        assert m["type"] == "seats" and m["seats"][1]["connected"] is False
        for s in spies:
            s.__exit__(None, None, None)


def test_sockets_are_capped_per_table_and_per_client(db):
    with client(db, max_sockets_per_table=2) as c:
        t = create(c)
        with c.websocket_connect(f"/ws/tables/{t['id']}") as a, \
                c.websocket_connect(f"/ws/tables/{t['id']}") as b:
            hello(a), hello(b)
            with c.websocket_connect(f"/ws/tables/{t['id']}") as x:
                assert hello(x)["code"] == "too_many"
                with pytest.raises(WebSocketDisconnect):
                    x.receive_json()
        with c.websocket_connect(f"/ws/tables/{t['id']}") as a:  # room again once they left
            assert hello(a)["type"] == "state"
    with client(db, max_sockets_per_client=2) as c:
        t2 = create(c)
        with c.websocket_connect(f"/ws/tables/{t['id']}") as a, \
                c.websocket_connect(f"/ws/tables/{t2['id']}") as b:
            hello(a), hello(b)
            with c.websocket_connect(f"/ws/tables/{t2['id']}") as x:
                assert x.receive_json()["code"] == "too_many"


@pytest.mark.parametrize("failure", ["raises", "illegal"])
def test_a_failing_bot_plays_a_random_legal_move_and_the_table_goes_on(db, monkeypatch, failure):
    """A bot's bug must not freeze its table (a compiled build's Trickarus bot once raised
    TypeError on every move, and the table waited for ever): the server plays a random legal
    move for it, logged."""
    import meeple.server.bot_seats as bot_seats

    def broken(*args, **kwargs):
        if failure == "raises":
            raise TypeError("a bot's bug")
        return -1

    monkeypatch.setattr(bot_seats, "bot_choose", broken)
    with client(db) as c:
        t = create(c, players=3, seats=[{"kind": "me"}, {"kind": "bot"}, {"kind": "bot"}])
        with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            hello(ws, 0, t["secret"])
            ws.send_json({"type": "leave"})  # every seat is a (broken) bot now
        wait_for(lambda: c.get(f"/api/tables/{t['id']}").json()["status"] == "over")
