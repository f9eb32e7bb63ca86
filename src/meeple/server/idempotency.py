"""Safe retries: an ``Idempotency-Key`` header on create, join and rematch.

The first request with a key claims it (a row with no answer yet); its answer is stored in the
same transaction as its effect (`Storage.create_table`, `Storage.transact`), so a request either
happened *and* has its answer stored, or neither. The same key again (same browser, same route,
same body) gets that stored answer and no second effect; the same key with another body is
refused (422), and while the first is still running the retry gets 409 ``in_progress``.
Keys are scoped by the browser's client cookie (or, without one, its session), so nobody else
can read an answer by its key; a request with neither has no key (400 ``no_client``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from .storage import Storage, idempotency_t

KEY = re.compile(r"^[A-Za-z0-9_\-.:]{8,128}$")
# A claimed key with no answer after this long: its request died before committing anything
# (the answer is committed with the effect), so a retry may run it afresh.
PENDING_SECONDS = 30.0
KEEP = timedelta(days=1)


class IdempotencyError(Exception):
    """A key that cannot be used: ``code`` is ``bad_key``, ``no_client``, ``key_reused`` or
    ``in_progress``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class Stored:
    status: int
    answer: dict[str, Any]


def scoped(key: str, client: str | None, method: str, path: str) -> str:
    """The stored key: the client's key, scoped by browser, method and path, hashed."""
    if not KEY.match(key):
        raise IdempotencyError("bad_key", "an Idempotency-Key is 8-128 letters, digits or -_.:")
    if not client:
        raise IdempotencyError("no_client", "an Idempotency-Key needs the meeple_client cookie "
                               "(any earlier response sets it) or a session")
    return hashlib.sha256(f"{client}\0{method}\0{path}\0{key}".encode()).hexdigest()


def claim(storage: Storage, key: str, request_hash: str) -> Stored | None:
    """None: this request runs (and stores its answer). Else the stored answer to repeat."""
    now = datetime.now(UTC)
    try:
        with storage.engine.begin() as conn:
            conn.execute(insert(idempotency_t).values(key=key, request_hash=request_hash,
                                                      created_at=now))
        return None
    except IntegrityError:
        pass
    with storage.engine.begin() as conn:
        row = conn.execute(select(idempotency_t).where(idempotency_t.c.key == key)
                           .with_for_update()).mappings().first()
        if row is None:  # swept meanwhile
            return claim(storage, key, request_hash)
        if row["request_hash"] != request_hash:
            raise IdempotencyError("key_reused", "this Idempotency-Key was used for another request")
        if row["status"] is not None:
            return Stored(int(row["status"]), row["answer"] or {})
        created = row["created_at"]
        created = created if created.tzinfo else created.replace(tzinfo=UTC)
        if (now - created).total_seconds() < PENDING_SECONDS:
            raise IdempotencyError("in_progress", "the first request with this key is still running")
        conn.execute(update(idempotency_t).where(idempotency_t.c.key == key)
                     .values(created_at=now))
        return None


def finish(storage: Storage, key: str, status: int, answer: dict[str, Any]) -> None:
    """Store an answer given outside an effect's transaction (a refusal, or a rematch that
    joined an existing table), unless one is stored already."""
    with storage.engine.begin() as conn:
        conn.execute(update(idempotency_t)
                     .where(idempotency_t.c.key == key, idempotency_t.c.status.is_(None))
                     .values(status=status, answer=answer))


def forget(storage: Storage, key: str) -> None:
    """The request failed on our side (no answer to repeat): a retry runs afresh."""
    with storage.engine.begin() as conn:
        conn.execute(delete(idempotency_t).where(idempotency_t.c.key == key,
                                                 idempotency_t.c.status.is_(None)))


def sweep(storage: Storage) -> None:
    """Forget keys older than a day."""
    with storage.engine.begin() as conn:
        conn.execute(delete(idempotency_t)
                     .where(idempotency_t.c.created_at < datetime.now(UTC) - KEEP))


