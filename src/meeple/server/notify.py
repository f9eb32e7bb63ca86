"""Telling players away from the table: your turn, an invitation, a game's end.

A `TableManager` hook: when the turn passes to an account's seat, when an account is invited to
a seat by name and when a game ends, the account is told by email (if it gave an address and
confirmed it by the link mailed to it) and by Web Push (each browser where it allowed it).
The page itself (sound, tab title, browser notification) needs nothing from here.

- Only a seat whose player is not at the table (no socket open) is told, and for turns and
  ends only at a turn-based table (no time limit, or at least `TURN_BASED_SECONDS` a move):
  at a real-time table an email comes too late to matter.
- Each event is told once, whichever server sees it first (``meeple_notified``), and an
  account gets at most one mail per table an hour (``meeple_mailed``).
- Every mail carries an unsubscribe link (and ``List-Unsubscribe``, one-click).

Settings come from the environment: ``MEEPLE_SMTP_URL`` (``smtp://[user:pass@]host:port``,
``smtps://`` for TLS from the start, ``?starttls=1`` to upgrade), ``MEEPLE_MAIL_FROM``,
``MEEPLE_VAPID_PRIVATE_KEY`` (PEM text, a PEM file's path, or the raw key in base64url),
``MEEPLE_VAPID_SUBJECT`` (``mailto:`` of whoever runs the server). Without SMTP no mail is
sent; without VAPID keys no push. Push endpoints must be https (``MEEPLE_PUSH_ALLOW_HTTP=1``
lets tests use a local http endpoint).
"""

from __future__ import annotations

import asyncio
import base64
import html
import ipaddress
import json
import logging
import os
import re
import secrets
import smtplib
import time
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

import meeple

from .schema_social import mailed_t, notified_t, notify_prefs_t, push_subs_t
from .storage import Storage
from .tables import LiveTable, TableError, TableManager, hash_secret

log = logging.getLogger("meeple.server.notify")

TURN_BASED_SECONDS = 3600.0  # a table with at least this long a move is played turn-based
MAIL_EVERY = 3600.0           # at most one mail per account and table in this many seconds
_EMAIL = re.compile(r"^[^@\s<>\"',;]{1,64}@[A-Za-z0-9.-]{1,189}\.[A-Za-z]{2,63}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_\-]{20,64}$")
_B64 = re.compile(r"^[A-Za-z0-9_\-=]{8,200}$")


@dataclass
class NotifyConfig:
    smtp_url: str | None = None
    mail_from: str = "meeple <noreply@localhost>"
    vapid_key: str | None = None
    vapid_subject: str = "mailto:admin@localhost"
    push_allow_http: bool = False

    @classmethod
    def from_env(cls) -> NotifyConfig:
        env = os.environ.get
        return cls(smtp_url=env("MEEPLE_SMTP_URL") or None,
                   mail_from=env("MEEPLE_MAIL_FROM") or "meeple <noreply@localhost>",
                   vapid_key=env("MEEPLE_VAPID_PRIVATE_KEY") or None,
                   vapid_subject=env("MEEPLE_VAPID_SUBJECT") or "mailto:admin@localhost",
                   push_allow_http=env("MEEPLE_PUSH_ALLOW_HTTP") == "1")


def load_vapid(key: str | None) -> Any:
    """The VAPID key (py_vapid), from PEM text, a PEM file or a base64url raw/DER key."""
    if not key:
        return None
    from py_vapid import Vapid02

    if "BEGIN" in key:
        return Vapid02.from_pem(key.encode())
    if Path(key).is_file():
        return Vapid02.from_file(key)
    return Vapid02.from_string(key)


def vapid_public(vapid: Any) -> str | None:
    """The public key as browsers take it (``applicationServerKey``): base64url, no padding."""
    if vapid is None:
        return None
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    raw = vapid.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class EmailBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: Annotated[str, Field(min_length=3, max_length=254, pattern=_EMAIL.pattern)] | None


class EmailOn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    on: bool


class PushKeys(BaseModel):
    model_config = ConfigDict(extra="forbid")
    p256dh: Annotated[str, Field(pattern=_B64.pattern)]
    auth: Annotated[str, Field(pattern=_B64.pattern)]


