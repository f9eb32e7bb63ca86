"""What a player notices at the table, in Debian's chromium: the page is patched rather than
redrawn (focus and log lines stay put), and the small breaks of wording and drawing stay fixed.
Off unless MEEPLE_TEST_BROWSER=1 (the gate, server and browser helpers are test_browser's)."""

from __future__ import annotations

import random
import re

import pytest

import test_browser
from test_browser import click_a_choice, create_in_lobby, new_page, wait_turn_or_end

browser = test_browser.browser  # test_browser's fixtures: one server and chromium for the module
server = test_browser.server


def at_table(browser, server, game, players, size="desktop"):
    """A page seated at a new table of ``game``, the other seats random bots; its error list."""
    errors: list[str] = []
    page = new_page(browser, errors, size)
    create_in_lobby(page, server.url, game, players, seats={i: "bot:random" for i in range(1, players)})
    return page, errors

pytestmark = pytest.mark.browser


def move_by_script(page, selector="#choices button.choice"):
    """Make a move by clicking a choice from a script (which moves no focus); wait until the
    page has the next state and it is this seat's turn again or the game is over."""
    before = page.evaluate("document.body.dataset.move")
    page.evaluate(f"document.querySelector({selector!r}).click()")
    page.wait_for_function(f"() => document.body.dataset.move !== '{before}'")
    return wait_turn_or_end(page)


def test_focus_and_log_lines_survive_a_move(browser, server):
    """Keyboard focus stays on the element that had it, and the log's lines are the same nodes
    after a move (new lines are appended, the old ones are not drawn again)."""
    page, errors = at_table(browser, server, "zarcana", 2)
    assert wait_turn_or_end(page) == "running"
    page.evaluate("""() => {
      const z = document.querySelector('#board button[aria-label="zoom in"]');
      z.__probe = 'zoom'; z.focus();
      document.querySelector('#log li').__probe = 'first line';
    }""")
    lines = page.locator("#log li").count()
    assert move_by_script(page) == "running"
    assert page.evaluate("document.activeElement.__probe") == "zoom"
    assert page.evaluate("document.querySelector('#log li').__probe") == "first line"
    assert page.locator("#log li").count() > lines
    # a choice taken from the keyboard: focus stays in the choices (or the board), not the body
    page.focus("#choices button.choice")
    before = page.evaluate("document.body.dataset.move")
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.body.dataset.move !== '{before}'")
    wait_turn_or_end(page)
    assert page.evaluate("document.activeElement !== document.body && "
                         "!!document.activeElement.closest('#choices, #board')")
    assert not errors, errors


def test_the_undo_bar_says_nothing_odd(browser, server):
    """Karvi's undo bar: "Undo" alone (no "Undo null") after one step of a turn."""
    page, errors = at_table(browser, server, "karvi", 2)
    rng = random.Random(2)
    seen = 0
    for _ in range(60):
        if wait_turn_or_end(page) == "over":
            break
        text = page.locator("#undo").inner_text()
        if text:
            seen += 1
            assert "null" not in text and "undefined" not in text, text
        click_a_choice(page, rng)  # on the drawing when it offers one
    assert seen
    assert not errors, errors


def test_savage_bowl_shows_the_trick_just_taken_until_the_next_starts(browser, server):
    """Between tricks the table shows the trick just taken and who took it, not an empty felt."""
    page, errors = at_table(browser, server, "savage_bowl", 4)
    rng = random.Random(4)
    checked = 0
    for _ in range(80):
        if wait_turn_or_end(page) == "over" or checked >= 2:
            break
        empty = page.locator("#board .sb-trick:not(.last) .sb-played").count() == 0
        first = page.evaluate("document.querySelectorAll('#log li').length") < 8
        if empty and not first and page.locator("#board [data-player]").count():
            board = page.locator("#board").inner_text()
            assert "No card played yet" not in board
            last = page.locator("#board [data-last-trick] .sb-played")
            assert last.count() >= 3, board  # every player's card in it (one may sit out)
            assert "took it" in page.locator("#board [data-last-trick]").inner_text()
            checked += 1
        click_a_choice(page, rng)  # on the drawing when it offers one
    assert checked
    assert not errors, errors


