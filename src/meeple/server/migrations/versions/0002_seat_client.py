"""Seats remember which browser took them (a hash of its client cookie): one seat per browser.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("meeple_seats") as batch:
        batch.add_column(sa.Column("client_hash", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("meeple_seats") as batch:
        batch.drop_column("client_hash")
