"""Trickarus (Bajir Cannon, 2024): a must-follow trick-taking game whose cards flip day/night.

Rulebook: shared/rules/004 (BGA rules summary + FAQ). Section names in comments refer to it.
Rulings and the reconstructed deck: docs/games/trickarus.md. Components: components.json.

Representation (hot path, so ints only): a hand is a 40-bit mask of card ids; the active side
is 0 (day) or 1 (night); the trick is the list of cards played so far, the leader plays first.
An action is the id of the card to play (0..39): a Trickarus turn is a single decision.
"""

from __future__ import annotations

import json
import random
from importlib import resources
from typing import Any, Final

from meeple.core import BadOption, BadPlayerCount, State
from meeple.core.cards import deal_avoiding
from meeple.core.game import mypyc_attr
from meeple.core.rng import shuffler
from meeple.core.text import does, name, plural

# ----- components, read from data --------------------------------------------------------------
_DATA = json.loads(resources.files(__package__).joinpath("components.json").read_text())

SUITS: Final[list[str]] = _DATA["suits"]["order"]
TRUMP: Final[tuple[int, int]] = (SUITS.index(_DATA["suits"]["trump"]["day"]), SUITS.index(_DATA["suits"]["trump"]["night"]))
CARDS: Final[list[dict[str, Any]]] = _DATA["cards"]
NUM_CARDS: Final[int] = len(CARDS)
CODE: Final[list[str]] = [c["code"] for c in CARDS]
CARD_ID: Final[dict[str, int]] = {code: i for i, code in enumerate(CODE)}
LIGHTNING: Final[int] = next(i for i, c in enumerate(CARDS) if c["day"] is None)
# SUIT[side][card], VALUE[side][card]; the Lightning card has suit -1 and no value.
SUIT: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(-1 if c[side] is None else SUITS.index(c[side][0]) for c in CARDS)
    for side in ("day", "night")
)
VALUE: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(-1 if c[side] is None else c[side][1] for c in CARDS) for side in ("day", "night"))
SUIT_MASK: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(sum(1 << c for c in range(NUM_CARDS) if SUIT[side][c] == s) for s in range(len(SUITS)))
    for side in (0, 1)
)
# STRENGTH[lightning_variant][side][lead_suit][card]: who wins a trick. Trump beats the lead
# colour beats the rest (The Strongest Color); the Lightning card never wins, except in the
# Lightning Card Variant, where it beats everything but trump. lead_suit -1: none yet.
STRENGTH: Final[tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]] = tuple(
    tuple(
        tuple(
            tuple(
                (150 if strong else -1) if c == LIGHTNING
                else VALUE[side][c] + (200 if SUIT[side][c] == TRUMP[side] else 100 if SUIT[side][c] == lead else 0)
                for c in range(NUM_CARDS)
            )
            for lead in (*range(len(SUITS)), -1)
        )
        for side in (0, 1)
    )
    for strong in (False, True)
)
FLIPS: Final[tuple[bool, ...]] = tuple(VALUE[0][c] == 5 for c in range(NUM_CARDS))  # "Whenever a number 5 card is played"
HAND_SIZE: Final[dict[int, int]] = {int(k): v for k, v in _DATA["hand_size"].items() if k.isdigit()}
REMOVED: Final[dict[int, int]] = {
    int(k): sum(1 << CARD_ID[code] for code in v) for k, v in _DATA["removed"].items() if k.isdigit()
}
COOP_ROUNDS: Final[dict[int, int]] = {int(k): v for k, v in _DATA["coop_rounds"].items() if k.isdigit()}
TRACK_LENGTH: Final[dict[str, dict[int, int]]] = {
    mode: {int(k): v for k, v in _DATA["track_length"][mode].items()} for mode in ("competitive", "cooperative")
}
ALL_CARDS: Final[int] = (1 << NUM_CARDS) - 1
SIDE_NAMES: Final[tuple[str, str]] = ("day", "night")


