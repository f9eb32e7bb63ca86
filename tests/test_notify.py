"""Turn-based play that reaches you: a mail (to a local SMTP server, aiosmtpd) and a Web Push (to
a local endpoint that decrypts what it gets, as a browser would) when the turn passes to an
account away from the table; one mail per table an hour; an unsubscribe link in every mail;
nothing after unsubscribing. No mail or push leaves this machine."""

from __future__ import annotations

import base64
import email
import json
import os
import re
import threading
import time
import uuid
from email import policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from meeple.server.schema_social import notified_t
from server_proc import free_port
from server_util import client, hello, until, wait_for
from test_accounts import register, url, use  # noqa: F401  (the url fixture)

aiosmtpd = pytest.importorskip("aiosmtpd.controller")
http_ece = pytest.importorskip("http_ece")
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat  # noqa: E402
from py_vapid import Vapid02  # noqa: E402


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Mailbox:
    """aiosmtpd's handler: every message it is given."""

    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"

    def to(self, address: str) -> list:
        return [m for m in self.messages if m["To"] == address]


class PushEndpoint:
    """A push service on loopback that holds one subscription's private key and decrypts
    every message (aes128gcm, RFC 8291) as the browser would."""

    def __init__(self) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.received: list[dict] = []
        self.auth_headers: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.auth_headers.append(self.headers.get("Authorization", ""))
                plain = http_ece.decrypt(body, private_key=outer.key, auth_secret=outer.auth,
                                         version="aes128gcm")
                outer.received.append(json.loads(plain))
                self.send_response(201)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.endpoint = f"http://127.0.0.1:{self.server.server_port}/push/{uuid.uuid4().hex}"

    def subscription(self) -> dict:
        pub = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "keys": {"p256dh": b64(pub), "auth": b64(self.auth)},
                "expirationTime": None}

    def close(self) -> None:
        self.server.shutdown()


@pytest.fixture()
def smtp():
    box = Mailbox()
    ctl = aiosmtpd.Controller(box, hostname="127.0.0.1", port=free_port())
    ctl.start()
    yield box, ctl.port
    ctl.stop()


@pytest.fixture()
def push():
    p = PushEndpoint()
    yield p
    p.close()


@pytest.fixture()
def c(url, smtp, monkeypatch):  # noqa: F811
    vapid = Vapid02()
    vapid.generate_keys()
    monkeypatch.setenv("MEEPLE_SMTP_URL", f"smtp://127.0.0.1:{smtp[1]}")
    monkeypatch.setenv("MEEPLE_MAIL_FROM", "meeple <noreply@meeple.test>")
    monkeypatch.setenv("MEEPLE_VAPID_PRIVATE_KEY", vapid.private_pem().decode())
    monkeypatch.setenv("MEEPLE_VAPID_SUBJECT", "mailto:ops@meeple.test")
    monkeypatch.setenv("MEEPLE_PUSH_ALLOW_HTTP", "1")
    with client(url) as cl:
        yield cl


def name(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:8]}"


def link_in(msg, path: str) -> str:
    found = re.search(rf"https?://\S+{re.escape(path)}\S*", msg.get_content())
    assert found, msg.get_content()
    parts = urlsplit(found.group(0))
    return f"{parts.path}?{parts.query}"


def table_for_two(c) -> dict:
    """A turn-based table (a day a move) whose first move is the creator's (seat 0)."""
    for _ in range(40):
        r = c.post("/api/tables", json={"game": "trickarus", "players": 2, "time_limit": 86400,
                                        "seats": [{"kind": "me"}, {"kind": "open"}]})
        assert r.status_code == 200, r.text
        if r.json()["table"]["to_move"] == 0:
            return r.json()
    raise AssertionError("seat 0 never moved first")


def pass_the_turn(c, t: dict) -> None:
    """Seat 0 plays until it is seat 1's turn."""
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, t["secret"])
        while m["to_move"] == 0:
            if m["legal"]:
                ws.send_json({"type": "move", "action": m["legal"][0]["id"], "move": m["move"]})
            m = until(ws, lambda x, n=m["move"]: x.get("type") == "state" and x["move"] > n)


def told(c, table_id: str, user_kind: str = "turn") -> bool:
    engine = c.app.state.storage.engine
    with engine.connect() as conn:
        return conn.execute(select(notified_t).where(notified_t.c.table_id == table_id,
                                                     notified_t.c.kind == user_kind)).first() is not None


