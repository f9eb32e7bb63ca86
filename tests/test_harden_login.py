"""Login limits that hold under real bursts, and no lock-out of the owner.

Real servers (`python -m meeple.server` subprocesses) are hit by many concurrent requests from
threads: every attempt is counted before its password is checked, so N concurrent attempts cost
N, on one server (limits in memory) and on two sharing Redis. Password hashing runs in a pool of
its own, so session look-ups stay quick during a burst. A browser that logged in to an account
before (its device cookie) keeps its own allowance while strangers hammer the username, and a
429 says how long to wait, truly.
"""

from __future__ import annotations

import json
import statistics
import threading
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from server_proc import PG, REDIS, Server, fresh_database, needs_services
from server_util import client

PASSWORD = "correct horse battery"
LIMITS_ON = {"MEEPLE_RATE_LIMITS": "on"}


def request(base: str, method: str, path: str, body: Any = None,
            cookies: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    """One HTTP request: status, JSON body, headers (a cookie jar of the caller's own)."""
    headers = {"content-type": "application/json"}
    if cookies:
        headers["cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data, headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw, status, hdrs = r.read(), r.status, r.headers
    except urllib.error.HTTPError as e:
        raw, status, hdrs = e.read(), e.code, e.headers
    if cookies is not None:
        for line in hdrs.get_all("set-cookie") or []:
            name, _, rest = line.partition("=")
            cookies[name] = rest.split(";", 1)[0]
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = raw.decode(errors="replace")
    return status, payload, hdrs  # a Message: case-insensitive


def burst(calls: list[Any], threads: int = 40) -> list[Any]:
    """Run the calls at once: every thread waits at a barrier, then all go."""
    gate = threading.Barrier(len(calls))

    def go(call: Any) -> Any:
        gate.wait()
        return call()

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(go, calls))


def uname() -> str:
    return "u" + uuid.uuid4().hex[:12]


def register(base: str, username: str) -> dict[str, str]:
    jar: dict[str, str] = {}
    status, body, _ = request(base, "POST", "/api/register",
                              {"username": username, "password": PASSWORD}, jar)
    assert status == 200, body
    return jar


def wrong_logins(base: str, username: str, n: int) -> list[tuple[int, Any, dict[str, str]]]:
    return burst([lambda i=i: request(base, "POST", "/api/login",
                                      {"username": username, "password": f"guess {i} xyz"})
                  for i in range(n)])


@pytest.fixture()
def lone(tmp_path):
    """One server, SQLite, limits in memory, the default rules (a fresh one per test: the
    address's count starts at zero)."""
    db = tmp_path / "lone.db"
    s = Server(f"sqlite:///{db}", redis_url=None, env=LIMITS_ON)
    yield s
    s.stop()


def test_a_burst_of_wrong_passwords_for_one_username_costs_what_it_counts(lone):
    victim = uname()
    register(lone.http, victim)
    out = wrong_logins(lone.http, victim, 40)
    codes = [s for s, _, _ in out]
    assert codes.count(401) == 5 and codes.count(429) == 35, codes  # 5 a minute, no more
    refused = next(r for r in out if r[0] == 429)
    wait = int(refused[2]["Retry-After"])
    assert 1 <= wait <= 60 and f"{wait} second" in refused[1]["detail"], refused


def test_a_burst_from_one_address_over_many_usernames_stops_at_its_limit(lone):
    out = burst([lambda: request(lone.http, "POST", "/api/login",
                                 {"username": uname(), "password": "nothing here"})
                 for _ in range(30)])
    codes = [s for s, _, _ in out]
    assert codes.count(401) <= 20 and codes.count(429) >= 10, codes  # 20 a minute per address


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    """Limits high enough that every login of a burst is hashed."""
    db = tmp_path_factory.mktemp("busy") / "busy.db"
    s = Server(f"sqlite:///{db}", redis_url=None,
               env={**LIMITS_ON, "MEEPLE_LIMIT_LOGIN_USER": "1000/minute",
                    "MEEPLE_LIMIT_LOGIN_ADDR": "1000/minute", "MEEPLE_HASH_QUEUE": "100"})
    yield s
    s.stop()


def test_a_burst_of_logins_does_not_hold_up_session_look_ups(busy):
    me = register(busy.http, uname())
    victim = uname()
    register(busy.http, victim)
    for _ in range(3):  # warm up
        assert request(busy.http, "GET", "/api/me", cookies=dict(me))[0] == 200
    quiet = []
    for _ in range(5):
        t0 = time.perf_counter()
        request(busy.http, "GET", "/api/me", cookies=dict(me))
        quiet.append(time.perf_counter() - t0)
    during: list[float] = []
    done = threading.Event()

    def look_ups() -> None:
        while not done.is_set():
            t0 = time.perf_counter()
            assert request(busy.http, "GET", "/api/me", cookies=dict(me))[0] == 200
            during.append(time.perf_counter() - t0)
            time.sleep(0.05)

    watcher = threading.Thread(target=look_ups)
    watcher.start()
    t0 = time.perf_counter()
    try:
        out = wrong_logins(busy.http, victim, 40)
    finally:
        done.set()
        watcher.join()
    burst_seconds = time.perf_counter() - t0
    assert all(s == 401 for s, _, _ in out), [s for s, _, _ in out]
    assert len(during) >= 3, (during, burst_seconds)
    # Argon2 for 40 logins keeps this machine's cores busy for a while; a look-up waits for
    # CPU like anything else, but never behind the queue of hashes
    assert statistics.median(during) < max(0.5, 10 * statistics.median(quiet)), (during, quiet)
    assert max(during) < max(1.5, burst_seconds / 2), (during, burst_seconds)


def test_the_owner_logs_in_from_a_known_browser_while_strangers_are_refused(tmp_path):
    with client(f"sqlite:///{tmp_path / 'd.db'}") as c:
        owner = uname()
        assert c.post("/api/register", json={"username": owner, "password": PASSWORD}).status_code == 200
        device = c.cookies.get("meeple_device")
        assert device
        c.cookies.clear()
        codes = [c.post("/api/login", json={"username": owner, "password": f"x{i}"}).status_code
                 for i in range(40)]
        assert codes.count(401) == 5 and codes.count(429) == 35
        # a stranger with the right password waits too: the limit cannot tell them apart
        r = c.post("/api/login", json={"username": owner, "password": PASSWORD})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        # the owner's browser is known: its own allowance
        c.cookies.clear()
        c.cookies.set("meeple_device", device)
        r = c.post("/api/login", json={"username": owner, "password": PASSWORD})
        assert r.status_code == 200, r.text
        # a device cookie for one account is no pass for another
        other = uname()
        c.cookies.clear()
        c.post("/api/register", json={"username": other, "password": PASSWORD})
        for _ in range(6):
            c.post("/api/login", json={"username": other, "password": "wrong wrong"})
        c.cookies.clear()
        c.cookies.set("meeple_device", device)
        assert c.post("/api/login", json={"username": other, "password": PASSWORD}).status_code == 429
        # nor is a forged one
        c.cookies.set("meeple_device", device[:-3] + "AAA")
        assert c.post("/api/login", json={"username": owner, "password": PASSWORD}).status_code == 429


def test_retry_after_is_true(tmp_path_factory):
    db = tmp_path_factory.mktemp("short") / "short.db"
    s = Server(f"sqlite:///{db}", redis_url=None,
               env={**LIMITS_ON, "MEEPLE_LIMIT_LOGIN_USER": "3/4second"})
    try:
        victim = uname()
        register(s.http, victim)
        out = wrong_logins(s.http, victim, 10)
        assert [c for c, _, _ in out].count(401) == 3
        wait = max(int(h["Retry-After"]) for c, _, h in out if c == 429)
        assert wait <= 4
        status, body, hdrs = request(s.http, "POST", "/api/login",
                                     {"username": victim, "password": PASSWORD})
        assert status == 429, body
        time.sleep(int(hdrs["Retry-After"]) + 0.2)
        status, body, _ = request(s.http, "POST", "/api/login",
                                  {"username": victim, "password": PASSWORD})
        assert status == 200, body
    finally:
        s.stop()


@needs_services
@pytest.mark.postgres
@pytest.mark.redis
def test_two_servers_sharing_redis_count_one_burst_once():
    assert PG and REDIS
    url, drop = fresh_database()
    servers = [Server(url, env={**LIMITS_ON, "MEEPLE_LIMIT_LOGIN_ADDR": "1000/minute"})
               for _ in range(2)]
    try:
        victim = uname()
        register(servers[0].http, victim)
        out = burst([lambda i=i: request(servers[i % 2].http, "POST", "/api/login",
                                         {"username": victim, "password": f"guess {i} xyz"})
                     for i in range(40)])
        codes = [s for s, _, _ in out]
        assert codes.count(401) == 5 and codes.count(429) == 35, codes
    finally:
        for s in servers:
            s.stop()
        drop()
