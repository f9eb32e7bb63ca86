"""Savage Bowl (URiO, Burekeke Games, 2023): a must-follow trick-taker aiming at an exact count.

Rulebook: shared/rules/001 (English translation). Section names in comments refer to it.
Rulings: docs/games/savage_bowl.md. Components and setup tables: components.json.

Representation (hot path, so ints only): a hand is a 60-bit mask of card ids; the eliminated
players and the players still holding an unused Chameleon are bitmasks over seats; the trick is
three parallel lists (cards, effective colours, Chameleon flags) in play order, and ``order`` is
the seats taking part in it, leader first.

Actions are single ints (one decision each, so no half-made compound turn ever exists):
  ``c``            play card ``c`` (0..59),
  ``60 + c``       play card ``c`` together with the Chameleon card,
  ``120 + c``      discard card ``c`` face down (the Yellow Card holder, first half).
"""

from __future__ import annotations

import json
import random
from importlib import resources
from typing import Any, Final

from meeple.core import BadPlayerCount, IllegalAction, State
from meeple.core.cards import deal_avoiding
from meeple.core.game import mypyc_attr, replaced
from meeple.core.rng import shuffler
from meeple.core.text import does, name, plural, winners

# ----- components, read from data --------------------------------------------------------------
_DATA = json.loads(resources.files(__package__).joinpath("components.json").read_text())

COLOURS: Final[list[str]] = [*_DATA["colours"]["order"], _DATA["colours"]["trump"]]
TRUMP: Final = len(COLOURS) - 1
CARDS: Final[list[dict[str, Any]]] = _DATA["cards"]
NUM_CARDS: Final = len(CARDS)
CODE: Final[list[str]] = [c["code"] for c in CARDS]
CARD_ID: Final = {code: i for i, code in enumerate(CODE)}
COLOUR: Final[tuple[int, ...]] = tuple(COLOURS.index(c["colour"]) for c in CARDS)
NUMBER: Final[tuple[int, ...]] = tuple(c["number"] for c in CARDS)
COLOUR_MASK: Final[tuple[int, ...]] = tuple(
    sum(1 << c for c in range(NUM_CARDS) if COLOUR[c] == k) for k in range(len(COLOURS))
)
ALL_CARDS: Final = (1 << NUM_CARDS) - 1
CHAMELEONS: int = _DATA["chameleons"]["count"]
FIRST_HALF: Final[int] = _DATA["first_half_tricks"]["value"]
END_POINTS: Final[int] = _DATA["game_end_points"]["value"]
BASE_POINTS: Final[list[int]] = _DATA["base_points"]["by_round"]
SETUP: Final[dict[int, dict[str, Any]]] = {int(k): v for k, v in _DATA["setup"].items()}
REMOVED: Final[dict[int, int]] = {
    n: sum(
        1 << c
        for c in range(NUM_CARDS)
        if COLOUR[c] != TRUMP and NUMBER[c] in s["removed_numbers"]
    )
    for n, s in SETUP.items()
}

# The most actions one round can take (every trick full, plus the five discards): a playout cut
# after this many actions always sees the current round scored.
MAX_ROUND_ACTIONS: Final = max(s["tricks"] * n + FIRST_HALF for n, s in SETUP.items())
CHAM_BASE: Final = NUM_CARDS
DISCARD_BASE: Final = 2 * NUM_CARDS
NUM_ACTIONS: Final = 3 * NUM_CARDS
PLAY: Final = 0
DISCARD: Final = 1
# _ROTATION[n][leader]: the seats in playing order (to the left) starting with ``leader``.
_ROTATION: Final[dict[int, tuple[tuple[int, ...], ...]]] = {n: tuple(tuple((lead + i) % n for i in range(n)) for lead in range(n)) for n in SETUP}
# A trick colour is the effective colour, plus CHAM_FLAG when a Chameleon gave it (for the view).
CHAM_FLAG: Final = 8
# KEY[by_number][lead][trick colour][card]: trump by number, then the led colour, then the rest.
KEY: Final[tuple[tuple[tuple[tuple[int, ...], ...], ...], ...]] = tuple(
    tuple(
        tuple(
            tuple(
                200 + NUMBER[c] if col & 7 == TRUMP else 100 + NUMBER[c] if col & 7 == lead
                else NUMBER[c] if by_number else 0
                for c in range(NUM_CARDS)
            )
            for col in range(2 * CHAM_FLAG)
        )
        for lead in range(len(COLOURS))
    )
    for by_number in (False, True)
)


