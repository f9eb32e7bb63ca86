"""The lobby HTTP API: games, creating and joining tables, bots, invites, replays, rematch.

The web platform, "What a player gets > A lobby" and "What must hold".
"""

from __future__ import annotations

import pytest

import meeple
from meeple.server.storage import Storage
from server_util import client, create, hello, join, until, wait_for


@pytest.fixture()
def c(tmp_path):
    with client(f"sqlite:///{tmp_path / 'api.db'}") as cl:
        yield cl


def test_games_lists_every_registered_game_with_bot_levels(c):
    games = {g["id"]: g for g in c.get("/api/games").json()}
    assert set(games) == {g["id"] for g in meeple.games()}
    for g in games.values():
        assert g["bots"][0] == "random" and g["players"] and "options" in g
    assert games["trickarus"]["renderer"] == "/games/trickarus/web/renderer.js"
    js = c.get(games["trickarus"]["renderer"])
    assert js.status_code == 200 and "export function render" in js.text


def test_create_rejects_bad_input_with_clear_errors(c):
    bad = [
        ({"game": "nope", "players": 2}, 400),
        ({"game": "trickarus", "players": 9}, 400),
        ({"game": "trickarus", "players": 3, "options": {"mode": "solo"}}, 400),
        ({"game": "trickarus", "players": 3, "options": {"mode": ["x"]}}, 422),
        ({"game": "trickarus", "players": 3, "extra": 1}, 422),
        ({"game": "trickarus", "players": 3, "seats": [{"kind": "me"}], "name": "x" * 41}, 422),
        ({"game": "trickarus", "players": 3, "seats": [{"kind": "me"}], "name": "<b>"}, 422),
        ({"game": "trickarus", "players": 3, "seats": [{"kind": "bot", "level": "godlike"}]}, 400),
        ({"game": "trickarus", "players": 2, "seats": [{"kind": "open"}] * 3}, 400),
        ({"game": "trickarus", "players": 3, "seats": [{"kind": "me"}, {"kind": "me"}], "name": "A"}, 400),
    ]
    for body, status in bad:
        r = c.post("/api/tables", json=body)
        assert r.status_code == status, (body, r.text)
    huge = c.post("/api/tables", content=b"{" + b" " * 20000 + b"}",
                  headers={"content-type": "application/json"})
    assert huge.status_code == 413


def test_open_seats_are_joined_once_and_the_game_starts_when_full(c):
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
    assert t["table"]["status"] == "open" and t["seat"] == 0
    r = join(c, t["id"], 1, "Bo")
    assert r.status_code == 200 and r.json()["secret"]
    again = join(c, t["id"], 1, "Cy")
    assert again.status_code == 409
    info = c.get(f"/api/tables/{t['id']}").json()
    assert info["status"] == "running"
    assert [s["kind"] for s in info["seats"]] == ["human", "human", "bot"]


def test_only_the_host_fills_seats_with_bots(c):
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
    forbidden = c.post(f"/api/tables/{t['id']}/bot", json={"host": "x" * 24, "seat": 1})
    assert forbidden.status_code == 403
    ok = c.post(f"/api/tables/{t['id']}/bot", json={"host": t["host"], "seat": 1, "level": "heuristic"})
    assert ok.status_code == 200 and ok.json()["seats"][1]["level"] == "heuristic"
    assert ok.json()["status"] == "open"
    c.post(f"/api/tables/{t['id']}/bot", json={"host": t["host"], "seat": 2})
    assert c.get(f"/api/tables/{t['id']}").json()["status"] == "running"


def test_invite_link_reserves_a_seat_for_its_secret_only(c):
    t = create(c, seats=[{"kind": "me"}, {"kind": "bot"}, {"kind": "open"}])
    inv = c.post(f"/api/tables/{t['id']}/invite", json={"host": t["host"], "seat": 2}).json()
    assert inv["link"].endswith(f"#seat=2&invite={inv['secret']}")  # a fragment: never sent to servers
    assert join(c, t["id"], 2, "Eve").status_code == 409
    assert join(c, t["id"], 2, "Eve", "wrong-secret-123").status_code == 409
    ok = join(c, t["id"], 2, "Di", inv["secret"])
    assert ok.status_code == 200 and ok.json()["secret"]
    assert c.get(f"/api/tables/{t['id']}").json()["seats"][2]["name"] == "Di"


def test_an_invite_secret_is_spent_when_the_friend_joins(c):
    """whoever saw the link must not hold the friend's seat afterwards."""
    t = create(c, seats=[{"kind": "me"}, {"kind": "bot"}, {"kind": "open"}])
    inv = c.post(f"/api/tables/{t['id']}/invite", json={"host": t["host"], "seat": 2}).json()
    ok = join(c, t["id"], 2, "Di", inv["secret"])
    assert ok.status_code == 200
    mine = ok.json()["secret"]
    assert mine != inv["secret"]
    assert join(c, t["id"], 2, "Di", inv["secret"]).status_code == 409
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:  # the link opens the seat no more
        assert hello(ws, 2, inv["secret"])["code"] == "forbidden"
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        assert hello(ws, 2, mine)["seat"] == 2


