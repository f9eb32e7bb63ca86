"""Many servers, for real: races across two or three `meeple serve` processes on one
PostgreSQL and Redis, with kill -9. Each test failed before the fix (see docs/web.md, *Tests*).

Runs when MEEPLE_TEST_POSTGRES_URL and MEEPLE_TEST_REDIS_URL are set.
"""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import select
from websockets.sync.client import connect

from meeple.server.storage import Storage, actions_t
from server_proc import Server, browser, fresh_database, needs_services, wait_until

pytestmark = [needs_services, pytest.mark.postgres, pytest.mark.redis]


@pytest.fixture(scope="module")
def db():
    url, drop = fresh_database()
    yield url
    drop()


@pytest.fixture(scope="module")
def pair(db):
    servers = [Server(db), Server(db)]
    yield servers
    for s in servers:
        s.stop()


def hello(server: Server, table: str, seat: int | None = None, secret: str | None = None):
    ws = connect(f"{server.ws}/ws/tables/{table}", open_timeout=10, legacy=True)
    ws.send(json.dumps({"type": "hello", "seat": seat, "secret": secret}))
    return ws, json.loads(ws.recv(timeout=10))


def recv_until(ws, pred, seconds: float = 15.0):
    end = time.monotonic() + seconds
    while True:
        msg = json.loads(ws.recv(timeout=max(0.01, end - time.monotonic())))
        if pred(msg):
            return msg


def new_table(server: Server, seats: list[dict], name: str | None = "Ann", **extra):
    status, t = server.post("/api/tables", {"game": "trickarus", "players": len(seats),
                                            "seats": seats, "name": name, **extra},
                            browser=browser())
    assert status == 200, t
    return t


def test_a_seat_taken_on_one_server_opens_at_once_on_the_other(pair):
    """Join on A, hello on B within the same moment: B reads the join before refusing."""
    a, b = pair
    refused = 0
    for _ in range(12):
        t = new_table(a, [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "level": "random"}])
        watcher, _ = hello(b, t["id"])  # B has the table open (and an old copy of its seats)
        status, j = a.post(f"/api/tables/{t['id']}/join", {"seat": 1, "name": "Bo"}, browser=browser())
        assert status == 200, j
        ws, first = hello(b, t["id"], 1, j["secret"])
        refused += first["type"] == "error"
        ws.close()
        watcher.close()
    assert refused == 0


def test_joins_racing_on_two_servers_start_every_table(pair, db):
    """Two seats taken at once on two servers: the table starts (the start is decided with the
    last seat, in the database), never stays open with every seat taken."""
    a, b = pair
    ids = []
    with ThreadPoolExecutor(4) as pool:
        for _ in range(12):
            t = new_table(a, [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}])
            hello(b, t["id"])[0].close()  # B loads it too
            futures = [pool.submit(srv.post, f"/api/tables/{t['id']}/join",
                                   {"seat": seat, "name": f"P{seat}"}, browser=browser())
                       for srv, seat in ((a, 1), (b, 2))]
            assert all(f.result()[0] == 200 for f in futures)
            ids.append(t["id"])
    store = Storage(db)
    stuck = [tid for tid in ids if store.load_table(tid).status != "running"]
    store.dispose()
    assert stuck == []


def _finished_table(server: Server, db: str) -> dict:
    """A finished 3-seat table with one person (who left at once, so the bots played it out)."""
    t = new_table(server, [{"kind": "me"}] + [{"kind": "bot", "level": "random"}] * 2)
    ws, _ = hello(server, t["id"], 0, t["secret"])
    ws.send(json.dumps({"type": "leave"}))
    recv_until(ws, lambda m: m.get("type") == "state" and m["status"] == "over", 60)
    ws.close()
    return t


