"""Players in Debian's chromium: two people register, press Play now, meet at one table,
chat, play a rated game to the end; both ratings change and the leaderboard and profiles show
it. Off unless MEEPLE_TEST_BROWSER=1 (the gate and the server helper are test_browser's).
With MEEPLE_SCREENSHOT_DIR set, writes Play now, chat, leaderboard and profile screenshots."""

from __future__ import annotations

import os
import random
import uuid

import pytest

from test_browser import ARGS, CHROMIUM, Server, new_page, play_pages_until_end  # noqa: F401

pytestmark = pytest.mark.browser
SHOTS = os.environ.get("MEEPLE_SCREENSHOT_DIR")


@pytest.fixture()
def own_server(tmp_path):
    srv = Server(f"sqlite:///{tmp_path / 'players.db'}")
    srv.start()
    yield srv
    srv.kill()


@pytest.fixture()
def browser():
    from pathlib import Path

    from playwright.sync_api import sync_playwright
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def shot(page, name):
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


def test_two_register_play_now_chat_play_rated_and_see_ratings(browser, own_server):
    errors: list[str] = []
    url = own_server.url
    names = [f"ann{uuid.uuid4().hex[:6]}", f"bob{uuid.uuid4().hex[:6]}"]
    pages = []
    for n in names:
        page = new_page(browser, errors)
        page.goto(url + "/account")
        page.fill("#username", n)
        page.fill("#password", "correct horse")
        page.click("#register")
        page.wait_for_url("**/play")
        page.select_option("#game", "trickarus")
        page.locator('[data-count="2"]').check()
        for other in page.locator("[data-count]").all():
            if other.get_attribute("data-count") != "2":
                other.uncheck()
        pages.append(page)
    pages[0].click("#play-now")
    pages[0].locator("#waiting").wait_for()
    shot(pages[0], "play_now")
    pages[1].click("#play-now")
    for page in pages:
        page.wait_for_url("**/table/*", timeout=30_000)
    assert pages[0].url == pages[1].url
    for page in pages:
        page.wait_for_function("document.body.dataset.status === 'running'")
    # chat: markup stays text
    pages[0].fill("#chat-text", "good luck <b>bold</b>")
    pages[0].click("#chat-form button")
    line = pages[1].locator("#chat li").first
    line.wait_for()
    assert "<b>bold</b>" in line.inner_text() and pages[1].locator("#chat b").count() == 0
    pages[1].fill("#chat-text", "you too")
    pages[1].click("#chat-form button")
    pages[0].locator("#chat li").nth(1).wait_for()
    shot(pages[0], "chat")
    rng = random.Random(5)
    play_pages_until_end(pages, rng)
    for page in pages:
        page.wait_for_function("document.body.dataset.status === 'over'")
    board = pages[0]
    board.goto(url + "/leaderboard/trickarus")
    for n in names:
        board.locator(f'[data-user="{n}"]').wait_for()
    shot(board, "leaderboard")
    prof = pages[1]
    prof.goto(url + f"/player/{names[1]}")
    prof.locator(".rating-card").wait_for()
    assert "1 rated games" in prof.locator(".rating-card").inner_text()
    assert prof.locator('a.button[href^="/replay/"]').count() == 1
    shot(prof, "profile")
    assert not errors, errors
