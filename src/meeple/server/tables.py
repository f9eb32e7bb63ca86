"""Live tables: one game state per table, rebuilt from the action log, one move at a time.

A move is checked (seat, move number, legality), *logged*, and only then applied and announced.
Each connection is told only its own seat's view and choices; spectators get the public view.
Bots and zombie seats (a player who left or ran out of time) are played in `bot_seats.py`.

With several servers, this memory is a copy: seats and starts are decided in the database
(`Storage.transact`), bots and clocks run on the lease holder only (`leases.py`), and copies
catch up from pub/sub messages and a periodic version check (`presence.py`; docs/web.md,
*Many servers*).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import secrets
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

import meeple
from meeple.bots import levels
from meeple.core import State
from meeple.core.text import seat_names

from . import clocks
from .bot_seats import BotSeats
from .config import Settings
from .leases import Leases
from .ops import Metrics
from .presence import Presence
from .pubsub import LocalBus, OpenTables, RedisBus
from .storage import (
    Claim,
    DuplicateMove,
    MoveWriter,
    NotDriver,
    SeatRecord,
    Storage,
    TableRecord,
    count_actions,
    delete_actions,
    insert_table,
    presence_t,
)

log = logging.getLogger("meeple.server")

QUEUE_LIMIT = 256  # messages waiting for one slow client before it is dropped


class TableError(Exception):
    """A request the table refuses; ``code`` is machine-readable, the message human."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def new_secret() -> str:
    return secrets.token_urlsafe(18)


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_ok(secret: str | None, digest: str | None) -> bool:
    if not secret or not digest:
        return False
    return hmac.compare_digest(hash_secret(secret), digest)




@dataclass(eq=False)
class Connection:
    """One WebSocket: its seat (None: spectator) and an outgoing queue drained by a writer."""

    seat: int | None
    secret_hash: str | None = None  # the seat's secret when it said hello: a seat given away drops it
    queue: asyncio.Queue[dict[str, Any] | None] = field(
        default_factory=lambda: asyncio.Queue(QUEUE_LIMIT)
    )
    log_sent: int = 0  # events of this seat's log already sent
    closed: bool = False

    def push(self, message: dict[str, Any] | None) -> None:
        if self.closed:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:  # too slow to follow: drop it; a reconnect restores all
            self.closed = True
            self.queue = asyncio.Queue(1)
            self.queue.put_nowait(None)


@dataclass(eq=False)
class LiveTable:
    rec: TableRecord
    state: State
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    conns: set[Connection] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    timer: asyncio.TimerHandle | None = None
    deadline: float | None = None  # epoch seconds by which the seat to move must act
    # since when each person's seat has had no socket on this server (the host may hand a seat
    # gone long enough to a bot); a seat with a socket open is absent from it
    gone_since: dict[int, float] = field(default_factory=dict)
    # when another server last said it held each seat's socket (from `meeple_presence`, read
    # with the resync); recent enough, the seat shows as connected here too
    seen_elsewhere: dict[int, float] = field(default_factory=dict)
    shown_elsewhere: set[int | None] = field(default_factory=set)  # as last told the sockets
    used_at: float = field(default_factory=time.monotonic)  # last asked for (get, sockets)
    undos: int = 0  # the stored undo count `state` was built with (an undo rebuilds it)

    _logs: dict[int | None, tuple[int, list[dict[str, Any]]]] = field(default_factory=dict)
    _log_names: tuple[str | None, ...] = ()  # the seat names the cached log lines were worded with

    def seat(self, n: int) -> SeatRecord:
        return self.rec.seats[n]

    def names(self) -> tuple[str | None, ...]:
        """The names on the seats: log lines and choice labels call people by them."""
        return tuple(s.name for s in self.rec.seats)

    def renamed(self) -> bool:
        """Whether a seat's name changed since the log was last worded (someone sat down, a bot
        took a seat): the cached lines are dropped, and the caller sends every socket its log
        again from the start."""
        names = self.names()
        if names == self._log_names:
            return False
        self._log_names = names
        self._logs.clear()
        return True

    def log(self, seat: int | None) -> list[dict[str, Any]]:
        """`State.log(seat)` with the seats' names, extended incrementally: the log only grows,
        so each broadcast formats only the new events instead of the whole game's."""
        seen, mine = self._logs.get(seat, (0, []))
        size = self.state.log_size()
        if seen > size:  # the log only grows (an undo rebuilds the state and clears this)
            seen, mine = 0, []
        mine.extend(self.state.log(seat, start=seen, names=self._log_names or self.names()))
        self._logs[seat] = (size, mine)
        return mine

    def bot_plays(self, n: int) -> bool:
        s = self.rec.seats[n]
        return s.kind == "bot" or (s.kind == "human" and (s.zombie or clocks.skipping(self.rec) == n))


def check_level(level: str | None, info: meeple.core.GameInfo, settings: Settings) -> str:
    """The bot level to seat, or `TableError` ``bad_level``: a named level of the game
    (``random``, ``easy``, ``medium``, ``hard``, ``expert``, ``learned`` where offered) or the
    game's ``heuristic`` (what plays for a player who left).

    Why no knobs (``ismcts:5s``) here, when `meeple.bots` takes them: the web's bots share this
    server's pool, and a named level's cost is known (at most ``expert``'s); the arena and the
    terminal may search as long as their owner likes.
    """
    level = level or levels(info)[0]
    if level in levels(info) or (level == "heuristic" and level in info.bots):
        return level
    raise TableError("bad_level", f"level {level!r}: the web takes {', '.join(levels(info))} "
                                  "(search knobs such as ismcts:200 are for the arena and the "
                                  "terminal)")