def settle(c) -> None:
    wait_for(lambda: not c.app.state.notifier.pending)


def two_accounts(c, box) -> tuple:
    """ann and bob; bob gives an address, which gets a confirmation mail (returned)."""
    ann, bob = name("ann"), name("bob")
    a, b = register(c, ann), register(c, bob)
    address = f"{bob}@example.test"
    use(c, b)
    r = c.post("/api/notify/email", json={"email": address})
    assert r.status_code == 200 and r.json()["confirmed"] is False
    wait_for(lambda: box.to(address))
    (confirm,) = box.to(address)
    return a, b, ann, address, confirm


def test_one_mail_and_one_push_when_the_turn_passes_and_none_after_unsubscribe(c, smtp, push):
    box, _port = smtp
    a, b, ann, address, confirm = two_accounts(c, box)  # bob confirms by the mailed link
    assert "Confirm" in confirm["Subject"]
    assert c.post("/api/notify/email", json={"email": address}).status_code == 429  # an hour
    assert c.get(link_in(confirm, "/api/notify/confirm")).status_code == 200
    assert c.get("/api/notify").json()["confirmed"] is True
    assert c.get("/api/notify/confirm?token=" + "x" * 30).text.count("no longer works")
    key = c.get("/api/notify").json()["push_key"]
    assert key and len(base64.urlsafe_b64decode(key + "==")) == 65
    # Web Push: a plain http endpoint is refused unless the server allows it (tests do)
    assert c.post("/api/notify/push", json={"endpoint": "ftp://x.example/1", **{
        k: v for k, v in push.subscription().items() if k != "endpoint"}}).status_code == 400
    assert c.post("/api/notify/push", json=push.subscription()).json()["push_subscriptions"] == 1

    use(c, a)
    t = table_for_two(c)
    use(c, b)
    assert c.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": "x"}).status_code == 200
    box.messages.clear()
    use(c, a)
    pass_the_turn(c, t)
    wait_for(lambda: box.to(address) and push.received)
    settle(c)
    time.sleep(0.3)
    (mail,) = box.to(address)
    assert mail["Subject"].startswith("Your turn") and t["id"] in mail.get_content()
    assert "/api/notify/unsubscribe?token=" in mail["List-Unsubscribe"]
    (note,) = push.received
    assert note["title"].startswith("Your turn") and note["url"].endswith(f"/table/{t['id']}")
    assert push.auth_headers[0].startswith("vapid t=")  # signed with the server's VAPID key
    assert box.to(f"{ann}@example.test") == []  # ann gave no address; she is at the table anyway

    # unsubscribe by the mail's link (a page with a button, then the post), and drop the push
    page = link_in(mail, "/api/notify/unsubscribe")
    assert 'id=unsubscribe' in c.get(page).text
    assert c.get("/api/notify").json()["email_on"] is True  # opening the link alone does nothing
    c.cookies.clear()  # the link works without logging in
    token = page.split("token=")[1]
    assert "Unsubscribed" in c.post("/api/notify/unsubscribe", data={"token": token}).text
    use(c, b)
    assert c.get("/api/notify").json()["email_on"] is False
    assert c.post("/api/notify/push/remove", json={"endpoint": push.endpoint}).json()[
        "push_subscriptions"] == 0

    use(c, a)
    t2 = table_for_two(c)
    use(c, b)
    assert c.post(f"/api/tables/{t2['id']}/join", json={"seat": 1, "name": "x"}).status_code == 200
    use(c, a)
    pass_the_turn(c, t2)
    wait_for(lambda: told(c, t2["id"]))  # the turn was noticed and handled...
    settle(c)
    time.sleep(0.3)
    assert len(box.to(address)) == 1 and len(push.received) == 1  # ...and nobody was told


