"""Time as Board Game Arena keeps it (server/clocks.py): real-time clocks (a bank plus an
increment per turn, running only on the owner's turn), turn-based deadlines, the time-out
rules (skip that turn once; or the others vote), votes on absent players (matched tables
too, no host), and ratings counting a time-out or a leaver as last place."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import insert, select

import meeple
from meeple.server import clocks
from meeple.server.clocks import abandons_t
from meeple.server.schema_players import results_t
from meeple.server.storage import SeatRecord, Storage, TableRecord, tables_t
from meeple.server.tables import LiveTable
from server_util import client, create, hello, join, until, wait_for
from test_accounts import c, entries, name, play_two, register, url, use  # noqa: F401

REAL = {"mode": "realtime", "bank": 60.0, "increment": 5.0, "on_timeout": "skip"}


def live(speed: dict, game: str = "trickarus", players: int = 2, now: float = 1000.0) -> LiveTable:
    options = meeple.game_info(game).resolve_options(players, {})
    rec = TableRecord(id="t", game=game, players=players, seed=5, options=options, host_hash="",
                      status="running", speed=clocks.Speed.model_validate(speed).model_dump(),
                      seats=[SeatRecord(n, "human", name=f"P{n}") for n in range(players)])
    clocks.start(rec, now)
    return LiveTable(rec=rec, state=meeple.make(game, players, 5, **options), deadline=rec.deadline)


def play(t: LiveTable, action: int, now: float) -> None:
    """What `TableManager.move` does with the clocks, without a database."""
    deadline, state = clocks.after_move(t, action, now)
    if state is not None:
        t.rec.clocks = state
    t.state.apply(action)
    t.deadline = t.rec.deadline = deadline


def test_a_real_time_clock_is_a_bank_plus_an_increment_and_runs_only_on_its_turn():
    t = live(REAL, game="zarcana")
    assert t.deadline == 1060.0 and clocks.remaining(t, 1000.0) == [60.0, 60.0]
    now, banks = 1000.0, [60.0, 60.0]
    passed = kept = 0
    while passed < 6 and not t.state.is_over():
        mover = t.state.to_move
        now += 7.0
        shown = clocks.remaining(t, now)
        other = 1 - mover
        assert shown[mover] == pytest.approx(banks[mover] - 7.0)  # the mover's clock runs
        assert shown[other] == pytest.approx(banks[other])  # the other's does not
        before = t.deadline
        play(t, t.state.legal_actions()[0], now)
        if t.state.to_move == mover:  # the same turn goes on: the same clock, no increment
            kept += 1
            assert t.deadline == before
            banks[mover] -= 7.0
            continue
        passed += 1
        banks[mover] = banks[mover] - 7.0 + 5.0
        assert json.loads(t.rec.clocks)["banks"][mover] == pytest.approx(banks[mover])
        assert t.deadline == pytest.approx(now + banks[other])
        now_banks = clocks.remaining(t, now)
        assert now_banks == pytest.approx([banks[0], banks[1]])
        banks[mover] = now_banks[mover]
    assert passed == 6 and kept > 0  # Zarcana's turns take several steps


def test_a_turn_based_deadline_is_per_turn_and_a_skipped_turn_refills_the_bank():
    t = live({"mode": "turn", "per_move": 86400.0})
    assert t.deadline == 1000.0 + 86400 and clocks.remaining(t, 1000.0) is None
    mover = t.state.to_move
    play(t, t.state.legal_actions()[0], 5000.0)
    assert t.state.to_move != mover and t.deadline == 5000.0 + 86400
    r = live({**REAL, "increment": 2.0})
    mover = r.state.to_move
    r.rec.clocks = clocks.dump({**json.loads(r.rec.clocks), "skip": mover})
    assert r.bot_plays(mover)  # a skipped turn is a bot's to play
    play(r, r.state.legal_actions()[0], 1100.0)  # 40 s late
    assert json.loads(r.rec.clocks)["banks"][mover] == 6.0  # a tenth of the bank, over 2 s
    assert not r.bot_plays(mover) and clocks.skipping(r.rec) is None


def test_old_time_per_move_tables_read_as_clocks():
    assert clocks.legacy(30.0)["bank"] == 30.0 and clocks.legacy(30.0)["increment"] == 30.0
    assert clocks.legacy(86400.0)["mode"] == "turn" and clocks.legacy(86400.0)["per_move"] == 86400.0
    assert clocks.legacy(None) is None
    with pytest.raises(ValueError):
        clocks.Speed.model_validate({"mode": "turn", "bank": 60})


def test_leavers_and_time_outs_share_the_last_place():
    assert clocks.places([1, 2, 3], {0}) == [3, 1, 2]
    assert clocks.places([1, 2, 2, 4], {1, 3}) == [1, 3, 2, 3]
    assert clocks.places([2, 1], set()) == [2, 1]


def answer(ws) -> dict:
    """The answer to a vote: the vote's outcome or a refusal."""
    return until(ws, lambda x: x["type"] in ("vote", "error"))


