"""A bot account in Debian's chromium: a person opens its profile (marked as a bot), presses
Challenge, and plays the game to the end against `meeple bot run --level random`; the seat
reads as a bot. Off unless MEEPLE_TEST_BROWSER=1 (the gate and the helpers are test_browser's)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import uuid

import httpx
import pytest

from test_browser import browser, new_page, own_server, play_pages_until_end  # noqa: F401

pytestmark = pytest.mark.browser


def test_challenge_a_bot_account_from_its_profile_and_play_it(browser, own_server):  # noqa: F811
    url = own_server.url
    robo = f"robo{uuid.uuid4().hex[:6]}"
    with httpx.Client(base_url=url) as c:
        r = c.post("/api/register", json={"username": robo, "password": "correct horse"})
        assert r.status_code == 200
        token = c.post("/api/tokens", json={"name": "t"}).json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    assert httpx.post(url + "/api/bot/account/upgrade", headers=auth).status_code == 200
    runner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from meeple.cli import app; app()",
            "bot",
            "run",
            url,
            "--token",
            token,
            "--level",
            "random",
            "--games",
            "1",
        ],
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    errors: list[str] = []
    try:
        page = new_page(browser, errors)
        page.goto(url + "/account")
        page.fill("#username", f"ann{uuid.uuid4().hex[:6]}")
        page.fill("#password", "correct horse")
        page.click("#register")
        page.wait_for_url("**/play")
        page.goto(f"{url}/player/{robo}")
        assert page.locator("#name .tag").inner_text() == "bot"
        page.select_option("#challenge select[name=game]", "trickarus")
        page.select_option("#challenge select[name=players]", "2")
        page.click(f"[data-challenge='{robo}']")
        page.wait_for_url("**/table/*")
        page.wait_for_function("document.body.dataset.status === 'running'")
        assert f"{robo} (bot)" in page.locator("#seats").inner_text()
        play_pages_until_end([page], random.Random(1))
        assert page.evaluate("document.body.dataset.status") == "over"
        out, _ = runner.communicate(timeout=60)
        assert "1 game played" in out, out
        # the bot accounts' own leaderboard is a link away from the people's
        page.goto(f"{url}/leaderboard/trickarus")
        page.click("#pool a")
        page.wait_for_url("**/leaderboard/trickarus?bots=1")
        assert page.locator("#pool a").inner_text() == "People"
    finally:
        if runner.poll() is None:
            runner.kill()
    assert errors == []
