"""Load test of the web platform: tables of WebSocket players on one or several servers.

Starts ``--nodes`` servers (`python -m meeple.server`) on loopback ports, sharing one database
(and Redis when there are several), and keeps ``--tables`` tables playing. Where a table's
sockets go is ``--placement``: ``table`` (the default) puts all of a table's seats on one
server, table after table round the servers, as the shipped proxy configurations do (nginx
``hash $uri`` and Caddy ``uri_hash`` on ``/ws/tables/<id>``); ``ring`` puts each seat on the
next server round the ring, so with two or more servers every move crosses servers (what a
proxy that hashes client addresses gives, at worst). A seat answers its turns
with random legal moves after a think time. Measured: moves per second and the delivery time
of each move to every seat (from sending it to receiving the state that contains it), split
into seats on the mover's server and seats on another.

``--ramp`` raises the table count step by step (x``--growth``) until p99 passes 100 ms or an
error happens, and stops by itself within ``--max-seconds`` (300). Its last line is JSON:
``{"nodes", "max_tables", "p99_ms", "errors", "lost_seats"}``, ``max_tables`` being the most
tables held at p99 < 100 ms with no errors (and ``p99_ms`` that step's p99).

    python benchmarks/server_load.py --nodes 2 --ramp          # PostgreSQL + Redis from the env
    python benchmarks/server_load.py --tables 200 --think 1.0  # one server, SQLite, one step

``--server-cpus Q`` runs each server (and its bot workers) in a CPU budget of Q cores of its own
(a cgroup: needs root; `benchmarks/cpu_budget.py`), so that the servers, not the PostgreSQL, Redis
and load client they share the machine with, are what runs out: then N servers can show N times
one server's capacity on a 2-core machine. Each step prints the host's idle share and the Redis
messages and bytes each server received per move (a channel per table: a server hears only its
own tables); the JSON line gains ``server_cpus``, ``cpu_s_per_1000_moves`` (per process kind at
the best step) and ``bus_msgs_per_move``.

``--database-url``/``--redis-url`` default to MEEPLE_TEST_POSTGRES_URL/MEEPLE_TEST_REDIS_URL
(SQLite in a temporary folder when there is no PostgreSQL and one node). On PostgreSQL each
run uses a fresh database beside the given one (dropped at the end) when it may create one.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from websockets.asyncio.client import connect

SRC = str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_budget import BudgetError, CpuBudget, host_times, idle_share  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class CpuMeter:
    """CPU seconds by process kind, read around a measuring window: the servers, this load
    generator, the PostgreSQL backends serving this run's database (found in
    ``pg_stat_activity``), PostgreSQL's background processes (WAL writer, checkpointer,
    autovacuum...: shared with anything else using that PostgreSQL), and Redis (``INFO cpu``: the
    whole Redis, shared likewise). Per 1000 moves, these say where the cores go at the knee
    independently of how loaded the machine is."""

    def __init__(self, db: str | None, redis: str | None, procs: list[subprocess.Popen]) -> None:
        self.procs, self.engine, self.redis, self.dbname = procs, None, None, None
        if db and not db.startswith("sqlite"):
            import sqlalchemy as sa

            self.engine = sa.create_engine(db, pool_size=1)
            self.dbname = sa.engine.make_url(db).database
        if redis:
            import redis as redis_lib

            self.redis = redis_lib.Redis.from_url(redis)

    def _pg_pids(self) -> tuple[list[int], list[int]]:
        if self.engine is None:
            return [], []
        import sqlalchemy as sa

        with self.engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT pid, datname, backend_type, pg_backend_pid() "
                                        "FROM pg_stat_activity")).all()
        ours = [r[0] for r in rows if r[1] == self.dbname and r[2] == "client backend"
                and r[0] != r[3]]  # not this meter's own connection
        background = [r[0] for r in rows if r[2] != "client backend"]
        return ours, background

    def sample(self) -> dict[str, dict[int, float] | float]:
        ours, background = self._pg_pids()
        redis = 0.0
        if self.redis is not None:
            info = self.redis.info("cpu")
            redis = float(info["used_cpu_sys"]) + float(info["used_cpu_user"])
        return {
            "servers": {p.pid: cpu_seconds(p.pid) or 0.0 for p in self.procs},
            "pg_ours": {pid: cpu_seconds(pid) or 0.0 for pid in ours},
            "pg_background": {pid: cpu_seconds(pid) or 0.0 for pid in background},
            "redis": redis, "client": time.process_time(),
        }

    @staticmethod
    def delta(a: dict, b: dict) -> dict[str, float]:
        """CPU seconds used between two samples, per kind (a process that started in between
        counts whole; one that ended in between is missed)."""
        out = {}
        for kind, after in b.items():
            before = a[kind]
            if isinstance(after, dict):
                out[kind] = sum(v - before.get(pid, 0.0) for pid, v in after.items())
            else:
                out[kind] = after - before
        return out

    def close(self) -> None:
        if self.engine is not None:
            self.engine.dispose()
        if self.redis is not None:
            self.redis.close()


def scrape(port: int) -> dict[str, float]:
    """A server's Prometheus counters and histogram sums (name{labels} -> value)."""
    out: dict[str, float] = {}
    try:
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    except OSError:
        return out
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            try:
                out[name] = float(value)
            except ValueError:
                pass
    return out