def test_lobby_lists_tables_without_private_data(c):
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
    tables = c.get("/api/tables").json()
    assert [x["id"] for x in tables["open"]] == [t["id"]]
    text = c.get("/api/tables").text + c.get(f"/api/tables/{t['id']}").text
    for secret_word in ("seed", "secret", "host_hash", t["host"], t["secret"], "hand"):
        assert secret_word not in text


def test_replay_and_record_open_only_when_the_game_is_over(c):
    t = create(c, players=3, seats=[{"kind": "bot"}] * 3, name=None)
    tid = t["id"]
    # all-bot tables run by themselves; while running, nothing of the hidden game is published
    first = c.get(f"/api/tables/{tid}/replay")
    if c.get(f"/api/tables/{tid}").json()["status"] != "over":
        assert first.status_code == 409
    wait_for(lambda: c.get(f"/api/tables/{tid}").json()["status"] == "over")
    record = c.get(f"/api/tables/{tid}/record").json()
    final = meeple.replay(record)
    assert final.is_over() and record["result"]["ranking"] == final.ranking()
    r = c.get(f"/api/tables/{tid}/replay", params={"step": 0, "seat": 1}).json()
    assert r["steps"] == len(record["actions"]) and r["view"]["player"] == 1
    assert r["view"] == meeple.replay(record, upto=0).view(1)
    assert len(r["moves"]) == r["steps"] and all(m["label"] for m in r["moves"])
    assert c.get(f"/api/tables/{tid}/replay", params={"step": 10**6}).status_code == 400


def test_rematch_keeps_game_options_and_bots_and_the_askers_seat(c):
    t = create(c, players=2, seats=[{"kind": "me"}, {"kind": "bot", "level": "heuristic"}],
               options={"lightning_variant": True})
    tid = t["id"]
    assert c.post(f"/api/tables/{tid}/rematch", json={"seat": 0, "secret": t["secret"]}).status_code == 409
    # hand the seat to a bot so the game finishes on its own
    from server_util import hello
    with c.websocket_connect(f"/ws/tables/{tid}") as ws:
        hello(ws, 0, t["secret"])
        ws.send_json({"type": "leave"})
        wait_for(lambda: c.get(f"/api/tables/{tid}").json()["status"] == "over")
    wrong = c.post(f"/api/tables/{tid}/rematch", json={"seat": 0, "secret": "not-the-secret"})
    assert wrong.status_code == 403
    r = c.post(f"/api/tables/{tid}/rematch", json={"seat": 0, "secret": t["secret"]}).json()
    new = c.get(f"/api/tables/{r['id']}").json()
    assert new["options"]["lightning_variant"] is True and new["rematch_of"] == tid
    assert [s["kind"] for s in new["seats"]] == ["human", "bot"] and new["seats"][1]["level"] == "heuristic"
    assert c.get(f"/api/tables/{tid}").json()["rematch"] == r["id"]
    # asking twice gives the same rematch, not a second one
    again = c.post(f"/api/tables/{tid}/rematch", json={"seat": 0, "secret": t["secret"]}).json()
    assert again["id"] == r["id"]


def test_pages_and_static_files_are_served(c):
    for path in ("/", "/table/abc", "/replay/abc", "/static/table.js", "/static/renderer.js",
                 "/static/app.css"):
        assert c.get(path).status_code == 200, path
    assert c.get("/games/trickarus/web/..%2frules.py").status_code == 404
    assert c.get("/games/nogame/web/renderer.js").status_code == 404
    assert c.get("/api/tables/zzz").status_code == 404


def test_bot_levels_are_named_or_within_the_servers_caps(c):
    """One request must not stall every bot: the web takes the named levels only (knobs such
    as ``ismcts:5s`` are for the arena and the terminal)."""
    for level in ("ismcts:infs", "ismcts:1e308s", "ismcts:999999999", "ismcts:nans",
                  "ismcts:60s", "godlike", "ismcts:5s", "ismcts:200", "ismcts", "planner_search"):
        r = c.post("/api/tables", json={"game": "trickarus", "players": 3, "seats": [
            {"kind": "bot", "level": level}], "name": None})
        assert r.status_code == 400, (level, r.text)
        assert r.json()["error"] == "bad_level"
        assert "expert" in r.json()["detail"]
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
    bad = c.post(f"/api/tables/{t['id']}/bot", json={"host": t["host"], "seat": 1, "level": "ismcts:infs"})
    assert bad.status_code == 400
    c.app.state.visitors.settings.max_tables = 100  # not the test: many tables from one client
    for level in ("heuristic", "random", "easy", "expert", "learned"):
        ok = c.post("/api/tables", json={"game": "trickarus", "players": 3, "seats": [
            {"kind": "bot", "level": level}], "name": None})
        assert ok.status_code == 200, (level, ok.text)


