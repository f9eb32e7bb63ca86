"""Where a table's last undo went back to: the moves after it in the same turn keep that
turn's deadline, so taking steps back and forth never buys time.

Revision ID: 0007_undone_to
Revises: 0006_undo
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_undone_to"
down_revision = "0006_undo"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("meeple_tables") as batch:
        batch.add_column(sa.Column("undone_to", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("meeple_tables") as batch:
        batch.drop_column("undone_to")
