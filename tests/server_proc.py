"""Real servers as subprocesses (``python -m meeple.server``) on PostgreSQL and Redis, for the
many-server suites (tests/test_server_race.py, tests/test_server_ops.py).

Each test module gets a database of its own (created beside ``MEEPLE_TEST_POSTGRES_URL``'s and
dropped afterwards), so no running table of another suite is taken up by these servers.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

PG = os.environ.get("MEEPLE_TEST_POSTGRES_URL")
REDIS = os.environ.get("MEEPLE_TEST_REDIS_URL")
SRC = str(Path(__file__).resolve().parents[1] / "src")

needs_services = pytest.mark.skipif(
    not (PG and REDIS), reason="set MEEPLE_TEST_POSTGRES_URL and MEEPLE_TEST_REDIS_URL")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fresh_database() -> tuple[str, Any]:
    """A new empty PostgreSQL database next to the test one; returns its URL and a dropper."""
    import sqlalchemy as sa

    assert PG
    name = f"meeple_t_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = sa.engine.make_url(PG).set(database=name).render_as_string(hide_password=False)

    def drop() -> None:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()

    return url, drop


class Server:
    """One `meeple serve` process on a free loopback port."""

    def __init__(self, database_url: str, redis_url: str | None = REDIS, *, bot_delay: float = 0.0,
                 bot_processes: bool = False, env: dict[str, str] | None = None,
                 port: int | None = None) -> None:
        self.database_url, self.redis_url = database_url, redis_url
        self.bot_delay, self.bot_processes, self.extra_env = bot_delay, bot_processes, env or {}
        self.port = port or free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="meeple-server-", suffix=".log", delete=False)
        self.proc: subprocess.Popen[bytes] | None = None
        atexit.register(self.kill)  # a test that fails half-way leaves no server behind
        self.start()

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> Server:
        cmd = [sys.executable, "-m", "meeple.server", "--host", "127.0.0.1", "--port", str(self.port),
               "--database-url", self.database_url, "--bot-delay", str(self.bot_delay),
               "--bot-processes" if self.bot_processes else "--no-bot-processes"]
        if self.redis_url:
            cmd += ["--redis-url", self.redis_url]
        env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               "MEEPLE_LEASE_SECONDS": "1.5", "MEEPLE_RESYNC_SECONDS": "1.0",
               "MEEPLE_DRAIN_SECONDS": "0.5", "MEEPLE_LOG_FORMAT": "text",
               # every test client is one loopback address: per-address limits are not the test
               "MEEPLE_RATE_LIMITS": "off",
               **self.extra_env}
        env.pop("MEEPLE_REDIS_URL", None)
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=self.log)
        self.wait_ready()
        return self

    def wait_ready(self, seconds: float = 60.0) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.logs()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.http}/api/games", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        """kill -9: no shutdown code runs."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def logs(self) -> str:
        return Path(self.log.name).read_text(errors="replace")

    # ----- HTTP, with a cookie jar per "browser" ----------------------------------------------
    def call(self, method: str, path: str, body: Any = None, *, browser: str | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any]:
        h = {"content-type": "application/json", **(headers or {})}
        if browser:
            h["cookie"] = f"meeple_client={browser}"
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.http + path, data, h, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                raw = r.read()
                status = r.status
        except urllib.error.HTTPError as e:
            raw, status = e.read(), e.code
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def post(self, path: str, body: Any, **kw: Any) -> tuple[int, Any]:
        return self.call("POST", path, body, **kw)

    def get(self, path: str, **kw: Any) -> tuple[int, Any]:
        return self.call("GET", path, **kw)


def browser() -> str:
    """A client cookie value (one per simulated browser)."""
    return uuid.uuid4().hex + uuid.uuid4().hex[:8]


def wait_until(pred: Any, seconds: float = 15.0, every: float = 0.05) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = pred()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("condition not reached in time")
