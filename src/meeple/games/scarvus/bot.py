"""Scarvus bots: a mean-based heuristic and a probabilistic bot that does the exact maths.

Both decide from ``state.view(me)`` alone, so they only use what their seat may know.

The probabilistic bot: for each colour in play, the cards it cannot see (others' unrevealed
cards, the Daedalus card, the deck and, in the Daedalus Challenge, buried discards) are a
multiset of known composition (the deck list minus everything seen). The other players' hidden
cards of that colour are a uniform draw without replacement from that multiset, so the exact
distribution of the colour's total is a convolution over the unseen values (`total_distribution`).
It then challenges and bids by expected feather loss (`expected_losses`), with a one-step model of
the next player: it bids as high as it can while the next player should still prefer to accept.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from .rules import (
    ACCEPT,
    BID,
    CAP,
    CHALLENGE,
    COLOUR_ID,
    COLOURS,
    COUNSEL,
    DISCARD_FLIGHT,
    DROP,
    EFFECTS,
    EYES,
    FLARE,
    KEEP,
    NC,
    PASS,
    REVEAL,
    SINGED_MAX,
    VALUE_COUNTS,
    WAX,
    ScarvusState,
    bid_of,
)

# Which Flight card to keep at the hand limit: the most useful first.
KEEP_ORDER = ("wax_repair", "sharp_eyes", "counsel", "tailwind", "scout", "sun_flare", "updraft")


def total_distribution(known: int, unseen: Sequence[int], k: int) -> list[float]:
    """P(total == t) for t = 0.., where total = ``known`` + the sum of ``k`` cards drawn without
    replacement from the multiset ``unseen`` (``unseen[v]`` cards of value v).

    Exact: ``ways[j][s]`` counts the j-card subsets with sum s, built value by value with
    binomial weights (a convolution), then divided by C(len(unseen), k).
    """
    size = sum(unseen)
    if not 0 <= k <= size:
        raise ValueError(f"cannot draw {k} cards from {size}")
    top = max((v for v, m in enumerate(unseen) if m), default=0)
    ways = [[0] * (k * top + 1) for _ in range(k + 1)]
    ways[0][0] = 1
    for v, m in enumerate(unseen):
        if not m:
            continue
        new = [row.copy() for row in ways]
        for j in range(k + 1):
            row = ways[j]
            for s, w in enumerate(row):
                if not w:
                    continue
                for i in range(1, min(m, k - j) + 1):
                    new[j + i][s + i * v] += w * math.comb(m, i)
        ways = new
    denom = math.comb(size, k)
    dist = [0.0] * (known + k * top + 1)
    for s, w in enumerate(ways[k]):
        if w:
            dist[known + s] = w / denom
    return dist


def expected_losses(dist: Sequence[float], number: int, fight: bool = False) -> tuple[float, float]:
    """(bidder's, challenger's) expected penalty if a bid of ``number`` on this total is
    challenged: the bidder pays when the total is short, the challenger when it is not (Challenge
    Step). Penalties are feather points (2 or 5), or 1 Life in Fight in the Skies."""
    bidder = challenger = 0.0
    for t, p in enumerate(dist):
        if not p:
            continue
        diff = abs(number - t)
        pen = 1 if fight else (2 if diff <= SINGED_MAX else 5)
        if t < number:
            bidder += p * pen
        else:
            challenger += p * pen
    return bidder, challenger


def colour_beliefs(view: dict[str, Any]) -> dict[int, tuple[int, list[int], int]]:
    """Per colour in play: (known part of the total, unseen multiset by value, hidden cards in
    other hands), all from ``view`` (a seat's view)."""
    me = view["player"]
    n = view["players"]
    out = {}
    seen_by_owner: dict[tuple[Any, str], int] = {(s["owner"], s["colour"]): s["value"] for s in view["seen"]}
    for colour in view["in_play"]:
        unseen = list(VALUE_COUNTS)
        known = 0
        hidden = 0

        seen: list[int] = []
        see = seen.append
        own = view["hand"].get(colour)
        if own is not None:
            see(own)
            known += own
        pile = view["discards"][colour]
        for value in [pile["top"]] if isinstance(pile, dict) and pile["top"] is not None else (
            [] if isinstance(pile, dict) else pile
        ):
            see(value)
        scouted = view.get("scouted")
        if scouted and scouted["colour"] == colour:
            see(scouted["value"])
        if ("daedalus", colour) in seen_by_owner:
            see(seen_by_owner[("daedalus", colour)])
        for q in range(n):
            if q == me or not view["alive"][q]:
                continue
            if colour in view["revealed"][q]:
                value = view["revealed"][q][colour]
            elif (q, colour) in seen_by_owner:
                value = seen_by_owner[(q, colour)]
            else:
                hidden += 1
                continue
            see(value)
            known += value
        for value in seen:
            unseen[value] -= 1
        out[COLOUR_ID[colour]] = (known, unseen, hidden)
    return out


class ProbabilisticBot:
    """Bids and challenges by exact expected feather loss (see the module docstring)."""

    name = "probabilistic"
    # How sharply the next player's challenge probability falls with their margin, in feathers.
    softness = 0.5

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: ScarvusState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        view = state.view(state.to_move)
        phase = view["phase"]
        if phase == "hand_limit":
            return _hand_limit(view, legal)
        if phase == "loss":
            return WAX
        beliefs = colour_beliefs(view)
        fight = view["lives"] is not None
        dists = {c: total_distribution(*b) for c, b in beliefs.items()}
        if phase == "scouting":
            own = view["hand"][view["scouted"]["colour"]]
            return KEEP if view["scouted"]["value"] > own else DROP
        if phase == "card":
            return self._card_step(view, legal, dists)
        if phase == "bid":
            return self._best_bid(view, legal, dists, fight)[0]
        return self._respond(view, legal, dists, fight)

    # ----- decisions ---------------------------------------------------------------------------
    def _card_step(self, view: dict[str, Any], legal: list[int], dists: dict[int, list[float]]) -> int:
        spread = {c: _variance(d) for c, d in dists.items()}
        counsel = [a for a in legal if COUNSEL <= a < COUNSEL + NC]
        if counsel:  # knowing the Daedalus card narrows the widest colour most
            return max(counsel, key=lambda a: spread[a - COUNSEL])
        flare = [a for a in legal if FLARE <= a < FLARE + NC]
        if flare:
            return max(flare, key=lambda a: spread[a - FLARE])
        reveal = [a for a in legal if REVEAL <= a < REVEAL + NC]
        if reveal:  # a Flight card is worth a card the table would guess anyway: the mean one
            hand = view["hand"]
            return min(reveal, key=lambda a: abs(hand[COLOURS[a - REVEAL]] - 2.8))
        return PASS

    def _bid_values(
        self, view: dict[str, Any], legal: list[int], dists: dict[int, list[float]], fight: bool
    ) -> list[tuple[float, int]]:
        """(expected loss to me, action) per legal bid, with the next player modelled as
        challenging when challenging costs them less than raising over it."""
        losses = {c: [expected_losses(d, n, fight) for n in range(CAP + 2)] for c, d in dists.items()}
        raise_cost = [min(losses[c][n][0] for c in losses) if n <= CAP else math.inf for n in range(CAP + 2)]
        others = max(1, sum(view["alive"]) - 1)
        out = []
        for a in legal:
            n, c = bid_of(a)
            mine, theirs = losses[c][n]
            forced = raise_cost[n + 1] if n < CAP else math.inf
            q = _logistic((forced - theirs) / self.softness) if forced < math.inf else 1.0
            # My loss if challenged, less a share of the next player's risk if they must raise.
            value = q * mine - (1 - q) * min(forced, 5.0) / (2 * others)
            out.append((value, a))
        return out

    def _best_bid(
        self, view: dict[str, Any], legal: list[int], dists: dict[int, list[float]], fight: bool
    ) -> tuple[int, float]:
        values = self._bid_values(view, legal, dists, fight)
        best = min(v for v, _ in values)
        picks = [a for v, a in values if v <= best + 1e-9]
        a = max(picks)  # among equals, the highest bid puts the most pressure on the next player
        return a, best

    def _respond(
        self, view: dict[str, Any], legal: list[int], dists: dict[int, list[float]], fight: bool
    ) -> int:
        bid = view["bid"]
        c = COLOUR_ID[bid["colour"]]
        n = bid["number"]
        bidder_loss, my_loss = expected_losses(dists[c], n, fight)
        p_safe = sum(dists[c][n:])
        eyes = [a for a in legal if EYES <= a < EYES + 7]
        if eyes and 0.15 < p_safe < 0.85:
            return eyes[0] if EYES + bid["bidder"] not in eyes else EYES + bid["bidder"]
        if ACCEPT not in legal:
            return CHALLENGE
        first = not view["accepted_by"]
        others = max(1, sum(view["alive"]) - 1)
        if first:
            # Accepting commits me to a bid: its expected loss is the cost of accepting.
            raises = [bid_action for bid_action in range(BID, BID + NC * CAP) if state_legal_bid(view, bid_action)]
            accept_cost = self._best_bid(view, raises, dists, fight)[1] if raises else math.inf
            challenge_cost = my_loss - bidder_loss / others
            return CHALLENGE if challenge_cost < accept_cost else ACCEPT
        # Talons Challenge: accepting costs nothing; challenge when the bid is likely short.
        gain = bidder_loss / others + (0.5 * (1 - p_safe) if view["flight"]["deck"] else 0.0)
        return CHALLENGE if my_loss < gain else ACCEPT


def state_legal_bid(view: dict[str, Any], action: int) -> bool:
    """Whether a bid would be legal for this seat after accepting the current bid."""
    n, c = bid_of(action)
    if COLOURS[c] not in view["in_play"]:
        return False
    cur = view["bid"]
    if n > cur["number"]:
        return True
    return n == cur["number"] and COLOURS[c] != cur["colour"] and "tailwind" in view["flight_hand"]


class HeuristicBot:
    """Reads each colour as its expected total (own card + the mean of what it cannot see) and
    bids and challenges against that estimate, with fixed margins."""

    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: ScarvusState) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        view = state.view(state.to_move)
        phase = view["phase"]
        if phase == "hand_limit":
            return _hand_limit(view, legal)
        if phase == "loss":
            return WAX
        if phase == "scouting":
            return KEEP if view["scouted"]["value"] >= view["hand"][view["scouted"]["colour"]] else DROP
        est = {}
        for c, (known, unseen, hidden) in colour_beliefs(view).items():
            size = sum(unseen)
            mean = sum(v * m for v, m in enumerate(unseen)) / size if size else 0.0
            est[c] = known + hidden * mean
        if phase == "card":
            reveal = [a for a in legal if REVEAL <= a < REVEAL + NC]
            if reveal:
                return reveal[0]
            return PASS
        if phase == "bid":
            best = max(est, key=lambda c: est[c])
            if view["bid"] is None:
                n = max(1, round(est[best]) - 2)
            else:
                n = view["bid"]["number"] + 1
            for number in range(n, CAP + 1):
                a = BID + (number - 1) * NC + best
                if a in legal:
                    return a
            return legal[0]
        bid = view["bid"]
        c = COLOUR_ID[bid["colour"]]
        over = bid["number"] - est[c]
        if ACCEPT not in legal:
            return CHALLENGE
        if view["accepted_by"]:  # Talons: only a clear overbid
            return CHALLENGE if over > 3 else ACCEPT
        raise_over = min(bid["number"] + 1 - e for e in est.values())
        return CHALLENGE if over > 1 and over >= raise_over else ACCEPT


def _hand_limit(view: dict[str, Any], legal: list[int]) -> int:
    return max(legal, key=lambda a: KEEP_ORDER.index(EFFECTS[a - DISCARD_FLIGHT]))


def _variance(dist: Sequence[float]) -> float:
    mean = sum(t * p for t, p in enumerate(dist))
    return sum((t - mean) ** 2 * p for t, p in enumerate(dist))


def _logistic(x: float) -> float:
    if x > 30:
        return 1.0
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))
