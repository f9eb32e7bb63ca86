"""Load test of the web platform: many concurrent tables of bot-driven WebSocket clients.

Starts `python -m meeple.server` on a loopback port with a fresh SQLite database (or the URL
given), creates ``--tables`` tables whose every seat is a client of this script, and has each
client answer its turns with random legal moves after ``--think`` seconds. It measures moves per
second and the move round trip: from sending a move to receiving the state that contains it.

Bounded: at most ``--seconds`` of play, ``--tables`` <= 1000, one game per table, loopback only.

    .venv/bin/python benchmarks/server_load.py --tables 200 --think 0.5 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import websockets


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def cpu_seconds(pid: int) -> float | None:
    """User+system CPU time of a process (Linux /proc), to report CPU per move: unlike
    latency, it barely depends on what else the machine is running."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.finished = 0


async def seat_client(base: str, table: str, seat: int, secret: str, think: float,
                      stats: Stats, stop_at: float, rng: random.Random) -> None:
    """One player: hello, then answer every own turn; time each move's round trip."""
    async with websockets.connect(f"ws://{base}/ws/tables/{table}", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "seat": seat, "secret": secret}))
        sent_at: float | None = None
        sent_move = -1
        while time.monotonic() < stop_at:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop_at - time.monotonic()))
            except TimeoutError:
                return
            msg = json.loads(raw)
            if msg["type"] == "error":
                stats.errors.append(f"{table}/{seat}: {msg['code']}")
                sent_at = None
                continue
            if msg["type"] != "state":
                continue
            if sent_at is not None and msg["move"] > sent_move:
                stats.latencies.append(time.perf_counter() - sent_at)
                sent_at = None
            if msg["status"] == "over":
                if seat == 0:
                    stats.finished += 1
                return
            if msg["legal"] and sent_at is None:
                if think:
                    await asyncio.sleep(think * (0.5 + rng.random()))
                choice = rng.choice(msg["legal"])
                sent_move = msg["move"]
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "move", "action": choice["id"], "move": msg["move"]}))


async def run(args: argparse.Namespace, base: str, server_pid: int | None = None) -> Stats:
    http = f"http://{base}"
    tables = []
    for _ in range(args.tables):
        t = post(f"{http}/api/tables", {"game": args.game, "players": args.players,
                                        "seats": [{"kind": "me"}], "name": "P0"})
        secrets = {0: t["secret"]}
        for seat in range(1, args.players):
            secrets[seat] = post(f"{http}/api/tables/{t['id']}/join", {"seat": seat, "name": f"P{seat}"})["secret"]
        tables.append((t["id"], secrets))
    stats = Stats()
    rng = random.Random(args.seed)
    # the measuring client's own GC pauses would show up as server latency
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)
    cpu0 = cpu_seconds(server_pid) if server_pid else None
    client0 = time.process_time()
    start = time.monotonic()
    stop_at = start + args.seconds
    clients = [
        seat_client(base, tid, seat, secret, args.think, stats, stop_at, random.Random(rng.random()))
        for tid, secrets in tables for seat, secret in secrets.items()
    ]
    results = await asyncio.gather(*clients, return_exceptions=True)
    stats.errors += [repr(r) for r in results if isinstance(r, BaseException)]
    stats.elapsed = time.monotonic() - start  # type: ignore[attr-defined]
    cpu1 = cpu_seconds(server_pid) if server_pid else None
    stats.server_cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0  # type: ignore[attr-defined]
    stats.client_cpu = time.process_time() - client0  # type: ignore[attr-defined]
    return stats


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--game", default="trickarus")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--think", type=float, default=0.5, help="mean seconds a client waits before moving")
    p.add_argument("--seconds", type=float, default=60.0, help="cap on the playing time")
    p.add_argument("--database-url", default=None, help="default: a fresh SQLite file")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    args.tables = max(1, min(args.tables, 1000))
    args.seconds = max(1.0, min(args.seconds, 600.0))
    port = free_port()
    tmp = tempfile.mkdtemp(prefix="meeple-load-")
    db = args.database_url or f"sqlite:///{os.path.join(tmp, 'load.db')}"
    server = subprocess.Popen(
        [sys.executable, "-m", "meeple.server", "--host", "127.0.0.1", "--port", str(port),
         "--database-url", db, "--bot-delay", "0"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    base = f"127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://{base}/api/games", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        stats = asyncio.run(run(args, base, server.pid))
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    lat = sorted(stats.latencies)
    q = statistics.quantiles(lat, n=100) if len(lat) >= 2 else [float("nan")] * 99
    print(f"tables={args.tables} game={args.game} players={args.players} think={args.think}s "
          f"db={'sqlite' if db.startswith('sqlite') else db.split(':')[0]}")
    print(f"moves={len(lat)} in {stats.elapsed:.1f}s -> {len(lat) / stats.elapsed:.0f} moves/s; "
          f"games finished={stats.finished}/{args.tables}")
    print(f"round trip ms: p50={q[49] * 1e3:.1f} p90={q[89] * 1e3:.1f} p99={q[98] * 1e3:.1f} "
          f"max={lat[-1] * 1e3 if lat else float('nan'):.1f}")
    if stats.server_cpu is not None and lat:
        per_move = stats.server_cpu / len(lat) * 1e3
        print(f"server CPU {stats.server_cpu:.1f}s = {per_move:.2f} ms/move "
              f"(one core's worth: ~{1000 / per_move:.0f} moves/s); "
              f"this client's CPU {stats.client_cpu:.1f}s; load average {os.getloadavg()[0]:.1f}")
    print(f"errors={len(stats.errors)}" + (f" e.g. {stats.errors[:3]}" if stats.errors else ""))


if __name__ == "__main__":
    main()