class PushSub(BaseModel):
    model_config = ConfigDict(extra="ignore")  # browsers add expirationTime
    endpoint: Annotated[str, Field(min_length=10, max_length=1000)]
    keys: PushKeys | None = None


def _now() -> datetime:
    return datetime.now(UTC)


class Notifier:
    """The hook, the stores behind it, and the delivery (mail over SMTP, Web Push)."""

    def __init__(self, storage: Storage, manager: TableManager, public_url: str | None,
                 config: NotifyConfig | None = None) -> None:
        self.engine = storage.engine
        self.manager = manager
        self.base = (public_url or "http://localhost:8000").rstrip("/")
        self.config = config or NotifyConfig.from_env()
        self.vapid = load_vapid(self.config.vapid_key)
        self.public_key = vapid_public(self.vapid)
        # what each live table looked like when last seen: (status, seat to move)
        self._seen: weakref.WeakKeyDictionary[LiveTable, tuple[str, int | None]] = (
            weakref.WeakKeyDictionary())
        self.pending: set[asyncio.Task[None]] = set()

    # ----- the hook -------------------------------------------------------------------------
    def on_change(self, t: LiveTable) -> None:
        """Where a turn passes: a new seat to move, or the end."""
        now = (t.rec.status, t.state.to_move)
        before = self._seen.get(t)
        self._seen[t] = now
        if before is None and t.rec.status != "running" or before == now:
            return
        if t.rec.status == "running" and now[1] is not None and (before is None or before[1] != now[1]
                                                                 or before[0] != "running"):
            self.notify_turn(t, now[1])
        elif t.rec.status == "over" and before is not None and before[0] != "over":
            self.notify_over(t)

    async def on_message(self, message: dict[str, Any]) -> None:
        return None

    # ----- events (other modules may call these) ----------------------------------------------
    def notify_turn(self, t: LiveTable, seat: int) -> None:
        """It is ``seat``'s turn at ``t``: tell its account if it is away from the table."""
        if not self._remote(t):
            return
        s = t.rec.seats[seat]
        if s.kind != "human" or s.zombie or s.user_id is None or self._at_table(t, seat):
            return
        title = self._title(t)
        self._send(s.user_id, t.rec.id, "turn", len(t.state.history),
                   f"Your turn: {title}", f"It is your turn at {title} (table #{t.rec.id}).",
                   f"/table/{t.rec.id}")

    def notify_over(self, t: LiveTable) -> None:
        if not self._remote(t):
            return
        title = self._title(t)
        ranking = t.state.ranking() if t.state.is_over() else None
        for s in t.rec.seats:
            if s.kind != "human" or s.user_id is None or self._at_table(t, s.seat):
                continue
            place = f" You placed {ranking[s.seat] + 1} of {t.rec.players}." if ranking else ""
            self._send(s.user_id, t.rec.id, "over", len(t.state.history),
                       f"Game over: {title}", f"The game at {title} (table #{t.rec.id}) is over.{place}",
                       f"/table/{t.rec.id}")

    def notify_invite(self, t: LiveTable, seat: int, user_id: int, by: str) -> None:
        title = self._title(t)
        self._send(user_id, t.rec.id, "invite", seat, f"{by} invites you to {title}",
                   f"{by} invites you to a seat at {title} (table #{t.rec.id}). Accept it in the lobby.",
                   "/")

    def _remote(self, t: LiveTable) -> bool:
        limit = t.rec.time_limit
        return limit is None or limit >= TURN_BASED_SECONDS

    def _at_table(self, t: LiveTable, seat: int) -> bool:
        if any(c.seat == seat and not c.closed for c in t.conns):
            return True
        return seat in getattr(self.manager, "_elsewhere", lambda _t: set())(t)

    def _title(self, t: LiveTable) -> str:
        try:
            return meeple.game_info(t.rec.game).title
        except Exception:
            return t.rec.game

    def _send(self, user_id: int, table_id: str, kind: str, n: int, subject: str, text: str,
              path: str) -> None:
        task = asyncio.get_running_loop().create_task(asyncio.to_thread(
            self.deliver, user_id, table_id, kind, n, subject, text, path))
        self.pending.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.pending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("notification failed", exc_info=task.exception())

    # ----- delivery -------------------------------------------------------------------------
    def deliver(self, user_id: int, table_id: str, kind: str, n: int, subject: str, text: str,
                path: str) -> None:
        """Claim the event (once over all servers), then mail and push."""
        now = time.time()
        with self.engine.begin() as conn:
            try:
                with conn.begin_nested():
                    conn.execute(insert(notified_t).values(table_id=table_id, user_id=user_id,
                                                           kind=kind, n=n, at=now))
            except IntegrityError:
                return
            prefs = conn.execute(select(notify_prefs_t).where(
                notify_prefs_t.c.user_id == user_id)).mappings().first()
            subs = conn.execute(select(push_subs_t).where(
                push_subs_t.c.user_id == user_id)).mappings().all()
            mail = (prefs is not None and prefs["email"] and prefs["confirmed"] and prefs["email_on"]
                    and self.config.smtp_url and self._claim_mail(conn, user_id, table_id, now))
        url = self.base + path
        if mail:
            assert prefs is not None
            unsub = f"{self.base}/api/notify/unsubscribe?token={prefs['unsub_token']}"
            self.send_mail(prefs["email"], subject,
                           f"{text}\n\n{url}\n\nNo more mail from meeple: {unsub}\n", unsub)
        for sub in subs:
            self.push(dict(sub), {"title": subject, "body": text, "url": url,
                                  "tag": f"meeple-{table_id}"})

    def _claim_mail(self, conn: Any, user_id: int, key: str, now: float) -> bool:
        """At most one mail per account and ``key`` (a table) every `MAIL_EVERY` seconds."""
        if conn.execute(update(mailed_t).where(
                mailed_t.c.user_id == user_id, mailed_t.c.table_id == key,
                mailed_t.c.sent_at <= now - MAIL_EVERY).values(sent_at=now)).rowcount:
            return True
        try:
            with conn.begin_nested():
                conn.execute(insert(mailed_t).values(user_id=user_id, table_id=key, sent_at=now))
        except IntegrityError:
            return False  # mailed within the hour
        return True

    def send_mail(self, to: str, subject: str, body: str, unsub: str | None) -> None:
        url = urlsplit(self.config.smtp_url or "")
        msg = EmailMessage()
        msg["From"] = self.config.mail_from
        msg["To"] = formataddr(("", to))
        msg["Subject"] = subject
        msg["Message-ID"] = make_msgid(domain="meeple")
        if unsub:
            msg["List-Unsubscribe"] = f"<{unsub}>"
            msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
        msg.set_content(body)
        ssl = url.scheme == "smtps"
        cls = smtplib.SMTP_SSL if ssl else smtplib.SMTP
        with cls(url.hostname or "localhost", url.port or (465 if ssl else 25), timeout=20) as smtp:
            if not ssl and parse_qs(url.query).get("starttls") == ["1"]:
                smtp.starttls()
            if url.username:
                from urllib.parse import unquote
                smtp.login(unquote(url.username), unquote(url.password or ""))
            smtp.send_message(msg)

    def push(self, sub: dict[str, Any], payload: dict[str, Any]) -> None:
        if self.vapid is None:
            return
        from pywebpush import WebPushException, webpush

        info = {"endpoint": sub["endpoint"], "keys": {"p256dh": sub["p256dh"], "auth": sub["auth"]}}
        try:
            webpush(info, json.dumps(payload), vapid_private_key=self.vapid,
                    vapid_claims={"sub": self.config.vapid_subject}, ttl=86400, timeout=10)
        except WebPushException as exc:
            status = exc.response.status_code if exc.response is not None else None
            if status in (404, 410):  # the browser dropped the subscription
                with self.engine.begin() as conn:
                    conn.execute(delete(push_subs_t).where(push_subs_t.c.endpoint == sub["endpoint"]))
            else:
                log.warning("push to %s failed: %s", urlsplit(sub["endpoint"]).hostname, status)

    # ----- settings -------------------------------------------------------------------------
    def prefs(self, user_id: int) -> dict[str, Any]:
        with self.engine.connect() as conn:
            row = conn.execute(select(notify_prefs_t).where(
                notify_prefs_t.c.user_id == user_id)).mappings().first()
            pushes = len(conn.execute(select(push_subs_t.c.endpoint).where(
                push_subs_t.c.user_id == user_id)).all())
        return {"email": row["email"] if row else None,
                "confirmed": bool(row and row["confirmed"]),
                "email_on": bool(row["email_on"]) if row else True,
                "mail": bool(self.config.smtp_url), "push_key": self.public_key,
                "push_subscriptions": pushes}

    def _ensure(self, conn: Any, user_id: int) -> None:
        if conn.execute(select(notify_prefs_t.c.user_id).where(
                notify_prefs_t.c.user_id == user_id)).first() is None:
            conn.execute(insert(notify_prefs_t).values(
                user_id=user_id, email=None, confirmed=False, email_on=True,
                unsub_token=secrets.token_urlsafe(24)))

    def set_email(self, user_id: int, email: str | None) -> str | None:
        """A new address waits for its confirmation link; returns the link's token."""
        token = secrets.token_urlsafe(24) if email else None
        with self.engine.begin() as conn:
            self._ensure(conn, user_id)
            conn.execute(update(notify_prefs_t).where(notify_prefs_t.c.user_id == user_id).values(
                email=email, confirmed=False, email_on=True,
                confirm_hash=hash_secret(token) if token else None))
        return token

    def confirm(self, token: str) -> bool:
        if not _TOKEN.match(token):
            return False
        with self.engine.begin() as conn:
            return conn.execute(update(notify_prefs_t).where(
                notify_prefs_t.c.confirm_hash == hash_secret(token),
                notify_prefs_t.c.email.is_not(None)).values(
                confirmed=True, confirm_hash=None)).rowcount == 1

    def set_email_on(self, user_id: int, on: bool) -> None:
        with self.engine.begin() as conn:
            self._ensure(conn, user_id)
            conn.execute(update(notify_prefs_t).where(notify_prefs_t.c.user_id == user_id)
                         .values(email_on=on))

    def unsubscribe(self, token: str) -> bool:
        if not _TOKEN.match(token):
            return False
        with self.engine.begin() as conn:
            return conn.execute(update(notify_prefs_t).where(
                notify_prefs_t.c.unsub_token == token).values(email_on=False)).rowcount == 1

    def add_push(self, user_id: int, sub: PushSub) -> None:
        assert sub.keys is not None
        with self.engine.begin() as conn:
            conn.execute(delete(push_subs_t).where(push_subs_t.c.endpoint == sub.endpoint))
            conn.execute(insert(push_subs_t).values(
                endpoint=sub.endpoint, user_id=user_id, p256dh=sub.keys.p256dh,
                auth=sub.keys.auth, created_at=_now()))

    def remove_push(self, user_id: int, endpoint: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(push_subs_t).where(push_subs_t.c.endpoint == endpoint,
                                                   push_subs_t.c.user_id == user_id))