def test_a_table_resumed_after_restart_runs_no_uncapped_bot(tmp_path):
    db = f"sqlite:///{tmp_path / 'cap.db'}"
    with client(db, bot_delay=30) as c1:  # the bot waits: the table is still running at restart
        t = create(c1, players=3, seats=[{"kind": "bot", "level": "random"}] * 3, name=None)
    store = Storage(db)
    rec = store.load_table(t["id"])
    rec.seats[1].level = "ismcts:infs"  # stored before the cap existed
    store.update_seat(t["id"], rec.seats[1])
    with client(db) as c2:
        seats = c2.get(f"/api/tables/{t['id']}").json()["seats"]
        assert seats[1]["level"] != "ismcts:infs"
        wait_for(lambda: c2.get(f"/api/tables/{t['id']}").json()["status"] == "over")
    assert store.load_table(t["id"]).seats[1].level != "ismcts:infs"


def test_bodies_are_capped_whatever_their_encoding_and_errors_do_not_echo_input(c):
    """a chunked body (no content-length) is counted as it streams."""
    sent = 0

    def chunks():
        nonlocal sent
        for _ in range(20 * 16):  # 20 MiB in 64 KiB chunks
            sent += 65536
            yield b" " * 65536

    r = c.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and len(r.content) < 200
    # a body under the cap but invalid: the 422 names the field, never the input back
    big = {"game": "trickarus", "players": 3, "seats": [{"kind": "me"}], "name": "x" * 15000}
    r = c.post("/api/tables", json=big)
    assert r.status_code == 422 and len(r.content) < 1000 and "xxxxxxxx" not in r.text
    assert r.json()["detail"][0]["loc"][-1] == "name"


def test_seat_numbers_out_of_range_are_refused_with_4xx_everywhere(c):
    """a rematch for seat 9 of a 2-seat table answered 500."""
    t = create(c, players=2, seats=[{"kind": "bot"}, {"kind": "bot"}], name=None)
    tid = t["id"]
    wait_for(lambda: c.get(f"/api/tables/{tid}").json()["status"] == "over")
    for seat in (2, 9, 15):
        r = c.post(f"/api/tables/{tid}/rematch", json={"seat": seat, "secret": t["host"]})
        assert r.status_code == 400 and r.json()["error"] == "bad_seat", r.text
        assert c.get(f"/api/tables/{tid}/replay", params={"seat": seat}).status_code == 400
    o = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
    for path, body in (("join", {"seat": 9, "name": "Bo"}),
                       ("bot", {"seat": 9, "host": o["host"]}),
                       ("invite", {"seat": 9, "host": o["host"]})):
        assert c.post(f"/api/tables/{o['id']}/{path}", json=body).status_code == 400, path
    with c.websocket_connect(f"/ws/tables/{o['id']}") as ws:
        assert hello(ws, 9, o["secret"])["code"] == "bad_seat"


def test_names_are_normalised_visible_and_not_a_bots_label(c):
    """blank, bidi-override, zero-width and bot-imitating names."""
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
    for bad in ("", "   ", "\u202eevE", "A\u200bnn", "\u200b", "Bot 3 (heuristic)", "bot3",
                "Bo\x07b", "Ann (ismcts:200)", "x" * 41, "ｘ" * 41, "Seat 2", "a\nb"):
        r = join(c, t["id"], 1, bad)
        assert r.status_code == 422, (bad, r.text)
    ok = join(c, t["id"], 1, "  Ｂｏ  Ｍａｒｌｅｙ ")
    assert ok.status_code == 200
    assert c.get(f"/api/tables/{t['id']}").json()["seats"][1]["name"] == "Bo Marley"  # NFKC
    assert join(c, t["id"], 2, "Zoë Bottom").status_code == 200
    r = c.post("/api/tables", json={"game": "trickarus", "players": 3, "seats": [{"kind": "me"}],
                                    "name": "Bot 1 (random)"})
    assert r.status_code == 422


