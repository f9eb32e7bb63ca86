"""When each person's seat last had a socket on some server (the host's *Hand to a bot* asks
every server's view, not only its own).

Revision ID: 0005_presence
Revises: 0004_accounts
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_presence"
down_revision = "0004_accounts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meeple_presence",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        # the database's epoch seconds (storage.Clock) when a server last held its socket
        sa.Column("seen_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("meeple_presence")