def first_mover(web, tid: str) -> int:
    return web.get(f"/api/tables/{tid}").json()["to_move"]


def test_a_clock_that_runs_out_skips_that_turn_once_and_the_seat_stays_its_players(tmp_path):
    with client(f"sqlite:///{tmp_path / 'skip.db'}") as web:
        speed = {"mode": "realtime", "bank": 1, "increment": 30, "on_timeout": "skip"}
        t = create(web, players=2, seats=[{"kind": "me"}, {"kind": "bot", "level": "random"}],
                   speed=speed)
        with web.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            m = hello(ws, 0, t["secret"])
            if not m["legal"]:
                m = until(ws, lambda x: x["type"] == "state" and bool(x["legal"]))
            assert m["clocks"][0] <= 1.0 and m["speed"]["on_timeout"] == "skip"
            skipped = until(ws, lambda x: x["type"] == "state" and x["skipping"] == 0)
            assert skipped["move"] == m["move"] and not skipped["legal"]
            assert skipped["clocks"][0] == 0 and not skipped["seats"][0]["zombie"]
            back = until(ws, lambda x: x["type"] == "state" and bool(x["legal"]))
            assert back["move"] > m["move"] and back["skipping"] is None
            assert back["seats"][0]["kind"] == "human" and not back["seats"][0]["zombie"]
            assert 20 < back["clocks"][0] <= 30  # refilled by the increment, running again
            ws.send_json({"type": "move", "action": back["legal"][0]["id"], "move": back["move"]})
            until(ws, lambda x: x["type"] == "state" and x["move"] > back["move"])
        with web.app.state.storage.engine.connect() as conn:
            rows = conn.execute(select(abandons_t.c.seat, abandons_t.c.reason).where(
                abandons_t.c.table_id == t["id"])).all()
        assert rows == [(0, "timeout")]


def test_under_the_vote_rule_the_others_vote_out_a_player_whose_clock_ran_out(tmp_path):
    with client(f"sqlite:///{tmp_path / 'vote.db'}") as web:
        speed = {"mode": "realtime", "bank": 3, "increment": 30, "on_timeout": "vote"}
        t = create(web, players=2, seats=[{"kind": "me"}, {"kind": "open"}], speed=speed)
        bob = join(web, t["id"], 1, "Bob").json()
        secrets = {0: t["secret"], 1: bob["secret"]}
        late = first_mover(web, t["id"])
        other = 1 - late
        with web.websocket_connect(f"/ws/tables/{t['id']}") as wl, \
                web.websocket_connect(f"/ws/tables/{t['id']}") as wo:
            hello(wl, late, secrets[late])
            m = hello(wo, other, secrets[other])
            wo.send_json({"type": "vote", "seat": late})  # too early: still on the clock
            assert answer(wo)["code"] == "not_gone"
            out = until(wo, lambda x: x["type"] == "state" and x["timed_out"] == [late])
            assert out["move"] == m["move"] and out["skipping"] is None  # nobody played for them
            wo.send_json({"type": "vote", "seat": late})
            assert answer(wo)["replaced"] is True
            gone = until(wo, lambda x: x["type"] == "state" and x["seats"][late]["kind"] == "bot")
            assert gone["timed_out"] == []
            until(wo, lambda x: x["type"] == "state" and x["move"] > m["move"])  # the bot plays


