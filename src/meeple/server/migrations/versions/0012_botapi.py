"""Bot accounts and API tokens: an account marked as a bot (for good), a person's choice not to
be seated with bot accounts by Play now, seats that say a bot account holds them, and API
tokens (the SHA-256 of each token, never the token).

Revision ID: 0012_botapi
Revises: 0011_clocks
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_botapi"
down_revision = "0011_clocks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("meeple_users") as batch:
        batch.add_column(sa.Column("is_bot", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(
            sa.Column("no_bots", sa.Boolean, nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("meeple_seats") as batch:
        batch.add_column(
            sa.Column("account_bot", sa.Boolean, nullable=False, server_default=sa.false())
        )
    op.create_table(
        "meeple_api_tokens",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "user_id", sa.Integer, sa.ForeignKey("meeple_users.id"), nullable=False, index=True
        ),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("scopes", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("meeple_api_tokens")
    with op.batch_alter_table("meeple_seats") as batch:
        batch.drop_column("account_bot")
    with op.batch_alter_table("meeple_users") as batch:
        batch.drop_column("no_bots")
        batch.drop_column("is_bot")
