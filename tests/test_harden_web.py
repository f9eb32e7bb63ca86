"""Hardening of the web app (in process): security headers and pages without inline script, the
shipped proxy files, idempotency answers kept for their own client, names that read as bots or
as someone's account, weak passwords, and sockets closed when their session ends (here, and on
another server through Redis)."""

from __future__ import annotations

import json
import re
import uuid
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

import meeple
from meeple.server import rulings as rulings_mod
from meeple.server.headers import CSP
from server_proc import Server, fresh_database, needs_services
from server_util import client, create, hello

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "correct horse battery"


@pytest.fixture()
def c(tmp_path):
    with client(f"sqlite:///{tmp_path / 'h.db'}") as cl:
        yield cl


def uname(prefix: str = "u") -> str:
    return prefix + uuid.uuid4().hex[:10]


# ----- headers and pages ------------------------------------------------------------------------
def test_every_answer_forbids_framing_and_inline_script(c):
    t = create(c)
    for path in ["/", "/account", f"/table/{t['id']}", "/static/app.css", "/api/games",
                 "/api/tables/ffff", "/nowhere", "/rulings/trickarus",
                 "/games/trickarus/web/renderer.js"]:
        r = c.get(path)
        csp = r.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and r.headers.get("x-frame-options") == "DENY", path
        script = re.search(r"script-src ([^;]*)", csp).group(1)
        assert script.split() == ["'self'"], csp  # no inline script, no eval, no other site
        assert r.headers.get("x-content-type-options") == "nosniff"