def test_scarvus_bids_are_on_the_ladder_only(browser, server):
    """Scarvus' bids are offered once, on the bid ladder; the side panel does not repeat them."""
    page, errors = at_table(browser, server, "scarvus", 3)
    rng = random.Random(6)
    for _ in range(60):
        assert wait_turn_or_end(page) == "running"
        ladder = page.locator("#board .sc-ladder [data-action]").count()
        if ladder:
            break
        click_a_choice(page, rng)  # on the drawing when it offers one
    else:
        raise AssertionError("no bid came up")
    assert ladder > 10
    panel = page.locator("#choices button.choice").all_inner_texts()
    assert not [t for t in panel if t.startswith("bid ")], panel
    assert f"Bids: {ladder} on the board" in page.locator("#choices").inner_text()
    page.screenshot(path="/tmp/ui/scarvus-bids.png")
    assert not errors, errors


def test_zarcana_cards_on_the_board_are_named_and_previewed(browser, server):
    """Zarcana's board shows each card's name (not "G2", "M9", "A★"), and pointing at a card
    shows it large, with its text, beside the board."""
    page, errors = at_table(browser, server, "zarcana", 2)
    assert wait_turn_or_end(page) == "running"
    names = page.locator("#board [data-cell]").evaluate_all(
        "els => els.filter(e => e.querySelector('text')).map(e => [...e.querySelectorAll('text')]"
        ".map(t => t.textContent).join(' '))")
    assert names
    short = [n for n in names if any(len(w) == 2 and w[0] in "GMAB" and not w[1].isalpha() for w in n.split())]
    assert not short, short
    assert all(any(len(w) >= 3 and w.isalpha() for w in n.split()) for n in names), names
    cell = page.locator("#board [data-card-here]").first
    tip = cell.locator("title").first.text_content()
    cell.hover()
    preview = page.locator("#zc-preview")
    assert tip.split(": ", 1)[1][:30] in preview.inner_text()
    assert preview.bounding_box()["width"] > 180
    assert not errors, errors


