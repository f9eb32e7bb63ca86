"""A heuristic Trickarus bot: plays sensibly on what its player can see.

For each card it may play, it estimates how the trick ends: the players still to play get hands
dealt from the cards it has not seen (respecting shown voids) and play at random; after 5s flip
the day, the Lightning card and everything else, who wins and whether the trick carries the
Lightning card. Each ending moves a piece on the score track (the engine's own move rules); the
bot judges the track that results by its expected final place:

- its rank now, and
- the chance that each player still has to win more tricks than there are open spaces above them
  (then they fly into the sun and fall to the bottom): a binomial tail over the tricks left.

So it climbs while the track above it is roomy, ducks once a win would (likely) end in the sun,
plays the Lightning card where it drags a rival down, and sheds its dangerous cards while a trick
is lost anyway. Co-operative mode: one player (the highest) climbs into the sun while the others
stay low, then everyone in the air comes down.
"""

from __future__ import annotations

import random
from functools import lru_cache

from .rules import (
    ALL_CARDS,
    FLIPS,
    HAND_SIZE,
    LIGHTNING,
    STRENGTH,
    SUIT,
    SUIT_MASK,
    TRUMP,
    VALUE,
    TrickarusState,
    mask_to_list,
)


class _Track:
    """Just the score track, so that the engine's move rules can run on a copy of it."""

    __slots__ = ("pos", "track_length", "sun_reached")

    def __init__(self, pos: list[int], track_length: int, sun_reached: bool) -> None:
        self.pos = pos
        self.track_length = track_length
        self.sun_reached = sun_reached


@lru_cache(maxsize=4096)
def _tail(tricks: int, p: float, k: int) -> float:
    """P(at least ``k`` wins in ``tricks`` tricks, each won with chance ``p``)."""
    if k <= 0:
        return 1.0
    if k > tricks:
        return 0.0
    term = (1 - p) ** tricks  # P(0 wins)
    below = 0.0
    for i in range(k):
        below += term
        term *= (tricks - i) / (i + 1) * p / (1 - p)
    return max(0.0, 1.0 - below)


