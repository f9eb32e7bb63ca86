"""``meeple serve``: run the web platform (registered by `meeple.cli`)."""

from __future__ import annotations

import socket
from typing import Annotated

import typer


def network_addresses() -> list[str]:
    """This machine's IPv4 addresses others on the network could reach (loopback last).

    The standard library has no interface list; the host name's addresses plus the address a
    UDP socket would leave by (no packet is sent) cover a home network and a small server.
    """
    found: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent, only a route is chosen
            found.append(s.getsockname()[0])
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.append(str(info[4][0]))
    except OSError:
        pass
    out = [a for a in dict.fromkeys(found) if not a.startswith("127.")]
    return [*out, "127.0.0.1"]


def banner(host: str, port: int, public_url: str | None) -> list[str]:
    """What `meeple serve` prints: where people reach it."""
    if host in ("0.0.0.0", "::", ""):
        lines = ["meeple: serving on every network address of this machine:"]
        lines += [f"  http://{a}:{port}/" for a in network_addresses()]
    else:
        lines = [f"meeple: serving on http://{host}:{port}/"]
    if public_url:
        lines.append(f"  public address (links and invites): {public_url}/")
    return lines


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0: every network).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    database_url: Annotated[
        str | None,
        typer.Option(help="SQLAlchemy URL (default: $MEEPLE_DATABASE_URL, else SQLite in the user data folder)."),
    ] = None,
    redis_url: Annotated[
        str | None, typer.Option(help="Redis URL for pub/sub between servers (default: $MEEPLE_REDIS_URL).")
    ] = None,
    public_url: Annotated[
        str | None,
        typer.Option(help="The address people use, e.g. https://games.example.org: every link and "
                          "redirect uses it; https marks cookies Secure (default: $MEEPLE_PUBLIC_URL)."),
    ] = None,
    proxy_headers: Annotated[
        bool, typer.Option(help="Trust X-Forwarded-For/-Proto from --forwarded-allow-ips.")
    ] = True,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(help="Proxies trusted for forwarded headers, comma-separated "
                          "(default: $FORWARDED_ALLOW_IPS, else 127.0.0.1)."),
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

    try:
        settings = Settings.from_env(database_url, redis_url, bot_delay, bot_processes, public_url)
    except ValueError as exc:
        typer.echo(f"meeple: {exc}", err=True)
        raise typer.Exit(2) from exc
    settings.tune_gc = True  # this process is the server's alone
    app = create_app(settings)
    shown = settings.database_url.rsplit("@", 1)[-1]  # never print a password
    for line in banner(host, port, settings.public_url):
        typer.echo(line)
    typer.echo(f"  database: {shown}")
    # State messages are small: compressing each one costs more CPU than it saves on a LAN.
    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_max_size=64 * 1024,
                ws_per_message_deflate=False, proxy_headers=proxy_headers,
                forwarded_allow_ips=forwarded_allow_ips)
