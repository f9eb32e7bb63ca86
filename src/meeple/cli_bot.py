"""``meeple bot run``: play as a bot account on a meeple server (docs/bots-api.md)."""

from __future__ import annotations

from typing import Annotated

import typer

bot = typer.Typer(
    help="Play as a bot account on a meeple server, through its Bot API.", no_args_is_help=True
)


@bot.command("run")
def run(
    url: Annotated[str, typer.Argument(help="The server, e.g. https://meeple.example.org")],
    token: Annotated[
        str,
        typer.Option(
            envvar="MEEPLE_BOT_TOKEN",
            help="An API token of the bot account (scopes bot:read and bot:play).",
        ),
    ],
    level: Annotated[
        str | None,
        typer.Option(
            help="A local level: random, easy, medium, hard, expert (those but random play on "
            "worlds the server samples for the seat)."
        ),
    ] = None,
    program: Annotated[
        str | None,
        typer.Option(
            help='A program speaking JSON lines: one state in per turn, {"action": id} out.'
        ),
    ] = None,
    world: Annotated[
        bool, typer.Option(help="Send the program a sampled world with each state of its turn.")
    ] = False,
    games: Annotated[
        int | None,
        typer.Option(help="Stop after this many games ended (default: run until stopped)."),
    ] = None,
    play: Annotated[
        str | None,
        typer.Option(
            help="Ask Play now for a game first: GAME or GAME:PLAYERS (e.g. trickarus:3)."
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="The local level's seed.")] = None,
) -> None:
    """Accept invitations and challenges, and play every game that starts, until stopped."""
    try:
        from meeple.botclient import BotClient, level_policy, program_policy
    except ImportError as exc:  # httpx missing
        typer.echo(f"meeple bot needs httpx: pip install 'meeple[bot]' ({exc})", err=True)
        raise typer.Exit(1) from None
    if (level is None) == (program is None):
        typer.echo("give one of --level and --program", err=True)
        raise typer.Exit(2)
    if program is not None:
        policy, wants_world = program_policy(program), world
    else:
        assert level is not None
        policy, wants_world = level_policy(level, seed)
    ask = None
    if play:
        game, _, count = play.partition(":")
        ask = {"game": game, "players": [int(count)] if count else [2, 3, 4]}
    client = BotClient(
        url,
        token,
        policy,
        world=wants_world,
        games=games,
        play=ask,
        say=lambda text: typer.echo(text),
    )
    try:
        played = client.run()
    except KeyboardInterrupt:
        client.stop.set()
        played = client.done
    except RuntimeError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{played} game{'s' if played != 1 else ''} played")
