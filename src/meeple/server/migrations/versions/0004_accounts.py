"""Accounts, sessions, ratings, chat, mutes and the matchmaking queue; seats may belong to an
account (``user_id``). Tables in progress keep working: every new column is nullable.

Revision ID: 0004_accounts
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_accounts"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meeple_users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(20), nullable=False),
        sa.Column("username_key", sa.String(20), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("disabled", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "meeple_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), nullable=False, index=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("meeple_seats") as batch:
        batch.add_column(sa.Column("user_id", sa.Integer, nullable=True))
    op.create_index("ix_meeple_seats_user_id", "meeple_seats", ["user_id"])
    op.create_index("ix_meeple_seats_client_hash", "meeple_seats", ["client_hash"])
    op.create_table(
        "meeple_ratings",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), primary_key=True),
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("display", sa.Integer, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_meeple_ratings_game_display", "meeple_ratings", ["game", "display"])
    op.create_table(
        "meeple_rated_tables",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("meeple_tables.id"), primary_key=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("done", sa.Boolean, nullable=False),
    )
    op.create_table(
        "meeple_results",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("meeple_tables.id"), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating", sa.Integer, nullable=True),
        sa.Column("delta", sa.Integer, nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_meeple_results_user_at", "meeple_results", ["user_id", "at"])
    op.create_table(
        "meeple_chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(32), sa.ForeignKey("meeple_tables.id"), nullable=False),
        sa.Column("move", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("user_id", sa.Integer, nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("text", sa.String(500), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_meeple_chat_table", "meeple_chat", ["table_id", "id"])
    op.create_table(
        "meeple_mutes",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), primary_key=True),
        sa.Column("muted_id", sa.Integer, sa.ForeignKey("meeple_users.id"), primary_key=True),
    )
    op.create_table(
        "meeple_queue",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("counts", sa.JSON, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("time_limit", sa.Float, nullable=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("bot_after", sa.Float, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),  # waiting | seated | cancelled
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seated_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_meeple_queue_status", "meeple_queue", ["status", "game"])
    op.create_index("ix_meeple_queue_user", "meeple_queue", ["user_id", "status"])


def downgrade() -> None:
    for name in ("meeple_queue", "meeple_mutes", "meeple_chat", "meeple_results",
                 "meeple_rated_tables", "meeple_ratings", "meeple_sessions"):
        op.drop_table(name)
    op.drop_index("ix_meeple_seats_client_hash", "meeple_seats")
    op.drop_index("ix_meeple_seats_user_id", "meeple_seats")
    with op.batch_alter_table("meeple_seats") as batch:
        batch.drop_column("user_id")
    op.drop_table("meeple_users")
