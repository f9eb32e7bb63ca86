"""Zarcana (John Cooper, documented by Andrew Plotkin): pyramids on a growing board of cards.

Rulebook: shared/rules/003. Section names in comments refer to it. Rulings and the reconstructed
Special cards: docs/games/zarcana.md. Components: cards.json.

Representation. The board lives in a fixed W×H window of cells (``cell = y * W + x``); the board
is re-centred in the window between turns, so the window only binds if the board spans more than
W - 4 spaces. ``stacks`` maps a cell to its card stack (top card last). Pyramid ``q`` (0..59) is
owned by ``q // 15`` and has size ``q // 5 % 3`` (0 small, 1 medium, 2 large); ``pos[q]`` is its
cell or -1 when it is in the stash, ``orient[q]`` is 0 standing or 1..4 lying N/E/S/W.

A turn is a chain of atomic decisions by the same player (see ``A_*`` below for the fixed action
range). Using a card is: the card (or the pyramid whose card is used), then the using pyramid,
then the ability's own choices. Every complete choice sequence is enumerated before the first
step is offered, so a chain never dead-ends and nothing is mutated until it is complete (except
the played card leaving the hand, which is public).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from importlib import resources
from typing import Any, Final

from meeple.core import IllegalAction, State
from meeple.core.game import mypyc_attr, replaced
from meeple.core.rng import derive, shuffle, shuffler
from meeple.core.text import capital, does, listing, plural, whose, winners

# ----- components, read from data --------------------------------------------------------------
_DATA = json.loads(resources.files(__package__).joinpath("cards.json").read_text())
LIMITS: Final[dict[str, Any]] = _DATA["limits"]
POP_LIMIT: Final[int] = LIMITS["population"]
HAND_LIMIT: Final[int] = LIMITS["hand"]
DRAW_MAX: Final[int] = LIMITS["draw"]
PER_SIZE: Final[int] = LIMITS["per_size"]
SIZE_NAMES: Final[list[str]] = LIMITS["sizes"]
GRID: Final[int] = LIMITS["grid"]
DEAL: Final[int] = LIMITS["deal"]
W: Final[int] = _DATA["window"]["width"]
H: Final[int] = _DATA["window"]["height"]
NCELLS: Final[int] = W * H
TYPES: Final[dict[str, dict[str, Any]]] = _DATA["types"]
TYPE_ORDER: Final[list[str]] = list(TYPES)  # grow_clone, move, attack, build
CARDS: Final[list[dict[str, Any]]] = _DATA["cards"]
NUM_CARDS: Final[int] = len(CARDS)
CODE: Final[list[str]] = [c["code"] for c in CARDS]
CARD_ID: Final[dict[str, int]] = {code: i for i, code in enumerate(CODE)}
NAME: Final[list[str]] = [c["name"] for c in CARDS]
TEXT: Final[list[str]] = [c["text"] if c["kind"] == "special" else TYPES[c["type"]]["text"] for c in CARDS]
KIND: Final[list[str]] = [c["kind"] for c in CARDS]
VALUE: Final[list[int]] = [c["value"] for c in CARDS]
_ICONS: Final[list[dict[str, Any]]] = [c["icons"] if c["kind"] == "special" else TYPES[c["type"]]["icons"] for c in CARDS]
EFFECT: Final[list[str]] = [c["effect"] if c["kind"] == "special" else c["type"] for c in CARDS]
PARAMS: Final[list[dict[str, Any]]] = [c.get("params", {}) for c in CARDS]
ORI: Final[list[int]] = [{"any": 0, "standing": 1, "lying": 2}[i["orientation"]] for i in _ICONS]
TERRITORY: Final[list[bool]] = [i["where"] == "territory" for i in _ICONS]
POP_IGNORE: Final[list[bool]] = [i["population"] == "ignore" for i in _ICONS]
HAND_IGNORE: Final[list[bool]] = [i["hand"] == "ignore" for i in _ICONS]
NO_PYRAMID: Final[list[bool]] = [i["no_pyramid"] for i in _ICONS]
DIST: Final[list[int]] = [p.get("distance", 1) for p in PARAMS]
# The numbered "1" card of each type stands for that Common ability (Wild from hand, Master).
PROTO: Final[list[int]] = [CARD_ID[f"{t}-1"] for t in TYPE_ORDER]
# Whether a card is used as one of the Common abilities (PROTO) when played from hand, and when
# used on the board: a Master always, a Wild only from hand.
AS_PROTO_HAND: Final[list[bool]] = [EFFECT[c] == "master" or KIND[c] == "wild" for c in range(NUM_CARDS)]
AS_PROTO_BOARD: Final[list[bool]] = [EFFECT[c] == "master" for c in range(NUM_CARDS)]
# Per card, the Common abilities (k: PROTO[k]) it is used as from hand: all four for a Wild, else
# the one whose "1" card it is used exactly as (the same effect, legend icons and parameters),
# else none. `_compute_legal` asks once a decision per ability, not once per card.
_AS_HAND: Final[list[tuple[int, ...]]] = [
    tuple(range(len(PROTO))) if AS_PROTO_HAND[c] else
    tuple(k for k, p in enumerate(PROTO) if EFFECT[c] == EFFECT[p] and _ICONS[c] == _ICONS[p]
          and PARAMS[c] == PARAMS[p])
    for c in range(NUM_CARDS)]
# Each effect's number, by which `ZarcanaState._gen` and `_exec` pick its `_g_*` and `_x_*`
# (a Master has neither: it is always used as a Common ability, see AS_PROTO_BOARD).
_E_GROW_CLONE: Final = 0
_E_MOVE: Final = 1
_E_ATTACK: Final = 2
_E_BUILD: Final = 3
_E_DRAW: Final = 4
_E_TRANSPORT: Final = 5
_E_MOVE_TWICE: Final = 6
_E_CREATE_WASTELAND: Final = 7
_E_TELEPORT: Final = 8
_E_ATTACK_TWICE: Final = 9
_E_DESTROY_OCCUPIED: Final = 10
_E_COPY: Final = 11
_E_RECYCLE: Final = 12
_E_DIG: Final = 13
_E_TURN: Final = 14
_E_HARVEST: Final = 15
_E_SWAP: Final = 16
_E_BOMB: Final = 17
_E_PLAGUE: Final = 18
_E_PUSH: Final = 19
_E_REDUCE: Final = 20
_E_LEAP: Final = 21
_E_GROW_TWICE: Final = 22
_E_COLONIZE: Final = 23
_E_GROW_ALL: Final = 24
_E_DISCOVER: Final = 25
_E_SWAP_TERRITORY: Final = 26
_E_RALLY: Final = 27
_E_RESURRECT: Final = 28
_E_CONVERT: Final = 29
_EFFECTS: Final[tuple[str, ...]] = ('grow_clone', 'move', 'attack', 'build', 'draw', 'transport', 'move_twice', 'create_wasteland', 'teleport', 'attack_twice', 'destroy_occupied', 'copy', 'recycle', 'dig', 'turn', 'harvest', 'swap', 'bomb', 'plague', 'push', 'reduce', 'leap', 'grow_twice', 'colonize', 'grow_all', 'discover', 'swap_territory', 'rally', 'resurrect', 'convert')
EFFECT_NO: Final[list[int]] = [_EFFECTS.index(e) if e in _EFFECTS else -1 for e in EFFECT]
if set(EFFECT) - set(_EFFECTS) - {"master"}:  # a card whose effect the rules do not know
    raise ValueError(f"unknown effects in cards.json: {sorted(set(EFFECT) - set(_EFFECTS) - {'master'})}")
# The per-card facts the hot paths read, as bytes: compiled, a bytes look-up is a machine load,
# where the lists above give a Python object to unbox. _EFFECT_B: EFFECT_NO (255: a Master);
# _REQ: the legend as bits (_R_NO_PYRAMID, _R_TERRITORY, and ORI in the low two).
_R_NO_PYRAMID: Final = 8
_R_TERRITORY: Final = 4
_EFFECT_B: Final[bytes] = bytes(e if e >= 0 else 255 for e in EFFECT_NO)
_REQ: Final[bytes] = bytes(
    (_R_NO_PYRAMID if NO_PYRAMID[c] else 0) | (_R_TERRITORY if TERRITORY[c] else 0) | ORI[c]
    for c in range(NUM_CARDS))
_PROTO_HAND: Final[bytes] = bytes(AS_PROTO_HAND)
_PROTO_BOARD: Final[bytes] = bytes(AS_PROTO_BOARD)
ORIENT_NAMES: Final[list[str]] = ["up", "N", "E", "S", "W"]
PIECES: Final[int] = 15
MAX_PLAYERS: Final[int] = 4

# ----- the fixed action range ------------------------------------------------------------------
A_CELL: Final[int] = 0  # a window cell: place a small pyramid (turn option 1), or a destination
A_CARD: Final[int] = A_CELL + NCELLS  # a card from hand (turn option 2)
A_PIECE: Final[int] = A_CARD + NUM_CARDS  # a pyramid: use the card it occupies (option 3), or a choice
A_ORIENT: Final[int] = A_PIECE + MAX_PLAYERS * PIECES  # standing, N, E, S, W
A_SIZE: Final[int] = A_ORIENT + 5  # small, medium, large (clone size and the like)
A_ABIL: Final[int] = A_SIZE + 3  # a Common ability for a Wild: grow_clone, move, attack, build
A_DRAW: Final[int] = A_ABIL + 4  # draw 1, 2 or 3 (option 5)
DISCARD: Final[int] = A_DRAW + DRAW_MAX  # option 6
PASS: Final[int] = DISCARD + 1  # option 7
DECLARE: Final[int] = PASS + 1  # option 8
REORIENT: Final[int] = DECLARE + 1  # option 4 (then one orientation per pyramid)
GROW: Final[int] = REORIENT + 1  # Grow (rather than Clone)
DONE: Final[int] = GROW + 1  # decline an optional second step
NUM_ACTIONS: Final[int] = DONE + 1
# Every action as a Python int, made once, which `_compute_legal` lists and `_apply` logs:
# compiled, an int above 256 put into a list or tuple is a new object each time (freed with it),
# and every action is.
_ACTION: Final[list[Any]] = list(range(NUM_ACTIONS))
_MISC: Final[dict[int, str]] = {DISCARD: "discard", PASS: "pass", DECLARE: "declare", REORIENT: "reorient", GROW: "grow", DONE: "done"}
_MISC_ID: Final[dict[str, int]] = {v: k for k, v in _MISC.items()}

# The detail of most logged actions (see `_act_detail`): one dict, as logged events are never
# changed (interop.recall relies on it too).
_NO_DETAIL: Final[dict[str, Any]] = {}
_ON_CARD: Final[list[dict[str, Any]]] = [{"on": code} for code in CODE]  # (the same way: one per card)
_ON_NOTHING: Final[dict[str, Any]] = {"on": None}
_NO_MINE: Final[tuple[list[int] | None, ...]] = (None,) * MAX_PLAYERS  # see ``ZarcanaState._mine``

MAIN: Final[str] = "main"
CHAIN: Final[str] = "chain"
REORIENTING: Final[str] = "reorient"


def _neighbours() -> list[tuple[int, ...]]:
    """NB[cell][o] for o in 1..4 (index 0 is the cell itself); -1 off the window."""
    out = []
    for cell in range(NCELLS):
        x, y = cell % W, cell // W
        row = [cell]
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            nx, ny = x + dx, y + dy
            row.append(ny * W + nx if 0 <= nx < W and 0 <= ny < H else -1)
        out.append(tuple(row))
    return out


NB: Final[list[tuple[int, ...]]] = _neighbours()
# NB flat, ``_NB[cell * 5 + o]``, for the hot paths: compiled, a list item is read as a machine
# int, where NB's tuples are indexed through a generic call.
_NB: Final[list[int]] = [n for row in NB for n in row]
_X: Final[list[int]] = [c % W for c in range(NCELLS)]
_Y: Final[list[int]] = [c // W for c in range(NCELLS)]
# The cells within three spaces of the window's edge (the board is re-centred when a card or a
# pyramid comes within two, see `_recenter`).
_NEAR_EDGE: Final[list[bool]] = [
    not (3 <= _X[c] <= W - 4 and 3 <= _Y[c] <= H - 4) for c in range(NCELLS)]


def _occupancy(pos: list[int]) -> bytes:
    """``occ`` worked out afresh from the pyramids' cells (see ``ZarcanaState.occ``)."""
    occ = bytearray(NCELLS)
    for c in pos:
        if c >= 0:
            occ[c] += 1
    return bytes(occ)


