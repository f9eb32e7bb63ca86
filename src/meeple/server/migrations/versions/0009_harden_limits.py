"""Hardening: a signing key shared by the servers (device cookies), each account's name as it
reads (`policy.fold`, so no one registers a look-alike), and Play now's queue with one waiting
entry per account and game (a unique index), with when its owner's page was last seen and
whether the search is turn-based (those entries need no page).

Revision ID: 0009_harden_limits
Revises: 0008_accounts_friends_notify
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_harden_limits"
down_revision = "0008_accounts_friends_notify"
branch_labels = None
depends_on = None

WAITING = sa.text("status = 'waiting'")


def upgrade() -> None:
    op.create_table(
        "meeple_server_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
    )
    with op.batch_alter_table("meeple_users") as batch:
        batch.add_column(sa.Column("name_fold", sa.String(40), nullable=True))
    op.create_index("ix_meeple_users_name_fold", "meeple_users", ["name_fold"])
    from meeple.server.policy import fold

    conn = op.get_bind()
    users = sa.table("meeple_users", sa.column("id", sa.Integer), sa.column("username", sa.String),
                     sa.column("name_fold", sa.String))
    for uid, username in conn.execute(sa.select(users.c.id, users.c.username)).all():
        conn.execute(sa.update(users).where(users.c.id == uid).values(name_fold=fold(username)))

    with op.batch_alter_table("meeple_queue") as batch:
        batch.add_column(sa.Column("seen_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("turn_based", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
    # duplicates from before the index: keep each account's newest waiting entry per game
    queue = sa.table("meeple_queue", sa.column("id", sa.Integer), sa.column("user_id", sa.Integer),
                     sa.column("game", sa.String), sa.column("status", sa.String))
    newest = (sa.select(sa.func.max(queue.c.id)).where(queue.c.status == "waiting")
              .group_by(queue.c.user_id, queue.c.game))
    conn.execute(sa.update(queue).where(queue.c.status == "waiting", queue.c.id.not_in(newest))
                 .values(status="cancelled"))
    op.create_index("ux_meeple_queue_waiting", "meeple_queue", ["user_id", "game"], unique=True,
                    postgresql_where=WAITING, sqlite_where=WAITING)


def downgrade() -> None:
    op.drop_index("ux_meeple_queue_waiting", "meeple_queue")
    with op.batch_alter_table("meeple_queue") as batch:
        batch.drop_column("turn_based")
        batch.drop_column("seen_at")
    op.drop_index("ix_meeple_users_name_fold", "meeple_users")
    with op.batch_alter_table("meeple_users") as batch:
        batch.drop_column("name_fold")
    op.drop_table("meeple_server_keys")
