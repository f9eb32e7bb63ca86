"""Chat at every table, for its players and its spectators with an account.

A message is plain text (NFKC, no control or format characters, at most `CHAT_MAX` characters;
browsers put it in with ``textContent``), stored with the table and the move number it was said
at (replays show it), rate-limited per speaker, and sent to every socket of the table on this
server and, through the pub/sub bus, on the others (which read it from the database: the bus
carries only its id). An account's mutes are applied by the server to what its sockets get.
"""

from __future__ import annotations

import asyncio
import unicodedata
import weakref
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select

from .accounts import Accounts
from .pubsub import LocalBus
from .ratelimit import RateLimits
from .schema_players import chat_t
from .storage import Storage
from .tables import Connection, LiveTable, TableError, TableManager

CHAT_MAX = 300
HISTORY = 200


def clean_text(value: str) -> str:
    """What others will read: NFKC, control and format characters (bidi overrides, zero-width
    joiners) dropped, runs of whitespace made one space, 1-`CHAT_MAX` characters."""
    text = unicodedata.normalize("NFKC", value)
    text = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or not unicodedata.category(ch).startswith("C"))
    text = " ".join(text.split())
    if not text:
        raise TableError("bad_message", "say something")
    if len(text) > CHAT_MAX:
        raise TableError("too_large", f"a chat message is at most {CHAT_MAX} characters")
    return text


def _row_json(r: Any) -> dict[str, Any]:
    return {"id": r["id"], "move": r["move"], "seat": r["seat"], "name": r["name"],
            "account": r["user_id"] is not None, "text": r["text"], "at": r["at"].isoformat(),
            "_user": r["user_id"]}


class Chat:
    """A TableManager hook (bus messages with ``chat``) plus what the socket handler calls."""

    def __init__(self, storage: Storage, manager: TableManager, limits: RateLimits,
                 accounts: Accounts) -> None:
        self.engine = storage.engine
        self.storage = storage
        self.manager = manager
        self.limits = limits
        self.accounts = accounts
        self.users: weakref.WeakKeyDictionary[Connection, dict[str, Any]] = weakref.WeakKeyDictionary()
        self.muted: weakref.WeakKeyDictionary[Connection, set[int]] = weakref.WeakKeyDictionary()
        self._reads: dict[str, _Read] = {}  # per table, the history read not yet begun

    async def _db(self, fn: Any, *args: Any) -> Any:
        return fn(*args) if self.storage.inline else await asyncio.to_thread(fn, *args)

    # ----- storage ----------------------------------------------------------------------------
    def _insert(self, values: dict[str, Any]) -> dict[str, Any]:
        with self.engine.begin() as conn:
            new_id = conn.execute(insert(chat_t).values(**values)).inserted_primary_key[0]
        return _row_json({**values, "id": new_id})

    def _load(self, table_id: str, message_id: int | None = None) -> list[dict[str, Any]]:
        stmt = select(chat_t).where(chat_t.c.table_id == table_id)
        if message_id is not None:
            stmt = stmt.where(chat_t.c.id == message_id)
        with self.engine.connect() as conn:
            rows = conn.execute(stmt.order_by(chat_t.c.id.desc()).limit(HISTORY)).mappings().all()
        return [_row_json(r) for r in reversed(rows)]

    async def messages(self, table_id: str) -> list[dict[str, Any]]:
        """The table's chat (the last `HISTORY` messages), for replays."""
        return [_public(m) for m in await self._db(self._load, table_id)]

    # ----- sockets ----------------------------------------------------------------------------
    async def attach(self, t: LiveTable, conn: Connection, user: dict[str, Any] | None) -> None:
        """A socket said hello: remember its account and mutes, and send the chat so far."""
        if user is not None:
            self.users[conn] = user
            self.muted[conn] = await asyncio.to_thread(self.accounts.muted_ids, user["id"])
        history = await self._history(t.rec.id)
        self._push(t, history, only=conn, full=True)

    async def _history(self, table_id: str) -> list[dict[str, Any]]:
        """The table's chat, read after the caller's socket was attached: sockets of one table
        arriving together (a dead server's players, reconnecting here) share one read, as long
        as it has not begun when they ask (a read begun before a socket was attached could miss
        a message said in between, which reached only the sockets attached then)."""
        if self.storage.inline:
            return self._load(table_id)
        read = self._reads.get(table_id)
        if read is None or read.begun:
            read = self._reads[table_id] = _Read()

            def load() -> list[dict[str, Any]]:
                read.begun = True
                return self._load(table_id)

            read.task = asyncio.ensure_future(asyncio.to_thread(load))
            read.task.add_done_callback(
                lambda _t: self._reads.pop(table_id, None) if self._reads.get(table_id) is read
                else None)
        assert read.task is not None
        return await asyncio.shield(read.task)

    def set_muted(self, user_id: int, muted: set[int]) -> None:
        """A mute changed: every socket of that account on this server follows at once."""
        for conn, user in list(self.users.items()):
            if user["id"] == user_id:
                self.muted[conn] = muted

    async def say(self, t: LiveTable, conn: Connection, text: str) -> None:
        text = clean_text(text)
        user = self.users.get(conn)
        if conn.seat is not None:
            s = t.seat(conn.seat)
            name, user_id, key = s.name or f"Seat {conn.seat + 1}", s.user_id, \
                f"seat:{t.rec.id}:{conn.seat}"
            if user_id is not None:
                key = f"user:{user_id}"
        elif user is not None:
            name, user_id, key = user["username"], user["id"], f"user:{user['id']}"
        else:
            raise TableError("forbidden", "log in to chat as a spectator")
        await self.limits.hit("chat", key)
        msg = await self._db(self._insert, {
            "table_id": t.rec.id, "move": len(t.state.history), "seat": conn.seat,
            "user_id": user_id, "name": name, "text": text, "at": datetime.now(UTC)})
        self._push(t, [msg])
        if not isinstance(self.manager.bus, LocalBus):
            await self.manager.bus.publish({"table": t.rec.id, "chat": msg["id"]})

    def on_change(self, t: LiveTable) -> None:
        return None

    async def on_message(self, message: dict[str, Any]) -> None:
        """Another server stored a chat message: read it and tell this server's sockets."""
        chat_id = message.get("chat")
        t = self.manager.tables.get(str(message.get("table")))
        if t is None or not isinstance(chat_id, int):
            return
        msgs = await self._db(self._load, t.rec.id, chat_id)
        self._push(t, msgs)

    def _push(self, t: LiveTable, msgs: list[dict[str, Any]], only: Connection | None = None,
              full: bool = False) -> None:
        for c in [only] if only is not None else list(t.conns):
            if c.closed:
                continue
            muted = self.muted.get(c, set())
            mine = [_public(m) for m in msgs if m["_user"] is None or m["_user"] not in muted]
            if mine:
                c.push({"type": "chat", "table": t.rec.id, "full": full, "messages": mine})


class _Read:
    """One read of a table's chat history, shared by the sockets that asked before it began."""

    def __init__(self) -> None:
        self.begun = False  # set by the reading thread as its first step
        self.task: asyncio.Future[list[dict[str, Any]]] | None = None


def _public(m: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in m.items() if not k.startswith("_")}
