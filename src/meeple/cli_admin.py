"""``meeple admin``: what a server's operator does from the command line (no mail here)."""

from __future__ import annotations

import secrets
from typing import Annotated

import typer

admin = typer.Typer(help="Operate a server's accounts: reset a password, disable an account.",
                    no_args_is_help=True)
DbOption = Annotated[str | None, typer.Option(
    help="SQLAlchemy URL (default: $MEEPLE_DATABASE_URL, else SQLite in the user data folder).")]


def _accounts(database_url: str | None):  # noqa: ANN202 (imports the web extra lazily)
    from meeple.server.accounts import Accounts
    from meeple.server.config import Settings
    from meeple.server.storage import Storage

    storage = Storage(Settings.from_env(database_url).database_url)
    storage.migrate()
    return Accounts(storage)


def _user(accounts, username: str) -> dict:  # noqa: ANN001
    user = accounts.find(username)
    if user is None:
        typer.echo(f"no account {username!r}", err=True)
        raise typer.Exit(1)
    return user


@admin.command("reset-password")
def reset_password(
    username: str,
    password: Annotated[str | None, typer.Option(
        help="The new password (default: a random one, printed once).")] = None,
    database_url: DbOption = None,
) -> None:
    """Set a new password and end every session of the account."""
    accounts = _accounts(database_url)
    user = _user(accounts, username)
    new = password or secrets.token_urlsafe(12)
    if len(new) < 8:
        typer.echo("a password has at least 8 characters", err=True)
        raise typer.Exit(2)
    accounts.set_password(user["id"], new)
    typer.echo(f"password of {user['username']} reset" + ("" if password else f": {new}"))


@admin.command("disable")
def disable(
    username: str,
    enable: Annotated[bool, typer.Option("--enable", help="Enable it again instead.")] = False,
    database_url: DbOption = None,
) -> None:
    """Disable an account (its sessions end, it cannot log in, it leaves the leaderboards)."""
    accounts = _accounts(database_url)
    user = _user(accounts, username)
    accounts.set_disabled(user["id"], not enable)
    typer.echo(f"{user['username']} {'enabled' if enable else 'disabled'}")
