"""Scarvus hooks for the generic ISMCTS (src/meeple/bots/ismcts.py): a cheap playout policy and
an evaluation of playouts cut off mid-game.

Why a policy: uniformly random playouts bid absurd numbers and challenge at random, so a random
game crashes into its fourth feather after ~50 actions and says little about a real bid. The
heuristic bot plays sensibly but builds a JSON view per decision. `rollout_policy` plays like it
from the raw state: each player reads a colour as its own card plus the mean of the cards it
cannot see (the deck list minus the visible discards and its own card), for every other hidden
hand. Each player in a playout uses only its own cards of the determinized world, so the playout
keeps the bluffing of the real game: nobody knows a total.

Why an evaluation: a bid's worth is mostly decided by the challenge that ends its round; the
rest of the game is noise on top. `evaluate` turns running scores into a value per player: its
mean, over rivals, of tanh(score difference / `SPREAD`), so a burnt feather counts more than a
singed one and a lead counts by its size, not just by place.
"""

from __future__ import annotations

import math
import random

from meeple.core import replaced

from .rules import (
    ACCEPT,
    BID,
    BIDDING,
    CAP,
    CARD,
    CHALLENGE,
    COLOUR_ID,
    DAEDALUS,
    DECK,
    DROP,
    FIRST_BID,
    KEEP,
    LOSS,
    NC,
    PASS,
    RESPOND,
    SCOUTING,
    WAX,
    ScarvusState,
)

DECK_SUM = sum(DECK)
DECK_SIZE = len(DECK)
TOP_VALUES = sorted(DECK, reverse=True)
OPEN_BELOW = 2  # an opening bid is this far below the best colour's estimate (as the heuristic)
CHALLENGE_OVER = 1.0  # challenge a bid this far over my estimate when raising is no better
ALWAYS_OVER = 3.0  # ... and any bid this far over it
RAISES = 2  # candidate raises: one or two over the current bid
SPREAD = 5.0  # score points (one burnt feather) that make a rival's lead count about 76%


def estimates(state: ScarvusState, p: int) -> list[float]:
    """Player ``p``'s expected total per colour (-1 for colours out of play): visible cards
    (their own, revealed ones) plus, for each other hidden hand, the mean of the unseen cards."""
    hand, in_play, alive, revealed = state.hand, state.in_play, state.alive, state.revealed
    others = [q for q in range(state.players) if q != p and alive[q]]
    out = [-1.0] * NC
    for c in range(NC):
        if not in_play >> c & 1:
            continue
        pile = state.discards[c]
        known = hand[p * NC + c]
        seen_sum, seen_n, hidden = known + sum(pile), 1 + len(pile), 0
        for q in others:
            if revealed[q] >> c & 1:
                v = hand[q * NC + c]
                known += v
                seen_sum += v
                seen_n += 1
            else:
                hidden += 1
        left = DECK_SIZE - seen_n
        out[c] = known + (hidden * (DECK_SUM - seen_sum) / left if left > 0 else 0.0)
    return out


def ceiling(state: ScarvusState, p: int, c: int) -> int:
    """The largest total colour ``c`` could have as ``p`` sees it: their own and revealed cards,
    and the highest values for every other hidden hand (visible discards not excluded: a bound)."""
    hand, revealed = state.hand, state.revealed
    total, hidden = hand[p * NC + c], 0
    for q in range(state.players):
        if q != p and state.alive[q]:
            if revealed[q] >> c & 1:
                total += hand[q * NC + c]
            else:
                hidden += 1
    return total + sum(TOP_VALUES[:hidden])


def floor(state: ScarvusState, p: int, c: int) -> int:
    """The smallest total colour ``c`` could have as ``p`` sees it: their own and revealed cards."""
    hand, revealed = state.hand, state.revealed
    total = hand[p * NC + c]
    for q in range(state.players):
        if q != p and state.alive[q] and revealed[q] >> c & 1:
            total += hand[q * NC + c]
    return total


def rollout_policy(state: ScarvusState, rng: random.Random) -> int:
    """A sensible, cheap move for ``state.to_move`` (see the module docstring).

    It bids its best colour by estimate among those where the bid can still be safe (at most the
    `ceiling`), opening `OPEN_BELOW` under the estimate (give or take one) and otherwise raising
    by one. It challenges a bid that cannot be safe, or one it would have to answer with a raise
    that cannot be safe; it never challenges a bid that must be safe while it can raise; between
    those it answers like the heuristic, with a little noise. No Flight card is played except
    Wax Repair, and the Card Step always passes: the playout never builds a view.
    """
    p = state.to_move
    assert p is not None
    ph = state.phase
    if ph == CARD:
        return PASS
    if ph == BIDDING:
        return _bid(state, p, rng)
    if ph == RESPOND:
        return _respond(state, p, rng)
    if ph == SCOUTING:
        return KEEP if state.pending > state.hand[p * NC + state.pending_colour] else DROP
    if ph == LOSS:
        return WAX
    return state.legal_actions()[0]  # the hand limit: any Flight card goes


