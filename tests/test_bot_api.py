"""The Bot API (docs/bots-api.md) against a real server: bot accounts, API tokens (hashed,
listed without the secret, revoked at once, open streams included), the NDJSON streams, moves
checked like any seat's, per-token rate limits, and outside programs (examples/bot_random.py,
`meeple bot run --level random` and `--level hard` on sampled worlds) playing whole games of
every game against a person who plays in the browser's way (HTTP and the table's WebSocket).
On SQLite, and on PostgreSQL too when MEEPLE_TEST_POSTGRES_URL is set."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from websockets.sync.client import connect

import meeple
from meeple.server.matchmaking import _plans
from server_proc import PG, SRC, Server, fresh_database

ROOT = Path(__file__).resolve().parents[1]
ENV = {
    "MEEPLE_RATE_LIMITS": "on",
    "MEEPLE_LIMIT_REGISTER": "10000/hour",
    "MEEPLE_LIMIT_CREATE_TABLE": "10000/minute",
    "MEEPLE_MAX_TABLES_PER_VISITOR": "20",
}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    """A real server on SQLite, and on a fresh PostgreSQL database when the tests have one."""
    drop = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('botapi') / 'bots.db'}"
    elif not PG:
        pytest.skip("set MEEPLE_TEST_POSTGRES_URL to test PostgreSQL")
    else:
        url, drop = fresh_database()
    srv = Server(url, redis_url=None, env=ENV)
    srv.engine = sa.create_engine(url)  # the test reads the rows as another server would
    yield srv
    srv.stop()
    srv.engine.dispose()
    if drop is not None:
        drop()


def name(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def browser(server: Server, username: str | None = None) -> httpx.Client:
    """A browser with its cookies; with ``username`` a freshly registered account's."""
    c = httpx.Client(base_url=server.http, timeout=30)
    c.get("/api/games")
    if username:
        r = c.post("/api/register", json={"username": username, "password": "correct horse"})
        assert r.status_code == 200, r.text
    return c


