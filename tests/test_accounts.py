"""Players, not just seats: accounts, sessions and their security rules, ratings,
leaderboard and profile, chat, Play now, and the migration of a database with games running.
On SQLite always; on PostgreSQL too when MEEPLE_TEST_POSTGRES_URL is set."""

from __future__ import annotations

import os
import random
import re
import time
import uuid
from contextlib import ExitStack
from datetime import UTC, datetime

import pytest
from sqlalchemy import delete, insert
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

import meeple
from meeple.server import ratings as ratings_mod
from meeple.server.matchmaking import _plans
from meeple.server.schema_players import queue_t
from meeple.server.storage import Storage, actions_t, seats_t, tables_t
from server_util import client, create, hello, until, wait_for

PG = os.environ.get("MEEPLE_TEST_POSTGRES_URL")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'accounts.db'}"
    if not PG:
        pytest.skip("set MEEPLE_TEST_POSTGRES_URL to test PostgreSQL")
    store = Storage(PG)
    store.migrate()
    with store.engine.begin() as conn:  # the queue is shared by every test of this database
        conn.execute(delete(queue_t))
    store.dispose()
    return PG


@pytest.fixture()
def c(url):
    with client(url) as cl:
        yield cl


def name(prefix: str = "u") -> str:
    # a prefix the hex can complete into a label is refused by the server ("bo" + "70..." reads
    # "bot 0"), so prefixes here are whole names
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def register(c, username: str, password: str = "correct horse") -> dict:
    c.cookies.clear()
    r = c.post("/api/register", json={"username": username, "password": password})
    assert r.status_code == 200, r.text
    return {"session": c.cookies.get("meeple_session"), "client": c.cookies.get("meeple_client")}


def use(c, who: dict) -> None:
    """Act as that browser: its session and its guest cookie."""
    c.cookies.clear()
    for key, cookie in (("session", "meeple_session"), ("client", "meeple_client")):
        if who.get(key):
            c.cookies.set(cookie, who[key])


# ----- accounts -------------------------------------------------------------------------------
def test_register_login_logout_me_and_password_change(c):
    ann = name("ann")
    register(c, ann)
    me = c.get("/api/me").json()
    assert me == {"username": ann, "ratings": [], "mutes": [], "bot": False, "no_bots": False}
    cookie = c.cookies.jar
    sc = next(x for x in cookie if x.name == "meeple_session")
    assert sc.has_nonstandard_attr("HttpOnly") and sc.get_nonstandard_attr("SameSite").lower() == "lax"
    assert c.post("/api/register", json={"username": ann.upper(), "password": "fresh password"}).status_code == 409
    assert c.post("/api/logout").status_code == 200
    assert c.get("/api/me").status_code == 401
    assert c.post("/api/login", json={"username": ann, "password": "wrong one"}).status_code == 401
    assert c.post("/api/login", json={"username": ann, "password": "correct horse"}).status_code == 200
    old = c.cookies.get("meeple_session")
    assert c.post("/api/password", json={"old": "nope", "new": "new password"}).status_code == 401
    assert c.post("/api/password", json={"old": "correct horse", "new": "new password"}).status_code == 200
    assert c.get("/api/me").status_code == 200  # this session stays
    c.cookies.clear()
    assert c.post("/api/login", json={"username": ann, "password": "correct horse"}).status_code == 401
    assert c.post("/api/login", json={"username": ann, "password": "new password"}).status_code == 200
    assert old != c.cookies.get("meeple_session")


@pytest.mark.parametrize("bad", ["ab", "a" * 21, "with space", "<script>", "ann!", "Bot-3",
                                 "Seat-2", "é" * 5, ""])
def test_usernames_are_3_to_20_letters_digits_underscore_or_dash(c, bad):
    r = c.post("/api/register", json={"username": bad, "password": "long enough"})
    assert r.status_code == 422 and "<script>" not in r.text
    assert c.post("/api/register", json={"username": name("ok_-"), "password": "short"}).status_code == 422


