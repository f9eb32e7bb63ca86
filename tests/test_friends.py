"""An account that follows you, and friends: seats, Continue and Rematch from the account on any
browser (a seat's secret only for the account that holds it); friends by username, who is
online where, invitations to a seat by name, tables open to friends only.
On SQLite always; on PostgreSQL too when MEEPLE_TEST_POSTGRES_URL is set."""

from __future__ import annotations

import uuid

import pytest
from starlette.websockets import WebSocketDisconnect

from server_util import client, hello, my_turn, until
from test_accounts import register, url, use  # noqa: F401  (the url fixture)


@pytest.fixture()
def c(url):  # noqa: F811
    with client(url) as cl:
        yield cl


def name(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def new_table(c, players: int = 2, seats=None, **extra) -> dict:
    seats = seats if seats is not None else [{"kind": "me"}, {"kind": "open"}]
    r = c.post("/api/tables", json={"game": "trickarus", "players": players, "seats": seats, **extra})
    assert r.status_code == 200, r.text
    return r.json()


def befriend(c, a: dict, an: str, b: dict, bn: str) -> None:
    use(c, a)
    assert c.post("/api/friends", json={"username": bn}).status_code == 200
    use(c, b)
    assert c.post("/api/friends", json={"username": an}).status_code == 200


def play_out(ws, first: dict) -> dict:
    m = first
    while m["status"] != "over":
        if m["legal"]:
            ws.send_json({"type": "move", "action": m["legal"][0]["id"], "move": m["move"]})
        m = until(ws, lambda x: x.get("type") == "state" and (x["legal"] or x["status"] == "over"))
    return m


def test_logged_in_create_needs_no_name_and_another_browser_continues_and_rematches(c):
    ann = name("ann")
    home = register(c, ann)
    t = new_table(c, 3, [{"kind": "me"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}])
    assert t["table"]["seats"][0]["name"] == ann and t["table"]["seats"][0]["account"]
    # another browser, same account: no secret in its storage, its seat from the account
    c.cookies.clear()
    assert c.post("/api/login", json={"username": ann, "password": "correct horse"}).status_code == 200
    other = {"session": c.cookies.get("meeple_session")}
    mine = c.get("/api/my/tables").json()["tables"]
    assert [x["id"] for x in mine] == [t["id"]] and mine[0]["seat"] == 0
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, None)
        assert m["type"] == "state" and m["seat"] == 0
        if not my_turn(m):
            m = until(ws, my_turn)
        play_out(ws, m)
    done = c.get("/api/my/finished").json()["tables"]
    assert [x["id"] for x in done] == [t["id"]] and done[0]["seat"] == 0
    assert c.get("/api/my/tables").json()["tables"] == []
    # Rematch from the other browser with no secret: the account's seat, a fresh secret
    r = c.post(f"/api/tables/{t['id']}/rematch", json={"seat": 0})
    assert r.status_code == 200, r.text
    again = r.json()
    assert again["seat"] == 0 and again["secret"]
    # the first browser joins the same rematch
    use(c, home)
    r2 = c.post(f"/api/tables/{t['id']}/rematch", json={"seat": 0})
    assert r2.status_code == 200 and r2.json()["id"] == again["id"]
    assert other["session"] != home["session"]


def test_a_seat_and_its_rematch_stay_with_their_account(c):
    ann, eve = name("ann"), name("eve")
    register(c, ann)
    t = new_table(c, 3, [{"kind": "me"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}])
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, None)
        play_out(ws, m if my_turn(m) else until(ws, my_turn))
    register(c, eve)
    with pytest.raises(WebSocketDisconnect), c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, None)
        assert m["type"] == "error" and m["code"] == "forbidden"
        ws.receive_json()
    # a spectator's messages never carry a secret
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws)
        assert m["seat"] is None and "secret" not in str(m)
    use(c, {"session": None})
    c.cookies.clear()
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        with pytest.raises(WebSocketDisconnect):
            assert hello(ws, 0, None)["code"] == "forbidden"
            ws.receive_json()
    # neither another account nor a guest rematches as seat 0
    assert c.get("/api/my/finished").status_code == 401
    register(c, name("mal"))
    assert c.post(f"/api/tables/{t['id']}/rematch", json={"seat": 0}).status_code == 403
    c.cookies.clear()
    assert c.post(f"/api/tables/{t['id']}/rematch", json={"seat": 0}).status_code == 403


def test_friends_add_accept_remove_online_and_where(c):
    ann, bob = name("ann"), name("bob")
    a, b = register(c, ann), register(c, bob)
    use(c, a)
    assert c.post("/api/friends", json={"username": "nobody_here"}).status_code == 404
    assert c.post("/api/friends", json={"username": ann}).status_code == 404  # not myself
    r = c.post("/api/friends", json={"username": bob.upper()}).json()
    assert r["friends"] == [] and r["sent"] == [bob]
    use(c, b)
    got = c.get("/api/friends").json()
    assert got["received"] == [ann] and got["friends"] == []
    t = new_table(c)  # bob sits at a table
    r = c.post("/api/friends", json={"username": ann}).json()
    assert [f["username"] for f in r["friends"]] == [ann]
    use(c, a)
    (f,) = c.get("/api/friends").json()["friends"]
    assert f["username"] == bob and f["online"] is True  # bob polled a moment ago
    assert f["table"] is None and f["tables"][0]["id"] == t["id"]
    use(c, b)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        hello(ws, 0, t["secret"])
        use(c, a)
        (f,) = c.get("/api/friends").json()["friends"]
        assert f["table"] == {"id": t["id"], "game": "trickarus"}
    use(c, a)
    r = c.post("/api/friends", json={"username": bob, "add": False}).json()
    assert r["friends"] == [] and r["sent"] == [] and r["received"] == []
    use(c, b)
    assert c.get("/api/friends").json()["friends"] == []
    c.cookies.clear()
    assert c.get("/api/friends").status_code == 401