def stalls(before: dict[str, float], after: dict[str, float]) -> str:
    """What stalled a server's event loop in a window: its lag samples over 50 ms, and its
    cyclic GC's full (generation 2) collections and their total pause."""
    def d(key: str) -> float:
        return after.get(key, 0.0) - before.get(key, 0.0)
    def over(name: str, le: str = "0.05") -> float:
        return d(f"{name}_count") - d(f'{name}_bucket{{le="{le}"}}')
    late = over("meeple_loop_lag_seconds")
    counts = {k.split('"')[1]: d(k) for k in after if k.startswith("meeple_db_call_seconds_count")}
    slow = {k: v - d(f'meeple_db_call_seconds_bucket{{call="{k}",le="0.05"}}')
            for k, v in counts.items()}
    calls = ",".join(f"{k}:{v:.0f}" + (f"({slow[k]:.0f} slow)" if slow[k] else "")
                     for k, v in sorted(counts.items(), key=lambda kv: -kv[1]) if v)
    in_thread = sum(d(k) for k in after if k.startswith("meeple_db_call_seconds_count")) - sum(
        d(k) for k in after if k.startswith("meeple_db_call_seconds_bucket") and 'le="0.05"' in k)
    full = 'meeple_gc_seconds_%s{generation="2"}'
    db = d("meeple_db_seconds_sum") * 1e3 / max(1.0, d("meeple_db_seconds_count"))
    inside = sum(d(k) for k in after if k.startswith("meeple_db_call_seconds_sum")) * 1e3 / max(
        1.0, sum(d(k) for k in after if k.startswith("meeple_db_call_seconds_count")))
    return (f"lag>50ms={late:.0f} gc2={d(full % 'count'):.0f}/{d(full % 'sum') * 1e3:.0f}ms "
            f"db={db:.1f}ms (in thread {inside:.1f}ms) db>50ms={over('meeple_db_seconds'):.0f} "
            f"(in thread {in_thread:.0f}) calls={calls} "
            f"move>50ms={over('meeple_move_seconds'):.0f}")