def test_wrong_passwords_slow_down_to_429_and_unknown_users_look_the_same(c):
    ann = name("ann")
    register(c, ann)
    c.cookies.clear()
    unknown = c.post("/api/login", json={"username": name("ghost"), "password": "whatever1"})
    wrong = c.post("/api/login", json={"username": ann, "password": "whatever1"})
    assert unknown.status_code == wrong.status_code == 401
    assert unknown.json() == wrong.json()  # no user enumeration by the answer
    # ... nor by the time: both verify an Argon2 hash
    times = {}
    for who in (ann, name("ghost")):
        t0 = time.perf_counter()
        c.post("/api/login", json={"username": who, "password": "whatever2"})
        times[who] = time.perf_counter() - t0
    fast, slow = sorted(times.values())
    assert slow < fast * 3 + 0.05, times
    codes = [c.post("/api/login", json={"username": ann, "password": f"guess{i}xx"}).status_code
             for i in range(5)]
    assert codes[-1] == 429 and set(codes) <= {401, 429}
    # locked for now even with the right password: brute force gets nowhere
    assert c.post("/api/login", json={"username": ann, "password": "correct horse"}).status_code == 429


def test_cross_site_posts_and_sockets_are_refused(c):
    register(c, name("ann"))
    for headers in ({"Origin": "https://evil.example"}, {"Sec-Fetch-Site": "cross-site"},
                    {"Origin": "null"}):
        r = c.post("/api/tables", json={"game": "trickarus", "players": 2}, headers=headers)
        assert r.status_code == 403 and r.json()["error"] == "cross_site", headers
        assert c.post("/api/logout", headers=headers).status_code == 403
    assert c.get("/api/me").status_code == 200  # still logged in: the cross-site logout failed
    same = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert c.post("/api/tables", json={"game": "trickarus", "players": 2}, headers=same).status_code == 200
    t = create(c)
    with pytest.raises(WebSocketDisconnect), c.websocket_connect(
            f"/ws/tables/{t['id']}", headers={"Origin": "https://evil.example"}) as ws:
        ws.receive_json()


def test_names_and_chat_are_inert_text(c):
    """XSS: a display name with markup is refused; chat is stored and sent as plain text
    (the pages insert it with textContent); control and bidi characters are dropped."""
    r = c.post("/api/tables", json={"game": "trickarus", "players": 2, "seats": [{"kind": "me"}],
                                    "name": "<img src=x onerror=alert(1)>"})
    assert r.status_code == 422
    t = create(c, players=2)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        hello(ws, 0, t["secret"])
        ws.send_json({"type": "chat", "text": "<script>alert(1)</script>\u202e\u0000 hi"})
        m = until(ws, lambda x: x["type"] == "chat")
    assert m["messages"][0]["text"] == "<script>alert(1)</script> hi"
    assert m["messages"][0]["name"] == "Ann"
    assert c.get(f"/api/tables/{t['id']}/chat").json()[0]["text"] == "<script>alert(1)</script> hi"
    for page in ("table.js", "replay.js", "player.js", "leaderboard.js", "play.js", "mygames.js"):
        # no page writes markup (reading innerHTML, as the table's change marks do, is harmless)
        assert not re.search(r"(innerHTML|outerHTML)\s*\+?=(?!=)|insertAdjacentHTML|document\.write",
                             c.get(f"/static/{page}").text)


def test_a_guest_keeps_their_seats_when_they_register(c):
    c.cookies.clear()
    c.get("/api/games")
    t = create(c, players=2, seats=[{"kind": "me"}, {"kind": "bot"}], name="Guest")
    who = register_keeping_client(c, name("ben"))
    prof = c.get(f"/api/players/{who}").json()
    assert [p["table"] for p in prof["playing"]] == [t["id"]]
    mine = c.get("/api/my/tables").json()["tables"]
    assert mine[0]["id"] == t["id"] and mine[0]["seat"] == 0 and mine[0]["my_turn"] in (True, False)
    # the account now opens that seat without the secret (the session is enough)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, None)
        assert m["type"] == "state" and m["seat"] == 0


def register_keeping_client(c, username: str) -> str:
    r = c.post("/api/register", json={"username": username, "password": "correct horse"})
    assert r.status_code == 200
    return username


def test_admin_resets_passwords_and_disables_accounts(c, url):
    ann = name("ann")
    register(c, ann)
    runner = CliRunner()
    from meeple.cli import app

    out = runner.invoke(app, ["admin", "reset-password", ann, "--password", "fresh password",
                              "--database-url", url])
    assert out.exit_code == 0, out.output
    assert c.get("/api/me").status_code == 401  # every session ended
    assert c.post("/api/login", json={"username": ann, "password": "fresh password"}).status_code == 200
    out = runner.invoke(app, ["admin", "disable", ann, "--database-url", url])
    assert out.exit_code == 0 and c.get("/api/me").status_code == 401
    c.cookies.clear()
    assert c.post("/api/login", json={"username": ann, "password": "fresh password"}).status_code == 403
    assert runner.invoke(app, ["admin", "disable", name("x"), "--database-url", url]).exit_code == 1


