"""The `meeple` command: list games, play in the terminal, replay records, serve, arena."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

import typer
from rich.columns import Columns
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

import meeple
from meeple.bots import DEFAULT_LEVEL, levels, make_bot
from meeple.core import IllegalAction, State, text

app = typer.Typer(
    help="meeple: five modern tabletop games. Play in the terminal, the browser, or from Python.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console(highlight=False)


def _version(show: bool) -> None:
    if show:
        from meeple._pure import engine

        console.print(f"meeple {meeple.__version__}, engine {engine()}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="show the version and whether the engine runs compiled"),
) -> None:
    """meeple: five modern tabletop games. Play in the terminal, the browser, or from Python."""


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``["mode=cooperative", "track=12"]`` -> ``{"mode": "cooperative", "track": 12}``."""
    options: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise typer.BadParameter(f"options are NAME=VALUE, not {pair!r}")
        name, raw = pair.split("=", 1)
        try:
            options[name] = json.loads(raw)
        except json.JSONDecodeError:
            options[name] = raw
    return options


def render(state: State, player: int | None) -> str:
    view = state.view(player)
    renderer = state.info.text_renderer
    return renderer(view) if renderer else json.dumps(view, indent=1)


@app.command("list")
def list_games() -> None:
    """Show the games, their player counts and options."""
    table = Table(title="meeple games")
    table.add_column("id", style="bold")
    table.add_column("title")
    table.add_column("players")
    table.add_column("options (default)")
    table.add_column("bots")
    for g in meeple.games():
        opts = "\n".join(f"{o['name']}={json.dumps(o['default'])}" for o in g["options"])
        info = meeple.game_info(g["id"])
        table.add_row(g["id"], g["title"], ", ".join(map(str, g["players"])), opts, ", ".join(levels(info)))
    console.print(table)
    from meeple._pure import engine

    console.print(f"engine: {engine()}")


@app.command()
def play(
    game: str = typer.Argument(..., help="game id, see `meeple list`"),
    players: int = typer.Option(4, help="number of players"),
    seat: int = typer.Option(0, help="your seat (0-based); -1 to watch bots only"),
    bots: str = typer.Option(
        DEFAULT_LEVEL,
        help="bot level(s) for the other seats, comma-separated: random, easy, medium, hard, expert; "
        "your own agents: py:MODULE:NAME, pz:MODULE:NAME, learned:PATH",
    ),
    seed: int | None = typer.Option(
        None, help="game seed (a game is fully determined by it and the moves); default: random"
    ),
    option: list[str] = typer.Option([], "--option", "-o", help="game option NAME=VALUE"),
    save: Path | None = typer.Option(None, help="where to save the record (default records/…)"),
    delay: float = typer.Option(0.0, help="seconds to pause after each bot move"),
) -> None:
    """Play a game in the terminal against bots."""
    if seed is None:  # a new deal each game; the seed is printed so a game can be played again
        seed = secrets.randbits(32)
    try:
        state = meeple.make(game, players=players, seed=seed, **parse_options(option))
    except ValueError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    info = state.info
    if not -1 <= seat < players:
        console.print(f"[red]--seat must be 0..{players - 1}, or -1 to watch[/red]")
        raise typer.Exit(2)
    me = seat if seat >= 0 else None  # -1: a spectator watching bots
    names = [b.strip() for b in bots.split(",") if b.strip()] or [DEFAULT_LEVEL]
    seat_bots: dict[int, Any] = {}
    try:
        for i, p in enumerate(q for q in range(players) if q != seat):
            seat_bots[p] = make_bot(names[i % len(names)], info, seed * 101 + p)
            if hasattr(seat_bots[p], "fits"):  # learned weights: trained for this count?
                seat_bots[p].fits(players, state.options)
    except ValueError as exc:
        console.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    seat_names: list[str | None] = [
        "you" if p == seat else f"Bot {p + 1} ({seat_bots[p].name})" for p in range(players)]
    you = f"You are Player {seat + 1} (seat {seat})." if me is not None else "You are watching."
    console.print(f"[bold]{info.title}[/bold], {players} players, seed {seed} "
                  f"(play this deal again with --seed {seed}). {you}")
    seen = _print_log(state, me, 0, seat_names)
    while not state.is_over():
        p = state.to_move
        assert p is not None
        if p in seat_bots:
            action = seat_bots[p].choose(state)
            state.apply(action)
            seen = _print_log(state, me, seen, seat_names)
            if delay:
                time.sleep(delay)
            continue
        console.print(Panel(render(state, seat), title=f"Player {seat + 1} · your turn"))
        legal = state.legal_actions()
        with text.seat_names(seat_names):
            labels = [state.describe(a) for a in legal]
        _print_choices(labels)
        while True:
            try:
                answer = console.input(
                    f"Your choice [1-{len(legal)}, or words of a label, q to quit]: "
                ).strip()
            except EOFError:
                console.print("\n[yellow]Input ended; the game is not finished.[/yellow]")
                _save(state, save, seat_bots)
                raise typer.Exit(1) from None
            if answer.lower() in {"q", "quit"}:
                _save(state, save, seat_bots)
                raise typer.Exit(0)
            choice = _match_choice(state, answer, legal, labels)
            if choice is None:
                continue
            state.apply(choice)
            seen = _print_log(state, me, seen, seat_names)
            break
    console.print(Panel(render(state, me), title="Game over"))
    console.print(scoring_table(state, [n or f"Player {p + 1}" for p, n in enumerate(seat_names)]))
    _save(state, save, seat_bots)