def test_invite_a_friend_by_name_and_friends_only_tables(c):
    ann, bob, eve = name("ann"), name("bob"), name("eve")
    a, b, e = register(c, ann), register(c, bob), register(c, eve)
    befriend(c, a, ann, b, bob)
    use(c, a)
    t = new_table(c, 3, [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}], friends_only=True)
    # only a friend may be invited
    r = c.post(f"/api/tables/{t['id']}/invite_friend", json={"seat": 1, "username": eve})
    assert r.status_code == 404
    r = c.post(f"/api/tables/{t['id']}/invite_friend", json={"seat": 1, "username": bob})
    assert r.status_code == 200, r.text
    # only the host may invite
    use(c, e)
    assert c.post(f"/api/tables/{t['id']}/invite_friend",
                  json={"seat": 2, "username": ann}).status_code == 403
    # eve is no friend of ann's: the open seat is not hers; nor a guest's
    assert c.post(f"/api/tables/{t['id']}/join", json={"seat": 2, "name": "Eve"}).status_code == 403
    assert c.post(f"/api/tables/{t['id']}/join",  # a made-up invite secret opens nothing
                  json={"seat": 2, "name": "Eve", "secret": "x" * 20}).status_code == 403
    c.cookies.clear()
    c.get("/api/games")
    assert c.post(f"/api/tables/{t['id']}/join", json={"seat": 2, "name": "Guest"}).status_code == 403
    # nobody else sees or takes bob's invitation
    use(c, e)
    assert c.get("/api/friends").json()["invites"] == []
    assert c.post(f"/api/tables/{t['id']}/invitation/1", json={"accept": True}).status_code == 404
    use(c, b)
    (inv,) = c.get("/api/friends").json()["invites"]
    assert inv == {"table": t["id"], "seat": 1, "game": "trickarus", "from": ann}
    r = c.post(f"/api/tables/{t['id']}/invitation/1", json={"accept": True})
    assert r.status_code == 200 and r.json()["secret"]
    seats = c.get(f"/api/tables/{t['id']}").json()["seats"]
    assert seats[1]["name"] == bob and seats[1]["account"]
    assert c.get("/api/friends").json()["invites"] == []
    # a friend takes an open seat of a friends-only table; the table starts
    carl = name("carl")
    k = register(c, carl)
    befriend(c, a, ann, k, carl)
    use(c, k)
    r = c.post(f"/api/tables/{t['id']}/join", json={"seat": 2, "name": "ignored"})
    assert r.status_code == 200, r.text
    assert c.get(f"/api/tables/{t['id']}").json()["status"] == "running"


def test_a_declined_invitation_opens_the_seat_again(c):
    ann, bob = name("ann"), name("bob")
    a, b = register(c, ann), register(c, bob)
    befriend(c, a, ann, b, bob)
    use(c, a)
    t = new_table(c)
    assert c.post(f"/api/tables/{t['id']}/invite_friend", json={"seat": 1, "username": bob}).status_code == 200
    assert c.get(f"/api/tables/{t['id']}").json()["seats"][1]["kind"] == "invited"
    use(c, b)
    r = c.post(f"/api/tables/{t['id']}/invitation/1", json={"accept": False})
    assert r.status_code == 200, r.text
    assert c.get(f"/api/tables/{t['id']}").json()["seats"][1]["kind"] == "open"
    assert c.get("/api/friends").json()["invites"] == []


def test_a_rematch_stays_open_to_friends_only(c):
    ann, bob, eve = name("ann"), name("bob"), name("eve")
    a, b, e = register(c, ann), register(c, bob), register(c, eve)
    befriend(c, a, ann, b, bob)
    use(c, a)
    t = new_table(c, friends_only=True)
    use(c, b)
    assert c.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": "x"}).status_code == 200
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:  # bob leaves: a bot plays for him
        hello(ws, 1, None)
        ws.send_json({"type": "leave"})
        until(ws, lambda x: x.get("type") == "state" and x["seats"][1]["zombie"])
    use(c, a)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, None)
        play_out(ws, m if my_turn(m) else until(ws, my_turn))
    again = c.post(f"/api/tables/{t['id']}/rematch", json={"seat": 0}).json()
    assert c.get(f"/api/tables/{again['id']}").json()["seats"][1]["kind"] == "open"
    use(c, e)
    assert c.post(f"/api/tables/{again['id']}/join", json={"seat": 1, "name": "x"}).status_code == 403
    use(c, b)
    assert c.post(f"/api/tables/{again['id']}/join", json={"seat": 1, "name": "x"}).status_code == 200