class _Scripts(HTMLParser):
    """Inline script in a page: a <script> without src or with a body, an on* handler, a
    javascript: link."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script":
            self._in_script = True
            if not a.get("src"):
                self.found.append("<script> without src")
        for k, v in attrs:
            if k.startswith("on"):
                self.found.append(f"{tag} {k}=")
            if v and v.strip().lower().startswith("javascript:"):
                self.found.append(f"{tag} {k}=javascript:")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.found.append("inline script body")


def _inline(html: str) -> list[str]:
    p = _Scripts()
    p.feed(html)
    return p.found


def test_no_page_has_inline_script():
    web = Path(str(resources.files("meeple").joinpath("web")))
    pages = list(web.glob("*.html"))
    for g in meeple.games():
        pages += Path(str(resources.files(f"meeple.games.{g['id']}").joinpath("web"))).glob("*.html")
    assert len(pages) >= 8
    for page in pages:
        assert _inline(page.read_text(encoding="utf-8")) == [], page
    assert _inline("<p onclick='x()'>") and _inline("<script>alert(1)</script>")  # the checker sees
    for g in meeple.games():
        path = rulings_mod.rulings_file(g["id"])
        if path is not None:
            html = rulings_mod.render_page(g["title"], path.read_text(encoding="utf-8"))
            assert _inline(html) == [], g["id"]


def test_the_shipped_proxies_send_the_same_policy():
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    caddy = (ROOT / "deploy" / "Caddyfile").read_text()
    assert f'add_header Content-Security-Policy "{CSP}" always;' in nginx
    assert "add_header X-Frame-Options DENY always;" in nginx
    assert "proxy_hide_header Content-Security-Policy;" in nginx  # sent once, not twice
    assert f'Content-Security-Policy "{CSP}"' in caddy and "X-Frame-Options DENY" in caddy
    assert re.search(r"header \{\s*\n\s*defer", caddy)


# ----- idempotency ------------------------------------------------------------------------------
def test_an_idempotency_answer_is_never_given_to_another_client(c):
    body = {"game": "trickarus", "players": 3, "name": "Ann",
            "seats": [{"kind": "me"}, {"kind": "bot"}, {"kind": "bot"}]}
    key = {"Idempotency-Key": "same-key-123"}
    # no client cookie and no session: no identity to keep the answer for
    c.cookies.clear()
    r = c.post("/api/tables", json=body, headers=key)
    assert r.status_code == 400 and r.json()["error"] == "no_client", r.text
    c.cookies.clear()
    assert c.post("/api/tables", json=body, headers=key).status_code == 400
    # two browsers, one key: each its own table and secrets
    c.cookies.clear()
    c.cookies.set("meeple_client", "a" * 32)
    first = c.post("/api/tables", json=body, headers=key).json()
    again = c.post("/api/tables", json=body, headers=key).json()
    assert again == first  # the same browser's retry
    c.cookies.clear()
    c.cookies.set("meeple_client", "b" * 32)
    other = c.post("/api/tables", json=body, headers=key).json()
    assert other["id"] != first["id"] and other["host"] != first["host"]
    # a session is an identity too (a script that keeps only the session cookie)
    c.cookies.clear()
    c.post("/api/register", json={"username": uname(), "password": PASSWORD})
    session = c.cookies.get("meeple_session")
    c.cookies.clear()
    c.cookies.set("meeple_session", session)
    mine = c.post("/api/tables", json=body, headers=key)
    assert mine.status_code == 200 and mine.json()["id"] not in (first["id"], other["id"])


# ----- names and passwords ----------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["bot_3", "seat_2", "B0t3", "Bоt 3 (hаrd)", "S3AT-4", "bot",
                                 "Ann (h4rd)", "Вот_1", "ｂｏｔ３"])
def test_names_that_read_as_a_bot_or_a_seat_are_refused(c, bad):
    r = c.post("/api/tables", json={"game": "trickarus", "players": 2, "name": bad,
                                    "seats": [{"kind": "me"}, {"kind": "bot"}]})
    assert r.status_code == 422, (bad, r.text)
    if re.fullmatch(r"[A-Za-z0-9_-]{3,20}", bad):
        r = c.post("/api/register", json={"username": bad, "password": PASSWORD})
        assert r.status_code == 422, (bad, r.text)


@pytest.mark.parametrize("good", ["Botany", "Seattle", "Robot 3", "Anna", "Bob 2"])
def test_names_that_merely_start_alike_are_fine(c, good):
    r = c.post("/api/tables", json={"game": "trickarus", "players": 2, "name": good,
                                    "seats": [{"kind": "me"}, {"kind": "bot"}]})
    assert r.status_code == 200, (good, r.text)


def test_a_name_that_reads_as_an_account_is_refused(c):
    base = uname("moss")
    assert c.post("/api/register", json={"username": base, "password": PASSWORD}).status_code == 200
    look_alikes = [base.upper(), base.replace("o", "0"), base[:2] + "_" + base[2:]]
    for other in look_alikes:
        c.cookies.clear()
        r = c.post("/api/register", json={"username": other, "password": PASSWORD})
        assert r.status_code == 409, (other, r.text)
    # and a guest may not sit down under it either (Cyrillic о here)
    c.cookies.clear()
    r = c.post("/api/tables", json={"game": "trickarus", "players": 2,
                                    "name": base.replace("o", "\u043e"),
                                    "seats": [{"kind": "me"}, {"kind": "bot"}]})
    assert r.status_code == 409 and r.json()["error"] == "name_taken", r.text


@pytest.mark.parametrize(("bad", "why"), [
    ("password", "common"), ("        ", "spaces"), ("\x00" * 8, "control"),
    ("12345678", "common"), ("short", "8 characters"), ("iloveyou", "common"),
    ("\t\n \x01abc\x02 ", "spaces")])
def test_weak_passwords_are_refused_saying_why(c, bad, why):
    r = c.post("/api/register", json={"username": uname(), "password": bad})
    assert r.status_code == 422, r.text
    assert why in json.dumps(r.json()["detail"]), r.text


def test_a_password_change_refuses_a_weak_new_one(c):
    c.post("/api/register", json={"username": uname(), "password": PASSWORD})
    r = c.post("/api/password", json={"old": PASSWORD, "new": "password1"})
    assert r.status_code == 422 and "common" in r.text


# ----- sockets of an ended session --------------------------------------------------------------
def _seated(c) -> tuple[dict, str]:
    c.cookies.clear()
    c.post("/api/register", json={"username": uname(), "password": PASSWORD})
    session = c.cookies.get("meeple_session")
    t = create(c, name=None)
    return t, session


def test_logout_closes_that_sessions_sockets(c):
    t, session = _seated(c)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        assert hello(ws, 0, t["secret"])["type"] in ("state", "seats", "chat")
        assert c.post("/api/logout").status_code == 200
        with pytest.raises(WebSocketDisconnect):
            for _ in range(200):
                m = ws.receive_json()
                if m.get("code") == "logged_out":
                    ws.receive_json()  # then the close
        assert m.get("code") == "logged_out"


def test_a_password_change_closes_the_other_sessions_sockets_only(c):
    t, first = _seated(c)
    username = c.get("/api/me").json()["username"]
    c.cookies.clear()
    assert c.post("/api/login", json={"username": username, "password": PASSWORD}).status_code == 200
    second = c.cookies.get("meeple_session")
    c.cookies.clear()
    c.cookies.set("meeple_session", first)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as mine:
        hello(mine, 0, t["secret"])
        c.cookies.clear()
        c.cookies.set("meeple_session", second)
        with c.websocket_connect(f"/ws/tables/{t['id']}") as theirs:
            hello(theirs, None)
            c.cookies.clear()
            c.cookies.set("meeple_session", first)
            new = "another horse battery"
            assert c.post("/api/password", json={"old": PASSWORD, "new": new}).status_code == 200
            with pytest.raises(WebSocketDisconnect):
                for _ in range(200):
                    theirs.receive_json()
        mine.send_json({"type": "ping"})
        for _ in range(200):  # this session's socket is still open
            if mine.receive_json().get("type") == "pong":
                break
        else:
            raise AssertionError("no pong")


@needs_services
@pytest.mark.postgres
@pytest.mark.redis
def test_logout_on_one_server_closes_the_socket_on_another():
    from websockets.sync.client import connect

    url, drop = fresh_database()
    a, b = Server(url), Server(url)
    try:
        import urllib.request

        req = urllib.request.Request(a.http + "/api/register", json.dumps(
            {"username": uname(), "password": PASSWORD}).encode(),
            {"content-type": "application/json"}, method="POST")
        with urllib.request.urlopen(req) as r:
            cookies = {h.split("=", 1)[0]: h.split("=", 1)[1].split(";")[0]
                       for h in r.headers.get_all("set-cookie")}
        jar = "; ".join(f"{k}={v}" for k, v in cookies.items())
        status, t = a.post("/api/tables", {"game": "trickarus", "players": 2,
                                           "seats": [{"kind": "me"}, {"kind": "bot"}]},
                           headers={"cookie": jar})
        assert status == 200, t
        ws = connect(f"{b.ws}/ws/tables/{t['id']}", additional_headers={"cookie": jar},
                     open_timeout=10)
        ws.send(json.dumps({"type": "hello", "seat": 0, "secret": t["secret"]}))
        ws.recv(timeout=10)
        status, _ = a.post("/api/logout", {}, headers={"cookie": jar})
        assert status == 200
        codes = []
        try:
            while True:
                codes.append(json.loads(ws.recv(timeout=10)).get("code"))
        except Exception as exc:  # closed by the server
            assert "logged_out" in codes, (codes, exc)
    finally:
        a.stop()
        b.stop()
        drop()
