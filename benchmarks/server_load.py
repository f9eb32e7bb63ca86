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
error happens, and stops by itself within ``--max-seconds`` (300, at most 1800). Its last line
is JSON: ``{"nodes", "max_tables", "p99_ms", "errors", "lost_seats"}``, ``max_tables`` being the
most tables held at p99 < 100 ms with no errors (and ``p99_ms`` that step's p99). A steadier
knee: ``--repeat R`` measures each step over R windows and judges the median of their p99s
(``--judge pooled``: the p99 of all their deliveries together); ``--refine K`` then bisects up
to K times between the last count that held and the first that did not.

``--kill-at-peak`` (two servers or more) goes back to the peak (the most tables that held, or
``--tables`` without ``--ramp``), measures it once more, and kills one server (``--kill-node``,
the last by default) with SIGKILL, then plays on for ``--kill-seconds``. Its players reconnect
as the page does (first after a random 0.1-0.3 s), to another living server chosen by a hash of the table
(``--failover``), as a proxy hashing the table id sends them when the chosen upstream refuses
connections; a move sent but
not seen applied is sent again with the same move number (the server answers a repeat like
the first). Measured per table of the killed server: seconds from the kill (for a table whose
players were in a ``--pause`` between games, from the end of that pause: it asked the servers
nothing before) to its first state and to its first acknowledged move from another server; with ``--time-limit`` (each table then
has a lease), seconds until each of the killed server's leases passed to another. Then every
move a player saw applied, (table, move number, action), is looked up in the database. The JSON
gains ``kill``; the run fails (exit status 1) when a table or lease took longer than
``MEEPLE_LEASE_SECONDS`` + 2 s (docs/web.md, *Many servers*: a dead holder's lease is taken
over a second or two after it lapses), or an acknowledged move is missing, or an error happened.

    python benchmarks/server_load.py --nodes 2 --ramp          # PostgreSQL + Redis from the env
    python benchmarks/server_load.py --tables 200 --think 1.0  # one server, SQLite, one step

``--server-cpus Q`` runs each server (and its bot workers) in a CPU budget of Q cores of its own
(a cgroup: needs root; `benchmarks/cpu_budget.py`), so that the servers, not the PostgreSQL, Redis
and load client they share the machine with, are what runs out: then N servers can show N times
one server's capacity on a 2-core machine. Each step prints the host's idle share and the Redis
messages and bytes each server received per move (a channel per table: a server hears only its
own tables); the JSON line gains ``server_cpus``, ``cpu_s_per_1000_moves`` (per process kind at
the best step) and ``bus_msgs_per_move``. Budgets are accounted in 10 ms periods
(``--budget-period-ms``; why: `benchmarks/cpu_budget.py`).

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
import math
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
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import websockets
from websockets.asyncio.client import connect

SRC = str(Path(__file__).resolve().parents[1] / "src")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_budget import PERIOD_US, BudgetError, CpuBudget, host_times, idle_share  # noqa: E402


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


@dataclass
class SeatState:
    """What one player remembers across its connections."""

    chosen: tuple[int, int] | None = None  # (move number, action) sent, not yet seen applied
    seen: int = -1  # the last move number it has seen applied
    live: bool = False  # its last connection opened (the page's reconnect delay starts afresh)
    thinking: tuple[int, float] | None = None  # (move number, when its player will have decided)


class Load:
    def __init__(self, args: argparse.Namespace, nodes: list[str]) -> None:
        self.args, self.nodes = args, nodes
        self.window = Window()
        self.stop = asyncio.Event()
        self.rng = random.Random(args.seed)
        self.http = Http()
        self.tasks: list[asyncio.Task[None]] = []
        self.dropped: list[asyncio.Task[None]] = []
        self.games = 0
        self.seated: set[int] = set()  # table slots whose first table is set up and playing
        # the kill: which server was killed and when; the servers this client found dead (a
        # refused connection), which it then skips, as a load balancer does with a dead upstream
        self.killed: int | None = None
        self.kill_at = 0.0
        self.down: set[int] = set()
        self.reconnects = 0
        # every move this client saw applied after sending it: (table, move number) -> action
        self.acked: dict[tuple[str, int], int] = {}
        # per table slot, seconds from the kill to its first state and first acknowledged move
        # from a surviving server
        self.served_after_kill: dict[int, float] = {}
        self.acked_after_kill: dict[int, float] = {}
        # per table slot, when its players last came back from ``--pause`` (asked the servers
        # for a new game); slots pausing now. A table paused at the kill asked nothing of the
        # servers until its pause ended, so its takeover is timed from then, not from the kill.
        self.resumed_at: dict[int, float] = {}
        self.pausing: set[int] = set()
        self.pausing_at_kill: set[int] = set()

    def node_of(self, index: int, seat: int) -> int:
        """``ring``: each seat on the next server (every move crosses servers); ``table``: all
        of a table's seats on one server (what a load balancer hashing the table id does)."""
        if self.args.placement == "table":
            return index % len(self.nodes)
        return (index + seat) % len(self.nodes)

    def route(self, node: int, key: int) -> int:
        """The server a request of table ``key`` meant for ``node`` reaches: that one, or when
        it was found dead another living one. ``--failover spread`` (the default) picks it by a
        hash of the table and the server (rendezvous hashing), so a dead server's tables spread
        over all the others, as Caddy's ``uri_hash`` and nginx's ``hash $uri consistent`` (a
        ring of many points a server) spread a dead upstream's keys; ``next`` sends them all to
        the next living server by index (one survivor takes the whole dead server's load)."""
        if node not in self.down:
            return node
        living = [at for at in range(len(self.nodes)) if at not in self.down]
        if not living:
            return node
        if self.args.failover == "next":
            return min(living, key=lambda at: (at - node) % len(self.nodes))
        return max(living, key=lambda at: zlib.crc32(f"{key}/{at}".encode()))

    def lost_to_kill(self, at: int) -> bool:
        """A connection to the killed server failed: expected, the client goes elsewhere."""
        if self.killed is not None and at == self.killed:
            self.down.add(at)
            return True
        return False

    async def post(self, index: int, node: int, path: str, body: dict, cookie: str) -> dict:
        """As the page's ``api()``: the same key again after a lost answer (on the next living
        server once this one is found dead), and after 409 ``in_progress`` five times over
        4.5 s (a claim of the killed server's, taken over after 3 s)."""
        key = uuid.uuid4().hex  # a retry after a lost answer is the same request
        busy = 0
        for attempt in range(10):
            at = self.route(node, index)
            try:
                status, answer = await asyncio.wait_for(self.http.post(
                    self.nodes[at], path, body, {"cookie": f"meeple_client={cookie}",
                                                 "idempotency-key": key}), 30)
                if status == 200:
                    return json.loads(answer)
                if status == 409 and b"in_progress" in answer and busy < 5:
                    busy += 1
                    await asyncio.sleep(0.3 * busy)
                    continue
                raise RuntimeError(f"{path}: {status} {answer[:100]!r}")
            except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError, IndexError):
                if self.lost_to_kill(at):
                    continue  # the same key on the next server: no second effect
                await asyncio.sleep(0.2 * (attempt + 1))
        raise RuntimeError(f"{path}: unreachable")

    async def table_loop(self, index: int) -> None:
        """Play one table after another until told to stop; with ``--pause``, the players wait
        a random time up to that long before each game, as people do, so the tables a ramp
        step started together do not end their games (and set up the next) together."""
        rng = random.Random(self.rng.random())
        create = {"game": self.args.game, "players": self.args.players,
                  "seats": [{"kind": "me"}], "name": "P0"}
        if self.args.time_limit:
            create["time_limit"] = self.args.time_limit
        while not self.stop.is_set():
            if self.args.pause:
                self.pausing.add(index)
                await asyncio.sleep(rng.uniform(0, self.args.pause))
                self.pausing.discard(index)
                self.resumed_at[index] = time.perf_counter()
            try:
                t = await self.post(index, self.node_of(index, 0), "/api/tables", create,
                                    uuid.uuid4().hex)
                secrets = {0: t["secret"]}
                for seat in range(1, self.args.players):
                    j = await self.post(index, self.node_of(index, seat),
                                        f"/api/tables/{t['id']}/join",
                                        {"seat": seat, "name": f"P{seat}"}, uuid.uuid4().hex)
                    secrets[seat] = j["secret"]
                self.seated.add(index)
            except Exception as exc:
                self.window.errors.append(f"setup: {exc!r}"[:200])
                await asyncio.sleep(1.0)
                continue
            sent: dict[int, tuple[float, int]] = {}  # move number -> (sent at, mover's node)
            await asyncio.gather(*[
                self.seat(index, t["id"], seat, secret, self.node_of(index, seat), sent,
                          random.Random(rng.random()))
                for seat, secret in secrets.items()])
            self.games += 1

    def since_kill(self, index: int, now: float) -> float:
        """Seconds the table slot waited on the servers since the kill: from the kill, or
        from the end of a pause it was in at the kill (it asked the servers nothing before)."""
        return now - max(self.kill_at, self.resumed_at.get(index, 0.0))

    def _acked(self, index: int, table: str, chosen: tuple[int, int], at: int) -> None:
        self.acked[(table, chosen[0])] = chosen[1]
        if self.killed is not None and at != self.killed and index not in self.acked_after_kill:
            self.acked_after_kill[index] = self.since_kill(index, time.perf_counter())

    async def seat(self, index: int, table: str, seat: int, secret: str, node: int,
                   sent: dict[int, tuple[float, int]], rng: random.Random) -> None:
        """One player: answers its turns until the game ends. A connection lost to the killed
        server is opened again on the next one (after the page's reconnect delay), and a
        move sent but not seen applied is sent again with the same move number and action (a
        retry the server answers like the first, never a second move)."""
        me = SeatState()  # kept across connections
        retry = 0.5  # the page's delay after a failed connection, doubled up to 5 s
        while not self.stop.is_set():
            at = self.route(node, index)
            try:
                if await self._play(index, table, seat, secret, at, sent, rng, me):
                    return
            except (OSError, websockets.WebSocketException, TimeoutError) as exc:
                if self.stop.is_set():
                    return
                if not self.lost_to_kill(at):
                    self.window.errors.append(f"{table}/{seat}: {exc!r}"[:200])
                    return
                self.reconnects += 1
                if me.live:  # as the page: a live connection lost, again after 0.1-0.3 s
                    me.live, retry = False, 0.5
                    await asyncio.sleep(0.1 + 0.2 * rng.random())
                else:
                    await asyncio.sleep(retry)
                    retry = min(retry * 2, 5.0)

    async def _play(self, index: int, table: str, seat: int, secret: str, at: int,
                    sent: dict[int, tuple[float, int]], rng: random.Random,
                    me: SeatState) -> bool:
        """One connection of a seat; True when the seat is done (game over, stopped, refused)."""
        url = f"ws://{self.nodes[at]}/ws/tables/{table}"
        async with connect(url, max_size=2**22, compression=None, open_timeout=30) as ws:
            me.live = True
            await ws.send(json.dumps({"type": "hello", "seat": seat, "secret": secret}))
            while not self.stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=30)
                except TimeoutError:
                    self.window.errors.append(f"{table}/{seat}: no message for 30 s")
                    return True
                msg = decode(raw)
                now = time.perf_counter()
                if msg["type"] == "error":
                    if msg["code"] == "forbidden":
                        self.window.lost_seats += 1
                        return True
                    self.window.errors.append(f"{table}/{seat}: {msg['code']}")
                    me.chosen = None  # refused: not applied
                    continue
                if msg["type"] != "state":
                    continue
                move = msg["move"]
                if self.killed is not None and at != self.killed \
                        and index not in self.served_after_kill:
                    self.served_after_kill[index] = self.since_kill(index, now)
                if me.chosen is not None and move > me.chosen[0]:
                    self._acked(index, table, me.chosen, at)
                    me.chosen = None
                for m in range(max(me.seen + 1, move - 8), move):  # moves this message shows
                    if m in sent:
                        t0, mover = sent[m]
                        (self.window.local if mover == at else self.window.cross).append(now - t0)
                me.seen = max(me.seen, move - 1)
                if msg["status"] == "over":
                    return True
                if not msg["legal"]:
                    continue
                if me.chosen is not None and me.chosen[0] == move:  # sent on a connection lost
                    await ws.send(json.dumps({"type": "move", "action": me.chosen[1], "move": move}))
                elif move not in sent:  # (a state may come twice)
                    if me.thinking is None or me.thinking[0] != move:
                        me.thinking = (move, now + self.args.think * (0.5 + rng.random()))
                    # the page sees its socket close at once, while its player thinks (and
                    # reconnects; the player, still thinking, moves when they have decided)
                    wait = me.thinking[1] - time.perf_counter()
                    if wait > 0:
                        try:
                            await asyncio.wait_for(ws.wait_closed(), wait)
                        except TimeoutError:
                            pass
                        else:
                            await ws.recv()  # closed: raises, and the seat reconnects
                    if self.stop.is_set():
                        return True
                    choice = rng.choice(msg["legal"])["id"]
                    me.chosen = (move, choice)
                    sent[move] = (time.perf_counter(), at)
                    self.window.moves += 1
                    await ws.send(json.dumps({"type": "move", "action": choice, "move": move}))
        return True

    def resize(self, tables: int) -> None:
        """Play ``tables`` tables: start more, or drop the last ones (their games left as they
        are: a bisection step below the last needs fewer)."""
        while len(self.tasks) < tables:
            self.tasks.append(asyncio.create_task(self.table_loop(len(self.tasks))))
        while len(self.tasks) > tables:
            self.seated.discard(len(self.tasks) - 1)
            self.dropped.append(self.tasks.pop())
            self.dropped[-1].cancel()

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
        await asyncio.gather(*self.tasks, *self.dropped, return_exceptions=True)
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


