"""Alembic environment: the server passes its open connection in ``config.attributes``."""

from alembic import context
from sqlalchemy import create_engine

from meeple.server.storage import metadata

config = context.config
connection = config.attributes.get("connection")
# meeple's own version table, so that a database shared with other applications is no problem
VERSION_TABLE = "meeple_alembic_version"

if connection is not None:
    context.configure(connection=connection, target_metadata=metadata, version_table=VERSION_TABLE)
    with context.begin_transaction():
        context.run_migrations()
else:  # `alembic -x url=... upgrade head` from a shell
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    with create_engine(url).connect() as conn:
        context.configure(connection=conn, target_metadata=metadata, version_table=VERSION_TABLE)
        with context.begin_transaction():
            context.run_migrations()
