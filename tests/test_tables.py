"""The tables' own data, checked without a browser: each game's rules panel, and
Karvi's map positions for every place of every board side."""

from __future__ import annotations

import html
import itertools
import json
import math
import re
from importlib import resources
from pathlib import Path

import pytest

import meeple

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("game", [g["id"] for g in meeple.games()])
def test_each_game_has_a_rules_panel(game: str) -> None:
    rules = json.loads(resources.files(f"meeple.games.{game}").joinpath("web", "rules.json").read_text())
    assert rules["summary"] and all(isinstance(x, str) and x.strip() for x in rules["summary"])
    assert rules["players"] and all(isinstance(x, str) and x.strip() for x in rules["players"])
    assert rules["rulings"] == meeple.game_info(game).rules_doc and (ROOT / rules["rulings"]).is_file()


def test_karvi_places_are_drawn_apart_on_every_board_side() -> None:
    """Every place has a position in the renderer, and no two are closer than a finger (48 px
    on the drawn map), so each can be tapped; the projection is the renderer's."""
    from meeple.games.karvi import components as C

    js = resources.files("meeple.games.karvi").joinpath("web", "renderer.js").read_text()
    block = js[js.index("const PLACE = {"):js.index("};", js.index("const PLACE = {"))]
    place = {m[0].strip().strip('"'): (float(m[1]), float(m[2]))
             for m in re.findall(r'("[^"]+"|\w+): \[(-?[\d.]+), (-?[\d.]+)\]', block)}
    w, h = (int(re.search(rf"MAP_{k} = (\d+)", js.replace("MAP_W = 760, MAP_H", "MAP_W = 760; MAP_H")).group(1))
            for k in "WH")
    for n in meeple.game_info("karvi").player_counts:
        names = [s["name"] for s in C.side(n)["spots"]]
        assert set(names) <= set(place), set(names) - set(place)
        lon = [place[x][0] * math.cos(math.radians(57)) for x in names]
        lat = [place[x][1] for x in names]
        sx = (w - 120) / (max(lon) - min(lon))
        sy = (h - 90) / (max(lat) - min(lat))
        at = [(lon[i] * sx, -lat[i] * sy) for i in range(len(names))]
        for i, j in itertools.combinations(range(len(names)), 2):
            assert math.dist(at[i], at[j]) >= 48, (n, names[i], names[j])


@pytest.mark.parametrize("game", [g["id"] for g in meeple.games()])
def test_each_game_serves_its_rulings_page(game: str, tmp_path: Path) -> None:
    """The rules panel links /rulings/<game>: the game's docs/games/<id>.md as a page."""
    pytest.importorskip("fastapi")
    from server_util import client

    doc = (ROOT / meeple.game_info(game).rules_doc).read_text()
    heading = doc.splitlines()[0].removeprefix("# ")
    with client(f"sqlite:///{tmp_path / 'r.db'}") as c:
        r = c.get(f"/rulings/{game}")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        h1 = re.sub(r"<[^>]+>", "", re.search(r"<h1>(.*?)</h1>", r.text).group(1))
        assert html.unescape(h1) == heading.replace("*", "")
        assert "<table>" in r.text or "|" not in doc  # Markdown tables are drawn as tables
        assert c.get("/rulings/chess").status_code == 404


def test_rulings_pages_pass_no_raw_html_through() -> None:
    """A rulings file is data an owner of the game may edit: its raw HTML is shown, never run."""
    pytest.importorskip("markdown_it")
    from meeple.server.rulings import render_page

    page = render_page("X", "# X\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>")
    assert "<script>alert" not in page and "<img" not in page and "&lt;script&gt;" in page