def _bid(state: ScarvusState, p: int, rng: random.Random) -> int:
    est = estimates(state, p)
    colours = [c for c in range(NC) if est[c] >= 0]
    if state.bid is None:
        best = max(colours, key=est.__getitem__)
        n = round(est[best]) - OPEN_BELOW + rng.randrange(-1, 2)
        return BID + (min(max(n, FIRST_BID), ceiling(state, p, best)) - 1) * NC + best
    n = state.bid[0] + 1
    if n > CAP:  # only Tailwind's equal bids are left
        return state.legal_actions()[0]
    possible = [c for c in colours if ceiling(state, p, c) >= n]
    best = max(possible or colours, key=est.__getitem__)
    return BID + (n - 1) * NC + best


def _respond(state: ScarvusState, p: int, rng: random.Random) -> int:
    n, c = state.bid  # type: ignore[misc]
    talon = state.resp_idx > 0  # Talons: accepting commits to nothing
    if not (talon or state.can_raise(p)) or n > ceiling(state, p, c):
        return CHALLENGE
    if n <= floor(state, p, c):
        return ACCEPT
    est = estimates(state, p)
    over = n - est[c] + rng.uniform(-0.5, 0.5)
    if talon:
        return CHALLENGE if over > ALWAYS_OVER else ACCEPT
    if all(n + 1 > ceiling(state, p, d) for d in range(NC) if est[d] >= 0):
        return CHALLENGE  # every raise would crash for sure
    raise_over = min(n + 1 - e for e in est if e >= 0)
    if over > ALWAYS_OVER or (over > CHALLENGE_OVER and over >= raise_over):
        return CHALLENGE
    return ACCEPT


def candidate_actions(state: ScarvusState) -> list[int]:
    """The moves worth searching: in the Bid Step, openings from 5 under to 1 over the bidder's
    estimate in each colour (never past its `ceiling`) and raises by one or two (with Tailwind's
    equal bids); every legal move elsewhere. Up to 280 bids are legal, nearly all absurd: a tree
    that expands them in random order spends its budget on them (a proposed ISMCTS hook)."""
    legal = state.legal_actions()
    if state.phase != BIDDING:
        return legal
    if state.bid is not None:
        top = state.bid[0] + RAISES
        return [a for a in legal if a - BID < top * NC] or legal
    p = state.to_move
    assert p is not None
    est = estimates(state, p)
    out = []
    for c in range(NC):
        if est[c] >= 0:
            mid = round(est[c])
            lo, hi = max(FIRST_BID, mid - 5), min(mid + 1, ceiling(state, p, c), CAP)
            out += [BID + (n - 1) * NC + c for n in range(lo, hi + 1)]
    return sorted(out) or legal


def evaluate(state: ScarvusState) -> list[float]:
    """Per player, the mean over living rivals of tanh(score difference / `SPREAD`): in [-1, 1],
    0 for all when the scores are level (see the module docstring)."""
    s = state.scores()
    n = state.players
    out = []
    for p in range(n):
        diffs = [math.tanh((s[p] - s[q]) / SPREAD) for q in range(n) if q != p]
        out.append(sum(diffs) / len(diffs) if diffs else 0.0)
    return out


# ----- hooks for the rollout bot (src/meeple/bots/rollout.py) ------------------------------------
PLACE_SPREAD = 3.0  # score points of noise per feather still to come (as the probabilistic bot)


def round_key(state: ScarvusState) -> tuple[int, int]:
    """A playout stops when this changes: a Round ends at its challenge, where the feather that
    decides it is taken; what comes after depends little on the move being judged."""
    return state.match, state.round


def place_value(state: ScarvusState, me: int) -> float:
    """Minus ``me``'s expected place (the arena's measure): exact once the game is over, else
    with the rest of the game as noise on every score difference (`expected_place`), so a burnt
    feather costs more than a singed one, and more near the end."""
    from .bot import expected_place

    scores = state.scores()
    if state.to_move is None:
        spread = 0.0
    elif state.fight:
        spread = 1.0 + sum(state.lives) / max(1, sum(state.alive))
    else:
        left = state.end_at - max(s + b for s, b in zip(state.singed, state.burnt, strict=True))
        spread = PLACE_SPREAD * math.sqrt(left)
    return -expected_place(scores, me, [(1.0, {})], spread)


