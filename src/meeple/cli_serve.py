"""``meeple serve``: run the web platform (registered by `meeple.cli`)."""

from __future__ import annotations

import asyncio
import logging
import signal
import socket
from typing import Annotated, Any

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
    log_format: Annotated[
        str, typer.Option(help="The server's own log lines: json (one object a line) or text.",
                          envvar="MEEPLE_LOG_FORMAT")
    ] = "json",
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
    from meeple.server.ops import setup_logging

    setup_logging("info", json_logs=log_format != "text")
    app = create_app(settings)
    shown = settings.database_url.rsplit("@", 1)[-1]  # never print a password
    for line in banner(host, port, settings.public_url):
        typer.echo(line)
    typer.echo(f"  database: {shown}")
    # State messages are small: compressing each one costs more CPU than it saves on a LAN.
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, ws_max_size=64 * 1024,
                            ws_per_message_deflate=False, proxy_headers=proxy_headers,
                            forwarded_allow_ips=forwarded_allow_ips)
    draining_server(config, app.state.manager, settings.drain_seconds).run()


def draining_server(config: Any, manager: Any, seconds: float) -> Any:
    """A uvicorn server whose first SIGTERM drains before stopping: no new tables or sockets,
    /readyz 503, leases handed to the other servers at once, every socket told to reconnect
    (elsewhere, through the load balancer); ``seconds`` later uvicorn's own shutdown runs. A
    second signal, or SIGINT, stops at once."""
    import uvicorn

    log = logging.getLogger("meeple.server")

    class DrainingServer(uvicorn.Server):
        drain_started = False

        def handle_exit(self, sig: int, frame: Any) -> None:
            if sig == signal.SIGTERM and not self.drain_started and seconds > 0:
                self.drain_started = True
                loop = asyncio.get_running_loop()  # signal handlers run on the loop's thread
                loop.call_soon_threadsafe(self._start_drain, loop, sig, frame)
                return
            super().handle_exit(sig, frame)

        def _start_drain(self, loop: Any, sig: int, frame: Any) -> None:
            self.drain_task = loop.create_task(self._drain(sig, frame))

        async def _drain(self, sig: int, frame: Any) -> None:
            try:
                await manager.drain()
            except Exception:
                log.exception("drain failed")
            await asyncio.sleep(seconds)
            super().handle_exit(sig, frame)

    return DrainingServer(config)