def test_one_browser_takes_one_seat_unless_the_host_seats_it(c):
    """anyone could take every open seat."""
    c.get("/")  # the lobby page hands this browser its client cookie
    t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
    # the creator's browser holds seat 0 already
    r = c.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": "Bo"})
    assert r.status_code == 409 and r.json()["error"] == "one_seat"
    assert join(c, t["id"], 1, "Bo").status_code == 200  # another browser
    r = c.post(f"/api/tables/{t['id']}/join", json={"seat": 2, "name": "Bo2"})
    assert r.status_code == 409 and r.json()["error"] == "one_seat"
    c.cookies.clear()  # no client cookie at all: refused, not counted as a new browser
    r = c.post(f"/api/tables/{t['id']}/join", json={"seat": 2, "name": "Cy"})
    assert r.status_code == 400 and r.json()["error"] == "no_client"
    # the host may seat the same browser again, by invite
    inv = c.post(f"/api/tables/{t['id']}/invite", json={"host": t["host"], "seat": 2}).json()
    assert c.post(f"/api/tables/{t['id']}/join",
                  json={"seat": 2, "name": "Bo2", "secret": inv["secret"]}).status_code == 200


def test_host_removes_a_player_or_an_unused_invite_before_the_start(c):
    t = create(c, players=4, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "open"}, {"kind": "open"}])
    bo = join(c, t["id"], 1, "Bo").json()
    inv = c.post(f"/api/tables/{t['id']}/invite", json={"host": t["host"], "seat": 2}).json()
    assert c.post(f"/api/tables/{t['id']}/reopen", json={"host": bo["secret"], "seat": 1}).status_code == 403
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        hello(ws, 1, bo["secret"])
        r = c.post(f"/api/tables/{t['id']}/reopen", json={"host": t["host"], "seat": 1})
        assert r.status_code == 200 and r.json()["seats"][1]["kind"] == "open"
        # the removed player's socket is told and closed; their secret opens nothing
        assert until(ws, lambda x: x["type"] == "error")["code"] == "seat_lost"
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        assert hello(ws, 1, bo["secret"])["code"] == "forbidden"
    r = c.post(f"/api/tables/{t['id']}/reopen", json={"host": t["host"], "seat": 2})
    assert r.json()["seats"][2]["kind"] == "open"
    assert join(c, t["id"], 2, "Di", inv["secret"]).status_code == 200  # an ordinary open seat now
    assert c.post(f"/api/tables/{t['id']}/reopen", json={"host": t["host"], "seat": 9}).status_code == 400


def test_host_hands_a_long_gone_players_seat_to_a_bot(tmp_path):
    with client(f"sqlite:///{tmp_path / 'g.db'}", seat_gone_seconds=0.5, bot_delay=0.05) as c:
        t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
        bo = join(c, t["id"], 1, "Bo").json()
        assert c.get(f"/api/tables/{t['id']}").json()["status"] == "running"
        assert c.post(f"/api/tables/{t['id']}/reopen", json={"host": t["host"], "seat": 1}).status_code == 409
        with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            hello(ws, 1, bo["secret"])
            import time
            time.sleep(0.6)
            r = c.post(f"/api/tables/{t['id']}/replace", json={"host": t["host"], "seat": 1})
            assert r.status_code == 409 and r.json()["error"] == "not_gone"  # still here
        r = c.post(f"/api/tables/{t['id']}/replace", json={"host": t["host"], "seat": 1})
        assert r.status_code == 409  # just left: not gone long enough yet
        wait_for(lambda: c.post(f"/api/tables/{t['id']}/replace",
                                json={"host": t["host"], "seat": 1, "level": "heuristic"}).status_code == 200)
        seat = c.get(f"/api/tables/{t['id']}").json()["seats"][1]
        assert seat["kind"] == "bot" and seat["level"] == "heuristic"
        with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            assert hello(ws, 1, bo["secret"])["code"] == "forbidden"


def test_a_public_url_makes_links_redirects_and_cookies_use_it(tmp_path):
    """behind a proxy at https://games.example.org every link points there."""
    with client(f"sqlite:///{tmp_path / 'pub.db'}", public_url="https://games.example.org/") as c:
        page = c.get("/")
        assert "Secure" in page.headers["set-cookie"] and "HttpOnly" in page.headers["set-cookie"]
        t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
        inv = c.post(f"/api/tables/{t['id']}/invite", json={"host": t["host"], "seat": 1}).json()
        assert inv["link"] == f"https://games.example.org/table/{t['id']}#seat=1&invite={inv['secret']}"
        r = c.get("/api/games/", follow_redirects=False)
        assert r.status_code in (307, 308) and r.headers["location"].startswith("https://games.example.org/api/games")
    with client(f"sqlite:///{tmp_path / 'home.db'}") as c:  # no public URL: links are relative
        assert "Secure" not in c.get("/").headers["set-cookie"]
        t = create(c, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "bot"}])
        inv = c.post(f"/api/tables/{t['id']}/invite", json={"host": t["host"], "seat": 1}).json()
        assert inv["link"].startswith(f"/table/{t['id']}#")
