"""Karvi's own observation tensor (the interop hook; layout in docs/interop.md, "Karvi").

The generic encoder builds the ~5 KB JSON view and walks it every step; this reads the state's
fields directly. It encodes what `view(player)` shows and nothing more: others' hands only as
card backs, others' face-down tiles and rune stones only as their backs, a location's stack
only if the observer has looked at it, a Less-luck pile only while the observer holds it, the
stop-area tiles only by the one on top and how many are left. A determinized state therefore
gives the same tensor. Players are *relative*: row 0 is the observer (player 0 for the
spectator), row k the player k seats after them; dice follow the same order.

What is static for a configuration and derived from the board (the track's printed costs and
parts, the stop-area spots) is encoded by what determines it: the board order and sides and
the stop tile on top. The order inside a player's trade and raid tracks is not kept (a set).
"""

from __future__ import annotations

import marshal
from functools import cache
from typing import Any

import numpy as np

from meeple.core.hooks import TensorHooks
from meeple.core.layout import offsets

from . import components as C
from .effects import FREE_MOVE, STACK_MOVE
from .rules import MAX_SPOTS, RUNE_BACK, TILE_BACK, KarviState
from .words import event_dict

_NT = C.NUM_TR * 2  # trade and raid tiles
_NU = C.NUM_UT  # upgrade tiles
_NR = len(C.RUNES)
_NS = len(C.SPECIALS)
_NC = len(C.UPGRADE_CARDS)
_NTC = len(C.TRADE_CARDS)
_BACKS = sorted(set(TILE_BACK) | set(RUNE_BACK))
_TILE_BACK = [_BACKS.index(b) for b in TILE_BACK]
_RUNE_BACK = [_BACKS.index(b) for b in RUNE_BACK]
_CARD_BACK = [C.CARD_TYPES.index(c["type"]) * 2 + c["level"] - 1 for c in C.UPGRADE_CARDS]
_BOARDS = sorted(C.BOARD_ORDER)
_PILES = ("runes", *C.SLOTS)
_ABILITIES = ("sail_any", "sail_two", "die_minus_two")
_START_VALUES = [c["value"] for c in C.START_CARDS]
# The stop-area tiles' faces (tile i, side A/B) and the village's own stop spots.
_STOP_FACES = [t[f] for t in C.STOP_TILES for f in ("A", "B")] + [C.VILLAGE_STOP]
_STOP_ID = {id(f): i for i, f in enumerate(_STOP_FACES)}
# The pending decision's kind (the rules' task names; unknown ones go to `other`).
TASK_KINDS = (
    "any_spot",
    "beer",
    "boxes",
    "choice2",
    "copy_die",
    "copy_from",
    "damage",
    "die_back",
    "discard2",
    "displace",
    "double",
    "draft",
    "flip_for",
    "free_rune",
    "heal",
    "join",
    "keep",
    "location",
    "locked",
    "map_jump",
    "minus_two",
    "move",
    "paid_move",
    "parts",
    "pass_piles",
    "pay_die",
    "pick",
    "place_warrior",
    "prov_pts",
    "raid_action",
    "res",
    "reuse",
    "rune_spot",
    "sacrifice",
    "scout",
    "set_die",
    "special_choose",
    "special_spot",
    "steps",
    "strength",
    "trade_action",
    "trade_card",
    "upcard",
    "upgrade_action",
)
_TASK = {k: i for i, k in enumerate(TASK_KINDS)}
_WITH_N = {"res", "beer", "strength", "heal", "damage", "trade_card", "upcard", "double"}

