"""Scarvus (Reiner Knizia's *Icarus*, Victory Point Games 2015): bid on colour totals, call bluffs.

Rulebook: shared/rules/000 (VPG rules). Section names in docstrings refer to it. Rulings, options
and the reconstructed Flight cards: docs/games/scarvus.md. Components: components.json and
flight_cards.json.

Representation (ints on the hot path): ``hand[p * 7 + c]`` is player p's card of colour c, or -1
once the colour is out of play (or p is out of the game); decks and discard piles are lists of
values per colour, the top at the end; Flight hands are counts per effect. Private knowledge a
player gains from Flight cards is a bitmask of ``owner * 7 + colour`` (owner 7 is the Daedalus
Hand), so what they saw is read from the card itself and stays right when hidden cards are
resampled.

A turn is a chain of atomic decisions: Card Step actions (pass, swap, reveal, Flight cards), one
bid, then each responder's accept/challenge. Actions (``NUM_ACTIONS`` = 57 + 7 x the bid cap):

    0 pass (end the Card Step)      1-7 swap colour      8-14 reveal colour (Fancy Flying)
    15 accept   16 challenge        17 play Updraft      18-24 Scouting Flight on a colour
    25-31 Sun Flare on a colour     32-38 Daedalus' Counsel on a colour
    39-45 Sharp Eyes on a player    46 keep the scouted card   47 discard the scouted card
    48 play Wax Repair   49 decline it                   50-56 discard a Flight card (hand limit)
    57 + (number - 1) * 7 + colour  bid
"""

from __future__ import annotations

import json
import random
from importlib import resources
from typing import Any, Final

from meeple.core import BadOption, IllegalAction, State
from meeple.core.game import mypyc_attr, replaced
from meeple.core.rng import shuffle, shuffler
from meeple.core.text import does, name, plural, seat, whose, winners

# ----- components, read from data --------------------------------------------------------------
_DATA = json.loads(resources.files(__package__).joinpath("components.json").read_text())
_FLIGHT = json.loads(resources.files(__package__).joinpath("flight_cards.json").read_text())

COLOURS: Final[list[str]] = _DATA["colours"]["names"]
NC: Final = len(COLOURS)  # 7
COLOUR_ID: Final = {name: i for i, name in enumerate(COLOURS)}
DECK: Final[tuple[int, ...]] = tuple(_DATA["deck"]["values"])
MAX_VALUE: Final = max(DECK)
VALUE_COUNTS: Final[tuple[int, ...]] = tuple(DECK.count(v) for v in range(MAX_VALUE + 1))
MIN_PLAYERS: Final[int] = _DATA["players"]["min"]
MAX_PLAYERS: Final[int] = _DATA["players"]["max"]
DAEDALUS: Final = MAX_PLAYERS  # the owner index of the Daedalus Hand in knowledge bitmasks
CAP: Final[int] = _DATA["bid_track"]["cap"]
FIRST_BID: Final[int] = _DATA["bid_track"]["first"]
SINGED: Final[int] = _DATA["feathers"]["singed"]
BURNT: Final[int] = _DATA["feathers"]["burnt"]
SINGED_MAX: Final[int] = _DATA["feathers"]["singed_max_difference"]
TOKENS: Final[int] = _DATA["feathers"]["tokens"]
END_AT: Final[int] = _DATA["feathers"]["end_at"]
FEATHER_CHOICES: Final[tuple[int, ...]] = tuple(_DATA["longer_flights"]["choices"])
FLIGHT_LIMIT: Final[int] = _DATA["flight_hand_limit"]["between_matches"]
FIGHT = _DATA["fight_in_the_skies"]
RECOMMENDED_LIVES: Final[int] = FIGHT["recommended_lives"]
MORE_LIVES_MAX_PLAYERS: Final[int] = FIGHT["more_lives_max_players"]
MAX_LIVES: Final[int] = FIGHT["max_lives"]

# The seven Flight effects the engine implements, in action-layout order.
EFFECTS: Final = ("updraft", "scout", "sun_flare", "counsel", "sharp_eyes", "tailwind", "wax_repair")
UPDRAFT_T: Final = EFFECTS.index("updraft")
SCOUT_T: Final = EFFECTS.index("scout")
FLARE_T: Final = EFFECTS.index("sun_flare")
COUNSEL_T: Final = EFFECTS.index("counsel")
EYES_T: Final = EFFECTS.index("sharp_eyes")
TAILWIND_T: Final = EFFECTS.index("tailwind")
WAX_T: Final = EFFECTS.index("wax_repair")
FLIGHT_CARDS: Final[list[dict[str, Any]]] = _FLIGHT["cards"]
FLIGHT_DECK: Final[tuple[int, ...]] = tuple(EFFECTS.index(c["effect"]) for c in FLIGHT_CARDS)
FLIGHT_NAMES: Final[tuple[str, ...]] = tuple(
    next(c["name"] for c in FLIGHT_CARDS if c["effect"] == e) for e in EFFECTS
)
NE: Final = len(EFFECTS)

# Knowledge bitmasks (see the module docstring): every owner's card of one colour, and every card
# of one owner. A card that leaves play takes what anyone saw of it along (`_forget_mask`).
COLOUR_BITS: Final[tuple[int, ...]] = tuple(sum(1 << (o * NC + c) for o in range(DAEDALUS + 1)) for c in range(NC))
OWNER_BITS: Final[tuple[int, ...]] = tuple(((1 << NC) - 1) << (o * NC) for o in range(DAEDALUS + 1))

# ----- the action layout -------------------------------------------------------------------------
PASS: Final = 0
SWAP: Final = 1
REVEAL: Final = SWAP + NC
ACCEPT: Final = REVEAL + NC
CHALLENGE: Final = ACCEPT + 1
UPDRAFT: Final = CHALLENGE + 1
SCOUT: Final = UPDRAFT + 1
FLARE: Final = SCOUT + NC
COUNSEL: Final = FLARE + NC
EYES: Final = COUNSEL + NC
KEEP: Final = EYES + MAX_PLAYERS
DROP: Final = KEEP + 1
WAX: Final = DROP + 1
DECLINE: Final = WAX + 1
DISCARD_FLIGHT: Final = DECLINE + 1
BID: Final = DISCARD_FLIGHT + NE
NUM_ACTIONS: Final = BID + NC * CAP