class Http:
    """A few keep-alive HTTP/1.1 connections per server, each carrying one request at a time.

    Only the table set-up (create, join) goes over HTTP. httpx's pool, with hundreds of
    requests queued at a ramp step, spent more CPU matching requests to connections than the
    requests took (a scan of every connection per queued request); this costs one write and
    one read per request, so the load generator takes less of the cores it shares with the
    servers and the database."""

    def __init__(self, per_node: int = 16) -> None:
        self.per_node = per_node
        # idle connections with when each was last used: uvicorn closes one idle for 5 s, so
        # one idle for over 3 s is closed here rather than found dead on the next request
        self.free: dict[str, list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]]] = {}
        self.slots: dict[str, asyncio.Semaphore] = {}

    async def post(self, node: str, path: str, body: dict, headers: dict[str, str]) -> tuple[int, bytes]:
        slots = self.slots.setdefault(node, asyncio.Semaphore(self.per_node))
        free = self.free.setdefault(node, [])
        data = json.dumps(body).encode()
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        request = (f"POST {path} HTTP/1.1\r\nhost: {node}\r\ncontent-type: application/json\r\n"
                   f"content-length: {len(data)}\r\n{head}\r\n").encode() + data
        async with slots:
            while free and free[-1][2] < time.monotonic() - 3.0:
                free.pop()[1].close()
            if free:
                reader, writer, _ = free.pop()
            else:
                host, port = node.rsplit(":", 1)
                reader, writer = await asyncio.open_connection(host, int(port))
            try:
                writer.write(request)
                status = int((await reader.readline()).split()[1])
                length, keep = 0, True
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode("latin-1").partition(":")
                    name, value = name.strip().lower(), value.strip().lower()
                    if name == "content-length":
                        length = int(value)
                    elif name == "connection" and value == "close":
                        keep = False
                answer = await reader.readexactly(length)
            except BaseException:
                writer.close()
                raise
            if keep:
                free.append((reader, writer, time.monotonic()))
            else:
                writer.close()
            return status, answer

    async def aclose(self) -> None:
        for conns in self.free.values():
            for _, writer, _ in conns:
                writer.close()
        self.free.clear()


_STATE = '{"type":"state",'
_NOT_MINE = '"legal":[],"can_undo":'  # the top-level "legal" is followed by "can_undo"


def decode(raw: str | bytes) -> dict:
    """A server message. A state in which this seat has nothing to do (two in three, at a
    3-player table) is read only for its move number and status, the first such keys in it
    (the server writes type, table, game, status, move, then the view); any other message is
    decoded whole."""
    if isinstance(raw, bytes):
        raw = raw.decode()
    if raw.startswith(_STATE) and _NOT_MINE in raw:
        at = raw.index('"status":"') + 10
        status = raw[at:raw.index('"', at)]
        at = raw.index('"move":', at) + 7
        end = at
        while raw[end].isdigit():
            end += 1
        return {"type": "state", "status": status, "move": int(raw[at:end]), "legal": []}
    return json.loads(raw)


@dataclass
class Window:
    """What one measuring window saw."""

    local: list[float] = field(default_factory=list)
    cross: list[float] = field(default_factory=list)
    moves: int = 0
    errors: list[str] = field(default_factory=list)
    lost_seats: int = 0
    lag: list[float] = field(default_factory=list)  # the client's own loop lag samples
    gc_pauses: list[float] = field(default_factory=list)  # the client's full collections