# Per die: position one-hot (track spots, then the stop area), beer / 8, done, height, moving.
DIE = MAX_SPOTS + 4
# Per player: fur, silver, gold / 10, provisions / 6, 12 warrior classes / 6, strength / 36,
# points / 100, map, exception, hand size / 10, 6 card backs / 5, start card one-hot (5),
# towers supply, tableau, posts supply, tableau / 3, played (45), trade cards (36), trade track,
# raid track, beside (48 each), upgrade tiles in slots (24: 1 on top, 0.5 covered), rune spots
# (4 x (12 runes + 8 specials): 1 on top, 0.5 covered), face-down backs (counts / 3), then the
# observer's own secrets (zero for others): hand (45), face-down tiles (24) and runes (12), the
# two cards to keep from (45).
_PLAYER_FIELDS = [
    ("res", 3),
    ("prov", 1),
    ("war", 12),
    ("strength", 1),
    ("points", 1),
    ("map", 1),
    ("exception", 1),
    ("hand_size", 1),
    ("backs", 6),
    ("start", len(_START_VALUES)),
    ("build", 4),
    ("played", _NC),
    ("trade_cards", _NTC),
    ("trade_track", _NT),
    ("raid_track", _NT),
    ("beside", _NT),
    ("slots", _NU),
    ("rune_spots", len(C.RUNE_SPOTS) * (_NR + _NS)),
    ("face_down", len(_BACKS)),
    ("hand", _NC),
    ("hidden_ut", _NU),
    ("hidden_runes", _NR),
    ("keep_from", _NC),
]
PF: dict[str, int] = {}
_n = 0
for _name, _size in _PLAYER_FIELDS:
    PF[_name] = _n
    _n += _size
PLAYER = _n


@cache
def _layout(players: int) -> dict[str, int]:
    """Offsets of each block for ``players`` (the shape depends only on the player count)."""
    n = players
    nodes = len(C.side(n)["spots"])
    sizes = [
        ("players", n * PLAYER),
        ("dice", n * C.DICE[n] * DIE),
        # Per node: ships, towers, posts, site markers per relative player, stack size / 4,
        # stack known to me, special stack size / 4, special stack known to me.
        ("nodes", nodes * (4 * n + 4)),
        ("tiles", _NT * 2),  # per trade/raid tile: in a stack I looked at, its node / nodes
        ("specials", _NS * 3),  # per special rune: in a stack I looked at, node / nodes, discarded
        ("to_move", n),
        ("scores", n),
        ("misc", 3),  # round / rounds, over, stop tiles left / 3
        ("turn", 4 + len(_ABILITIES)),  # moved, ship moved, free move, stack move, abilities used
        ("decision", len(TASK_KINDS) + 3),  # kind one-hot + other, n / 6, stone / 36
        ("boards", 5 * (len(_BOARDS) + 1)),  # per board position: which board, B side
        ("stop", len(_STOP_FACES)),
        ("blocked", MAX_SPOTS),
        ("display", _NTC),
        ("decks", 1 + 2 * len(C.CARD_TYPES)),  # trade deck / 36; per upgrade deck level 1, 2 / 15
        ("start_pool", len(_START_VALUES)),
        ("piles", len(_PILES) * (n + 1)),  # holder (relative), size / 12
        ("my_piles", _NR + _NU),  # the contents of the piles I hold
    ]
    return {"node_count": nodes, **offsets(sizes)}


def observation_tensor_shape(players: int, options: dict[str, Any]) -> tuple[int, ...]:
    """Flat (see docs/interop.md for the blocks)."""
    return (_layout(players)["size"],)


def _stop_index(state: KarviState) -> int:
    top = state.stop_spots()
    i = _STOP_ID.get(id(top))
    return i if i is not None else _STOP_FACES.index(top)  # a restored state has equal copies


def observation_tensor(state: KarviState, player: int | None) -> np.ndarray:
    """``state`` as ``player`` (None: a spectator) may know it, as float32 in [0, 1]."""
    n = state.players
    lay = _layout(n)
    me = 0 if player is None else player
    ones: list[int] = []  # slots that are 1
    idx: list[int] = []  # slots with another value, in `val`
    val: list[float] = []
    nodes = lay["node_count"]
    node_at = lay["nodes"]
    stride = 4 * n + 4
    out = np.zeros(lay["size"], np.float32)
    # The parts that change on few steps are cached as dense blocks and copied in: the map
    # first (the players' ships and buildings are set on top of it), the supply, the rows.
    out[node_at : lay["to_move"]] = _map(state, player, me, n, lay, nodes, node_at, stride)
    out[lay["display"] :] = _public_supply(state, player, me, n, lay)
    _players(state, player, me, n, lay["players"], out, ones, node_at, stride)
    _rest(state, me, n, lay, ones, idx, val)
    out.put(idx, val)
    out.put(ones, 1.0)
    return out