# Phases: whose decision it is and what kind.
PHASE_NAMES: Final = ("card", "scouting", "bid", "respond", "loss", "hand_limit")
CARD: Final = PHASE_NAMES.index("card")
SCOUTING: Final = PHASE_NAMES.index("scouting")
BIDDING: Final = PHASE_NAMES.index("bid")
RESPOND: Final = PHASE_NAMES.index("respond")
LOSS: Final = PHASE_NAMES.index("loss")
HAND_LIMIT: Final = PHASE_NAMES.index("hand_limit")


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th ... (at most seven flyers)."""
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th')}"


def bid_action(number: int, colour: int) -> int:
    """The action of bidding ``number`` in ``colour`` (1 <= number <= CAP)."""
    return BID + (number - 1) * NC + colour


def bid_of(action: int) -> tuple[int, int]:
    """(number, colour) of a bid action."""
    k = action - BID
    n = k // NC  # (not divmod: a compiled build calls it generically, through a tuple)
    return n + 1, k - n * NC


# Every bid of 1..CAP in the colours of ``in_play``, ascending, by ``in_play``: made on first use,
# then only ever sliced, never changed (the Bid Step's legal actions, a hot path).
_ALL_BIDS: Final[dict[int, list[int]]] = {}


def _bids_from(in_play: int, lo: int) -> list[int]:
    """Every bid of ``lo``..CAP in the colours of ``in_play``, ascending: a new list."""
    bids = _ALL_BIDS.get(in_play)
    if bids is None:
        colours = [c for c in range(NC) if in_play >> c & 1]
        bids = _ALL_BIDS[in_play] = [BID + (n - 1) * NC + c for n in range(1, CAP + 1) for c in colours]
    return bids[(lo - 1) * (len(bids) // CAP) :]  # (len(bids) // CAP: the colours in play)


# The Card Step's usual legal actions by the mask of colours with cards to draw: pass, or swap
# one of those colours (made once: a Card Step comes every turn).
_COLOURS_IN: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(c for c in range(NC) if mask >> c & 1) for mask in range(1 << NC)
)
_PASS_OR_SWAP: Final[tuple[tuple[int, ...], ...]] = tuple(
    (PASS, *(SWAP + c for c in colours)) for colours in _COLOURS_IN
)
_PASS_ONLY: Final[tuple[int, ...]] = (PASS,)


def max_total(players: int) -> int:
    """The largest total a colour can reach with ``players`` hands: the cap must be at least this."""
    return sum(sorted(DECK, reverse=True)[:players])


def check(players: int, options: dict[str, Any]) -> None:
    """Reject option combinations the rulebook's components cannot support."""
    lives = options["lives"]
    if lives is not None:
        if options["feathers"] != END_AT:
            raise BadOption("scarvus: Longer Flights (feathers) has no meaning in Fight in the Skies (lives)")
        top = RECOMMENDED_LIVES if players > MORE_LIVES_MAX_PLAYERS else min(MAX_LIVES, TOKENS // players)
        if lives > top:
            raise BadOption(
                f"scarvus: Fight in the Skies with {players} players allows at most {top} lives "
                f"(Fight In The Skies: more than {RECOMMENDED_LIVES} only with "
                f"{MORE_LIVES_MAX_PLAYERS} or fewer players, and {TOKENS} tokens in all)"
            )
    elif players * (options["feathers"] - 1) + 1 > TOKENS:
        raise BadOption(
            f"scarvus: {players} players cannot play to {options['feathers']} feathers: the game "
            f"could need more than the {TOKENS} Feather tokens (Longer Flights)"
        )


def penalty(difference: int) -> int:
    """Feather value for a Challenge lost by ``difference`` (Challenge Step: Feather tokens)."""
    return SINGED if difference <= SINGED_MAX else BURNT


@mypyc_attr(allow_interpreted_subclasses=True)  # see State
class ScarvusState(State):
    """A game of Scarvus. See the module docstring for the representation and action layout."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.end_at: int = options["feathers"]
        self.daedalus_mode: bool = options["daedalus"]
        self.fancy: bool = options["fancy_flying"]
        self.talons: bool = options["talons"]
        self.fight: bool = options["lives"] is not None
        self.flight_on = self.fancy or self.talons  # Flight Cards: drawn only by these variants
        self.singed = [0] * players
        self.burnt = [0] * players
        self.lives = [options["lives"] or 0] * players
        self.alive = [True] * players
        self.out_order: list[int] = []  # Fight in the Skies: players in the order they fell
        fdeck = list(FLIGHT_DECK) if self.flight_on else []
        if fdeck:  # Flight Cards: shuffled once per game
            shuffler(seed, 0, "flight").shuffle(fdeck)
        self.flight_deck = fdeck
        self.flight_hand = [[0] * NE for _ in range(players)]
        self.flight_discard: list[int] = []
        self.match = 0
        self.round = 0
        self.bid: tuple[int, int] | None = None
        self.bidder = -1
        self.responders: list[int] = []
        self.resp_idx = 0
        self.swaps_left = 0
        self.swapped = 0
        self.updraft_used = False
        self.pending = -1  # the scouted card (Scouting Flight)
        self.pending_colour = -1
        self.res: tuple[int, int, int, int, bool] | None = None  # challenger, loser, colour, diff, talon
        self.limit_queue: list[int] = []
        self.next_starter = 0  # Set Up: the first player is seat 0
        self.last_challenge: dict[str, Any] | None = None
        self.phase = CARD
        self.to_move = 0
        self._legal = None  # see legal_actions
        self._deal()
        self._start_turn(0)

    # ----- setup ---------------------------------------------------------------------------
    def _deal(self) -> None:
        """Set Up: shuffle each colour deck, deal one card of each to every player, then the
        Daedalus Hand, removed unseen. Repeated for every Match."""
        self.match += 1
        self.round = 1
        n = self.players
        flying = [p for p in range(n) if self.alive[p]]
        self.hand = hand = [-1] * (n * NC)
        self.revealed = [0] * n
        self.decks: list[list[int]] = []
        self.discards: list[list[int]] = [[] for _ in range(NC)]
        self.daedalus = [-1] * NC
        self.peeks = [0] * n
        self.in_play = (1 << NC) - 1
        self.bid = None
        shuffle_deck = shuffler(self.seed, self.salt, "match", self.match).shuffle  # (looked up once)
        for c in range(NC):
            deck = list(DECK)
            shuffle_deck(deck)
            for p in flying:
                hand[p * NC + c] = deck.pop()
            self.daedalus[c] = deck.pop()
            self.decks.append(deck)
        if self._events is not None:  # (a search copy keeps no log)
            for p in flying:  # the hand's values unless the Daedalus Challenge hides them
                self._log(("deal", self.match, None if self.daedalus_mode else hand[p * NC : p * NC + NC]), to=p)
            self._log(("match", self.match))

    def _start_turn(self, p: int) -> None:
        """A player's turn begins with the Card Step (an optional swap). ``p`` is always flying:
        the next starter is chosen among the living (`_finish_challenge`)."""
        self.phase = CARD
        self.to_move = p
        self.swaps_left = 1
        self.swapped = 0
        self.updraft_used = False

    def _add_flight(self, p: int, t: int, n: int) -> None:
        """``n`` more Flight cards of effect ``t`` in ``p``'s hand. The hands, and the list of
        them, are replaced, never changed in place, so that copies share them (see `_copy`)."""
        self.flight_hand = replaced(self.flight_hand, p, replaced(self.flight_hand[p], t, self.flight_hand[p][t] + n))

    def _next_alive(self, p: int) -> int:
        q = (p + 1) % self.players
        while not self.alive[q]:
            q = (q + 1) % self.players
        return q

    # ----- the rules -----------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        p = self.to_move
        if p is None:
            return []
        if self.phase == BIDDING:
            return self._legal_bids(p)
        # Kept for `is_legal`, which `apply` asks next (the caller gets a copy of its own to
        # change); `_apply` and `_copy` drop it, the state having changed or being another. (Code
        # that edits a state's attributes by hand between the two must drop it too.)
        acts = self._legal = self._legal_choices(p)
        return acts.copy()

    def _legal_choices(self, p: int) -> list[int]:
        """The legal actions outside the Bid Step."""
        ph = self.phase
        if ph == RESPOND:
            acts = []
            if self.resp_idx > 0 or self.can_raise(p):
                acts.append(ACCEPT)
            acts.append(CHALLENGE)
            if self.flight_hand[p][EYES_T]:
                c = self._standing_bid()[1]
                for q in range(self.players):
                    if q != p and self._eyes_target(p, q, c):
                        acts.append(EYES + q)
            return acts
        if ph == CARD:
            return self._legal_card_step(p)
        if ph == SCOUTING:
            return [KEEP, DROP]
        if ph == LOSS:
            return [WAX, DECLINE]
        # HAND_LIMIT
        return [DISCARD_FLIGHT + t for t in range(NE) if self.flight_hand[p][t]]

    def _legal_card_step(self, p: int) -> list[int]:
        in_play = self.in_play
        decks = self.decks
        mask = 0  # the colours with cards to draw (Removal empties a removed colour's deck)
        for c in range(NC):
            if decks[c]:
                mask |= 1 << c
        drawable = _COLOURS_IN[mask]
        acts = list(_PASS_OR_SWAP[mask] if self.swaps_left else _PASS_ONLY)
        if self.fancy and not self.swapped and self.flight_deck:
            rev = self.revealed[p]
            acts += [REVEAL + c for c in range(NC) if in_play >> c & 1 and not rev >> c & 1]
        fh = self.flight_hand[p]
        if fh[UPDRAFT_T] and not self.updraft_used and not self.swapped and drawable:
            acts.append(UPDRAFT)
        if fh[SCOUT_T] and self.swaps_left:
            acts += [SCOUT + c for c in drawable]
        if fh[FLARE_T]:
            acts += [FLARE + c for c in drawable]
        if fh[COUNSEL_T]:
            seen = self.peeks[p] >> (DAEDALUS * NC)
            acts += [COUNSEL + c for c in range(NC) if in_play >> c & 1 and not seen >> c & 1]
        return acts

    def _legal_bids(self, p: int) -> list[int]:
        if self.bid is None:  # Bid Step: the first turn of a Round, any sum of any colour
            return _bids_from(self.in_play, FIRST_BID)
        # Bid Step: after an acceptance, a higher number in any colour still in play
        cur, cur_c = self.bid
        acts = _bids_from(self.in_play, cur + 1)
        if self.flight_hand[p][TAILWIND_T]:
            acts[:0] = [bid_action(cur, c) for c in range(NC) if self.in_play >> c & 1 and c != cur_c]
        return acts

    def _standing_bid(self) -> tuple[int, int]:
        """The bid being answered: there is one throughout the Challenge Step."""
        bid = self.bid
        assert bid is not None
        return bid

    def can_raise(self, p: int) -> bool:
        """Whether ``p``, accepting the current bid, could bid after it (else they must challenge).
        Only asked in the Challenge Step, so there is a bid."""
        cur, cur_c = self._standing_bid()
        if cur < CAP:
            return True
        return bool(self.flight_hand[p][TAILWIND_T]) and bool(self.in_play & ~(1 << cur_c))

    def _eyes_target(self, p: int, q: int, c: int) -> bool:
        return (
            self.hand[q * NC + c] >= 0
            and not self.revealed[q] >> c & 1
            and not self.peeks[p] >> (q * NC + c) & 1
        )

    def is_legal(self, action: Any) -> bool:  # Any: see State.is_legal
        if self.to_move is None or type(action) is not int or not 0 <= action < NUM_ACTIONS:
            return False
        if self.phase == BIDDING:
            if action < BID:
                return False
            n, c = bid_of(action)
            if not self.in_play >> c & 1:
                return False
            if self.bid is None:
                return n >= FIRST_BID
            cur, cur_c = self.bid
            return n > cur or (
                n == cur and c != cur_c and bool(self.flight_hand[self.to_move][TAILWIND_T])
            )
        legal = self._legal
        want: int = action  # typed: compiled, the loop compares machine ints (`in` would not)
        for a in legal if legal is not None else self.legal_actions():
            if a == want:
                return True
        return False

    def apply(self, action: Any, legal: object = None) -> None:  # Any: malformed input is refused below
        """`State.apply` with the legality test called directly (the playout hot path; Scarvus
        offers no undo, so `State.apply`'s undo bookkeeping has nothing to do). ``legal`` is not
        needed: the test is cheap."""
        if self.is_legal(action):
            self._apply(action)
            self.history.append(action)
            return
        super().apply(action)  # raises IllegalAction with the full explanation

    def _apply(self, a: int) -> None:
        p = self.to_move
        assert p is not None
        self._legal = None
        ph = self.phase
        if ph == BIDDING:
            n, c = bid_of(a)
            self._do_bid(p, n, c)
        elif ph == RESPOND:
            if a == ACCEPT:
                self._accept(p)
            elif a == CHALLENGE:
                self._challenge(p)
            else:
                self._sharp_eyes(p, a - EYES)
        elif ph == CARD:
            self._card_step(p, a)
        elif ph == SCOUTING:
            self._scout_choice(p, a == KEEP)
        elif ph == LOSS:
            self._finish_challenge(wax=a == WAX)
        else:
            t = a - DISCARD_FLIGHT
            self._add_flight(p, t, -1)
            self.flight_discard = [*self.flight_discard, t]
            self.emit({"type": "flight_discard", "player": p, "card": EFFECTS[t], "why": "hand limit"})
            self._continue_hand_limit()

    # ----- the Card Step ---------------------------------------------------------------------
    def _card_step(self, p: int, a: int) -> None:
        if a == PASS:
            self._to_bid(p)
        elif a < REVEAL:
            self._swap(p, a - SWAP)
            self._used_swap(p)
        elif a < ACCEPT:
            c = a - REVEAL
            # Fancy Flying: reveal a card instead of swapping, then draw a Flight card.
            self.revealed = replaced(self.revealed, p, self.revealed[p] | 1 << c)
            self._card_event({"type": "reveal", "player": p, "colour": COLOURS[c]}, self.hand[p * NC + c])
            self._draw_flight(p, "fancy flying")
            self._to_bid(p)
        elif a == UPDRAFT:
            self._spend(p, UPDRAFT_T)
            self.updraft_used = True
            self.swaps_left += 1
        elif a < FLARE:
            c = a - SCOUT
            self._spend(p, SCOUT_T, colour=c)
            self.pending = self._draw(c)
            self.pending_colour = c
            self.phase = SCOUTING
            self._card_event({"type": "scouted", "colour": COLOURS[c]}, self.pending, to=p)
        elif a < COUNSEL:
            c = a - FLARE
            self._spend(p, FLARE_T, colour=c)
            self._discard(c, self._draw(c), None)
        elif a < EYES:
            c = a - COUNSEL
            self._spend(p, COUNSEL_T, colour=c)
            self.peeks = replaced(self.peeks, p, self.peeks[p] | 1 << (DAEDALUS * NC + c))
            self.emit({"type": "saw", "owner": "daedalus", "colour": COLOURS[c], "value": self.daedalus[c]}, to=p)

    def _swap(self, p: int, c: int) -> None:
        """Card Step: discard face up, draw the top card of the same colour (a revealed card's
        replacement stays revealed: Fancy Flying)."""
        i = p * NC + c
        self._discard(c, self.hand[i], p)
        self.hand[i] = self._draw(c)
        self._forget(p, c)
        self._log(("drew", c, self._shown(self.hand[i])), to=p)
        if self.revealed[p] >> c & 1:
            self._card_event({"type": "reveal", "player": p, "colour": COLOURS[c]}, self.hand[i])

    def _draw(self, c: int) -> int:
        """The top card of colour ``c``'s deck. Each colour's deck and discard pile is replaced by
        a new list, never changed in place, so that a copy shares them (see `_copy`)."""
        deck = self.decks[c]
        self.decks[c] = deck[:-1]
        return deck[-1]

    def _discard(self, c: int, value: int, player: int | None) -> None:
        self.discards[c] = [*self.discards[c], value]  # replaced, not changed: see `_draw`
        self._log(("discard", player, c, self._shown(value)))

    def _card_event(self, event: dict[str, Any], value: int, to: int | None = None) -> None:
        """Log a card's movement with its value, except in the Daedalus Challenge.

        The Daedalus Challenge: "Only the value of the top card in the discard pile should be
        visible. This will test players' memories!" Any card in a hand, scouted or discarded can
        end up covered in a discard pile, and the log outlives the moment (the browser keeps it
        on screen), so in that variant the log records where cards went, never their values.
        The view shows each value while it may be seen: a hand, a revealed card, a card seen
        with Sharp Eyes, the scouted card, the top discard. (The Daedalus Hand is never
        discarded, so a card seen there with Daedalus' Counsel keeps its value in the log.)"""
        if not self.daedalus_mode:
            event["value"] = value
        self.emit(event, to)

    def _shown(self, value: int) -> int | None:
        """A card's value as the log may show it: None (not shown) in the Daedalus Challenge
        (see `_card_event`)."""
        return None if self.daedalus_mode else value

    def _log(self, event: tuple[Any, ...], to: int | None = None) -> None:
        """Log one of the most frequent events (a deal, a bid, an acceptance, a card discarded or
        drawn, a challenge, a feather) as a tuple: `_format_event` makes its dict only when the
        log is read."""
        events = self._writable_log()
        if events is not None:
            events.append((to, event))

    def _format_event(self, event: tuple[Any, ...]) -> dict[str, Any]:
        """The dict of an event `_log` kept as a tuple."""
        kind = event[0]
        if kind == "deal":
            out: dict[str, Any] = {"type": "deal", "match": event[1]}
            if event[2] is not None:
                out["hand"] = dict(zip(COLOURS, event[2], strict=True))
            return out
        if kind == "match":
            return {"type": "match", "match": event[1]}
        if kind == "challenge":  # (last_challenge, never changed once made)
            return {"type": "challenge", **event[1]}
        if kind == "bid":
            return {"type": "bid", "player": event[1], "number": event[2], "colour": COLOURS[event[3]]}
        if kind == "accept":
            return {"type": "accept", "player": event[1]}
        if kind == "feather":
            side = event[2]
            return {"type": "feather", "player": event[1], "side": side,
                    "value": SINGED if side == "singed" else BURNT}
        if kind == "discard":
            out = {"type": "discard", "player": event[1], "colour": COLOURS[event[2]]}
        else:  # drew
            out = {"type": "drew", "colour": COLOURS[event[1]]}
        if event[-1] is not None:  # the card's value, unless the Daedalus Challenge hides it
            out["value"] = event[-1]
        return out

    def _forget(self, owner: int, c: int) -> None:
        """A card that changed hands is no longer known to whoever had seen it."""
        self._forget_mask(1 << (owner * NC + c))

    def _forget_mask(self, bits: int) -> None:
        """Cards that left their place (swapped away, boxed at Removal, boxed with a fallen
        player) are no longer known to whoever had seen them there."""
        # (only Flight cards show anyone a card: most games never do; a generator, not
        # any(list), which a compiled build looks up by name and calls generically)
        if any(k for k in self.peeks):
            keep = ~bits
            self.peeks = [k & keep for k in self.peeks]

    def _used_swap(self, p: int) -> None:
        self.swapped += 1
        self.swaps_left -= 1
        if not self.swaps_left:
            self._to_bid(p)

    def _scout_choice(self, p: int, keep: bool) -> None:
        """Scouting Flight: keep the scouted card (yours goes face up) or discard it face up."""
        c, card = self.pending_colour, self.pending
        self.pending, self.pending_colour = -1, -1
        self.phase = CARD
        if keep:
            i = p * NC + c
            self._discard(c, self.hand[i], p)
            self.hand[i] = card
            self._forget(p, c)
            if self.revealed[p] >> c & 1:
                self._card_event({"type": "reveal", "player": p, "colour": COLOURS[c]}, card)
        else:
            self._discard(c, card, p)
        self._used_swap(p)

    def _to_bid(self, p: int) -> None:
        self.phase = BIDDING
        self.to_move = p

    def _spend(self, p: int, t: int, **detail: Any) -> None:
        self._add_flight(p, t, -1)
        self.flight_discard = [*self.flight_discard, t]  # Flight Cards: used cards go face up on a discard pile
        event = {"type": "flight", "player": p, "card": EFFECTS[t]}
        event.update({k: (COLOURS[v] if k == "colour" else v) for k, v in detail.items()})
        self.emit(event)

    def _draw_flight(self, p: int, why: str) -> None:
        """Flight Cards: draw one; an exhausted Flight deck is not reshuffled."""
        if not self.flight_deck:
            return
        t = self.flight_deck[-1]
        self.flight_deck = self.flight_deck[:-1]
        self._add_flight(p, t, 1)
        self.emit({"type": "flight_draw", "player": p, "why": why})
        self.emit({"type": "flight_drawn", "card": EFFECTS[t]}, to=p)

    # ----- the Bid and Challenge Steps -------------------------------------------------------
    def _do_bid(self, p: int, n: int, c: int) -> None:
        if self.bid is not None and n == self.bid[0]:
            self._spend(p, TAILWIND_T, colour=c)  # Tailwind: an equal bid in another colour
        self.bid = (n, c)
        self.bidder = p
        self._log(("bid", p, n, c))
        # Challenge Step: the next player; Talons Challenge: then every other player in turn.
        order = [self._next_alive(p)]
        if self.talons:
            while (q := self._next_alive(order[-1])) != p:
                order.append(q)
        self.responders = order
        self.resp_idx = 0
        self.phase = RESPOND
        self.to_move = order[0]

    def _accept(self, p: int) -> None:
        self._log(("accept", p))
        self.resp_idx += 1
        if self.resp_idx < len(self.responders):
            self.to_move = self.responders[self.resp_idx]
        else:
            self._start_turn(self.responders[0])

    def _sharp_eyes(self, p: int, q: int) -> None:
        c = self._standing_bid()[1]
        self._spend(p, EYES_T, target=q)
        self.peeks = replaced(self.peeks, p, self.peeks[p] | 1 << (q * NC + c))
        self._card_event({"type": "saw", "owner": q, "colour": COLOURS[c]}, self.hand[q * NC + c], to=p)

    def colour_total(self, c: int) -> int:
        """The total of every card of colour ``c`` in players' hands (the Daedalus Hand excluded)."""
        hand = self.hand  # (a loop, not sum over a slice: compiled, each decision that
        total = 0  # challenges asks it, and the slice and generator are generic)
        for q in range(self.players):
            v = hand[q * NC + c]
            if v > 0:
                total += v
        return total

    def _challenge(self, p: int) -> None:
        """Challenge Step: reveal the challenged colour only; safe if the total is at least the
        bid; the loser takes a feather (or a Life); the colour leaves play."""
        n, c = self._standing_bid()
        total = self.colour_total(c)
        safe = total >= n
        loser = p if safe else self.bidder
        talon = self.talons and not safe and p != self.responders[0]
        hand = self.hand
        self.last_challenge = {
            "bidder": self.bidder, "challenger": p, "number": n, "colour": COLOURS[c],
            # every seat's card of the colour, in seat order (hand[c::NC], by index: compiled,
            # a slice with a step is generic)
            "cards": [hand[q * NC + c] for q in range(self.players)],
            "total": total, "safe": safe, "loser": loser,
        }
        self._log(("challenge", self.last_challenge))
        # Removal: every card of that colour goes back in the box, revealed ones included.
        for q in range(self.players):
            hand[q * NC + c] = -1
        off = ~(1 << c)
        self.revealed = [r & off for r in self.revealed]
        self.decks[c] = []
        self.discards[c] = []
        self.daedalus = replaced(self.daedalus, c, -1)
        self._forget_mask(COLOUR_BITS[c])
        self.in_play &= ~(1 << c)
        self.bid = None
        self.res = (p, loser, c, abs(total - n), talon)
        if self.flight_hand[loser][WAX_T] and abs(total - n) > SINGED_MAX:
            self.phase = LOSS  # Wax Repair may soften a burnt feather
            self.to_move = loser
        else:
            self._finish_challenge(wax=False)

    def _finish_challenge(self, wax: bool) -> None:
        res = self.res
        assert res is not None  # set by _challenge
        challenger, loser, c, diff, talon = res
        self.res = None
        if wax:
            self._spend(loser, WAX_T)
        if self.fight:  # Fight in the Skies: the player who is incorrect loses one Life
            if not wax:
                self.lives = replaced(self.lives, loser, self.lives[loser] - 1)
                self.emit({"type": "life_lost", "player": loser, "lives": self.lives[loser]})
                if not self.lives[loser]:
                    self._eliminate(loser)
        elif penalty(diff) == SINGED or wax:
            self.singed = replaced(self.singed, loser, self.singed[loser] + 1)
            self._log(("feather", loser, "singed"))
        else:
            self.burnt = replaced(self.burnt, loser, self.burnt[loser] + 1)
            self._log(("feather", loser, "burnt"))
        if talon:  # Talons Challenge: an unsafe bid gives the challenger a Flight card
            self._draw_flight(challenger, "talons challenge")
        if self._game_over(loser):
            return
        self.round += 1
        # Next Turn: the challenger, whether safe or not (if out, play passes on).
        self.next_starter = challenger if self.alive[challenger] else self._next_alive(challenger)
        if not self.in_play:
            self._end_match()
        else:
            self._start_turn(self.next_starter)

    def _eliminate(self, p: int) -> None:
        """Fight in the Skies: out of Lives, your cards go in the box and you are out."""
        self.alive = replaced(self.alive, p, False)
        self.out_order = [*self.out_order, p]
        for c in range(NC):
            self.hand[p * NC + c] = -1
        self._forget_mask(OWNER_BITS[p])
        self.revealed = replaced(self.revealed, p, 0)
        self.flight_hand = replaced(self.flight_hand, p, [0] * NE)
        self.emit({"type": "out", "player": p})

    def _game_over(self, loser: int) -> bool:
        """How to Win: the game ends at once on the fourth feather (Longer Flights: more), which
        only ``loser``, who just took one, can have; Fight in the Skies: when one flyer is left."""
        if self.fight:
            done = self.alive.count(True) <= 1
        else:
            done = self.singed[loser] + self.burnt[loser] >= self.end_at
        if done:
            self.to_move = None
            self.emit({"type": "game_end", "scores": self.scores()})
        return done

    def _end_match(self) -> None:
        """All seven colours are out: the Match is over. Flight Cards: hands are cut to one."""
        self.emit({"type": "match_end", "match": self.match})
        start = self.next_starter
        seats = [(start + i) % self.players for i in range(self.players)]
        self.limit_queue = [q for q in seats if self.alive[q] and sum(self.flight_hand[q]) > FLIGHT_LIMIT]
        self._continue_hand_limit()

    def _continue_hand_limit(self) -> None:
        while self.limit_queue and sum(self.flight_hand[self.limit_queue[0]]) <= FLIGHT_LIMIT:
            self.limit_queue = self.limit_queue[1:]
        if self.limit_queue:
            self.phase = HAND_LIMIT
            self.to_move = self.limit_queue[0]
            return
        self._deal()
        self._start_turn(self.next_starter)

    # ----- results -------------------------------------------------------------------------
    def scores(self) -> list[float]:
        """Feathers: -2 per singed, -5 per burnt. Fight in the Skies: Lives left for those still
        flying; the fallen by how late they fell (-1 for the last to fall, and so on)."""
        if not self.fight:
            return [float(SINGED * s + BURNT * b) for s, b in zip(self.singed, self.burnt, strict=True)]
        out = [float(self.lives[p]) for p in range(self.players)]
        for i, p in enumerate(reversed(self.out_order)):
            out[p] = -1.0 - i
        return out

    def scoring_lines(self, player: int) -> list[tuple[str, float]]:
        """How to Win: each Feather token, singed (-2) or burnt (-5). Fight in the Skies: the
        Lives left of whoever still flies; the fallen rank by how late they fell."""
        if self.fight:
            if player in self.out_order:
                k = len(self.out_order) - self.out_order.index(player)
                when = "the last" if k == 1 else f"{_ordinal(k)} from last"
                return [(f"Out of Lives: {when} to fall", float(-k))]
            return [(f"{plural(self.lives[player], 'Life', 'Lives')} left", float(self.lives[player]))]
        lines = [("Singed feather", float(SINGED))] * self.singed[player]
        lines += [("Burnt feather", float(BURNT))] * self.burnt[player]
        return lines or [("No feathers", 0.0)]

    # ----- information ---------------------------------------------------------------------
    def _discard_view(self, c: int) -> Any:
        pile = self.discards[c]
        if self.daedalus_mode:
            return {"top": pile[-1] if pile else None, "count": len(pile)}
        return list(pile)

    def view(self, player: Any) -> dict[str, Any]:  # a seat or None; Any: see State.is_legal
        n = self.players
        colours = [c for c in range(NC) if self.in_play >> c & 1]
        responding = self.phase == RESPOND and self.to_move is not None  # How to Win: ends at once
        v: dict[str, Any] = {
            "game": "scarvus",
            "player": player,
            "players": n,
            "options": dict(self.options),
            "match": self.match,
            "round": self.round,
            "phase": PHASE_NAMES[self.phase] if self.to_move is not None else "over",
            "to_move": self.to_move,
            "in_play": [COLOURS[c] for c in colours],
            "decks": {COLOURS[c]: len(self.decks[c]) for c in colours},
            "discards": {COLOURS[c]: self._discard_view(c) for c in colours},
            "revealed": [
                {COLOURS[c]: self.hand[p * NC + c] for c in colours if self.revealed[p] >> c & 1}
                for p in range(n)
            ],
            "daedalus_cards": len(colours),
            "bid": None
            if self.bid is None
            else {"number": self.bid[0], "colour": COLOURS[self.bid[1]], "bidder": self.bidder},
            "responders": list(self.responders) if responding else [],
            "accepted_by": self.responders[: self.resp_idx] if responding else [],
            "bid_cap": CAP,
            "feathers": [{"singed": s, "burnt": b} for s, b in zip(self.singed, self.burnt, strict=True)],
            "lives": list(self.lives) if self.fight else None,
            "alive": list(self.alive),
            "flight": {
                "deck": len(self.flight_deck),
                "discard": [EFFECTS[t] for t in self.flight_discard],
                "hand_sizes": [sum(h) for h in self.flight_hand],
            },
            "last_challenge": self.last_challenge,
            "over": self.to_move is None,
            "scores": self.scores(),
            "final_scoring": self.final_scoring(),
        }
        if self.phase == LOSS and self.res is not None:
            v["loss"] = {"player": self.res[1], "difference": self.res[3]}
        if player is not None:
            v["hand"] = {COLOURS[c]: self.hand[player * NC + c] for c in colours if self.alive[player]}
            v["flight_hand"] = [EFFECTS[t] for t in range(NE) for _ in range(self.flight_hand[player][t])]
            seen = []
            for owner in [*range(n), DAEDALUS]:
                for c in colours:
                    if owner != player and self.peeks[player] >> (owner * NC + c) & 1:
                        value = self.daedalus[c] if owner == DAEDALUS else self.hand[owner * NC + c]
                        seen.append({"owner": "daedalus" if owner == DAEDALUS else owner,
                                     "colour": COLOURS[c], "value": value})
            v["seen"] = seen
            if self.phase == SCOUTING and player == self.to_move:
                v["scouted"] = {"colour": COLOURS[self.pending_colour], "value": self.pending}
            if player == self.to_move:
                v["legal"] = self.legal_actions()
        if self.to_move is None:
            v["ranking"] = self.ranking()
        return v

    def _copy(self) -> ScarvusState:
        # Every attribute, in `__init__`'s order (see `State._copy_core`); what play changes in
        # place is copied, the rest shared (singed, burnt, lives, alive, revealed, peeks, daedalus,
        # out_order, responders, limit_queue, flight_deck and flight_discard, each colour's deck
        # and discard pile, each player's Flight cards and the list of those are only ever
        # replaced by a new list, never changed in place: 25-29 fewer lists a copy;
        # `tests/test_copies.py` catches a change in place).
        new: ScarvusState = self._copy_core()
        new.end_at = self.end_at
        new.daedalus_mode = self.daedalus_mode
        new.fancy = self.fancy
        new.talons = self.talons
        new.fight = self.fight
        new.flight_on = self.flight_on
        new.singed = self.singed
        new.burnt = self.burnt
        new.lives = self.lives
        new.alive = self.alive
        new.out_order = self.out_order
        new.flight_deck = self.flight_deck
        new.flight_hand = self.flight_hand
        new.flight_discard = self.flight_discard
        new.match = self.match
        new.round = self.round
        new.bid = self.bid
        new.bidder = self.bidder
        new.responders = self.responders
        new.resp_idx = self.resp_idx
        new.swaps_left = self.swaps_left
        new.swapped = self.swapped
        new.updraft_used = self.updraft_used
        new.pending = self.pending
        new.pending_colour = self.pending_colour
        new.res = self.res
        new.limit_queue = self.limit_queue
        new.next_starter = self.next_starter
        new.last_challenge = self.last_challenge
        new.phase = self.phase
        new.to_move = self.to_move
        new._legal = None  # a copy may be resampled (determinize): its legal actions are its own
        new.hand = self.hand.copy()
        new.revealed = self.revealed
        new.decks = self.decks.copy()
        new.discards = self.discards.copy()
        new.daedalus = self.daedalus
        new.peeks = self.peeks
        new.in_play = self.in_play
        return new

    def hidden_places(self, player: int, c: int) -> list[int]:
        """Where in ``hand`` the colour-``c`` cards that ``player`` cannot see lie: the others'
        unrevealed cards they have not looked at (Sharp Eyes), in seat order."""
        hand, peeks = self.hand, self.peeks[player]
        return [
            q * NC + c
            for q in range(self.players)
            if q != player and hand[q * NC + c] >= 0 and not self.revealed[q] >> c & 1
            and not peeks >> (q * NC + c) & 1
        ]

    def _resample_hidden(self, player: int, rng: random.Random) -> None:
        """Per colour, every card ``player`` cannot see (others' unrevealed unseen cards, the
        Daedalus card, the deck, buried discards in the Daedalus Challenge, someone else's
        scouted card) is shuffled and dealt back to the same places; so are the Flight cards in
        other hands and the Flight deck. Later Matches are redrawn through the new salt."""
        n = self.players
        hand, peeks = self.hand, self.peeks[player]
        self.daedalus = daedalus = self.daedalus.copy()  # shared with the original (see _copy)
        for c in range(NC):
            if not self.in_play >> c & 1:
                continue
            slots = self.hidden_places(player, c)
            pool = [hand[i] for i in slots]
            hide_daedalus = not peeks >> (DAEDALUS * NC + c) & 1
            if hide_daedalus:
                pool.append(self.daedalus[c])
            hide_pending = self.pending_colour == c and self.to_move != player
            if hide_pending:
                pool.append(self.pending)
            deck = self.decks[c]
            pool += deck
            buried = self.discards[c][:-1] if self.daedalus_mode else []
            pool += buried
            pool.sort()  # gathered in hidden order: sort so the sample depends on the rng alone
            shuffle(rng, pool)
            it = iter(pool)
            for i in slots:
                hand[i] = next(it)
            if hide_daedalus:
                daedalus[c] = next(it)
            if hide_pending:
                self.pending = next(it)
            self.decks[c] = [next(it) for _ in deck]
            if buried:
                self.discards[c] = [next(it) for _ in buried] + self.discards[c][-1:]
        others = [q for q in range(n) if q != player]
        fpool = self.flight_deck + [t for q in others for t in range(NE) for _ in range(self.flight_hand[q][t])]
        fpool.sort()
        shuffle(rng, fpool)
        start = 0
        hands = self.flight_hand.copy()  # (replaced, never changed in place: see `_copy`)
        for q in others:
            size = sum(hands[q])
            h = [0] * NE
            for t in fpool[start : start + size]:
                h[t] += 1
            hands[q] = h
            start += size
        self.flight_hand = hands
        self.flight_deck = fpool[start:]

    # ----- actions -------------------------------------------------------------------------
    def action_to_json(self, action: int) -> dict[str, Any]:
        a = action
        if a >= BID:
            n, c = bid_of(a)
            return {"bid": n, "colour": COLOURS[c]}
        if a == PASS:
            return {"card_step": "pass"}
        if a < REVEAL:
            return {"swap": COLOURS[a - SWAP]}
        if a < ACCEPT:
            return {"reveal": COLOURS[a - REVEAL]}
        if a == ACCEPT:
            return {"respond": "accept"}
        if a == CHALLENGE:
            return {"respond": "challenge"}
        if a == UPDRAFT:
            return {"flight": "updraft"}
        if a < FLARE:
            return {"flight": "scout", "colour": COLOURS[a - SCOUT]}
        if a < COUNSEL:
            return {"flight": "sun_flare", "colour": COLOURS[a - FLARE]}
        if a < EYES:
            return {"flight": "counsel", "colour": COLOURS[a - COUNSEL]}
        if a < KEEP:
            return {"flight": "sharp_eyes", "player": a - EYES}
        if a == KEEP:
            return {"scouted": "keep"}
        if a == DROP:
            return {"scouted": "discard"}
        if a == WAX:
            return {"flight": "wax_repair"}
        if a == DECLINE:
            return {"flight": "decline"}
        return {"discard_flight": EFFECTS[a - DISCARD_FLIGHT]}

    def action_from_json(self, obj: Any) -> int:
        if isinstance(obj, dict) and set(obj) == {"bid", "colour"}:
            n, c = obj["bid"], obj["colour"]
            if type(n) is int and 1 <= n <= CAP and c in COLOUR_ID:
                a = bid_action(n, COLOUR_ID[c])
                if self.is_legal(a):
                    return a
            raise IllegalAction(f"bid {n!r} {c!r} is not legal now (bids run 1..{CAP}, higher than the last)")
        return super().action_from_json(obj)

    def _event_text(self, event: dict[str, Any], player: int | None) -> str:
        t = event["type"]
        p: Any = event.get("player")  # absent from some events (Any: mypyc checks what it is told)
        colour = event.get("colour")
        value = event.get("value")
        card = f"{colour} card" if value is None else f"{colour} {value}"
        if t == "deal":
            if "hand" not in event:
                return f"Match {event['match']}: you are dealt one card of each colour."
            cards = ", ".join(f"{c} {v}" for c, v in event["hand"].items())
            return f"Match {event['match']}: you are dealt {cards}."
        if t == "match":
            return f"Match {event['match']} begins."
        if t == "match_end":
            return f"Match {event['match']} ends: every colour is out of play."
        if t == "discard":
            if p is None:
                seen = f": a {value}" if value is not None else ""
                return f"The top {colour} card of the draw pile is discarded face up{seen}."
            return f"{does(p, player, 'discard', 'discards')} {'your' if p == player else 'their'} {card} face up."
        if t == "drew":
            return f"You draw {card}."
        if t == "reveal":
            return f"{does(p, player, 'reveal', 'reveals')} {'your' if p == player else 'their'} {card}."
        if t == "scouted":
            return f"You scout the top {colour} card: {card}."
        if t == "saw":
            owner = event["owner"]
            whose_ = "the Daedalus Hand's" if owner == "daedalus" else whose(owner, player)
            return f"You see {whose_} {card}."
        if t == "flight":
            name_ = FLIGHT_NAMES[EFFECTS.index(event["card"])]
            on = f" on {colour}" if colour else f" on {name(event['target'], player)}" if "target" in event else ""
            return f"{does(p, player, 'play', 'plays')} the Flight card {name_}{on}."
        if t == "flight_draw":
            why = {"fancy flying": "Fancy Flying", "talons challenge": "the Talons Challenge"}.get(event["why"], event["why"])
            return f"{does(p, player, 'draw', 'draws')} a Flight card ({why})."
        if t == "flight_drawn":
            return f"The Flight card you drew is {FLIGHT_NAMES[EFFECTS.index(event['card'])]}."
        if t == "flight_discard":
            return (f"{does(p, player, 'discard', 'discards')} the Flight card "
                    f"{FLIGHT_NAMES[EFFECTS.index(event['card'])]} to keep to the hand limit.")
        if t == "bid":
            return f"{does(p, player, 'bid', 'bids')} {event['number']} {colour}."
        if t == "accept":
            return f"{does(p, player, 'accept', 'accepts')} the bid."
        if t == "challenge":
            b, c = event["bidder"], event["challenger"]
            cards = ", ".join(f"{name(q, player)} {v}" for q, v in enumerate(event["cards"]) if v >= 0)
            verdict = (f"the bid is safe, so {name(c, player)} lose{'' if c == player else 's'}" if event["safe"]
                       else f"the bid is too high, so {name(b, player)} lose{'' if b == player else 's'}")
            return (f"{does(c, player, 'challenge', 'challenges')} {whose(b, player)} bid of {event['number']} {colour}. "
                    f"The {colour} cards: {cards}; total {event['total']}: {verdict}.")
        if t == "feather":
            return (f"{does(p, player, 'take', 'takes')} a {event['side']} feather "
                    f"({event['value']} points).")
        if t == "life_lost":
            return f"{does(p, player, 'lose', 'loses')} a Life ({plural(event['lives'], 'Life', 'Lives')} left)."
        if t == "out":
            return f"{does(p, player, 'are', 'is')} out of the game."
        if t == "game_end":
            scores = event["scores"]
            best = max(scores)
            return winners([q for q, x in enumerate(scores) if x == best], player) + "."
        return super()._event_text(event, player)

    def describe(self, action: int) -> str:
        j = self.action_to_json(action)
        if "bid" in j:
            return f"bid {j['bid']} {j['colour']}"
        if "swap" in j:
            return f"swap your {j['swap']} card"
        if "reveal" in j:
            return f"reveal your {j['reveal']} card and draw a Flight card"
        if "card_step" in j:
            return "no swap"
        if "respond" in j:
            return j["respond"]
        if "scouted" in j:
            return f"{j['scouted']} the scouted card"
        if "discard_flight" in j:
            return f"discard {FLIGHT_NAMES[EFFECTS.index(j['discard_flight'])]} (hand limit)"
        if j["flight"] == "decline":
            return "take the burnt feather (keep Wax Repair)"
        name = FLIGHT_NAMES[EFFECTS.index(j["flight"])]
        if "colour" in j:
            return f"play {name} on {j['colour']}"
        if "player" in j:
            return f"play {name} on {seat(j['player'])}"
        return f"play {name}"