class Load:
    def __init__(self, args: argparse.Namespace, nodes: list[str]) -> None:
        self.args, self.nodes = args, nodes
        self.window = Window()
        self.stop = asyncio.Event()
        self.rng = random.Random(args.seed)
        self.http = Http()
        self.tasks: list[asyncio.Task[None]] = []
        self.games = 0

    def node_of(self, index: int, seat: int) -> int:
        """``ring``: each seat on the next server (every move crosses servers); ``table``: all
        of a table's seats on one server (what a load balancer hashing the table id does)."""
        if self.args.placement == "table":
            return index % len(self.nodes)
        return (index + seat) % len(self.nodes)

    async def post(self, node: str, path: str, body: dict, cookie: str) -> dict:
        key = uuid.uuid4().hex  # a retry after a lost answer is the same request
        for attempt in range(5):
            try:
                status, answer = await asyncio.wait_for(self.http.post(
                    node, path, body, {"cookie": f"meeple_client={cookie}",
                                       "idempotency-key": key}), 30)
                if status == 200:
                    return json.loads(answer)
                raise RuntimeError(f"{path}: {status} {answer[:100]!r}")
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError, IndexError):
                await asyncio.sleep(0.2 * (attempt + 1))
        raise RuntimeError(f"{path}: unreachable")

    async def table_loop(self, index: int) -> None:
        """Play one table after another until told to stop."""
        n = len(self.nodes)
        rng = random.Random(self.rng.random())
        while not self.stop.is_set():
            home = self.nodes[index % n]
            try:
                t = await self.post(home, "/api/tables", {"game": self.args.game,
                                    "players": self.args.players, "seats": [{"kind": "me"}],
                                    "name": "P0"}, uuid.uuid4().hex)
                secrets = {0: t["secret"]}
                for seat in range(1, self.args.players):
                    node = self.nodes[self.node_of(index, seat)]
                    j = await self.post(node, f"/api/tables/{t['id']}/join",
                                        {"seat": seat, "name": f"P{seat}"}, uuid.uuid4().hex)
                    secrets[seat] = j["secret"]
            except Exception as exc:
                self.window.errors.append(f"setup: {exc!r}"[:200])
                await asyncio.sleep(1.0)
                continue
            sent: dict[int, tuple[float, int]] = {}  # move number -> (sent at, mover's node)
            await asyncio.gather(*[
                self.seat(t["id"], seat, secret, self.node_of(index, seat), sent,
                          random.Random(rng.random()))
                for seat, secret in secrets.items()])
            self.games += 1

    async def seat(self, table: str, seat: int, secret: str, node: int,
                   sent: dict[int, tuple[float, int]], rng: random.Random) -> None:
        url = f"ws://{self.nodes[node]}/ws/tables/{table}"
        try:
            async with connect(url, max_size=2**22, compression=None, open_timeout=30) as ws:
                await ws.send(json.dumps({"type": "hello", "seat": seat, "secret": secret}))
                seen = -1
                while not self.stop.is_set():
                    try:
                        raw = await asyncio.wait_for(ws.recv(), timeout=30)
                    except TimeoutError:
                        self.window.errors.append(f"{table}/{seat}: no message for 30 s")
                        return
                    msg = decode(raw)
                    now = time.perf_counter()
                    if msg["type"] == "error":
                        if msg["code"] == "forbidden":
                            self.window.lost_seats += 1
                            return
                        self.window.errors.append(f"{table}/{seat}: {msg['code']}")
                        continue
                    if msg["type"] != "state":
                        continue
                    move = msg["move"]
                    for m in range(max(seen + 1, move - 8), move):  # moves this message shows
                        if m in sent:
                            at, mover = sent[m]
                            (self.window.local if mover == node else self.window.cross).append(now - at)
                    seen = max(seen, move - 1)
                    if msg["status"] == "over":
                        return
                    if msg["legal"] and move not in sent:  # (a state may come twice)
                        await asyncio.sleep(self.args.think * (0.5 + rng.random()))
                        if self.stop.is_set():
                            return
                        choice = rng.choice(msg["legal"])
                        sent[move] = (time.perf_counter(), node)
                        self.window.moves += 1
                        await ws.send(json.dumps({"type": "move", "action": choice["id"],
                                                  "move": move}))
        except (OSError, websockets.WebSocketException, TimeoutError) as exc:
            if not self.stop.is_set():
                self.window.errors.append(f"{table}/{seat}: {exc!r}"[:200])

    def grow(self, tables: int) -> None:
        while len(self.tasks) < tables:
            self.tasks.append(asyncio.create_task(self.table_loop(len(self.tasks))))

    async def watch_lag(self) -> None:
        """This client's own event loop lag: a late loop delays the timestamps it takes."""
        while not self.stop.is_set():
            t0 = time.perf_counter()
            await asyncio.sleep(0.1)
            self.window.lag.append(time.perf_counter() - t0 - 0.1)

    async def measure(self, seconds: float, warmup: float) -> Window:
        await asyncio.sleep(warmup)
        self.window = Window()
        await asyncio.sleep(seconds)
        return self.window

    async def close(self) -> None:
        self.stop.set()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.http.aclose()


