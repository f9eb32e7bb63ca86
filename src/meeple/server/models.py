"""Every message the server accepts, validated by pydantic with size limits.

Anything not matching these shapes is rejected before it reaches a table.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    TypeAdapter,
    field_validator,
)

from .clocks import Speed
from .policy import reads_as_label

NAME_MAX = 40


def clean_name(value: str) -> str:
    """A display name as others will see it: NFKC-normalised (full-width and compatibility
    forms folded, so look-alikes compare equal), spaces collapsed, 1-40 characters, with no
    control or format characters (category C*: bidi overrides, zero-width joiners, NUL...)
    and nothing that reads like a bot's or an empty seat's label."""
    name = unicodedata.normalize("NFKC", value)
    for ch in name:
        if unicodedata.category(ch).startswith(("C", "Zl", "Zp")) or ch in "<>":
            raise ValueError(f"a name may not contain U+{ord(ch):04X}")
    name = " ".join(name.split())
    if not name:
        raise ValueError("a name needs at least one visible character")
    if len(name) > NAME_MAX:
        raise ValueError(f"a name is at most {NAME_MAX} characters")
    # the labels the table shows for seats that are not a person ("Bot 3 (heuristic)",
    # "Seat 2"), read through case, look-alike letters and digits written for letters
    if reads_as_label(name):
        raise ValueError("a name may not look like a bot's or a seat's label")
    return name


Name = Annotated[str, Field(min_length=1, max_length=4 * NAME_MAX), AfterValidator(clean_name)]
Secret = Annotated[str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_\-]+$")]
SeatNo = Annotated[StrictInt, Field(ge=0, le=15)]
Level = Annotated[str, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_\-:.]+$")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SeatSpec(Strict):
    """``me``: the creator sits here; ``bot``: a bot of ``level``; ``open``: anyone may join."""

    kind: Literal["open", "bot", "me"] = "open"
    level: Level | None = None


class CreateTable(Strict):
    game: Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_]+$")]
    players: Annotated[StrictInt, Field(ge=1, le=16)]
    options: dict[Annotated[str, Field(max_length=64)], Any] = Field(default_factory=dict)
    seats: list[SeatSpec] = Field(default_factory=list, max_length=16)
    name: Name | None = None
    time_limit: Annotated[float, Field(gt=0, le=7 * 86400)] | None = None
    friends_only: bool = False  # open seats only for the host's friends (a logged-in host)
    speed: Speed | None = None  # real time or turn-based, and the time-out rule (clocks.py)

    @field_validator("options")
    @classmethod
    def _scalar_options(cls, value: dict[str, Any]) -> dict[str, Any]:
        if len(value) > 32:
            raise ValueError("too many options")
        for k, v in value.items():
            if not (v is None or isinstance(v, bool | int | float)
                    or (isinstance(v, str) and len(v) <= 64)):
                raise ValueError(f"option {k} must be a short scalar")
        return value


class Join(Strict):
    seat: SeatNo
    name: Name
    secret: Secret | None = None  # the secret of an invite link


class HostSeat(Strict):
    host: Secret
    seat: SeatNo
    level: Level | None = None


class Rematch(Strict):
    seat: SeatNo | None = None
    secret: Secret | None = None  # the account that holds ``seat`` needs none


# ----- WebSocket, client to server -----------------------------------------------------------
class Hello(Strict):
    type: Literal["hello"]
    seat: SeatNo | None = None
    secret: Secret | None = None


class Move(Strict):
    type: Literal["move"]
    action: Annotated[StrictInt, Field(ge=0, lt=1 << 31)]
    move: Annotated[StrictInt, Field(ge=0, lt=1 << 31)]  # the move number it answers (stale check)


class Undo(Strict):
    """Take back steps of my turn in progress (as far as the engine allows): by default the
    last one, or every step from move ``to`` on."""

    type: Literal["undo"]
    move: Annotated[StrictInt, Field(ge=0, lt=1 << 31)]  # the move number the table is at
    to: Annotated[StrictInt, Field(ge=0, lt=1 << 31)] | None = None


class Leave(Strict):
    """Hand my seat to a bot (BGA's zombie mode) until I reclaim it."""

    type: Literal["leave"]


class Reclaim(Strict):
    type: Literal["reclaim"]


class Vote(Strict):
    """Vote to replace the player of ``seat`` (out of time, or away too long) by a bot."""

    type: Literal["vote"]
    seat: SeatNo


class Ping(Strict):
    type: Literal["ping"]


class Say(Strict):
    """A chat message (cleaned and capped in `meeple.server.chat`)."""

    type: Literal["chat"]
    text: Annotated[str, Field(min_length=1, max_length=1000)]


ClientMessage = TypeAdapter(
    Annotated[Hello | Move | Undo | Leave | Reclaim | Vote | Ping | Say,
              Field(discriminator="type")]
)


# ----- answers ------------------------------------------------------------------------------------
# The shapes of the main lobby and table answers. Routes that use them leave out the fields their
# dict did not have (``response_model_exclude_unset``), so a key absent before stays absent.
# Numbers a client sends as it likes (seconds) are ``int | float``: an int stays an int.
Number = int | float


class SeatOut(BaseModel):
    seat: int
    kind: str
    name: str | None
    level: str | None
    zombie: bool
    account: bool
    bot_account: bool
    connected: bool | None = None  # live tables only (None: not counted)
    away: Number | None = None  # seconds since the seat's player left, while gone


class StoredTable(BaseModel):
    """A stored table as the lobby lists it."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    status: str
    time_limit: Number | None
    rematch: str | None
    seats: list[SeatOut]


class Lobby(BaseModel):
    open: list[StoredTable]
    running: list[StoredTable]
    over: list[StoredTable]


class TableSummary(BaseModel):
    """A live table as the lobby shows it: nothing hidden (no seed, no hands)."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    status: str
    move: int
    to_move: int | None
    seats: list[SeatOut]
    time_limit: Number | None
    rematch: str | None
    rematch_of: str | None
    speed: dict[str, Any] | None


class MyTable(TableSummary):
    seat: int
    my_turn: bool


class MyTables(BaseModel):
    tables: list[MyTable]


class Created(BaseModel):
    """A new table: its host secret, and the creator's seat if they took one."""

    id: str
    host: str
    table: TableSummary
    seat: int | None = None
    secret: str | None = None


class Seated(BaseModel):
    id: str
    seat: int
    secret: str | None


class Invited(Seated):
    link: str


class RematchAnswer(BaseModel):
    id: str
    host: str | None = None
    seat: int | None = None
    secret: str | None = None


class MoveLabel(BaseModel):
    seat: int | None
    label: str


class Replay(BaseModel):
    id: str
    game: str
    step: int
    steps: int
    seat: int | None
    view: Any
    log: list[dict[str, Any]]
    to_move: int | None
    moves: list[MoveLabel]
    seats: list[SeatOut]
    scores: Any
    ranking: Any
