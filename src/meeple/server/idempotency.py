"""Safe retries: an ``Idempotency-Key`` header on create, join and rematch.

The first request with a key claims it (a row with no answer yet); its answer is stored in the
same transaction as its effect (`Storage.create_table`, `Storage.transact`), so a request either
happened *and* has its answer stored, or neither. The same key again (same browser, same route,
same body) gets that stored answer and no second effect; the same key with another body is
refused (422), and while the first is still running the retry gets 409 ``in_progress``.
Keys are scoped by the browser's client cookie (or, without one, its session), so nobody else
can read an answer by its key; a request with neither has no key (400 ``no_client``).

A claim still without an answer after `PENDING_SECONDS` is taken for a dead request's (its
server was killed), and a retry takes it over with a new token (`Claim`). Only the claim with
the row's current token can store an answer, so a request that was merely slow and lost its
claim stores nothing, and its effect rolls back with it (`ClaimLost`): it then answers as a
retry would.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from .storage import Claim, Storage, held, idempotency_t

KEY = re.compile(r"^[A-Za-z0-9_\-.:]{8,128}$")
# A claimed key with no answer after this long: a retry takes the claim over and runs afresh.
# Safe at any length: only the latest claim can store an answer, and the answer is committed
# with the effect, so a first request that was only slow commits nothing. 3 s because a request
# normally answers well within it, and the page retries ``in_progress`` over 4.5 s
# (web/common.js `api`): a dead server's claim is taken over within those retries.
PENDING_SECONDS = 3.0
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


def claim(storage: Storage, key: str, request_hash: str) -> Claim | Stored:
    """A `Claim`: this request runs (and stores its answer with it). Else the stored answer to
    repeat."""
    # the database's clock: a claim made on another server is aged alike
    now = datetime.fromtimestamp(storage.clock.now(), UTC)
    mine = Claim(key, secrets.token_hex(16))
    try:
        with storage.engine.begin() as conn:
            conn.execute(insert(idempotency_t).values(key=key, request_hash=request_hash,
                                                      created_at=now, token=mine.token))
        return mine
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
                     .values(created_at=now, token=mine.token))
        return mine


def finish(storage: Storage, claim: Claim, status: int, answer: dict[str, Any]) -> bool:
    """Store an answer given outside an effect's transaction (a refusal, or a rematch that
    joined an existing table). False: the claim was taken over or answered, nothing stored."""
    with storage.engine.begin() as conn:
        done = conn.execute(update(idempotency_t).where(*held(claim))
                            .values(status=status, answer=answer))
    return done.rowcount == 1


def forget(storage: Storage, claim: Claim) -> None:
    """The request failed on our side (no answer to repeat): a retry runs afresh. A claim
    taken over is the retry's: left alone."""
    with storage.engine.begin() as conn:
        conn.execute(delete(idempotency_t).where(*held(claim)))


def repeat(storage: Storage, key: str) -> Stored:
    """What a retry gets now, for a request that lost its claim: the stored answer, else 409
    ``in_progress`` (the retry that took the claim over still runs)."""
    with storage.engine.connect() as conn:
        row = conn.execute(select(idempotency_t.c.status, idempotency_t.c.answer)
                           .where(idempotency_t.c.key == key)).first()
    if row is None or row.status is None:
        raise IdempotencyError("in_progress", "a retry of this request is running")
    return Stored(int(row.status), row.answer or {})


def sweep(storage: Storage) -> None:
    """Forget keys older than a day."""
    with storage.engine.begin() as conn:
        conn.execute(delete(idempotency_t)
                     .where(idempotency_t.c.created_at < datetime.now(UTC) - KEEP))