# Bit positions of every 10-bit chunk, so a 40-bit mask becomes a list in four lookups.
_CHUNKS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(base + i for i in range(10) if b >> i & 1) for b in range(1024)) for base in (0, 10, 20, 30)
)


def mask_to_list(mask: int) -> list[int]:
    """The set bits of a card mask, ascending (hot: legal actions are built from it)."""
    c0, c1, c2, c3 = _CHUNKS
    return [*c0[mask & 1023], *c1[mask >> 10 & 1023], *c2[mask >> 20 & 1023], *c3[mask >> 30 & 1023]]


def card_label(card: int, side: int | None = None) -> str:
    """'Sun 4/6' (day/night values), or the active side only when ``side`` is given."""
    if card == LIGHTNING:
        return "Lightning"
    if side is not None:
        return f"{SUITS[SUIT[side][card]].title()} {VALUE[side][card]}"
    d, n = (SUITS[SUIT[0][card]].title(), VALUE[0][card]), (SUITS[SUIT[1][card]].title(), VALUE[1][card])
    return f"{d[0]} {d[1]}/{n[1]}" if d[0] == n[0] else f"{d[0]} {d[1]} / {n[0]} {n[1]}"


def _space(n: int) -> str:
    return "the ground" if n == 0 else f"space {n}"


ACTIVE_LABEL: Final[tuple[tuple[str, ...], ...]] = tuple(tuple(card_label(c, side) for c in range(NUM_CARDS)) for side in (0, 1))


def card_json(card: int, side: int) -> dict[str, Any]:
    c = CARDS[card]
    active = None if card == LIGHTNING else [SUITS[SUIT[side][card]], VALUE[side][card]]
    return {"code": c["code"], "day": c["day"], "night": c["night"], "active": active}


def check(players: int, options: dict[str, Any]) -> None:
    if options["mode"] == "cooperative" and players not in COOP_ROUNDS:
        raise BadPlayerCount(
            f"trickarus co-operative mode takes {min(COOP_ROUNDS)}–{max(COOP_ROUNDS)} players, "
            f"not {players}"
        )
    if options["track"] is not None and options["track"] < players:
        raise BadOption(f"trickarus track must have at least {players} spaces for {players} players")


def _taken(pos: list[int], space: int) -> bool:
    """Whether someone stands on ``space`` (``space in pos``, which compiled is a generic test)."""
    for q in pos:
        if q == space:
            return True
    return False


def move_up(pos: list[int], p: int, track_length: int) -> bool:
    """Advancing Along the Scoring Track: ``p`` takes the next open space up, leaping occupied
    ones; True when it flies into the sun instead (and falls just below the bottom-most player).

    A function of the track alone, not a method, so that the heuristic bot runs the very same
    rule on a copy of the positions (a compiled state's method takes no other object)."""
    space = pos[p] + 1
    while _taken(pos, space):  # (p itself is below ``space``, so only others can be in the way)
        space += 1
    if space <= track_length:
        pos[p] = space
        return False
    # Flying Into the Sun: just below the bottom-most player; never below the ground (FAQ).
    pos[p] = max(0, min(q for i, q in enumerate(pos) if i != p) - 1)
    return True


def move_down(pos: list[int], p: int) -> None:
    """The Lightning Card / co-op descent: ``p`` takes the next open space below (the ground
    holds all)."""
    space = pos[p] - 1
    while space > 0 and _taken(pos, space):  # p itself is above ``space``
        space -= 1
    pos[p] = max(space, 0)


