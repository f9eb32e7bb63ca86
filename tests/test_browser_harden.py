"""In Debian's chromium: after logging in, a ``next`` leads only to this site, and every page
keeps the Content-Security-Policy (no violation reported while each page and each game's table
draws). Off unless MEEPLE_TEST_BROWSER=1 (the gate and the server helper are test_browser's)."""

from __future__ import annotations

import json
import urllib.request
import uuid
from urllib.parse import quote, urlsplit

import pytest

from test_browser import browser, new_page, server  # noqa: F401

pytestmark = pytest.mark.browser
PASSWORD = "correct horse battery"
# what an attacker may put in ?next= (after URLSearchParams decoded it): each must stay here
HOSTILE = ["\\\\evil.example/x", "/\\evil.example/x", "/\t/evil.example/x", "/\tevil.example/x",
           "//evil.example/x", "/%5Cevil.example/x", "/%09/evil.example/x", "javascript:alert(1)",
           "JaVaScRiPt:alert(1)", "\tjavascript:alert(1)", "https://evil.example/x",
           "http:evil.example", "data:text/html,hi", "/\\/evil.example", " //evil.example",
           "\\/evil.example"]
# those a bare "starts with / but not //" check let through to another host or a script
LEAVING = ["/\\evil.example/x", "/\t/evil.example/x", "/\\/evil.example", "javascript:alert(1)",
           "//evil.example/x", "https://evil.example/x"]


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(),
                                 {"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def test_next_resolves_to_this_origin_only(browser, server):  # noqa: F811
    errors: list[str] = []
    page = new_page(browser, errors, csp=True)
    page.goto(server.url + "/account")
    out = page.evaluate("""async (cases) => {
        const m = await import("/static/next_url.js");
        return cases.map((c) => {
          const to = m.sameOriginPath(c);
          return [to, new URL(to, location.origin).origin === location.origin];
        });
    }""", [*HOSTILE, *LEAVING, "/my", "/table/abc?x=1#seat=1", "player/ann", None, ""])
    assert all(here for _, here in out), list(zip(HOSTILE, out, strict=False))
    assert all(to.startswith("/") and not to.startswith("//") for to, _ in out)
    assert [to for to, _ in out[len(HOSTILE):len(HOSTILE) + len(LEAVING)]] == ["/play"] * len(LEAVING)
    assert [to for to, _ in out[len(HOSTILE) + len(LEAVING):]] == [
        "/my", "/table/abc?x=1#seat=1", "/player/ann", "/play", "/play"]
    # the page itself, logging in with a hostile next (the raw query as an attacker links it)
    user = f"ann{uuid.uuid4().hex[:8]}"
    post(server.url + "/api/register", {"username": user, "password": PASSWORD})
    for raw, lands in [("/%5C127.0.0.1:9/x", "/play"), ("/%09/127.0.0.1:9/x", "/play"),
                       ("//127.0.0.1:9/x", "/play"), (quote("javascript:alert(1)"), "/play"),
                       ("/my", "/my")]:  # the last: a same-site next is still followed
        page = new_page(browser, errors, csp=True)
        page.goto(f"{server.url}/account?next={raw}")
        page.fill("#username", user)
        page.fill("#password", PASSWORD)
        page.click("#auth button[type=submit]")
        page.wait_for_url(f"**{lands}")
        assert urlsplit(page.url).netloc == urlsplit(server.url).netloc, (raw, page.url)
    assert not errors, errors


def test_every_page_keeps_the_content_security_policy(browser, server):  # noqa: F811
    errors: list[str] = []
    violations: list[str] = []
    games = json.loads(urllib.request.urlopen(server.url + "/api/games").read())
    paths = ["/", "/account", "/play", "/my", "/leaderboard/trickarus", "/player/nobody",
             "/rulings/trickarus"]
    for g in games:
        n = g["players"][0]
        t = post(server.url + "/api/tables", {
            "game": g["id"], "players": n, "name": "Ann",
            "seats": [{"kind": "bot", "level": "random"}] * n})
        paths += [f"/table/{t['id']}"]
    for path in paths:
        page = new_page(browser, errors, csp=True)
        page.on("console", lambda m, path=path: violations.append(f"{path}: {m.text}")
                if "Content Security Policy" in m.text or "Content-Security-Policy" in m.text
                else None)
        response = page.goto(server.url + path)
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert response.headers["x-frame-options"] == "DENY"
        page.wait_for_load_state("networkidle")
        page.close()
    assert not violations, violations
    assert not errors, errors
