"""Operations: Prometheus metrics, health and readiness, structured (JSON) logs.

Metrics live in a registry per app (tests run several apps in one process). ``/metrics`` gives:
moves (a counter; ``rate()`` is moves/s), the move round trip inside the server (receipt to
broadcast), how late moves from other servers arrive, database call latency, tables open,
sockets, tables this server drives, bot moves waiting or thinking, resyncs (lost messages),
and what stalls the event loop: its lag, and the cyclic GC's pauses (`meeple serve` only).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import TYPE_CHECKING, Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client import generate_latest as _generate

if TYPE_CHECKING:
    from .tables import TableManager

_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.moves = Counter("meeple_moves", "Moves logged by this server", registry=r)
        self.move_seconds = Histogram(
            "meeple_move_seconds", "A move from its receipt to its broadcast", buckets=_FAST,
            registry=r)
        self.bus_seconds = Histogram(
            "meeple_bus_delay_seconds", "From another server logging a move to this one telling "
            "its sockets", buckets=_FAST, registry=r)
        self.db_seconds = Histogram("meeple_db_seconds", "Database call latency, as the event "
                                    "loop waits for it", buckets=_FAST, registry=r)
        self.db_call_seconds = Histogram(
            "meeple_db_call_seconds", "Database call latency inside its thread (without the "
            "hand-offs to and from the event loop), per storage call", ["call"], buckets=_FAST,
            registry=r)
        self.resyncs = Counter("meeple_resyncs", "Tables re-read by the periodic resync "
                               "(a pub/sub message was lost or late)", registry=r)
        self.tables = Gauge("meeple_tables", "Tables open on this server", ["status"], registry=r)
        self.sockets = Gauge("meeple_sockets", "Open table WebSockets", registry=r)
        self.driven = Gauge("meeple_tables_driven", "Tables whose bots and timers this server "
                            "runs (leases held)", registry=r)
        self.not_driver = Counter(
            "meeple_not_driver", "Bot moves and time limits refused because another server took "
            "the table's lease over (this one hung)", registry=r)
        self.bot_queue = Gauge("meeple_bot_queue", "Bot moves waiting or thinking", registry=r)
        self.loop_lag = Histogram(
            "meeple_loop_lag_seconds", "How late a 0.1 s timer of the event loop fires (what "
            "every message waits behind)", buckets=_FAST, registry=r)
        self.bus_received = Gauge(
            "meeple_bus_received_messages", "Pub/sub messages this server was sent (a channel "
            "per table: only those of tables open here)", registry=r)
        self.bus_received_bytes = Gauge(
            "meeple_bus_received_bytes", "Bytes of the pub/sub messages this server was sent",
            registry=r)
        self.bus_published = Gauge(
            "meeple_bus_published_messages", "Pub/sub messages this server sent (only those of "
            "tables another server may have open)", registry=r)
        self.gc_seconds = Histogram(
            "meeple_gc_seconds", "Cyclic garbage collector pauses", ["generation"],
            buckets=_FAST, registry=r)

    async def watch_loop(self, every: float = 0.1) -> None:
        """Sample the event loop's lag until cancelled."""
        while True:
            t0 = time.perf_counter()
            await asyncio.sleep(every)
            self.loop_lag.observe(max(0.0, time.perf_counter() - t0 - every))

    def watch_gc(self) -> None:
        """Time every cyclic collection (process-wide: only for the server's own process)."""
        started: list[float] = [0.0]

        def callback(phase: str, info: dict[str, Any]) -> None:
            if phase == "start":
                started[0] = time.perf_counter()
            else:
                self.gc_seconds.labels(str(info.get("generation"))).observe(
                    time.perf_counter() - started[0])

        gc.callbacks.append(callback)

    def render(self, manager: TableManager) -> tuple[bytes, str]:
        """The exposition text, gauges read from the manager now."""
        counts: dict[str, int] = {"open": 0, "running": 0, "over": 0}
        sockets = 0
        for t in manager.tables.values():
            counts[t.rec.status] = counts.get(t.rec.status, 0) + 1
            sockets += sum(not c.closed for c in t.conns)
        for status, n in counts.items():
            self.tables.labels(status).set(n)
        self.sockets.set(sockets)
        self.driven.set(len(manager.leases.mine))
        self.bot_queue.set(manager.bots.waiting)
        self.bus_received.set(getattr(manager.bus, "received_messages", 0))
        self.bus_received_bytes.set(getattr(manager.bus, "received_bytes", 0))
        self.bus_published.set(getattr(manager.bus, "published_messages", 0))
        return _generate(self.registry), CONTENT_TYPE_LATEST


def setup_logging(level: str = "info", json_logs: bool = True) -> None:
    """The server's own log lines as JSON objects (one per line: time, level, logger, message,
    and any ``extra=`` fields), ready for a log shipper; ``json_logs=False`` keeps plain text."""
    handler = logging.StreamHandler()
    if json_logs:
        from pythonjsonlogger.json import JsonFormatter

        handler.setFormatter(JsonFormatter(
            "{asctime}{levelname}{name}{message}", style="{",
            rename_fields={"asctime": "time", "levelname": "level", "name": "logger"}))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    logger = logging.getLogger("meeple")
    logger.handlers[:] = [handler]
    logger.setLevel(level.upper())
    logger.propagate = False


async def readiness(manager: TableManager) -> tuple[bool, dict[str, Any]]:
    """Ready: not draining, the database answers, and Redis too when configured."""
    checks: dict[str, Any] = {"draining": manager.draining}
    ok = not manager.draining
    try:
        await manager.db(manager.storage.ping)
        checks["database"] = "ok"
    except Exception as exc:
        checks["database"], ok = f"error: {type(exc).__name__}", False
    ping = getattr(manager.bus, "ping", None)
    if ping is not None:
        try:
            await ping()
            checks["redis"] = "ok"
        except Exception as exc:
            checks["redis"], ok = f"error: {type(exc).__name__}", False
    return ok, checks