def token_of(c: httpx.Client, scopes: list[str] | None = None) -> str:
    r = c.post("/api/tokens", json={"name": "test", **({"scopes": scopes} if scopes else {})})
    assert r.status_code == 200, r.text
    return r.json()["token"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def bot_account(server: Server) -> tuple[str, str, httpx.Client]:
    """A new account made a bot account: (username, token, its owner's browser)."""
    user = name("robo")
    c = browser(server, user)
    token = token_of(c)
    r = httpx.post(server.http + "/api/bot/account/upgrade", headers=bearer(token))
    assert r.status_code == 200 and r.json()["bot"], r.text
    return user, token, c


def seated_table(
    person: httpx.Client, game: str, players: int, invite: list[str]
) -> dict[str, Any]:
    """The person creates a table, sits at seat 0 and invites bot accounts to seats 1.. by
    name (the game's default level fills the rest)."""
    seats = (
        [{"kind": "me"}]
        + [{"kind": "open"}] * len(invite)
        + [{"kind": "bot", "level": "random"}] * (players - 1 - len(invite))
    )
    r = person.post("/api/tables", json={"game": game, "players": players, "seats": seats})
    assert r.status_code == 200, r.text
    t = r.json()
    for seat, bot in enumerate(invite, start=1):
        r = person.post(
            f"/api/tables/{t['id']}/invite_friend",
            json={"seat": seat, "username": bot, "host": t["host"]},
        )
        assert r.status_code == 200, r.text
    return t


def play_as_person(server: Server, t: dict[str, Any], seed: int, limit: float = 240) -> dict:
    """The browser's way: the table's WebSocket, a random legal move on each turn."""
    rng = random.Random(seed)
    end = time.monotonic() + limit
    with connect(f"{server.ws}/ws/tables/{t['id']}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "seat": t["seat"], "secret": t["secret"]}))
        while time.monotonic() < end:
            m = json.loads(ws.recv(timeout=max(1.0, end - time.monotonic())))
            if m.get("type") != "state":
                continue
            if m["status"] == "over":
                return m
            if m["legal"]:
                ws.send(
                    json.dumps(
                        {"type": "move", "action": rng.choice(m["legal"])["id"], "move": m["move"]}
                    )
                )
    raise AssertionError(f"table {t['id']} did not end in time")


def spawn(args: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": SRC}  # this checkout's code, as the server runs
    return subprocess.Popen(
        args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def bot_run(server: Server, token: str, *args: str) -> subprocess.Popen:
    """`meeple bot run URL --token T ARGS` in a process of its own."""
    cli = [sys.executable, "-c", "from meeple.cli import app; app()"]
    return spawn([*cli, "bot", "run", server.http, "--token", token, *args])


def stop(proc: subprocess.Popen, seconds: float = 60) -> str:
    try:
        out, _ = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out


# ----- tokens -------------------------------------------------------------------------------------
def test_tokens_are_shown_once_hashed_at_rest_listed_without_secret_and_revoked(server):
    owner = browser(server, name("own"))
    token = token_of(owner, ["bot:read"])
    listed = owner.get("/api/tokens").json()["tokens"]
    assert len(listed) == 1 and token not in json.dumps(listed)
    assert listed[0]["prefix"] == token[:10] and listed[0]["scopes"] == ["bot:read"]
    with server.engine.connect() as db:
        rows = [tuple(r) for r in db.execute(sa.text("SELECT * FROM meeple_api_tokens"))]
    mine = [r for r in rows if hashlib.sha256(token.encode()).hexdigest() in r]
    assert len(mine) == 1 and not any(token in str(col) for r in rows for col in r)
    assert httpx.get(server.http + "/api/bot/account", headers=bearer(token)).status_code == 200
    assert owner.delete(f"/api/tokens/{listed[0]['id']}").status_code == 200
    r = httpx.get(server.http + "/api/bot/account", headers=bearer(token))
    assert r.status_code == 401 and owner.get("/api/tokens").json()["tokens"] == []
    assert httpx.get(server.http + "/api/bot/account").status_code == 401  # no token at all


def test_only_an_account_that_never_played_people_becomes_a_bot_and_stays_one(server):
    ann, bob = name("ann"), name("bob")
    a, b = browser(server, ann), browser(server, bob)
    r = a.post(
        "/api/tables",
        json={"game": "trickarus", "players": 2, "seats": [{"kind": "me"}, {"kind": "open"}]},
    )
    t = r.json()  # a table with Bob, a person
    r = b.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": bob})
    assert r.status_code == 200, r.text
    r = httpx.post(server.http + "/api/bot/account/upgrade", headers=bearer(token_of(a)))
    assert r.status_code == 409 and r.json()["error"] == "played_people"
    user, token, owner = bot_account(server)
    profile = a.get(f"/api/players/{user}").json()
    assert profile["bot"] is True
    # its browser session cannot sit down: bot accounts play through the API
    r = owner.post(
        "/api/tables",
        json={"game": "trickarus", "players": 2, "seats": [{"kind": "me"}, {"kind": "bot"}]},
    )
    assert r.status_code == 403 and r.json()["error"] == "bot_account"
    # a token of a person cannot play as a bot
    r = httpx.post(
        server.http + "/api/bot/play",
        json={"game": "trickarus", "players": [2]},
        headers=bearer(token_of(b)),
    )
    assert r.status_code == 403 and r.json()["error"] == "not_bot"


# ----- whole games ------------------------------------------------------------------------------
def test_outside_bots_play_every_game_to_the_end_against_a_person(server):
    """examples/bot_random.py and `meeple bot run --level random` each hold a seat at a table of
    every game; a person invites them by name and plays in the browser's way."""
    ex_user, ex_token, _ = bot_account(server)
    run_user, run_token, _ = bot_account(server)
    games = [g["id"] for g in meeple.games()]
    example = spawn(
        [
            sys.executable,
            str(ROOT / "examples" / "bot_random.py"),
            server.http,
            ex_token,
            str(len(games)),
        ]
    )
    runner = bot_run(server, run_token, "--level", "random", "--games", str(len(games)))
    person = browser(server, name("pat"))
    results: dict[str, Any] = {}

    def one(game: str, seed: int) -> None:
        players = max(3, min(meeple.game_info(game).player_counts))
        t = seated_table(person, game, players, [ex_user, run_user])
        try:
            results[game] = (t, play_as_person(server, t, seed))
        except Exception as exc:  # reported below with the bots' output
            results[game] = (t, exc)

    threads = [threading.Thread(target=one, args=(g, i)) for i, g in enumerate(games)]
    try:
        for th in threads:
            th.start()
        for th in threads:
            th.join(300)
    finally:
        out_example, out_runner = stop(example), stop(runner)
    for game in games:
        t, end = results.get(game, (None, "no result"))
        assert isinstance(end, dict), (
            f"{game}: {end}\nexample:\n{out_example}\nrunner:\n{out_runner}"
        )
        assert end["status"] == "over" and end["scores"] is not None
        seats = end["seats"]
        assert [s["bot_account"] for s in seats[:3]] == [False, True, True]
        assert [s["name"] for s in seats[1:3]] == [ex_user, run_user]
        # people and bot accounts are rated apart: this table moves nobody's rating
        ratings = person.get(f"/api/tables/{t['id']}/ratings").json()
        assert ratings["rated"] is not True
    assert example.returncode == 0, out_example
    assert runner.returncode == 0 and f"{len(games)} games played" in out_runner, out_runner


def challenge_and_play(server: Server, bot: str, runner: subprocess.Popen, game: str):
    """A person challenges ``bot`` (2 players) and plays to the end; ``runner`` plays the bot's
    one game and exits. Returns the last state and the runner's output."""
    person = browser(server, name("pia"))
    try:
        r = person.post(f"/api/players/{bot}/challenge", json={"game": game, "players": 2})
        assert r.status_code == 200, r.text
        end = play_as_person(server, r.json(), seed=5)
    finally:
        out = stop(runner)
    assert end["status"] == "over", out
    assert runner.returncode == 0 and "1 game played" in out, out
    return end, out


PROGRAM = """
import json, sys
for line in sys.stdin:
    state = json.loads(line)
    assert state["legal"] and state["world"]["seat"] == state["seat"]
    print(json.dumps({"action": state["legal"][-1]["id"]}), flush=True)
"""


def test_meeple_bot_run_program_speaks_json_lines(server, tmp_path):
    """--program: one state in per turn (with --world its sampled world), {"action": id} out."""
    user, token, _ = bot_account(server)
    prog = tmp_path / "mybot.py"
    prog.write_text(PROGRAM)
    runner = bot_run(
        server, token, "--program", f"{sys.executable} {prog}", "--world", "--games", "1"
    )
    end, out = challenge_and_play(server, user, runner, "zarcana")
    assert "move refused" not in out, out


def test_meeple_bot_run_hard_plays_a_challenge_on_sampled_worlds(server):
    """A person challenges the bot account from its profile's button (the same request); the
    hard level (Trickarus: ISMCTS) plays on the worlds the server samples for its seat."""
    user, token, _ = bot_account(server)
    runner = bot_run(server, token, "--level", "hard", "--games", "1", "--seed", "3")
    end, out = challenge_and_play(server, user, runner, "trickarus")
    assert end["seats"][1]["name"] == user and end["seats"][1]["bot_account"], out


# ----- the streams --------------------------------------------------------------------------------
def open_stream(server: Server, path: str, token: str) -> tuple[list[str], threading.Event]:
    """Read an NDJSON stream on a thread: its lines so far, and an event set when it ends."""
    lines: list[str] = []
    ended = threading.Event()

    def read() -> None:
        try:
            with httpx.stream(
                "GET", server.http + path, headers=bearer(token), timeout=httpx.Timeout(30, read=30)
            ) as r:
                for line in r.iter_lines():  # seen by the test as they come
                    lines.append(line)
        finally:
            ended.set()

    threading.Thread(target=read, daemon=True).start()
    return lines, ended


def test_the_streams_carry_the_seats_messages_and_a_revoked_token_ends_them(server):
    user, token, owner = bot_account(server)
    person = browser(server, name("pam"))
    events, ev_end = open_stream(server, "/api/bot/stream/events", token)
    t = seated_table(person, "trickarus", 2, [user])
    deadline = time.monotonic() + 10
    while not any('"invitation"' in e for e in events) and time.monotonic() < deadline:
        time.sleep(0.05)
    invite = json.loads(next(e for e in events if '"invitation"' in e))
    assert (invite["table"], invite["seat"], invite["game"]) == (t["id"], 1, "trickarus")
    r = httpx.post(f"{server.http}/api/bot/invitation/{t['id']}/1/accept", headers=bearer(token))
    assert r.status_code == 200, r.text
    while not any('"gameStart"' in e for e in events) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any('"gameStart"' in e for e in events), events

    table, tb_end = open_stream(server, f"/api/bot/table/{t['id']}/stream?world=1", token)
    while not table and time.monotonic() < deadline:
        time.sleep(0.05)
    first = json.loads(table[0])
    # the very message a browser gets for that seat: its view, labelled choices and log
    assert first["type"] == "state" and first["seat"] == 1 and "view" in first and "log" in first
    assert first["view"]["player"] == 1 if "player" in first["view"] else True
    mine = [json.loads(x) for x in table if x and json.loads(x).get("legal")]
    if mine:  # the bot's turn first: the sampled world comes with it, never the seed
        assert mine[0]["world"]["seat"] == 1 and "seed" in mine[0]["world"]
        assert all({"id", "label"} <= set(a) for a in mine[0]["legal"])

    # another seat's move, an illegal one, a stale one: each a clear 4xx
    h = bearer(token)
    r = httpx.post(
        f"{server.http}/api/bot/table/{t['id']}/move", headers=h, json={"action": 0, "seat": 0}
    )
    assert r.status_code == 403 and r.json()["error"] == "forbidden"
    r = httpx.post(f"{server.http}/api/bot/table/{t['id']}/move", headers=h, json={"action": 10**6})
    assert 400 <= r.status_code < 500
    other = seated_table(person, "trickarus", 2, [])
    r = httpx.post(f"{server.http}/api/bot/table/{other['id']}/move", headers=h, json={"action": 0})
    assert r.status_code == 403 and r.json()["error"] == "not_seated"
    r = httpx.post(
        f"{server.http}/api/bot/table/{t['id']}/chat", headers=h, json={"text": "good luck"}
    )
    assert r.status_code == 200, r.text
    # an invitation declined: the seat is open again
    declined = seated_table(person, "trickarus", 2, [user])
    r = httpx.post(f"{server.http}/api/bot/invitation/{declined['id']}/1/decline", headers=h)
    assert r.status_code == 200 and r.json()["declined"], r.text
    assert person.get(f"/api/tables/{declined['id']}").json()["seats"][1]["kind"] == "open"

    # revoked: both open streams end within a couple of seconds
    tid = owner.get("/api/tokens").json()["tokens"][0]["id"]
    t0 = time.monotonic()
    assert owner.delete(f"/api/tokens/{tid}").status_code == 200
    assert ev_end.wait(2.5) and tb_end.wait(2.5), (events[-3:], table[-3:])
    assert time.monotonic() - t0 < 2.5
    assert '"unauthorized"' in events[-1] and '"unauthorized"' in table[-1]


def test_a_token_revoked_on_another_server_ends_its_stream(server):
    """No message reaches this server: the stream reads the token's row on its own tick."""
    user, token, _ = bot_account(server)
    lines, ended = open_stream(server, "/api/bot/stream/events", token)
    time.sleep(1.0)
    assert not ended.is_set()
    digest = hashlib.sha256(token.encode()).hexdigest()
    t0 = time.monotonic()
    with server.engine.begin() as db:  # as another server's revocation writes it
        db.execute(
            sa.text(
                "UPDATE meeple_api_tokens SET revoked_at = CURRENT_TIMESTAMP WHERE token_hash = :h"
            ),
            {"h": digest},
        )
    assert ended.wait(2.5) and time.monotonic() - t0 < 2.5


def test_a_read_only_token_cannot_play_and_each_token_has_its_own_rate_limit(server):
    user, token, owner = bot_account(server)
    reader = token_of(owner, ["bot:read"])
    r = httpx.post(
        server.http + "/api/bot/play",
        json={"game": "trickarus", "players": [2]},
        headers=bearer(reader),
    )
    assert r.status_code == 403 and r.json()["error"] == "scope"
    assert httpx.get(server.http + "/api/bot/account", headers=bearer(reader)).status_code == 200
    with httpx.Client(base_url=server.http, headers=bearer(token)) as c:
        codes = [c.get("/api/bot/account").status_code for _ in range(80)]
    assert codes.count(429) > 0 and codes[0] == 200
    limited = next(i for i, code in enumerate(codes) if code == 429)
    assert limited <= 40  # the rule's 20 a second, with the burst's own pace
    # another token of the same account is not held back
    assert httpx.get(server.http + "/api/bot/account", headers=bearer(reader)).status_code == 200


# ----- Play now ---------------------------------------------------------------------------------
def test_two_bot_accounts_meet_by_play_now_and_are_rated_apart_from_people(server):
    """`meeple bot run --play trickarus:2` twice: Play now seats them together; the table is
    rated, on the bot accounts' leaderboard only."""
    bots = [bot_account(server) for _ in range(2)]
    runners = [
        bot_run(server, token, "--level", "random", "--play", "trickarus:2", "--games", "1")
        for _, token, _ in bots
    ]
    outs = [stop(r, 120) for r in runners]
    for r, out in zip(runners, outs, strict=True):
        assert r.returncode == 0 and "1 game played" in out, out
    names = {user for user, _, _ in bots}
    deadline = time.monotonic() + 10  # the ratings are written just after the last move
    while time.monotonic() < deadline:
        board = httpx.get(server.http + "/api/leaderboard/trickarus?bots=1").json()
        if names <= {row["username"] for row in board}:
            break
        time.sleep(0.1)
    assert names <= {row["username"] for row in board}
    people = httpx.get(server.http + "/api/leaderboard/trickarus").json()
    assert not names & {row["username"] for row in people}


def entry(uid: int, bot: bool = False, no_bots: bool = False, waited: float = 0.0) -> dict:
    return {
        "id": uid,
        "user_id": uid,
        "counts": [2],
        "rating": 0.0,
        "waited": waited,
        "bot_after": None,
        "is_bot": bot,
        "no_bots": no_bots,
    }


def test_play_now_never_seats_a_bot_account_with_someone_who_asked_not_to():
    assert _plans([entry(1, no_bots=True), entry(2, bot=True)]) == []
    assert len(_plans([entry(1), entry(2, bot=True)])) == 1
    plans = _plans([entry(1, no_bots=True), entry(2, bot=True), entry(3)])
    assert [sorted(e["user_id"] for e in p["people"]) for p in plans] == [[1, 3]]