def q(values: list[float], p: int) -> float:
    if len(values) < 2:
        return float("nan")
    return statistics.quantiles(values, n=100)[p - 1] * 1e3


def fresh_database(url: str) -> tuple[str, callable]:
    """A new database beside ``url`` (PostgreSQL), or ``url`` itself when we may not create one."""
    import sqlalchemy as sa

    name = f"meeple_load_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except Exception as exc:
        print(f"(could not create a fresh database, using the given one: {exc!r})"[:200])
        admin.dispose()
        return url, lambda: None

    def drop() -> None:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()

    return sa.engine.make_url(url).set(database=name).render_as_string(hide_password=False), drop


def start_servers(args: argparse.Namespace, db: str, redis: str | None, logdir: str) -> list[subprocess.Popen]:
    procs = []
    args.budgets = []
    if args.server_cpus:
        run_id = uuid.uuid4().hex[:8]
        try:
            args.budgets = [CpuBudget(f"meeple-load-{run_id}-{i}", args.server_cpus)
                            for i in range(args.nodes)]
        except BudgetError as exc:
            for b in args.budgets:
                b.remove()
            sys.exit(f"--server-cpus: {exc}")
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "MEEPLE_LOG_FORMAT": "text", "MEEPLE_MAX_SOCKETS_PER_CLIENT": "100000",
           "MEEPLE_RATE_LIMITS": "off",  # every simulated player is one loopback address
           "MEEPLE_DB_SYNC_COMMIT": "off" if args.async_commit else "on"}
    env.pop("MEEPLE_REDIS_URL", None)
    for i in range(args.nodes):
        port = free_port()
        prof = ["-m", "cProfile", "-o", os.path.join(args.profile, f"server{i}.prof")] \
            if args.profile else []
        cmd = [sys.executable, *prof, "-m", "meeple.server", "--host", "127.0.0.1", "--port", str(port),
               "--database-url", db, "--bot-delay", "0"]
        if redis:
            cmd += ["--redis-url", redis]
        log = open(os.path.join(logdir, f"server{i}.log"), "wb")
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log,
                             preexec_fn=args.budgets[i].enter if args.budgets else None)
        p.port = port  # type: ignore[attr-defined]
        procs.append(p)
    try:
        for p in procs:
            for _ in range(600):
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{p.port}/readyz", timeout=1).read()  # type: ignore[attr-defined]
                    break
                except OSError:
                    if p.poll() is not None:
                        raise RuntimeError(f"server exited; see {logdir}") from None
                    time.sleep(0.1)
    except BaseException:
        stop_servers(procs, args.budgets)
        raise
    return procs


def stop_servers(procs: list[subprocess.Popen], budgets: list[CpuBudget] = ()) -> None:
    for pr in procs:
        if pr.poll() is None:
            pr.send_signal(signal.SIGINT)
    for pr in procs:
        try:
            pr.wait(10)
        except subprocess.TimeoutExpired:
            pr.kill()
    for budget in budgets:
        budget.remove()