def test_at_most_one_mail_per_table_an_hour_and_pushes_for_each_turn(c, smtp, push):
    box, _port = smtp
    a, b, _ann, address, confirm = two_accounts(c, box)
    assert c.get(link_in(confirm, "/api/notify/confirm")).status_code == 200
    c.post("/api/notify/push", json=push.subscription())
    box.messages.clear()
    use(c, a)
    t = table_for_two(c)
    use(c, b)
    c.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": "x"})
    turns = 0
    for _ in range(2):
        use(c, a)
        pass_the_turn(c, t)
        turns += 1
        wait_for(lambda n=turns: len(push.received) == n)
        use(c, b)  # bob answers from the table (connected: no mail, no push for himself)
        with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
            m = hello(ws, 1, None)
            while m["to_move"] == 1 and m["status"] == "running":
                if m["legal"]:
                    ws.send_json({"type": "move", "action": m["legal"][0]["id"], "move": m["move"]})
                m = until(ws, lambda x, n=m["move"]: x.get("type") == "state" and x["move"] > n)
    settle(c)
    assert len(push.received) == 2 and len(box.to(address)) == 1


def test_an_invitation_by_name_reaches_the_friend(c, smtp, push):
    ann, bob = name("ann"), name("bob")
    a, b = register(c, ann), register(c, bob)
    use(c, b)
    c.post("/api/notify/push", json=push.subscription())
    c.post("/api/friends", json={"username": ann})
    use(c, a)
    c.post("/api/friends", json={"username": bob})
    t = c.post("/api/tables", json={"game": "trickarus", "players": 2,
                                    "seats": [{"kind": "me"}, {"kind": "open"}]}).json()
    assert c.post(f"/api/tables/{t['id']}/invite_friend",
                  json={"seat": 1, "username": bob}).status_code == 200
    wait_for(lambda: push.received)
    assert push.received[0]["title"] == f"{ann} invites you to Trickarus"


def test_the_end_of_a_game_reaches_a_player_who_left_it(c, smtp, push):
    box, _port = smtp
    ann = name("ann")
    register(c, ann)
    c.post("/api/notify/push", json=push.subscription())
    c.post("/api/notify/email", json={"email": f"{ann}@example.test"})  # never confirmed
    t = c.post("/api/tables", json={"game": "trickarus", "players": 2, "time_limit": 86400,
                                    "seats": [{"kind": "me"}, {"kind": "bot", "level": "random"}]}).json()
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        hello(ws, 0, None)
        ws.send_json({"type": "leave"})  # a bot plays for her to the end
        until(ws, lambda x: x.get("type") == "state" and x["seats"][0]["zombie"])
    wait_for(lambda: c.get(f"/api/tables/{t['id']}").json()["status"] == "over", 60)
    wait_for(lambda: any(p["title"].startswith("Game over") for p in push.received))
    settle(c)
    assert [p["title"] for p in push.received] == ["Game over: Trickarus"]
    assert [m["Subject"] for m in box.messages] == ["Confirm your email for meeple"]  # no more


def test_push_endpoints_must_be_public_https():
    from meeple.server.notify import push_endpoint_ok

    assert push_endpoint_ok("https://fcm.googleapis.com/fcm/send/abc", False)
    assert push_endpoint_ok("https://updates.push.services.mozilla.com/wpush/v2/x", False)
    for bad in ("http://fcm.googleapis.com/x", "https://127.0.0.1/x", "https://10.0.0.5/x",
                "https://[::1]/x", "https://localhost:8000/x", "https://db.internal/x",
                "https://169.254.169.254/latest", "ftp://example.org/x", "https:///x"):
        assert not push_endpoint_ok(bad, False), bad
    assert push_endpoint_ok("http://127.0.0.1:9000/push", True)


def test_notify_turn_for_other_modules_tells_once_per_turn(c, smtp, push):
    from meeple.server.notify import notify_turn

    ann, bob = name("ann"), name("bob")
    a, b = register(c, ann), register(c, bob)
    c.post("/api/notify/push", json=push.subscription())
    use(c, a)
    t = table_for_two(c)  # seat 0 (ann) moves first: nothing for bob yet
    use(c, b)
    c.post(f"/api/tables/{t['id']}/join", json={"seat": 1, "name": "x"})
    settle(c)
    assert push.received == []
    before = 0
    manager = c.app.state.manager

    async def tell() -> None:  # e.g. a clock that skipped seat 0's turn
        notify_turn(manager, await manager.get(t["id"]), 1)

    c.portal.call(tell)
    settle(c)
    c.portal.call(tell)  # the same turn again: told once
    settle(c)
    assert len(push.received) == before + 1 and push.received[-1]["title"] == "Your turn: Trickarus"
