"""The platform as a person uses it: Playwright driving Debian's headless Chromium.

The web platform, "Tests and figures > Browser tests". Off unless MEEPLE_TEST_BROWSER=1
(needs `apt-get install chromium`). With MEEPLE_SCREENSHOT_DIR set, also writes a screenshot
of each game's table there (docs/screenshots/ in the repository).
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import meeple

pytestmark = pytest.mark.browser
if os.environ.get("MEEPLE_TEST_BROWSER") != "1":
    pytest.skip("set MEEPLE_TEST_BROWSER=1 to run browser tests", allow_module_level=True)
playwright = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
MAX_CLICKS = 4000
GAMES = [g["id"] for g in meeple.games()]


class Server:
    """`python -m meeple.server` on a loopback port, which a test may kill and restart."""

    def __init__(self, db: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.db = db
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # The browser suite plays many tables from one address on one server: more than one
        # visitor may keep running (docs/web.md, "Limits"; the caps have tests of their own).
        env = {"MEEPLE_MAX_TABLES_PER_VISITOR": "1000", "MEEPLE_MAX_BOT_SEATS_PER_VISITOR": "10000",
               **os.environ}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "meeple.server", "--port", str(self.port),
             "--database-url", self.db, "--bot-delay", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/api/games", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        """SIGKILL: no shutdown hook runs, as when a machine dies."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the tests that do not kill it (starting one takes a few seconds)."""
    srv = Server(f"sqlite:///{tmp_path_factory.mktemp('db') / 'browser.db'}")
    srv.start()
    yield srv
    srv.kill()


@pytest.fixture()
def own_server(tmp_path):
    srv = Server(f"sqlite:///{tmp_path / 'killed.db'}")
    srv.start()
    yield srv
    srv.kill()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def new_page(browser, errors, size="desktop", motion="reduce", csp=False):
    """A page at ``size``. ``motion="reduce"`` is the system's reduced-motion setting, which the
    tables honour (no pulsing choices): Playwright waits for a pulsing choice to settle before
    it clicks, 0.4-0.5 s a click against 0.05 s (the page itself answers a click in about 30 ms
    either way), so the tests that play whole games use it and the screenshot and undo tests
    keep the animations on. The pages' Content-Security-Policy forbids eval, which Playwright's
    ``wait_for_function`` needs, so it is bypassed unless ``csp`` (the test of the policy)."""
    context = browser.new_context(viewport=SIZES[size], has_touch=size == "phone", reduced_motion=motion,
                                  bypass_csp=not csp)
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(30_000)
    return page


def create_in_lobby(page, url, game, players, name="Ann", seats=None):
    """Create a table by clicking through the lobby: me at seat 1, the rest as ``seats`` say."""
    page.goto(url + "/")
    page.fill("#my-name", name)
    card = page.locator(f'[data-game="{game}"]')
    card.locator("summary").click()
    card.locator('select[name="players"]').select_option(str(players))
    for i, value in (seats or {}).items():
        card.locator(f'select[name="seat-{i}"]').select_option(value)
    card.locator("button.primary").click()
    page.wait_for_url("**/table/*")
    return page.url.rsplit("/", 1)[1]


def wait_turn_or_end(page):
    page.wait_for_function(
        "() => document.body.dataset.status === 'over' || "
        "(document.body.classList.contains('my-turn') && !document.body.classList.contains('sending'))",
        timeout=60_000,
    )
    return page.evaluate("document.body.dataset.status")


def click_a_choice(page, rng, board_only=False):
    """Click a legal choice: on the drawing when the game's renderer offers one, else the panel
    (``board_only``: the drawing must offer every legal choice, and one of them is clicked)."""
    before = page.evaluate("document.body.dataset.move")
    on_board = page.locator("#board [data-action]")
    if board_only:
        drawn = set(on_board.evaluate_all("els => els.map(e => e.dataset.action)"))
        legal = set(page.locator("#choices button.choice").evaluate_all("els => els.map(e => e.dataset.choice)"))
        assert drawn and legal <= drawn, f"choices not on the drawing: {sorted(legal - drawn)}"
    targets = on_board if on_board.count() else page.locator("#choices button.choice")
    n = targets.count()
    assert n, "my turn, but nothing to click"
    targets.nth(rng.randrange(n)).click()
    page.wait_for_function(
        f"() => document.body.dataset.move !== '{before}' || !document.body.classList.contains('sending')"
    )


