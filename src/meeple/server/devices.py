"""Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies").

A browser that logs in to an account gets a signed cookie for that account. Later logins to the
account from that browser are limited per device, with an allowance of their own; logins from
browsers the account does not know share the per-username (and per-address) allowance. So a
stranger who hammers a username exhausts only the strangers' allowance: the owner, from a
browser they used before, still logs in.

The cookie holds, for up to `KEEP` accounts, ``nonce.signature`` where the signature is an
HMAC-SHA256 of the casefolded username and the nonce. The username is not in the cookie. The key
is ``MEEPLE_SECRET_KEY`` or, if unset, a random key kept in the database, so every server of a
site agrees on it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets

from sqlalchemy import Column, String, Table, insert, select
from sqlalchemy.exc import IntegrityError

from .storage import Storage, metadata

DEVICE_COOKIE = "meeple_device"
DEVICE_DAYS = 365
KEEP = 4  # accounts remembered per browser

server_keys_t = Table(
    "meeple_server_keys", metadata,
    Column("name", String(32), primary_key=True),
    Column("value", String(128), nullable=False),
)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Devices:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._key: bytes | None = None

    def key(self) -> bytes:
        """The signing key (blocking: the first call may read or write the database)."""
        if self._key is None:
            env = os.environ.get("MEEPLE_SECRET_KEY")
            self._key = env.encode() if env else self._stored_key()
        return self._key

    def _stored_key(self) -> bytes:
        with self.storage.engine.begin() as conn:
            row = conn.execute(select(server_keys_t.c.value)
                               .where(server_keys_t.c.name == "device")).first()
        if row is None:
            try:
                with self.storage.engine.begin() as conn:
                    conn.execute(insert(server_keys_t).values(
                        name="device", value=secrets.token_urlsafe(48)))
            except IntegrityError:  # another server wrote it first: use theirs
                pass
            with self.storage.engine.begin() as conn:
                row = conn.execute(select(server_keys_t.c.value)
                                   .where(server_keys_t.c.name == "device")).first()
        assert row is not None
        return row[0].encode()

    def _sign(self, username: str, nonce: str) -> str:
        msg = f"{username.casefold()}\0{nonce}".encode()
        return _b64(hmac.new(self.key(), msg, hashlib.sha256).digest()[:18])

    def known(self, cookie: str | None, username: str) -> str | None:
        """The device's id (its nonce) if this cookie was issued for ``username``."""
        for entry in (cookie or "").split("~")[:KEEP]:
            nonce, _, sig = entry.partition(".")
            if nonce and sig and hmac.compare_digest(sig, self._sign(username, nonce)):
                return nonce
        return None

    def issue(self, cookie: str | None, username: str) -> str:
        """The cookie's new value after a successful login to ``username`` (a fresh entry
        first, this account's old entry dropped, at most `KEEP`)."""
        old = self.known(cookie, username)
        others = [e for e in (cookie or "").split("~")[:KEEP]
                  if e and e.partition(".")[0] != old and len(e) < 64]
        nonce = secrets.token_urlsafe(12)
        return "~".join([f"{nonce}.{self._sign(username, nonce)}", *others][:KEEP])