def _store(cache: dict[Any, np.ndarray], key: Any, block: np.ndarray) -> None:
    """Keep ``block`` under ``key``; a full cache starts over (cheap, and bounds memory)."""
    if len(cache) >= _ROWS_MAX:
        cache.clear()
    cache[key] = block


def _dense(size: int, base: int, ones: list[int], idx: list[int], val: list[float]) -> np.ndarray:
    """A block of ``size`` floats from slots given as offsets from ``base``."""
    block = np.zeros(size, np.float32)
    block.put([i - base for i in idx] if base else idx, val)
    block.put([i - base for i in ones] if base else ones, 1.0)
    return block


# Field offsets inside a player row, as module constants for the hot loop.
_RES, _PROV, _WAR, _STR, _PTS, _MAP = (
    PF["res"],
    PF["prov"],
    PF["war"],
    PF["strength"],
    PF["points"],
    PF["map"],
)
_EXC, _HS, _BACKS_AT, _START, _BUILD = (
    PF["exception"],
    PF["hand_size"],
    PF["backs"],
    PF["start"],
    PF["build"],
)
_PLAYED, _TC, _TT, _RT, _BES = (
    PF["played"],
    PF["trade_cards"],
    PF["trade_track"],
    PF["raid_track"],
    PF["beside"],
)
_SLOTS, _RS, _FACE, _HAND = PF["slots"], PF["rune_spots"], PF["face_down"], PF["hand"]
_HUT, _HR, _KEEP = PF["hidden_ut"], PF["hidden_runes"], PF["keep_from"]
_RSW = _NR + _NS
# x / k clipped to 1, looked up (cheaper than min() on the hot path); index with x < 64.
_BY3, _BY5, _BY6, _BY10 = ([min(1.0, i / k) for i in range(64)] for k in (3, 5, 6, 10))
_BY36 = [min(1.0, i / 36) for i in range(128)]
_BY100 = [min(1.0, i / 100) for i in range(512)]
_START_AT = {v: i for i, v in enumerate(_START_VALUES)}


_ROWS: dict[tuple[Any, ...], np.ndarray] = {}
_ROWS_MAX = 2048  # entries per cache (rows, maps, supplies) before it starts afresh


def _players(
    state: KarviState,
    player: int | None,
    me: int,
    n: int,
    base: int,
    out: np.ndarray,
    ones: list[int],
    node_at: int,
    stride: int,
) -> None:
    """The player rows (copied into ``out``) and their ships and buildings on the map.

    A row changes only when its player's tableau does, so rows are cached (dense, whoever
    observes and wherever they sit) by everything they are computed from: the key lists every
    field `_row` reads."""
    keep = player is not None and bool(state.tasks) and state.tasks[-1][0] == "keep"
    if _TAILS[0] is state and _TAILS[1] == len(state.history):
        tails, seen_rows = _TAILS[2], _TAILS[3]
    else:  # what each row is computed from, less the observer: once per position
        tails, seen_rows = [_tail(pl) for pl in state.tableaus], {}
        _TAILS[:] = [state, len(state.history), tails, seen_rows]
    for q, pl in enumerate(state.tableaus):
        rel = (q - me) % n
        own = q == player
        if not own:  # the row as others see it: looked up once per position
            row = seen_rows.get(q)
            if row is None:
                row = seen_rows[q] = _seen_row(pl, tails[q])
            b = base + rel * PLAYER
            out[b : b + PLAYER] = row
            ones.append(node_at + pl.ship * stride + rel)
            for node, kind in pl.built:
                ones.append(node_at + node * stride + (n if kind == "tower" else 2 * n) + rel)
            continue
        key = (own, own and keep, *tails[q])
        row = _ROWS.get(key)
        if row is None:
            parts: tuple[list[int], list[int], list[float]] = ([], [], [])
            _row(pl, own, own and keep, *parts)
            row = _dense(PLAYER, 0, *parts)
            _store(_ROWS, key, row)
            if own:  # others will see this row too: the same without the observer-only blocks
                seen = row.copy()
                seen[_HAND:] = 0.0
                _ROWS[(False, False, *key[2:])] = seen
        b = base + rel * PLAYER
        out[b : b + PLAYER] = row
        # The player's ship and buildings on the map.
        ones.append(node_at + pl.ship * stride + rel)
        for node, kind in pl.built:
            ones.append(node_at + node * stride + (n if kind == "tower" else 2 * n) + rel)