def test_an_absent_player_is_voted_out_of_a_matched_table_without_a_host(url):  # noqa: F811
    with client(url, absent_seconds=0.5) as web:
        users = [register(web, name("p")), register(web, name("q"))]
        for who in users:
            use(web, who)
            assert web.post("/api/play", json={"game": "trickarus", "players": [2]}).status_code == 200
        wait_for(lambda: all(entries(web, who)[0]["status"] == "seated" for who in users))
        seats = [entries(web, who)[0]["seat"] for who in users]
        tid = entries(web, users[0])[0]["table"]
        info = web.get(f"/api/tables/{tid}").json()
        assert info["speed"]["bank"] is None  # no time limit: only the vote unblocks it
        use(web, users[1])
        away = web.websocket_connect(f"/ws/tables/{tid}").__enter__()
        hello(away, seats[1], None)
        use(web, users[0])
        with web.websocket_connect(f"/ws/tables/{tid}") as ws:
            m = hello(ws, seats[0], None)
            assert m["speed"]["absent"] == 0.5
            ws.send_json({"type": "vote", "seat": seats[1]})  # they are here: no
            assert answer(ws)["code"] == "not_gone"
            away.__exit__(None, None, None)
            left = time.monotonic()
            while True:  # away 0.5 s (as the server sees the socket close): yes
                time.sleep(0.2)
                ws.send_json({"type": "vote", "seat": seats[1]})
                got = answer(ws)
                if got["type"] == "vote":
                    break
                assert got["code"] == "not_gone" and time.monotonic() < left + 20
            assert got["replaced"] is True and time.monotonic() - left >= 0.5
        who = web.get(f"/api/tables/{tid}").json()["seats"]
        assert who[seats[1]]["kind"] == "bot" and who[seats[0]]["kind"] == "human"


def test_a_rated_player_who_times_out_ranks_last_and_the_profile_says_so(c):  # noqa: F811
    names = [name("ann"), name("bob")]
    users = [register(c, n) for n in names]
    use(c, users[0])
    speed = {"mode": "realtime", "bank": 3, "increment": 600, "on_timeout": "skip"}
    t = create(c, players=2, seats=[{"kind": "me"}, {"kind": "open"}], speed=speed)
    use(c, users[1])
    assert c.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": "x"}).status_code == 200
    late = first_mover(c, t["id"])
    use(c, users[1 - late])  # the other one answers their first turn at once (3 s bank too)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        hello(ws, 1 - late, None)
        until(ws, lambda x: x["type"] == "state" and x["skipping"] == late)
        m = until(ws, lambda x: x["type"] == "state" and bool(x["legal"]))
        ws.send_json({"type": "move", "action": m["legal"][0]["id"], "move": m["move"]})
        until(ws, lambda x: x["type"] == "state" and x["move"] > m["move"])
    end = play_two(c, t["id"], users, [0, 1])
    assert end["status"] == "over"
    engine = c.app.state.storage.engine

    def result() -> dict:
        with engine.connect() as conn:
            return {r.user_id: r for r in conn.execute(select(results_t).where(
                results_t.c.table_id == t["id"])).all()}

    wait_for(lambda: len(result()) == 2)
    places = {r.place for r in result().values()}
    prof = c.get(f"/api/players/{names[late]}").json()
    assert prof["timed_out"] == 1 and prof["abandoned"] == 0
    assert prof["recent"][0]["place"] == 2 and prof["recent"][0]["rated"] is True
    assert places == {1, 2}
    assert c.get(f"/api/players/{names[1 - late]}").json()["recent"][0]["place"] == 1


def test_the_migration_reads_old_time_limits_as_speeds(tmp_path):
    store = Storage(f"sqlite:///{tmp_path / 'old.db'}")
    store.migrate("0007_undone_to")
    now = datetime.now(UTC)
    with store.engine.begin() as conn:
        for tid, limit in (("a", 30.0), ("b", 86400.0), ("c", None)):
            conn.execute(insert(tables_t).values(  # only the columns 0007 has
                id=tid, game="trickarus", players=2, seed=1, options={}, status="running",
                host_hash="h" * 64, time_limit=limit, created_at=now, updated_at=now))
    store.migrate()
    fast, slow, free = (store.load_table(x) for x in "abc")
    assert fast.speed == clocks.legacy(30.0) and fast.speed["mode"] == "realtime"
    assert slow.speed["mode"] == "turn" and slow.speed["per_move"] == 86400.0
    assert free.speed is None and clocks.speed_of(free)["bank"] is None
    store.dispose()
