"""What a dead server's tables cost the server their players reconnect to.

When a server dies, its players reconnect to the others all at once: each table costs its new
server three WebSocket handshakes and hellos, a load from the database (the record and every
logged move, replayed) and a first state for each seat. This measures that cost alone: it
starts one server on a fresh PostgreSQL database beside ``--database-url`` (default
MEEPLE_TEST_POSTGRES_URL), sets up ``--tables`` 3-player tables with a time limit, plays each to
move ``--moves``, kills the server (kill -9), starts it again (so no table is open there, as on
a survivor), and then opens every seat's socket at once. It prints the server's CPU seconds
for the burst (from /proc, the second after it included) per table, and how long until every
socket had its first state. ``--repeat R`` does the burst R times, a fresh restart each time.

    python benchmarks/reconnect_burst.py --tables 40 --repeat 3

``--server-cpus Q`` runs the server in a CPU budget of Q cores (as ``server_load.py``
does; root), so the burst is timed as a budgeted server serves it.

``--profile FILE`` runs the server under cProfile, switched on for the burst only, and prints
the calls that took the most time (cumulative).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from cpu_budget import BudgetError, CpuBudget  # noqa: E402
from server_load import cpu_seconds, free_port, fresh_database  # noqa: E402

# the server under cProfile, on from SIGUSR1 to SIGUSR2 (then written to the file)
PROFILED = """import cProfile, runpy, signal, sys
out = sys.argv.pop(1)
profile = cProfile.Profile()
signal.signal(signal.SIGUSR1, lambda *_: profile.enable())
def dump(*_):
    profile.disable()
    profile.dump_stats(out)
signal.signal(signal.SIGUSR2, dump)
runpy.run_module("meeple.server", run_name="__main__", alter_sys=True)
"""


def start(db: str, port: int, profile: str | None = None,
          budget: CpuBudget | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "MEEPLE_RATE_LIMITS": "off", "MEEPLE_MAX_SOCKETS_PER_CLIENT": "100000",
           "MEEPLE_LOG_FORMAT": "text", "MEEPLE_NODE_ID": "local"}
    env.pop("MEEPLE_REDIS_URL", None)
    run = ["-c", PROFILED, profile] if profile else ["-m", "meeple.server"]
    proc = subprocess.Popen([sys.executable, *run, "--host", "127.0.0.1", "--port", str(port),
                             "--database-url", db, "--no-bot-processes"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            preexec_fn=budget.enter if budget else None)
    for _ in range(600):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    sys.exit("the server did not start")


async def set_up(port: int, tables: int) -> list[tuple[str, dict[int, str]]]:
    out = []
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
        for _ in range(tables):
            def cookie() -> dict[str, str]:
                return {"cookie": f"meeple_client={uuid.uuid4().hex}"}

            t = (await http.post("/api/tables", json={
                "game": "trickarus", "players": 3, "seats": [{"kind": "me"}], "name": "P0",
                "time_limit": 60}, headers=cookie())).json()
            secrets = {0: t["secret"]}
            for seat in (1, 2):
                j = (await http.post(f"/api/tables/{t['id']}/join",
                                     json={"seat": seat, "name": f"P{seat}"}, headers=cookie())).json()
                secrets[seat] = j["secret"]
            out.append((t["id"], secrets))
    return out


async def play(port: int, table: str, seat: int, secret: str, moves: int, rng: random.Random) -> None:
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws/tables/{table}", max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "seat": seat, "secret": secret}))
        while True:
            m = json.loads(await ws.recv())
            if m["type"] != "state":
                continue
            if m["move"] >= moves or m["status"] == "over":
                return
            if m["legal"]:
                await ws.send(json.dumps({"type": "move", "move": m["move"],
                                          "action": rng.choice(m["legal"])["id"]}))


async def first_state(port: int, table: str, seat: int, secret: str) -> websockets.ClientConnection:
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/tables/{table}", max_size=2**22)
    await ws.send(json.dumps({"type": "hello", "seat": seat, "secret": secret}))
    while json.loads(await ws.recv())["type"] != "state":
        pass
    return ws


async def main(args: argparse.Namespace) -> None:
    db, drop = fresh_database(args.database_url)
    port = free_port()
    budget = None
    if args.server_cpus:
        try:
            budget = CpuBudget(f"meeple-burst-{uuid.uuid4().hex[:8]}", args.server_cpus)
        except BudgetError as exc:
            drop()
            sys.exit(f"--server-cpus: {exc}")
    try:
        proc = start(db, port)
    except BaseException:  # the server did not start: leave no database or cgroup behind
        drop()
        if budget is not None:
            budget.remove()
        raise
    try:
        tables = await set_up(port, args.tables)
        rng = random.Random(args.seed)
        await asyncio.gather(*[play(port, tid, seat, secret, args.moves, random.Random(rng.random()))
                               for tid, secrets in tables for seat, secret in secrets.items()])
        for r in range(args.repeat):
            proc.kill()
            proc.wait()
            proc = start(db, port, args.profile, budget)
            await asyncio.sleep(3)  # its start-up work done
            if args.profile:
                proc.send_signal(signal.SIGUSR1)
                await asyncio.sleep(0.2)
            cpu0, t0 = cpu_seconds(proc.pid), time.perf_counter()
            sockets = await asyncio.gather(*[first_state(port, tid, seat, secret)
                                             for tid, secrets in tables
                                             for seat, secret in secrets.items()])
            wall = time.perf_counter() - t0
            await asyncio.sleep(1.0)  # what the burst left queued (presence, chat) done too
            cpu = cpu_seconds(proc.pid) - cpu0
            if args.profile:
                proc.send_signal(signal.SIGUSR2)
                await asyncio.sleep(1.0)
            print(f"[{r + 1}/{args.repeat}] tables={args.tables} sockets={len(sockets)} "
                  f"every first state in {wall:.2f} s; server CPU {cpu:.2f} s, "
                  f"{cpu * 1e3 / args.tables:.1f} ms a table", flush=True)
            for ws in sockets:
                await ws.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
        drop()
        if budget is not None:
            budget.remove()
    if args.profile:
        import pstats

        pstats.Stats(args.profile).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=40)
    p.add_argument("--moves", type=int, default=30, help="moves played at each table first")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--database-url", default=os.environ.get("MEEPLE_TEST_POSTGRES_URL"))
    p.add_argument("--server-cpus", type=float, metavar="Q",
                   help="the restarted server's CPU budget in cores (root)")
    p.add_argument("--profile", metavar="FILE")
    args = p.parse_args()
    if not args.database_url or args.database_url.startswith("sqlite"):
        sys.exit("needs PostgreSQL: --database-url or MEEPLE_TEST_POSTGRES_URL")
    asyncio.run(main(args))
