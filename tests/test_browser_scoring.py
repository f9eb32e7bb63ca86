"""The end of a game explains itself, and the log names people: Playwright driving Debian's
headless Chromium on every game.

- The end panel shows each player's `final_scoring` lines (the game's own) in a table, and
  they add up to the scores shown (and to the game record's scores).
- No log line says "Player N" where the seat has a name: the seat's own page reads "You",
  the others by the names on their seats, on the table page (seat and spectator) and on the
  replay page.

Off unless MEEPLE_TEST_BROWSER=1. With MEEPLE_SCREENSHOT_DIR set, also writes each game's end
panel there, desktop and phone (`<game>-end.png`, `<game>-end-phone.png`; docs/screenshots/).
"""

from __future__ import annotations

import json
import os
import random
import re
import urllib.request
import uuid
from pathlib import Path

import pytest

import meeple

pytestmark = pytest.mark.browser
if os.environ.get("MEEPLE_TEST_BROWSER") != "1":
    pytest.skip("set MEEPLE_TEST_BROWSER=1 to run browser tests", allow_module_level=True)
pytest.importorskip("playwright.sync_api")

from test_browser import (  # noqa: E402  (after the skip: it needs Playwright)
    GAMES,
    browser,
    click_a_choice,
    new_page,
    own_server,
    play_pages_until_end,
    server,
    wait_turn_or_end,
)

__all__ = ["browser", "own_server", "server"]  # fixtures
PLAYER_N = re.compile(r"\bPlayer \d\b")
NAME = "boardgamer"


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def players_for(game: str) -> int:
    counts = meeple.game_info(game).player_counts
    return 3 if 3 in counts else min(counts)


def seated_table(server, game: str, players: int) -> tuple[str, str]:
    """A table with me (boardgamer) at seat 0 and random bots elsewhere: its id and my secret."""
    t = post(server.url + "/api/tables", {
        "game": game, "players": players, "name": NAME,
        "seats": [{"kind": "me"}] + [{"kind": "bot", "level": "random"}] * (players - 1)})
    return t["id"], t["secret"]


def open_seat(page, server, table_id: str, secret: str) -> None:
    """Open the table as its seat 0: the browser keeps the seat's secret, as after creating it."""
    page.goto(server.url + "/")
    page.evaluate("([id, secret]) => localStorage.setItem(`meeple:table:${id}`, JSON.stringify({seat: 0, secret}))",
                  [table_id, secret])
    page.goto(f"{server.url}/table/{table_id}")


def log_lines(page) -> list[str]:
    return page.locator("#log li").evaluate_all("els => els.map(e => e.textContent)")


def check_names(lines: list[str], players: int, reader: bool) -> None:
    assert lines
    bad = [x for x in lines if PLAYER_N.search(x)]
    assert not bad, bad[:5]
    if reader:
        assert any(re.match(r"(Round \d+: )?[Yy]ou\b", x) or " you " in x for x in lines), lines[:10]
        assert not any(NAME in x for x in lines), [x for x in lines if NAME in x][:3]
    named = {p for p in range(1, players) if any(f"Bot {p + 1} (random)" in x for x in lines)}
    assert named, lines[:10]


END_PANEL = """(root) => [...document.querySelectorAll(`${root} [data-final-scoring] table.fs-player`)].map(t => ({
  player: Number(t.dataset.player),
  score: Number(t.dataset.score),
  total: Number(t.querySelector('.fs-total').textContent),
  lines: [...t.querySelectorAll('tr.fs-line')].map(r => [r.cells[0].textContent, Number(r.dataset.points), Number(r.cells[1].textContent)]),
}))"""


def check_end_panel(page, table_id: str, server, players: int, root: str = "#end") -> None:
    page.wait_for_selector(f"{root} [data-final-scoring]")
    shown = page.evaluate(END_PANEL, root)
    assert sorted(t["player"] for t in shown) == list(range(players))
    record = get(f"{server.url}/api/tables/{table_id}/record")
    for t in shown:
        assert t["lines"], t
        assert all(label.strip() and shown_pts == pts for label, pts, shown_pts in t["lines"]), t
        assert sum(pts for _, pts, _ in t["lines"]) == pytest.approx(t["score"]) == pytest.approx(t["total"])
        assert t["score"] == pytest.approx(record["result"]["scores"][t["player"]])


