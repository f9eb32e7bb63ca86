"""Time as Board Game Arena keeps it: each table's speed, its clocks, time-outs and votes.

A table's *speed*, chosen at creation (``Speed``), is one of:

- **real time**: each seat has a clock, a starting ``bank`` plus an ``increment`` per turn, that
  runs only while that seat is to move;
- **turn-based**: a deadline ``per_move`` for each turn (24 h, 72 h...);
- either of the two without a clock (nobody runs out of time).

When a clock runs out, the table follows its ``on_timeout`` rule: ``skip`` (a bot plays that one
turn, the seat stays its player's) or ``vote`` (the others may vote to replace the player by a
bot for good; with nobody to vote, the turn is skipped). A person away from the table (no socket
on any server) for ``absent`` seconds (by default 5 minutes real time, 3 days turn-based) may be
replaced by the others' vote too, on any table, matched ones included: no host is needed.
Nobody is made a zombie by the clock: a player who comes back finds their seat theirs.

The clocks are the server's, kept in the database so that any server can drive a table: the
``deadline`` column is when the seat to move runs out, and ``clocks`` (JSON text) holds each
seat's bank as its last turn ended, the seat whose turn a bot is playing, the seats whose clock
ran out this turn, and the votes cast at the current move. A move writes both in the move's own
statement; time-outs and votes are decided in one transaction on the table's row
(`TableManager.change`). Who left or timed out is kept in ``meeple_abandons``: ratings count
those players last (`places`), profiles show it (`reliability`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import Column, Float, Integer, String, Table, func, insert, select

from .storage import SeatRecord, TableRecord, count_actions, holds_lease, metadata, presence_t

if TYPE_CHECKING:
    from .tables import LiveTable, TableManager

# a limit per move under this many seconds was real time, at or over it turn-based
TURN_BASED_FROM = 3600.0

abandons_t = Table(
    "meeple_abandons",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, nullable=True, index=True),
    Column("reason", String(16), nullable=False),  # timeout | replaced | left
    Column("at", Float, nullable=False),
)


class Speed(BaseModel):
    """A table's speed as the creator asks for it (``POST /api/tables``, ``speed``)."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["realtime", "turn"] = "realtime"
    # real time: each clock's starting bank and what each turn adds (None: no clock)
    bank: Annotated[float, Field(ge=1, le=6 * 3600)] | None = None
    increment: Annotated[float, Field(ge=0, le=3600)] = 0.0
    # turn-based: the time for each turn (None: no deadline)
    per_move: Annotated[float, Field(ge=60, le=14 * 86400)] | None = None
    on_timeout: Literal["skip", "vote"] = "skip"
    # how long a person may be away before the others may vote them out (None: the server's
    # default for the mode)
    absent: Annotated[float, Field(ge=30, le=30 * 86400)] | None = None

    @model_validator(mode="after")
    def _one_kind_of_clock(self) -> Speed:
        if self.mode == "realtime" and self.per_move is not None:
            raise ValueError("a real-time table has a bank and an increment, not a time per move")
        if self.mode == "turn" and (self.bank is not None or self.increment):
            raise ValueError("a turn-based table has a time per move, not a bank")
        return self


NO_CLOCK = Speed().model_dump()  # real time without a clock: a table made with no speed


def legacy(time_limit: float | None) -> dict[str, Any] | None:
    """The speed of a table created with a time per move (``time_limit``): under an hour a
    real-time clock of that bank and that increment (never less time than before), from an
    hour on a turn-based deadline of that length; a turn that runs out is skipped."""
    if not time_limit:
        return None
    if time_limit < TURN_BASED_FROM:
        return {"mode": "realtime", "bank": time_limit, "increment": time_limit,
                "per_move": None, "on_timeout": "skip", "absent": None}
    return {"mode": "turn", "bank": None, "increment": 0.0, "per_move": time_limit,
            "on_timeout": "skip", "absent": None}


def settle(speed: dict[str, Any] | None, time_limit: float | None
           ) -> tuple[dict[str, Any] | None, float | None]:
    """What a new table stores: its speed, and a ``time_limit`` that is set exactly when the
    table has a clock (the lease code drives such tables: someone must run the clock)."""
    if speed is None:
        return legacy(time_limit), time_limit
    speed = Speed.model_validate(speed).model_dump()
    return speed, speed["bank"] if speed["mode"] == "realtime" else speed["per_move"]


