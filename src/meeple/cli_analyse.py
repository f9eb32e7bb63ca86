"""`meeple analyse`: where a finished game was won or lost, from one seat's information.

`meeple.cli` registers it with ``app.command("analyse")(analyse)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import meeple
from meeple.bots.analysis import DEPTHS, Analysis
from meeple.bots.analysis import analyse as run_analysis
from meeple.core import MeepleError

console = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def analyse(
    record: Annotated[Path, typer.Argument(help="a game record (.json), as `meeple play --save` writes or /api/tables/ID/record gives")],
    as_: Annotated[int, typer.Option("--as", help="the seat to analyse (0-based, as `meeple play --seat`)")],
    depth: Annotated[str, typer.Option(help=f"work budget: {', '.join(DEPTHS)}")] = "quick",
    as_json: Annotated[bool, typer.Option("--json", help="print the analysis as JSON")] = False,
) -> None:
    """Analyse one seat's decisions: expected place of every choice, mistakes, and a summary."""
    if depth not in DEPTHS:
        raise typer.BadParameter(f"--depth must be one of {', '.join(DEPTHS)}")
    try:
        data = json.loads(record.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        err.print(f"[red]cannot read {record}: {exc}[/red]")
        raise typer.Exit(2) from exc
    try:
        with Progress(
            TextColumn("analysing"), BarColumn(), MofNCompleteColumn(), TextColumn("decisions"),
            TimeElapsedColumn(), console=err, transient=True,
        ) as bar:
            task = bar.add_task("analyse", total=None)
            result = run_analysis(data, as_, depth,
                                  progress=lambda done, total: bar.update(task, completed=done, total=total))
    except (MeepleError, ValueError, KeyError, TypeError) as exc:
        err.print(f"[red]{exc}[/red]")
        raise typer.Exit(2) from exc
    if as_json:
        print(json.dumps(result.to_json(), indent=1))
        return
    show(result)


def show(result: Analysis) -> None:
    """The analysis as a Rich table of the decisions that lost something, then the summary."""
    title = meeple.game_info(result.game).title
    console.print(f"[bold]{title}[/bold], Player {result.seat + 1} (seat {result.seat}), {result.depth} "
                  f"({result.budget['worlds']} worlds x {result.budget['rollouts']} rollouts, "
                  f"rollouts by {result.policy}{', cut at the horizon' if result.cut else ''})")
    table = Table(box=box.SIMPLE, title="Expected final place after each of your choices")
    for col in ("move", "you played", "place", "best", "place", "loss", ""):
        table.add_column(col)
    for d in result.decisions:
        best = next(c for c in d.choices if c.action == d.best)
        table.add_row(
            str(d.index + 1), d.chosen_label, f"{d.place:.2f}",
            "" if d.best == d.chosen else best.label,
            "" if d.best == d.chosen else f"{best.place:.2f}",
            f"{d.loss:.2f} ± {d.loss_ci:.2f}" if d.loss else "",
            "[red]mistake[/red]" if d.mistake else "",
        )
    console.print(table)
    if result.final_place is not None:
        console.print(f"Final place: {result.final_place}")
    console.print(f"[bold]{result.summary}[/bold]")
