"""A heuristic Trickarus bot: plays sensibly on what its player can see, in about a millisecond.

For each card it may play, it estimates how the trick ends: the players still to play get hands
dealt from the cards it has not seen (never a colour they have shown to be void in) and play at
random, with 5s flipping day and night on the way, so it learns how often each player would win
the trick and whether the trick carries the Lightning card. Each ending moves a piece on the score
track by the engine's own rules, and the bot judges the track that results by its expected final
place (`_race`): the next few tricks go to the players at random, itself taking a trick with a
fair chance when it tries and, when it ducks, with the chance that its remaining hand forces a win
on it (`_danger`, lower for the card it has just got rid of); whoever must win past the open
spaces above them flies into the sun, falls below everyone and ends the game after the round.

So it climbs while the track above it is roomy, ducks once a win would (likely) fly it into the
sun, flies early rather than late when its hand will force it anyway, sheds its dangerous cards
in tricks it loses, and plays the Lightning card where it drags a rival down. Co-operative mode:
every player leaves the ground once (only they can land back down, ruling R5), the highest player
climbs into the sun while the others stay low, then everyone comes down.
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
    move_down,
    move_up,
)


class _Track:
    """Just the score track: a copy of the positions for the engine's `move_up`/`move_down`."""

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
    samples = 12  # deals of the unseen cards per move (only when others still play to the trick)
    take = 0.45  # my chance to take a trick I try for, times players / 2
    forced_weight = 0.5  # scales how many tricks my hand would win even when I duck
    carry = 0.5  # share of a next round's tricks judged against the room (the game goes on)
    depth = {2: 13, 3: 5, 4: 4, 5: 4}  # tricks looked ahead one by one (the rest: `_leaf`)

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
                    after = forced - danger[card]  # the card played wins no later trick
                    cache[key] = self._outcome_value(state, me, w, lightning, after)
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
                best, top = 0, -2
                for i, c in enumerate(trick):
                    if strength[c] > top:
                        best, top = i, strength[c]
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
            move_down(track.pos, w)
            flown = state.flown
        else:
            if move_up(track.pos, w, track.track_length):
                track.sun_reached = True
            flown = state.flown | 1 << w
        value = self._value(state, me, track, forced)
        if state.coop and not state.landed_on_ground:
            # Ruling R5: only players who left the ground can land back down, and once the sun
            # is reached nobody goes up again: each player still grounded costs a trick up and
            # one down before the sun, and the whole landing (its million) after it.
            grounded = state.players - flown.bit_count()
            value -= grounded * (state.players + 2 if track.sun_reached else 2)
        return value

    def _value(self, state: TrickarusState, me: int, track: _Track, forced: float) -> float:
        """How good the track after this trick is for ``me`` (minus an expected place)."""
        n, top, pos = state.players, track.track_length, track.pos
        left = state.hands[me].bit_count() - 1  # my tricks after this one (I am about to play)
        per_round = HAND_SIZE[n]
        if state.coop:
            return -_coop_cost(pos, top, track.sun_reached)
        final = track.sun_reached or n == 2
        duck = min(0.6, max(0.02, self.forced_weight * forced / max(left, 1)))
        depth = min(left, self.depth[n])
        others = tuple(sorted(pos[q] for q in range(n) if q != me))
        nxt = 0 if final else int(self.carry * per_round)
        take = round(self.take / n * 2, 2)
        place = _race(
            pos[me],
            others,
            depth,
            top,
            take,
            round(duck * 20) / 20,
            track.sun_reached,
            left - depth,
            nxt,
        )
        return -place


@lru_cache(maxsize=20_000)
def _race(
    me: int,
    others: tuple[int, ...],
    left: int,
    top: int,
    take: float,
    duck: float,
    sun: bool,
    rest: int,
    nxt: int,
) -> float:
    """My expected place when the next ``left`` tricks go to the players at random: to me with
    chance ``take`` when I try for a trick and ``duck`` when I do not (I choose the better each
    time), the others sharing the rest evenly. ``others`` are their positions, sorted. After those
    tricks, the track is judged by `_leaf` over ``rest`` more tricks of this round and, unless
    the sun has been reached (the game ends with the round), ``nxt`` of the next."""
    if left == 0:
        return _leaf(me, others, top, rest + (0 if sun else nxt))
    space = me + 1  # I take it (Advancing Along the Scoring Track; Flying Into the Sun)
    while space in others:
        space += 1
    if space > top:
        won = _race(max(0, min(others) - 1), others, left - 1, top, take, duck, True, rest, nxt)
    else:
        won = _race(space, others, left - 1, top, take, duck, sun, rest, nxt)
    lost = 0.0
    for i, o in enumerate(others):  # someone else takes it
        rest_pos = others[:i] + others[i + 1 :]
        space = o + 1
        while space == me or space in rest_pos:
            space += 1
        flew = sun
        if space > top:
            space, flew = max(0, min((me, *rest_pos)) - 1), True
        lost += _race(
            me, tuple(sorted((*rest_pos, space))), left - 1, top, take, duck, flew, rest, nxt
        )
    lost /= len(others)
    return min(take * won + (1 - take) * lost, duck * won + (1 - duck) * lost)


