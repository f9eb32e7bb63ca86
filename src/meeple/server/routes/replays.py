"""A finished game: any step from any seat's view, and its record."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

import meeple
from meeple.core.text import seat_names

from ..deps import Svc, Table
from ..models import Replay
from ..tables import LiveTable, TableError

router = APIRouter()


@router.get("/api/tables/{table_id}/replay", response_model=Replay)
async def api_replay(
    table_id: str, svc: Svc, step: int | None = None, seat: int | None = None
) -> dict[str, Any]:
    """Any step of a finished game from any seat's view (nothing is secret any more)."""
    t = await svc.table(table_id)  # after the query is validated: a bad step is a 422
    if t.rec.status != "over":
        raise TableError("not_over", "replays open when the game is over")
    st = t.state
    total = len(st.history)
    step = total if step is None else step
    if not 0 <= step <= total or (seat is not None and not 0 <= seat < t.rec.players):
        raise TableError("bad_request", "no such step or seat")
    at = meeple.replay(st.record(), upto=step)
    return {
        "id": t.rec.id,
        "game": t.rec.game,
        "step": step,
        "steps": total,
        "seat": seat,
        "view": at.view(seat),
        "log": at.log(seat, names=t.names()),
        "to_move": at.to_move,
        "moves": [{"seat": s, "label": d} for s, d in _move_labels(t)],
        "seats": svc.manager.seats_json(t),
        "scores": st.scores(),
        "ranking": st.ranking(),
    }


@router.get("/api/tables/{table_id}/record")
async def api_record(t: Table) -> dict[str, Any]:
    if t.rec.status != "over":
        raise TableError("not_over", "the record is published when the game is over")
    return t.state.record(table=t.rec.id, seats=[s.name for s in t.rec.seats])


def _move_labels(t: LiveTable) -> list[tuple[int, str]]:
    st = meeple.make(t.rec.game, t.rec.players, t.rec.seed, **t.rec.options)
    out = []
    with seat_names(t.names()):
        for a in t.state.history:
            seat = st.to_move
            out.append((seat, st.describe(a)))
            st.apply(a)
    return out