def test_rematch_pressed_at_once_on_two_servers_makes_one_table(pair, db):
    a, b = pair
    for _ in range(6):
        t = _finished_table(a, db)
        hello(b, t["id"])[0].close()
        with ThreadPoolExecutor(2) as pool:
            fa = pool.submit(a.post, f"/api/tables/{t['id']}/rematch",
                             {"seat": 0, "secret": t["secret"]}, browser=browser())
            fb = pool.submit(b.post, f"/api/tables/{t['id']}/rematch", {"secret": t["host"]},
                             browser=browser())
            (sa, ra), (sb, rb) = fa.result(), fb.result()
        assert sa == sb == 200, (ra, rb)
        assert ra["id"] == rb["id"]


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_one_server_drives_a_tables_bots(db):
    """Both servers have the table of thinking bots open; only one thinks (CPU time: the
    driver's thinking dwarfs the other's following), and its moves are the only ones logged."""
    servers = [Server(db), Server(db)]
    try:
        a, b = servers
        t = new_table(a, [{"kind": "bot", "level": "hard"}] * 3, name=None)  # a search: thinking dwarfs following
        wa, _ = hello(a, t["id"])
        wb, _ = hello(b, t["id"])
        store = Storage(db)
        wait_until(lambda: len(store.actions(t["id"])) >= 2, 30)
        before = [_cpu(s.proc.pid) for s in servers]
        wait_until(lambda: len(store.actions(t["id"])) >= 14, 60)
        used = sorted(_cpu(s.proc.pid) - x for s, x in zip(servers, before, strict=True))
        store.dispose()
        wa.close()
        wb.close()
        assert used[0] < 0.5 * used[1], used
    finally:
        for s in servers:
            s.stop()


def _seats_played(store: Storage, table_id: str) -> set[int]:
    """The seats with a logged move (a person who never moved: their turn was skipped)."""
    with store.engine.connect() as conn:
        return set(conn.execute(select(actions_t.c.seat).where(
            actions_t.c.table_id == table_id)).scalars())


def test_a_dead_servers_bots_and_clocks_move_on_elsewhere(db):
    """kill -9 the server driving an all-bot table and a timed table: the other server, which
    has neither open, takes both over within a few seconds."""
    a, b = Server(db, bot_delay=0.3), Server(db, bot_delay=0.3)
    try:
        bots = new_table(a, [{"kind": "bot", "level": "random"}] * 3, name=None)
        timed = new_table(a, [{"kind": "me"}] + [{"kind": "bot", "level": "random"}] * 2,
                          time_limit=2.0)
        store = Storage(db)
        wait_until(lambda: len(store.actions(bots["id"])) >= 2)
        a.kill()
        n = len(store.actions(bots["id"]))
        wait_until(lambda: len(store.actions(bots["id"])) > n + 2, 12)
        wait_until(lambda: 0 in _seats_played(store, timed["id"]), 12)  # the clock ran out there
        store.dispose()
    finally:
        a.kill()
        b.stop()


def test_time_lost_to_a_crash_is_not_charged_to_the_player():
    """A 6 s clock; the only server dies 1 s in and is back 4 s later: the player still has
    most of their time, and their seat is not handed to a bot. (A database of its own: a
    server of another test would rightly take the table over and run its clock.)"""
    url, drop = fresh_database()
    a = Server(url, redis_url=None)
    try:
        t = new_table(a, [{"kind": "me"}] + [{"kind": "bot", "level": "random"}] * 2, time_limit=6.0)
        ws, first = hello(a, t["id"], 0, t["secret"])
        assert first["legal"]
        ws.close()
        time.sleep(1.0)
        a.kill()
        time.sleep(4.0)
        a.start()
        ws, back = hello(a, t["id"], 0, t["secret"])
        ws.close()
        assert not back["seats"][0]["zombie"] and back["legal"]
        assert back["deadline"] - time.time() > 3.0
    finally:
        a.stop()
        drop()


def test_a_lost_pubsub_message_costs_only_seconds(db):
    """Server A publishes nothing (as if every message were lost); the player on B still gets
    A's moves, and so does a player who reconnects to B."""
    a, b = Server(db, redis_url=None), Server(db)
    try:
        t = new_table(a, [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "level": "random"}])
        status, j = a.post(f"/api/tables/{t['id']}/join", {"seat": 1, "name": "Bo"}, browser=browser())
        assert status == 200
        wb, mb = hello(b, t["id"], 1, j["secret"])
        wa, ma = hello(a, t["id"], 0, t["secret"])
        wa.send(json.dumps({"type": "move", "action": ma["legal"][0]["id"], "move": 0}))
        got = recv_until(wb, lambda m: m.get("type") == "state" and m["move"] >= 1, 6)
        assert got["legal"]
        wa.close()
        wb.close()
    finally:
        a.stop()
        b.stop()