@pytest.mark.parametrize("game", GAMES)
def test_end_panel_explains_the_scores_and_the_log_names_people(browser, server, game):
    players = players_for(game)
    errors: list[str] = []
    page = new_page(browser, errors)
    tid, secret = seated_table(server, game, players)
    open_seat(page, server, tid, secret)
    rng = random.Random(5)
    for _ in range(6):  # a few moves of my own, then the bots finish the game for me
        if wait_turn_or_end(page) == "over":
            break
        click_a_choice(page, rng)
    page.wait_for_function("() => document.querySelectorAll('#log li').length > 0")
    check_names(log_lines(page), players, reader=True)
    if page.evaluate("document.body.dataset.status") != "over":
        page.click("#leave")
    page.wait_for_function("() => document.body.dataset.status === 'over'", timeout=120_000)
    check_end_panel(page, tid, server, players)
    check_names(log_lines(page), players, reader=True)

    watcher = new_page(browser, errors)  # a spectator's page of the same table
    watcher.goto(f"{server.url}/table/{tid}")
    watcher.wait_for_function("() => document.body.dataset.status === 'over'")
    check_end_panel(watcher, tid, server, players)
    check_names(log_lines(watcher), players, reader=False)

    replay = new_page(browser, errors)  # the replay page, from seat 0 and at the end
    replay.goto(f"{server.url}/replay/{tid}?seat=0")
    replay.wait_for_function("() => document.getElementById('where').textContent.startsWith('move 0 of')")
    replay.click("#lastbtn")
    replay.wait_for_function("() => /^move (\\d+) of \\1$/.test(document.getElementById('where').textContent)")
    check_names(log_lines(replay), players, reader=True)
    check_end_panel(replay, tid, server, players, root="#final")  # the replay's last step too
    for p in (page, watcher, replay):
        p.context.close()
    assert not errors, errors


@pytest.mark.skipif(not os.environ.get("MEEPLE_SCREENSHOT_DIR"), reason="set MEEPLE_SCREENSHOT_DIR")
@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("game", GAMES)
def test_screenshot_of_each_games_end_panel(browser, server, game, size):
    out = Path(os.environ["MEEPLE_SCREENSHOT_DIR"])
    out.mkdir(parents=True, exist_ok=True)
    players = players_for(game)
    tid, secret = seated_table(server, game, players)
    page = new_page(browser, [], size)
    open_seat(page, server, tid, secret)
    wait_turn_or_end(page)
    if page.evaluate("document.body.dataset.status") != "over":
        page.click("#leave")
    page.wait_for_function("() => document.body.dataset.status === 'over'", timeout=120_000)
    page.wait_for_selector("#end [data-final-scoring]")
    page.wait_for_timeout(800)
    suffix = "" if size == "desktop" else "-phone"
    page.screenshot(path=str(out / f"{game}-end{suffix}.png"))
    page.context.close()


def waiting_to_play(page, url: str, username: str):
    """The page of a new account (registered over the page's own cookies) that pressed Play now
    for two-player Trickarus."""
    page.goto(url + "/")
    for path, body in (("/api/register", {"username": username, "password": "correct horse"}),
                       ("/api/play", {"game": "trickarus", "players": [2]})):
        r = page.request.post(url + path, data=body)
        assert r.ok, r.text()
    return page


def test_a_rated_games_end_panel_shows_each_accounts_rating_before_and_after(browser, own_server):
    """Two accounts meet by Play now, play a rated Trickarus to the end; each end panel shows
    both accounts' ratings before and after (newcomers start at 0; the winner gains)."""
    errors: list[str] = []
    url = own_server.url
    names = [f"{who}{uuid.uuid4().hex[:6]}" for who in ("ann", "bob")]
    pages = [waiting_to_play(new_page(browser, errors), url, n) for n in names]
    tables = set()
    for page in pages:
        entries = page.request.get(url + "/api/play?wait=20").json()["entries"]
        tables |= {e["table"] for e in entries if e["status"] == "seated"}
    assert len(tables) == 1
    (tid,) = tables
    for page in pages:
        page.goto(f"{url}/table/{tid}")
        page.wait_for_function("document.body.dataset.status === 'running'")
    rng = random.Random(5)
    play_pages_until_end(pages, rng)
    for page in pages:
        page.wait_for_function("document.body.dataset.status === 'over'")
        page.wait_for_function("document.querySelectorAll('#end .fs-rating').length === 2")
        shown = page.locator("#end table.fs-player").evaluate_all("""ts => ts.map(t => ({
          place: t.querySelector('caption strong').textContent.trim(),
          name: t.querySelector('caption').textContent,
          before: Number(t.querySelector('.fs-rating').dataset.ratingBefore),
          after: Number(t.querySelector('.fs-rating').dataset.ratingAfter)}))""")
        assert all(s["before"] == 0 for s in shown)
        winner = next(s for s in shown if s["place"] == "1st")
        assert winner["after"] > 0 and any(n in winner["name"] for n in names)
        check_end_panel(page, tid, own_server, 2)
    if os.environ.get("MEEPLE_SCREENSHOT_DIR"):
        pages[0].screenshot(path=str(Path(os.environ["MEEPLE_SCREENSHOT_DIR"]) / "trickarus-end-rated.png"))
    for page in pages:
        page.context.close()
    assert not errors, errors