def speed_of(rec: TableRecord) -> dict[str, Any]:
    """The table's speed (read only: shared between tables that have none of their own)."""
    return rec.speed or legacy(rec.time_limit) or NO_CLOCK


def has_clock(speed: dict[str, Any]) -> bool:
    return bool(speed.get("bank") if speed.get("mode") == "realtime" else speed.get("per_move"))


def refill(speed: dict[str, Any]) -> float:
    """A real-time bank after a skipped turn: the increment, and at least a tenth of the
    starting bank, so a player who comes back is not skipped again at once."""
    return max(float(speed.get("increment") or 0.0), 0.1 * float(speed.get("bank") or 0.0))


@lru_cache(maxsize=4096)
def _parsed(text: str) -> dict[str, Any]:
    return json.loads(text)


def state_of(rec: TableRecord) -> dict[str, Any]:
    """The clocks' state (a fresh copy: change it and `dump` it back to ``rec.clocks``)."""
    return json.loads(rec.clocks) if rec.clocks else {}


def _peek(rec: TableRecord) -> dict[str, Any]:
    """The clocks' state, read only (cached: it is read for every message)."""
    return _parsed(rec.clocks) if rec.clocks else {}


def dump(state: dict[str, Any]) -> str:
    return json.dumps(state, separators=(",", ":"), sort_keys=True)


def skipping(rec: TableRecord) -> int | None:
    """The seat whose turn a bot is playing because its clock ran out."""
    return _peek(rec).get("skip")


def timed_out(rec: TableRecord) -> list[int]:
    """The seats whose clock ran out this turn under the ``vote`` rule (not timed again)."""
    return list(_peek(rec).get("out") or [])


def _banks(rec: TableRecord, state: dict[str, Any], speed: dict[str, Any]) -> list[float]:
    return list(state.get("banks") or [float(speed["bank"])] * rec.players)


# ----- the arithmetic ---------------------------------------------------------------------------
def start(rec: TableRecord, now: float) -> None:
    """Play starts: every clock at its bank, the first mover's running."""
    speed = speed_of(rec)
    if not has_clock(speed):
        rec.deadline = None
    elif speed["mode"] == "realtime":
        rec.clocks = dump({**state_of(rec), "banks": [float(speed["bank"])] * rec.players})
        rec.deadline = now + float(speed["bank"])
    else:
        rec.deadline = now + float(speed["per_move"])


def after_move(t: LiveTable, action: int, now: float) -> tuple[float | None, str | None]:
    """The deadline and clocks' state once the seat to move plays ``action``; state None when
    unchanged. While the same seat goes on with its turn its clock runs on (an undo gives
    steps back, never time); when the turn passes, the mover's bank keeps what was left plus
    the increment (after a skipped turn: `refill`) and the next seat's clock starts."""
    speed = speed_of(t.rec)
    if not has_clock(speed):
        return None, None
    st = t.state
    mover = st.to_move
    after = st.clone()
    after.apply(action)
    nxt = None if after.is_over() else after.to_move
    if nxt == mover:
        return t.deadline, None
    state = state_of(t.rec)
    if speed["mode"] == "realtime":
        banks = _banks(t.rec, state, speed)
        if mover is not None:
            if state.get("skip") == mover:
                banks[mover] = refill(speed)
            else:
                left = banks[mover] if t.deadline is None else max(0.0, t.deadline - now)
                banks[mover] = left + float(speed["increment"] or 0.0)
        state["banks"] = banks
        deadline = None if nxt is None else now + banks[nxt]
    else:
        deadline = None if nxt is None else now + float(speed["per_move"])
    state.pop("skip", None)
    state.pop("out", None)
    return deadline, dump(state)


def remaining(t: LiveTable, now: float) -> list[float | None] | None:
    """Each seat's time left on a real-time table (the mover's counted to ``now``)."""
    speed = speed_of(t.rec)
    if speed["mode"] != "realtime" or not has_clock(speed):
        return None
    banks: list[float | None] = list(_banks(t.rec, _peek(t.rec), speed))
    mover = t.state.to_move
    if t.rec.status == "running" and mover is not None and t.deadline is not None:
        banks[mover] = max(0.0, t.deadline - now)
    return [None if b is None else round(b, 3) for b in banks]


