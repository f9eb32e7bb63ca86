"""Time as Board Game Arena keeps it, in Debian's chromium: a real-time table where one
player's clock runs out (that turn is skipped, a bot plays it, and the player is back in the
seat on return), and a vote that replaces an absent player on a matched table (no host).
Tiny clocks: a 3 s bank, and MEEPLE_ABSENT_SECONDS=2 for the server. Off unless
MEEPLE_TEST_BROWSER=1 (the gate and the server helper are test_browser's)."""

from __future__ import annotations

import json
import random
import time
import urllib.request
import uuid

import pytest

from test_browser import Server, click_a_choice, new_page
from test_browser_players import browser  # noqa: F401

pytestmark = pytest.mark.browser


@pytest.fixture()
def quick_server(tmp_path, monkeypatch):
    monkeypatch.setenv("MEEPLE_ABSENT_SECONDS", "2")
    srv = Server(f"sqlite:///{tmp_path / 'clocks.db'}")
    srv.start()
    yield srv
    srv.kill()


def summary(url: str, tid: str) -> dict:
    return json.loads(urllib.request.urlopen(f"{url}/api/tables/{tid}", timeout=5).read())


def test_a_clock_that_runs_out_skips_the_turn_and_the_player_is_back_in_the_seat(browser, quick_server):  # noqa: F811
    url = quick_server.url
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto(url + "/")
    # a real-time table with a 3 s bank and 30 s a turn: made from the page, which keeps the
    # seat's secret in this browser as the lobby does
    tid = page.evaluate("""async () => {
      const speed = {mode: "realtime", bank: 3, increment: 30, on_timeout: "skip"};
      const r = await fetch("/api/tables", {method: "POST", headers: {"content-type": "application/json"},
        body: JSON.stringify({game: "trickarus", players: 2, name: "Ann", speed,
                              seats: [{kind: "me"}, {kind: "bot", level: "random"}]})});
      const res = await r.json();
      localStorage.setItem(`meeple:table:${res.id}`, JSON.stringify({host: res.host, seat: res.seat, secret: res.secret}));
      return res.id;
    }""")
    page.goto(f"{url}/table/{tid}")
    page.wait_for_function("document.body.classList.contains('my-turn')")
    clock = page.locator('[data-clock="0"]')
    assert clock.inner_text() in ("0:00", "0:01", "0:02", "0:03")  # every seat shows its clock
    assert page.locator('[data-clock="1"]').count() == 1
    at = int(page.evaluate("document.body.dataset.move"))
    page.goto("about:blank")  # the player closes the tab while their clock runs
    end = time.monotonic() + 30
    while time.monotonic() < end:  # the bot played that turn, and it is their turn again
        s = summary(url, tid)
        if s["move"] > at and s["to_move"] == 0:
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the turn that ran out was not skipped")
    assert s["seats"][0]["kind"] == "human" and not s["seats"][0]["zombie"]
    page.goto(f"{url}/table/{tid}")  # back: the seat is theirs, no "Take my seat back"
    page.wait_for_function("document.body.classList.contains('my-turn')")
    assert page.locator("#reclaim").count() == 0 and page.locator("#leave").count() == 1
    assert "bot plays for them" not in page.locator(".seat.mine").inner_text()
    left = page.locator('[data-clock="0"]').inner_text()
    assert left.startswith("0:2") or left.startswith("0:3"), left  # refilled by the increment
    before = page.evaluate("document.body.dataset.move")
    click_a_choice(page, random.Random(1))
    page.wait_for_function(f"document.body.dataset.move !== '{before}'")
    assert not errors, errors


def test_the_others_vote_an_absent_player_out_of_a_matched_table(browser, quick_server):  # noqa: F811
    url = quick_server.url
    errors: list[str] = []
    names = [f"ann{uuid.uuid4().hex[:6]}", f"bob{uuid.uuid4().hex[:6]}"]
    pages = []
    for n in names:  # two accounts, each in its own browser, ask Play now for a 2-player game
        page = new_page(browser, errors)
        page.goto(url + "/")
        status = page.evaluate("""async (username) => (await fetch("/api/register", {method: "POST",
          headers: {"content-type": "application/json"},
          body: JSON.stringify({username, password: "correct horse"})})).status""", n)
        assert status == 200
        page.goto(url + "/play")
        page.select_option("#game", "trickarus")
        for box in page.locator("[data-count]").all():
            box.set_checked(box.get_attribute("data-count") == "2")
        pages.append(page)
    for page in pages:
        page.click("#play-now")
    for page in pages:
        page.wait_for_url("**/table/*", timeout=30_000)
        page.wait_for_function("document.body.dataset.status === 'running'")
    ann, bob = pages
    tid = ann.url.rsplit("/", 1)[1]
    bob_seat = next(s["seat"] for s in summary(url, tid)["seats"] if s["name"] == names[1])
    vote = ann.locator(f'[data-vote="{bob_seat}"]')
    assert vote.count() == 0  # Bob is here: nothing to vote on
    bob.context.close()  # Bob leaves for good
    vote.wait_for(state="visible", timeout=20_000)  # away 2 s: the vote opens
    assert "vote to replace" in vote.inner_text().lower()
    vote.click()
    ann.wait_for_function(
        f"[...document.querySelectorAll('.seat[data-seat=\"{bob_seat}\"] .dot.bot')].length === 1")
    s = summary(url, tid)
    assert s["seats"][bob_seat]["kind"] == "bot"
    assert s["seats"][1 - bob_seat]["kind"] == "human"
    assert not errors, errors