class HeuristicBot:
    name = "heuristic"
    samples = 16  # deals of the unseen cards per move (only when others still play to the trick)
    my_rate = 0.6  # my expected share of future tricks, relative to 1/players (I can duck)
    carry = 0.5  # share of a next round's tricks that still count against room (game goes on)
    height = 1.0  # tie-break: being higher on the track is worth this much of a place
    duel_try = 0.45  # 2 players: my chance to take a trick I try to take
    forced_weight = 0.5  # scales the expected forced wins of my hand

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    # ----- the decision --------------------------------------------------------------------
    def choose(self, state: TrickarusState) -> int:
        me = state.to_move
        assert me is not None
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        freqs = self._trick_outcomes(state, me, legal)
        hand = mask_to_list(state.hands[me])
        stay = _stay(state)
        danger = {c: _danger(c, state.players, state.side, stay) for c in hand}
        forced = sum(danger.values())
        best, best_score = legal[0], -1e9
        cache: dict[tuple[int, bool, int], float] = {}
        for card in legal:
            outcomes = freqs[card]
            total = sum(outcomes.values())
            score = 0.0
            for (w, lightning), count in outcomes.items():
                key = (w, lightning, card)
                if key not in cache:
                    cache[key] = self._outcome_value(state, me, w, lightning, forced - danger[card])
                score += count * cache[key]
            score /= total
            if score > best_score:
                best, best_score = card, score
        return best

    # ----- how the trick may end -------------------------------------------------------------
    def _trick_outcomes(
        self, state: TrickarusState, me: int, legal: list[int]
    ) -> dict[int, dict[tuple[int, bool], int]]:
        """For each legal card: how often each (winner, Lightning in the trick) came out."""
        n = state.players
        leader = state.leader
        followers = [(me + i) % n for i in range(1, n - len(state.trick))]
        strong = state.lightning_strong
        base = state.trick
        if not followers:
            deals: list[list[int]] = [[]]
            picks: list[list[float]] = [[]]
        else:
            unseen = mask_to_list(_unseen(state, me))
            sizes = [state.hands[f].bit_count() for f in followers]
            voids = [state.voids[f] for f in followers]
            rng = self.rng
            deals, picks = [], []
            for _ in range(self.samples):
                rng.shuffle(unseen)
                taken, hands = 0, []
                for size, void in zip(sizes, voids, strict=True):
                    hand, blocked = 0, taken | void
                    for c in unseen:
                        if size == 0:
                            break
                        if not blocked >> c & 1:
                            hand |= 1 << c
                            size -= 1
                    for c in unseen:  # shown voids left too few cards: fill up regardless
                        if size == 0:
                            break
                        if not (taken | hand) >> c & 1:
                            hand |= 1 << c
                            size -= 1
                    taken |= hand
                    hands.append(hand)
                deals.append(hands)
                picks.append([rng.random() for _ in followers])
        result: dict[int, dict[tuple[int, bool], int]] = {}
        for card in legal:
            counts: dict[tuple[int, bool], int] = {}
            for hands, us in zip(deals, picks, strict=True):
                trick = [*base, card]
                side = state.side ^ FLIPS[card] if card != LIGHTNING else state.side
                lead = (
                    state.lead_card if state.lead_card >= 0 else (card if card != LIGHTNING else -1)
                )
                for hand, u in zip(hands, us, strict=True):
                    if lead >= 0:
                        hand = hand & SUIT_MASK[side][SUIT[side][lead]] or hand
                    options = mask_to_list(hand)
                    c = options[int(u * len(options))]
                    trick.append(c)
                    if lead < 0 and c != LIGHTNING:
                        lead = c
                    if FLIPS[c]:
                        side ^= 1
                strength = STRENGTH[strong][side][SUIT[side][lead] if lead >= 0 else -1]
                best = max(range(len(trick)), key=lambda i: strength[trick[i]])
                key = ((leader + best) % n, LIGHTNING in trick)
                counts[key] = counts.get(key, 0) + 1
            result[card] = counts
        return result

    # ----- what an ending is worth -----------------------------------------------------------
    def _outcome_value(
        self, state: TrickarusState, me: int, w: int, lightning: bool, forced: float
    ) -> float:
        track = _Track(state.pos.copy(), state.track_length, state.sun_reached)
        if lightning or (state.coop and state.sun_reached):
            TrickarusState._move_down(track, w)  # type: ignore[arg-type]
        else:
            TrickarusState._move_up(track, w)  # type: ignore[arg-type]
        return self._value(state, me, track, forced)

    def _value(self, state: TrickarusState, me: int, track: _Track, forced: float) -> float:
        """How good the track after this trick is for ``me`` (minus an expected place)."""
        n, top, pos = state.players, track.track_length, track.pos
        left = state.hands[me].bit_count() - 1  # my tricks after this one (I am about to play)
        per_round = HAND_SIZE[n]
        if state.coop:
            return -_coop_cost(pos, top, track.sun_reached)
        final = track.sun_reached or n == 2
        if n == 2:  # one round: exact over who takes the tricks left
            duck = min(0.6, max(0.05, self.forced_weight * forced / max(left, 1)))
            return -_duel(pos[me], pos[1 - me], left, top, self.duel_try, round(duck, 2))
        horizon = left + (0 if final else int(self.carry * per_round))
        rooms = _rooms(pos, top)
        mine_rate = (self.forced_weight * forced + self.my_rate / n * (horizon - left)) / max(
            horizon, 1
        )
        fly = [
            _tail(horizon, min(0.95, mine_rate if q == me else 1.0 / n), rooms[q] + 1)
            for q in range(n)
        ]
        mine = pos[me]
        above = sum(1 for q in range(n) if pos[q] > mine)
        tied = sum(1 for q in range(n) if q != me and pos[q] == mine)
        place = 1 + above + 0.5 * tied
        expected = (
            place
            + fly[me] * (n - place)
            - (1 - fly[me]) * sum(fly[q] for q in range(n) if pos[q] > mine)
        )
        return -expected + self.height * mine / top