def scoring_table(state: State, names: list[str]) -> Table:
    """The end of a game, explained: each player (best place first), how their score was made
    line by line (the game's `final_scoring`), and the total."""
    ranking, scores = state.ranking(), state.scores()
    final = state.final_scoring() or [[["Score", s]] for s in scores]
    table = Table(title="Final scoring")
    table.add_column("place", justify="right")
    table.add_column("player")
    table.add_column("how the score was made")
    table.add_column("points", justify="right")
    for p in sorted(range(state.players), key=lambda q: (ranking[q], q)):
        for i, (label, points) in enumerate(final[p]):
            table.add_row(_ordinal(ranking[p]) if i == 0 else "", names[p] if i == 0 else "", label, f"{points:g}")
        table.add_row("", "", "[bold]total[/bold]", f"[bold]{scores[p]:g}[/bold]", end_section=True)
    return table


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 < n % 100 < 14 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _print_log(state: State, viewer: int | None, start: int, names: list[str | None] | None = None) -> int:
    """Print the log lines ``viewer`` has not seen yet (each event's own sentence, naming the
    seats by ``names``); return the new log size to start from next time."""
    for event in state.log(viewer, start=start, names=names):
        console.print(f"  [dim]·[/dim] {event['text']}", highlight=False)
    return state.log_size()


def _print_choices(labels: list[str]) -> None:
    """Numbered choices: one per line, or in columns when there are many (e.g. Scarvus bids)."""
    items = [f"[bold]{i:>3}[/bold] {label}" for i, label in enumerate(labels, 1)]
    if len(items) <= 24:
        for item in items:
            console.print(" " + item)
    else:
        console.print(Columns(items, equal=True, column_first=True))


def _match_choice(state: State, answer: str, legal: list[int], labels: list[str]) -> int | None:
    """A number from the list, the words of one label (``17 blue``), or an action's JSON."""
    if answer.isdigit():
        if 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        console.print(f"[red]{answer!r} is not one of 1-{len(legal)}. Try again.[/red]")
        return None
    if answer.startswith(("{", "[")):
        try:
            return state.action_from_json(json.loads(answer))
        except (json.JSONDecodeError, IllegalAction) as exc:
            console.print(f"[red]{exc}. Try again.[/red]")
            return None
    words = {w.strip(_PUNCT) for w in answer.lower().split()} - {""}
    found = [a for a, label in zip(legal, labels, strict=True) if words and words <= _label_words(label)]
    if len(found) == 1:
        return found[0]
    if not found:
        console.print(f"[red]{answer!r} is not one of 1-{len(legal)}, nor words of one choice. Try again.[/red]")
    else:
        shown = ", ".join(labels[legal.index(a)] for a in found[:8])
        console.print(f"[red]{answer!r} fits {len(found)} choices ({shown}…); say more.[/red]")
    return None