def play_until_end(page, rng, clicks=MAX_CLICKS, board_only=False, check=None):
    for _ in range(clicks):
        if wait_turn_or_end(page) == "over":
            return
        if check:
            check(page)
        click_a_choice(page, rng, board_only)
    raise AssertionError("game did not end")


def play_pages_until_end(pages, rng, rounds=2000):
    """Several people's pages of one table: whoever has the turn clicks, until the end."""
    for _ in range(rounds):
        if pages[0].evaluate("document.body.dataset.status") == "over":
            return
        moved = False
        for page in pages:
            if page.evaluate("document.body.classList.contains('my-turn') && "
                             "!document.body.classList.contains('sending')"):
                click_a_choice(page, rng)
                moved = True
        if not moved:
            pages[0].wait_for_timeout(50)


# Nothing cut off at phone size: no sideways scrolling of the page, every choice on the drawing
# inside the screen's width and at least 40 px on each side (a finger's width).
PHONE_PROBLEMS = """() => {
  const out = [];
  const W = window.innerWidth;
  if (document.documentElement.scrollWidth > W + 1) out.push(`page is ${document.documentElement.scrollWidth}px wide`);
  for (const pan of document.querySelectorAll('#board [data-pan]')) {  // a board that pans and zooms
    const r = pan.getBoundingClientRect();
    if (r.left < -1 || r.right > W + 1) out.push(`the panning board is off the screen (${Math.round(r.left)}..${Math.round(r.right)})`);
  }
  for (const e of document.querySelectorAll('#board [data-action]')) {
    const r = e.getBoundingClientRect();
    if (e.closest('[data-pan]')) {  // reached by panning the board; only its size matters
      if (r.width < 39.5 || r.height < 39.5) out.push(`choice ${e.dataset.action} is ${Math.round(r.width)}x${Math.round(r.height)}px`);
      continue;
    }
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < -1 || r.right > W + 1) out.push(`choice ${e.dataset.action} off the screen (${Math.round(r.left)}..${Math.round(r.right)})`);
    if (r.width < 39.5 || r.height < 39.5) out.push(`choice ${e.dataset.action} is ${Math.round(r.width)}x${Math.round(r.height)}px`);
  }
  return out.slice(0, 5);
}"""


def phone_check(page):
    problems = page.evaluate(PHONE_PROBLEMS)
    assert not problems, problems


# Every game at every player count on a phone (the tighter layout: nothing cut off, touch
# targets of 40 px), and at each game's smallest count on a desktop too (CI's time budget).
DRAWN = [(g, n, "phone") for g in GAMES for n in meeple.game_info(g).player_counts] + [
    (g, min(meeple.game_info(g).player_counts), "desktop") for g in GAMES]


@pytest.mark.parametrize(("game", "players", "size"), DRAWN)
def test_each_game_to_the_end_clicking_only_on_the_drawing(browser, server, game, players, size):
    """A person plays each game against bots to the end screen, and every
    legal choice is on the drawing: the whole game is played by clicking it, at desktop and phone
    sizes (phone: nothing cut off, touch targets of 40 px)."""
    info = meeple.game_info(game)
    errors: list[str] = []
    page = new_page(browser, errors, size)
    create_in_lobby(page, server.url, game, players, seats={i: "bot:random" for i in range(1, players)})
    play_until_end(page, random.Random(17), board_only=True, check=phone_check if size == "phone" else None)
    end = page.locator("#end")
    end.wait_for(state="visible")
    assert "Game over" in end.inner_text() and end.locator("[data-place]").count() == players
    texts = page.locator("#log li").all_inner_texts()
    assert texts and all(t.strip() and "_" not in t and "{" not in t for t in texts)
    page.click("#hide-end")
    page.click("#rules summary")  # the rules panel: summary, player counts, this table's options
    rules = page.locator("#rules-body").inner_text()
    assert f"this table: {players}" in rules and "Rulings" in rules
    assert ("Options at this table" in rules) == bool(info.options)
    with page.context.expect_page() as opened:  # the rulings page, in a tab of its own
        page.click("#rules-body a[href^='/rulings/']")
    rulings = opened.value
    rulings.wait_for_load_state()
    assert info.title.split(",")[0].split(" (")[0] in rulings.locator("h1").inner_text()
    rulings.close()
    assert not errors, errors
    page.context.close()


