"""Many servers: a version per table, the stored move deadline, bot-driver leases, idempotency
keys, and one rematch per table.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("meeple_tables") as batch:
        # bumped by every change (move, seat, status, rematch): servers compare it to resync
        batch.add_column(sa.Column("version", sa.Integer, nullable=False, server_default="0"))
        # epoch seconds by which the seat to move must act (time limits), shared by all servers
        batch.add_column(sa.Column("deadline", sa.Float, nullable=True))
    # Racing rematches on PostgreSQL made extra tables nobody links to; keep only the linked
    # one as "the" rematch so the unique index below can be built on an old database.
    op.execute(
        "UPDATE meeple_tables SET rematch_of = NULL WHERE rematch_of IS NOT NULL AND id NOT IN "
        "(SELECT rematch FROM meeple_tables WHERE rematch IS NOT NULL)"
    )
    op.create_index("ux_meeple_tables_rematch_of", "meeple_tables", ["rematch_of"], unique=True)
    op.create_table(
        "meeple_leases",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
        sa.Column("renewed_at", sa.Float, nullable=False),
    )
    op.create_index("ix_meeple_leases_holder", "meeple_leases", ["holder"])
    op.create_table(
        "meeple_idempotency",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.Integer, nullable=True),
        sa.Column("answer", sa.JSON, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("meeple_idempotency")
    op.drop_index("ix_meeple_leases_holder", "meeple_leases")
    op.drop_table("meeple_leases")
    op.drop_index("ux_meeple_tables_rematch_of", "meeple_tables")
    with op.batch_alter_table("meeple_tables") as batch:
        batch.drop_column("deadline")
        batch.drop_column("version")
