"""Post-game analyses, stored once per table, seat and depth (meeple.server.analysis).

Revision ID: 0010_analysis
Revises: 0009_harden_limits
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_analysis"
down_revision = "0009_harden_limits"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meeple_analyses",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("meeple_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("depth", sa.String(16), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("total", sa.Integer, nullable=False),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("meeple_analyses")
