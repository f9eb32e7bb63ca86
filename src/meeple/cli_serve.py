"""``meeple serve``: run the web platform (registered by `meeple.cli`)."""

from __future__ import annotations

from typing import Annotated

import typer


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    database_url: Annotated[
        str | None,
        typer.Option(help="SQLAlchemy URL (default: $MEEPLE_DATABASE_URL, else SQLite in the user data folder)."),
    ] = None,
    redis_url: Annotated[
        str | None, typer.Option(help="Redis URL for pub/sub between servers (default: $MEEPLE_REDIS_URL).")
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(help="Seconds a bot waits before moving, so people can follow the play.")
    ] = 0.6,
    bot_processes: Annotated[
        bool, typer.Option(help="Bots think in worker processes (else threads).")
    ] = True,
    log_level: Annotated[str, typer.Option(help="uvicorn's log level.")] = "warning",
) -> None:
    """Start the web platform: lobby, tables with friends and bots, spectators, replays."""
    try:
        import uvicorn

        from meeple.server import Settings, create_app
    except ImportError as exc:  # a bare install: say which install brings the web platform
        typer.echo(f"meeple serve needs the web extra ({exc.name} is missing): "
                   "pip install -e '.[web]'", err=True)
        raise typer.Exit(2) from exc

    settings = Settings.from_env(database_url, redis_url, bot_delay, bot_processes)
    settings.tune_gc = True  # this process is the server's alone
    app = create_app(settings)
    shown = settings.database_url.rsplit("@", 1)[-1]  # never print a password
    typer.echo(f"meeple: serving on http://{host}:{port}/  (database: {shown})")
    # State messages are small: compressing each one costs more CPU than it saves on a LAN.
    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_max_size=64 * 1024,
                ws_per_message_deflate=False)