class _NoChange(Exception):
    """Raised inside a transaction's decision: nothing to do (the transaction rolls back)."""


def _seat_of(rec: TableRecord, seat: int) -> SeatRecord:
    if not 0 <= seat < rec.players:
        raise TableError("bad_seat", f"no seat {seat}")
    return rec.seats[seat]


def _start_if_full(rec: TableRecord, now: float) -> None:
    """An open table whose every seat is taken starts (in the same transaction as the seat)."""
    if rec.status == "open" and all(s.kind in ("bot", "human") for s in rec.seats):
        rec.status = "running"
        clocks.start(rec, now)


class TableManager:
    """The live tables this server has open, loaded on demand from storage.

    Nothing is decided from this memory alone: seats, starts and rematches are decided by the
    database in one transaction (`Storage.transact`), and moves by the action log's primary key;
    a refusal is given only after re-reading the table. Bots and time limits run only on the
    server holding the table's lease (`Leases`).
    """

    def __init__(self, settings: Settings, storage: Storage, bus: LocalBus | RedisBus,
                 metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.storage = storage
        storage.clock.skew = settings.clock_skew
        self.bus = bus
        self.metrics = metrics or Metrics()
        self.tables: dict[str, LiveTable] = OpenTables(bus)
        self.client_sockets: dict[str, int] = {}  # open WebSockets per client address
        self._loading: dict[str, asyncio.Lock] = {}
        # A lone server keeps one name across restarts, so it takes its own leases back at once;
        # servers side by side each get a fresh one.
        node = settings.node_id or ("local" if isinstance(bus, LocalBus) else uuid.uuid4().hex)
        self.leases = Leases(storage, node, ttl=settings.lease_seconds,
                             every=max(0.2, settings.lease_seconds / 3))
        self.draining = False
        self._tasks: list[asyncio.Task[None]] = []
        # objects told of every change (``on_change(t)``) and bus message (``await
        # on_message(m)``): ratings, chat, matchmaking
        self.hooks: list[Any] = []
        self.bots = BotSeats(self)  # the seats no person plays, and the bot workers
        self.presence = Presence(self)  # who is here, who drives which table, the resync
        # networked database calls: more threads than asyncio's default (cores + 4), since each
        # mostly waits on the network
        self.db_threads = ThreadPoolExecutor(16, thread_name_prefix="meeple-db")
        # a move on PostgreSQL is sent from the event loop (no thread hop on the hot path)
        self.moves: MoveWriter | None = (
            MoveWriter(storage, synchronous=settings.db_sync_commit)
            if storage.engine.dialect.name == "postgresql" else None)

    async def db(self, fn: Any, *args: Any) -> Any:
        """Run a storage call. SQLite (local file, WAL, no fsync per commit) answers in well
        under a millisecond, less than handing the call to a thread costs, so it runs inline;
        a networked database runs in a thread so the event loop never waits on the network."""
        t0 = time.perf_counter()
        try:
            if self.storage.inline:
                return fn(*args)
            return await asyncio.get_running_loop().run_in_executor(self.db_threads, self._timed,
                                                                    fn, *args)
        finally:
            self.metrics.db_seconds.observe(time.perf_counter() - t0)

    async def _append(self, t: LiveTable, n: int, seat: int, action: int,
                      deadline: float | None, by_driver: bool = False,
                      clocks: str | None = None) -> int:
        """Log a move (only while the table's undo count is this copy's, and a driver's move
        only while this server holds the table's lease): on PostgreSQL straight from the event
        loop, elsewhere like any call."""
        holder = self.leases.holder if by_driver else None
        if self.moves is None:
            return await self.db(self.storage.append_action, t.rec.id, n, seat, action, None,
                                  deadline, t.undos, holder, clocks)
        t0 = time.perf_counter()
        try:
            return await self.moves.append(t.rec.id, n, seat, action, deadline, t.undos, holder,
                                           clocks)
        finally:
            took = time.perf_counter() - t0
            self.metrics.db_seconds.observe(took)
            self.metrics.db_call_seconds.labels("append_action").observe(took)

    def _timed(self, fn: Any, *args: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args)
        finally:
            self.metrics.db_call_seconds.labels(getattr(fn, "__name__", "?")).observe(
                time.perf_counter() - t0)

    # ----- lifecycle ----------------------------------------------------------------------------
    async def start(self) -> None:
        """Take up every running table nobody drives (all of them, for a lone server), then
        keep leases renewed and resync the tables this server has open."""
        await self.bus.start(self.on_bus, self.wants)
        await self.presence.lease_tick()
        self._tasks = self.presence.tasks()

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for t in self.tables.values():
            self.bots.stop(t)
            for c in t.conns:
                c.push(None)
        try:  # hand the tables on at once (others credit no downtime)
            await self.db(self.leases.release_all)
        except Exception:
            log.warning("could not release leases", exc_info=True)
        await self.bus.stop()
        if self.moves is not None:
            await self.moves.close()
        self.bots.shutdown()
        self.db_threads.shutdown(wait=False)

    async def drain(self) -> None:
        """SIGTERM: no new tables, leases handed on, every socket told to reconnect elsewhere."""
        self.draining = True
        for t in self.tables.values():
            self.bots.stop(t)
        await self.db(self.leases.release_all)
        for t in list(self.tables.values()):
            for c in list(t.conns):
                c.push({"type": "reconnect", "message": "this server is restarting; reconnect"})
                c.push(None)
        log.info("draining: leases released, sockets told to reconnect")

    # ----- loading ------------------------------------------------------------------------------
    async def get(self, table_id: str) -> LiveTable:
        t = self.tables.get(table_id)
        if t is not None:
            t.used_at = time.monotonic()
            return t
        lock = self._loading.setdefault(table_id, asyncio.Lock())
        try:
            async with lock:
                if table_id in self.tables:
                    return self.tables[table_id]
                await self.bus.watch(table_id)  # before the read: no move falls in between
                try:
                    return await self._load(table_id)
                except BaseException:
                    if table_id not in self.tables:
                        self.bus.unwatch(table_id)
                    raise
        finally:  # no lock is kept per id ever asked for (ids come from anyone)
            if self._loading.get(table_id) is lock and not lock.locked():
                del self._loading[table_id]

    async def _load(self, table_id: str) -> LiveTable:
        """Rebuild a table from storage: its record, then every logged action in order."""
        rec, actions = await self.db(self.storage.snapshot, table_id, 0)
        if rec is None:
            raise TableError("no_table", f"no table {table_id!r}")
        state = meeple.make(rec.game, rec.players, rec.seed, **rec.options)
        for a in actions:
            state.apply(a)
        t = LiveTable(rec=rec, state=state, deadline=rec.deadline, undos=rec.undos)
        t.gone_since = {s.seat: self.storage.clock.now() for s in rec.seats if s.kind == "human"}
        await self._cap_stored_levels(t)
        if state.is_over() and rec.status != "over":  # killed between the log and the status
            rec.status = "over"
            await self.db(self.storage.set_status, rec.id, "over")
        if rec.status == "open" and all(s.kind in ("bot", "human") for s in rec.seats):
            # every seat taken but never started (a crash between two writes, before 0003)
            rec.status = "running"
            await self.db(self.storage.set_status, rec.id, "running")
        self.tables[table_id] = t
        await self._arm_timer_from_log(t)
        self.bots.schedule(t)
        return t

    async def _cap_stored_levels(self, t: LiveTable) -> None:
        """A bot level stored before the caps (or under looser ones) is clamped to the game's
        default level on load, so no restart resumes an unbounded search."""
        info = meeple.game_info(t.rec.game)
        for s in t.rec.seats:
            if s.kind != "bot":
                continue
            try:
                check_level(s.level, info, self.settings)
            except TableError:
                level = levels(info)[0] if "heuristic" not in info.bots else "heuristic"
                log.warning("table %s seat %d: level %r is over this server's caps; %s plays it",
                            t.rec.id, s.seat, s.level, level)
                new = SeatRecord(s.seat, "bot", name=f"Bot {s.seat + 1} ({level})", level=level)
                await self.db(self.storage.update_seat, t.rec.id, new, "bot")
                t.rec.seats[s.seat] = new

    def evict_if_idle(self, t: LiveTable) -> None:
        """Forget a finished table nobody watches; replays rebuild it from the log on demand."""
        if t.rec.status == "over" and not t.conns and self.tables.get(t.rec.id) is t:
            del self.tables[t.rec.id]

    async def _arm_timer_from_log(self, t: LiveTable) -> None:
        """Tables stored before 0003 have no stored deadline: count from the last move."""
        if t.rec.time_limit is None or t.rec.status != "running" or t.deadline is not None:
            return
        last = await self.db(self.storage.last_action_time, t.rec.id)
        start = last.timestamp() if last is not None else t.rec.updated_at.timestamp()
        t.deadline = start + t.rec.time_limit

    def _set_rec(self, t: LiveTable, rec: TableRecord) -> None:
        """Take the stored record as the truth (seats, status, deadline, version)."""
        present = self.presence.present(t)
        for old, new in zip(t.rec.seats, rec.seats, strict=True):
            if new.kind == "human" and new.secret_hash != old.secret_hash and new.seat not in present:
                t.gone_since[new.seat] = self.storage.clock.now()
            elif new.kind != "human":
                t.gone_since.pop(new.seat, None)
        t.rec = rec
        t.deadline = rec.deadline if rec.status == "running" else None

    async def catch_up(self, t: LiveTable) -> bool:
        """Apply moves other servers logged, and re-read seats and status. True if anything changed."""
        rec, actions = await self.db(self.storage.snapshot, t.rec.id, len(t.state.history))
        if rec is None:
            return False
        rebuilt = rec.undos != t.undos
        if rebuilt:  # steps were undone: the log is no longer our history's extension
            rec, actions = await self.db(self.storage.snapshot, t.rec.id, 0)
            if rec is None:
                return False
            self._rebuild(t, rec.undos)
        for a in actions:
            t.state.apply(a)
        changed = rebuilt or bool(actions) or rec.version != t.rec.version or rec.seats != t.rec.seats \
            or rec.status != t.rec.status or rec.rematch != t.rec.rematch
        if changed:
            self._set_rec(t, rec)
        if t.state.is_over():
            t.rec.status = "over"
            t.deadline = None
        return changed

    def _rebuild(self, t: LiveTable, undos: int) -> None:
        """Start the state again from the setup (the caller applies the whole log), after an
        undo. Every socket gets its log again from the start: the undone steps' events are
        gone from it."""
        t.state = meeple.make(t.rec.game, t.rec.players, t.rec.seed, **t.rec.options)
        t.undos = undos
        t._logs.clear()
        for c in t.conns:
            c.log_sent = 0

    async def refresh(self, t: LiveTable) -> None:
        """Read the table before refusing anything: another server may have changed it."""
        async with t.lock:
            if await self.catch_up(t):
                self.changed(t, publish=False)

    async def reread(self, t: LiveTable) -> None:
        """Read the table again and show it to everyone, changed or not (its seats became an
        account's: the sockets show the new names)."""
        async with t.lock:
            await self.catch_up(t)
            self.changed(t)

    def wants(self, message: dict[str, Any]) -> bool:
        """A bus message worth a task here: about a table open here, or about no table (the
        matchmaker's "seated"). A move of a table nobody here watches is dropped at once."""
        table = message.get("table")
        return table is None or str(table) in self.tables

    async def on_bus(self, message: dict[str, Any]) -> None:
        """Another server changed a table. A move carries its action: applied straight away
        when it is the very next change; anything else is read from the database."""
        if message.get("hello"):
            # another server opened the table: our version tells it whether it read the
            # database before a move of ours that we did not publish (nobody else had it open)
            t = self.tables.get(str(message.get("table")))
            if t is not None:
                self.bus.send({"table": t.rec.id, "version": t.rec.version})
            return
        for hook in self.hooks:
            await hook.on_message(message)
        if message.get("chat") is not None:
            return  # a chat message: the table itself did not change
        t = self.tables.get(str(message.get("table")))
        if t is None:
            return
        async with t.lock:
            n, version = message.get("n"), message.get("version")
            if isinstance(version, int) and version <= t.rec.version:
                return  # old news (we read it already)
            if isinstance(n, int) and n == len(t.state.history) and version == t.rec.version + 1:
                try:
                    t.state.apply(int(message["action"]))
                except Exception:  # cannot be the next move after all: read the log
                    log.warning("table %s: bus move %s does not apply; resyncing", t.rec.id, n)
                else:
                    t.rec.version = version
                    t.deadline = t.rec.deadline = message.get("deadline")
                    if isinstance(message.get("clocks"), str):
                        t.rec.clocks = message["clocks"]
                    if t.state.is_over():
                        t.rec.status, t.deadline = "over", None
                    if isinstance(message.get("at"), int | float):
                        self.metrics.bus_seconds.observe(
                            max(0.0, self.storage.clock.now() - message["at"]))
                    self.changed(t, publish=False)
                    return
            if await self.catch_up(t):
                self.changed(t, publish=False)

    # ----- creating and seating -----------------------------------------------------------------
    async def create(
        self,
        game: str,
        players: int,
        options: dict[str, Any],
        seats: list[tuple[str, str | None]],
        name: str | None = None,
        time_limit: float | None = None,
        rematch_of: str | None = None,
        seed: int | None = None,
        client: str | None = None,
        claim: Claim | None = None,
        user: int | None = None,
        speed: dict[str, Any] | None = None,
    ) -> tuple[LiveTable, str, dict[int, str]]:
        """A new table; returns it, the host secret and the secrets of the seats taken ("me").
        ``speed``: see `clocks.Speed` (else ``time_limit``, a time per move, is converted)."""
        if self.draining:
            raise TableError("draining", "this server is restarting; try again")
        t, host, taken = self._new_table(game, players, options, seats, name, time_limit,
                                         rematch_of, seed, client, user, speed)
        answer = self.create_answer(t, host, taken) if claim else None
        await self.bus.watch(t.rec.id)
        try:
            await self.db(self.storage.create_table, t.rec, claim, answer)
        except BaseException:
            self.bus.unwatch(t.rec.id)
            raise
        self.tables[t.rec.id] = t
        await self.presence.claim(t)
        return t, host, taken

    def create_answer(self, t: LiveTable, host: str, taken: dict[int, str]) -> dict[str, Any]:
        """What `POST /api/tables` answers."""
        out: dict[str, Any] = {"id": t.rec.id, "host": host, "table": self.summary(t)}
        if taken:
            seat, secret = next(iter(taken.items()))
            out.update(seat=seat, secret=secret)
        return out

    def _new_table(self, game: str, players: int, options: dict[str, Any],
                   seats: list[tuple[str, str | None]], name: str | None,
                   time_limit: float | None, rematch_of: str | None, seed: int | None,
                   client: str | None, user: int | None = None,
                   speed: dict[str, Any] | None = None) -> tuple[LiveTable, str, dict[int, str]]:
        info = meeple.game_info(game)
        resolved = info.resolve_options(players, options)
        if len(seats) > players:
            raise TableError("bad_seats", f"{players} seats, not {len(seats)}")
        seats = seats + [("open", None)] * (players - len(seats))
        if sum(kind == "me" for kind, _ in seats) > 1:
            raise TableError("bad_seats", "the creator takes at most one seat")
        host = new_secret()
        taken: dict[int, str] = {}
        records: list[SeatRecord] = []
        for n, (kind, level) in enumerate(seats):
            if kind == "bot":
                level = check_level(level, info, self.settings)
                records.append(SeatRecord(n, "bot", name=f"Bot {n + 1} ({level})", level=level))
            elif kind == "me":
                if not name:
                    raise TableError("bad_seats", "give a display name to take a seat")
                taken[n] = new_secret()
                records.append(SeatRecord(n, "human", name=name, secret_hash=hash_secret(taken[n]),
                                          client_hash=hash_secret(client) if client else None,
                                          user_id=user))
            else:
                records.append(SeatRecord(n))
        seed = secrets.randbits(62) if seed is None else seed
        speed, time_limit = clocks.settle(speed, time_limit)
        state = meeple.make(game, players, seed, **resolved)
        rec = TableRecord(
            id=secrets.token_hex(6), game=game, players=players, seed=seed, options=resolved,
            host_hash=hash_secret(host), time_limit=time_limit, rematch_of=rematch_of,
            seats=records, speed=speed,
        )
        _start_if_full(rec, self.storage.clock.now())
        t = LiveTable(rec=rec, state=state, deadline=rec.deadline)
        t.gone_since = {n: self.storage.clock.now() for n in taken}
        return t, host, taken

    async def change(self, t: LiveTable, decide: Any, claim: Claim | None = None) -> Any:
        """Decide a change in the database (one transaction on the stored table), then take
        the stored result as this server's copy, tell everyone, and drive it if it started."""
        async with t.lock:
            before = t.rec
            try:
                rec, out = await self.db(self.storage.transact, t.rec.id, decide, claim)
            except LookupError:
                raise TableError("no_table", "no such table") from None
            except TableError:
                if await self.catch_up(t):  # our copy was behind: show the truth
                    self.changed(t, publish=False)
                raise
            stale = rec.version != before.version + 1
            self._set_rec(t, rec)
            if stale or rec.undos != t.undos:
                await self.catch_up(t)
            self.changed(t)
        await self.presence.claim(t)  # started, or a bot now plays a seat
        return out

    async def join(self, t: LiveTable, seat: int, name: str, secret: str | None,
                   client: str | None = None, claim: Claim | None = None,
                   user: int | None = None, bot: bool = False) -> str:
        """Take an open seat (or an invited one, with its secret); returns the seat secret.

        An invite secret is spent here: the joiner gets a fresh secret, so the host (or anyone
        who saw the link) cannot open the seat afterwards, read the hand or move for them.
        ``client`` is the browser's client cookie: one browser takes one open seat per table
        (only the host, by invite, seats a browser twice).
        """
        _seat_of(t.rec, seat)
        mine = hash_secret(client) if client else None
        fresh = new_secret()

        def decide(rec: TableRecord, _conn: Any) -> dict[str, Any]:
            s = _seat_of(rec, seat)
            if s.kind == "open":
                if mine is None:
                    raise TableError("no_client", "this browser sent no client cookie; reload the page")
                if any(o.client_hash == mine or (user is not None and o.user_id == user)
                       for o in rec.seats if o.kind == "human"):
                    raise TableError("one_seat", "you already have a seat at this table")
            elif not (s.kind == "invited" and secret_ok(secret, s.secret_hash)):
                raise TableError("seat_taken", f"seat {seat} is not free")
            rec.seats[seat] = SeatRecord(seat, "human", name=name, secret_hash=hash_secret(fresh),
                                         client_hash=mine, user_id=user, account_bot=bot)
            _start_if_full(rec, self.storage.clock.now())
            return {"id": rec.id, "seat": seat, "secret": fresh}

        return (await self.change(t, decide, claim))["secret"]

    async def host_seat(self, t: LiveTable, host: str, seat: int, kind: str, level: str | None) -> str | None:
        """The host fills an open seat with a bot, or reserves it for an invite link."""
        if not secret_ok(host, t.rec.host_hash):
            raise TableError("forbidden", "only the table's host may do that")
        _seat_of(t.rec, seat)
        if kind == "bot":
            level = check_level(level, meeple.game_info(t.rec.game), self.settings)
            new = SeatRecord(seat, "bot", name=f"Bot {seat + 1} ({level})", level=level)
            secret = None
        else:
            secret = new_secret()
            new = SeatRecord(seat, "invited", secret_hash=hash_secret(secret))

        def decide(rec: TableRecord, _conn: Any) -> None:
            if _seat_of(rec, seat).kind not in ("open", "invited"):
                raise TableError("seat_taken", f"seat {seat} is not free")
            rec.seats[seat] = new
            _start_if_full(rec, self.storage.clock.now())

        await self.change(t, decide)
        return secret

    async def host_reopen(self, t: LiveTable, host: str, seat: int) -> None:
        """Before the start, the host removes a player, a bot or an unused invite: the seat is
        open again (and the old secret, invite or seat, opens nothing any more)."""
        if not secret_ok(host, t.rec.host_hash):
            raise TableError("forbidden", "only the table's host may do that")
        _seat_of(t.rec, seat)

        def decide(rec: TableRecord, _conn: Any) -> None:
            s = _seat_of(rec, seat)
            if rec.status != "open":
                raise TableError("not_open", "seats reopen only before the game starts")
            if s.kind == "open":
                raise _NoChange
            rec.seats[seat] = SeatRecord(seat)

        try:
            await self.change(t, decide)
        except _NoChange:
            return

    async def host_replace(self, t: LiveTable, host: str, seat: int, level: str | None) -> None:
        """During the game, the host hands the seat of a player gone for at least
        ``settings.seat_gone_seconds`` to a bot for good (the player's secret stops working)."""
        if not secret_ok(host, t.rec.host_hash):
            raise TableError("forbidden", "only the table's host may do that")
        _seat_of(t.rec, seat)
        since = t.gone_since.get(seat)
        wait = self.settings.seat_gone_seconds
        level = check_level(level, meeple.game_info(t.rec.game), self.settings)

        def decide(rec: TableRecord, conn: Any) -> None:
            s = _seat_of(rec, seat)
            if rec.status != "running":
                raise TableError("not_running", f"the table is {rec.status}")
            if s.kind != "human":
                raise TableError("bad_seat", f"seat {seat} is not a person's")
            now = self.storage.clock.now()
            # gone here, and on every other server: the seat's socket may be on any of them
            seen = conn.execute(select(presence_t.c.seen_at).where(
                presence_t.c.table_id == rec.id, presence_t.c.seat == seat)).scalar()
            if since is None or now - since < wait or (seen is not None and now - seen < wait):
                raise TableError("not_gone", f"a seat goes to a bot after its player has been "
                                             f"away {wait:g} s")
            rec.seats[seat] = SeatRecord(seat, "bot", name=f"Bot {seat + 1} ({level})", level=level)
            clocks.record_abandon(conn, rec.id, seat, s.user_id, "replaced", now)

        await self.change(t, decide)

    async def set_zombie(self, t: LiveTable, seat: int, zombie: bool,
                         at_move: int | None = None) -> bool:
        """A seat leaves (a bot plays it) or is handed back to its player. ``at_move``: only if
        the table is still at that move. True if it changed."""

        def decide(rec: TableRecord, conn: Any) -> None:
            s = _seat_of(rec, seat)
            if s.kind != "human" or s.zombie == zombie or rec.status == "over":
                raise _NoChange
            if at_move is not None and count_actions(conn, rec.id) != at_move:
                raise _NoChange
            rec.seats[seat] = replace(s, zombie=zombie)
            if not zombie:
                rec.deadline = clocks.reclaimed_deadline(rec, self.storage.clock.now())

        try:
            await self.change(t, decide)
        except _NoChange:
            return False
        return True

    async def rematch(self, t: LiveTable, seat: int | None, secret: str | None,
                      client: str | None = None, claim: Claim | None = None,
                      user: int | None = None) -> dict[str, Any]:
        """A new table with the same game, options and bots; the asker keeps their seat.

        Decided in one transaction on the finished table (its row locked): the first asker
        creates the rematch, every later one (on any server) gets that same table."""
        if t.rec.status != "over":
            await self.refresh(t)
        if t.rec.status != "over":
            raise TableError("not_over", "a rematch needs a finished game")
        is_host = secret_ok(secret, t.rec.host_hash)
        if seat is not None and not (_seat_of(t.rec, seat).kind == "human" and (
                secret_ok(secret, t.seat(seat).secret_hash)
                or (user is not None and t.seat(seat).user_id == user))):
            raise TableError("forbidden", "wrong seat secret")
        if seat is None and not is_host:
            raise TableError("forbidden", "wrong host secret")
        seats: list[tuple[str, str | None]] = [
            ("bot", s.level) if s.kind == "bot" else ("me" if s.seat == seat else "open", None)
            for s in t.rec.seats
        ]
        name = t.seat(seat).name if seat is not None else None
        new, host, taken = self._new_table(t.rec.game, t.rec.players, t.rec.options, seats, name,
                                           t.rec.time_limit, t.rec.id, None, client, user,
                                           t.rec.speed)
        if self.draining:
            raise TableError("draining", "this server is restarting; try again")

        def decide(rec: TableRecord, conn: Any) -> dict[str, Any]:
            if rec.rematch is not None:
                raise _Existing(rec.rematch)
            insert_table(conn, new.rec)
            rec.rematch = new.rec.id
            out: dict[str, Any] = {"id": new.rec.id, "host": host}
            if seat is not None:
                out.update(seat=seat, secret=taken[seat])
            return out

        for _attempt in range(2):
            try:
                out = await self.change(t, decide, claim)
            except _Existing as exc:
                existing = await self.get(exc.table_id)
                out = {"id": existing.rec.id}
                if seat is not None and existing.seat(seat).kind == "open":
                    out.update(seat=seat, secret=await self.join(
                        existing, seat, t.seat(seat).name or "?", None, client, claim, user))
                return out
            except IntegrityError:  # the unique rematch_of index: someone else was first
                await self.refresh(t)
                continue
            await self.bus.watch(new.rec.id)
            self.tables[new.rec.id] = new
            await self.presence.claim(new)
            return out
        raise TableError("seat_taken", "the rematch just changed; try again")

    # ----- moves ----------------------------------------------------------------------------------
    def _refusal(self, t: LiveTable, seat: int, n: int, by_bot: bool) -> TableError | None:
        st = t.state
        if t.rec.status != "running":
            return TableError("not_running", f"the table is {t.rec.status}")
        if n != len(st.history):
            return TableError("stale", f"move {n} is stale; the table is at move {len(st.history)}")
        if st.to_move != seat:
            return TableError("not_your_turn", f"it is seat {st.to_move}'s turn")
        if t.bot_plays(seat) != by_bot:
            return TableError("not_your_turn",
                              "a bot plays this seat now" if not by_bot else "seat handed back")
        return None

    async def move(self, t: LiveTable, seat: int, action: int, n: int, by_bot: bool = False) -> None:
        """Play ``action`` for ``seat`` as move number ``n``: checked, logged, applied, announced.

        A seat a bot plays (a bot's, or a player's who left) takes moves only from that bot.
        The same move sent twice (same number, same action) is answered like the first: no
        error, no second effect. A refusal is given only after re-reading the table.
        """
        t0 = time.perf_counter()
        async with t.lock:
            st = t.state
            if not by_bot and n < len(st.history) and st.history[n] == action:
                # a retry of a move already logged, unless another server took it back since
                # (an undo): read the table first
                if await self.catch_up(t):
                    self.changed(t, publish=False)
                st = t.state
                if n < len(st.history) and st.history[n] == action:
                    return
            refusal = self._refusal(t, seat, n, by_bot)
            if refusal is not None and n >= len(st.history):  # maybe we have not heard yet
                caught_up = await self.catch_up(t)
                st = t.state  # an undo elsewhere rebuilds it
                if not by_bot and n < len(st.history) and st.history[n] == action:
                    self.changed(t, publish=False)
                    return
                refusal = self._refusal(t, seat, n, by_bot)
                if caught_up:
                    self._changed_after(t, refusal)
            if refusal is not None:
                raise refusal
            if not st.is_legal(action):
                raise TableError("illegal", f"action {action} is not legal now")
            deadline, clock_state = clocks.after_move(t, action, self.storage.clock.now())
            try:
                version = await self._append(t, n, seat, action, deadline, by_driver=by_bot,
                                             clocks=clock_state)
            except NotDriver:
                # this server hung and another took the table over meanwhile: it drives now
                self.leases.mine.discard(t.rec.id)
                self.metrics.not_driver.inc()
                if await self.catch_up(t):
                    self.changed(t, publish=False)
                raise TableError("not_driver", "another server drives this table now") from None
            except DuplicateMove:
                await self.catch_up(t)  # another server logged this move first (or an undo)
                st = t.state
                if not by_bot and n < len(st.history) and st.history[n] == action:
                    self.changed(t, publish=False)
                    return
                refusal = TableError("stale", f"move {n} was already played")
                self._changed_after(t, refusal)
                raise refusal from None
            st.apply(action)
            t.rec.version = version
            t.deadline = t.rec.deadline = deadline
            if clock_state is not None:
                t.rec.clocks = clock_state
            over = st.is_over()
            if over:
                t.rec.status, t.deadline = "over", None
            self.changed(t, move=n, action=action)
            self.metrics.moves.inc()
            self.metrics.move_seconds.observe(time.perf_counter() - t0)
        if over:
            t.rec.version = await self.db(self.storage.set_status, t.rec.id, "over")
            if t.rec.id in self.leases.mine:
                await self.db(self.leases.release, t.rec.id)

    async def undo(self, t: LiveTable, seat: int, n: int, to: int | None = None) -> int:
        """Take back the steps of ``seat``'s turn in progress from move ``to`` on (by default
        the last one), while the table stands at move ``n``. Returns the move it is back at.

        The engine says how far back (`State.undo_start`): the seat's own steps since its turn
        began or since anything came to light. Decided in one transaction on the stored table
        (its row locked), like a seat change: the undone steps leave the action log and the
        table's ``undos`` goes up, so a move racing it on another server is refused rather
        than logged after them. Bots never undo: a seat a bot plays cannot.
        """
        _seat_of(t.rec, seat)

        def decide(rec: TableRecord, conn: Any) -> int:
            st = t.state  # the caller holds the table's lock; checked against storage below
            s = _seat_of(rec, seat)
            if rec.status != "running":
                raise TableError("not_running", f"the table is {rec.status}")
            if rec.undos != t.undos or count_actions(conn, rec.id) != len(st.history) \
                    or n != len(st.history):
                raise TableError("stale", f"move {n} is stale; the table is at move "
                                          f"{len(st.history)}")
            if st.to_move != seat:
                raise TableError("not_your_turn", f"it is seat {st.to_move}'s turn")
            if s.kind != "human" or s.zombie:
                raise TableError("not_your_turn", "a bot plays this seat now")
            start = st.undo_start()
            back = n - 1 if to is None else to
            if start is None or not start <= back < n:
                raise TableError("no_undo", "nothing to take back now" if start is None
                                 else f"only moves {start} to {n - 1} can be taken back")
            delete_actions(conn, rec.id, back)
            rec.undos += 1
            rec.undone_to = back
            return back

        return int(await self.change(t, decide))

    def _changed_after(self, t: LiveTable, refusal: TableError | None) -> None:
        """Show the table as read, after the refusal (if any) reaches the mover: a client sees
        "stale" before the state that explains it, never a state that looks like its ack."""
        if refusal is None:
            self.changed(t, publish=False)
        else:
            asyncio.get_running_loop().call_soon(self.changed, t, False)

    def changed(self, t: LiveTable, publish: bool = True, move: int | None = None,
                 action: int | None = None) -> None:
        """Tell every connection, the other servers, and (re)schedule the next bot or timer."""
        self.broadcast(t)
        for hook in self.hooks:
            hook.on_change(t)
        if publish and not isinstance(self.bus, LocalBus):
            message: dict[str, Any] = {"table": t.rec.id, "version": t.rec.version}
            if move is not None:  # the move itself: the others need not read the database
                message.update(n=move, action=action, deadline=t.deadline,
                               at=self.storage.clock.now(), clocks=t.rec.clocks)
            self.bus.send(message)
        self.bots.schedule(t)

    # ----- what each connection sees --------------------------------------------------------------
    def attach(self, t: LiveTable, conn: Connection) -> None:
        """A socket joins: it gets the full state; the others get one small ``seats`` message,
        and only if a seat's presence changed (a spectator arriving changes nothing they see)."""
        before = self.presence.shown(t)
        t.used_at = time.monotonic()
        if self.tables.setdefault(t.rec.id, t) is not t:  # never attach to a forgotten copy
            log.warning("table %s: socket attached to a forgotten copy", t.rec.id)
        t.conns.add(conn)
        if conn.seat is not None:
            t.gone_since.pop(conn.seat, None)
            self.presence.touch_soon(t, conn.seat)
        if t.renamed():
            for c in t.conns:
                c.log_sent = 0
        view = self.message(t, conn.seat)
        events = t.log(conn.seat)
        conn.push({**view, "log_start": 0, "log": events})
        conn.log_sent = len(events)
        self.presence.announce(t, before, skip=conn)

    def detach(self, t: LiveTable, conn: Connection) -> None:
        before = self.presence.shown(t)
        conn.closed = True
        t.conns.discard(conn)
        now = self.presence.present(t)
        if conn.seat is not None and conn.seat not in now and t.seat(conn.seat).kind == "human":
            t.gone_since[conn.seat] = self.storage.clock.now()
            self.presence.touch_soon(t, conn.seat)
        self.presence.announce(t, before)

    def holds_seat(self, t: LiveTable, conn: Connection) -> bool:
        """The socket's seat is still the one it said hello to (not reopened or given away)."""
        if conn.seat is None:
            return True
        s = t.seat(conn.seat)
        return s.kind == "human" and s.secret_hash == conn.secret_hash

    def broadcast(self, t: LiveTable) -> None:
        views: dict[int | None, dict[str, Any]] = {}
        logs: dict[int | None, list[dict[str, Any]]] = {}
        if t.renamed():
            for c in t.conns:
                c.log_sent = 0
        for c in list(t.conns):
            if c.closed:
                t.conns.discard(c)
                continue
            if not self.holds_seat(t, c):  # the host reopened the seat or gave it to a bot
                c.push({"type": "error", "code": "seat_lost", "message": "this seat is no longer yours"})
                c.push(None)
                c.closed = True
                t.conns.discard(c)
                continue
            if c.seat not in views:
                views[c.seat] = self.message(t, c.seat)
                logs[c.seat] = t.log(c.seat)
            events = logs[c.seat]
            c.push({**views[c.seat], "log_start": c.log_sent, "log": events[c.log_sent:]})
            c.log_sent = len(events)

    def message(self, t: LiveTable, seat: int | None) -> dict[str, Any]:
        """The state message for ``seat`` (None: spectator), without the log."""
        st = t.state
        mine = (
            seat is not None and st.to_move == seat and t.rec.status == "running"
            and not t.bot_plays(seat)
        )
        connected = {c.seat for c in t.conns if not c.closed} | self.presence.elsewhere(t)
        undo = st.undo_start() if mine else None
        msg: dict[str, Any] = {
            "type": "state",
            "table": t.rec.id,
            "game": t.rec.game,
            "status": t.rec.status,
            "move": len(st.history),
            "seat": seat,
            "to_move": st.to_move,
            "view": st.view(seat),
            "legal": _labelled(st, t.names()) if mine else [],
            # undo within a turn: may this seat take steps back, and back to which move
            "can_undo": undo is not None,
            "undo_start": undo,
            "seats": self.seats_json(t, connected),
            "time_limit": t.rec.time_limit,
            "deadline": t.deadline if t.rec.status == "running" else None,
            "rematch": t.rec.rematch,
            **clocks.view(self, t),
        }
        if st.is_over():
            msg["scores"] = st.scores()
            msg["ranking"] = st.ranking()
        return msg

    def seats_json(self, t: LiveTable, connected: set[int | None] | None = None) -> list[dict[str, Any]]:
        return [
            {"seat": s.seat, "kind": s.kind, "name": s.name, "level": s.level, "zombie": s.zombie,
             "account": s.user_id is not None, "bot_account": s.account_bot,
             "connected": None if connected is None else s.seat in connected,
             **({"away": round(self.storage.clock.now() - max(
                 t.gone_since[s.seat], t.seen_elsewhere.get(s.seat, -math.inf)))}
                if connected is not None and s.seat in t.gone_since
                and s.seat not in connected else {})}
            for s in t.rec.seats
        ]

    def summary(self, t: LiveTable) -> dict[str, Any]:
        """What the lobby shows of a table: nothing hidden (no seed, no hands)."""
        return {
            "id": t.rec.id, "game": t.rec.game, "players": t.rec.players,
            "options": t.rec.options, "status": t.rec.status, "move": len(t.state.history),
            "to_move": t.state.to_move, "seats": self.seats_json(t),
            "time_limit": t.rec.time_limit, "rematch": t.rec.rematch,
            "rematch_of": t.rec.rematch_of, "speed": clocks.speed_of(t.rec),
        }


def _labelled(st: State, names: tuple[str | None, ...]) -> list[dict[str, Any]]:
    """The legal choices with their labels, which call other seats by name."""
    with seat_names(names):
        return [{"id": a, "label": st.describe(a), "json": st.action_to_json(a)} for a in st.legal_actions()]


class _Existing(Exception):
    """The finished table already has its rematch."""

    def __init__(self, table_id: str) -> None:
        super().__init__(table_id)
        self.table_id = table_id
