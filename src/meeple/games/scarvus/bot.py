"""Scarvus bots: a mean-based heuristic and a probabilistic bot that does the exact maths.

Both decide from ``state.view(me)`` alone, so they only use what their seat may know.

The probabilistic bot: for each colour in play, the cards it cannot see (others' unrevealed
cards, the Daedalus card, the deck and, in the Daedalus Challenge, buried discards) are a
multiset of known composition (the deck list minus everything seen). The other players' hidden
cards of that colour are a uniform draw without replacement from that multiset, so the exact
distribution of the colour's total is a convolution over the unseen values (`total_distribution`).
A bid is evidence about the bidder's own card: sensible bidders bid their strongest colour, so
the bidder's hidden card is drawn with odds count x P(it beats their other cards)
(`best_colour_weights`, `tilted_distribution`). It then challenges and bids by expected feather
loss (`expected_losses`), with a one-step model of the next player: it bids as high as it can
while the next player should still prefer to accept. A rival's loss counts for it, shared among
the rivals who compete for places; when one more feather ends the game, it answers a bid by
expected place instead (`expected_place`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .rules import (
    ACCEPT,
    BID,
    BURNT,
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
    SINGED,
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
    binomial weights (a convolution), then divided by C(len(unseen), k). Cached: a rollout
    search asks for the same few colours thousands of times a move.
    """
    return list(_total_distribution(known, tuple(unseen), k))


@lru_cache(maxsize=1 << 14)
def _total_distribution(known: int, unseen: tuple[int, ...], k: int) -> tuple[float, ...]:
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
    return tuple(dist)


def tilted_distribution(known: int, unseen: Sequence[int], k: int, weight: Sequence[float]) -> list[float]:
    """Like `total_distribution`, but one of the ``k`` hidden cards (the bidder's) is drawn with
    odds ``unseen[v] * weight[v]`` instead of ``unseen[v]``: a bid says something about the
    bidder's own card. With equal weights it is exactly `total_distribution`."""
    if k == 0:
        return total_distribution(known, unseen, 0)
    odds = [m * weight[v] for v, m in enumerate(unseen)]
    norm = sum(odds)
    out: list[float] = []
    for v, o in enumerate(odds):
        if not o:
            continue
        rest = list(unseen)
        rest[v] -= 1
        part = total_distribution(known + v, rest, k - 1)
        if len(part) > len(out):
            out += [0.0] * (len(part) - len(out))
        for t, p in enumerate(part):
            out[t] += o / norm * p
    return out


def best_colour_weights(colours: int, floor: float = 0.0) -> list[float]:
    """Likelihood, per value v of the bidder's card in the bid colour, that a sensible bidder
    picks this colour: the chance that v beats each of their other ``colours - 1`` cards (ties
    count half), cards drawn independently from one deck. Both bots bid their strongest colour,
    and this model predicts how often their bids are safe (calibrated on arena games: see the
    docs). ``floor`` is a likelihood that does not depend on the card (an erratic bidder)."""
    size = sum(VALUE_COUNTS)
    below = 0
    out = []
    for m in VALUE_COUNTS:
        out.append(floor + ((below + m / 2) / size) ** (colours - 1))
        below += m
    return out


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


@lru_cache(maxsize=1 << 14)
def loss_table(dist: tuple[float, ...], fight: bool) -> tuple[tuple[float, float], ...]:
    """`expected_losses` of every bid number 0..CAP+1 on one total (cached, as above)."""
    return tuple(expected_losses(dist, n, fight) for n in range(CAP + 2))


