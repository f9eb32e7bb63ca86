"""Karvi's reconstructed edition, read from the JSON data files in this folder.

The rulebook's pictures are lost, so every component value lives in data with its provenance
(``prov``): an owner of the printed game can correct values there without touching code. This
module only loads and indexes them; the rules read the tables below.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def _load(name: str) -> dict[str, Any]:
    return json.loads(resources.files(__package__).joinpath(name).read_text(encoding="utf-8"))


BOARD = _load("board.json")
ACTION_BOARDS = _load("action_boards.json")
CARDS = _load("cards.json")
TILES = _load("tiles.json")
TRACKS = _load("tracks.json")
SCORING = _load("scoring.json")

TRADE_GOODS: list[str] = BOARD["trade_goods"]
RAID_TARGETS: list[str] = BOARD["raid_targets"]

UPGRADE_CARDS: list[dict[str, Any]] = CARDS["upgrade"]  # index i is card number i + 1
CARD_TYPES = ("helmet", "beer", "ship")
TRADE_CARDS: list[dict[str, Any]] = CARDS["trade"]
START_CARDS: list[dict[str, Any]] = CARDS["start"]

# Trade tiles are ids 0..23, raid tiles 24..47: one id space for scouting and activation.
TRADE_TILES: list[dict[str, Any]] = TILES["trade"]
RAID_TILES: list[dict[str, Any]] = TILES["raid"]
NUM_TR = len(TRADE_TILES)
TR_TILES = TRADE_TILES + RAID_TILES
# The kind of a trade/raid tile as an index 0..11 (trade goods first, then raid targets).
KINDS = [("trade", g) for g in TRADE_GOODS] + [("raid", r) for r in RAID_TARGETS]
TILE_KIND = [KINDS.index(("trade", t["kind"])) for t in TRADE_TILES] + [
    KINDS.index(("raid", t["kind"])) for t in RAID_TILES
]

# Upgrade tiles are ids 0..23, normal rune stones 24..35 (placed by the upgrade-action).
UPGRADE_TILES: list[dict[str, Any]] = TILES["upgrade"]
RUNES: list[dict[str, Any]] = TILES["runes"]
SPECIALS: list[dict[str, Any]] = TILES["specials"]
SLOTS = ("stern", "sail", "head")
NUM_UT = len(UPGRADE_TILES)
NUM_PLACEABLE = NUM_UT + len(RUNES)

TABLEAU = SCORING["tableau"]
WARRIOR_SPACES: int = TABLEAU["warrior_spaces"]
MAX_PROVISIONS: int = TABLEAU["max_provisions"]
WARRIOR_SUPPLY: int = TABLEAU["warrior_supply"]
RUNE_SPOTS: list[dict[str, Any]] = TABLEAU["rune_spots"]
SLOT_COST = {s: TABLEAU["slots"][s]["cost"] for s in SLOTS}
SLOT_POINTS = {s: TABLEAU["slots"][s]["points"] for s in SLOTS}
ROUNDS = {int(k): v for k, v in SCORING["rounds"].items() if k.isdigit()}
DICE = {int(k): v for k, v in SCORING["dice"].items() if k.isdigit()}
START_POSITIONS = {int(k): v for k, v in SCORING["start_positions"].items() if k.isdigit()}

TRADE_TRACK: list[dict[str, Any]] = TRACKS["trade"]["spaces"]
RAID_TRACK: list[dict[str, Any]] = TRACKS["raid"]["spaces"]
START_BEER: int = TRACKS["trade"]["start"]["beer"]
START_PROVISIONS: int = TRACKS["raid"]["start"]["provisions"]

STOP_POSITIONS: int = ACTION_BOARDS["stop_area"]["positions"]
STOP_TILES: list[dict[str, Any]] = ACTION_BOARDS["stop_area"]["tiles"]
VILLAGE_STOP: list[dict[str, Any]] = ACTION_BOARDS["stop_area"]["village"]
BOARD_ORDER: list[str] = ACTION_BOARDS["order"]


def side(players: int) -> dict[str, Any]:
    """The game-board side for this player count (Setup 1)."""
    return BOARD["sides"]["4" if players == 4 else "2-3"]


def track_spots(sides: dict[str, str], order: list[str] | None = None) -> list[dict[str, Any]]:
    """The action spots clockwise from the stop area, for the chosen board sides ('A'/'B')."""
    spots: list[dict[str, Any]] = []
    for name in order or BOARD_ORDER:
        b = ACTION_BOARDS["boards"][name]
        spots += b["fixed"] if "fixed" in b else b[sides[name]]
    return spots


def with_provenance() -> list[tuple[str, dict[str, Any]]]:
    """Every data record that must carry a provenance, as (where, record) pairs (for tests)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for s, b in BOARD["sides"].items():
        out += [(f"board {s} {sp['name']}", sp) for sp in b["spots"]]
    for name, b in ACTION_BOARDS["boards"].items():
        for face, spots in b.items():
            out += [(f"{name} {face} {i}", sp) for i, sp in enumerate(spots)]
    for i, t in enumerate(STOP_TILES):
        for face in ("A", "B"):
            out += [(f"stop tile {i} {face} {j}", sp) for j, sp in enumerate(t[face])]
    out += [(f"village stop {j}", sp) for j, sp in enumerate(VILLAGE_STOP)]
    out += [(f"upgrade card {c['number']}", c) for c in UPGRADE_CARDS]
    out += [(f"trade card {c['number']}", c) for c in TRADE_CARDS]
    out += [(f"start card {c['value']}", c) for c in START_CARDS]
    for key in ("trade", "raid", "upgrade", "runes", "specials"):
        out += [(f"{key} tile {i}", t) for i, t in enumerate(TILES[key])]
    for key in ("trade", "raid"):
        out += [(f"{key} track space {i + 1}", sp) for i, sp in enumerate(TRACKS[key]["spaces"])]
    out += [(f"slot {s}", TABLEAU["slots"][s]) for s in SLOTS]
    out += [(f"rune spot {i}", r) for i, r in enumerate(RUNE_SPOTS)]
    out += [(f"final scoring {f['line']}", f) for f in SCORING["final"]]
    return out