# The last position's row keys less the observer part (`_tail` per player) and the rows as
# others see them, by player: (the state object, its history length, the keys, the rows). A
# state changes only by `apply`, which lengthens its history; the reference keeps the id from
# reuse.
_TAILS: list[Any] = [None, -1, None, None]


def _seen_row(pl: Any, tail: tuple[Any, ...]) -> np.ndarray:
    """A player's row as the others see it (cached in `_ROWS` like the observer's own)."""
    key = (False, False, *tail)
    row = _ROWS.get(key)
    if row is None:
        parts: tuple[list[int], list[int], list[float]] = ([], [], [])
        _row(pl, False, False, *parts)
        row = _dense(PLAYER, 0, *parts)
        _store(_ROWS, key, row)
    return row


def _tail(pl: Any) -> tuple[Any, ...]:
    """Every field `_row` reads of a player (the row cache's key after the observer part)."""
    return (
        pl.provisions,
        pl.points,
        pl.map,
        pl.exception,
        pl.start,
        pl.tower_supply,
        pl.tower_tab,
        pl.post_supply,
        pl.post_tab,
        tuple(pl.res),
        tuple(pl.warriors_by_class),
        tuple(pl.hand),
        tuple(pl.played),
        tuple(pl.trade_cards),
        tuple(pl.trade_track),
        tuple(pl.raid_track),
        tuple(pl.beside),
        tuple(pl.hidden_ut),
        tuple(pl.hidden_runes),
        *map(tuple, pl.slots.values()),
        *map(tuple, pl.rune_spots),
    )


def _row(pl: Any, own: bool, keep: bool, ones: list[int], idx: list[int], val: list[float]) -> None:
    """One player's row, as offsets within the row."""
    b = 0
    res, war, hand = pl.res, pl.warriors_by_class, pl.hand
    w = b + _WAR
    idx += (
        b,
        b + 1,
        b + 2,
        b + _PROV,
        b + _STR,
        b + _PTS,
        b + _HS,
        b + _BUILD,
        b + _BUILD + 1,
        b + _BUILD + 2,
        b + _BUILD + 3,
    )
    val += (
        _BY10[res[0]] if res[0] < 64 else 1.0,
        _BY10[res[1]] if res[1] < 64 else 1.0,
        _BY10[res[2]] if res[2] < 64 else 1.0,
        _BY6[pl.provisions] if pl.provisions < 64 else 1.0,
        _BY36[pl.strength()] if pl.strength() < 128 else 1.0,
        _BY100[pl.points] if 0 <= pl.points < 512 else (1.0 if pl.points > 0 else 0.0),
        _BY10[len(hand)] if len(hand) < 64 else 1.0,
        _BY3[pl.tower_supply],
        _BY3[pl.tower_tab],
        _BY3[pl.post_supply],
        _BY3[pl.post_tab],
    )
    for k in range(12):
        if war[k]:
            idx.append(w + k)
            val.append(_BY6[war[k]] if war[k] < 64 else 1.0)
    if pl.map or any(e.get("map") for e in pl.effects()):
        ones.append(b + _MAP)
    if pl.exception:
        ones.append(b + _EXC)
    if hand:
        backs = [0] * 6
        for c in hand:
            backs[_CARD_BACK[c]] += 1
        for k in range(6):
            if backs[k]:
                idx.append(b + _BACKS_AT + k)
                val.append(_BY5[backs[k]] if backs[k] < 64 else 1.0)
    k = _START_AT.get(pl.start)
    if k is not None:
        ones.append(b + _START + k)
    if pl.played:
        ones += [b + _PLAYED + c for c in pl.played]
    if pl.trade_cards:
        ones += [b + _TC + c for c in pl.trade_cards]
    if pl.trade_track:
        ones += [b + _TT + t for t in pl.trade_track]
    if pl.raid_track:
        ones += [b + _RT + t for t in pl.raid_track]
    if pl.beside:
        ones += [b + _BES + t for t in pl.beside]
    s = b + _SLOTS
    for st in pl.slots.values():
        if st:
            ones.append(s + st[-1])
            if len(st) > 1:
                idx += [s + x for x in st[:-1]]
                val += [0.5] * (len(st) - 1)
    s = b + _RS
    for i, st in enumerate(pl.rune_spots):
        if st:
            at = s + i * _RSW
            x = st[-1]
            ones.append(at + (x - 100 + _NR if x >= 100 else x))
            for x in st[:-1]:
                idx.append(at + (x - 100 + _NR if x >= 100 else x))
                val.append(0.5)
    if pl.hidden_ut or pl.hidden_runes:
        face = [0] * len(_BACKS)
        for x in pl.hidden_ut:
            face[_TILE_BACK[x]] += 1
        for x in pl.hidden_runes:
            face[_RUNE_BACK[x]] += 1
        for k, m in enumerate(face):
            if m:
                idx.append(b + _FACE + k)
                val.append(_BY3[m] if m < 64 else 1.0)
    if own:
        ones += [b + _HAND + c for c in hand]
        ones += [b + _HUT + x for x in pl.hidden_ut]
        ones += [b + _HR + x for x in pl.hidden_runes]
        if keep:
            ones += [b + _KEEP + c for c in hand[-2:]]