def colour_beliefs(view: dict[str, Any], public: bool = False) -> dict[int, tuple[int, list[int], int]]:
    """Per colour in play: (known part of the total, unseen multiset by value, hidden cards in
    hands), all from ``view`` (a seat's view). ``public``: as a rival sees it, without this
    seat's own unrevealed cards and private looks (the table's common knowledge)."""
    me = view["player"]
    out = {}
    private = {} if public else {(s["owner"], s["colour"]): s["value"] for s in view["seen"]}
    scouted = None if public else view.get("scouted")
    for colour in view["in_play"]:
        seen: list[int] = []
        known = hidden = 0
        pile = view["discards"][colour]
        if isinstance(pile, dict):  # The Daedalus Challenge: only the top card is visible
            seen += [] if pile["top"] is None else [pile["top"]]
        else:
            seen += pile
        if scouted and scouted["colour"] == colour:
            seen.append(scouted["value"])
        if ("daedalus", colour) in private:
            seen.append(private[("daedalus", colour)])
        for q in range(view["players"]):
            if not view["alive"][q]:
                continue
            if colour in view["revealed"][q]:
                value = view["revealed"][q][colour]
            elif q == me and not public:
                value = view["hand"][colour]
            elif (q, colour) in private:
                value = private[(q, colour)]
            else:
                hidden += 1
                continue
            seen.append(value)
            known += value
        unseen = list(VALUE_COUNTS)
        for value in seen:
            unseen[value] -= 1
        out[COLOUR_ID[colour]] = (known, unseen, hidden)
    return out