TRACK_ORDER = """() => {  // each action-track spot next to the one before it: beside it, or just below
  const spots = [...document.querySelectorAll('#board .kv-track [data-spot]')]
    .sort((a, b) => a.dataset.spot - b.dataset.spot).map(e => e.getBoundingClientRect());
  const out = [];
  for (let i = 1; i < spots.length; i++) {
    const a = spots[i - 1], b = spots[i];
    const beside = Math.abs(a.top - b.top) < 4 && Math.abs(Math.abs(a.left - b.left) - a.width) < a.width * 0.5;
    const below = Math.abs(a.left - b.left) < 4 && b.top > a.top && b.top - a.bottom < a.height;
    if (!beside && !below) out.push(`spot ${i} to ${i + 1}`);
  }
  return [spots.length, out];
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_karvi_track_in_order_map_zoom_and_cards_that_say_what_they_do(browser, server, size):
    """Karvi's action track reads in order at any width (each spot beside or below the one
    before), the map has zoom buttons, and trade cards say what they do."""
    page, errors = at_table(browser, server, "karvi", 3, size)
    assert wait_turn_or_end(page) == "running"
    count, jumps = page.evaluate(TRACK_ORDER)
    assert count >= 15 and not jumps, jumps
    chips = page.locator("#board [data-trade-card]").all_inner_texts()
    assert chips and all(re.search("[a-z]{3,}", c) and "trade card" not in c for c in chips), chips
    pan = page.locator("#board [data-pan]")
    width = page.locator("#board .kv-sea").bounding_box()["width"]
    page.get_by_role("button", name="whole map").click()
    fitted = page.locator("#board .kv-sea").bounding_box()["width"]
    assert fitted <= pan.bounding_box()["width"] + 1
    page.get_by_role("button", name="zoom the map in").click()
    assert page.locator("#board .kv-sea").bounding_box()["width"] > fitted
    if size == "phone":
        assert fitted < width
    assert not errors, errors


RENDER = """async ([url, view]) => {  // a game's renderer on a view of our making, in a page of the site
  const m = await import(url);
  const root = document.createElement('div');
  document.body.append(root);
  m.render(root, { view, seat: 0, legal: [], seats: [{ seat: 0, name: 'Ann' }, { seat: 1, name: 'Bo' }],
                   act() {}, over: false, ranking: null, scores: null, replay: false });
  return root.innerText;
}"""


def _ones(game):
    """A real view of ``game`` with its counts set to 1 where the drawing writes them."""
    import meeple

    view = meeple.make(game, players=2, seed=1).view(0)
    if game == "zarcana":
        view.update(hand_sizes=[1, 1], scores=[1, 1], declared_by=1, turns_left=1)
    else:
        view["stop_tiles_left"] = 1
        view["players"][0]["points"] = 1
        next(iter(view["stacks"].values()))["size"] = 1
    return view


@pytest.mark.parametrize("game", ["zarcana", "karvi"])
def test_one_of_a_thing_is_singular(browser, server, game):
    """"1 card", "1 point", "1 tile", "1 turn": never "1 cards"."""
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto(server.url + "/")
    text = page.evaluate(RENDER, [f"/games/{game}/web/renderer.js", _ones(game)])
    assert text.strip()
    wrong = re.findall(r"\b1 (?:cards|tiles|points|pts|turns|lives|games)\b", text)
    assert not wrong, wrong
    assert not errors, errors


def test_no_console_error_while_logged_out(browser, server):
    """A guest's pages ask who is logged in without an error in the console (/api/me still
    answers 401 to a guest, for the callers that rely on it)."""
    import json
    import urllib.error
    import urllib.request

    page = new_page(browser, [])
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    create_in_lobby(page, server.url, "trickarus", 3, seats={1: "bot:random", 2: "bot:random"})
    wait_turn_or_end(page)
    for path in ("/", "/leaderboard/trickarus", "/my", "/play"):
        page.goto(server.url + path)
        page.wait_for_selector("#nav-login")
    assert not problems, problems
    with urllib.request.urlopen(server.url + "/api/session") as r:
        assert r.status == 200 and json.load(r) == {"user": None}
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(server.url + "/api/me")
    assert e.value.code == 401


LOG_NUMBERS = """() => {  // lines 1..1200 of the log, new ones marked: is each number inside the log box?
  const log = document.getElementById('log');
  const probe = document.createElement('span');
  probe.style.font = getComputedStyle(log).font;
  probe.style.position = 'absolute';
  document.body.append(probe);
  log.replaceChildren(...Array.from({ length: 1200 }, (_, i) => {
    const li = document.createElement('li');
    li.textContent = `line ${i + 1}`;
    if (i > 90) li.className = 'new';
    return li;
  }));
  const box = log.getBoundingClientRect().left + log.clientLeft;
  const out = [];
  for (const n of [9, 99, 100, 999, 1000]) {
    const li = log.children[n];
    probe.textContent = `${n + 1}. `;
    const room = li.getBoundingClientRect().left + parseFloat(getComputedStyle(li).borderLeftWidth) - box;
    if (probe.getBoundingClientRect().width > room) out.push(`line ${n + 1}: ${Math.round(probe.getBoundingClientRect().width)}px in ${Math.round(room)}px`);
  }
  probe.remove();
  return out;
}"""


def test_log_line_numbers_are_not_clipped(browser, server):
    """Line numbers of three and four digits fit beside the log's lines, new ones too."""
    page = new_page(browser, [])
    create_in_lobby(page, server.url, "trickarus", 3, seats={1: "bot:random", 2: "bot:random"})
    wait_turn_or_end(page)
    assert page.evaluate(LOG_NUMBERS) == []


def test_lobby_options_are_in_players_words(browser, server):
    """Every game's options in the lobby read as players' words: a title, what it does, and values
    such as "yes", "by number" or "standard"; no "null", "ruling R..", or snake_case."""
    page = new_page(browser, [])
    page.goto(server.url + "/")
    for card in page.locator("[data-game]").all():
        card.locator("summary").click()
    fields = page.locator("label.field:has([data-option])")
    assert fields.count() >= 15
    text = "\n".join(fields.all_inner_texts())
    for bad in ("null", "ruling", "calibrated", "true", "false", "_"):
        assert bad not in text.lower(), (bad, text)
    assert "Track length" in text and "standard" in text and "by number" in text