_IS_LEVEL_ONE = [1 if k % 2 == 0 else 0 for k in _CARD_BACK]
_BY8 = [min(1.0, i / 8) for i in range(64)]
_BY15 = [min(1.0, i / 15) for i in range(64)]
_STATIC: dict[int, tuple[Any, Any, list[int]]] = {}  # id(board_order) -> (it, blocked, slots)


def _static_slots(state: KarviState, lay: dict[str, int]) -> list[int]:
    """The ones of the board-order and blocked-spot blocks: fixed for a game (clones share the
    lists), so cached on those lists' identity."""
    got = _STATIC.get(id(state.board_order))
    if got is not None and got[0] is state.board_order and got[1] is state.blocked:
        return got[2]
    at, w = lay["boards"], len(_BOARDS) + 1
    slots = [at + i * w + _BOARDS.index(name) for i, name in enumerate(state.board_order)]
    slots += [
        at + i * w + len(_BOARDS)
        for i, name in enumerate(state.board_order)
        if state.board_sides[name] == "B"
    ]
    slots += [lay["blocked"] + s for s, x in enumerate(state.blocked) if x]
    if len(_STATIC) > 256:
        _STATIC.clear()
    _STATIC[id(state.board_order)] = (state.board_order, state.blocked, slots)
    return slots