# ----- ratings --------------------------------------------------------------------------------
def test_plackett_luce_moves_winners_up_and_the_display_is_conservative():
    new = ratings_mod.rate([(25.0, 25 / 3)] * 3, [1, 2, 2])
    assert new[0][0] > 25 > new[1][0] == new[2][0]
    assert ratings_mod.display(25.0, 25 / 3) == 0 and ratings_mod.display(30.0, 2.0) == 960


def play_two(c, t_id: str, users: list[dict], seats: list[int], zombie: bool = False) -> dict:
    """Both players move at random (each over their own session) until the game ends."""
    rng = random.Random(3)
    socks = []
    for who in users:
        use(c, who)
        socks.append(c.websocket_connect(f"/ws/tables/{t_id}").__enter__())
    last = [hello(ws, s, None) for ws, s in zip(socks, seats, strict=True)]
    assert all(m["type"] == "state" for m in last), last
    if zombie:
        socks[1].send_json({"type": "leave"})
    while True:
        mover = next((i for i, m in enumerate(last) if m["legal"]), None)
        if last[0]["status"] == "over":
            break
        if mover is None:
            last[0] = until(socks[0], lambda x: x["type"] == "state")
            last[1] = until(socks[1], lambda x: x["type"] == "state")
            continue
        m = last[mover]
        socks[mover].send_json({"type": "move", "action": rng.choice(m["legal"])["id"],
                                "move": m["move"]})
        for i in (0, 1):
            last[i] = until(socks[i], lambda x, n=m["move"]: x["type"] == "state" and x["move"] > n)
    for ws in socks:
        ws.__exit__(None, None, None)
    return last[0]


def seated_pair(c, zombie: bool = False) -> tuple[list[dict], list[str], str]:
    names = [name("ann"), name("bob")]
    users = [register(c, n) for n in names]
    use(c, users[0])
    t = create(c, players=2, seats=[{"kind": "me"}, {"kind": "open"}], name="ignored")
    use(c, users[1])
    assert c.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": "x"}).status_code == 200
    return users, names, t["id"]


def test_a_rated_game_updates_both_ratings_leaderboard_and_profiles(c):
    users, names, tid = seated_pair(c)
    info = c.get(f"/api/tables/{tid}").json()
    assert [s["name"] for s in info["seats"]] == names and all(s["account"] for s in info["seats"])
    end = play_two(c, tid, users, [0, 1])
    assert end["status"] == "over"
    board = {}
    wait_for(lambda: len(board.update({r["username"]: r for r in
                                       c.get("/api/leaderboard/trickarus").json()}) or board) >= 2
             and all(n in board for n in names))
    assert all(board[n]["games"] == 1 and board[n]["provisional"] for n in names)
    winner = names[end["ranking"].index(1)]
    prof = c.get(f"/api/players/{winner}").json()
    assert prof["games_played"] == 1 and prof["games_won"] == 1
    assert prof["ratings"][0]["history"][0]["delta"] == prof["ratings"][0]["rating"] > 0
    assert prof["recent"][0]["replay"] == f"/replay/{tid}"
    use(c, users[0])
    assert c.get("/api/me").json()["ratings"][0]["games"] == 1
    assert c.get("/api/leaderboard/nope").status_code == 404
    assert c.get(f"/api/players/{name('ghost')}").status_code == 404


def test_a_player_who_leaves_a_rated_game_ranks_last_and_it_stays_rated(c):
    users, names, tid = seated_pair(c)
    play_two(c, tid, users, [0, 1], zombie=True)
    wait_for(lambda: c.get(f"/api/players/{names[1]}").json()["games_played"] == 1)
    left = c.get(f"/api/players/{names[1]}").json()
    assert left["recent"][0]["rated"] is True and left["recent"][0]["place"] == 2
    assert left["abandoned"] == 1 and left["timed_out"] == 0
    stayed = c.get(f"/api/players/{names[0]}").json()
    assert stayed["recent"][0]["place"] == 1 and stayed["abandoned"] == 0


def test_guest_tables_and_bot_tables_are_not_rated(c):
    t = create(c, players=2)
    assert c.app.state.ratings.is_rated(t["id"]) in (None, False)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, t["secret"])
        ws.send_json({"type": "move", "action": m["legal"][0]["id"], "move": m["move"]})
        until(ws, lambda x: x["type"] == "state" and x["move"] > m["move"])
    wait_for(lambda: c.app.state.ratings.is_rated(t["id"]) is False)


