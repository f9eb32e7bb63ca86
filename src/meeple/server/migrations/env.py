"""Alembic environment: the server passes its open connection in ``config.attributes``."""

from alembic import context
from sqlalchemy import create_engine

from meeple.server.storage import metadata

config = context.config
connection = config.attributes.get("connection")

if connection is not None:
    context.configure(connection=connection, target_metadata=metadata)
    with context.begin_transaction():
        context.run_migrations()
else:  # `alembic -x url=... upgrade head` from a shell
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    with create_engine(url).connect() as conn:
        context.configure(connection=conn, target_metadata=metadata)
        with context.begin_transaction():
            context.run_migrations()