def notify_turn(manager: TableManager, t: LiveTable, seat: int) -> None:
    """It is ``seat``'s turn at ``t`` (for modules that pass the turn outside a move, e.g. a
    clock): tell its account, once per turn, like the hook does."""
    for hook in manager.hooks:
        if isinstance(hook, Notifier):
            hook.notify_turn(t, seat)


def push_endpoint_ok(endpoint: str, allow_http: bool) -> bool:
    """A push service's address: https to a public host (the server posts there; a loopback or
    private address would let an account make it post inside its own network). ``allow_http``
    (tests) lets a local http endpoint through."""
    parts = urlsplit(endpoint)
    if allow_http:
        return parts.scheme in ("http", "https") and bool(parts.hostname)
    host = parts.hostname or ""
    if parts.scheme != "https" or not host or host == "localhost" or host.endswith(
            (".localhost", ".local", ".internal")):
        return False
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        return True  # a name: the push services' own (fcm.googleapis.com, push.services.mozilla.com...)


def _page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
        "content='width=device-width, initial-scale=1'><title>meeple</title><link rel=stylesheet "
        f"href=/static/app.css></head><body><main class='lobby narrow'><h2>{html.escape(title)}"
        f"</h2>{body}<p><a href=/account>Your account</a></p></main></body></html>")