# ----- chat -----------------------------------------------------------------------------------
def test_chat_reaches_players_and_spectators_is_rate_limited_and_muted(c):
    users, names, tid = seated_pair(c)
    watcher = register(c, name("eve"))
    eve = watcher_name(c, watcher)
    with ExitStack() as stack:
        use(c, watcher)
        spy = stack.enter_context(c.websocket_connect(f"/ws/tables/{tid}"))
        hello(spy)
        use(c, users[0])
        a = stack.enter_context(c.websocket_connect(f"/ws/tables/{tid}"))
        hello(a, 0, None)
        a.send_json({"type": "chat", "text": "good luck"})
        m = until(spy, lambda x: x["type"] == "chat")
        assert m["messages"][0]["name"] == names[0] and m["messages"][0]["account"] is True
        spy.send_json({"type": "chat", "text": "hi from the rail"})
        got = until(a, lambda x: x["type"] == "chat" and x["messages"][0]["name"] != names[0])
        assert got["messages"][0]["name"] == eve
        until(spy, lambda x: x["type"] == "chat" and x["messages"][0]["name"] == eve)  # own echo
        # the watcher mutes the player: the server stops sending that player's lines to them
        use(c, watcher)
        assert c.post("/api/mutes", json={"username": names[0]}).json()["mutes"] == [names[0]]
        for i in range(6):
            a.send_json({"type": "chat", "text": f"spam {i}"})
        assert until(a, lambda x: x["type"] == "error")["code"] == "rate_limited"
        spy.send_json({"type": "ping"})
        assert until(spy, lambda x: x["type"] in ("pong", "chat"))["type"] == "pong"
        a.send_json({"type": "chat", "text": "x" * 301})
        assert until(a, lambda x: x["type"] == "error")["code"] in ("too_large", "rate_limited")
        c.cookies.clear()
        anon = stack.enter_context(c.websocket_connect(f"/ws/tables/{tid}"))
        hello(anon)
        until(anon, lambda x: x["type"] == "chat" and x["messages"])  # the history so far
        anon.send_json({"type": "chat", "text": "anonymous"})
        assert until(anon, lambda x: x["type"] == "error")["code"] == "forbidden"
    texts = [m["text"] for m in c.get(f"/api/tables/{tid}/chat").json()]
    assert texts[:2] == ["good luck", "hi from the rail"] and "anonymous" not in texts


def watcher_name(c, who: dict) -> str:
    use(c, who)
    return c.get("/api/me").json()["username"]


# ----- Play now -------------------------------------------------------------------------------
def test_play_now_seats_two_players_at_one_table_once(c):
    names = [name("p"), name("q")]
    users = [register(c, n) for n in names]
    for who in users:
        use(c, who)
        r = c.post("/api/play", json={"game": "trickarus", "players": [2]})
        assert r.status_code == 200, r.text
    wait_for(lambda: all(entries(c, who)[0]["status"] == "seated" for who in users))
    seated = [entries(c, who)[0] for who in users]
    assert seated[0]["table"] == seated[1]["table"] and {s["seat"] for s in seated} == {0, 1}
    info = c.get(f"/api/tables/{seated[0]['table']}").json()
    assert info["status"] == "running" and sorted(s["name"] for s in info["seats"]) == sorted(names)
    use(c, users[0])
    with c.websocket_connect(f"/ws/tables/{info['id']}") as ws:  # the session opens the seat
        assert hello(ws, seated[0]["seat"], None)["seat"] == seated[0]["seat"]
    assert c.post("/api/play", json={"game": "trickarus", "players": [9]}).status_code == 400
    c.cookies.clear()
    assert c.post("/api/play", json={"game": "trickarus", "players": [2]}).status_code == 401


def entries(c, who):
    use(c, who)
    return c.get("/api/play").json()["entries"]


def test_bots_fill_the_table_after_the_chosen_wait(c):
    who = register(c, name("solo"))
    use(c, who)
    c.post("/api/play", json={"game": "trickarus", "players": [3], "bot_after": 0})
    r = c.get("/api/play?wait=10").json()["entries"][0]
    assert r["status"] == "seated"
    info = c.get(f"/api/tables/{r['table']}").json()
    assert sorted(s["kind"] for s in info["seats"]) == ["bot", "bot", "human"]


def _entry(i, rating, waited, counts=(2,), bot_after=None, user=None):
    return {"id": i, "user_id": user or i, "rating": rating, "waited": waited,
            "counts": list(counts), "bot_after": bot_after}