# Bit positions of every 10-bit chunk (and the same shifted to the Chameleon action range), so a
# 60-bit mask becomes a list in six lookups: legal actions are built from these on every move.
_CHUNKS: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(base + i for i in range(10) if b >> i & 1) for b in range(1024))
    for base in range(0, 2 * NUM_CARDS, 10)
)


def mask_to_list(mask: int) -> list[int]:
    """The set bits of a card mask, ascending."""
    ch = _CHUNKS
    return [*ch[0][mask & 1023], *ch[1][mask >> 10 & 1023], *ch[2][mask >> 20 & 1023],
            *ch[3][mask >> 30 & 1023], *ch[4][mask >> 40 & 1023], *ch[5][mask >> 50 & 1023]]


def _cham_list(mask: int) -> list[int]:
    """The Chameleon actions (``CHAM_BASE + c``) for the cards of ``mask``, ascending."""
    ch = _CHUNKS
    return [*ch[6][mask & 1023], *ch[7][mask >> 10 & 1023], *ch[8][mask >> 20 & 1023],
            *ch[9][mask >> 30 & 1023], *ch[10][mask >> 40 & 1023], *ch[11][mask >> 50 & 1023]]


def card_label(card: int) -> str:
    return f"{COLOURS[COLOUR[card]].title()} {NUMBER[card]}"


def card_json(card: int) -> dict[str, Any]:
    return {"code": CODE[card], "colour": COLOURS[COLOUR[card]], "number": NUMBER[card]}


def check(players: int, options: dict[str, Any]) -> None:
    # (The player count itself is checked by GameInfo against player_counts = SETUP's keys.)
    if options["chameleons"] and players > CHAMELEONS:
        raise BadPlayerCount(f"only {CHAMELEONS} Chameleon cards exist")


