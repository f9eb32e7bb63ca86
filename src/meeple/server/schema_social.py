"""SQLAlchemy Core tables for friends, invitations by name, table access and notifications
(migration ``0008_accounts_friends_notify``). On the same ``metadata`` as the tables' schema."""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Float, ForeignKey, Integer, String, Table

from .storage import metadata

# One row per "I added them"; two people are friends when each added the other.
friends_t = Table(
    "meeple_friends", metadata,
    Column("user_id", Integer, ForeignKey("meeple_users.id"), primary_key=True),
    Column("friend_id", Integer, ForeignKey("meeple_users.id"), primary_key=True, index=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# When an account last asked the server anything (the lobby polls): "online".
seen_t = Table(
    "meeple_user_seen", metadata,
    Column("user_id", Integer, ForeignKey("meeple_users.id"), primary_key=True),
    Column("seen_at", Float, nullable=False),  # epoch seconds
)

# Who hosts a table as an account, and whether only the host's friends may sit at it.
table_access_t = Table(
    "meeple_table_access", metadata,
    Column("table_id", String(32), ForeignKey("meeple_tables.id"), primary_key=True),
    Column("host_user_id", Integer, ForeignKey("meeple_users.id"), nullable=True, index=True),
    Column("friends_only", Boolean, nullable=False, default=False),
)

# A seat reserved for one account by name. The invite's seat secret is kept until the invited
# account takes the seat (it gets a fresh secret then, as with an invite link).
invites_t = Table(
    "meeple_invites", metadata,
    Column("table_id", String(32), ForeignKey("meeple_tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("meeple_users.id"), nullable=False, index=True),
    Column("from_user_id", Integer, ForeignKey("meeple_users.id"), nullable=False),
    Column("secret", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# An account's email (confirmed by a link) and its unsubscribe token.
notify_prefs_t = Table(
    "meeple_notify_prefs", metadata,
    Column("user_id", Integer, ForeignKey("meeple_users.id"), primary_key=True),
    Column("email", String(254), nullable=True),
    Column("confirmed", Boolean, nullable=False, default=False),
    Column("confirm_hash", String(64), nullable=True, index=True),  # SHA-256 of the link's token
    Column("email_on", Boolean, nullable=False, default=True),
    Column("unsub_token", String(64), nullable=False, unique=True),
)

# Web Push subscriptions (one per browser that allowed it).
push_subs_t = Table(
    "meeple_push_subs", metadata,
    Column("endpoint", String(1000), primary_key=True),
    Column("user_id", Integer, ForeignKey("meeple_users.id"), nullable=False, index=True),
    Column("p256dh", String(200), nullable=False),
    Column("auth", String(100), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# Each event told once, whichever server sees it first: (table, account, kind, move number).
notified_t = Table(
    "meeple_notified", metadata,
    Column("table_id", String(32), primary_key=True),
    Column("user_id", Integer, primary_key=True),
    Column("kind", String(16), primary_key=True),  # turn | invite | over
    Column("n", Integer, primary_key=True),
    Column("at", Float, nullable=False),
)

# The last mail per account and table: at most one an hour.
mailed_t = Table(
    "meeple_mailed", metadata,
    Column("user_id", Integer, primary_key=True),
    Column("table_id", String(32), primary_key=True),
    Column("sent_at", Float, nullable=False),
)