def reclaimed_deadline(rec: TableRecord, now: float) -> float | None:
    """A seat taken back from the bot that played it: a deadline that passed meanwhile (the
    clock does not fire for a seat a bot plays) starts again from now."""
    speed = speed_of(rec)
    if not has_clock(speed) or rec.deadline is None or rec.deadline > now:
        return rec.deadline
    if speed["mode"] == "realtime":
        return now + refill(speed)
    return now + float(speed["per_move"])


# ----- what each seat is shown ----------------------------------------------------------------
def absent_after(manager: TableManager, speed: dict[str, Any]) -> float:
    if speed.get("absent"):
        return float(speed["absent"])
    s = manager.settings
    return s.absent_turn_seconds if speed.get("mode") == "turn" else s.absent_seconds


def view(manager: TableManager, t: LiveTable) -> dict[str, Any]:
    """The clock part of a state message: the same for every seat and spectator."""
    speed = speed_of(t.rec)
    state = _peek(t.rec)
    n = len(t.state.history)
    votes = (state.get("votes") or {}) if state.get("vote_move") == n else {}
    return {
        "speed": {**speed, "absent": absent_after(manager, speed)},
        "clocks": remaining(t, manager.storage.clock.now()),
        "server_now": manager.storage.clock.now(),  # the page counts from the server's clock
        "skipping": state.get("skip"),
        "timed_out": state.get("out") or [],
        "votes": {k: len(v) for k, v in votes.items()},
    }


# ----- time-outs and votes ----------------------------------------------------------------------
class _Nothing(Exception):
    """Nothing to do after all (the transaction rolls back)."""


class _NotDriver(Exception):
    """The clock fired on a server that no longer holds the table's lease."""


def record_abandon(conn: Any, table_id: str, seat: int, user_id: int | None, reason: str,
                   at: float) -> None:
    """Note that a seat's player timed out, was replaced or left (the first reason stays):
    inside the caller's transaction, on the table's locked row."""
    if conn.execute(select(abandons_t.c.seat).where(
            abandons_t.c.table_id == table_id, abandons_t.c.seat == seat)).first() is None:
        conn.execute(insert(abandons_t).values(table_id=table_id, seat=seat, user_id=user_id,
                                               reason=reason, at=at))


def _voters(rec: TableRecord, target: int) -> list[int]:
    """The seats that may vote on ``target``: the other people who play their own seat."""
    return [s.seat for s in rec.seats if s.seat != target and s.kind == "human" and not s.zombie]


async def time_out(manager: TableManager, t: LiveTable, seat: int, n: int) -> bool:
    """The seat to move ran out of time at move ``n``: skip its turn (a bot plays it) or, under
    the ``vote`` rule with someone to vote, let the others vote. Only the lease holder decides,
    and only once the *stored* deadline has passed (a server that hung may wake with a timer
    for a deadline another server has since moved on). True if it changed anything."""
    now = manager.storage.clock.now()

    def decide(rec: TableRecord, conn: Any) -> None:
        s = rec.seats[seat]
        if s.kind != "human" or s.zombie or rec.status != "running":
            raise _Nothing
        if count_actions(conn, rec.id) != n:
            raise _Nothing
        if not holds_lease(conn, rec.id, manager.leases.holder):
            raise _NotDriver
        if rec.deadline is None or rec.deadline > now + 0.05:
            raise _Nothing
        state = state_of(rec)
        if state.get("skip") == seat or seat in (state.get("out") or []):
            raise _Nothing
        speed = speed_of(rec)
        if speed["mode"] == "realtime" and has_clock(speed):
            banks = _banks(rec, state, speed)
            banks[seat] = 0.0
            state["banks"] = banks
        if speed["on_timeout"] == "vote" and _voters(rec, seat):
            state["out"] = sorted({*(state.get("out") or []), seat})
        else:
            state["skip"] = seat
        record_abandon(conn, rec.id, seat, s.user_id, "timeout", now)
        rec.clocks = dump(state)

    try:
        await manager.change(t, decide)
    except _NotDriver:
        manager.leases.mine.discard(t.rec.id)
        manager.metrics.not_driver.inc()
        manager.bots.stop(t)
        return False
    except _Nothing:
        return False
    return True


