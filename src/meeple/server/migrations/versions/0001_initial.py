"""Initial schema: tables, seats and the append-only action log.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meeple_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("host_hash", sa.String(64), nullable=False),
        sa.Column("time_limit", sa.Float, nullable=True),
        sa.Column("rematch_of", sa.String(32), nullable=True),
        sa.Column("rematch", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_meeple_tables_status", "meeple_tables", ["status"])
    op.create_table(
        "meeple_seats",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("meeple_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=True),
        sa.Column("level", sa.String(64), nullable=True),
        sa.Column("secret_hash", sa.String(64), nullable=True),
        sa.Column("zombie", sa.Boolean, nullable=False),
    )
    op.create_table(
        "meeple_actions",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("meeple_tables.id"), primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("action", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("meeple_actions")
    op.drop_table("meeple_seats")
    op.drop_index("ix_meeple_tables_status", "meeple_tables")
    op.drop_table("meeple_tables")