@mypyc_attr(allow_interpreted_subclasses=True)  # see State
class SavageBowlState(State):
    """A game of Savage Bowl. See the module docstring for the representation."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        setup = SETUP[players]
        self.target: int = setup["target"]
        self.num_tricks: int = setup["tricks"]
        self.num_rounds: int = setup["rounds"]
        self.hand_size: int = setup["hand_size"]
        self.champ_values: tuple[int, ...] = tuple(setup["champ_cards"])
        self.removed = REMOVED[players]
        self.use_chameleons: bool = options["chameleons"]
        self.off_by_number = options["offcolour"] == "by_number"
        self.later_wins_ties = options["ties"] == "last_played"
        self.points = [0] * players
        self.results: list[dict[str, Any]] = []  # public, one entry per finished round
        self.last_champ: list[int] = []  # Runaway Champ holders of the last finished round
        # The last finished trick (winner, order, cards, colours), only ever replaced: the
        # views show it until the next trick's first card (ruling R8).
        self.last_trick: tuple[Any, ...] = ()
        self.round = 0
        self.first_leader = 0  # ruling: seat 0 starts the game (seats are arbitrary)
        self._deal()  # sets to_move: the first leader

    # ----- setup ---------------------------------------------------------------------------
    def _deal(self) -> None:
        """Setup 7-8 / Get Ready for the Next Round: shuffle, deal, hand out the Chameleons."""
        self.round += 1
        n = self.players
        deck = mask_to_list(ALL_CARDS & ~self.removed)
        size = self.hand_size
        # = Random.shuffle's order, but for the order within the first hand, a set (a bitmask)
        shuffler(self.seed, self.salt, "deal", self.round).shuffle(deck, unordered=size)
        self.hands = [sum(1 << c for c in deck[i * size : (i + 1) * size]) for i in range(n)]
        self.cham = (1 << n) - 1 if self.use_chameleons else 0  # seats with an unused Chameleon
        self.won = [0] * n
        self.won_cards = [0] * n  # face down with their winner: nobody may look (hidden)
        self.discards = [0] * n  # on the Game Progress Sheet, face down (hidden)
        self.sheet: list[tuple[int, int, int]] = []  # (trick, player, card) per discard
        # voids[p]: cards p is known not to hold, having failed to follow without a Chameleon
        # (public knowledge); sheet_voids: the discarder's voids when each discard was made.
        self.voids = [0] * n
        self.sheet_voids: list[int] = []
        self.out = 0  # eliminated seats
        self.champ: list[int] = []  # seats in the order they reached the target
        self.yellow = -1  # Yellow Card holder; -1: the card is on the sheet
        self.trick_no = 0
        self.phase = PLAY
        self.next_leader = self.first_leader
        # _start_trick (below) sets sitting (the seat sitting out the trick), order, trick and
        # tcol (effective colours, | CHAM_FLAG for a Chameleon play).
        events = self._writable_log()
        if events is not None:  # see _format_event
            for p in range(n):
                events.append((p, ("deal", self.round, self.hands[p], self.use_chameleons)))
        self.emit({"type": "round", "round": self.round, "leader": self.first_leader})
        self._start_trick()

    def _start_trick(self) -> None:
        """Step 5 of both halves: the trick winner leads; the Yellow Card holder sits out.

        Ruling: a leader who was just eliminated (or sits out) passes the lead to the next
        player to the left who takes part. With fewer than two players left the round ends
        (End of a Round: the rare 4-player case).
        """
        n = self.players
        self.trick_no += 1
        if self.trick_no > self.num_tricks or n - self.out.bit_count() < 2:
            self._end_round()
            return
        self.sitting = sitting = self.yellow  # trick 6 still has the trick-5 holder out
        skip = self.out | (1 << sitting if sitting >= 0 else 0)
        # At least two take part: a sitting-out seat exists only in tricks 2-6, when at most one
        # player can be eliminated yet (ruling R4: 4 - 1 - 1 = 2).
        order = [p for p in _ROTATION[n][self.next_leader] if not skip >> p & 1]
        self.order = order
        self.trick: list[int] = []
        self.tcol: list[int] = []
        self.to_move = order[0]

    # ----- the rules -----------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        p = self.to_move
        if p is None:
            return []
        hand = self.hands[p]
        if self.phase == DISCARD:
            return [DISCARD_BASE + c for c in mask_to_list(hand)]
        if not self.trick:  # the leader: any card, but never the Chameleon
            return mask_to_list(hand)
        follow = hand & COLOUR_MASK[self.tcol[0]]
        legal = mask_to_list(follow or hand)
        if self.cham >> p & 1:  # the Chameleon frees the player from following
            legal += _cham_list(hand)
        return legal

    def is_legal(self, action: Any) -> bool:  # Any: see State.is_legal
        p = self.to_move
        if p is None or type(action) is not int or not 0 <= action < NUM_ACTIONS:
            return False
        kind = action // NUM_CARDS  # (not divmod: compiled, it is called generically)
        c = action - kind * NUM_CARDS
        hand = self.hands[p]
        if not hand >> c & 1:
            return False
        if self.phase == DISCARD:
            return kind == 2
        if kind == 2:
            return False
        if kind == 1:
            return bool(self.trick) and bool(self.cham >> p & 1)
        if not self.trick:
            return True
        follow = hand & COLOUR_MASK[self.tcol[0]]
        return not follow or bool(follow >> c & 1)

    def _apply(self, action: int) -> None:
        p = self.to_move
        assert p is not None
        if action < NUM_CARDS:
            c, kind, colour = action, 0, COLOUR[action]
            if self.tcol:
                lead = COLOUR_MASK[self.tcol[0]]
                if not lead >> c & 1:  # did not follow: void in the led colour
                    self.voids = replaced(self.voids, p, self.voids[p] | lead)  # see _copy
        elif action < DISCARD_BASE:  # the Chameleon copies the colour of the last card played
            c, kind, colour = action - NUM_CARDS, 1, self.tcol[-1] & 7 | CHAM_FLAG
            self.cham &= ~(1 << p)
        else:
            c, kind, colour = action - DISCARD_BASE, 2, -1
        self.hands[p] ^= 1 << c
        if kind == 2:  # Step 3a: the Yellow Card holder discards face down onto the sheet
            self.discards = replaced(self.discards, p, self.discards[p] | 1 << c)  # see _copy
            self.sheet = [*self.sheet, (self.trick_no, p, c)]
            self.sheet_voids = [*self.sheet_voids, self.voids[p]]
            self.emit({"type": "discard", "player": p, "trick": self.trick_no})
            self.emit({"type": "discard_own", "card": CODE[c]}, to=p)
            self.phase = PLAY
            self._start_trick()
            return
        trick = self.trick
        trick.append(c)
        self.tcol.append(colour)
        events = self._writable_log()
        if events is not None:
            events.append((None, (p, c, kind, colour & 7)))  # a play; see _format_event
        k = len(trick)
        if k == len(self.order):
            self._finish_trick()
        else:
            self.to_move = self.order[k]

    def strength_order(self) -> list[int]:
        """Indices into the current trick, strongest first.

        Trumps by number beat the led colour by number, which beats every other colour. Other
        colours rank all alike (default ``offcolour="equal"``, ruling R1) or by number (option
        "by_number"); equal strength goes to the card played first (option ``ties``). Colours are the effective ones,
        so a Chameleon-played card counts in the colour it copied.
        """
        table = KEY[1 if self.off_by_number else 0][self.tcol[0]]
        later = self.later_wins_ties
        keys = [
            table[col][c] * 16 + (i if later else 15 - i)
            for i, (c, col) in enumerate(zip(self.trick, self.tcol, strict=True))
        ]
        return sorted(range(len(keys)), key=keys.__getitem__, reverse=True)

    def _top_two(self) -> tuple[int, int]:
        """The seats of the strongest and second strongest cards (`strength_order`, first two)."""
        trick, tcol = self.trick, self.tcol
        table = KEY[1 if self.off_by_number else 0][tcol[0]]
        later = self.later_wins_ties
        best = second = -1
        bi = si = 0
        for i in range(len(trick)):  # (by index: a compiled build makes no tuple per card)
            key = table[tcol[i]][trick[i]] * 16 + (i if later else 15 - i)
            if key > best:
                second, si, best, bi = best, bi, key, i
            elif key > second:
                second, si = key, i
        return self.order[bi], self.order[si]

    def _finish_trick(self) -> None:
        strongest, second = self._top_two()
        first_half = self.trick_no <= FIRST_HALF
        # Step 3: the second strongest wins in tricks 1-5, the strongest from the 6th on.
        winner = second if first_half else strongest
        cards = 0
        for c in self.trick:
            cards |= 1 << c
        self.won = replaced(self.won, winner, self.won[winner] + 1)  # (replaced: see _copy)
        self.won_cards = replaced(self.won_cards, winner, self.won_cards[winner] | cards)
        events = self._writable_log()
        if events is not None:  # see _format_event
            events.append((None, ("trick", self.trick_no, winner, strongest if first_half else None)))
        # Runaway Champ Cards: in order of reaching the target.
        if self.won[winner] == self.target and len(self.champ) < len(self.champ_values):
            self.champ = [*self.champ, winner]  # replaced, not changed: see _copy
            self.emit({"type": "champ", "player": winner, "value": self.champ_values[len(self.champ) - 1]})
        # Step 4: one trick too many eliminates at once; the hand is set aside unseen.
        elif self.won[winner] > self.target:
            self.out |= 1 << winner
            self.cham &= ~(1 << winner)
            self.emit({"type": "eliminated", "player": winner})
        self.next_leader = winner
        self.last_trick = (winner, self.order, self.trick, self.tcol)  # (the lists are not reused)
        self.trick = []
        self.tcol = []
        if first_half:
            # Step 3a: the strongest takes the Yellow Card, discards, and sits out the next trick.
            self.yellow = strongest
            self.phase = DISCARD
            self.to_move = strongest
        else:
            self.yellow = -1  # after trick 6 the Yellow Card goes back to the sheet
            self._start_trick()

    def _end_round(self) -> None:
        """End-of-Round Scoring: base points by round for exactly the target, plus surviving Champs."""
        gained = [0] * self.players
        for p in range(self.players):
            if self.won[p] != self.target:  # eliminated players have won one too many
                continue
            gained[p] = BASE_POINTS[self.round - 1]
            if p in self.champ:
                gained[p] += self.champ_values[self.champ.index(p)]
        # points, results, champ and the sheet are replaced, never changed in place: see _copy
        self.points = [q + g for q, g in zip(self.points, gained, strict=True)]
        result = {
            "round": self.round,
            "tricks": list(self.won),
            "tricks_played": self.trick_no - 1,
            "eliminated": [bool(self.out >> p & 1) for p in range(self.players)],
            "champ": list(self.champ),
            "gained": gained,
            "points": list(self.points),
        }
        self.results = [*self.results, result]
        self.last_champ = list(self.champ)
        self.emit({"type": "round_end", **result})
        self.to_move = None
        if max(self.points) >= END_POINTS or self.round >= self.num_rounds:
            self.emit({"type": "game_end", "scores": self.scores(), "ranking": self.ranking()})
            return
        # Get Ready for the Next Round: the 2-point Champ holder starts, eliminated or not.
        # (Someone always reaches the target, so the 2-point card is always held: ruling R12.)
        self.first_leader = self.champ[0]
        self._deal()

    def _format_event(self, event: tuple) -> dict[str, Any]:
        if event[0] == "trick":
            _, trick, winner, yellow = event
            return {"type": "trick", "trick": trick, "winner": winner, "yellow": yellow}
        if event[0] == "deal":
            _, round_, hand, chameleon = event
            return {"type": "deal", "round": round_, "hand": [CODE[c] for c in mask_to_list(hand)],
                    "chameleon": chameleon}
        p, c, kind, colour = event
        return {"type": "play", "player": p, "card": CODE[c], "chameleon": kind == 1,
                "colour": COLOURS[colour]}

    def _event_text(self, event: dict[str, Any], player: int | None) -> str:
        t = event["type"]
        if t == "deal":
            cards = ", ".join(card_label(CARD_ID[c]) for c in event["hand"])
            cham = " You also have your Chameleon." if event.get("chameleon") else ""
            return f"Round {event['round']}: you are dealt {plural(len(event['hand']), 'card')}: {cards}.{cham}"
        if t == "round":
            return f"Round {event['round']} begins; {name(event['leader'], player)} lead{'' if event['leader'] == player else 's'} the first trick."
        if t == "play":
            p = event["player"]
            card = card_label(CARD_ID[event["card"]])
            if event["chameleon"]:
                return f"{does(p, player, 'play', 'plays')} {card} with the Chameleon, as a {event['colour']} card."
            return f"{does(p, player, 'play', 'plays')} {card}."
        if t == "trick":
            w = event["winner"]
            line = f"Trick {event['trick']}: {does(w, player, 'take', 'takes')} the trick"
            if event["yellow"] is None:
                return line + "."
            y = event["yellow"]
            return (f"{line} with the second strongest card; {name(y, player)} played the strongest and "
                    f"take{'' if y == player else 's'} the Yellow Card.")
        if t == "discard":
            p = event["player"]
            return f"{does(p, player, 'discard', 'discards')} a card face down with the Yellow Card and sit{'' if p == player else 's'} out the next trick."
        if t == "discard_own":
            return f"The card you discarded face down is {card_label(CARD_ID[event['card']])}."
        if t == "champ":
            p = event["player"]
            return (f"{does(p, player, 'reach', 'reaches')} the target and take{'' if p == player else 's'} "
                    f"the {plural(event['value'], 'point')} Runaway Champ card.").replace(" points Runaway", "-point Runaway").replace(" point Runaway", "-point Runaway")
        if t == "eliminated":
            p = event["player"]
            return f"{does(p, player, 'win', 'wins')} one trick too many and {'are' if p == player else 'is'} eliminated from this round."
        if t == "round_end":
            tricks = ", ".join(
                f"{name(p, player)} {n}" + (" (eliminated)" if event["eliminated"][p] else "")
                for p, n in enumerate(event["tricks"]))
            gained = ", ".join(f"{name(p, player)} +{g}" for p, g in enumerate(event["gained"]) if g)
            totals = ", ".join(f"{name(p, player)} {q}" for p, q in enumerate(event["points"]))
            return (f"Round {event['round']} ends after {plural(event['tricks_played'], 'trick')}. Tricks won: {tricks}. "
                    f"Points scored: {gained or 'nobody'}. Totals: {totals}.")
        if t == "game_end":
            best = [p for p, r in enumerate(event["ranking"]) if r == 1]
            return winners(best, player) + "."
        return super()._event_text(event, player)

    # ----- results -------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return [float(q) for q in self.points]

    def scoring_lines(self, player: int) -> list[tuple[str, float]]:
        """End-of-Round Scoring, round by round: Base Points for winning exactly the target number
        of tricks, and Bonus Points for a Runaway Champ card kept to the end of the round."""
        out: list[tuple[str, float]] = []
        for r in self.results:
            n, tricks = r["round"], r["tricks"][player]
            if r["eliminated"][player]:
                out.append((f"Round {n}: eliminated after winning {plural(tricks, 'trick')}", 0.0))
                continue
            if tricks != self.target:
                out.append((f"Round {n}: won {plural(tricks, 'trick')}, not {self.target}", 0.0))
                continue
            out.append((f"Round {n}: Base Points for winning exactly {self.target} tricks",
                        float(BASE_POINTS[n - 1])))
            if player in r["champ"]:
                value = self.champ_values[r["champ"].index(player)]
                out.append((f"Round {n}: Bonus Points, the {value}-point Runaway Champ card", float(value)))
        return out or [("No round was scored", 0.0)]

    def ranking(self) -> list[int]:
        """Most points wins; tied leaders: the 2-point Champ holder, then the 1-point (End of a Game)."""
        top = max(self.points)
        k = len(self.champ_values)
        keys = [
            (q, k - self.last_champ.index(p) if q == top and p in self.last_champ else 0)
            for p, q in enumerate(self.points)
        ]
        return [1 + sum(1 for other in keys if other > mine) for mine in keys]

    # ----- information ---------------------------------------------------------------------
    def view(self, player: Any) -> dict[str, Any]:  # a seat or None; Any: see State.is_legal
        n = self.players
        if player is not None and not (type(player) is int and 0 <= player < n):
            raise ValueError(f"no player {player!r}: players are 0..{n - 1}, or None for a spectator")
        playing = self.to_move is not None and self.phase == PLAY
        v: dict[str, Any] = {
            "game": "savage_bowl",
            "player": player,
            "players": n,
            "options": dict(self.options),
            "round": self.round,
            "rounds": self.num_rounds,
            "target": self.target,
            "tricks_per_round": self.num_tricks,
            "trick_number": min(self.trick_no, self.num_tricks),
            "half": "first" if self.trick_no <= FIRST_HALF else "second",
            "phase": "discard" if self.phase == DISCARD else "play",
            "to_move": self.to_move,
            "order": list(self.order) if playing else [],
            "sitting_out": self.sitting if playing and self.sitting >= 0 else None,
            "yellow_card": self.yellow if self.yellow >= 0 else None,
            "trick": [
                {"player": self.order[i], **card_json(c), "as": COLOURS[self.tcol[i] & 7],
                 "chameleon": self.tcol[i] >= CHAM_FLAG}
                for i, c in enumerate(self.trick)
            ],
            "lead_colour": COLOURS[self.tcol[0]] if self.trick else None,  # never a Chameleon
            "last_trick": None if self.trick else self._last_trick_view(),  # ruling R8
            "tricks_won": list(self.won),
            "eliminated": [bool(self.out >> p & 1) for p in range(n)],
            "chameleon_unused": [bool(self.cham >> p & 1) for p in range(n)],
            "runaway_champ": [
                {"value": val, "player": self.champ[i] if i < len(self.champ) else None}
                for i, val in enumerate(self.champ_values)
            ],
            "hand_sizes": [h.bit_count() for h in self.hands],
            "progress_sheet": [
                {"trick": t, "player": q, "card": CODE[c] if q == player else None}
                for t, q, c in self.sheet
            ],
            "points": list(self.points),
            "round_results": list(self.results),
            "over": self.to_move is None,
            "scores": self.scores(),
            "final_scoring": self.final_scoring(),
        }
        if player is not None:
            v["hand"] = [card_json(c) for c in mask_to_list(self.hands[player])]
            v["set_aside"] = bool(self.out >> player & 1)
            if player == self.to_move:
                v["legal"] = self.legal_actions()
        if self.to_move is None:
            v["ranking"] = self.ranking()
        return v

    def _last_trick_view(self) -> dict[str, Any] | None:
        if not self.last_trick:
            return None
        winner, order, trick, tcol = self.last_trick
        return {"winner": winner, "cards": [
            {"player": order[i], **card_json(c), "as": COLOURS[tcol[i] & 7], "chameleon": tcol[i] >= CHAM_FLAG}
            for i, c in enumerate(trick)]}

    def _copy(self) -> SavageBowlState:
        # Every attribute, in `__init__`'s order (see `State._copy_core`); what play changes in
        # place is copied, the rest shared: points, results, last_champ, champ, sheet,
        # sheet_voids, order, won, won_cards, discards and voids are only ever replaced, never
        # changed in place (each list copy is a tenth of a Hearts clone; these change
        # once a trick at most). `tests/test_copies.py` catches a change in place.
        new: SavageBowlState = self._copy_core()
        new.target = self.target
        new.num_tricks = self.num_tricks
        new.num_rounds = self.num_rounds
        new.hand_size = self.hand_size
        new.champ_values = self.champ_values
        new.removed = self.removed
        new.use_chameleons = self.use_chameleons
        new.off_by_number = self.off_by_number
        new.later_wins_ties = self.later_wins_ties
        new.points = self.points
        new.results = self.results
        new.last_champ = self.last_champ
        new.last_trick = self.last_trick
        new.round = self.round
        new.first_leader = self.first_leader
        new.hands = self.hands.copy()
        new.cham = self.cham
        new.won = self.won
        new.won_cards = self.won_cards
        new.discards = self.discards
        new.sheet = self.sheet
        new.voids = self.voids
        new.sheet_voids = self.sheet_voids
        new.out = self.out
        new.champ = self.champ
        new.yellow = self.yellow
        new.trick_no = self.trick_no
        new.phase = self.phase
        new.next_leader = self.next_leader
        new.sitting = self.sitting
        new.order = self.order
        new.trick = self.trick.copy()
        new.tcol = self.tcol.copy()
        new.to_move = self.to_move
        return new

    def _resample_hidden(self, player: int, rng: random.Random) -> None:
        """Other hands (eliminated ones too) and others' face-down discards are re-dealt, sizes
        kept, never giving a hand a colour its player has shown to be void in (nor a discard a
        colour its discarder was void in when discarding).

        Won tricks are not resampled: every player saw those cards played.
        """
        others = [p for p in range(self.players) if p != player]
        discards = [i for i, (_, q, _) in enumerate(self.sheet) if q != player]
        pool = mask_to_list(sum(self.hands[p] | self.discards[p] for p in others))
        sizes = [self.hands[p].bit_count() for p in others] + [1] * len(discards)
        voids = [self.voids[p] for p in others] + [self.sheet_voids[i] for i in discards]
        dealt = deal_avoiding(pool, sizes, voids, rng)
        if dealt is None:  # pragma: no cover - the real deal always satisfies the constraints
            dealt = [self.hands[p] for p in others] + [1 << self.sheet[i][2] for i in discards]
        face_down = self.discards.copy()  # (replaced, not changed: see _copy)
        for p, hand in zip(others, dealt[: len(others)], strict=True):
            self.hands[p] = hand
            face_down[p] = 0
        sheet = self.sheet.copy()
        for i, card in zip(discards, dealt[len(others):], strict=True):
            t, q, _ = sheet[i]
            c = card.bit_length() - 1
            sheet[i] = (t, q, c)
            face_down[q] |= card
        self.discards = face_down
        self.sheet = sheet

    # ----- actions -------------------------------------------------------------------------
    def action_to_json(self, action: int) -> dict[str, Any]:
        kind, c = divmod(action, NUM_CARDS)
        if kind == 2:
            return {"discard": CODE[c]}
        if kind == 1:
            return {"play": CODE[c], "chameleon": True}
        return {"play": CODE[c]}

    def action_from_json(self, obj: Any) -> int:
        if isinstance(obj, dict):
            if set(obj) == {"discard"} and obj["discard"] in CARD_ID:
                action = DISCARD_BASE + CARD_ID[obj["discard"]]
            elif set(obj) in ({"play"}, {"play", "chameleon"}) and obj["play"] in CARD_ID:
                cham = obj.get("chameleon", False)
                if type(cham) is not bool:
                    raise IllegalAction(f"'chameleon' must be true or false, not {cham!r}")
                action = CARD_ID[obj["play"]] + (CHAM_BASE if cham else 0)
            else:
                raise IllegalAction(f"{obj!r} names no Savage Bowl action")
            if self.is_legal(action):
                return action
            raise IllegalAction(f"{self.describe(action)} is not legal now")
        return super().action_from_json(obj)

    def describe(self, action: int) -> str:
        kind, c = divmod(action, NUM_CARDS)
        if kind == 2:
            return f"discard {card_label(c)}"
        if kind == 1:
            return f"play {card_label(c)} with the Chameleon"
        return f"play {card_label(c)}"