@lru_cache(maxsize=65536)
def _duel(me: int, other: int, left: int, top: int, take: float, duck: float) -> float:
    """2 players: my expected place after ``left`` more tricks, if each trick I take with chance
    ``take`` when I try and ``duck`` when I do not, choosing the better each time."""
    if left == 0:
        return 1.0 if me > other else 2.0 if me < other else 1.5
    up = _climb(me, other, top)
    won = _duel(up, other, left - 1, top, take, duck)
    lost = _duel(me, _climb(other, me, top), left - 1, top, take, duck)
    return min(take * won + (1 - take) * lost, duck * won + (1 - duck) * lost)


def _climb(p: int, other: int, top: int) -> int:
    """Where a trick winner at ``p`` lands with one rival at ``other`` (2 players)."""
    space = p + 1 + (p + 1 == other)
    return space if space <= top else max(0, other - 1)


def _rooms(pos: list[int], top: int) -> list[int]:
    """Open spaces above each player: wins they can still take before the sun."""
    return [top - p - sum(1 for q in pos if q > p) for p in pos]


def _coop_cost(pos: list[int], top: int, sun_reached: bool) -> float:
    """Co-op: about how many tricks the team still needs (to the sun, then everyone down)."""
    descent = sum(p - sum(1 for q in pos if 0 < q < p) for p in pos if p > 0)
    if sun_reached:
        return descent
    # The highest player flies: wins up to the sun, then lands just below the lowest other.
    high = max(range(len(pos)), key=lambda q: pos[q])
    room = _rooms(pos, top)[high]
    others = [p for q, p in enumerate(pos) if q != high]
    landing = max(0, min(others) - 1)
    return room + 1 + descent - (pos[high] - sum(1 for q in others if 0 < q < pos[high])) + landing


def _unseen(state: TrickarusState, me: int) -> int:
    """Cards ``me`` has not seen this round: in others' hands or (2 players) set aside."""
    return ALL_CARDS & ~state.removed & ~state.played & ~state.hands[me]


# How often a card played at random wins its trick against random cards, by players, for trump
# and for other colours, by active value (measured over 1,500 random games per player count).
_WINS_TRUMP = {
    2: (0.32, 0.44, 0.54, 0.62, 0.63, 0.47, 0.74, 0.77, 0.87, 0.95),
    3: (0.21, 0.29, 0.32, 0.37, 0.44, 0.24, 0.53, 0.64, 0.76, 0.90),
    4: (0.19, 0.29, 0.28, 0.29, 0.32, 0.13, 0.43, 0.53, 0.67, 0.86),
    5: (0.17, 0.26, 0.25, 0.27, 0.28, 0.09, 0.34, 0.46, 0.60, 0.81),
}
_WINS_OTHER = {
    2: (0.13, 0.20, 0.29, 0.36, 0.45, 0.52, 0.51, 0.58, 0.67, 0.77),
    3: (0.08, 0.12, 0.13, 0.16, 0.21, 0.30, 0.28, 0.39, 0.51, 0.64),
    4: (0.06, 0.13, 0.11, 0.11, 0.12, 0.19, 0.16, 0.25, 0.37, 0.53),
    5: (0.06, 0.14, 0.10, 0.07, 0.07, 0.13, 0.10, 0.15, 0.26, 0.42),
}


def _stay(state: TrickarusState) -> float:
    """The weight of the side now for cards played later: 1 once no 5 is left to flip it."""
    left = ALL_CARDS & ~state.removed & ~state.played
    return 0.6 if any(FLIPS[c] for c in mask_to_list(left)) else 1.0


def _danger(card: int, players: int, side: int, stay: float) -> float:
    """How likely ``card`` is to win a later trick even if its holder would rather not."""
    if card == LIGHTNING:
        return 0.0  # never climbs: with it a trick moves its winner down
    total = 0.0
    for s, weight in ((side, stay), (side ^ 1, 1 - stay)):
        table = _WINS_TRUMP[players] if SUIT[s][card] == TRUMP[s] else _WINS_OTHER[players]
        total += weight * table[VALUE[s][card]]
    return total