LEAF_RATE = 0.6  # my share of later tricks in `_leaf`, relative to 1/players (I can duck)


def _leaf(me: int, others: tuple[int, ...], top: int, tricks: int) -> float:
    """My expected place, roughly, if ``tricks`` more tricks are played: each player wins its
    share of them (a binomial count); one who must win more than its room flies into the sun
    and ends below me."""
    place = 1 + sum(1 for o in others if o > me) + 0.5 * sum(1 for o in others if o == me)
    if not tricks:
        return place
    n = len(others) + 1
    pos = [me, *others]
    rooms = _rooms(pos, top)
    fly = [
        _tail(tricks, min(0.95, (LEAF_RATE if q == 0 else 1.0) / n), rooms[q] + 1) for q in range(n)
    ]
    above = sum(fly[q + 1] for q, o in enumerate(others) if o > me)
    return place + fly[0] * (n - place) - (1 - fly[0]) * above


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


def evaluate(state: TrickarusState) -> list[float]:
    """A search playout cut mid-game, judged per player by the heuristic's own estimate of its
    final place (`_leaf`) from the track and the tricks still to come, as a value in [-1, 1].

    Why: a random playout to the end of a round (or of several) mostly measures random play near
    the sun; the track and the tricks left say more, cheaply. Co-op: everyone shares the team's
    value, fewer tricks still needed being better.
    """
    n, top, pos = state.players, state.track_length, state.pos
    if state.coop:
        v = -_coop_cost(pos, top, state.sun_reached) / (2 * top)
        return [max(-1.0, min(1.0, v))] * n
    left = max(hand.bit_count() for hand in state.hands)
    nxt = 0 if state.sun_reached or n == 2 else int(HeuristicBot.carry * HAND_SIZE[n])
    out = []
    for me in range(n):
        others = tuple(sorted(pos[q] for q in range(n) if q != me))
        place = _leaf(pos[me], others, top, left + nxt)
        out.append(1.0 - 2.0 * (place - 1) / (n - 1))
    return out


def round_key(state: TrickarusState) -> int:
    """The round number: a search playout cut here (ISMCTS knob ``h``) ends with the round, where
    the track is all that carries over (the next round is dealt afresh), and is judged by
    `evaluate`; a round that ends the game gives the real result."""
    return state.round


GREEDY_EPSILON = 0.1  # share of uniformly random moves in `greedy_playout`


def greedy_playout(state: TrickarusState, rng: random.Random) -> int:
    """A cheap playout policy for ISMCTS (knob ``greedy``, e.g. ``ismcts:3000:greedy``): a
    rule of thumb, a few table look-ups a card, with a ``GREEDY_EPSILON`` share of random moves.

    Why: random playouts fly players into the sun far more often than any sound player does,
    which blurs what a move near the top of the track is worth; the heuristic knows better but
    costs about fifty random playout steps a move. The rule: a player wants the trick if it
    would still have room for its fair share of the round's later tricks after climbing (and no
    Lightning card is in it); wanting it, it plays its cheapest card that wins so far (the
    strongest when others still play to the trick), else dumps its weakest; not wanting it, it
    sheds its strongest card that does not win so far, else its weakest. Co-op: random.
    """
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if state.coop or rng.random() < GREEDY_EPSILON:
        return legal[rng.randrange(len(legal))]
    me = state.to_move
    assert me is not None
    pos, n, trick = state.pos, state.players, state.trick
    mine = pos[me]
    room = state.track_length - mine - sum(1 for q in pos if q > mine)
    share = (state.hands[me].bit_count() - 1) // n
    want = room > share and LIGHTNING not in trick
    last = len(trick) == n - 1
    strength_table = STRENGTH[state.lightning_strong]
    side, lead = state.side, state.lead_card
    winners: list[tuple[int, int]] = []
    losers: list[tuple[int, int]] = []
    for card in legal:
        s = side ^ 1 if FLIPS[card] else side
        first = lead if lead >= 0 else (card if card != LIGHTNING else -1)
        strength = strength_table[s][SUIT[s][first] if first >= 0 else -1]
        mine_s = strength[card]
        if all(strength[c] < mine_s for c in trick):
            winners.append((mine_s, card))
        else:
            losers.append((mine_s, card))
    if want:
        if winners:
            return min(winners)[1] if last else max(winners)[1]
        return min(losers)[1]
    if losers:
        return max(losers)[1]
    return max(winners)[1] if last else min(winners)[1]
