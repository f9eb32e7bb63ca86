"""Stored analyses say which analysis method made them (`meeple.bots.analysis.METHOD_VERSION`),
so that one made by an older method is shown as out of date and analysed again on request.
Analyses stored before have no version (NULL): nobody knows which method made them, so they
count as out of date.

Revision ID: 0013_s4_anver
Revises: 0012_botapi
"""

import sqlalchemy as sa
from alembic import op

revision = "0013_s4_anver"
down_revision = "0012_botapi"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("meeple_analyses") as batch:
        batch.add_column(sa.Column("method", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("meeple_analyses") as batch:
        batch.drop_column("method")