@mypyc_attr(allow_interpreted_subclasses=True)  # see State
class TrickarusState(State):
    """A game of Trickarus. See the module docstring for the representation."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        # (typed: compiled, an option read from the dict is an object of any type, and a tuple
        # indexed by one is a generic look-up; the options are validated bools and strings)
        self.coop: bool = bool(options["mode"] == "cooperative")
        self.lightning_strong: bool = bool(options["lightning_variant"])
        self.track_length = options["track"] or TRACK_LENGTH[options["mode"]][players]
        self.round_limit = COOP_ROUNDS[players] if self.coop else (1 if players == 2 else 0)
        self.removed = REMOVED[players]
        self.pos = [0] * players  # 0 is the ground (room for everyone); 1..track_length one each
        # Co-op (ruling R5): seats that have left the ground; only they can land "back down".
        self.flown = 0
        self.landed_on_ground = options["coop_landed"] == "on_ground"
        self.sun_reached = False
        self.round = 0
        self.leader = 0
        self.last_winner: int | None = None
        self.last_trick: list[int] = []
        self._deal()  # sets to_move: the leader

    # ----- setup ---------------------------------------------------------------------------
    def _deal(self) -> None:
        """Setup > Dealing cards: shuffle the deck less the removed cards and deal the hands."""
        self.round += 1
        deck = mask_to_list(ALL_CARDS & ~self.removed)
        size = HAND_SIZE[self.players]
        # = Random.shuffle's order, but for the order within the first hand, a set (a bitmask)
        shuffler(self.seed, self.salt, "deal", self.round).shuffle(deck, unordered=size)
        # hand i is deck[i * size : (i + 1) * size]; what is left (2 players: 11 cards) is hidden.
        # (Each mask is built in a local int: compiled, ``hands[seat] |= ...`` on a list item
        # is a generic in-place operation and a new int object every card.)
        hands: list[int] = []
        for seat in range(self.players):
            hand = 0
            for i in range(seat * size, seat * size + size):
                hand |= 1 << deck[i]
            hands.append(hand)
        undealt = 0
        for i in range(self.players * size, len(deck)):
            undealt |= 1 << deck[i]
        self.hands = hands
        self.undealt = undealt
        self.side = 0  # ruling: every round starts on the Day side (cards are re-arranged)
        self.played = 0  # cards played this round (public)
        # voids[p]: cards p is known not to hold, having failed to follow (public knowledge);
        # determinize respects it so that search deals no impossible hands.
        self.voids = [0] * self.players
        self.trick: list[int] = []
        self.lead_card = -1  # first non-Lightning card of the trick (FAQ: Lightning led)
        self.to_move = self.leader  # the first round: seat 0 (R8); later, the last trick's winner
        events = self._writable_log()
        if events is not None:  # compact: made into dicts when the log is read (_format_event)
            for p in range(self.players):
                events.append((p, ("deal", self.round, hands[p])))
            events.append((None, ("round", self.round, self.leader)))

    # ----- the rules -----------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        p = self.to_move
        if p is None:
            return []
        hand = self.hands[p]
        lead = self.lead_card
        if lead >= 0:  # (inlined _legal_mask: this is the playout hot path)
            side = self.side
            hand = hand & SUIT_MASK[side][SUIT[side][lead]] or hand
        # (mask_to_list, skipping empty chunks: a colour's cards lie in two or three of them)
        c0, c1, c2, c3 = _CHUNKS
        out: list[int] = []
        x = hand & 1023
        if x:
            out.extend(c0[x])
        x = hand >> 10 & 1023
        if x:
            out.extend(c1[x])
        x = hand >> 20 & 1023
        if x:
            out.extend(c2[x])
        x = hand >> 30 & 1023
        if x:
            out.extend(c3[x])
        return out

    def _legal_mask(self) -> int:
        mover = self.to_move
        assert mover is not None
        hand = self.hands[mover]
        if self.lead_card < 0:  # leading, or the Lightning card was led: any card
            return hand
        # Gameplay flow: must play the lead colour if able, on the active side. The lead colour is
        # read from the leader's card *now*, so a flip re-colours a zero card (FAQ).
        follow = hand & SUIT_MASK[self.side][SUIT[self.side][self.lead_card]]
        # The Lightning Card: only by the leader or by a player unable to follow.
        return follow or hand

    def is_legal(self, action: Any) -> bool:  # Any: see State.is_legal
        return self.to_move is not None and type(action) is int and 0 <= action < NUM_CARDS and bool(self._legal_mask() >> action & 1)

    def apply(self, action: Any, legal: object = None) -> None:  # Any: malformed input is refused below
        """`State.apply`, fused with the legality test (cheaper here than any ``legal`` given):
        this is the playout hot path."""
        p = self.to_move
        if type(action) is int and p is not None and 0 <= action < NUM_CARDS:
            hand = self.hands[p]
            lead = self.lead_card
            if lead >= 0:
                side = self.side
                hand = hand & SUIT_MASK[side][SUIT[side][lead]] or hand
            if hand >> action & 1:
                self._apply(action)
                self.history.append(action)
                return
        super().apply(action)  # raises IllegalAction with the full explanation

    def _apply(self, card: int) -> None:
        p = self.to_move
        assert p is not None
        hands = self.hands  # (item = item ^ bit, not item ^= bit: compiled, that is generic)
        hands[p] = hands[p] ^ 1 << card
        self.played |= 1 << card
        self.trick.append(card)
        lead = self.lead_card
        if lead < 0:
            if card != LIGHTNING:
                self.lead_card = card
        else:
            lead_mask = SUIT_MASK[self.side][SUIT[self.side][lead]]
            if not lead_mask >> card & 1:  # did not follow: void in the lead colour
                voids = self.voids
                voids[p] = voids[p] | lead_mask
        events = self._writable_log()
        if events is not None:
            events.append((None, (p, card, self.side)))  # a play; see _format_event
        if FLIPS[card]:  # Changing Between Day and Night: hands and table flip at once
            self.side ^= 1
            self.emit({"type": "flip", "side": SIDE_NAMES[self.side]})
        if len(self.trick) == self.players:
            self._finish_trick()
        else:
            self.to_move = (p + 1) % self.players

    def trick_winner(self) -> int:
        """The player currently winning the trick (trump, then the lead colour; no ties exist)."""
        side = self.side
        lead_suit = SUIT[side][self.lead_card] if self.lead_card >= 0 else -1
        strength = STRENGTH[self.lightning_strong][side][lead_suit]
        trick = self.trick
        best_i = 0
        best = strength[trick[0]]
        for i in range(1, len(trick)):
            key = strength[trick[i]]
            if key > best:
                best, best_i = key, i
        return (self.leader + best_i) % self.players

    def _finish_trick(self) -> None:
        winner = self.trick_winner()
        trick = self.trick
        lightning = False
        for c in trick:  # (compiled: `LIGHTNING in trick` is a generic containment test)
            if c == LIGHTNING:
                lightning = True
        before = self.pos[winner]
        if lightning or (self.coop and self.sun_reached):
            move_down(self.pos, winner)
            into_sun = False
        else:
            self.flown |= 1 << winner  # an upward move always leaves the ground (ruling R5)
            into_sun = move_up(self.pos, winner, self.track_length)
            if into_sun:
                self.sun_reached = True
        events = self._writable_log()
        if events is not None:
            events.append((None, ("trick", winner, trick, lightning, before, self.pos[winner], into_sun)))
        self.last_trick = trick
        self.last_winner = winner
        self.trick = []
        self.lead_card = -1
        self.leader = winner  # Playing the Next Trick / Round: the winner leads
        self.to_move = winner
        if self.coop and self.sun_reached and not any(self.pos):
            self._end("everyone landed")
        elif not self.hands[winner]:
            self._end_round()

    def _end_round(self) -> None:
        self.emit({"type": "round_end", "round": self.round, "positions": list(self.pos)})
        if self.coop:
            done = self.round >= self.round_limit
        else:
            # Rounds / End of Game: after the round in which someone flew into the sun;
            # a 2-player game is always one round.
            done = self.sun_reached or self.players == 2
        if done:
            self._end("rounds over")
        else:
            self._deal()

    def _end(self, why: str) -> None:
        self.to_move = None
        self.emit({"type": "game_end", "why": why, "scores": self.scores()})

    def _format_event(self, event: tuple) -> dict[str, Any]:
        kind = event[0]
        if kind == "deal":
            return {"type": "deal", "round": event[1], "hand": [CODE[c] for c in mask_to_list(event[2])]}
        if kind == "round":
            return {"type": "round", "round": event[1], "leader": event[2]}
        if kind == "trick":
            _, winner, trick, lightning, before, after, into_sun = event
            return {"type": "trick", "winner": winner, "cards": [CODE[c] for c in trick],
                    "lightning": lightning, "from": before, "to": after, "sun": into_sun}
        player, card, side = event
        return {"type": "play", "player": player, "card": CODE[card], "as": ACTIVE_LABEL[side][card]}

    def _event_text(self, event: dict[str, Any], player: int | None) -> str:
        t = event["type"]
        if t == "deal":
            cards = [card_label(CARD_ID[c]) for c in event["hand"]]
            return f"Round {event['round']}: you are dealt {plural(len(cards), 'card')}: {', '.join(cards)}."
        if t == "round":
            return f"Round {event['round']} begins; {name(event['leader'], player)} lead{'' if event['leader'] == player else 's'}."
        if t == "play":
            return f"{does(event['player'], player, 'play', 'plays')} {event['as']}."
        if t == "flip":
            return f"A 5 was played: every card flips to its {event['side']} side."
        if t == "trick":
            w = event["winner"]
            head = f"{does(w, player, 'win', 'wins')} the trick"
            if event["lightning"]:
                head += " with Lightning"
            if event["sun"]:
                return f"{head} and fly{'' if w == player else 's'} into the sun, falling to {_space(event['to'])}."
            if event["to"] == event["from"]:
                return f"{head} and stay{'' if w == player else 's'} on {_space(event['to'])}."
            return f"{head} and move{'' if w == player else 's'} from {_space(event['from'])} to {_space(event['to'])}."
        if t == "round_end":
            where = ", ".join(f"{name(p, player)} on {_space(q)}" for p, q in enumerate(event["positions"]))
            return f"Round {event['round']} ends: {where}."
        if t == "game_end":
            why = {"rounds over": "the last round is over", "everyone landed": "everyone landed"}.get(
                event.get("why", ""), event.get("why", ""))
            return f"Game over{': ' + why if why else ''}."
        return super()._event_text(event, player)

    # ----- results -------------------------------------------------------------------------
    def landed(self) -> int:
        """Co-op: players who "land safely back down on the ground" (ruling R5): on the ground,
        the sun reached, and (default ``coop_landed="came_back"``) having left the ground at some
        point; ``coop_landed="on_ground"`` also counts players who never left it."""
        if not self.sun_reached:
            return 0
        if self.landed_on_ground:
            return sum(1 for q in self.pos if q == 0)
        flown = self.flown
        return sum(1 for p, q in enumerate(self.pos) if q == 0 and flown >> p & 1)

    def scores(self) -> list[float]:
        if self.coop:  # Cooperative Mode: 1 million points per player landed, for the team
            return [1_000_000.0 * self.landed()] * self.players
        return [float(q) for q in self.pos]

    def scoring_lines(self, player: int) -> list[tuple[str, float]]:
        """Competitive: the height on the Scoring Track ("the player highest on the Scoring Track
        is the winner"). Co-operative Mode: the team's 1 million points per player landed."""
        if not self.coop:
            return [(f"Height on the scoring track ({_space(self.pos[player])})", float(self.pos[player]))]
        landed = self.landed()
        if not self.sun_reached:
            return [("Nobody flew into the sun, so nobody landed: the team scores nothing", 0.0)]
        return [(f"{plural(landed, 'player')} landed safely back on the ground, 1 million points each",
                 1_000_000.0 * landed)]

    def ranking(self) -> list[int]:
        if self.coop:
            return [1] * self.players
        return super().ranking()

    def returns(self) -> list[float]:
        if self.coop:
            if self.to_move is not None:
                return [0.0] * self.players
            return [2.0 * self.landed() / self.players - 1.0] * self.players
        return super().returns()

    # ----- information ---------------------------------------------------------------------
    def view(self, player: int | None) -> dict[str, Any]:
        if player is not None and not 0 <= player < self.players:
            raise ValueError(f"no seat {player!r}: seats are 0..{self.players - 1} (None: spectator)")
        side = self.side
        lead_suit = SUITS[SUIT[side][self.lead_card]] if self.lead_card >= 0 else None
        v: dict[str, Any] = {
            "game": "trickarus",
            "player": player,
            "players": self.players,
            "mode": self.options["mode"],
            "lightning_variant": self.lightning_strong,
            "round": self.round,
            "round_limit": self.round_limit or None,
            "side": SIDE_NAMES[side],
            "trump": SUITS[TRUMP[side]],
            "track_length": self.track_length,
            "positions": list(self.pos),
            "sun_reached": self.sun_reached,
            "direction": "down" if self.coop and self.sun_reached else "up",
            "to_move": self.to_move,
            "leader": self.leader,
            "trick": [
                {"player": (self.leader + i) % self.players, "card": card_json(c, side)}
                for i, c in enumerate(self.trick)
            ],
            "lead_suit": lead_suit,
            "last_trick": {
                "winner": self.last_winner,
                "cards": [CODE[c] for c in self.last_trick],
            },
            "hand_sizes": [h.bit_count() for h in self.hands],
            "removed": [CODE[c] for c in mask_to_list(self.removed)],
            "played_this_round": [CODE[c] for c in mask_to_list(self.played)],
            "over": self.to_move is None,
            "scores": self.scores(),
            "final_scoring": self.final_scoring(),
        }
        if player is not None:
            v["hand"] = [card_json(c, side) for c in mask_to_list(self.hands[player])]
            if player == self.to_move:
                v["legal"] = self.legal_actions()
        if self.to_move is None:
            v["ranking"] = self.ranking()
        return v

    def _copy(self) -> TrickarusState:
        # Every attribute, in `__init__`'s order (see `State._copy_core`); what play changes in
        # place is copied, the rest shared.
        new: TrickarusState = self._copy_core()
        new.coop = self.coop
        new.lightning_strong = self.lightning_strong
        new.track_length = self.track_length
        new.round_limit = self.round_limit
        new.removed = self.removed
        new.pos = self.pos.copy()
        new.flown = self.flown
        new.landed_on_ground = self.landed_on_ground
        new.sun_reached = self.sun_reached
        new.round = self.round
        new.leader = self.leader
        new.last_winner = self.last_winner
        new.last_trick = self.last_trick
        new.hands = self.hands.copy()
        new.undealt = self.undealt
        new.side = self.side
        new.played = self.played
        new.voids = self.voids.copy()
        new.trick = self.trick.copy()
        new.lead_card = self.lead_card
        new.to_move = self.to_move
        return new

    def _resample_hidden(self, player: int, rng: random.Random) -> None:
        """Other hands and the undealt cards are shuffled together and re-dealt, sizes kept,
        never giving a player a card of a colour they have shown to be void in."""
        others = [p for p in range(self.players) if p != player]
        pool = mask_to_list(self.undealt | sum(self.hands[p] for p in others))
        sizes = [self.hands[p].bit_count() for p in others]
        voids = [self.voids[p] for p in others]
        hands = deal_avoiding(pool, sizes, voids, rng)
        if hands is None:  # pragma: no cover - the real deal always satisfies the constraints
            hands = [self.hands[p] for p in others]
        dealt = 0
        for p, hand in zip(others, hands, strict=True):
            self.hands[p] = hand
            dealt |= hand
        self.undealt = sum(1 << c for c in pool) & ~dealt

    # ----- actions -------------------------------------------------------------------------
    def action_to_json(self, action: int) -> dict[str, Any]:
        return {"play": CODE[action]}

    def action_from_json(self, obj: Any) -> int:
        from meeple.core import IllegalAction

        if isinstance(obj, dict) and set(obj) == {"play"} and obj["play"] in CARD_ID:
            action = CARD_ID[obj["play"]]
            if self.is_legal(action):
                return action
            raise IllegalAction(f"{card_label(action)} cannot be played now")
        return super().action_from_json(obj)

    def describe(self, action: int) -> str:
        return f"play {card_label(action)}"