def _away(manager: TableManager, t: LiveTable, conn: Any, seat: int, now: float) -> float:
    """How long a person's seat has had no socket on any server (0: here now)."""
    since = t.gone_since.get(seat)
    if since is None or seat in manager.presence.present(t):
        return 0.0
    seen = conn.execute(select(presence_t.c.seen_at).where(
        presence_t.c.table_id == t.rec.id, presence_t.c.seat == seat)).scalar()
    return max(0.0, now - max(since, seen if seen is not None else since))


async def vote(manager: TableManager, t: LiveTable, voter: int, target: int) -> dict[str, Any]:
    """``voter`` votes to replace ``target`` by a bot for good: allowed when the target's clock
    ran out under the ``vote`` rule, or the target has been away longer than the table's
    ``absent`` time. A majority of the other people at the table (those with it open, the voter
    included) replaces them; votes count at the move they were cast only (anything played
    since makes the question new)."""
    from .bot_seats import zombie_level
    from .tables import TableError

    if voter == target or not 0 <= target < t.rec.players:
        raise TableError("bad_seat", "vote on another seat")
    shown = manager.presence.shown(t)
    now = manager.storage.clock.now()
    level = zombie_level(t.rec.game)

    def decide(rec: TableRecord, conn: Any) -> dict[str, Any]:
        if rec.status != "running":
            raise TableError("not_running", f"the table is {rec.status}")
        s, me = rec.seats[target], rec.seats[voter]
        if me.kind != "human" or me.zombie:
            raise TableError("forbidden", "only a player at the table may vote")
        if s.kind != "human":
            raise TableError("bad_seat", f"seat {target} is not a person's")
        state = state_of(rec)
        wait = absent_after(manager, speed_of(rec))
        if target not in (state.get("out") or []) and _away(manager, t, conn, target, now) < wait:
            raise TableError("not_gone", f"a player may be voted out once their clock ran out "
                                         f"or after {wait:g} s away")
        n = count_actions(conn, rec.id)
        votes = (state.get("votes") or {}) if state.get("vote_move") == n else {}
        here = {v for v in _voters(rec, target) if v in shown} | {voter}
        ayes = {*votes.get(str(target), []), voter} & here
        needed = len(here) // 2 + 1
        if len(ayes) >= needed:
            rec.seats[target] = SeatRecord(target, "bot", name=f"Bot {target + 1} ({level})",
                                           level=level)
            record_abandon(conn, rec.id, target, s.user_id, "replaced", now)
            votes.pop(str(target), None)
            state["out"] = [x for x in state.get("out") or [] if x != target]
            if state.get("skip") == target:
                state.pop("skip")
        else:
            votes[str(target)] = sorted(ayes)
        state["votes"], state["vote_move"] = votes, n
        rec.clocks = dump(state)
        return {"replaced": len(ayes) >= needed, "votes": len(ayes), "needed": needed}

    out: dict[str, Any] = await manager.change(t, decide)
    return out


# ----- ratings and profiles ---------------------------------------------------------------------
def penalized(conn: Any, table_id: str, seats: list[tuple[str, int | None, bool]],
              at: float) -> dict[int, int | None]:
    """At a game's end: the seats whose player timed out, was replaced or left (a seat a bot
    still plays for its player counts as left, and is noted so), with the account of each."""
    rows = conn.execute(select(abandons_t.c.seat, abandons_t.c.user_id).where(
        abandons_t.c.table_id == table_id)).all()
    out = {int(seat): user for seat, user in rows}
    for n, (kind, user, zombie) in enumerate(seats):
        if kind == "human" and zombie and n not in out:
            record_abandon(conn, table_id, n, user, "left", at)
            out[n] = user
    return out


def places(ranking: list[int], last: set[int]) -> list[int]:
    """The places ratings count: the players in ``last`` (who left or timed out) share the last
    place; everyone else keeps their order (and ties) ahead of them."""
    kept = [r for n, r in enumerate(ranking) if n not in last]
    return [len(kept) + 1 if n in last else 1 + sum(k < r for k in kept)
            for n, r in enumerate(ranking)]


def reliability(conn: Any, user_id: int) -> dict[str, int]:
    """BGA's reliability for a profile: games this account left (or was voted out of after
    being away) and games in which its clock ran out."""
    rows = dict(conn.execute(select(abandons_t.c.reason, func.count()).where(
        abandons_t.c.user_id == user_id).group_by(abandons_t.c.reason)).all())
    return {"abandoned": int(rows.get("left", 0)) + int(rows.get("replaced", 0)),
            "timed_out": int(rows.get("timeout", 0))}
