"""An account that follows you, in Debian's chromium: logged in, a player creates tables without
typing a name and plays one to the end; the same account in a second browser context (no
shared storage) sees Play and "your turn" on its running table and Rematch on its finished
one, and plays on from there; nobody else gets the seat. Friends: add by username, both see it.
Off unless MEEPLE_TEST_BROWSER=1 (the gate and the server helper are test_browser's)."""

from __future__ import annotations

import random
import uuid

import pytest

from test_browser import (  # noqa: F401  (browser, own_server: the fixtures)
    browser,
    click_a_choice,
    new_page,
    own_server,
    play_until_end,
    wait_turn_or_end,
)

pytestmark = pytest.mark.browser


ASK_COUNTER = """window.__asked = 0;
if (window.Notification) Notification.requestPermission = () => { window.__asked += 1; return Promise.resolve("default"); };"""


def account(page, url, username, register=False):
    page.context.add_init_script(ASK_COUNTER)
    page.goto(url + "/account")
    page.fill("#username", username)
    page.fill("#password", "correct horse")
    page.click("#register" if register else "#login")
    page.wait_for_url("**/play")


def create(page, url, game, players, seats):
    page.goto(url + "/")
    card = page.locator(f'[data-game="{game}"]')
    card.locator("summary").click()
    card.locator('select[name="players"]').select_option(str(players))
    for i, value in seats.items():
        card.locator(f'select[name="seat-{i}"]').select_option(value)
    card.locator("button.primary").click()
    page.wait_for_url("**/table/*")
    return page.url.rsplit("/", 1)[1]


def stored(page, table_id):
    return page.evaluate(f"() => JSON.parse(localStorage.getItem('meeple:table:{table_id}') || '{{}}')")


def test_an_account_plays_from_any_browser_without_typing_a_name(browser, own_server):  # noqa: F811
    errors: list[str] = []
    url = own_server.url
    rng = random.Random(38)
    user = f"gamer{uuid.uuid4().hex[:6]}"
    home = new_page(browser, errors)
    account(home, url, user, register=True)
    home.goto(url + "/")
    assert home.locator("#playing-as").inner_text() == f"Playing as {user}"
    assert home.locator("#my-name").count() == 0  # nothing to type
    home.locator("#notify-me").wait_for()  # visible: the account may turn notifications on
    running = create(home, url, "trickarus", 3, {1: "bot:random", 2: "bot:random"})
    wait_turn_or_end(home)
    finished = create(home, url, "trickarus", 2, {1: "bot:random"})
    assert "Type your name" not in home.content()
    play_until_end(home, rng)
    home.locator("#rematch").wait_for()
    # the account's seats are not in this browser's storage (the host secret is)
    assert "secret" not in stored(home, finished) and "secret" not in stored(home, running)

    # the same account in a second browser context: no storage shared with the first
    away = new_page(browser, errors)
    account(away, url, user)
    away.goto(url + "/")
    row = away.locator(f'#my-tables [data-table="{running}"]')
    row.wait_for()
    assert row.locator("a.button").inner_text() == "Play"
    row.locator(".status.yours").wait_for()  # your turn
    assert away.locator(f'#running-tables [data-table="{running}"] a.button').inner_text() == "Play"
    assert away.locator(f'#my-tables [data-table="{finished}"] [data-rematch]').inner_text() == "Rematch"
    away.goto(url + f"/table/{finished}")
    away.locator("#rematch").wait_for()
    away.goto(url + "/my")  # My games: the same, from the account
    away.locator(f'#tables [data-table="{running}"] .status.yours').wait_for()
    assert away.title().startswith("(1) your turn")
    away.locator(f'#finished [data-table="{finished}"] [data-rematch]').wait_for()
    # play on at the running table from here
    away.goto(url + f"/table/{running}")
    assert wait_turn_or_end(away) == "running"
    assert away.locator(".seat.mine strong").inner_text() == user
    click_a_choice(away, rng)
    assert stored(away, running) == {}
    # the turn comes back (the bots move): a chime and the tab title say so
    assert wait_turn_or_end(away) == "running"
    away.wait_for_function("() => Number(document.body.dataset.chimes || 0) >= 1")
    assert away.title().startswith("(your turn)")
    # no page asked for notification permission by itself
    assert away.evaluate("window.__asked") == 0 and home.evaluate("window.__asked") == 0
    # Rematch from the second browser: the account keeps its seat at the new table
    away.goto(url + f"/table/{finished}")
    away.click("#rematch")
    away.wait_for_url(lambda u: finished not in u)
    away.locator(".seat.mine").wait_for()
    assert away.locator(".seat.mine strong").inner_text() == user

    # anyone else, logged in or not, only watches
    other = new_page(browser, errors)
    other.goto(url + "/")
    other.locator("#my-name").wait_for()  # a guest types a name, and has no account's buttons
    assert not other.locator("#notify-me").is_visible() and not other.locator("#friends-section").is_visible()
    account(other, url, f"other{uuid.uuid4().hex[:6]}", register=True)
    other.goto(url + "/")
    assert other.locator(f'#running-tables [data-table="{running}"] a.button').inner_text() == "Watch"
    other.goto(url + f"/table/{running}")
    other.locator("#seats .seat").first.wait_for()
    other.wait_for_function("() => document.body.dataset.status === 'running'")
    assert other.locator(".seat.mine").count() == 0 and other.locator("#choices button.choice").count() == 0
    assert errors == []


