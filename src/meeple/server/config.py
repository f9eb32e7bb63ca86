"""Server settings: where the database lives, optional Redis, bot pacing.

Defaults suit one person on one machine (SQLite in the per-user data folder); environment
variables (``MEEPLE_DATABASE_URL``, ``MEEPLE_REDIS_URL``) or CLI flags scale it out.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit


def default_database_url() -> str:
    """SQLite in the per-user data folder (XDG on Linux), created if missing."""
    try:
        import platformdirs

        folder = Path(platformdirs.user_data_dir("meeple", appauthor=False))
    except ImportError:  # the XDG rule by hand, should the web extra lack platformdirs
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        folder = Path(base) / "meeple"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'meeple.db'}"


def normalise_public_url(url: str | None) -> str | None:
    """``https://games.example.org/`` -> ``https://games.example.org``; refuse what the
    browser code cannot live under (a path prefix) or what is no web address at all."""
    if not url:
        return None
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") \
            or parts.query or parts.fragment:
        raise ValueError(f"public URL {url!r}: give scheme and host only, e.g. https://games.example.org")
    return f"{parts.scheme}://{parts.netloc}"


@dataclass
class Settings:
    """Everything `create_app` needs. ``bot_delay`` paces bots so people can follow the play."""

    database_url: str
    redis_url: str | None = None
    bot_delay: float = 0.0
    bot_workers: int = 2
    # Bots think in worker processes (a CPU-heavy search then cannot starve the event loop of
    # the GIL) or, when False, in threads (no start-up cost: tests, tiny machines).
    bot_processes: bool = False
    # Freeze start-up objects out of the cyclic GC and raise its thresholds (process-wide).
    tune_gc: bool = False
    max_message_bytes: int = 4096
    # A bot level asked for over the web is a named level, or a knob (``ismcts:<knob>``) within
    # these caps; every bot move is also cut at ``bot_max_seconds`` whatever its level says.
    bot_max_seconds: float = 5.0
    bot_max_iterations: int = 20_000
    # Open WebSockets: per table (players and spectators), and per client address on this server
    # (sockets still waiting to say hello included).
    max_sockets_per_table: int = 200
    max_sockets_per_client: int = 20
    # The host may hand a person's seat to a bot once it has had no socket for this long.
    seat_gone_seconds: float = 120.0
    # The others may vote out a person away this long, unless the table says otherwise
    # (clocks.py): real time, and turn-based.
    absent_seconds: float = 300.0
    absent_turn_seconds: float = 3 * 86400.0
    # The address people reach this server at (https://games.example.org): links and cookies.
    public_url: str | None = None
    # Several servers: this one's name in the lease table (default: "local" for a lone server,
    # so a restart takes its own tables back at once; a random one beside others), how long a
    # lease lives unrenewed (a dead server's tables move on after this), how often open tables
    # are re-read in case a pub/sub message was lost, and how long SIGTERM drains.
    node_id: str | None = None
    lease_seconds: float = 3.0
    resync_seconds: float = 2.0
    drain_seconds: float = 2.0
    # PostgreSQL: a move is acknowledged once its log row is on disk (True). False answers
    # before the write-ahead log is flushed (synchronous_commit=off for the move statement):
    # no disk flush in each move's path, but a crash of the *database* machine may lose the
    # last fraction of a second of acknowledged moves (a game server's crash still loses none).
    db_sync_commit: bool = True
    # Tests only: pretend this machine's wall clock is off by this many seconds (servers whose
    # clocks disagree; they keep time by the database's clock, see `storage.Clock`).
    clock_skew: float = 0.0
    # Rate limits on logins, registration, table creation, chat and matchmaking (off only for
    # load tests on loopback: MEEPLE_RATE_LIMITS=off).
    rate_limits: bool = True
    # How often each server's matcher forms tables from the Play now queue (seconds).
    matchmaking_interval: float = 0.5

    def __post_init__(self) -> None:
        self.public_url = normalise_public_url(self.public_url)

    @classmethod
    def from_env(
        cls,
        database_url: str | None = None,
        redis_url: str | None = None,
        bot_delay: float | None = None,
        bot_processes: bool | None = None,
        public_url: str | None = None,
    ) -> Settings:
        env_delay = os.environ.get("MEEPLE_BOT_DELAY")
        return cls(
            database_url=database_url
            or os.environ.get("MEEPLE_DATABASE_URL")
            or default_database_url(),
            redis_url=redis_url or os.environ.get("MEEPLE_REDIS_URL") or None,
            bot_delay=bot_delay if bot_delay is not None else float(env_delay or 0.0),
            bot_processes=bot_processes if bot_processes is not None
            else os.environ.get("MEEPLE_BOT_PROCESSES", "0") == "1",
            bot_max_seconds=float(os.environ.get("MEEPLE_BOT_MAX_SECONDS") or 5.0),
            bot_max_iterations=int(os.environ.get("MEEPLE_BOT_MAX_ITERATIONS") or 20_000),
            max_sockets_per_table=int(os.environ.get("MEEPLE_MAX_SOCKETS_PER_TABLE") or 200),
            max_sockets_per_client=int(os.environ.get("MEEPLE_MAX_SOCKETS_PER_CLIENT") or 20),
            seat_gone_seconds=float(os.environ.get("MEEPLE_SEAT_GONE_SECONDS") or 120.0),
            absent_seconds=float(os.environ.get("MEEPLE_ABSENT_SECONDS") or 300.0),
            absent_turn_seconds=float(os.environ.get("MEEPLE_ABSENT_TURN_SECONDS") or 3 * 86400.0),
            public_url=public_url or os.environ.get("MEEPLE_PUBLIC_URL") or None,
            node_id=os.environ.get("MEEPLE_NODE_ID") or None,
            lease_seconds=float(os.environ.get("MEEPLE_LEASE_SECONDS") or 3.0),
            resync_seconds=float(os.environ.get("MEEPLE_RESYNC_SECONDS") or 2.0),
            drain_seconds=float(os.environ.get("MEEPLE_DRAIN_SECONDS") or 2.0),
            rate_limits=os.environ.get("MEEPLE_RATE_LIMITS", "on") != "off",
            clock_skew=float(os.environ.get("MEEPLE_CLOCK_SKEW") or 0.0),
            db_sync_commit=os.environ.get("MEEPLE_DB_SYNC_COMMIT", "on") != "off",
            matchmaking_interval=float(os.environ.get("MEEPLE_MATCHMAKING_INTERVAL") or 0.5),
        )
