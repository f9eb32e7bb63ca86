"""Time as players know it from Board Game Arena: each table's speed (a real-time clock of a
bank plus an increment per turn, or a turn-based deadline per move; the rule when a clock runs
out; how long a person may be away), the clocks' state (each seat's bank, a turn being
skipped, votes to replace a player) and who left or timed out of which table (ratings count
them last, profiles show them).

Old tables keep their time: a limit per move under an hour becomes a real-time clock with that
bank and that increment per turn (never less than before), an hour or more a turn-based
deadline of the same length; both skip a turn that runs out, as the old time-out did.

Revision ID: 0011_clocks
Revises: 0010_analysis
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_clocks"
down_revision = "0010_analysis"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("meeple_tables") as batch:
        batch.add_column(sa.Column("speed", sa.JSON, nullable=True))
        batch.add_column(sa.Column("clocks", sa.Text, nullable=True))
    op.create_table(
        "meeple_abandons",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, nullable=True, index=True),
        sa.Column("reason", sa.String(16), nullable=False),  # timeout | replaced | left
        sa.Column("at", sa.Float, nullable=False),
    )
    tables = sa.table("meeple_tables", sa.column("id", sa.String), sa.column("time_limit", sa.Float),
                      sa.column("speed", sa.JSON))
    conn = op.get_bind()
    rows = conn.execute(sa.select(tables.c.id, tables.c.time_limit)
                        .where(tables.c.time_limit.is_not(None))).all()
    for tid, limit in rows:
        if limit < 3600:
            speed = {"mode": "realtime", "bank": limit, "increment": limit, "per_move": None,
                     "on_timeout": "skip", "absent": None}
        else:
            speed = {"mode": "turn", "bank": None, "increment": 0.0, "per_move": limit,
                     "on_timeout": "skip", "absent": None}
        conn.execute(sa.update(tables).where(tables.c.id == tid).values(speed=speed))


def downgrade() -> None:
    op.drop_table("meeple_abandons")
    with op.batch_alter_table("meeple_tables") as batch:
        batch.drop_column("clocks")
        batch.drop_column("speed")