class ProbabilisticBot:
    """Bids and challenges by exact expected feather loss (see the module docstring).

    Two distributions per colour: its own (everything its seat sees) for its own risk, and the
    table's (its own hidden cards counted as unseen) to model what the next player believes.
    """

    name = "probabilistic"
    # How sharply the next player's challenge probability falls with their margin, in feathers.
    softness = 1.0
    # How much a rival's loss is worth against my own, times their share of the rivals who
    # compete for places: when bidding (the next player's forced-raise risk) and when responding
    # (the bidder's loss if I challenge). Places are relative, so a rival's loss counts in full.
    pressure = 2.0
    respond_pressure = 2.0
    # A talon challenge risks a feather for nothing but the bidder's loss: count it sparingly.
    talon_pressure = 0.5
    # Bids above (players x this + slack) are far past any plausible total: a player who makes
    # them is not playing the model's game, so their challenges are as good as coin flips.
    absurd_per_player, absurd_slack = 2.8, 8
    erratic_prior = 2  # as if each player had made this many sensible bids before
    # Within this many feathers of the game's end, responses minimise expected place; the rest
    # of the game adds this much noise (points per feather left) to each score difference.
    place_horizon = 0
    place_spread = 3.0

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.erratic: dict[int, float] = {}
        self.erratic_next = 0.0

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
            own = view["hand"][view["scouted"]["colour"]]
            return KEEP if view["scouted"]["value"] > own else DROP
        fight = view["lives"] is not None
        self._read_players(state, view)
        nxt = (view["player"] + 1) % view["players"]
        while not view["alive"][nxt]:
            nxt = (nxt + 1) % view["players"]
        self.erratic_next = self.erratic.get(nxt, 0.0)
        mine = {c: total_distribution(*b) for c, b in colour_beliefs(view).items()}
        if phase == "card":
            return self._card_step(view, legal, mine)
        table = {c: total_distribution(*b) for c, b in colour_beliefs(view, public=True).items()}
        if phase == "bid":
            return self._best_bid(view, legal, mine, table, fight)[0]
        return self._respond(view, legal, mine, table, fight)

    def ranked(self, state: ScarvusState) -> list[int]:
        """The moves worth playing out, best first as this bot sees it: its own move, then the
        other bids by expected loss, or the other answer; in the Card Step its own move alone.
        The candidates of a rollout search (`meeple.bots.rollout`), which plays the best few out."""
        legal = state.legal_actions()
        first = self.choose(state)
        rest = [a for a in legal if a != first]
        view = state.view(state.to_move)
        if view["phase"] == "bid":
            values: dict[int, float] = {}
            mine = {c: total_distribution(*b) for c, b in colour_beliefs(view).items()}
            table = {c: total_distribution(*b) for c, b in colour_beliefs(view, public=True).items()}
            self._best_bid(view, legal, mine, table, view["lives"] is not None, values)
            rest.sort(key=lambda a: (values[a], -a))
        elif view["phase"] == "card":
            return [first]  # a swap changes the cards of the whole Match, past a Round's horizon
        return [first, *rest]

    def _rival_weight(self, view: dict[str, Any], rival: int) -> float:
        """How much a rival's feather loss is worth to me against my own: places are relative,
        so it counts in full, shared among the rivals who compete for places (an erratic player
        finishes last anyway and counts only by how sensible it has looked)."""
        me = view["player"]
        rivals = [q for q in range(view["players"]) if q != me and view["alive"][q]]
        total = sum(1 - self.erratic.get(q, 0.0) for q in rivals)
        return (1 - self.erratic.get(rival, 0.0)) / max(total, 1.0)

    def _bid_weights(self, bidder: int, colours: int) -> list[float]:
        """What a bid says about the bidder's card: the best-colour likelihood, blended with
        no information in proportion to how erratic the bidder has been."""
        e = self.erratic.get(bidder, 0.0)
        best = best_colour_weights(colours)
        return [(1 - e) * w + e * sum(best) / len(best) for w in best]

    def _read_players(self, state: ScarvusState, view: dict[str, Any]) -> None:
        """From this seat's log (public events only matter here): how erratic each player's bids
        are (the share that were absurd, with two sensible bids as the prior)."""
        self.erratic = {}
        try:
            events = state.log(view["player"], text=False)  # reads events, not sentences
        except ValueError:  # a search copy keeps no log
            return
        bids: dict[int, list[int]] = {}
        limit = self.absurd_per_player * sum(view["alive"]) + self.absurd_slack
        for e in events:
            if e["type"] == "bid":
                counts = bids.setdefault(e["player"], [0, 0])
                counts[0] += e["number"] > limit
                counts[1] += 1
        self.erratic = {p: absurd / (total + self.erratic_prior) for p, (absurd, total) in bids.items()}

    # ----- decisions ---------------------------------------------------------------------------
    def _card_step(self, view: dict[str, Any], legal: list[int], dists: dict[int, list[float]]) -> int:
        counsel = [a for a in legal if COUNSEL <= a < COUNSEL + NC]
        if counsel:  # knowing the Daedalus card narrows the widest colour most
            return max(counsel, key=lambda a: _variance(dists[a - COUNSEL]))
        flare = [a for a in legal if FLARE <= a < FLARE + NC]
        if flare:
            return max(flare, key=lambda a: _variance(dists[a - FLARE]))
        reveal = [a for a in legal if REVEAL <= a < REVEAL + NC]
        if reveal:  # a Flight card is worth a card the table would guess anyway: the mean one
            hand = view["hand"]
            return min(reveal, key=lambda a: abs(hand[COLOURS[a - REVEAL]] - 2.8))
        return PASS

    def _best_bid(
        self,
        view: dict[str, Any],
        legal: list[int],
        mine: dict[int, list[float]],
        table: dict[int, list[float]],
        fight: bool,
        values: dict[int, float] | None = None,
    ) -> tuple[int, float, float]:
        """The legal bid with the least expected loss to me, that loss, and the chance the next
        player challenges it (``values``, if given, gets every bid's expected loss). The next player
        challenges (softly) when, as the table sees it, challenging costs less than raising;
        if they accept, a share of their raising risk counts in my favour."""
        mine_l = {c: loss_table(tuple(d), fight) for c, d in mine.items()}
        table_l = {c: loss_table(tuple(d), fight) for c, d in table.items()}
        real_raise = _raise_losses(tuple(mine_l.values()))
        seen_raise = _raise_losses(tuple(table_l.values()))
        nxt = _next_alive(view, view["player"])
        erratic, softness = self.erratic_next, self.softness
        pressure = self.pressure * self._rival_weight(view, nxt) * (1 - erratic)  # a random raiser fears nothing
        best, best_a, best_q = math.inf, legal[0], 0.0
        steady, noise = 1 - erratic, erratic * 0.5
        exp = math.exp
        for a in legal:  # the hot loop of a rollout search: bid_of, min() and the logistic
            # (clamped at |x| > 30) inlined
            n, c = divmod(a - BID, NC)
            n += 1
            if n < CAP:
                x = (seen_raise[n + 1] - table_l[c][n][1]) / softness
                q = 1.0 if x > 30 else 0.0 if x < -30 else 1.0 / (1.0 + exp(-x))
                q = steady * q + noise
                forced = real_raise[n + 1]
                if forced > 5.0:
                    forced = 5.0
            else:
                q, forced = 1.0, 0.0
            value = q * mine_l[c][n][0] - (1 - q) * forced * pressure
            if values is not None:
                values[a] = value
            if value <= best + 1e-9:  # among equals the higher bid presses the next player more
                best, best_a, best_q = min(best, value), a, q
        return best_a, best, best_q

    def _respond(
        self,
        view: dict[str, Any],
        legal: list[int],
        mine: dict[int, list[float]],
        table: dict[int, list[float]],
        fight: bool,
    ) -> int:
        bid = view["bid"]
        c = COLOUR_ID[bid["colour"]]
        n = bid["number"]
        bidder = bid["bidder"]
        if _hidden_from_me(view, bidder, bid["colour"]):
            known, unseen, hidden = colour_beliefs(view)[c]
            weight = self._bid_weights(bidder, len(view["in_play"]))
            mine = {**mine, c: tilted_distribution(known, unseen, hidden, weight)}
        bidder_loss, my_loss = expected_losses(mine[c], n, fight)
        p_safe = sum(mine[c][n:])
        eyes = [a for a in legal if EYES <= a < EYES + 7]
        if eyes and 0.15 < p_safe < 0.85:
            return EYES + bid["bidder"] if EYES + bid["bidder"] in eyes else eyes[0]
        if ACCEPT not in legal:
            return CHALLENGE
        weight = self.respond_pressure * self._rival_weight(view, bidder)
        if not view["accepted_by"]:
            # Accepting commits me to a bid: its expected loss is the cost of accepting.
            raises = legal_raises(view)
            if not raises:
                return CHALLENGE
            raise_a, accept_cost, q = self._best_bid(view, raises, mine, table, fight)
            challenge_cost = my_loss - weight * bidder_loss
            left = rounds_left(view)
            if not fight and left <= self.place_horizon:
                # The game is near its end: decide by expected place, the rest of the game
                # adding noise to every score difference.
                me, nxt = view["player"], _next_alive(view, view["player"])
                rn, rc = bid_of(raise_a)
                on_challenge = challenge_outcomes(mine[c], n, bidder, me)
                on_accept = [(q * p, d) for p, d in challenge_outcomes(mine[rc], rn, me, nxt)] + [(1 - q, {})]
                spread = self.place_spread * math.sqrt(left)
                place_c = expected_place(view["scores"], me, on_challenge, spread)
                place_a = expected_place(view["scores"], me, on_accept, spread)
                if abs(place_c - place_a) > 1e-9:
                    return CHALLENGE if place_c < place_a else ACCEPT
            return CHALLENGE if challenge_cost < accept_cost else ACCEPT
        # Talons Challenge: accepting costs nothing; challenge when the bid is likely short.
        weight = self.talon_pressure * self._rival_weight(view, bidder)
        gain = weight * bidder_loss + (0.5 * (1 - p_safe) if view["flight"]["deck"] else 0.0)
        return CHALLENGE if my_loss < gain else ACCEPT