def test_chaos_kill9_loses_no_acknowledged_move_or_seat(db):
    """Three servers, players moving on random servers, one server killed -9 and restarted at
    random moments: every acknowledged join and move is in the log, every seat secret opens
    its seat on every server."""
    rng = random.Random(16)
    servers = [Server(db), Server(db), Server(db)]
    try:
        _chaos(rng, servers, db)
    finally:
        for s in servers:
            s.stop()


def _chaos(rng: random.Random, servers: list[Server], db: str) -> None:
    acked_moves: dict[str, dict[int, int]] = {}
    seats: dict[str, dict[int, str]] = {}
    errors: list[str] = []
    stop = threading.Event()

    def alive() -> list[Server]:
        return [s for s in servers if s.proc is not None and s.proc.poll() is None]

    def player(table: str, seat: int, secret: str, prng: random.Random) -> None:
        while not stop.is_set():
            srv = prng.choice(alive() or servers)
            try:
                ws, m = hello(srv, table, seat, secret)
            except Exception:
                time.sleep(0.2)
                continue
            try:
                if m.get("type") == "error":
                    if m["code"] == "forbidden":
                        errors.append(f"{table}/{seat} refused on {srv.port}")
                    continue
                while not stop.is_set() and m["status"] != "over":
                    if m.get("type") == "state" and m["legal"]:
                        choice = prng.choice(m["legal"])["id"]
                        ws.send(json.dumps({"type": "move", "action": choice, "move": m["move"]}))
                        want = m["move"]
                        m = recv_until(ws, lambda x, w=want: x.get("type") != "state" or x["move"] > w, 10)
                        if m.get("type") == "state":
                            acked_moves.setdefault(table, {})[want] = choice
                    else:
                        m = json.loads(ws.recv(timeout=10))
                if m.get("status") == "over":
                    return
            except Exception:
                time.sleep(0.1)  # the server died under us: reconnect somewhere
            finally:
                ws.close()

    threads = []
    for i in range(6):
        creator = servers[i % 3]
        t = new_table(creator, [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "level": "random"}])
        joiner = servers[(i + 1) % 3]
        status, j = joiner.post(f"/api/tables/{t['id']}/join", {"seat": 1, "name": "Bo"},
                                browser=browser())
        assert status == 200, j
        seats[t["id"]] = {0: t["secret"], 1: j["secret"]}
        for seat, secret in seats[t["id"]].items():
            threads.append(threading.Thread(target=player, daemon=True, args=(
                t["id"], seat, secret, random.Random(rng.random()))))
    for th in threads:
        th.start()
    try:
        for _ in range(3):
            time.sleep(rng.uniform(0.5, 2.0))
            victim = rng.choice(servers)
            victim.kill()
            time.sleep(rng.uniform(0.2, 1.0))
            victim.start()
        time.sleep(2.0)
    finally:
        stop.set()
        for th in threads:
            th.join(15)
    store = Storage(db)
    for tid, moves in acked_moves.items():
        log = store.actions(tid)
        for n, action in moves.items():
            assert n < len(log) and log[n] == action, (tid, n)
    for tid, by_seat in seats.items():
        for s in servers:
            for seat, secret in by_seat.items():
                ws, m = hello(s, tid, seat, secret)
                ws.close()
                assert m["type"] == "state" and m["seat"] == seat, m
    store.dispose()
    assert sum(len(m) for m in acked_moves.values()) > 10
    assert errors == []


def _holder(db: str, table_id: str) -> str | None:
    import sqlalchemy as sa

    engine = sa.create_engine(db)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text("SELECT holder FROM meeple_leases WHERE table_id = :t"),
                                {"t": table_id}).scalar()
    finally:
        engine.dispose()


