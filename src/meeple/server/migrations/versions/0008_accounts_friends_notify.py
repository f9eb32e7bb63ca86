"""Friends, invitations by name, friends-only tables, and notifications (email and Web Push).

Revision ID: 0008_accounts_friends_notify
Revises: 0007_undone_to
"""

import sqlalchemy as sa
from alembic import op

revision = "0008_accounts_friends_notify"
down_revision = "0007_undone_to"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "meeple_friends",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), primary_key=True),
        sa.Column("friend_id", sa.Integer, sa.ForeignKey("meeple_users.id"), primary_key=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_meeple_friends_friend_id", "meeple_friends", ["friend_id"])
    op.create_table(
        "meeple_user_seen",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), primary_key=True),
        sa.Column("seen_at", sa.Float, nullable=False),
    )
    op.create_table(
        "meeple_table_access",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("meeple_tables.id"), primary_key=True),
        sa.Column("host_user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), nullable=True),
        sa.Column("friends_only", sa.Boolean, nullable=False),
    )
    op.create_index("ix_meeple_table_access_host_user_id", "meeple_table_access", ["host_user_id"])
    op.create_table(
        "meeple_invites",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("meeple_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), nullable=False),
        sa.Column("from_user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_meeple_invites_user_id", "meeple_invites", ["user_id"])
    op.create_table(
        "meeple_notify_prefs",
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), primary_key=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("confirmed", sa.Boolean, nullable=False),
        sa.Column("confirm_hash", sa.String(64), nullable=True),
        sa.Column("email_on", sa.Boolean, nullable=False),
        sa.Column("unsub_token", sa.String(64), nullable=False, unique=True),
    )
    op.create_index("ix_meeple_notify_prefs_confirm_hash", "meeple_notify_prefs", ["confirm_hash"])
    op.create_table(
        "meeple_push_subs",
        sa.Column("endpoint", sa.String(1000), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), nullable=False),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_meeple_push_subs_user_id", "meeple_push_subs", ["user_id"])
    op.create_table(
        "meeple_notified",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "meeple_mailed",
        sa.Column("user_id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("sent_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for name in ("meeple_mailed", "meeple_notified", "meeple_push_subs", "meeple_notify_prefs",
                 "meeple_invites", "meeple_table_access", "meeple_user_seen", "meeple_friends"):
        op.drop_table(name)
