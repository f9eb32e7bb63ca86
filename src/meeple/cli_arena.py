"""`meeple arena`: bots play a seeded series of one game; a Rich table ranks them.

The lead's `meeple.cli` registers it with ``app.command("arena")(arena)``.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

import meeple
from meeple.bots.arena import ArenaResult, GameResult, run_arena, save, separated
from meeple.core import MeepleError

console = Console(highlight=False)


def _options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise typer.BadParameter(f"options are NAME=VALUE, not {pair!r}")
        try:
            options[name] = json.loads(raw)
        except json.JSONDecodeError:
            options[name] = raw
    return options


def arena(
    game: Annotated[str, typer.Argument(help="game id (see `meeple list`)")],
    bots: Annotated[str, typer.Option(help="comma-separated levels: random, easy, medium, hard, expert (or heuristic, ismcts:2000, ...); your own agents: py:MODULE:NAME, pz:MODULE:NAME, learned:PATH")] = "hard,medium,random",
    games: Annotated[int, typer.Option(min=1, help="games to play; balanced when a multiple of bots x players")] = 24,
    players: Annotated[int | None, typer.Option(help="seats per game (default: the number of bots if the game allows it)")] = None,
    workers: Annotated[int, typer.Option(min=1, help="local processes")] = 1,
    ray: Annotated[bool, typer.Option("--ray", help="run the games as Ray tasks")] = False,
    ray_address: Annotated[str | None, typer.Option(help="Ray cluster address (default: start a local one)")] = None,
    seed: Annotated[int, typer.Option(help="arena seed: same seed, same games")] = 0,
    out: Annotated[Path | None, typer.Option(help="save results: .json or .csv (plus a .png plot)")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="game option NAME=VALUE")] = None,
    plot: Annotated[bool, typer.Option(help="with --out, also save a PNG plot")] = True,
    max_moves: Annotated[int, typer.Option(min=1, help="stop a game after this many actions and leave it out")] = 5000,
    max_seconds: Annotated[float | None, typer.Option(min=0.001, help="cut a search move here, as a server does (counted: 'caps')")] = None,
) -> None:
    """Rank bots by playing GAME: mean place, win rate, mean score (95% CI) and an openskill rating."""
    try:  # a bare install has no arena: say which install brings it
        import matplotlib  # noqa: F401
        import openskill  # noqa: F401
    except ImportError as exc:
        console.print(f"[red]meeple arena needs the arena extra ({exc.name} is missing):[/] "
                      "pip install -e '.\\[arena]'")
        raise typer.Exit(2) from exc
    levels = [b.strip() for b in bots.split(",") if b.strip()]
    try:
        info = meeple.game_info(game)
        if players is None:
            players = len(levels) if len(levels) in info.player_counts else min(info.player_counts)
        period = len(levels) * players
        if games % period:
            console.print(f"[yellow]note:[/] seats balance exactly when --games is a multiple of {period}")
        with Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("{task.fields[leader]}"), TimeElapsedColumn(), TimeRemainingColumn(),
            console=console, transient=False,
        ) as progress:
            task = progress.add_task(f"{game} {players}p", total=games, leader="")
            wins: dict[str, int] = dict.fromkeys(levels, 0)

            def on_result(r: GameResult) -> None:
                for seat, bot in enumerate(r.lineup):
                    wins[bot] += r.places[seat] == 1
                lead = max(wins, key=lambda b: wins[b])
                progress.update(task, advance=1, leader=f"most wins: {lead} ({wins[lead]})")
                if not console.is_terminal:  # a log file gets one line per game instead
                    done = int(progress.tasks[0].completed)
                    console.print(f"game {done}/{games}: #{r.index} {r.lineup} places {r.places} "
                                  f"({r.seconds:.1f} s)")

            result = run_arena(
                game, levels, games, players, seed, _options(option or []), workers, ray,
                ray_address, on_result, max_moves, max_seconds,
            )
    except (MeepleError, ValueError) as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from exc
    argv = [game, "--bots", bots, "--games", str(games), "--players", str(players), "--seed", str(seed)]
    argv += [a for o in option or [] for a in ("-o", o)]
    argv += ["--max-seconds", f"{max_seconds:g}"] if max_seconds is not None else []
    argv += ["--workers", str(workers)] * (workers > 1) + ["--ray"] * ray
    argv += ["--out", str(out)] if out is not None else []
    result.command = "meeple arena " + " ".join(shlex.quote(a) for a in argv)
    console.print(results_table(result))
    for s in result.stats:
        if s.errors or s.illegal:
            console.print(f"[yellow]{s.bot}:[/] raised at {s.errors} and answered an illegal "
                          f"action at {s.illegal} decision(s), each played as a random legal "
                          f"move (first: {s.fault})")
    unfinished = [g.index for g in result.games if not g.finished]
    if unfinished:
        console.print(f"[yellow]{len(unfinished)} game(s) stopped at {max_moves} actions and left "
                      f"out:[/] {', '.join(map(str, unfinished))}")
    if out is not None:
        for path in save(result, out, plot):
            console.print(f"saved {path}")


def results_table(result: ArenaResult) -> Table:
    """The results as a Rich table, best mean place first, with which gaps are significant.

    It fits 80 columns whole: short heads, light borders, bot names in full (the win-rate
    interval, score interval and openskill rating are in the saved JSON/CSV).
    """
    opts = ", ".join(f"{k}={v}" for k, v in result.options.items())
    cap = f", cap {result.max_seconds:g} s" if result.max_seconds is not None else ""
    table = Table(
        title=f"{result.game}, {result.players} players, {len(result.games)} games, "
        f"seed {result.seed}{cap}" + (f" ({opts})" if opts else ""),
        caption="place: mean ± 95% interval; > its interval is clear of the next bot's. "
        "p95: 95th percentile of a decision's wall-clock and CPU seconds. "
        "caps: moves cut by the time cap",
        box=box.SIMPLE_HEAD,
        padding=(0, 1),
    )
    width = max([3, *(len(s.bot) for s in result.stats)])
    table.add_column("bot", min_width=min(width, 30), overflow="fold")
    for col in ("place", "win", "score", "p95 s", "p95 cpu", "it/move", "caps"):
        table.add_column(col, justify="right", no_wrap=True)
    rows = sorted(result.stats, key=lambda s: s.mean_place.mean)
    for i, s in enumerate(rows):
        mark = ""
        if i + 1 < len(rows) and separated(s.mean_place, rows[i + 1].mean_place):
            mark = " >"
        table.add_row(
            s.bot,
            f"{s.mean_place.mean:.2f}±{_half(s.mean_place):.2f}{mark}",
            f"{s.win_rate.mean:.0%}",
            f"{s.mean_score.mean:.1f}",
            f"{s.p95_move_seconds:.2f}",
            f"{s.p95_cpu_seconds:.2f}",
            f"{s.mean_iterations:.0f}" if s.mean_iterations else "",
            str(s.cap_hits),
        )
    return table


def _half(iv: Any) -> float:
    return (iv.hi - iv.lo) / 2
