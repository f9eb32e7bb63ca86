import os
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # so tests can `import contract`

_run_database: tuple[str, str] | None = None  # (admin URL, database name) made for this run


def pytest_configure(config) -> None:
    """Give this run a PostgreSQL database of its own, created empty beside the one named.

    Why: the named database outlives the run. A schema migrated by a newer checkout (an Alembic
    revision this checkout does not have) or rows left by an interrupted run must not decide
    whether this checkout's tests pass. Runs before test modules are imported, since they read
    the variable at import time. ``MEEPLE_TEST_POSTGRES_KEEP=1`` uses the named database as is.
    """
    global _run_database
    url = os.environ.get("MEEPLE_TEST_POSTGRES_URL")
    if not url or os.environ.get("MEEPLE_TEST_POSTGRES_KEEP") or _run_database:
        return
    import sqlalchemy as sa

    name = f"meeple_run_{uuid.uuid4().hex[:10]}"
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    admin.dispose()
    _run_database = (url, name)
    os.environ["MEEPLE_TEST_POSTGRES_URL"] = (
        sa.engine.make_url(url).set(database=name).render_as_string(hide_password=False))


def pytest_unconfigure(config) -> None:
    global _run_database
    if not _run_database:
        return
    import sqlalchemy as sa

    url, name = _run_database
    os.environ["MEEPLE_TEST_POSTGRES_URL"] = url
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.dispose()
    _run_database = None


# Suites whose tests race real servers, browsers and clocks on a machine that may be loaded (CI
# runs them on two cores beside PostgreSQL and Redis). A failure there is retried twice, so a
# real fault still fails, three times in a row, and a timing flake does not fail the run.
RETRIED = ("test_browser", "test_server_race", "test_server_ops", "test_clocks_servers",
           "test_deploy_nginx")


def pytest_collection_modifyitems(config, items) -> None:
    import pytest

    if not config.pluginmanager.hasplugin("rerunfailures"):
        return
    for item in items:
        if item.path.name.startswith(RETRIED) and item.get_closest_marker("flaky") is None:
            item.add_marker(pytest.mark.flaky(reruns=2, reruns_delay=1))