async def run(args: argparse.Namespace, nodes: list[str], procs: list[subprocess.Popen]) -> dict:
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 50)
    load = Load(args, nodes)
    gc_started = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            gc_started[0] = time.perf_counter()
        elif info.get("generation") == 2:
            load.window.gc_pauses.append(time.perf_counter() - gc_started[0])

    gc.callbacks.append(on_gc)
    lag_task = asyncio.create_task(load.watch_lag())
    deadline = time.monotonic() + args.max_seconds - 15  # room to stop the servers
    tables = args.tables if not args.ramp else args.start
    best = {"nodes": args.nodes, "server_cpus": args.server_cpus, "max_tables": 0, "p99_ms": None,
            "errors": 0, "lost_seats": 0}
    total_errors = total_lost = 0
    meter = CpuMeter(args.db, args.redis, procs)
    steps: list[dict] = []
    try:
        while True:
            load.grow(tables)
            await asyncio.sleep(args.warmup)
            m0 = [await asyncio.to_thread(scrape, p.port) for p in procs]  # type: ignore[attr-defined]
            kinds0 = await asyncio.to_thread(meter.sample)
            host0 = host_times()
            cpu0 = [cpu_seconds(p.pid) for p in procs]
            own0 = time.process_time()
            w = await load.measure(args.step_seconds, 0.0)
            cpu1 = [cpu_seconds(p.pid) for p in procs]
            idle = idle_share(host0, host_times())
            own = time.process_time() - own0
            kinds = CpuMeter.delta(kinds0, await asyncio.to_thread(meter.sample))
            m1 = [await asyncio.to_thread(scrape, p.port) for p in procs]  # type: ignore[attr-defined]
            per_k = {k: round(v * 1e3 / max(1, w.moves), 2) for k, v in kinds.items()}
            both = w.local + w.cross
            p99 = q(both, 99)
            total_errors += len(w.errors)
            total_lost += w.lost_seats
            cpu = [round((b or 0) - (a or 0), 1) for a, b in zip(cpu0, cpu1, strict=True)]
            bus = [(b.get("meeple_bus_received_messages", 0) - a.get("meeple_bus_received_messages", 0),
                    b.get("meeple_bus_received_bytes", 0) - a.get("meeple_bus_received_bytes", 0))
                   for a, b in zip(m0, m1, strict=True)]
            bus_per_move = [round(n / max(1, w.moves), 3) for n, _ in bus]
            bus_bytes_per_move = [round(nb / max(1, w.moves), 1) for _, nb in bus]
            print(f"tables={tables} moves/s={w.moves / args.step_seconds:.0f} deliveries={len(both)} "
                  f"p50={q(both, 50):.1f} p99={p99:.1f} ms (same server p99={q(w.local, 99):.1f}, "
                  f"other server p99={q(w.cross, 99):.1f}) errors={len(w.errors)} "
                  f"lost_seats={w.lost_seats} server_cpu_s={cpu} "
                  f"server_cpu_ms_per_move={sum(cpu) * 1e3 / max(1, w.moves):.2f} "
                  f"client_cpu_s={own:.1f} cpu_s_per_1000_moves={per_k} "
                  f"client_lag>50ms={sum(x > 0.05 for x in w.lag)} "
                  f"max={max(w.lag, default=0) * 1e3:.0f}ms "
                  f"client_gc2={len(w.gc_pauses)}/{sum(w.gc_pauses) * 1e3:.0f}ms "
                  f"load={os.getloadavg()[0]:.1f} host_idle={idle:.2f} "
                  f"bus_msgs_per_move={bus_per_move} bus_bytes_per_move={bus_bytes_per_move} "
                  f"stalls=[{'; '.join(stalls(a, b) for a, b in zip(m0, m1, strict=True))}]"
                  + (f" kinds={collections.Counter(e.split(': ', 1)[-1][:40] for e in w.errors)}"
                     if w.errors else ""), flush=True)
            ok = p99 < 100 and not w.errors and not w.lost_seats and len(both) > 10
            if ok:
                best.update(max_tables=tables, p99_ms=round(p99, 1), cpu_s_per_1000_moves=per_k,
                            server_cpu_s_per_1000_moves=[round(c * 1e3 / max(1, w.moves), 2)
                                                         for c in cpu],
                            host_idle=round(idle, 3), bus_msgs_per_move=bus_per_move,
                            bus_bytes_per_move=bus_bytes_per_move)
            steps.append({"tables": tables, "moves": w.moves, "p99_ms": round(p99, 1), "ok": ok,
                          "cpu_s_per_1000_moves": per_k, "host_idle": round(idle, 3),
                          "bus_msgs_per_move": bus_per_move})
            if not args.ramp or not ok:
                break
            nxt = max(tables + 10, int(tables * args.growth))
            if nxt > args.max_tables or time.monotonic() + args.warmup + args.step_seconds > deadline:
                break
            tables = nxt
    finally:
        lag_task.cancel()
        await load.close()
        meter.close()
        if steps:  # where the cores went, per process kind, at each step (before the JSON)
            print("cpu_steps " + json.dumps(steps), flush=True)
    best.update(errors=total_errors, lost_seats=total_lost)
    if args.budgets:
        best["budget_stats"] = [b.stats() for b in args.budgets]
    if not args.ramp:
        best["max_tables"] = tables if best["p99_ms"] is not None else 0
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", type=int, default=1, help="servers side by side (1-3)")
    p.add_argument("--ramp", action="store_true", help="raise the table count until p99 > 100 ms")
    p.add_argument("--tables", type=int, default=200, help="tables (without --ramp)")
    p.add_argument("--start", type=int, default=100, help="tables at the first ramp step")
    p.add_argument("--growth", type=float, default=1.3, help="table count factor per ramp step")
    p.add_argument("--max-tables", type=int, default=2000)
    p.add_argument("--step-seconds", type=float, default=15.0, help="measuring window per step")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds before each window")
    p.add_argument("--max-seconds", type=float, default=300.0, help="the whole run stops by then")
    p.add_argument("--game", default="trickarus")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--think", type=float, default=1.0, help="mean seconds a player waits before moving")
    p.add_argument("--database-url", default=os.environ.get("MEEPLE_TEST_POSTGRES_URL"))
    p.add_argument("--redis-url", default=os.environ.get("MEEPLE_TEST_REDIS_URL"))
    p.add_argument("--placement", choices=["ring", "table"], default="table",
                   help="table: all of a table's seats on one server, as the shipped proxy "
                        "configs route them; ring: a table's seats on different servers")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--async-commit", action="store_true",
                   help="servers with MEEPLE_DB_SYNC_COMMIT=off (no WAL flush in a move's path: "
                        "shows the servers' limit rather than the disk's)")
    p.add_argument("--server-cpus", type=float, default=None, metavar="Q",
                   help="each server in a CPU budget of Q cores of its own (a cgroup; needs root)")
    p.add_argument("--profile", metavar="DIR", help="run the servers under cProfile, writing "
                   "DIR/server<i>.prof when they stop")
    args = p.parse_args()
    args.nodes = max(1, min(args.nodes, 8))
    args.max_seconds = min(args.max_seconds, 300.0)
    tmp = tempfile.mkdtemp(prefix="meeple-load-")
    drop = lambda: None  # noqa: E731
    if args.database_url and not args.database_url.startswith("sqlite"):
        db, drop = fresh_database(args.database_url)
    elif args.nodes == 1:
        db = args.database_url or f"sqlite:///{os.path.join(tmp, 'load.db')}"
    else:
        sys.exit("several servers need PostgreSQL (--database-url or MEEPLE_TEST_POSTGRES_URL)")
    redis = args.redis_url if args.nodes > 1 else None
    if args.nodes > 1 and not redis:
        sys.exit("several servers need Redis (--redis-url or MEEPLE_TEST_REDIS_URL)")
    args.db, args.redis = db, redis
    started = time.monotonic()
    procs: list[subprocess.Popen] = []
    try:
        procs = start_servers(args, db, redis, tmp)
        result = asyncio.run(asyncio.wait_for(
            run(args, [f"127.0.0.1:{p.port}" for p in procs], procs),  # type: ignore[attr-defined]
            timeout=args.max_seconds - 10))
    finally:
        stop_servers(procs, getattr(args, "budgets", []))
        drop()
    print(f"db={db.split(':')[0]} nodes={args.nodes} server_cpus={args.server_cpus} "
          f"placement={args.placement} "
          f"sync_commit={'off' if args.async_commit else 'on'} "
          f"think={args.think}s game={args.game} "
          f"players={args.players} ran {time.monotonic() - started:.0f}s; server logs in {tmp}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
