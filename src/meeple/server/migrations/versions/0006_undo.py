"""Undo within a turn: a count of undos per table.

An undo deletes the undone steps from ``meeple_actions`` and bumps ``undos`` in the same
transaction. A move is logged only while ``undos`` is still the value its server's copy was
built with, so no move lands after steps an undo removed (no gap, no move on a vanished
state), and a copy that sees the count change rebuilds from the log.

Revision ID: 0006_undo
Revises: 0005_presence
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_undo"
down_revision = "0005_presence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("meeple_tables") as batch:
        batch.add_column(sa.Column("undos", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("meeple_tables") as batch:
        batch.drop_column("undos")