class SharpProbabilisticBot(ProbabilisticBot):
    """`ProbabilisticBot` that models the next player's answer to its bid as a sharp threshold
    (``softness`` 0.1 feather instead of 1): they challenge exactly when, as the table sees it,
    challenging costs them less than raising.

    Why: with more players each bid meets more answers and the table's belief about a colour is
    closer to the bidder's own, so a soft guess at the next answer wastes bids. Head to head with
    `ProbabilisticBot` on tuning seeds it gains 0.14-0.34 of a place at 4-7 players but loses 0.14
    at 3 (docs/arena.md, "What was tried"): it is Scarvus' ``expert`` at 4-7 players, where the
    rollout search did not beat ``hard``. The sharp model is right about players who answer as
    this bot does; against the heuristic it does no better than the soft one.
    """

    name = "sharp"
    softness = 0.1


def challenge_outcomes(dist: Sequence[float], number: int, bidder: int, challenger: int) -> list[tuple[float, dict[int, int]]]:
    """(probability, score changes) for each total if a bid of ``number`` is challenged: the
    challenger pays when the total reaches the bid, the bidder when it does not (Challenge Step)."""
    out = []
    for t, p in enumerate(dist):
        if p:
            pen = SINGED if abs(t - number) <= SINGED_MAX else BURNT
            out.append((p, {challenger: pen} if t >= number else {bidder: pen}))
    return out


