"""Each idempotency claim carries a random token, so that a retry taking over a dead request's
claim gets a claim of its own: only the latest claim can store the key's answer (see
idempotency.py). Claims made before have no token (NULL): taken over like any other.

Revision ID: 0014_s6_claims
Revises: 0013_s4_anver
"""

import sqlalchemy as sa
from alembic import op

revision = "0014_s6_claims"
down_revision = "0013_s4_anver"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("meeple_idempotency") as batch:
        batch.add_column(sa.Column("token", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("meeple_idempotency") as batch:
        batch.drop_column("token")
