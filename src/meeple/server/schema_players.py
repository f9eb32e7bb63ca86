"""SQLAlchemy Core tables for players (migration 0004_accounts): accounts, sessions, ratings,
results, chat, mutes and the matchmaking queue. On the same ``metadata`` as the tables' schema."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    false,
    text,
)

from .storage import metadata

users_t = Table(
    "meeple_users", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(20), nullable=False),
    Column("username_key", String(20), nullable=False, unique=True),  # casefolded: one Ann
    Column("name_fold", String(40), nullable=True, index=True),  # policy.fold: no look-alikes
    Column("password_hash", String(255), nullable=False),
    Column("disabled", Boolean, nullable=False, default=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # a bot account plays through the Bot API only, for good (0012_botapi)
    Column("is_bot", Boolean, nullable=False, default=False, server_default=false()),
    # Play now never seats this person with a bot account
    Column("no_bots", Boolean, nullable=False, default=False, server_default=false()),
)

sessions_t = Table(
    "meeple_sessions", metadata,
    Column("token_hash", String(64), primary_key=True),  # SHA-256 of the cookie's token
    Column("user_id", Integer, ForeignKey("meeple_users.id"), nullable=False, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
)

ratings_t = Table(
    "meeple_ratings", metadata,
    Column("user_id", Integer, ForeignKey("meeple_users.id"), primary_key=True),
    Column("game", String(64), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("display", Integer, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)

rated_tables_t = Table(
    "meeple_rated_tables", metadata,
    Column("table_id", String(32), ForeignKey("meeple_tables.id"), primary_key=True),
    Column("rated", Boolean, nullable=False),  # decided when play starts; a zombie clears it
    Column("done", Boolean, nullable=False),   # ratings applied (exactly once, any server)
)

results_t = Table(
    "meeple_results", metadata,
    Column("table_id", String(32), ForeignKey("meeple_tables.id"), primary_key=True),
    Column("user_id", Integer, ForeignKey("meeple_users.id"), primary_key=True),
    Column("game", String(64), nullable=False),
    Column("players", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rating", Integer, nullable=True),  # the display rating after this game
    Column("delta", Integer, nullable=True),
    Column("at", DateTime(timezone=True), nullable=False),
)

chat_t = Table(
    "meeple_chat", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(32), ForeignKey("meeple_tables.id"), nullable=False),
    Column("move", Integer, nullable=False),  # the table's move number when it was said
    Column("seat", Integer, nullable=True),
    Column("user_id", Integer, nullable=True),
    Column("name", String(64), nullable=False),
    Column("text", String(500), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

mutes_t = Table(
    "meeple_mutes", metadata,
    Column("user_id", Integer, ForeignKey("meeple_users.id"), primary_key=True),
    Column("muted_id", Integer, ForeignKey("meeple_users.id"), primary_key=True),
)

queue_t = Table(
    "meeple_queue", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("meeple_users.id"), nullable=False),
    Column("game", String(64), nullable=False),
    Column("counts", JSON, nullable=False),
    Column("options", JSON, nullable=False),
    Column("time_limit", Float, nullable=True),
    Column("rating", Float, nullable=False),
    Column("bot_after", Float, nullable=True),
    Column("status", String(16), nullable=False),  # waiting | seated | cancelled
    Column("table_id", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("seated_at", DateTime(timezone=True), nullable=True),
    Column("seen_at", DateTime(timezone=True), nullable=True),  # the owner's page last asked
    Column("turn_based", Boolean, nullable=False, default=False),  # waits with no page open
    Index("ux_meeple_queue_waiting", "user_id", "game", unique=True,
          postgresql_where=text("status = 'waiting'"), sqlite_where=text("status = 'waiting'")),
)

# API tokens (0012_botapi): the SHA-256 of a random secret, never the secret; a prefix to tell
# them apart in a list; scopes such as ``bot:play`` and ``bot:read``.
tokens_t = Table(
    "meeple_api_tokens", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("meeple_users.id"), nullable=False, index=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("prefix", String(16), nullable=False),
    Column("name", String(40), nullable=False),
    Column("scopes", String(200), nullable=False),  # space-separated
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
)
