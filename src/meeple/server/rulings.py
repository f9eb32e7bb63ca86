"""The rulings pages (`docs/games/<id>.md`) served as HTML at ``/rulings/<game>``.

They are Markdown in the repository, read from the source checkout (the README's installs are
editable) or from ``<prefix>/share/meeple/rulings`` where a wheel install puts them
(pyproject's ``data-files``). Raw HTML in them is not passed through: only Markdown's own tags.
"""

from __future__ import annotations

import html
import sys
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt

import meeple

_CHECKOUT = Path(meeple.__file__).resolve().parents[2]


def rulings_file(game: str) -> Path | None:
    """Where this game's rulings page is on this machine, if anywhere."""
    doc = meeple.game_info(game).rules_doc  # "docs/games/<id>.md"
    for path in (_CHECKOUT / doc, Path(sys.prefix) / "share" / "meeple" / "rulings" / Path(doc).name):
        if path.is_file():
            return path
    return None


@cache
def _renderer() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def render_page(title: str, markdown: str) -> str:
    """A whole page: the shared stylesheet, a way back, and the Markdown as HTML."""
    body = _renderer().render(markdown)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>meeple — {html.escape(title)} rulings</title>"
        '<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/app.css"></head>'
        '<body><header class="top"><a class="brand" href="/">meeple</a>'
        f'<span class="muted">{html.escape(title)}: rulings</span></header>'
        f'<main class="lobby narrow rulings">{body}</main></body></html>'
    )
