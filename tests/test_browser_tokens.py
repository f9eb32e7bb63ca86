"""The account page's API tokens in Debian's chromium (docs/bots-api.md, "Make a bot account and
a token"): a person registers, chooses what a token may do, creates it and sees the secret once
(with a Copy button) and its prefix in the list; a reload shows the prefix only; the token works
against the Bot API from a program (httpx); revoking it asks first, and once revoked it is
refused at once. Off unless MEEPLE_TEST_BROWSER=1 (the gate and the helpers are test_browser's)."""

from __future__ import annotations

import uuid

import httpx
import pytest

from test_browser import browser, new_page, own_server  # noqa: F401  (the fixtures)
from test_browser_account import account

pytestmark = pytest.mark.browser


def bot_api(url: str, token: str, method: str = "GET", path: str = "/api/bot/account") -> httpx.Response:
    return httpx.request(method, url + path, headers={"Authorization": f"Bearer {token}"}, timeout=10)


def test_create_use_and_revoke_an_api_token_on_the_account_page(browser, own_server):  # noqa: F811
    errors: list[str] = []
    url = own_server.url
    user = f"maker{uuid.uuid4().hex[:6]}"
    page = new_page(browser, errors)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    account(page, url, user, register=True)
    page.goto(url + "/account")
    page.locator("#in-box").wait_for()
    page.locator("#tokens li").first.wait_for()
    assert page.locator("#tokens [data-token]").count() == 0  # no token yet

    # a read-only token: only bot:read is ticked
    page.fill("#token-name", "watcher")
    page.uncheck('#token-form input[value="bot:play"]')
    page.click("#token-form button[type=submit]")
    watcher = page.input_value("#token-secret")
    page.locator('#tokens li:has-text("watcher")').wait_for()
    assert "(bot:read)" in page.text_content('#tokens li:has-text("watcher")')
    upgrade = bot_api(url, watcher, "POST", "/api/bot/account/upgrade")
    assert upgrade.status_code == 403 and upgrade.json()["error"] == "scope"

    # a token that may do both, the default again after a reload
    page.reload()
    page.locator('#tokens li:has-text("watcher")').wait_for()
    assert page.is_checked('#token-form input[value="bot:play"]')
    page.fill("#token-name", "my program")
    page.click("#token-form button[type=submit]")
    page.locator("#token-secret").wait_for()
    token = page.input_value("#token-secret")
    assert token.startswith("mpl_") and len(token) > 40
    assert "not shown again" in page.text_content("#token-new")
    page.click("#token-copy")
    page.locator("#token-copied", has_text="Copied").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == token
    row = page.locator('#tokens li:has-text("my program")')
    row.wait_for()
    prefix = token[:10]
    assert f"{prefix}…" in row.text_content() and "bot:read, bot:play" in row.text_content()
    assert token not in row.text_content()

    # the secret is shown once: a reload lists the prefix, never the token
    page.reload()
    page.locator('#tokens li:has-text("my program")').wait_for()
    assert page.locator("#token-secret").count() == 0
    assert token not in page.content()
    assert f"{prefix}…" in page.text_content('#tokens li:has-text("my program")')

    # a program uses it
    me = bot_api(url, token)
    assert me.status_code == 200, me.text
    assert me.json() == {"username": user, "bot": False, "scopes": ["bot:read", "bot:play"]}

    # Revoke asks first: cancelled, the token stays and still works
    asked: list[str] = []

    def answer(accept: bool):
        def on(dialog):
            asked.append(dialog.message)
            dialog.accept() if accept else dialog.dismiss()
        return on

    page.once("dialog", answer(False))
    row = page.locator('#tokens li:has-text("my program")')
    row.get_by_role("button", name="Revoke the token my program").click()
    assert asked and "my program" in asked[0] and prefix in asked[0]
    assert row.count() == 1 and bot_api(url, token).status_code == 200
    # confirmed: gone from the list and refused at once
    page.once("dialog", answer(True))
    row.get_by_role("button", name="Revoke the token my program").click()
    row.wait_for(state="detached")
    refused = bot_api(url, token)
    assert refused.status_code == 401 and refused.json()["error"] == "unauthorized"
    assert bot_api(url, watcher).status_code == 200  # the other token is untouched
    page.reload()
    page.locator('#tokens li:has-text("watcher")').wait_for()
    assert page.locator('#tokens li:has-text("my program")').count() == 0
    assert not errors, errors