def _insort(values: list[int], start: int, v: int) -> None:
    """Put ``v`` into ``values[start:]``, kept ascending and without repeats (a short list:
    compiled, cheaper than sorting, or a set, once at the end)."""
    i = len(values)
    while i > start and values[i - 1] > v:
        i -= 1
    if i == start or values[i - 1] != v:
        values.insert(i, v)


def size_of(q: int) -> int:
    return q // 5 % 3


def owner_of(q: int) -> int:
    return q // PIECES


def piece_label(q: int) -> str:
    return _LABELS[q]


# Every pyramid's label, made once: events name pyramids many times a game.
_LABELS: Final[list[str]] = [
    f"P{owner_of(q)} {'SML'[size_of(q)]}{q % 5 + 1}" for q in range(MAX_PLAYERS * PIECES)]


ORIENT_WORDS: Final[dict[str, str]] = {"up": "standing up", "N": "north", "E": "east", "S": "south", "W": "west"}


def piece_words(label: str, viewer: int | None, actor: int | None = None) -> str:
    """"Player 2's small pyramid" for the label "P1 S3" (the number only tells pieces apart);
    "their" when ``actor`` owns it and is not the reader."""
    owner, size = int(label[1:label.index(" ")]), label[label.index(" ") + 1]
    whose_ = "their" if owner == actor and owner != viewer else whose(owner, viewer)
    return f"{whose_} {SIZE_NAMES['SML'.index(size)]} pyramid"


def card_words(code: str | None) -> str:
    return "an empty space" if code is None else f"the {NAME[CARD_ID[code]]} card"


def cell_xy(cell: int) -> tuple[int, int]:
    return cell % W, cell // W