def test_servers_whose_clocks_disagree_agree_on_leases(db):
    """Server B's clock is 30 s ahead of A's, server C's 30 s behind. B must not take A's living
    table (its lease looks expired by B's clock); when A dies, C must take it over within
    seconds (by C's clock the lease would last 30 s more). Time is the database's."""
    a = Server(db, bot_delay=0.3)
    b = c = None
    try:
        t = new_table(a, [{"kind": "bot", "level": "random"}] * 3, name=None)
        store = Storage(db)
        wait_until(lambda: len(store.actions(t["id"])) >= 2)
        held = _holder(db, t["id"])
        b = Server(db, bot_delay=0.3, env={"MEEPLE_CLOCK_SKEW": "30"})
        time.sleep(3.0)  # two lease periods: B's orphan scans have run
        assert _holder(db, t["id"]) == held
        b.stop()
        c = Server(db, bot_delay=0.3, env={"MEEPLE_CLOCK_SKEW": "-30"})
        a.kill()
        n = len(store.actions(t["id"]))
        wait_until(lambda: len(store.actions(t["id"])) > n + 2, 12)
        store.dispose()
    finally:
        for s in (a, b, c):
            if s is not None:
                s.kill()


def test_a_player_on_another_server_is_not_away(db):
    """The player's socket is on B; the host asks A to hand the seat to a bot. A has never held
    that socket, but the player is not away: refused. Once the player has really left (socket
    closed for longer than the wait), the same request works."""
    env = {"MEEPLE_SEAT_GONE_SECONDS": "2"}
    a, b = Server(db, env=env), Server(db, env=env)
    try:
        t = new_table(a, [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "level": "random"}])
        status, j = b.post(f"/api/tables/{t['id']}/join", {"seat": 1, "name": "Bo"},
                           browser=browser())
        assert status == 200, j
        ws, _ = hello(b, t["id"], 1, j["secret"])
        host, _ = hello(a, t["id"], 0, t["secret"])  # the host's own seat is here
        time.sleep(3.0)
        status, r = a.post(f"/api/tables/{t['id']}/replace", {"host": t["host"], "seat": 1})
        assert (status, r.get("error")) == (409, "not_gone"), r
        ws.close()
        time.sleep(3.0)
        status, r = a.post(f"/api/tables/{t['id']}/replace", {"host": t["host"], "seat": 1})
        assert status == 200, r
        host.close()
    finally:
        a.stop()
        b.stop()


def _scrape(server: Server, name: str) -> float:
    """One unlabelled sample of a server's /metrics (0 when absent)."""
    status, text = server.get("/metrics")
    assert status == 200
    for line in str(text).splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def _snapshots(server: Server) -> float:
    """How many times a server has read a table from the database (its load or catch-up)."""
    status, text = server.get("/metrics")
    assert status == 200
    for line in str(text).splitlines():
        if line.startswith('meeple_db_call_seconds_count{call="snapshot"}'):
            return float(line.split()[1])
    return 0.0


def test_a_hung_drivers_clock_does_not_fire_after_a_takeover(own_db):
    """The server driving a timed table hangs (SIGSTOP) past the seat's deadline; the other one
    takes the table over and credits the time nobody drove it. When the hung one wakes
    (SIGCONT) its own timer, set for the old deadline, must not hand the seat to a bot: the
    stored deadline (moved on) and the lease (no longer its own) say no. The taker, which has
    the table open for its player, shows the credited deadline without reading the table
    again (its copy, one version behind the takeover's, takes the credit as the takeover
    stored it; a copy left behind would be read again by the next resync). A database of its
    own: no other test's table is there for B to take over and read."""
    db = own_db
    env = {"MEEPLE_LEASE_SECONDS": "3"}
    a, b = Server(db, env=env), Server(db, env=env)
    try:
        t = new_table(a, [{"kind": "me"}] + [{"kind": "bot", "level": "random"}] * 2,
                      time_limit=6.0)
        held = wait_until(lambda: _holder(db, t["id"]))
        ws, first = hello(b, t["id"], 0, t["secret"])  # the player is on B, A drives
        first = first if first["legal"] else recv_until(ws, lambda m: m.get("legal"))
        deadline = first["deadline"]
        time.sleep(0.3)
        reads = _snapshots(b)
        os.kill(a.proc.pid, signal.SIGSTOP)
        try:
            wait_until(lambda: _holder(db, t["id"]) not in (None, held), 12)  # B took it
            store = Storage(db)
            moved_to = store.load_table(t["id"]).deadline
            assert moved_to > deadline + 2.0, (moved_to, deadline)  # the hang was credited
            taken = time.monotonic()
            recv_until(ws, lambda m: m.get("type") == "state" and m["deadline"] == moved_to, 5)
            time.sleep(max(0.0, deadline + 0.5 - time.time()))  # A's own deadline has passed
            time.sleep(max(0.0, taken + 2.5 - time.monotonic()))  # and B resynced since
            assert _snapshots(b) == reads  # neither the takeover nor a resync read the table
        finally:
            os.kill(a.proc.pid, signal.SIGCONT)
        end = min(moved_to - 0.5, time.time() + 2.0)
        while time.time() < end:
            assert 0 not in _seats_played(store, t["id"]), "a stale timer fired"
            time.sleep(0.05)
        # the clock still runs, on B: past the moved deadline a bot plays the seat's turn
        wait_until(lambda: 0 in _seats_played(store, t["id"]), moved_to - time.time() + 8)
        assert not store.load_table(t["id"]).seats[0].zombie  # and the seat stays its player's
        store.dispose()
        ws.close()
    finally:
        os.kill(a.proc.pid, signal.SIGCONT)
        a.kill()
        b.stop()