_PUNCT = "()[],.;:!?\"'"


def _label_words(label: str) -> set[str]:
    """The words a typed answer may use for ``label``, in any order: each word as written and
    without its brackets or commas; a day/night value ``6/4`` also answers to its day value
    ``6`` (the night value is the same card's other side, not a name for it)."""
    out: set[str] = set()
    for word in label.lower().split():
        for w in (word, word.strip(_PUNCT)):
            if w:
                out.add(w)
                day, slash, _night = w.partition("/")
                if slash and day:
                    out.add(day)
    return out


def _save(state: State, path: Path | None, seat_bots: dict[int, Any]) -> None:
    if path is None:
        path = Path("records") / f"{state.game_id}-{time.strftime('%Y%m%d-%H%M%S')}-{state.seed}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    seats = {str(p): b.name for p, b in seat_bots.items()}
    path.write_text(json.dumps(state.record(seats=seats), indent=1))
    console.print(f"Record saved to {path}")


@app.command()
def replay(
    file: Path = typer.Argument(..., exists=True, readable=True, help="a record saved by `meeple play`"),
    as_player: int | None = typer.Option(None, "--as", help="show this player's view (default: spectator)"),
    step: bool = typer.Option(False, help="wait for Enter after each move"),
) -> None:
    """Step through a game record, from a spectator's or any player's view."""
    try:
        record = json.loads(file.read_text())
        final = meeple.replay(record)
    except (ValueError, json.JSONDecodeError) as exc:
        console.print(f"[red]Not a valid record: {exc}[/red]")
        raise typer.Exit(2) from exc
    if as_player is not None and not 0 <= as_player < final.players:
        console.print(f"[red]--as must be 0..{final.players - 1}[/red]")
        raise typer.Exit(2)
    state = meeple.make(record["game"], record["players"], record["seed"], **record["options"])
    names = record_names(record)
    who = "spectator" if as_player is None else f"Player {as_player + 1}"
    console.print(Panel(render(state, as_player), title=f"start · {who}'s view"))
    seen = _print_log(state, as_player, 0, names)
    for i, action in enumerate(record["actions"], 1):
        mover = state.to_move
        with text.seat_names(names):
            label = state.describe(action)
            mover_name = "?" if mover is None else text.seat(mover)
        state.apply(action)
        console.print(f"[cyan]#{i} {mover_name}[/cyan]: {label}")
        seen = _print_log(state, as_player, seen, names)
        if step:
            console.print(Panel(render(state, as_player), title=f"after move {i} · {who}'s view"))
            try:
                if console.input("[Enter] next, q quit: ").strip().lower() == "q":
                    return
            except EOFError:
                step = False
    console.print(Panel(render(state, as_player), title=f"end · {who}'s view"))
    if state.is_over():
        console.print(scoring_table(state, [n or f"Player {p + 1}" for p, n in enumerate(names)]))


def record_names(record: dict[str, Any]) -> list[str | None]:
    """The seats' names a record keeps: the web's list of names, or the terminal's bot levels
    by seat (``{"1": "easy"}``, named as the web names bots); None where it keeps none."""
    seats = (record.get("meta") or {}).get("seats")
    n = record["players"]
    if isinstance(seats, list):
        return [str(x) if x else None for x in seats[:n]] + [None] * (n - len(seats))
    if isinstance(seats, dict):
        return [f"Bot {p + 1} ({seats[str(p)]})" if str(p) in seats else None for p in range(n)]
    return [None] * n


def _register_optional() -> None:
    """Commands whose modules need optional extras (web, arena) are added when importable."""
    try:
        from meeple.cli_serve import serve

        app.command("serve")(serve)
    except ImportError:
        pass
    from meeple.cli_admin import admin  # imports the web extra only when run

    app.add_typer(admin, name="admin")
    from meeple.cli_bot import bot  # imports httpx only when run

    app.add_typer(bot, name="bot")
    from meeple.cli_analyse import analyse

    app.command("analyse")(analyse)
    try:
        from meeple.cli_arena import arena

        app.command("arena")(arena)
    except ImportError:
        pass


_register_optional()

if __name__ == "__main__":  # pragma: no cover
    app()