def bid_world(state: ScarvusState, me: int, rng: random.Random) -> ScarvusState:
    """A determinization for ``me`` that reads the standing bid as the probabilistic bot does: the
    bidder's hidden card of the bid colour is drawn with odds count x P(it beats their other
    cards) (`best_colour_weights`), the colour's other hidden cards uniformly. Only ``me``'s view
    is read: the pool is the one ``determinize`` shuffled, taken in a fixed order of places."""
    from .bot import best_colour_weights

    world: ScarvusState = state.determinize(me, rng)  # type: ignore[assignment]
    if world.phase != RESPOND or world.bid is None or world.bidder == me:
        return world
    q, c = world.bidder, world.bid[1]
    hand, seen = world.hand, world.peeks[me]
    if world.revealed[q] >> c & 1 or seen >> (q * NC + c) & 1 or hand[q * NC + c] < 0:
        return world
    # Places whose card ``me`` cannot see: others' hands, the Daedalus card, the deck.
    hands = world.hidden_places(me, c)
    values = [hand[i] for i in hands]
    daedalus = not seen >> (DAEDALUS * NC + c) & 1
    if daedalus:
        values.append(world.daedalus[c])
    values += world.decks[c]
    colours = bin(world.in_play).count("1")
    weight = best_colour_weights(colours)
    pick = rng.choices(range(len(values)), [weight[v] for v in values])[0]
    mine = hands.index(q * NC + c)
    values[mine], values[pick] = values[pick], values[mine]
    for i, v in zip(hands, values, strict=False):
        hand[i] = v
    rest = values[len(hands):]
    if daedalus:  # a new list: the world shares its original's (ScarvusState._copy)
        world.daedalus = replaced(world.daedalus, c, rest.pop(0))
    world.decks[c] = rest
    return world


MATCH_TRIES = 12  # determinizations tried for one that explains the Round's bids


def round_bids(state: ScarvusState, me: int) -> list[tuple[int, tuple[int, int] | None, int, int]]:
    """The others' bids of this Round since the last card moved, from ``me``'s log (public
    events only): (bidder, the bid before it or None, number, colour). Empty without a log."""
    try:
        events = state.log(me, text=False)
    except ValueError:  # a search copy keeps no log
        return []
    out: list[tuple[int, tuple[int, int] | None, int, int]] = []
    prev: tuple[int, int] | None = None
    for e in events:
        kind = e["type"]
        if kind in ("challenge", "match"):
            out, prev = [], None
        elif kind in ("discard", "drew", "reveal", "scouted"):
            out = []  # what was bid before a card moved was bid on other cards
        elif kind == "bid":
            bid = (e["number"], COLOUR_ID[e["colour"]])
            if e["player"] != me:
                out.append((e["player"], prev, *bid))
            prev = bid
    return out


def explained_world(state: ScarvusState, me: int, rng: random.Random) -> ScarvusState:
    """A determinization for ``me`` in which the probabilistic bot, seated at each of this
    Round's other bidders, would have made the bid they made: exact inference against that bot
    (the `hard` level), a fair guess against any bidder who bids their strong colour. After
    `MATCH_TRIES` misses, the world that explains the most bids, latest first (ties: the first), and if none,
    `bid_world`'s. Reads ``me``'s view and log only."""
    from .bot import ProbabilisticBot

    bids = round_bids(state, me)
    if not bids or state.daedalus_mode or state.flight_on or state.fight:
        return bid_world(state, me, rng)
    best, best_hits = None, 0
    model = ProbabilisticBot(0)
    for _ in range(MATCH_TRIES):
        world: ScarvusState = state.determinize(me, rng)  # type: ignore[assignment]
        hits = 0
        now = world.phase, world.to_move, world.bid
        for bidder, prev, number, colour in reversed(bids):  # the latest bid says most
            world.phase, world.to_move, world.bid = BIDDING, bidder, prev  # as it was then
            if model.choose(world) != BID + (number - 1) * NC + colour:
                break
            hits += 1
        world.phase, world.to_move, world.bid = now
        if hits == len(bids):
            return world
        if hits > best_hits:
            best, best_hits = world, hits
    return best if best is not None else bid_world(state, me, rng)