@pytest.fixture()
def own_db():
    """A database of its own: the test counts every move its servers log."""
    url, drop = fresh_database()
    yield url
    drop()


def test_a_hung_bot_driver_woken_after_a_takeover_logs_nothing(own_db):
    """A drives an all-bot table and hangs (SIGSTOP) between bot moves; B takes the lease over
    (and waits 1.5 s before each bot move). A wakes right then, its bot move for the table's
    current position already due: it must be refused (B drives now), so A logs no move after
    the takeover, and both servers end the game in the same state, each move applied once."""
    a = Server(own_db, bot_delay=0.3)
    b = Server(own_db, bot_delay=1.5)
    try:
        t = new_table(a, [{"kind": "bot", "level": "random"}] * 3, name=None)
        store = Storage(own_db)
        wait_until(lambda: len(store.actions(t["id"])) >= 2)
        held = _holder(own_db, t["id"])
        os.kill(a.proc.pid, signal.SIGSTOP)
        try:
            wait_until(lambda: _holder(own_db, t["id"]) not in (None, held), 12, every=0.01)
            taken_at = len(store.actions(t["id"]))
        finally:
            os.kill(a.proc.pid, signal.SIGCONT)
        wait_until(lambda: len(store.actions(t["id"])) >= taken_at + 3, 30)

        def same_on_both() -> bool:  # between two of B's moves (1.5 s apart): a quiet moment
            logged = len(store.actions(t["id"]))
            seen = []
            for server in (a, b):
                ws, state = hello(server, t["id"])
                ws.close()
                seen.append(state)
            if not (seen[0]["move"] == seen[1]["move"] == logged == len(store.actions(t["id"]))):
                return False
            assert seen[0]["view"] == seen[1]["view"]
            return True

        wait_until(same_on_both, 20)
        # A logged exactly the moves made before B took over; B all the others
        logged = len(store.actions(t["id"]))
        by = [_scrape(s, "meeple_moves_total") for s in (a, b)]
        assert by == [taken_at, logged - taken_at], (by, taken_at, logged)
        store.dispose()
    finally:
        os.kill(a.proc.pid, signal.SIGCONT)
        a.kill()
        b.stop()


def _presence_rows(db: str, table_id: str) -> list[tuple[int, float]]:
    import sqlalchemy as sa

    engine = sa.create_engine(db)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(
                "SELECT seat, seen_at FROM meeple_presence WHERE table_id = :t ORDER BY seat"),
                {"t": table_id})]
    finally:
        engine.dispose()


def test_presence_rows_are_forgotten_once_they_cannot_matter(own_db):
    """Each server stores when it last held a seat's socket; a row older than twice the wait
    for an away seat, or of a finished table, answers nothing: it is deleted, so the table
    does not grow with every seat ever played (before: kept for ever)."""
    env = {"MEEPLE_SEAT_GONE_SECONDS": "1"}
    a, b = Server(own_db, env=env), Server(own_db, env=env)
    try:
        t = new_table(a, [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "level": "random"}])
        status, j = b.post(f"/api/tables/{t['id']}/join", {"seat": 1, "name": "Bo"},
                           browser=browser())
        assert status == 200, j
        ws, _ = hello(b, t["id"], 1, j["secret"])
        host, _ = hello(a, t["id"], 0, t["secret"])
        wait_until(lambda: [s for s, _ in _presence_rows(own_db, t["id"])] == [0, 1])
        ws.close()  # seat 1 leaves; seat 0 stays
        wait_until(lambda: [s for s, _ in _presence_rows(own_db, t["id"])] == [0], 12)
        time.sleep(3.0)  # seat 0 is still held: its row stays, renewed
        assert [s for s, _ in _presence_rows(own_db, t["id"])] == [0]
        host.close()
        wait_until(lambda: _presence_rows(own_db, t["id"]) == [], 12)
    finally:
        a.stop()
        b.stop()