def test_two_people_by_invite_link_and_a_spectator_who_sees_no_hand(browser, server):
    errors: list[str] = []
    ann = new_page(browser, errors)
    table = create_in_lobby(ann, server.url, "trickarus", 3,
                            seats={1: "open", 2: "bot:medium"})
    ann.click('[data-invite="1"]')
    link = ann.locator(".invite-link").input_value()
    assert f"/table/{table}#seat=1&invite=" in link

    bo = new_page(browser, errors)
    bo.goto(link)
    bo.fill("#sit-name", "Bo")
    bo.click('[data-sit="1"]')
    bo.wait_for_function("() => document.body.dataset.status === 'running'")

    spy = new_page(browser, errors)
    frames: list[str] = []
    spy.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
    spy.goto(f"{server.url}/table/{table}")
    spy.wait_for_function("() => document.body.dataset.status === 'running'")
    assert spy.locator(".tk-hand").count() == 0 and spy.locator("#choices button").count() == 0
    assert "hands are hidden" in spy.locator("#board").inner_text()

    for page in (ann, bo):  # each page draws its hand once its own state message arrives
        page.wait_for_selector(".tk-hand [data-card]")
    ann_hand = ann.locator(".tk-hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    bo_hand = bo.locator(".tk-hand [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    assert ann_hand and bo_hand and not set(ann_hand) & set(bo_hand)

    rng = random.Random(3)
    for _ in range(MAX_CLICKS):
        status = ann.evaluate("document.body.dataset.status")
        if status == "over":
            break
        for page in (ann, bo):
            if page.evaluate("document.body.classList.contains('my-turn') && "
                             "!document.body.classList.contains('sending')"):
                click_a_choice(page, rng)
        time.sleep(0.02)
    for page in (ann, bo, spy):
        page.locator("#end").wait_for(state="visible")
    # nothing private ever reached the spectator: no hand, no choices, no private (dealt) events
    states = [json.loads(f) for f in frames]
    states = [m for m in states if m.get("type") == "state"]
    assert len(states) > 10
    for m in states:
        assert m["seat"] is None and "hand" not in m["view"] and m["legal"] == []
        assert not any(e.get("type") == "deal" for e in m["log"])
    assert not errors, errors


def test_server_killed_and_restarted_mid_game_then_finished(browser, own_server):
    server = own_server
    errors: list[str] = []
    page = new_page(browser, errors)
    create_in_lobby(page, server.url, "trickarus", 3, seats={1: "bot:medium", 2: "bot:random"})
    rng = random.Random(5)
    for _ in range(3):
        assert wait_turn_or_end(page) == "running"
        click_a_choice(page, rng)
    moves = int(page.evaluate("document.body.dataset.move"))
    server.kill()
    page.wait_for_function("() => document.getElementById('conn').textContent.includes('reconnecting')")
    server.start()
    page.wait_for_function("() => document.getElementById('conn').textContent === 'live'")
    wait_turn_or_end(page)
    assert int(page.evaluate("document.body.dataset.move")) >= moves
    play_until_end(page, rng)
    page.locator("#end").wait_for(state="visible")
    page.click("text=Replay")
    page.wait_for_url("**/replay/*")
    page.wait_for_selector("#board .tk-board")
    page.click("#lastbtn")
    page.wait_for_function("() => document.getElementById('where').textContent.startsWith('move ')")
    assert not errors, errors


@pytest.mark.skipif(not os.environ.get("MEEPLE_SCREENSHOT_DIR"), reason="set MEEPLE_SCREENSHOT_DIR")
@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("game", GAMES)
def test_screenshot_of_each_games_table(browser, server, game, size):
    out = Path(os.environ["MEEPLE_SCREENSHOT_DIR"])
    out.mkdir(parents=True, exist_ok=True)
    info = meeple.game_info(game)
    players = 3 if 3 in info.player_counts else min(info.player_counts)
    page = new_page(browser, [], size, motion="no-preference")
    suffix = "" if size == "desktop" else "-phone"
    if game == GAMES[0]:
        page.goto(server.url + "/")
        page.fill("#my-name", "Ann")
        page.screenshot(path=str(out / f"lobby{suffix}.png"))
    bots = "bot:medium"
    create_in_lobby(page, server.url, game, players, seats={i: bots for i in range(1, players)})
    rng = random.Random(11)
    for _ in range(4):
        if wait_turn_or_end(page) == "over":
            break
        click_a_choice(page, rng)
    wait_turn_or_end(page)
    if size == "phone":
        page.click("#rules summary")  # the whole page, rules panel open
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_timeout(1600)  # let the last move's slide and glow finish
    page.screenshot(path=str(out / f"{game}{suffix}.png"), full_page=size == "phone")
    page.context.close()


UNDO_PICK = """() => {  // a step that leads into a compound turn: a Zarcana card (or the first pyramid)
  const ids = [...document.querySelectorAll('#choices button.choice')].map(b => Number(b.dataset.choice));
  return ids.find(i => i >= 1024 && i < 1110) ?? ids.find(i => i < 1024) ?? ids[0];
}"""
CHOICES = "() => [...document.querySelectorAll('#choices button.choice')].map(b => b.dataset.choice + ' ' + b.textContent)"


@pytest.mark.parametrize("game", ["karvi", "zarcana"])
def test_undo_within_a_turn_by_button_and_keyboard(browser, server, game):
    """Undo within a turn: mid-turn the Undo button appears; Ctrl+Z and the button
    (reached from the keyboard) each take the last step back to exactly the choices before it;
    "Undo the whole turn" goes back to the turn's start; at a turn's start there is no Undo."""
    errors: list[str] = []
    page = new_page(browser, errors, motion="no-preference")
    create_in_lobby(page, server.url, game, 2, seats={1: "bot:random"})
    for _ in range(200):
        assert wait_turn_or_end(page) != "over"
        if page.locator("#undo-step").count():
            break
        before = page.evaluate(CHOICES)
        page.locator(f'#choices button.choice[data-choice="{page.evaluate(UNDO_PICK)}"]').click()
        page.wait_for_function("() => !document.body.classList.contains('sending')")
    else:
        raise AssertionError("no step to take back came up")
    n = int(page.evaluate("document.body.dataset.move"))
    page.keyboard.press("Control+z")
    page.wait_for_function(f"() => document.body.dataset.move === '{n - 1}'")
    assert page.evaluate(CHOICES) == before  # the choices of the step taken back, as they were
    # the same step again, then the Undo button from the keyboard
    page.locator(f'#choices button.choice[data-choice="{page.evaluate(UNDO_PICK)}"]').click()
    page.wait_for_function(f"() => document.body.dataset.move === '{n}' && !document.body.classList.contains('sending')")
    page.focus("#undo-step")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.body.dataset.move === '{n - 1}'")
    assert page.evaluate(CHOICES) == before
    # two more steps of the turn (while it lasts), then the whole turn back at once
    for _ in range(2):
        if not page.locator("#undo-step").count() and int(page.evaluate("document.body.dataset.move")) != n - 1:
            break
        m = page.evaluate("document.body.dataset.move")
        page.locator(f'#choices button.choice[data-choice="{page.evaluate(UNDO_PICK)}"]').click()
        page.wait_for_function(f"() => document.body.dataset.move !== '{m}' && !document.body.classList.contains('sending')")
    if page.locator("#undo-turn").count():
        page.locator("#undo-turn").click()
        page.wait_for_function("() => !document.body.classList.contains('sending')")
        wait_turn_or_end(page)
        assert page.locator("#undo-step").count() == 0  # back at the turn's start: nothing to undo
    assert not errors