@mypyc_attr(allow_interpreted_subclasses=True)  # see State
class ZarcanaState(State):
    """A game of Zarcana. See the module docstring for the representation."""

    # A card's chain (the card, the pyramid, the ability's choices) and a reorientation may be
    # taken back up to the turn's start: nothing is drawn before the chain's last step.
    undo_within_turn = True

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.tiebreak: bool = options["tiebreak"]
        self.tiebreak_all: bool = options["tiebreak_depth"] == "all"
        self.harvest_own: bool = options["harvest_own"]
        self.spare_unreducible: bool = options["unreducible"] == "unharmed"
        # What an act event's sentence needs beyond the event (the stage, the card on the chosen
        # space or under the chosen pyramid), by the id of the event's dict: kept out of the
        # event so that interop's tensors of the log stay as they were. The dicts live only as
        # long as one `log` call, so `log` empties it first: it never holds more than one call's.
        self._act_info: dict[int, tuple[str, dict[str, Any]]] = {}
        # (one row of PIECES per seat at the table, not per seat the game allows: the generators
        # read them many times a decision, and copies copy them)
        self.pos = [-1] * (players * PIECES)
        self.orient = [0] * (players * PIECES)
        # occ[cell]: how many pyramids stand on the cell, which `room`, `at` and `others_at` read
        # rather than scan ``pos``. Kept in step by `_move`, through which every change of ``pos``
        # goes (`_swap_size` aside, which leaves every cell's count as it was). Bytes, replaced,
        # never changed in place: copies share it, and compiled, a look-up is an indexed byte.
        self.occ = _occupancy(self.pos)
        # The dict, like each stack in it, is replaced whenever it changes, never changed in
        # place (after setup): copies share it, and what is worked out from it is kept as long
        # as it is the same dict (``_perimeter``, ``_centred``).
        self.stacks: dict[int, list[int]] = {}
        self.discard: list[int] = []
        self.reshuffles = 0
        # tag[c]: for a card in a hand, the reshuffle epoch it was drawn in, or -1 when everyone
        # saw it arrive (Harvest, Recycle). Determinization swaps cards only within an epoch.
        self.tag = [0] * NUM_CARDS
        self.declared = -1
        self.turns_left = 0
        self.turn = 0
        self.stage = MAIN
        self.cands: list[tuple[int, ...]] = []
        self.chosen: list[int] = []
        self.ctx: tuple[Any, ...] = ()
        self.playing = -1  # the hand card being played (public once chosen)
        self.reo: list[int] = []  # pyramids still to reorient
        self._legal = None  # legal_actions, until the next change (see State._legal)
        self._perimeter: tuple[dict[int, list[int]], list[int]] | None = None  # (stacks, perimeter())
        self._centred: dict[int, list[int]] | None = None  # stacks seen with no card near an edge
        self._cardmap: tuple[dict[int, list[int]], bytes] | None = None  # (stacks, cards())
        # on_board(player) per seat, once asked, until a pyramid enters or leaves the board
        # (`_move`, `_swap_size`): legal_actions and apply ask it every decision. Replaced,
        # never changed in place (copies share it).
        self._mine: tuple[list[int] | None, ...] = _NO_MINE
        self._next: tuple[tuple[Any, ...], list[tuple[int, ...]]] | None = None
        # Setup: shuffle, a 3×3 grid, three cards each.
        self.deck = list(range(NUM_CARDS))
        # Whether ``deck`` is this state's alone (a new game's is): a copy shares it (`_copy`
        # clears this on both), and the next draw takes a copy of its own first; an own deck is
        # drawn from in place.
        self._deck_own = True
        shuffler(seed, self.salt, "deck").shuffle(self.deck)
        c0 = W // 2 - GRID // 2
        for y in range(GRID):
            for x in range(GRID):
                self.stacks[(c0 + y) * W + c0 + x] = [self.deck.pop()]
        self.hands: list[list[int]] = [[] for _ in range(players)]
        for p in range(players):
            for _ in range(DEAL):
                self.hands[p].append(self.deck.pop())
            self.emit({"type": "deal", "hand": [CODE[c] for c in self.hands[p]]}, to=p)
        self.emit({"type": "setup", "board": [[*cell_xy(c), CODE[s[-1]]] for c, s in sorted(self.stacks.items())]})
        self.to_move: int | None = 0

    # ----- board helpers -------------------------------------------------------------------
    def target(self, q: int, dist: int = 1) -> int:
        """The target space: the space pointed at, or the pyramid's own space when standing."""
        cell, o = self.pos[q], self.orient[q]
        if o == 0:
            return cell
        for _ in range(dist):
            cell = _NB[cell * 5 + o]
            if cell < 0:
                return -1
        return cell

    def habitable(self, cell: int) -> bool:
        """Basics: a card, or a wasteland space next to at least one card."""
        if cell < 0:
            return False
        cards = self.cards()
        if cards[cell]:
            return True
        base = cell * 5
        for o in range(1, 5):
            n = _NB[base + o]
            if n >= 0 and cards[n]:
                return True
        return False

    def cards(self) -> bytes:
        """``cards()[cell]``: the top card on ``cell`` plus one, or 0 where no card lies (the
        stacks as a table, which the generators and `top` read rather than look cells up in the
        dict: compiled, a dict look-up makes a Python int of the cell first). Kept while the
        stacks stay the same (``stacks``)."""
        st = self.stacks
        known = self._cardmap
        if known is not None and known[0] is st:
            return known[1]
        table = bytearray(NCELLS)
        for c, stack in st.items():
            table[c] = stack[-1] + 1
        out = bytes(table)
        self._cardmap = (st, out)
        return out

    # `room`, `at` and `others_at` take a window cell (never -1, the stash). Where they scan
    # ``pos``, they do it in plain loops, not with list.count/index/in: compiled, those compare
    # item by item through Python's generic comparison, and these loops compare machine ints.
    def room(self, cell: int, ignore: bool = False) -> bool:
        """Basics: the population limit of three applies to placing, not to staying."""
        return ignore or self.occ[cell] < POP_LIMIT

    def at(self, cell: int) -> list[int]:
        """The pyramids on ``cell``, ascending."""
        out: list[int] = []
        n = self.occ[cell]
        if n:
            q = 0
            for c in self.pos:
                if c == cell:
                    out.append(q)
                    n -= 1
                    if not n:
                        break
                q += 1
        return out

    def stash(self, player: int, size: int) -> int:
        """A pyramid of ``size`` in ``player``'s stash, or -1 (the stash limits the board)."""
        base = player * PIECES + size * PER_SIZE
        pos = self.pos
        for q in range(base, base + PER_SIZE):
            if pos[q] < 0:
                return q
        return -1

    def on_board(self, player: int) -> list[int]:
        """``player``'s pyramids on the board, ascending. The list is kept until one enters or
        leaves the board (see ``_mine``): never change it."""
        known = self._mine[player]
        if known is not None:
            return known
        out: list[int] = []
        pos = self.pos
        for q in range(player * PIECES, (player + 1) * PIECES):
            if pos[q] >= 0:
                out.append(q)
        mine = list(self._mine)
        mine[player] = out
        self._mine = tuple(mine)
        return out

    def others_at(self, cell: int, player: int) -> bool:
        n = self.occ[cell]
        if n:
            pos = self.pos
            for q in range(player * PIECES, (player + 1) * PIECES):
                if pos[q] == cell:
                    n -= 1
                    if not n:  # all of them ``player``'s
                        return False
        return n > 0

    def perimeter(self) -> list[int]:
        """Empty-of-card spaces next to at least one card (the legal wasteland). The list is
        kept while the stacks stay the same (see ``stacks``): never change it."""
        st = self.stacks
        known = self._perimeter
        if known is not None and known[0] is st:
            return known[1]
        cards = self.cards()
        found: set[int] = set()
        for cell in st:
            base = cell * 5
            for o in range(1, 5):
                n = _NB[base + o]
                if n >= 0 and not cards[n]:
                    found.add(n)
        out = sorted(found)
        self._perimeter = (st, out)
        return out

    def top(self, cell: int) -> int:
        """The top card on ``cell``, or -1 (no card, or -1 for the cell: off the window)."""
        return self.cards()[cell] - 1 if cell >= 0 else -1

    def can_draw(self) -> int:
        return len(self.deck) + len(self.discard)

    # ----- pieces ---------------------------------------------------------------------------
    def _move(self, q: int, cell: int) -> None:
        """Pyramid ``q`` to ``cell`` (-1: the stash), orientation untouched, with a new ``occ``."""
        old = self.pos[q]
        if cell != old:
            occ = bytearray(self.occ)
            if old >= 0:
                occ[old] -= 1
            if cell >= 0:
                occ[cell] += 1
            self.occ = bytes(occ)
            self.pos[q] = cell
            if old < 0 or cell < 0:
                self._forget_mine(q // PIECES)

    def _place(self, q: int, cell: int, o: int = 0) -> None:
        self._move(q, cell)
        self.orient[q] = o

    def _destroy(self, q: int, why: str) -> None:
        self.emit({"type": "destroyed", "pyramid": piece_label(q), "why": why})
        self._place(q, -1)

    def _swap_size(self, q: int, new: int) -> None:
        """Replace pyramid ``q`` by stash pyramid ``new`` in place (orientation kept). Not
        through `_move`: every cell keeps its count, so ``occ`` stays (a new one costs more)."""
        pos, orient = self.pos, self.orient
        pos[new], orient[new] = pos[q], orient[q]
        pos[q], orient[q] = -1, 0
        self._forget_mine(q // PIECES)

    def _forget_mine(self, player: int) -> None:
        """``player``'s pyramids on the board changed: ask `on_board` afresh (the others' stay)."""
        if self._mine[player] is not None:
            mine = list(self._mine)
            mine[player] = None
            self._mine = tuple(mine)

    def _reduce(self, q: int) -> None:
        """Attack: reduced one size; a small one dies. With no smaller size in the stash it dies
        too (ruling R3), or, with the option ``unreducible="unharmed"``, nothing happens."""
        s = size_of(q)
        r = self.stash(owner_of(q), s - 1) if s > 0 else -1
        if r < 0 and s > 0 and self.spare_unreducible:
            self.emit({"type": "unharmed", "pyramid": piece_label(q)})
        elif r < 0:
            self._destroy(q, "reduced")
        else:
            self.emit({"type": "reduced", "pyramid": piece_label(q), "to": piece_label(r)})
            self._swap_size(q, r)

    def _purge(self) -> None:
        """Basics: a pyramid in a wasteland space with no adjacent card is destroyed at once."""
        for q, c in enumerate(self.pos):
            if c >= 0 and not self.habitable(c):
                self._destroy(q, "isolated")

    def _take_top(self, cell: int) -> int:
        """Take the top card off ``cell``'s stack. The stacks and each stack are replaced by new
        ones whenever they change, never changed in place: see ``stacks``."""
        stacks = self.stacks = self.stacks.copy()
        s = stacks[cell]
        if len(s) > 1:
            stacks[cell] = s[:-1]
        else:
            del stacks[cell]
        return s[-1]

    def _remove_top(self, cell: int) -> None:
        c = self._take_top(cell)
        self.discard = [*self.discard, c]  # replaced, never changed in place: see `_copy`
        self.emit({"type": "card_destroyed", "cell": list(cell_xy(cell)), "card": CODE[c]})
        self._purge()

    # ----- cards -----------------------------------------------------------------------------
    def _draw_one(self) -> int:
        """Basics: if the deck is empty, reshuffle the discards into a new deck (counted)."""
        self.undo_barrier()  # a card comes to light (to the drawer, or to all with Build)
        if not self.deck:
            if not self.discard:
                return -1
            self.deck, self.discard = self.discard.copy(), []  # (the pile may be shared: `_copy`)
            self._deck_own = True
            self.reshuffles += 1
            shuffler(self.seed, self.salt, "reshuffle", self.reshuffles).shuffle(self.deck)
            self.emit({"type": "reshuffle", "count": self.reshuffles, "deck": len(self.deck)})
        deck = self.deck
        if not self._deck_own:  # shared with a copy (see ``_deck_own``): take one's own first
            deck = self.deck = deck.copy()
            self._deck_own = True
        return deck.pop()

    def _draw_to_hand(self, p: int, k: int) -> None:
        got = []
        tag = self.tag
        for _ in range(k):
            c = self._draw_one()
            if c < 0:
                break
            self.hands[p].append(c)
            if tag[c] != self.reshuffles:  # (until the first reshuffle, every tag is 0 already)
                if tag is self.tag:  # replaced, never changed in place: copies share it (`_copy`)
                    tag = tag.copy()
                tag[c] = self.reshuffles
            got.append(c)
        self.tag = tag
        events = self._writable_log()
        if events is not None:  # compact, as the act events (see `_format_event`)
            events.append((None, ("draw", p, len(got))))
            events.append((p, ("drew", got)))

    def _hand_room(self, p: int, card: int) -> int:
        """How many cards ``p`` may acquire now: the hand limit binds acquiring, not holding."""
        return 1 << 20 if HAND_IGNORE[card] else HAND_LIMIT - len(self.hands[p])

    # ----- requirements and choice sequences ----------------------------------------------------
    def _req(self, card: int, q: int) -> bool:
        """The card's legend requirements for the using pyramid ``q`` (-1: none)."""
        r = _REQ[card]
        if r & _R_NO_PYRAMID:
            return True
        if q < 0:
            return False
        o = r & 3
        if o and (self.orient[q] == 0) != (o == 1):  # 1: standing only, 2: lying only
            return False
        if r & _R_TERRITORY:
            cell = self.pos[q]
            return cell >= 0 and self.cards()[cell] != 0
        return True

    # Every `_g_*` below works out an ability's choice sequences in one of two ways: with a list
    # ``out``, it appends every complete sequence to it, in the order they are offered; with
    # ``None``, it only answers whether there is one, and stops at the first (the question
    # `_compute_legal` asks for every card and pyramid). Both from one body, so the two never
    # differ; plain functions rather than generators: compiled, a generator is an object made
    # and resumed through Python's iterator protocol at each step, several times the cost.
    def _seqs(self, card: int, q: int, me: int, hand: bool) -> list[tuple[int, ...]]:
        """Every complete choice sequence for using ``card`` with pyramid ``q``."""
        out: list[tuple[int, ...]] = []
        self._seqs_into(card, q, me, hand, out)
        return out

    def _seqs_into(self, card: int, q: int, me: int, hand: bool, out: list[tuple[int, ...]] | None) -> bool:
        """`_seqs` into ``out``, or with ``None`` whether there is any (see above)."""
        if (_PROTO_HAND if hand else _PROTO_BOARD)[card]:
            for k in range(len(PROTO)):
                proto = PROTO[k]
                if self._req(proto, q):
                    if out is None:
                        if self._gen(proto, q, me, None):
                            return True
                    else:
                        sub: list[tuple[int, ...]] = []
                        self._gen(proto, q, me, sub)
                        for s in sub:
                            out.append((A_ABIL + k, *s))
            return False
        if self._req(card, q):
            return self._gen(card, q, me, out)
        return False

    def _gen(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        """The card's `_g_*` (by its effect's number: compiled, a direct call)."""
        e = _EFFECT_B[card]
        if e == _E_GROW_CLONE:
            return self._g_grow_clone(card, q, me, out)
        if e == _E_MOVE:
            return self._g_move(card, q, me, out)
        if e == _E_ATTACK:
            return self._g_attack(card, q, me, out)
        if e == _E_BUILD:
            return self._g_build(card, q, me, out)
        if e == _E_DRAW:
            return self._g_draw(card, q, me, out)
        if e == _E_TRANSPORT:
            return self._g_transport(card, q, me, out)
        if e == _E_MOVE_TWICE:
            return self._g_move_twice(card, q, me, out)
        if e == _E_CREATE_WASTELAND:
            return self._g_create_wasteland(card, q, me, out)
        if e == _E_TELEPORT:
            return self._g_teleport(card, q, me, out)
        if e == _E_ATTACK_TWICE:
            return self._g_attack_twice(card, q, me, out)
        if e == _E_DESTROY_OCCUPIED:
            return self._g_destroy_occupied(card, q, me, out)
        if e == _E_COPY:
            return self._g_copy(card, q, me, out)
        if e == _E_RECYCLE:
            return self._g_recycle(card, q, me, out)
        if e == _E_DIG:
            return self._g_dig(card, q, me, out)
        if e == _E_TURN:
            return self._g_turn(card, q, me, out)
        if e == _E_HARVEST:
            return self._g_harvest(card, q, me, out)
        if e == _E_SWAP:
            return self._g_swap(card, q, me, out)
        if e == _E_BOMB:
            return self._g_bomb(card, q, me, out)
        if e == _E_PLAGUE:
            return self._g_plague(card, q, me, out)
        if e == _E_PUSH:
            return self._g_push(card, q, me, out)
        if e == _E_REDUCE:
            return self._g_reduce(card, q, me, out)
        if e == _E_LEAP:
            return self._g_leap(card, q, me, out)
        if e == _E_GROW_TWICE:
            return self._g_grow_twice(card, q, me, out)
        if e == _E_COLONIZE:
            return self._g_colonize(card, q, me, out)
        if e == _E_GROW_ALL:
            return self._g_grow_all(card, q, me, out)
        if e == _E_DISCOVER:
            return self._g_discover(card, q, me, out)
        if e == _E_SWAP_TERRITORY:
            return self._g_swap_territory(card, q, me, out)
        if e == _E_RALLY:
            return self._g_rally(card, q, me, out)
        if e == _E_RESURRECT:
            return self._g_resurrect(card, q, me, out)
        if e == _E_CONVERT:
            return self._g_convert(card, q, me, out)
        raise ValueError(f"{NAME[card]} ({EFFECT[card]}) is used only as a Common ability")

    def _exec(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        """The card's `_x_*` (by its effect's number: compiled, a direct call)."""
        e = _EFFECT_B[card]
        if e == _E_GROW_CLONE:
            self._x_grow_clone(card, q, me, seq)
        elif e == _E_MOVE:
            self._x_move(card, q, me, seq)
        elif e == _E_ATTACK:
            self._x_attack(card, q, me, seq)
        elif e == _E_BUILD:
            self._x_build(card, q, me, seq)
        elif e == _E_DRAW:
            self._x_draw(card, q, me, seq)
        elif e == _E_TRANSPORT:
            self._x_transport(card, q, me, seq)
        elif e == _E_MOVE_TWICE:
            self._x_move_twice(card, q, me, seq)
        elif e == _E_CREATE_WASTELAND:
            self._x_create_wasteland(card, q, me, seq)
        elif e == _E_TELEPORT:
            self._x_teleport(card, q, me, seq)
        elif e == _E_ATTACK_TWICE:
            self._x_attack_twice(card, q, me, seq)
        elif e == _E_DESTROY_OCCUPIED:
            self._x_destroy_occupied(card, q, me, seq)
        elif e == _E_COPY:
            self._x_copy(card, q, me, seq)
        elif e == _E_RECYCLE:
            self._x_recycle(card, q, me, seq)
        elif e == _E_DIG:
            self._x_dig(card, q, me, seq)
        elif e == _E_TURN:
            self._x_turn(card, q, me, seq)
        elif e == _E_HARVEST:
            self._x_harvest(card, q, me, seq)
        elif e == _E_SWAP:
            self._x_swap(card, q, me, seq)
        elif e == _E_BOMB:
            self._x_bomb(card, q, me, seq)
        elif e == _E_PLAGUE:
            self._x_plague(card, q, me, seq)
        elif e == _E_PUSH:
            self._x_push(card, q, me, seq)
        elif e == _E_REDUCE:
            self._x_reduce(card, q, me, seq)
        elif e == _E_LEAP:
            self._x_leap(card, q, me, seq)
        elif e == _E_GROW_TWICE:
            self._x_grow_twice(card, q, me, seq)
        elif e == _E_COLONIZE:
            self._x_colonize(card, q, me, seq)
        elif e == _E_GROW_ALL:
            self._x_grow_all(card, q, me, seq)
        elif e == _E_DISCOVER:
            self._x_discover(card, q, me, seq)
        elif e == _E_SWAP_TERRITORY:
            self._x_swap_territory(card, q, me, seq)
        elif e == _E_RALLY:
            self._x_rally(card, q, me, seq)
        elif e == _E_RESURRECT:
            self._x_resurrect(card, q, me, seq)
        elif e == _E_CONVERT:
            self._x_convert(card, q, me, seq)
        else:
            raise ValueError(f"{NAME[card]} ({EFFECT[card]}) is used only as a Common ability")

    def _any_usable(self, card: int, mine: list[int], me: int) -> bool:
        """Whether any of the pyramids ``mine`` can use ``card`` played from hand."""
        for q in mine:
            if self._seqs_into(card, q, me, True, None):
                return True
        return False

    def _run(self, card: int, q: int, me: int, seq: tuple[int, ...], hand: bool) -> None:
        if (_PROTO_HAND if hand else _PROTO_BOARD)[card]:
            card, seq = PROTO[seq[0] - A_ABIL], seq[1:]
        self._exec(card, q, me, seq)

    def _usable(self, card: int, q: int, me: int, hand: bool) -> bool:
        """Whether ``_seqs`` gives anything."""
        return self._seqs_into(card, q, me, hand, None)

    # --- Common abilities ---
    def _g_grow_clone(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        s = size_of(q)
        if s < 2 and self.stash(me, s + 1) >= 0:
            if out is None:
                return True
            out.append((GROW,))
        if self.room(self.pos[q], POP_IGNORE[card]):
            for t in range(s + 1):
                if self.stash(me, t) >= 0:
                    if out is None:
                        return True
                    out.append((A_SIZE + t,))
        return False

    def _x_grow_clone(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        if seq[0] == GROW:
            new = self.stash(me, size_of(q) + 1)
            self.emit({"type": "grow", "pyramid": piece_label(q), "to": piece_label(new)})
            self._swap_size(q, new)
        else:
            new = self.stash(me, seq[0] - A_SIZE)
            self._place(new, self.pos[q])  # ruling: a clone arrives standing
            self.emit({"type": "clone", "pyramid": piece_label(new)})

    def _g_move(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        if t != self.pos[q] and self.habitable(t) and self.room(t, POP_IGNORE[card]):
            if out is None:
                return True
            out.append(())
        return False

    def _x_move(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._place(q, self.target(q))  # Move: arrives standing

    def _g_attack(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q, DIST[card])
        if t < 0:
            return False
        here = self.pos[q]
        if out is None:  # (the same answer as below, without listing the pyramids)
            if self.occ[t] > (1 if here == t else 0):
                return True
            return t != here and self.cards()[t] != 0
        victims = False
        for v in self.at(t):
            if v != q:
                victims = True
                if out is None:
                    return True
                out.append((A_PIECE + v,))
        if not victims and t != here and self.cards()[t]:
            out.append(())  # no pyramids there: the top card must be destroyed
        return False

    def _x_attack(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        if seq:
            v = seq[0] - A_PIECE
            self.emit({"type": "attack", "by": piece_label(q), "target": piece_label(v)})
            if size_of(q) < size_of(v):
                self._reduce(v)
            else:
                self._destroy(v, "attacked")
        else:
            self._remove_top(self.target(q, DIST[card]))

    def _g_build(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q, DIST[card])
        if t >= 0 and self.can_draw() and not self.others_at(t, me):
            if out is None:
                return True
            out.append(())
        return False

    def _build_at(self, cell: int) -> None:
        c = self._draw_one()
        stacks = self.stacks = self.stacks.copy()  # replaced, never changed in place: `stacks`
        stacks[cell] = [*stacks.get(cell, []), c]  # under any pyramids already there
        self.emit({"type": "build", "cell": list(cell_xy(cell)), "card": CODE[c]})

    def _x_build(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._build_at(self.target(q, DIST[card]))

    # --- Special abilities (reconstructed; see cards.json and docs/games/zarcana.md) ---
    def _g_draw(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if min(PARAMS[card]["count"], self._hand_room(me, card), self.can_draw()) >= 1:
            if out is None:
                return True
            out.append(())
        return False

    def _x_draw(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._draw_to_hand(me, min(PARAMS[card]["count"], self._hand_room(me, card)))

    def _g_transport(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        cards = self.cards()
        if t < 0 or not cards[t]:
            return False
        occ = self.occ
        for d in self.perimeter():
            if occ[d]:
                continue
            base = d * 5
            for o in range(1, 5):
                n = _NB[base + o]
                if n >= 0 and n != t and cards[n]:
                    if out is None:
                        return True
                    out.append((A_CELL + d,))
                    break
        return False

    def _x_transport(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        t, d = self.target(q), seq[0] - A_CELL
        stacks = self.stacks = self.stacks.copy()  # replaced, never changed in place: `stacks`
        stacks[d] = stacks.pop(t)
        for v in self.at(t):
            self._move(v, d)
        self.emit({"type": "transport", "from": list(cell_xy(t)), "to": list(cell_xy(d))})
        self._purge()

    def _g_move_twice(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        return self._g_move(card, q, me, out)

    def _x_move_twice(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._x_move(card, q, me, seq)
        steps = [(A_ORIENT + o,) for o in range(1, 5)
                 if self.habitable(NB[self.pos[q]][o]) and self.room(NB[self.pos[q]][o], POP_IGNORE[card])]
        if steps:
            self._follow(("step", q, card), [*steps, (DONE,)])

    def _g_create_wasteland(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if self.stash(me, 0) < 0:
            return False
        for d in self.perimeter():
            if self.room(d, POP_IGNORE[card]):
                if out is None:
                    return True
                out.append((A_CELL + d,))
        return False

    def _x_create_wasteland(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        new = self.stash(me, 0)
        self._place(new, seq[0] - A_CELL)
        self.emit({"type": "create", "pyramid": piece_label(new)})

    def _g_teleport(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        here = self.pos[q]
        for d in sorted(self.stacks):
            if d != here and self.room(d, POP_IGNORE[card]):
                if out is None:
                    return True
                out.append((A_CELL + d,))
        return False

    def _x_teleport(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._place(q, seq[0] - A_CELL)

    def _g_attack_twice(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        return self._g_attack(card, q, me, out)

    def _x_attack_twice(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._x_attack(card, q, me, seq)
        sub: list[tuple[int, ...]] = []
        self._g_attack(card, q, me, sub)
        again = [(A_ABIL + 2, *s) for s in sub]
        if again:
            self._follow(("attack", q, card), [*again, (DONE,)])

    def _g_destroy_occupied(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if self.target(q) in self.stacks:
            if out is None:
                return True
            out.append(())
        return False

    def _x_destroy_occupied(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._remove_top(self.target(q))

    def _g_copy(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        other = self.top(self.target(q)) if q >= 0 else -1
        if other >= 0 and EFFECT[other] != "copy":
            return self._seqs_into(other, q, me, False, out)
        return False

    def _x_copy(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        other = self.top(self.target(q))
        self.emit({"type": "copy", "card": CODE[other]})
        self._run(other, q, me, seq, False)

    def _g_recycle(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if self.discard and self._hand_room(me, card) >= 1:
            if out is None:
                return True
            out.append(())
        return False

    def _x_recycle(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        c = self.discard[-1]
        self.discard = self.discard[:-1]  # replaced, never changed in place: see `_copy`
        self.hands[me].append(c)
        self.tag = replaced(self.tag, c, -1)  # taken in sight of all: no epoch (see `tag`)
        self.emit({"type": "take", "player": me, "card": CODE[c]})

    def _g_dig(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if len(self.stacks.get(self.target(q), ())) >= 2:
            if out is None:
                return True
            out.append(())
        return False

    def _x_dig(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        t = self.target(q)
        stacks = self.stacks = self.stacks.copy()  # replaced, never changed in place: `stacks`
        s = stacks[t]
        stacks[t] = [s[-1], *s[:-1]]

    def _g_turn(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        if t < 0:
            return False
        for v in self.at(t):
            for o in range(5):
                if out is None:
                    return True
                out.append((A_PIECE + v, A_ORIENT + o))
        return False

    def _x_turn(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self.orient[seq[0] - A_PIECE] = seq[1] - A_ORIENT

    def _g_harvest(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        if t == self.pos[q] and not self.harvest_own:
            return False  # ruling R21 (Highlights): only Destroy Occupied Territory removes its user's card
        if t in self.stacks and not self.others_at(t, me) and self._hand_room(me, card) >= 1:
            if out is None:
                return True
            out.append(())
        return False

    def _x_harvest(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        c = self._take_top(self.target(q))
        self.hands[me].append(c)
        self.tag = replaced(self.tag, c, -1)  # taken in sight of all: no epoch (see `tag`)
        self.emit({"type": "take", "player": me, "card": CODE[c]})
        self._purge()

    def _g_swap(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        if t >= 0 and t != self.pos[q]:
            for v in self.at(t):
                if out is None:
                    return True
                out.append((A_PIECE + v,))
        return False

    def _x_swap(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        v = seq[0] - A_PIECE
        here = self.pos[q]
        self._place(q, self.pos[v])
        self._move(v, here)

    def _g_bomb(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if out is None:
            return True
        out.append(())
        return False

    def _x_bomb(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        for v in self.at(self.pos[q]):
            self._destroy(v, "sacrifice")

    def _g_plague(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if any(self.hands[p] for p in range(self.players) if p != me):
            if out is None:
                return True
            out.append(())
        return False

    def _x_plague(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        for p in range(self.players):
            if p != me and self.hands[p]:
                hand = self.hands[p]
                self.undo_barrier()  # a random card of another hand comes to light
                c = hand.pop(derive(self.seed, self.salt, "plague", len(self.history), p).randrange(len(hand)))
                self.discard = [*self.discard, c]  # replaced, never changed in place: see `_copy`
                self.emit({"type": "discard", "player": p, "cards": [CODE[c]]})

    def _g_push(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        if t >= 0 and t != self.pos[q] and self.occ[t]:
            if out is None:
                return True
            out.append(())
        return False

    def _x_push(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        t = self.target(q)
        d = NB[t][self.orient[q]]
        ok = self.habitable(d)
        for v in self.at(t):
            if ok:
                self._move(v, d)
            else:
                self._destroy(v, "pushed")

    def _g_reduce(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        if t >= 0:
            for v in self.at(t):
                if v != q:
                    if out is None:
                        return True
                    out.append((A_PIECE + v,))
        return False

    def _x_reduce(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._reduce(seq[0] - A_PIECE)

    def _g_leap(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        d = self.target(q, PARAMS[card]["distance"])
        if d != self.pos[q] and self.habitable(d) and self.room(d, POP_IGNORE[card]):
            if out is None:
                return True
            out.append(())
        return False

    def _x_leap(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._place(q, self.target(q, PARAMS[card]["distance"]))

    def _grow_twice_size(self, q: int, me: int) -> int:
        s = size_of(q)
        if s == 0 and self.stash(me, 2) >= 0:
            return 2
        return s + 1 if s < 2 and self.stash(me, s + 1) >= 0 else -1

    def _g_grow_twice(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if self._grow_twice_size(q, me) > 0:
            if out is None:
                return True
            out.append(())
        return False

    def _x_grow_twice(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._swap_size(q, self.stash(me, self._grow_twice_size(q, me)))

    def _g_colonize(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        if t != self.pos[q] and self.habitable(t) and self.room(t, POP_IGNORE[card]):
            for s in range(size_of(q) + 1):
                if self.stash(me, s) >= 0:
                    if out is None:
                        return True
                    out.append((A_SIZE + s,))
        return False

    def _x_colonize(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._place(self.stash(me, seq[0] - A_SIZE), self.target(q))

    def _g_grow_all(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        here = self.pos[q]
        if any(owner_of(v) == me and size_of(v) < 2 and self.stash(me, size_of(v) + 1) >= 0
               for v in self.at(here)):
            if out is None:
                return True
            out.append(())
        return False

    def _x_grow_all(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        mine = sorted((v for v in self.at(self.pos[q]) if owner_of(v) == me), key=size_of, reverse=True)
        for v in mine:
            s = size_of(v)
            new = self.stash(me, s + 1) if s < 2 else -1
            if new >= 0:
                self._swap_size(v, new)

    def _g_discover(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if not self.can_draw():
            return False
        for d in self.perimeter():
            if not self.others_at(d, me):
                if out is None:
                    return True
                out.append((A_CELL + d,))
        return False

    def _x_discover(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._build_at(seq[0] - A_CELL)

    def _g_swap_territory(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        if t >= 0 and t != self.pos[q] and (t in self.stacks or self.pos[q] in self.stacks):
            if out is None:
                return True
            out.append(())
        return False

    def _x_swap_territory(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        here, t = self.pos[q], self.target(q)
        stacks = self.stacks = self.stacks.copy()  # replaced, never changed in place: `stacks`
        a, b = stacks.pop(here, None), stacks.pop(t, None)
        if a:
            stacks[t] = a
        if b:
            stacks[here] = b
        self._purge()

    def _g_rally(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        here = self.pos[q]
        if self.room(here, POP_IGNORE[card]):
            for v in self.on_board(me):
                if self.pos[v] != here:
                    if out is None:
                        return True
                    out.append((A_PIECE + v,))
        return False

    def _x_rally(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._place(seq[0] - A_PIECE, self.pos[q])

    def _g_resurrect(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        if self.room(self.pos[q], POP_IGNORE[card]):
            for s in range(3):
                if self.stash(me, s) >= 0:
                    if out is None:
                        return True
                    out.append((A_SIZE + s,))
        return False

    def _x_resurrect(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        self._place(self.stash(me, seq[0] - A_SIZE), self.pos[q])

    def _g_convert(self, card: int, q: int, me: int, out: list[tuple[int, ...]] | None) -> bool:
        t = self.target(q)
        if t < 0:
            return False
        for v in self.at(t):
            if owner_of(v) != me and size_of(v) <= size_of(q) and self.stash(me, size_of(v)) >= 0:
                if out is None:
                    return True
                out.append((A_PIECE + v,))
        return False

    def _x_convert(self, card: int, q: int, me: int, seq: tuple[int, ...]) -> None:
        v = seq[0] - A_PIECE
        new = self.stash(me, size_of(v))
        self._place(new, self.pos[v], self.orient[v])
        self._destroy(v, "converted")

    # ----- the turn -------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self.to_move is None:
            return []
        return self._cached_legal().copy()

    def is_legal(self, action: Any) -> bool:  # Any: see State.is_legal
        if self.to_move is None:
            return False
        legal = self._cached_legal()
        if type(action) is not int:  # (an int-like from outside: compared generically)
            return action in legal
        a: int = action
        for x in legal:  # a short list (a few dozen at most), compared as machine ints compiled
            if x == a:
                return True
        return False

    def _compute_legal(self) -> list[int]:
        if self.stage == CHAIN:
            firsts: list[int] = []
            for seq in self.cands:
                a = seq[0]
                if not firsts or firsts[-1] < a:  # (the sequences mostly come in order)
                    firsts.append(a)
                else:
                    _insort(firsts, 0, a)
            return firsts
        if self.stage == REORIENTING:
            return [A_ORIENT + o for o in range(5)]
        me = self.to_move
        assert me is not None
        mine = self.on_board(me)
        out: list[Any] = []  # the actions from _ACTION (see there)
        if not mine:  # Playing: place a small pyramid on any card, if none on the board
            for c in sorted(self.stacks):
                if self.room(c):
                    out.append(_ACTION[A_CELL + c])
        hand = self.hands[me]
        asked = usable = 0  # bit k: Common ability k asked, and usable by a pyramid of mine
        cards: list[int] = []  # the playable cards, ascending whatever the hand's order
        for i in range(len(hand)):
            c = hand[i]
            ks = _AS_HAND[c]
            if ks:
                # Used as Common abilities, which read no hand: each asked once a decision.
                ok = False
                for k in ks:
                    if not asked >> k & 1:
                        asked |= 1 << k
                        if self._any_usable(PROTO[k], mine, me):
                            usable |= 1 << k
                    if usable >> k & 1:
                        ok = True
                        break
            else:
                hand.pop(i)  # the played card leaves the hand before it resolves (hand limit)
                if _REQ[c] & _R_NO_PYRAMID:
                    ok = self._usable(c, -1, me, True)
                else:
                    ok = self._any_usable(c, mine, me)
                hand.insert(i, c)
            if ok:
                if cards and cards[-1] > c:
                    _insort(cards, 0, c)
                else:
                    cards.append(c)
        for c in cards:
            out.append(_ACTION[A_CARD + c])
        tops, pos = self.cards(), self.pos
        for q in mine:
            top = tops[pos[q]]  # (the top card plus one: see `cards`)
            if top and self._usable(top - 1, q, me, False):
                out.append(_ACTION[A_PIECE + q])
        k = min(min(DRAW_MAX, HAND_LIMIT - len(hand)), self.can_draw())  # (two-argument min compiles inline)
        for n in range(k):  # (a loop: `out += range(...)` is a generic call compiled)
            out.append(_ACTION[A_DRAW + n])
        if hand:
            out.append(_ACTION[DISCARD])
        out.append(_ACTION[PASS])
        if self.reshuffles >= 1 and self.declared < 0:
            out.append(_ACTION[DECLARE])
        if mine:
            out.append(_ACTION[REORIENT])
        return out

    def _apply(self, a: int) -> None:
        me = self.to_move
        assert me is not None
        self._legal = None
        events = self._writable_log()
        if events is not None:  # compact: the dict is made when the log is read (_format_event)
            events.append((None, (me, _ACTION[a], self.stage, self._act_detail(a))))
        if self.stage == CHAIN:
            self.chosen = [*self.chosen, _ACTION[a]]  # replaced, never changed in place: see `_copy`
            self.cands = [c[1:] for c in self.cands if c[0] == a]
            if len(self.cands) == 1 and not self.cands[0]:  # complete
                self._execute()
            return
        if self.stage == REORIENTING:
            q = self.reo[0]
            self.reo = self.reo[1:]  # replaced, never changed in place: see `_copy`
            self.orient[q] = a - A_ORIENT
            if not self.reo:
                self._end_turn()
            return
        if a < A_CARD:
            self._place(self.stash(me, 0), a - A_CELL)
            self._end_turn()
        elif a < A_PIECE:
            c = a - A_CARD
            self.hands[me].remove(c)
            self.playing = c
            if NO_PYRAMID[c]:
                cands = self._seqs(c, -1, me, True)
            else:
                cands = [(A_PIECE + q, *s) for q in self.on_board(me) for s in self._seqs(c, q, me, True)]
            self._start_chain(("hand", c), cands)
        elif a < A_ORIENT:
            q = a - A_PIECE
            card = self.top(self.pos[q])
            self._start_chain(("board", card, q), self._seqs(card, q, me, False))
        elif A_DRAW <= a < DISCARD:
            self._draw_to_hand(me, a - A_DRAW + 1)
            self._end_turn()
        elif a == DISCARD:
            self.emit({"type": "discard", "player": me, "cards": [CODE[c] for c in self.hands[me]]})
            self.discard = self.discard + self.hands[me]  # replaced, never changed in place
            self.hands[me] = []
            self._end_turn()
        elif a == PASS:
            self._end_turn()
        elif a == DECLARE:
            # Declare the final round: everyone gets one more turn, the declarer the last.
            self.declared = me
            self.turns_left = self.players + 1
            self.emit({"type": "declare", "player": me})
            self._end_turn()
        elif a == REORIENT:
            self.reo = self.on_board(me)
            self.stage = REORIENTING
        else:  # pragma: no cover - _compute_legal offers nothing else
            raise IllegalAction(f"action {a} is not a turn option")

    def _start_chain(self, ctx: tuple[Any, ...], cands: list[tuple[int, ...]]) -> None:
        self.stage = CHAIN
        self.ctx = ctx
        self.chosen = []
        self.cands = cands
        if len(cands) == 1 and not cands[0]:  # nothing to choose: at once
            self._execute()

    def _follow(self, ctx: tuple[Any, ...], cands: list[tuple[int, ...]]) -> None:
        self._next = (ctx, cands)

    def _pop_next(self) -> tuple[tuple[Any, ...], list[tuple[int, ...]]] | None:
        """The chain `_follow` queued while the step ran. A method of its own because a type
        checker keeps ``self._next`` narrowed to ``None`` across the calls in `_execute`, and a
        mypyc build would then refuse the tuple."""
        nxt, self._next = self._next, None
        return nxt

    def _execute(self) -> None:
        me = self.to_move
        assert me is not None
        ctx, seq = self.ctx, tuple(self.chosen)
        self._next = None
        stacks = self.stacks
        kind: str = ctx[0]  # (typed: compiled, compared as strings, not generically)
        if kind == "hand":
            c = ctx[1]
            q = -1
            if not NO_PYRAMID[c]:
                q, seq = seq[0] - A_PIECE, seq[1:]
            self._run(c, q, me, seq, True)
        elif kind == "board":
            self._run(ctx[1], ctx[2], me, seq, False)
        elif kind == "step":
            if seq[0] != DONE:
                q = ctx[1]
                self._place(q, NB[self.pos[q]][seq[0] - A_ORIENT])
        elif kind == "attack" and seq[0] != DONE:
            self._x_attack(ctx[2], ctx[1], me, seq[1:])
        # Only a card going can leave a pyramid alone in the wasteland (every move checks where
        # it lands), and a step that takes one changes the stacks (see ``stacks``).
        if self.stacks is not stacks:
            self._purge()
        nxt = self._pop_next()
        if nxt is not None and self.pos[nxt[0][1]] >= 0:
            self._start_chain(*nxt)
        else:
            if self.playing >= 0:
                # Playing: "The card is then discarded", after its whole ability, the optional
                # second step of Attack Twice or Move Twice included (ruling R4).
                self.discard = [*self.discard, self.playing]  # replaced, never changed in place
                self.playing = -1
            self._end_turn()

    def _end_turn(self) -> None:
        self.undo_barrier()  # a turn, once complete, is confirmed
        self.stage = MAIN
        # (emptied only when not empty already: each is replaced, never changed in place)
        if self.cands:
            self.cands = []
        if self.chosen:
            self.chosen = []
        self.ctx = ()
        if self.reo:
            self.reo = []
        self._recenter()
        if self.declared >= 0:
            self.turns_left -= 1
            if self.turns_left == 0:
                self.to_move = None
                self.emit({"type": "game_end", "scores": self.scores(), "ranking": self.ranking()})
                return
        assert self.to_move is not None
        self.to_move = (self.to_move + 1) % self.players
        self.turn += 1

    def _recenter(self) -> None:
        """Shift the board inside the window when it comes within two spaces of an edge."""
        # The usual case: no card within three spaces of an edge, so no pyramid within two
        # (every pyramid is on a card or beside one: `_purge`). Tested once per stacks (see
        # ``stacks``), in a loop: compiled, a frozenset's isdisjoint is a call by name.
        if self._centred is self.stacks:
            return
        for c in self.stacks:
            if _NEAR_EDGE[c]:
                break
        else:
            self._centred = self.stacks
            return
        cells = [*self.stacks, *[c for c in self.pos if c >= 0]]
        xs = [_X[c] for c in cells]
        ys = [_Y[c] for c in cells]
        if min(xs) >= 2 and max(xs) <= W - 3 and min(ys) >= 2 and max(ys) <= H - 3:
            return
        dx = (W - 1 - max(xs) - min(xs)) // 2
        dy = (H - 1 - max(ys) - min(ys)) // 2
        if dx == 0 and dy == 0:
            return
        shift = dy * W + dx
        self.stacks = {c + shift: s for c, s in self.stacks.items()}
        self.pos = [c + shift if c >= 0 else -1 for c in self.pos]
        self.occ = _occupancy(self.pos)
        self.emit({"type": "recenter", "dx": dx, "dy": dy})

    # ----- results -------------------------------------------------------------------------
    def _card_owners(self) -> dict[int, set[int]]:
        """Each occupied cell's card: the players with a pyramid on it."""
        owners: dict[int, set[int]] = {}
        for q, c in enumerate(self.pos):
            if c >= 0 and c in self.stacks:
                owners.setdefault(c, set()).add(owner_of(q))
        return owners

    def sole_cards(self) -> list[list[int]]:
        """Per player, the cards they occupy alone (Scoring: a shared card scores for nobody)."""
        owners = self._card_owners()
        out: list[list[int]] = [[] for _ in range(self.players)]
        for c, who in owners.items():
            if len(who) == 1:
                out[next(iter(who))].append(self.stacks[c][-1])
        return out

    def scores(self) -> list[float]:
        return [float(sum(VALUE[c] for c in cards)) for cards in self.sole_cards()]

    def scoring_lines(self, player: int) -> list[tuple[str, float]]:
        """Scoring and Winning: each card the player's pyramids occupy by themselves scores its
        value; a card shared with another player scores for neither (listed at 0, so the
        table shows why it did not count)."""
        owners = self._card_owners()
        mine = sorted((self.stacks[c][-1] for c, who in owners.items() if player in who and len(who) == 1),
                      key=lambda k: (-VALUE[k], NAME[k]))
        shared = sorted((self.stacks[c][-1] for c, who in owners.items() if player in who and len(who) > 1),
                        key=lambda k: (-VALUE[k], NAME[k]))
        lines = [(f"{NAME[k]}, occupied alone", float(VALUE[k])) for k in mine]
        lines += [(f"{NAME[k]}, shared with another player: scores for nobody", 0.0) for k in shared]
        return lines or [("No card occupied", 0.0)]

    def ranking(self) -> list[int]:
        """Ties share the win. The optional rule: "of the tied players, whoever solely occupies the
        highest ranked card ... wins": the highest solely occupied card decides, and equal
        highest cards stay tied (ruling R15); option ``tiebreak_depth="all"`` then compares the
        next highest, and so on. A player who solely occupies no card has none (-1)."""
        if not self.tiebreak:
            return super().ranking()
        sole = [sorted((VALUE[c] for c in cs), reverse=True) for cs in self.sole_cards()]
        if self.tiebreak_all:
            keys = [(sum(vs), vs) for vs in sole]
        else:
            keys = [(sum(vs), [vs[0] if vs else -1]) for vs in sole]
        return [1 + sum(1 for other in keys if other > mine) for mine in keys]

    # ----- information ---------------------------------------------------------------------
    def view(self, player: int | None) -> dict[str, Any]:
        v: dict[str, Any] = {
            "game": "zarcana",
            "player": player,
            "players": self.players,
            "tiebreak": self.tiebreak,
            "window": [W, H],
            "to_move": self.to_move,
            "turn": self.turn,
            "board": [{"x": c % W, "y": c // W, "stack": [CODE[k] for k in s], "name": NAME[s[-1]],
                       "value": VALUE[s[-1]], "text": TEXT[s[-1]]} for c, s in sorted(self.stacks.items())],
            "pyramids": [
                {"id": q, "owner": owner_of(q), "size": SIZE_NAMES[size_of(q)], "x": c % W, "y": c // W,
                 "orient": ORIENT_NAMES[self.orient[q]]}
                for q, c in enumerate(self.pos) if c >= 0
            ],
            "stash": [[sum(1 for q in range(p * PIECES + s * PER_SIZE, p * PIECES + (s + 1) * PER_SIZE)
                           if self.pos[q] < 0) for s in range(3)] for p in range(self.players)],
            "hand_sizes": [len(h) for h in self.hands],
            "deck_size": len(self.deck),
            "discard": [CODE[c] for c in self.discard],
            "reshuffles": self.reshuffles,
            "declared_by": self.declared if self.declared >= 0 else None,
            "turns_left": self.turns_left if self.declared >= 0 else None,
            "stage": self.stage,
            "playing": CODE[self.playing] if self.playing >= 0 else None,
            "playing_name": NAME[self.playing] if self.playing >= 0 else None,
            "chosen": [self.action_to_json(a) for a in self.chosen],
            "reorient_next": piece_label(self.reo[0]) if self.reo else None,
            "scores": self.scores(),
            "final_scoring": self.final_scoring(),
            "over": self.to_move is None,
        }
        if player is not None:
            v["hand"] = sorted(CODE[c] for c in self.hands[player])
            v["hand_cards"] = [{"code": CODE[c], "name": NAME[c], "value": VALUE[c], "text": TEXT[c]}
                               for c in sorted(self.hands[player], key=lambda c: CODE[c])]
            if player == self.to_move:
                v["legal"] = self.legal_actions()
        if self.to_move is None:
            v["ranking"] = self.ranking()
        return v

    def _copy(self) -> ZarcanaState:
        # Every attribute, in `__init__`'s order (see `State._copy_core`); what play changes in
        # place is copied, the rest shared.
        new: ZarcanaState = self._copy_core()
        new.tiebreak = self.tiebreak
        new.tiebreak_all = self.tiebreak_all
        new.harvest_own = self.harvest_own
        new.spare_unreducible = self.spare_unreducible
        new._act_info = self._act_info
        new.pos = self.pos.copy()
        new.orient = self.orient.copy()
        new.occ = self.occ  # bytes: shared
        new.stacks = self.stacks  # replaced when it changes, never changed in place: shared
        new.discard = self.discard  # replaced when it changes, never changed in place: shared
        new.reshuffles = self.reshuffles
        new.tag = self.tag  # replaced when it changes, never changed in place: shared
        new.declared = self.declared
        new.turns_left = self.turns_left
        new.turn = self.turn
        new.stage = self.stage
        new.cands = self.cands
        new.chosen = self.chosen  # (chosen and reo too are replaced, never changed in place)
        new.ctx = self.ctx
        new.playing = self.playing
        new.reo = self.reo
        new._legal = self._legal
        new._perimeter = self._perimeter
        new._centred = self._centred
        new._cardmap = self._cardmap
        new._mine = self._mine
        new._next = self._next
        new.deck = self.deck  # shared until either draws (see ``_deck_own``)
        new._deck_own = self._deck_own = False
        new.hands = [h.copy() for h in self.hands]
        new.to_move = self.to_move
        return new

    def _resample_hidden(self, player: int, rng: random.Random) -> None:
        """Other hands and the deck, shuffled within each reshuffle epoch (see ``tag``).

        A card drawn in epoch e came from the deck formed at reshuffle e, whose make-up was
        public (the discard pile), so only cards of the same epoch are interchangeable. Which
        epoch a hand card belongs to is public too: it is the last reshuffle whose deck held that
        card (Plague and plays reveal the card, hence its epoch). The sample must be a function
        of ``player``'s information only, so that search on a resampled world learns nothing:
        every pool is sorted before shuffling, each hand takes its epoch's cards by public
        counts, a card dealt into a slot takes that slot's epoch (a stale tag would make the
        next resample partition by hidden history), and resampled hands are kept sorted (their
        order, which Plague's random pick reads, would otherwise carry the hidden order).
        """
        self._legal = None
        others = [p for p in range(self.players) if p != player]
        tag = self.tag = self.tag.copy()  # (shared with the state this copy was made from)
        # Per opponent: the cards everyone saw arrive (kept) and how many slots each epoch has.
        new_hands = {p: [c for c in self.hands[p] if tag[c] < 0] for p in others}
        counts = {p: Counter(tag[c] for c in self.hands[p] if tag[c] >= 0) for p in others}
        epochs = sorted({e for n in counts.values() for e in n} | {self.reshuffles})
        for e in epochs:
            pool = sorted(c for p in others for c in self.hands[p] if tag[c] == e)
            if e == self.reshuffles:
                pool = sorted(pool + self.deck)
            shuffle(rng, pool)
            k = 0
            for p in others:
                n = counts[p][e]
                for c in pool[k:k + n]:
                    tag[c] = e
                    new_hands[p].append(c)
                k += n
            if e == self.reshuffles:
                self.deck = pool[k:]
        for p in others:
            self.hands[p] = sorted(new_hands[p])

    # ----- actions -------------------------------------------------------------------------
    def action_to_json(self, action: int) -> dict[str, Any]:
        if A_CELL <= action < A_CARD:
            return {"cell": list(cell_xy(action - A_CELL))}
        if action < A_PIECE:
            return {"card": CODE[action - A_CARD]}
        if action < A_ORIENT:
            return {"pyramid": piece_label(action - A_PIECE)}
        if action < A_SIZE:
            return {"orient": ORIENT_NAMES[action - A_ORIENT]}
        if action < A_ABIL:
            return {"size": SIZE_NAMES[action - A_SIZE]}
        if action < A_DRAW:
            return {"ability": TYPE_ORDER[action - A_ABIL]}
        if action < DISCARD:
            return {"draw": action - A_DRAW + 1}
        return {"do": _MISC[action]}

    def action_from_json(self, obj: Any) -> int:
        if isinstance(obj, dict) and len(obj) == 1:
            (key, val), = obj.items()
            a = -1
            if key == "do" and val in _MISC_ID:
                a = _MISC_ID[val]
            elif key == "card" and val in CARD_ID:
                a = A_CARD + CARD_ID[val]
            if a >= 0:
                if self.is_legal(a):
                    return a
                raise IllegalAction(f"{obj!r} is not legal now")
        return super().action_from_json(obj)

    def _act_detail(self, a: int) -> dict[str, Any]:
        """What a logged action's sentence needs that the action alone does not say: the card
        on the chosen space or under the chosen pyramid, the pyramid being turned."""
        if A_CELL <= a < A_CARD:
            c = self.top(a - A_CELL)
            return _ON_CARD[c] if c >= 0 else _ON_NOTHING
        if A_PIECE <= a < A_ORIENT:
            cell = self.pos[a - A_PIECE]
            c = self.top(cell) if cell >= 0 else -1
            return _ON_CARD[c] if c >= 0 else _ON_NOTHING
        if A_ORIENT <= a < A_SIZE and self.stage == REORIENTING and self.reo:
            q = self.reo[0]  # named by where it stands: a player may have several of a size
            c = self.top(self.pos[q]) if self.pos[q] >= 0 else -1
            return {"pyramid": piece_label(q), "on": CODE[c] if c >= 0 else None}
        return _NO_DETAIL

    def _where(self, cell: int) -> str:
        """A space as a player names it: the card on it, or the empty space beside a card."""
        c = self.top(cell)
        if c >= 0:
            return f"the {NAME[c]} card"
        for d, n in zip(("south", "west", "north", "east"), NB[cell][1:], strict=True):
            if n >= 0 and self.top(n) >= 0:
                return f"the empty space {d} of the {NAME[self.top(n)]} card"
        return "an empty space"

    def _pyramid(self, q: int) -> str:
        who_ = whose(owner_of(q), self.to_move)
        size = SIZE_NAMES[size_of(q)]
        if self.pos[q] < 0:
            return f"{who_} {size} pyramid"
        facing = ORIENT_WORDS[ORIENT_NAMES[self.orient[q]]]
        facing = facing if self.orient[q] == 0 else f"pointing {facing}"
        return f"{who_} {size} pyramid ({facing}) on {self._where(self.pos[q])}"

    def log(self, player: int | None, start: int = 0, text: bool = True,
            names: Sequence[str | None] | None = None) -> list[dict[str, Any]]:
        self._act_info.clear()  # the ids of earlier calls' dicts may be reused: forget them
        return super().log(player, start, text, names)

    def _event_text(self, event: dict[str, Any], player: int | None) -> str:
        t = event["type"]
        p: Any = event.get("player")  # events without a player never use it
        if t == "deal":
            return f"You are dealt {listing(NAME[CARD_ID[c]] for c in event['hand'])}."
        if t == "setup":
            return f"The board is laid out: {listing(NAME[CARD_ID[c[2]]] for c in event['board'])}."
        if t == "act":
            return self._act_text(event, player)
        if t == "discard":
            return f"{does(p, player, 'discard', 'discards')} {listing(NAME[CARD_ID[c]] for c in event['cards'])}."
        if t == "draw":
            return f"{does(p, player, 'draw', 'draws')} {plural(event['count'], 'card')}."
        if t == "drew":
            return f"You draw {listing(NAME[CARD_ID[c]] for c in event['cards']) or 'nothing'}."
        if t == "build":
            return f"The {NAME[CARD_ID[event['card']]]} card is built onto the board."
        if t == "card_destroyed":
            return f"The {NAME[CARD_ID[event['card']]]} card is destroyed."
        if t == "clone":
            return f"A clone appears: {piece_words(event['pyramid'], player)}."
        if t == "create":
            return f"A new pyramid is placed: {piece_words(event['pyramid'], player)}."
        if t == "attack":
            return f"{capital(piece_words(event['by'], player))} attacks {piece_words(event['target'], player)}."
        if t == "destroyed":
            why = {"attacked": "by the attack", "reduced": "with no smaller pyramid left to replace it",
                   "isolated": "alone in the wasteland", "sacrifice": "as a sacrifice", "pushed": "pushed off",
                   "converted": "to be converted"}.get(event["why"], "")
            return f"{capital(piece_words(event['pyramid'], player))} is destroyed {why}.".replace(" .", ".")
        if t == "unharmed":
            return f"{capital(piece_words(event['pyramid'], player))} has no smaller size left and is unharmed."
        if t == "grow":
            return f"{capital(piece_words(event['pyramid'], player))} grows to {event['to'].split()[1][0].replace('M', 'medium').replace('L', 'large').replace('S', 'small')}."
        if t == "reduced":
            return f"{capital(piece_words(event['pyramid'], player))} is reduced to {event['to'].split()[1][0].replace('M', 'medium').replace('L', 'large').replace('S', 'small')}."
        if t == "reshuffle":
            return f"The discard pile is shuffled into a new deck of {plural(event['deck'], 'card')} (reshuffle {event['count']})."
        if t == "transport":
            return "A stack of cards is carried to another space."
        if t == "take":
            return f"{does(p, player, 'take', 'takes')} the {NAME[CARD_ID[event['card']]]} card into {'your' if p == player else 'their'} hand."
        if t == "copy":
            return f"It copies {NAME[CARD_ID[event['card']]]}."
        if t == "declare":  # the declaring action has its own sentence: say what follows
            return "The final round begins: everyone has one more turn."
        if t == "recenter":
            return "The board is shifted to stay in view."
        if t == "game_end":
            best = [q for q, r in enumerate(event["ranking"]) if r == 1]
            return winners(best, player) + "."
        return super()._event_text(event, player)

    def _format_event(self, event: Any) -> dict[str, Any]:
        """An act event, logged by `_apply` as ``(player, action, stage, detail)``, or a draw,
        logged by `_draw_to_hand` as ``("draw", player, count)`` and ``("drew", cards)``."""
        if event[0] == "draw":
            return {"type": "draw", "player": event[1], "count": event[2]}
        if event[0] == "drew":
            return {"type": "drew", "cards": [CODE[c] for c in event[1]]}
        me, a, stage, detail = event
        out = {"type": "act", "player": me, "action": self.action_to_json(a)}
        self._act_info[id(out)] = (stage, detail)
        return out

    def _act_text(self, event: dict[str, Any], player: int | None) -> str:
        stage, detail = self._act_info.get(id(event), (None, {}))
        event = {**event, **detail}
        p, j, main = event["player"], event["action"], stage == MAIN
        on = card_words(event.get("on"))
        if "cell" in j:
            if main:
                return f"{does(p, player, 'place', 'places')} a small pyramid on {on}."
            return f"{does(p, player, 'choose', 'chooses')} {on}."
        if "card" in j:
            card = NAME[CARD_ID[j["card"]]]
            return f"{does(p, player, 'play', 'plays')} {card} from hand." if main else f"{does(p, player, 'choose', 'chooses')} {card}."
        if "pyramid" in j:
            pyr = piece_words(j["pyramid"], player, p)
            if main:  # the pyramid is the sentence's subject: name its owner
                own = piece_words(j["pyramid"], player)
                return f"{capital(own)} uses {on}." if event.get("on") else f"{does(p, player, 'choose', 'chooses')} {pyr}."
            return f"{does(p, player, 'choose', 'chooses')} {pyr} on {on}."
        if "orient" in j:
            it = f"{piece_words(event['pyramid'], player, p)} on {on}" if "pyramid" in event else "the pyramid"
            if j["orient"] == "up":
                return f"{does(p, player, 'stand', 'stands')} {it} up."
            return f"{does(p, player, 'point', 'points')} {it} {ORIENT_WORDS[j['orient']]}."
        if "size" in j:
            return f"{does(p, player, 'choose', 'chooses')} a {j['size']} pyramid."
        if "ability" in j:
            return f"{does(p, player, 'use', 'uses')} it as {TYPES[j['ability']]['name']}."
        if "draw" in j:
            return f"{does(p, player, 'choose', 'chooses')} to draw {plural(j['draw'], 'card')}."
        return {
            "discard": f"{does(p, player, 'discard', 'discards')} {'your' if p == player else 'their'} hand.",
            "pass": f"{does(p, player, 'pass', 'passes')}.",
            "declare": f"{does(p, player, 'declare', 'declares')} the final round.",
            "reorient": f"{does(p, player, 'turn', 'turns')} {'your' if p == player else 'their'} pyramids.",
            "grow": f"{does(p, player, 'choose', 'chooses')} to grow.",
            "done": f"{does(p, player, 'stop', 'stops')} there.",
        }[j["do"]]

    def describe(self, action: int) -> str:
        j = self.action_to_json(action)
        if "cell" in j:
            where = self._where(action - A_CELL)
            return f"place a small pyramid on {where}" if self.stage == MAIN else f"choose {where}"
        if "card" in j:
            return f"play {NAME[action - A_CARD]} from hand" if self.stage == MAIN else f"choose {NAME[action - A_CARD]}"
        if "pyramid" in j:
            q = action - A_PIECE
            if self.stage == MAIN and self.pos[q] >= 0 and self.top(self.pos[q]) >= 0:
                return f"{self._pyramid(q)} uses its card".replace("your", "Your", 1)
            return f"choose {self._pyramid(q)}"
        if "orient" in j:
            if self.stage == REORIENTING and self.reo:
                it = self._pyramid(self.reo[0])
                return f"stand {it} up" if j["orient"] == "up" else f"turn {it} to point {ORIENT_WORDS[j['orient']]}"
            return "stand it up" if j["orient"] == "up" else f"point it {ORIENT_WORDS[j['orient']]}"
        if "size" in j:
            return f"clone a {j['size']} pyramid"
        if "ability" in j:
            return f"as {TYPES[j['ability']]['name']}"
        if "draw" in j:
            return f"draw {j['draw']} card" + ("s" if j["draw"] > 1 else "")
        return {"discard": "discard your hand", "pass": "pass", "declare": "declare the final round",
                "reorient": "turn your pyramids", "grow": "grow", "done": "stop here"}[j["do"]]
