"""The web client's pages, the rulings pages and each game's browser files.

The pages are static HTML; their scripts read the path (table id, username, game).
"""

from __future__ import annotations

import asyncio
import re
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

import meeple

from .. import rulings as rulings_mod
from ..tables import TableError

WEB = Path(str(resources.files("meeple").joinpath("web")))
_SAFE_FILE = re.compile(r"^[A-Za-z0-9_\-]+\.(js|css|svg|png|json)$")
_MEDIA = {
    "js": "text/javascript",
    "css": "text/css",
    "svg": "image/svg+xml",
    "png": "image/png",
    "json": "application/json",
}
PAGES = {
    "/": "index.html",
    "/table/{_id}": "table.html",
    "/replay/{_id}": "replay.html",
    "/account": "account.html",
    "/player/{_id}": "player.html",
    "/leaderboard/{_id}": "leaderboard.html",
    "/play": "play.html",
    "/my": "mygames.html",
}

router = APIRouter()


def _page_of(page: str) -> Any:
    async def serve_page() -> FileResponse:
        return FileResponse(WEB / page)

    return serve_page


for _route, _page in PAGES.items():
    router.add_api_route(_route, _page_of(_page), methods=["GET"], include_in_schema=False)


@router.get("/rulings/{game}", include_in_schema=False)
async def rulings(game: str) -> HTMLResponse:
    """The game's rulings page: how meeple reads its rulebook, and what was reconstructed."""
    if game not in {g["id"] for g in meeple.games()}:
        raise TableError("no_table", "no such game")
    path = rulings_mod.rulings_file(game)
    if path is None:
        raise TableError(
            "no_table",
            f"this install has no rulings page; see {meeple.game_info(game).rules_doc}"
            " in the meeple source",
        )
    text = await asyncio.to_thread(path.read_text, encoding="utf-8")
    return HTMLResponse(rulings_mod.render_page(meeple.game_info(game).title, text))


@router.get("/games/{game}/web/{name}")
async def game_asset(game: str, name: str) -> FileResponse:
    if game not in {g["id"] for g in meeple.games()} or not _SAFE_FILE.match(name):
        raise TableError("no_table", "no such file")
    path = Path(str(resources.files(f"meeple.games.{game}").joinpath("web", name)))
    if not path.is_file():
        raise TableError("no_table", "no such file")
    return FileResponse(path, media_type=_MEDIA[name.rsplit(".", 1)[1]])