@cache
def _seats(n: int, me: int, dice: int) -> tuple[list[int], list[int], list[int]]:
    """As seen by ``me`` (relative seats): each die's block, and per player their to-move slot
    and their score slot."""
    lay = _layout(n)
    per = C.DICE[n]
    blocks = [lay["dice"] + (((d // per - me) % n) * per + d % per) * DIE for d in range(dice)]
    return (
        blocks,
        [lay["to_move"] + (q - me) % n for q in range(n)],
        [lay["scores"] + (q - me) % n for q in range(n)],
    )


def _rest(
    state: KarviState,
    me: int,
    n: int,
    lay: dict[str, int],
    ones: list[int],
    idx: list[int],
    val: list[float],
) -> None:
    """The dice and the public turn state, boards and stop area (the small parts that change
    every step or so)."""
    dice, to_move, score_at = _seats(n, me, len(state.die_pos))
    beers, heights, done = state.die_beer, state.die_height, state.die_done
    for d, pos in enumerate(state.die_pos):
        b = dice[d]
        ones.append(b + pos)
        idx += (b + MAX_SPOTS, b + MAX_SPOTS + 2)
        beer, height = beers[d], heights[d]
        val += (_BY8[beer] if beer < 64 else 1.0, 1.0 if height >= 2 else height / 2)
        if done[d]:
            ones.append(b + MAX_SPOTS + 1)
    if 0 <= state.cur_die < len(dice):
        ones.append(dice[state.cur_die] + MAX_SPOTS + 3)
    if state.to_move is not None:
        ones.append(to_move[state.to_move])
    idx += score_at
    val += [s / 100 if s < 100 else 1.0 for s in state.scores()]
    m = lay["misc"]
    idx += (m, m + 2)
    val += (min(1.0, state.round / state.rounds), len(state.stop_stack) / 3)
    if state.over:
        ones.append(m + 1)
    t = lay["turn"]
    if state.moved:
        ones.append(t)
    if state.ship_moved:
        ones.append(t + 1)
    if state.die_move_card == FREE_MOVE:
        ones.append(t + 2)
    if state.die_move_card == STACK_MOVE:
        ones.append(t + 3)
    if state.used:
        ones += [t + 4 + _ABILITIES.index(a) for a in state.used if a in _ABILITIES]
    if state.tasks:
        task = state.tasks[-1]
        d = lay["decision"]
        ones.append(d + _TASK.get(task[0], len(TASK_KINDS)))
        if task[0] in _WITH_N:
            idx.append(d + len(TASK_KINDS) + 1)
            val.append(min(1.0, task[1] / 6))
        elif task[0] in ("rune_spot", "special_spot"):
            idx.append(d + len(TASK_KINDS) + 2)
            val.append(min(1.0, task[1] / 36))
    ones += _static_slots(state, lay)
    ones.append(lay["stop"] + _stop_index(state))


def _map(
    state: KarviState,
    player: int | None,
    me: int,
    n: int,
    lay: dict[str, int],
    nodes: int,
    node_at: int,
    stride: int,
) -> np.ndarray:
    """Site markers, location stacks and special rune stacks (contents only if looked at), as
    the dense block from the nodes to the specials.

    The map changes on few steps (a scout, a raid, a building), so the block is cached by
    everything it is computed from."""
    key = _dumps(
        (
            n,
            me,
            player,
            state.sites,
            state.stacks,
            state.stack_known,
            state.special_stacks,
            state.special_known,
            state.discarded_specials,
        ),
        2,
    )
    got = _MAPS.get(key)
    if got is None:
        parts: tuple[list[int], list[int], list[float]] = ([], [], [])
        _map_slots(state, player, me, n, lay, *parts, nodes, node_at, stride)
        got = _dense(lay["to_move"] - node_at, node_at, *parts)
        _store(_MAPS, key, got)
    return got


_MAPS: dict[bytes, np.ndarray] = {}
# Keys of the map and supply caches: `marshal` writes the fields' contents (ints, strings,
# lists, dicts) in one call, cheaper than tuples of tuples; equal bytes mean equal contents.
# Typed `Any`: the state's maps are typed `Mapping` (never changed in place) but are dicts,
# which marshal takes.
_dumps: Any = marshal.dumps


def _map_slots(
    state: KarviState,
    player: int | None,
    me: int,
    n: int,
    lay: dict[str, int],
    ones: list[int],
    idx: list[int],
    val: list[float],
    nodes: int,
    node_at: int,
    stride: int,
) -> None:
    for node, who in state.sites.items():
        if not who:
            continue
        for q in who:
            idx.append(node_at + node * stride + 3 * n + (q - me) % n)
            val.append(0.5)
    tiles_at = lay["tiles"]
    scale = 1.0 / max(1, nodes - 1)
    for node, st in state.stacks.items():
        b = node_at + node * stride + 4 * n
        idx.append(b)
        val.append(1.0 if len(st) >= 4 else len(st) / 4)
        if player is not None and state.stack_known[node] >> player & 1:
            ones.append(b + 1)
            ones += [tiles_at + 2 * t for t in st]
            idx += [tiles_at + 2 * t + 1 for t in st]
            val += [node * scale] * len(st)
    sp_at = lay["specials"]
    for node, st in state.special_stacks.items():
        b = node_at + node * stride + 4 * n + 2
        idx.append(b)
        val.append(min(1.0, len(st) / 4))
        if player is not None and state.special_known[node] >> player & 1:
            ones.append(b + 1)
            for t in st:
                ones.append(sp_at + 3 * t)
                idx.append(sp_at + 3 * t + 1)
                val.append(node * scale)
    ones += [sp_at + 3 * t + 2 for t in state.discarded_specials]


def _public_supply(
    state: KarviState, player: int | None, me: int, n: int, lay: dict[str, int]
) -> np.ndarray:
    """The display, decks, start cards and piles, as the dense block from the display to the
    end; they change on few steps, so the block is cached by everything it is computed from."""
    key = _dumps(
        (
            n,
            me,
            player,
            state.display,
            len(state.trade_deck),
            state.decks,
            state.start_pool,
            state.pile_holder,
            state.piles,
        ),
        2,
    )
    got = _SUPPLY.get(key)
    if got is None:
        parts: tuple[list[int], list[int], list[float]] = ([], [], [])
        _supply(state, player, me, n, lay, *parts)
        got = _dense(lay["size"] - lay["display"], lay["display"], *parts)
        _store(_SUPPLY, key, got)
    return got


_SUPPLY: dict[bytes, np.ndarray] = {}


def _supply(
    state: KarviState,
    player: int | None,
    me: int,
    n: int,
    lay: dict[str, int],
    ones: list[int],
    idx: list[int],
    val: list[float],
) -> None:
    """The display, the decks, the start cards and the Less-luck piles (cached by `_public`:
    they change on few steps)."""
    ones += [lay["display"] + c for c in state.display]
    d = lay["decks"]
    idx.append(d)
    val.append(len(state.trade_deck) / _NTC)
    for i, dk in enumerate(state.decks):
        lv1 = sum(map(_IS_LEVEL_ONE.__getitem__, dk))
        lv2 = len(dk) - lv1
        idx += (d + 1 + 2 * i, d + 2 + 2 * i)
        val += (_BY15[lv1] if lv1 < 64 else 1.0, _BY15[lv2] if lv2 < 64 else 1.0)
    ones += [lay["start_pool"] + c for c in state.start_pool]
    p = lay["piles"]
    mine = lay["my_piles"]
    for i, name in enumerate(_PILES):
        holder = state.pile_holder.get(name)
        if holder is None:
            continue
        ones.append(p + i * (n + 1) + (holder - me) % n)
        idx.append(p + i * (n + 1) + n)
        val.append(len(state.piles.get(name, ())) / 12)
        if holder == player:
            off = mine if name == "runes" else mine + _NR
            ones += [off + x for x in state.piles[name]]


def information_state_examples(players: int, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Every kind of event Karvi logs, with every value its text fields take (the interop hook:
    the information-state tensor learns its layout from these as well as from random games, so
    a rare event still has a place; see `meeple.interop.recall`). Events as the log gives them
    (`words.event_dict`)."""
    nodes = [s["name"] for s in C.side(players)["spots"]]
    q = 0  # the player
    events: list[tuple[Any, ...]] = [
        ("start_card", q, 1), ("sits_out", q, 0), ("play_card", q, 1), ("die_move", q, 0, 0, 0),
        ("free_rune", q, 0), ("trade_card", q, 1), ("rune", q, 0, 0), ("special_rune", q, 0),
        ("francia", q, "trade"), ("scout", q, 0), ("discard", q, 2), ("raid", q, 0, 0),
        ("game_over", [0.0] * players), ("round", 1),
    ]
    events += [("track", q, t, 0) for t in ("trade", "raid")]
    events += [("upgrade_tile", q, 0, s) for s in C.SLOTS]
    events += [("draw", q, t) for t in C.CARD_TYPES]
    events += [("sail", q, n) for n in nodes] + [("displaced", q, n) for n in nodes]
    events += [("build", q, b, n, 0) for b in ("tower", "post") for n in nodes]
    out = [event_dict(e) for e in events]
    return out


TENSORS = TensorHooks(
    observation_tensor_shape=observation_tensor_shape,
    observation_tensor=observation_tensor,
    information_state_examples=information_state_examples,
)  # the interop hooks (GameInfo.tensors names this module)