def test_a_seat_connected_on_another_server_shows_connected(own_db):
    """The host's socket is on A, the other player's on B: A's state shows that player
    connected (before: away, since A never held that socket); once the player leaves, A shows
    them away within seconds."""
    env = {"MEEPLE_SEAT_GONE_SECONDS": "2"}
    a, b = Server(own_db, env=env), Server(own_db, env=env)
    try:
        t = new_table(a, [{"kind": "me"}, {"kind": "open"}, {"kind": "bot", "level": "random"}])
        status, j = b.post(f"/api/tables/{t['id']}/join", {"seat": 1, "name": "Bo"},
                           browser=browser())
        assert status == 200, j
        host, first = hello(a, t["id"], 0, t["secret"])
        seats = first["seats"]
        ws, _ = hello(b, t["id"], 1, j["secret"])

        def seat1(connected: bool):
            def pred(m: dict) -> bool:
                return m.get("type") in ("state", "seats") and \
                    m["seats"][1]["connected"] is connected
            return pred

        if seats[1]["connected"] is not True:
            recv_until(host, seat1(True), 8)
        ws.close()
        gone = recv_until(host, seat1(False), 12)
        assert "away" in gone["seats"][1]
        host.close()
    finally:
        a.stop()
        b.stop()


def test_a_table_just_started_stays_with_the_server_that_started_it(own_db):
    """A leases the tables it starts a moment after the start commits. A is paused (SIGSTOP)
    again and again, for less than a lease's time but more than B's lease round, while
    tables start on it: a table caught between its start and its lease must still end up
    leased by A, not taken by B's round (B would drive it from a server none of its sockets
    is on, every move then costing a publish)."""
    # bots that never move in the test's time: the tables stay running and need a driver. A's
    # leases last 3 s (renewed every 1 s), so its own survive its pauses; B's round runs
    # every 0.5 s, so it looks during each pause
    a = Server(own_db, bot_delay=60, env={"MEEPLE_NODE_ID": "starter", "MEEPLE_LEASE_SECONDS": "3"})
    b = Server(own_db, bot_delay=60, env={"MEEPLE_NODE_ID": "other"})
    started: list[str] = []
    errors: list[str] = []
    stop = threading.Event()

    def start_tables() -> None:
        while not stop.is_set():
            status, t = a.post("/api/tables", {"game": "trickarus", "players": 3,
                                               "seats": [{"kind": "bot", "level": "random"}] * 3},
                               browser=browser())
            if status == 200:
                started.append(t["id"])
            else:
                errors.append(f"{status} {t}"[:200])
            time.sleep(0.05)  # A keeps up with its leases' renewals (else they lapse, rightly)

    try:
        with ThreadPoolExecutor(8) as pool:
            for _ in range(8):
                pool.submit(start_tables)
            for _ in range(12):
                time.sleep(0.7)  # a table sees one pause at most between its start and lease
                a.proc.send_signal(signal.SIGSTOP)
                time.sleep(0.8)  # > B's round (0.5 s), < B's lease time (1.5 s)
                a.proc.send_signal(signal.SIGCONT)
            stop.set()
        time.sleep(2.0)  # A's claims after its last pause, and B's rounds after them
        import sqlalchemy as sa

        engine = sa.create_engine(own_db)
        with engine.connect() as conn:
            holders = dict(conn.execute(sa.text("SELECT table_id, holder FROM meeple_leases")).all())
        engine.dispose()
    finally:
        stop.set()
        a.proc.send_signal(signal.SIGCONT)
        a.stop()
        b.stop()
    assert errors == [] and len(started) > 40
    taken = [t for t in started if not (holders.get(t) or "").startswith("starter:")]
    assert taken == [], (f"{len(taken)} of {len(started)} tables not leased by their starter: "
                         f"{[holders.get(t) for t in taken][:5]}")