# A server under cProfile timed by its event loop thread's CPU time: under a CPU budget, wall
# time charges the kernel's holds to whatever call was running when they came.
PROFILED = """import cProfile, runpy, sys, time
out = sys.argv.pop(1)
profile = cProfile.Profile(time.thread_time)
profile.enable()
try:
    runpy.run_module("meeple.server", run_name="__main__", alter_sys=True)
finally:
    profile.disable()
    profile.dump_stats(out)
"""


def start_servers(args: argparse.Namespace, db: str, redis: str | None, logdir: str) -> list[subprocess.Popen]:
    procs = []
    args.budgets = []
    run_id = uuid.uuid4().hex[:8]
    # each server's name in the lease table, so that the kill can follow the killed one's leases
    args.node_ids = [f"load{i}-{run_id}" for i in range(args.nodes)]
    if args.server_cpus:
        try:
            args.budgets = [CpuBudget(f"meeple-load-{run_id}-{i}", args.server_cpus,
                                      period_us=int(args.budget_period_ms * 1000))
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
        prof = ["-c", PROFILED, os.path.join(args.profile, f"server{i}.prof")] \
            if args.profile else ["-m", "meeple.server"]
        cmd = [sys.executable, *prof, "--host", "127.0.0.1", "--port", str(port),
               "--database-url", db, "--bot-delay", "0"]
        if redis:
            cmd += ["--redis-url", redis]
        log = open(os.path.join(logdir, f"server{i}.log"), "wb")
        env["MEEPLE_NODE_ID"] = args.node_ids[i] if redis else "local"
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


def judged_p99(judge: str, pooled: float, windows: list[float]) -> float:
    """The p99 a ramp step is judged on: ``pooled``, the p99 of all its windows' deliveries
    together; ``median``, the median of the windows' own p99s (a window with fewer than two
    deliveries counts as failed), so that one window's passing stall does not decide the step
    while a queue that persists (a server past its capacity) fails every window."""
    if judge == "pooled" or not windows:
        return pooled
    return statistics.median([math.inf if math.isnan(x) else x for x in windows])


def nearest_rank(values: list[float], p: float) -> float | None:
    """The p-th percentile by nearest rank (a sample of a few tables has no smoother one)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered), math.ceil(p / 100 * len(ordered))) - 1)]


def spread(values: list[float]) -> dict[str, float | None]:
    return {"max": round(max(values), 2) if values else None,
            "p99": round(nearest_rank(values, 99), 2) if values else None,
            "p50": round(nearest_rank(values, 50), 2) if values else None}


def lost_moves(acked: dict[tuple[str, int], int],
               stored: dict[tuple[str, int], int]) -> list[tuple[str, int, int, int | None]]:
    """Acknowledged moves the log does not hold as acknowledged: (table, move number, action
    acknowledged, action stored or None)."""
    return [(table, n, action, stored.get((table, n)))
            for (table, n), action in sorted(acked.items()) if stored.get((table, n)) != action]


def stored_actions(db: str, tables: set[str]) -> dict[tuple[str, int], int]:
    """(table, move number) -> action, as the database holds them."""
    import sqlalchemy as sa

    engine = sa.create_engine(db, pool_size=1)
    out: dict[tuple[str, int], int] = {}
    ids = sorted(tables)
    query = sa.text("SELECT table_id, n, action FROM meeple_actions WHERE table_id IN :ids"
                    ).bindparams(sa.bindparam("ids", expanding=True))
    try:
        with engine.connect() as conn:
            for i in range(0, len(ids), 1000):
                for table, n, action in conn.execute(query, {"ids": ids[i:i + 1000]}):
                    out[(table, n)] = action
    finally:
        engine.dispose()
    return out


class LeaseWatch:
    """The running tables whose lease the killed server held, and when each passed to another
    server (polled from the database every 0.2 s)."""

    def __init__(self, db: str, node_id: str) -> None:
        import sqlalchemy as sa

        self.engine = sa.create_engine(db, pool_size=1)
        self.query = sa.text(
            "SELECT l.table_id FROM meeple_leases l JOIN meeple_tables t ON t.id = l.table_id "
            "WHERE l.holder LIKE :holder AND t.status = 'running'")
        self.holder = node_id + ":%"
        self.held: set[str] = set()
        self.moved: dict[str, float] = {}

    def _now_held(self) -> set[str]:
        with self.engine.connect() as conn:
            return set(conn.execute(self.query, {"holder": self.holder}).scalars())

    def start(self) -> None:
        self.held = self._now_held()

    def follow(self, since: float, seconds: float) -> None:
        while self.held - set(self.moved) and time.perf_counter() < since + seconds:
            time.sleep(0.2)
            still = self._now_held()
            for table in self.held - still - set(self.moved):
                self.moved[table] = time.perf_counter() - since

    def close(self) -> None:
        self.engine.dispose()


async def kill_phase(args: argparse.Namespace, load: Load, procs: list[subprocess.Popen],
                     tables: int) -> dict:
    """kill -9 one server with ``tables`` tables playing and keep playing for
    ``--kill-seconds``: how long each of its tables took to answer a move on another server,
    and how long its leases took to pass to another server (tables with a time limit)."""
    victim = args.kill_node % len(procs)
    on_victim = {i for i in range(tables) for seat in range(args.players)
                 if load.node_of(i, seat) == victim}
    watch = LeaseWatch(args.db, args.node_ids[victim])
    await asyncio.to_thread(watch.start)
    living = [p for i, p in enumerate(procs) if i != victim]
    m0 = [await asyncio.to_thread(scrape, p.port) for p in living]  # type: ignore[attr-defined]
    cpu0 = [cpu_seconds(p.pid) for p in living]
    load.window = Window()
    load.kill_at = time.perf_counter()
    load.killed = victim
    load.pausing_at_kill = set(load.pausing)
    procs[victim].send_signal(signal.SIGKILL)
    print(f"killed server {victim} (kill -9) with {tables} tables, {len(on_victim)} of them on "
          f"it and {len(watch.held)} leases held by it", flush=True)
    follow = asyncio.create_task(asyncio.to_thread(watch.follow, load.kill_at, args.kill_seconds))
    await asyncio.sleep(args.kill_seconds)
    await follow
    watch.close()
    cpu1 = [cpu_seconds(p.pid) for p in living]
    m1 = [await asyncio.to_thread(scrape, p.port) for p in living]  # type: ignore[attr-defined]
    w = load.window
    moved = {i: t for i, t in load.acked_after_kill.items() if i in on_victim}
    others = [t for i, t in load.acked_after_kill.items() if i not in on_victim]
    both = w.local + w.cross
    playing = {i: t for i, t in moved.items() if i not in load.pausing_at_kill}
    out = {"killed_server": victim, "tables": tables, "tables_on_killed": len(on_victim),
           "pausing_at_kill": len(on_victim & load.pausing_at_kill),
           "tables_moved": len(moved), "takeover_s": spread(list(moved.values())),
           "takeover_s_playing_at_kill": spread(list(playing.values())),
           "served_s": spread([t for i, t in load.served_after_kill.items() if i in on_victim]),
           "others_next_move_s": spread(others),
           "leases_held": len(watch.held), "leases_moved": len(watch.moved),
           "lease_takeover_s": spread(list(watch.moved.values())),
           "bound_s": args.takeover_bound, "reconnects": load.reconnects,
           "errors": len(w.errors), "lost_seats": w.lost_seats,
           "p99_ms_after_kill": round(q(both, 99), 1) if len(both) > 1 else None}
    print(f"after the kill: p50={q(both, 50):.1f} p99={q(both, 99):.1f} ms over {len(both)} "
          f"deliveries, errors={len(w.errors)} lost_seats={w.lost_seats}"
          + (f" kinds={collections.Counter(e.split(': ', 1)[-1][:90] for e in w.errors)}"
             if w.errors else ""), flush=True)
    cpu = [round((b or 0) - (a or 0), 1) for a, b in zip(cpu0, cpu1, strict=True)]
    print(f"after the kill, the living servers: moves={w.moves} server_cpu_s={cpu} "
          f"stalls=[{'; '.join(stalls(a, b) for a, b in zip(m0, m1, strict=True))}]", flush=True)
    return out


def kill_verdict(kill: dict) -> list[str]:
    """What the kill run got wrong against the documented takeover time (empty: nothing)."""
    bound, faults = kill["bound_s"], []
    if kill["tables_moved"] < kill["tables_on_killed"]:
        faults.append(f"{kill['tables_on_killed'] - kill['tables_moved']} of the killed "
                      "server's tables answered no move elsewhere")
    if (kill["takeover_s"]["max"] or 0) > bound:
        faults.append(f"a table took {kill['takeover_s']['max']} s to answer a move (> {bound} s)")
    if kill["leases_moved"] < kill["leases_held"]:
        faults.append(f"{kill['leases_held'] - kill['leases_moved']} leases never moved")
    if (kill["lease_takeover_s"]["max"] or 0) > bound:
        faults.append(f"a lease took {kill['lease_takeover_s']['max']} s to move (> {bound} s)")
    if kill["lost_moves"]:
        faults.append(f"{kill['lost_moves']} acknowledged moves lost")
    if kill["errors"] or kill["lost_seats"]:
        faults.append(f"{kill['errors']} errors, {kill['lost_seats']} lost seats")
    return faults


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
    # room to stop the servers, and for the kill's own window
    deadline = time.monotonic() + args.max_seconds - 15 - (
        args.warmup + args.step_seconds + args.kill_seconds + 10 if args.kill_at_peak else 0)
    best = {"nodes": args.nodes, "server_cpus": args.server_cpus, "max_tables": 0, "p99_ms": None,
            "errors": 0, "lost_seats": 0}
    totals = {"errors": 0, "lost_seats": 0}
    meter = CpuMeter(args.db, args.redis, procs)
    steps: list[dict] = []

    async def window(tables: int, label: str) -> tuple[Window, dict]:
        """One measuring window at ``tables`` tables: prints its line."""
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
        totals["errors"] += len(w.errors)
        totals["lost_seats"] += w.lost_seats
        cpu = [round((b or 0) - (a or 0), 1) for a, b in zip(cpu0, cpu1, strict=True)]
        bus = [(b.get("meeple_bus_received_messages", 0) - a.get("meeple_bus_received_messages", 0),
                b.get("meeple_bus_received_bytes", 0) - a.get("meeple_bus_received_bytes", 0))
               for a, b in zip(m0, m1, strict=True)]
        bus_per_move = [round(n / max(1, w.moves), 3) for n, _ in bus]
        bus_bytes_per_move = [round(nb / max(1, w.moves), 1) for _, nb in bus]
        sent_per_move = [round((b.get("meeple_bus_published_messages", 0)
                                - a.get("meeple_bus_published_messages", 0)) / max(1, w.moves), 3)
                         for a, b in zip(m0, m1, strict=True)]
        print(f"{label}tables={tables} moves/s={w.moves / args.step_seconds:.0f} "
              f"deliveries={len(both)} "
              f"p50={q(both, 50):.1f} p99={q(both, 99):.1f} ms (same server p99={q(w.local, 99):.1f}, "
              f"other server p99={q(w.cross, 99):.1f}) errors={len(w.errors)} "
              f"lost_seats={w.lost_seats} server_cpu_s={cpu} "
              f"server_cpu_ms_per_move={sum(cpu) * 1e3 / max(1, w.moves):.2f} "
              f"client_cpu_s={own:.1f} cpu_s_per_1000_moves={per_k} "
              f"client_lag>50ms={sum(x > 0.05 for x in w.lag)} "
              f"max={max(w.lag, default=0) * 1e3:.0f}ms "
              f"client_gc2={len(w.gc_pauses)}/{sum(w.gc_pauses) * 1e3:.0f}ms "
              f"load={os.getloadavg()[0]:.1f} host_idle={idle:.2f} "
              f"bus_msgs_per_move={bus_per_move} bus_bytes_per_move={bus_bytes_per_move} "
              f"bus_sent_per_move={sent_per_move} "
              f"stalls=[{'; '.join(stalls(a, b) for a, b in zip(m0, m1, strict=True))}]"
              + (f" kinds={collections.Counter(e.split(': ', 1)[-1][:90] for e in w.errors)}"
                 if w.errors else ""), flush=True)
        return w, {"cpu_s_per_1000_moves": per_k,
                   "server_cpu_s_per_1000_moves": [round(c * 1e3 / max(1, w.moves), 2) for c in cpu],
                   "host_idle": round(idle, 3), "bus_msgs_per_move": bus_per_move,
                   "bus_bytes_per_move": bus_bytes_per_move, "bus_sent_per_move": sent_per_move}

    async def settle(tables: int) -> None:
        """After a resize: wait until every table slot is seated (at most 60 s), then
        ``--warmup`` seconds, so that no window measures the new tables' set-up."""
        end = time.monotonic() + 60
        while not set(range(tables)) <= load.seated and time.monotonic() < end:
            await asyncio.sleep(0.1)
        await asyncio.sleep(args.warmup)

    async def step(tables: int) -> bool:
        """``tables`` tables, warmed up, measured over ``--repeat`` windows: it holds when the
        p99 (``--judge pooled``: of all their deliveries together; ``median``: the median of
        the windows' p99s) is under 100 ms with no error or refused seat."""
        load.resize(tables)
        await settle(tables)
        pooled: list[float] = []
        each: list[float] = []
        moves = faults = 0
        for r in range(args.repeat):
            w, detail = await window(tables, f"[{r + 1}/{args.repeat}] " if args.repeat > 1 else "")
            pooled += w.local + w.cross
            each.append(q(w.local + w.cross, 99))
            moves += w.moves
            faults += len(w.errors) + w.lost_seats
        p99 = q(pooled, 99)
        judged = judged_p99(args.judge, p99, each)
        ok = judged < 100 and not faults and len(pooled) > 10
        if args.repeat > 1:
            print(f"step tables={tables} windows={args.repeat} deliveries={len(pooled)} "
                  f"p99={p99:.1f} ms windows_p99={[round(x, 1) for x in each]} "
                  f"judged ({args.judge})={judged:.1f} ms {'holds' if ok else 'does not hold'}",
                  flush=True)
        if ok and tables > best["max_tables"]:
            best.update(max_tables=tables, p99_ms=round(p99, 1), judged_p99_ms=round(judged, 1),
                        **detail)
        steps.append({"tables": tables, "moves": moves, "p99_ms": round(p99, 1),
                      "windows_p99_ms": [round(x, 1) for x in each],
                      "judged_p99_ms": round(judged, 1), "ok": ok,
                      **{k: detail[k] for k in ("cpu_s_per_1000_moves", "host_idle",
                                                "bus_msgs_per_move")}})
        return ok

    def room() -> bool:
        return time.monotonic() + args.warmup + args.repeat * args.step_seconds < deadline

    kill = None
    try:
        tables = args.start if args.ramp else args.tables
        ok = await step(tables)
        if args.ramp:
            good, bad = (tables, None) if ok else (0, tables)
            while ok:
                nxt = max(tables + 10, int(tables * args.growth))
                if nxt > args.max_tables or not room():
                    break
                tables = nxt
                ok = await step(tables)
                good, bad = (tables, bad) if ok else (good, tables)
            # bisection between the last count that held and the first that did not
            for _ in range(args.refine):
                if not good or bad is None or bad - good <= max(1, good // 50) or not room():
                    break
                mid = (good + bad) // 2
                if await step(mid):
                    good = mid
                else:
                    bad = mid
        if args.kill_at_peak:
            peak = best["max_tables"] if args.ramp else args.tables
            if not peak:
                print("no step held p99 < 100 ms: nothing to kill at", flush=True)
            else:
                if args.ramp:  # back to the peak, measured once more just before the kill
                    load.resize(peak)
                    await settle(peak)
                    await window(peak, "peak before the kill: ")
                kill = await kill_phase(args, load, procs, peak)
    finally:
        lag_task.cancel()
        await load.close()
        meter.close()
        if steps:  # where the cores went, per process kind, at each step (before the JSON)
            print("cpu_steps " + json.dumps(steps), flush=True)
    best.update(totals)
    if args.budgets:
        best["budget_stats"] = [b.stats() for b in args.budgets]
        best["budget_period_ms"] = args.budget_period_ms
    if not args.ramp:
        best["max_tables"] = args.tables if best["p99_ms"] is not None else 0
    if kill is not None:
        stored = await asyncio.to_thread(stored_actions, args.db, {t for t, _ in load.acked})
        lost = lost_moves(load.acked, stored)
        for table, n, action, got in lost[:10]:
            print(f"LOST: table {table} move {n} acknowledged as action {action}, stored {got}")
        kill.update(acked_moves=len(load.acked), lost_moves=len(lost))
        kill["faults"] = kill_verdict(kill)
        kill["ok"] = not kill["faults"]
        best["kill"] = kill
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
    p.add_argument("--pause", type=float, default=0.0, metavar="S",
                   help="players wait a random 0-S seconds before each game (0: back to back)")
    p.add_argument("--database-url", default=os.environ.get("MEEPLE_TEST_POSTGRES_URL"))
    p.add_argument("--redis-url", default=os.environ.get("MEEPLE_TEST_REDIS_URL"))
    p.add_argument("--redis-for-one", action="store_true",
                   help="a lone server runs with Redis and a node name too, as one of several "
                        "would (by default it runs as a single deployment does: no Redis, 'local')")
    p.add_argument("--placement", choices=["ring", "table"], default="table",
                   help="table: all of a table's seats on one server, as the shipped proxy "
                        "configs route them; ring: a table's seats on different servers")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--async-commit", action="store_true",
                   help="servers with MEEPLE_DB_SYNC_COMMIT=off (no WAL flush in a move's path: "
                        "shows the servers' limit rather than the disk's)")
    p.add_argument("--server-cpus", type=float, default=None, metavar="Q",
                   help="each server in a CPU budget of Q cores of its own (a cgroup; needs root)")
    p.add_argument("--budget-period-ms", type=float, default=PERIOD_US / 1000, metavar="MS",
                   help="the budgets' accounting period (cfs_period_us; see cpu_budget.py)")
    p.add_argument("--repeat", type=int, default=1, metavar="R",
                   help="measuring windows per step; a step holds on the p99 of all R together")
    p.add_argument("--judge", choices=["median", "pooled"], default="median",
                   help="a step holds on the median of its windows' p99s (median; with "
                        "--repeat 3 or more one window's passing stall does not decide it) or "
                        "on the p99 of all its windows' deliveries together (pooled)")
    p.add_argument("--refine", type=int, default=0, metavar="K",
                   help="after the ramp, up to K bisection steps between the last table count "
                        "that held and the first that did not")
    p.add_argument("--kill-at-peak", action="store_true",
                   help="at the peak (the most tables that held, or --tables without --ramp), "
                        "kill -9 one server and keep playing: takeover times and lost moves")
    p.add_argument("--kill-node", type=int, default=-1, help="the server killed (default: the last)")
    p.add_argument("--failover", choices=["spread", "next"], default="spread",
                   help="where a dead server's players go: spread over the living servers by "
                        "a hash of the table (as Caddy's uri_hash and nginx's hash consistent "
                        "do), or all to the next living server by index")
    p.add_argument("--kill-seconds", type=float, default=30.0,
                   help="seconds of play after the kill")
    p.add_argument("--time-limit", type=float, default=None, metavar="S",
                   help="tables with a time limit of S seconds a move (each then has a lease, "
                        "which a kill moves to another server)")
    p.add_argument("--profile", metavar="DIR", help="run the servers under cProfile, writing "
                   "DIR/server<i>.prof when they stop")
    args = p.parse_args()
    args.nodes = max(1, min(args.nodes, 8))
    args.max_seconds = min(args.max_seconds, 1800.0)
    args.repeat = max(1, args.repeat)
    if args.kill_at_peak and args.nodes < 2:
        sys.exit("--kill-at-peak needs two servers or more (--nodes)")
    # docs/web.md, "Many servers": a lease unrenewed for MEEPLE_LEASE_SECONDS is taken over by
    # another server within a second or two; a table without a lease is served by any server
    args.takeover_bound = float(os.environ.get("MEEPLE_LEASE_SECONDS") or 3.0) + 2.0
    tmp = tempfile.mkdtemp(prefix="meeple-load-")
    drop = lambda: None  # noqa: E731
    if args.database_url and not args.database_url.startswith("sqlite"):
        db, drop = fresh_database(args.database_url)
    elif args.nodes == 1:
        db = args.database_url or f"sqlite:///{os.path.join(tmp, 'load.db')}"
    else:
        sys.exit("several servers need PostgreSQL (--database-url or MEEPLE_TEST_POSTGRES_URL)")
    redis = args.redis_url if args.nodes > 1 or args.redis_for_one else None
    if (args.nodes > 1 or args.redis_for_one) and not redis:
        sys.exit("several servers (and --redis-for-one) need Redis (--redis-url or MEEPLE_TEST_REDIS_URL)")
    args.db, args.redis = db, redis
    started = time.monotonic()
    procs: list[subprocess.Popen] = []
    try:
        procs = start_servers(args, db, redis, tmp)
        if args.server_cpus:
            # the servers are what is measured: the generator's loop must not queue behind them
            # and PostgreSQL for the core (a late loop adds its lag to every delivery it times),
            # so as root (budgets need root) it takes a higher priority, after starting them
            try:
                os.setpriority(os.PRIO_PROCESS, 0, -10)
            except OSError:
                pass
        result = asyncio.run(asyncio.wait_for(
            run(args, [f"127.0.0.1:{p.port}" for p in procs], procs),  # type: ignore[attr-defined]
            timeout=args.max_seconds - 10))
    finally:
        stop_servers(procs, getattr(args, "budgets", []))
        drop()
    print(f"db={db.split(':')[0]} nodes={args.nodes} server_cpus={args.server_cpus} "
          f"placement={args.placement} "
          f"sync_commit={'off' if args.async_commit else 'on'} "
          f"think={args.think}s pause={args.pause}s game={args.game} "
          f"players={args.players} ran {time.monotonic() - started:.0f}s; server logs in {tmp}")
    print(json.dumps(result))
    if args.kill_at_peak and "kill" not in result:
        sys.exit("kill at the peak: no table count held p99 < 100 ms, so no server was killed")
    if result.get("kill") and not result["kill"]["ok"]:
        sys.exit("kill at the peak: " + "; ".join(result["kill"]["faults"]))


if __name__ == "__main__":
    main()