def test_the_rating_window_widens_with_the_wait():
    far = [_entry(1, 0, 0), _entry(2, 900, 0)]
    assert _plans(far) == []
    assert len(_plans([_entry(1, 0, 20), _entry(2, 900, 20)])) == 1
    near = _plans([_entry(1, 0, 0), _entry(2, 900, 0), _entry(3, 50, 0)])
    assert [e["id"] for e in near[0]["people"]] == [1, 3]
    assert _plans([_entry(1, 0, 0, user=7), _entry(2, 0, 0, user=7)]) == []  # not with myself


def test_two_matchers_racing_never_seat_an_entry_twice(url):
    """Two servers' matchers over one queue (their rounds interleaved at random): every entry
    ends at one table, and each table's seats are exactly its entries.

    Tables of two only: a round may run between two enqueues (the machine's load decides when),
    and with sizes 2 or 3 twelve entries could then leave one player alone for good (3+2 formed
    early, 3+3 later, one left), which is right for the matcher and a flake for the test. With
    pairs, every round seats all but at most one, so an even number always ends seated."""
    with client(url) as a, client(url) as b:
        users = [register(a, name("r")) for _ in range(12)]
        for who in users:
            use(a, who)
            a.post("/api/play", json={"game": "trickarus", "players": [2]})
        store = Storage(url)
        wait_for(lambda: all(e[0]["status"] == "seated" for e in (entries(a, w) for w in users)),
                 seconds=60.0)
        seated = [entries(a, w)[0] for w in users]
        with store.engine.connect() as conn:
            for tid in {s["table"] for s in seated}:
                seats = conn.execute(seats_t.select().where(seats_t.c.table_id == tid)).all()
                assert len(seats) == sum(s["table"] == tid for s in seated)
        assert b  # both servers ran their matchers the whole time


# ----- migration ------------------------------------------------------------------------------
def test_migration_upgrades_a_database_with_games_in_progress(tmp_path):
    """Yesterday's schema (0002) holding running tables; upgrade; both games finish."""
    url = f"sqlite:///{tmp_path / 'old.db'}"
    old = Storage(url)
    old.migrate("0002")
    from meeple.server.tables import hash_secret

    rng = random.Random(5)
    ids = []
    with old.engine.begin() as conn:
        for k in range(2):
            tid = f"0dd{k}"
            ids.append(tid)
            conn.execute(insert(tables_t).values(
                id=tid, game="trickarus", players=2, seed=77 + k,
                options=meeple.game_info("trickarus").resolve_options(2, {}), status="running", host_hash="h" * 64,
                time_limit=None, rematch_of=None, rematch=None,
                created_at=datetime.now(UTC), updated_at=datetime.now(UTC)))
            conn.exec_driver_sql(
                "INSERT INTO meeple_seats (table_id, seat, kind, name, level, secret_hash, zombie,"
                " client_hash) VALUES (?, 0, 'human', 'Ann', NULL, ?, 0, NULL),"
                " (?, 1, 'bot', 'Bot 2 (random)', 'random', NULL, 0, NULL)",
                (tid, hash_secret(f"secret-{tid}-xyz"), tid))
    for tid in ids:  # a few moves already logged on the old schema
        for n in range(3):
            state = meeple.make("trickarus", 2, 77 + int(tid[-1]),
                                **meeple.game_info("trickarus").resolve_options(2, {}))
            for a in old.actions(tid):
                state.apply(a)
            if state.to_move is None:
                break
            with old.engine.begin() as conn:  # as the 0002 code logged a move (no version yet)
                conn.execute(insert(actions_t).values(
                    table_id=tid, n=n, seat=state.to_move,
                    action=rng.choice(state.legal_actions()), at=datetime.now(UTC)))
    old.dispose()
    with client(url) as c:  # migrates to head at start, resumes both tables
        for tid in ids:
            with c.websocket_connect(f"/ws/tables/{tid}") as ws:
                m = hello(ws, 0, f"secret-{tid}-xyz")
                assert m["type"] == "state", m
                while m["status"] != "over":
                    if m["legal"]:
                        ws.send_json({"type": "move", "action": rng.choice(m["legal"])["id"],
                                      "move": m["move"]})
                    m = until(ws, lambda x, n=m["move"]: x["type"] == "state"
                              and (x["move"] > n or x["status"] == "over"))
            assert c.get(f"/api/tables/{tid}/replay").status_code == 200
