"""Play now under load: simulated players queueing over loopback on two servers side by side.

Starts two `python -m meeple.server` processes on one database and one Redis (``--database-url``
and ``--redis-url``, default ``MEEPLE_TEST_POSTGRES_URL`` and ``MEEPLE_TEST_REDIS_URL``), makes
``--players`` accounts with ratings spread evenly over 0-1500 (written straight to the database
with one shared Argon2 hash and a session each: registering 1,000 accounts would measure Argon2,
not matchmaking), then has each player arrive at a random moment within ``--arrive`` seconds at
one of the two servers, ask to play Trickarus (2, 3 or either, at random), and long-poll until
seated. It measures each player's time from asking to learning the table, the tables formed,
who was left waiting after ``--patience`` seconds, and whether anyone sat at two tables.
Rate limits are off in the servers (all players come from one address).

    python benchmarks/matchmaking.py --players 1000
Last line: JSON {"players", "tables", "waiting", "seated_twice", "p50_s", "p99_s"}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import delete, func, insert, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from meeple.server.accounts import hash_password  # noqa: E402
from meeple.server.schema_players import queue_t, ratings_t, sessions_t, users_t  # noqa: E402
from meeple.server.storage import Storage, seats_t  # noqa: E402
from meeple.server.tables import hash_secret  # noqa: E402

GAME = "trickarus"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, redis: str, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MEEPLE_RATE_LIMITS": "off", "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    proc = subprocess.Popen([sys.executable, "-m", "meeple.server", "--port", str(port),
                             "--database-url", db, "--redis-url", redis, "--bot-delay", "0",
                             "--no-bot-processes"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=1).read()
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start")


def make_players(store: Storage, n: int, run: str, rng: random.Random) -> list[tuple[str, int]]:
    """Accounts with sessions and ratings spread over 0-1500: (session token, user id)."""
    digest = hash_password(secrets.token_urlsafe(12))
    now = datetime.now(UTC)
    out = []
    with store.engine.begin() as conn:
        conn.execute(delete(queue_t).where(queue_t.c.status == "waiting"))
        for i in range(n):
            name = f"b{run}{i}"[:20]
            uid = conn.execute(insert(users_t).values(
                username=name, username_key=name.casefold(), password_hash=digest, disabled=False,
                created_at=now)).inserted_primary_key[0]
            token = secrets.token_urlsafe(32)
            conn.execute(insert(sessions_t).values(token_hash=hash_secret(token), user_id=uid,
                                                   created_at=now, expires_at=now + timedelta(days=1)))
            display = int(1500 * i / max(1, n - 1))
            conn.execute(insert(ratings_t).values(
                user_id=uid, game=GAME, mu=display / 40 + 3 * 3.0, sigma=3.0, display=display,
                games=10, wins=3, updated_at=now))
            out.append((token, uid))
    rng.shuffle(out)
    return out


async def player(http: httpx.AsyncClient, token: str, delay: float, counts: list[int],
                 patience: float, times: list[float], seated: list[str]) -> None:
    await asyncio.sleep(delay)
    cookie = {"cookie": f"meeple_session={token}"}
    t0 = time.monotonic()
    r = await http.post("/api/play", json={"game": GAME, "players": counts}, headers=cookie)
    r.raise_for_status()
    while time.monotonic() - t0 < patience:
        wait = min(25.0, max(0.5, patience - (time.monotonic() - t0)))
        entries = (await http.get("/api/play", params={"wait": wait}, headers=cookie)).json()["entries"]
        done = [e for e in entries if e["status"] == "seated"]
        if done:
            times.append(time.monotonic() - t0)
            seated.append(done[0]["table"])
            return
    await http.post("/api/play/cancel", headers=cookie)


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 3)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--database-url", default=os.environ.get("MEEPLE_TEST_POSTGRES_URL"))
    ap.add_argument("--redis-url", default=os.environ.get("MEEPLE_TEST_REDIS_URL"))
    ap.add_argument("--players", type=int, default=1000)
    ap.add_argument("--arrive", type=float, default=20.0, help="players arrive within this many seconds")
    ap.add_argument("--patience", type=float, default=40.0, help="a player gives up after this long")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not args.database_url or not args.redis_url:
        sys.exit("give --database-url and --redis-url (or MEEPLE_TEST_POSTGRES_URL/MEEPLE_TEST_REDIS_URL)")
    rng = random.Random(args.seed)
    store = Storage(args.database_url)
    store.migrate()
    run = secrets.token_hex(3)
    players = make_players(store, args.players, run, rng)
    ports = [free_port(), free_port()]
    procs = [start_server(args.database_url, args.redis_url, p) for p in ports]
    try:
        times: list[float] = []
        seated: list[str] = []
        started = time.monotonic()
        # one client per server (building an httpx client per player costs more CPU than
        # the servers spend on the request), each player sending its own session cookie
        pool = httpx.Limits(max_connections=args.players + 10, max_keepalive_connections=args.players)
        https = [httpx.AsyncClient(base_url=f"http://127.0.0.1:{p}", timeout=40, limits=pool)
                 for p in ports]
        await asyncio.gather(*[
            player(https[i % 2], token, rng.uniform(0, args.arrive),
                   rng.choice([[2], [3], [2, 3]]), args.patience, times, seated)
            for i, (token, _) in enumerate(players)])
        for h in https:
            await h.aclose()
        wall = time.monotonic() - started
    finally:
        for p in procs:
            p.kill()
            p.wait()
    ids = [uid for _, uid in players]
    with store.engine.connect() as conn:
        tables = sorted(set(seated))
        twice = conn.execute(select(func.count()).select_from(
            select(seats_t.c.user_id).where(seats_t.c.user_id.in_(ids))
            .group_by(seats_t.c.user_id).having(func.count() > 1).subquery())).scalar_one()
        # the server's own part: from the entry's creation to its seating (no HTTP queueing)
        waits = [(b - a).total_seconds() for a, b in conn.execute(
            select(queue_t.c.created_at, queue_t.c.seated_at).where(
                queue_t.c.user_id.in_(ids), queue_t.c.status == "seated"))]
        per_table = conn.execute(select(seats_t.c.table_id, func.count()).where(
            seats_t.c.table_id.in_(tables)).group_by(seats_t.c.table_id)).all()
    store.dispose()
    print(f"{args.players} players over {args.arrive:g} s on two servers: {len(tables)} tables "
          f"({sum(n for _, n in per_table)} seats) in {wall:.1f} s; time to a table "
          f"p50 {pct(times, 0.5)} s, p90 {pct(times, 0.9)} s, p99 {pct(times, 0.99)} s, max "
          f"{pct(times, 1.0)} s; queue entry to seat (server side) p50 {pct(waits, 0.5)} s, "
          f"p99 {pct(waits, 0.99)} s; load average {os.getloadavg()[0]:.1f}")
    print(json.dumps({"players": args.players, "tables": len(tables),
                      "waiting": args.players - len(times), "seated_twice": twice,
                      "p50_s": pct(times, 0.5), "p99_s": pct(times, 0.99),
                      "server_p50_s": pct(waits, 0.5), "server_p99_s": pct(waits, 0.99)}))


if __name__ == "__main__":
    asyncio.run(main())