def router(notifier: Notifier, current: Any) -> APIRouter:
    """``/api/notify``: email (set, confirm, unsubscribe, on/off) and Web Push subscriptions."""
    api = APIRouter()

    @api.get("/api/notify")
    async def settings(request: Request) -> dict[str, Any]:
        user = await current(request)
        return await asyncio.to_thread(notifier.prefs, user["id"])

    @api.post("/api/notify/email")
    async def set_email(body: EmailBody, request: Request) -> dict[str, Any]:
        user = await current(request)
        email = body.email.strip() if body.email else None
        if email and not notifier.config.smtp_url:
            raise TableError("no_mail", "this server sends no mail")
        if email:
            def claim() -> bool:
                with notifier.engine.begin() as conn:  # one confirmation mail an hour
                    return notifier._claim_mail(conn, user["id"], "confirm", time.time())
            if not await asyncio.to_thread(claim):
                raise TableError("rate_limited", "a confirmation mail went out less than an hour ago")
        token = await asyncio.to_thread(notifier.set_email, user["id"], email)
        if email and token:
            def mail() -> None:
                link = f"{notifier.base}/api/notify/confirm?token={quote(token)}"
                notifier.send_mail(email, "Confirm your email for meeple",
                                   f"Hello {user['username']},\n\nconfirm this address to be told "
                                   f"when it is your turn:\n{link}\n\nIf you did not ask for this, "
                                   "ignore this mail.\n", None)
            await asyncio.to_thread(mail)
        return await asyncio.to_thread(notifier.prefs, user["id"])

    @api.get("/api/notify/confirm", include_in_schema=False)
    async def confirm(token: str = "") -> HTMLResponse:
        ok = await asyncio.to_thread(notifier.confirm, token)
        return _page("Email confirmed" if ok else "This link no longer works",
                     "<p>You will be told by mail when it is your turn.</p>" if ok else "")

    @api.get("/api/notify/unsubscribe", include_in_schema=False)
    async def unsubscribe_page(token: str = "") -> HTMLResponse:
        """A form, not the deed: mail scanners open links on their own."""
        return _page("Stop mail from meeple?",
                     "<form method=post><input type=hidden name=token value=\""
                     f"{html.escape(token)}\"><button class=primary id=unsubscribe>Unsubscribe"
                     "</button></form>")

    @api.post("/api/notify/unsubscribe", include_in_schema=False)
    async def unsubscribe(request: Request) -> HTMLResponse:
        # the page's form posts the token; a mail client's one-click (RFC 8058) has it in the URL
        form = parse_qs((await request.body()).decode("latin-1"))
        token = (form.get("token") or [""])[0] or request.query_params.get("token", "")
        ok = await asyncio.to_thread(notifier.unsubscribe, token)
        return _page("Unsubscribed" if ok else "This link no longer works",
                     "<p>meeple sends you no more mail. Turn it back on in your account.</p>" if ok else "")

    @api.post("/api/notify/email_on")
    async def email_on(body: EmailOn, request: Request) -> dict[str, Any]:
        user = await current(request)
        await asyncio.to_thread(notifier.set_email_on, user["id"], body.on)
        return await asyncio.to_thread(notifier.prefs, user["id"])

    @api.post("/api/notify/push")
    async def add_push(body: PushSub, request: Request) -> dict[str, Any]:
        user = await current(request)
        if body.keys is None or not push_endpoint_ok(body.endpoint, notifier.config.push_allow_http):
            raise TableError("bad_request", "a push subscription needs an https endpoint and keys")
        await asyncio.to_thread(notifier.add_push, user["id"], body)
        return await asyncio.to_thread(notifier.prefs, user["id"])

    @api.post("/api/notify/push/remove")
    async def remove_push(body: PushSub, request: Request) -> dict[str, Any]:
        user = await current(request)
        await asyncio.to_thread(notifier.remove_push, user["id"], body.endpoint)
        return await asyncio.to_thread(notifier.prefs, user["id"])

    return api