def test_friends_add_each_other_in_the_lobby(browser, own_server):  # noqa: F811
    errors: list[str] = []
    url = own_server.url
    a, b = f"ann{uuid.uuid4().hex[:6]}", f"bob{uuid.uuid4().hex[:6]}"
    pa, pb = new_page(browser, errors), new_page(browser, errors)
    account(pa, url, a, register=True)
    account(pb, url, b, register=True)
    pa.goto(url + "/")
    pa.fill("#friend-name", b)
    pa.click("#friend-form button")
    pa.locator("#friend-requests").get_by_text(f"Waiting for: {b}").wait_for()
    pb.goto(url + "/")
    pb.locator(f'[data-add-back="{a}"]').click()
    pb.locator(f'#friends [data-friend="{a}"]').wait_for()
    assert pb.locator("#friend-requests").inner_text().strip() == ""
    assert "online" in pb.locator(f'#friends [data-friend="{a}"]').inner_text()
    # a friend is offered for a seat when creating a table; the invitation reaches them
    card = pa.locator('[data-game="trickarus"]')
    pa.reload()
    pa.locator(f'#friends [data-friend="{b}"]').wait_for()
    card.locator("summary").click()
    card.locator('select[name="players"]').select_option("2")
    card.locator('select[name="seat-1"]').select_option(f"friend:{b}")
    card.locator("button.primary").click()
    pa.wait_for_url("**/table/*")
    table = pa.url.rsplit("/", 1)[1]
    pb.reload()
    pb.locator(f'[data-accept="{table}"]').click()
    pb.wait_for_url(f"**/table/{table}")
    pb.locator(".seat.mine").wait_for()
    assert pb.locator(".seat.mine strong").inner_text() == b
    # the host invites a friend to a seat from the table page too
    pa.goto(url + "/")
    card = pa.locator('[data-game="trickarus"]')
    card.locator("summary").click()
    card.locator('select[name="players"]').select_option("2")
    card.locator('select[name="seat-1"]').select_option("open")
    card.locator("button.primary").click()
    pa.wait_for_url("**/table/*")
    second = pa.url.rsplit("/", 1)[1]
    pa.locator('[data-invite-friend="1"]').select_option(b)
    pa.locator('#seats [data-seat="1"] .tag').get_by_text("invited", exact=True).wait_for()
    pb.goto(url + "/")
    pb.locator(f'[data-accept="{second}"]').wait_for()
    assert errors == []