def expected_place(
    scores: Sequence[float], me: int, outcomes: Sequence[tuple[float, dict[int, int]]], spread: float = 0.0
) -> float:
    """My expected place (1 is best; ties share the better place, as in the ranking) after one
    of ``outcomes`` (probability, score change per player). ``spread`` 0: the game ends right
    after. Otherwise the rest of the game adds noise of that standard deviation (in points) to
    each score difference, so a rival ahead by d beats me with chance Phi((d - 0.5) / spread)."""
    total = 0.0
    for p, change in outcomes:
        final = [s + change.get(q, 0) for q, s in enumerate(scores)]
        place = 1.0
        for q, other in enumerate(final):
            if q == me:
                continue
            if spread:
                place += 0.5 * math.erfc(-(other - final[me] - 0.5) / (spread * math.sqrt(2)))
            else:
                place += other > final[me]
        total += p * place
    return total / sum(p for p, _ in outcomes)


def rounds_left(view: dict[str, Any]) -> int:
    """Feathers the nearest player can still take before the next one ends the game (How to
    Win): 0 means one more feather to someone ends it."""
    end = view["options"]["feathers"]
    return min(
        end - 1 - f["singed"] - f["burnt"]
        for alive, f in zip(view["alive"], view["feathers"], strict=True)
        if alive
    )


def _next_alive(view: dict[str, Any], player: int) -> int:
    nxt = (player + 1) % view["players"]
    while not view["alive"][nxt]:
        nxt = (nxt + 1) % view["players"]
    return nxt


def _hidden_from_me(view: dict[str, Any], owner: int, colour: str) -> bool:
    return owner != view["player"] and colour not in view["revealed"][owner] and not any(
        s["owner"] == owner and s["colour"] == colour for s in view["seen"]
    )


def legal_raises(view: dict[str, Any]) -> list[int]:
    """Every bid this seat could make after accepting the current one, ascending: the bids
    `state_legal_bid` allows, listed without asking it 280 times."""
    cur = view["bid"]
    number, colour = cur["number"], COLOUR_ID[cur["colour"]]
    in_play = sorted(COLOUR_ID[c] for c in view["in_play"])
    out = []
    if "tailwind" in view["flight_hand"] and number >= 1:
        out = [BID + (number - 1) * NC + c for c in in_play if c != colour]
    return out + [BID + (n - 1) * NC + c for n in range(number + 1, CAP + 1) for c in in_play]


@lru_cache(maxsize=1 << 12)
def _raise_losses(tables: tuple[tuple[tuple[float, float], ...], ...]) -> tuple[float, ...]:
    """Per bid number, the bidder's least expected loss over the colours' `loss_table`s."""
    return tuple(min(column) for column in zip(*[[row[0] for row in t] for t in tables], strict=True))


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
    bids and challenges against that estimate, with fixed margins: it challenges a bid more than
    1 over its estimate when raising would be no better, and any bid more than 3 over."""

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
        return CHALLENGE if over > 1 and (over >= raise_over or over > 3) else ACCEPT


def _hand_limit(view: dict[str, Any], legal: list[int]) -> int:
    return max(legal, key=lambda a: KEEP_ORDER.index(EFFECTS[a - DISCARD_FLIGHT]))


def _variance(dist: Sequence[float]) -> float:
    mean = sum(t * p for t, p in enumerate(dist))
    return sum((t - mean) ** 2 * p for t, p in enumerate(dist))

