"""A heuristic Zarcana bot that follows the rulebook's own Strategies advice.

It looks one whole turn ahead on a determinized copy (so it never sees hidden cards or the deck
order) and scores the result: grow and clone early (pyramid material counts for a lot while the
deck is young), hold valuable cards with two pyramids, hurt the leader (the evaluation is its
own score minus the best rival's, so an attack on an exposed leader is worth most), and declare
the final round when ahead. Reorientation points each pyramid at the best neighbour.
"""

from __future__ import annotations

import random

from .rules import (
    A_ORIENT,
    CHAIN,
    DECLARE,
    MAIN,
    NB,
    REORIENT,
    REORIENTING,
    VALUE,
    ZarcanaState,
    owner_of,
    size_of,
)


class HeuristicBot:
    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: ZarcanaState) -> int:
        me = state.to_move
        assert me is not None
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if state.stage == REORIENTING:
            return A_ORIENT + best_orientation(state, state.reo[0])
        if DECLARE in legal and self._declare(state, me):
            return DECLARE
        det = state.determinize(me, self.rng)
        best, best_val = legal[0], float("-inf")
        for a, line in self._lines(det, legal):
            val = evaluate(line, me) + self.rng.random() * 1e-3
            if val > best_val:
                best, best_val = a, val
        return best

    def _lines(self, det: ZarcanaState, legal: list[int]):  # type: ignore[no-untyped-def]
        """(first action, state after the whole turn) for every candidate turn."""
        me = det.to_move
        if det.stage == CHAIN:
            for seq in det.cands:
                sim = det.clone()
                for a in seq:
                    sim._apply(a)
                yield seq[0], sim
            return
        assert det.stage == MAIN
        for a in legal:
            if a == DECLARE:
                continue
            sim = det.clone()
            sim._apply(a)
            if a == REORIENT:
                while sim.stage == REORIENTING:
                    sim._apply(A_ORIENT + best_orientation(sim, sim.reo[0]))
                yield a, sim
            elif sim.to_move == me and sim.stage == CHAIN:
                for seq in sim.cands:
                    sim2 = sim.clone()
                    for b in seq:
                        sim2._apply(b)
                    yield a, sim2
            else:
                yield a, sim

    @staticmethod
    def _declare(state: ZarcanaState, me: int) -> bool:
        """Declare when ahead: by a clear margin at first, by anything later, at last anyway."""
        scores = state.scores()
        lead = scores[me] - max(s for p, s in enumerate(scores) if p != me)
        if state.reshuffles >= 3:
            return True
        return lead >= 6 or (state.reshuffles >= 2 and lead > 0)


def evaluate(state: ZarcanaState, me: int) -> float:
    """Own score minus the best rival's, plus material, holdings, hand and mobility."""
    sole = state.sole_cards()
    scores = [sum(VALUE[c] for c in cs) for cs in sole]
    rival = max(s for p, s in enumerate(scores) if p != me)
    val = float(scores[me] - rival)
    early = 2.0 if state.reshuffles == 0 else 1.0
    count: dict[int, int] = {}
    for q, c in enumerate(state.pos):
        if c >= 0 and owner_of(q) == me:
            val += early * (size_of(q) + 1)
            count[c] = count.get(c, 0) + 1
    if not count:
        val -= 10
    for c, n in count.items():
        if n >= 2 and c in state.stacks:
            val += 0.25 * VALUE[state.stacks[c][-1]]  # hold valuable cards with two pyramids
    hand = len(state.hands[me])
    val += 0.6 * min(hand, 3) + 0.2 * max(0, min(hand, 6) - 3)
    # Strategies: draw early. Running the deck down (and through reshuffles) brings the end; an
    # empty deck with no discards never reshuffles, so discarding then is progress too.
    val += 100 * state.reshuffles - 0.2 * len(state.deck)
    if not state.deck:
        val += 0.5 * len(state.discard)
    for q in state.on_board(me):
        if state.orient[q]:
            val += 0.1 * _aim(state, q, state.orient[q])
    return val


def _aim(state: ZarcanaState, q: int, o: int) -> float:
    """How promising it is for pyramid ``q`` to point in direction ``o``."""
    me = owner_of(q)
    here = state.pos[q]
    if o == 0:
        return 1.0 if any(owner_of(v) != me for v in state.at(here)) else 0.0
    n = NB[here][o]
    if not state.habitable(n):
        return -1.0
    occupants = state.at(n)
    if any(owner_of(v) != me for v in occupants):
        return 6.0  # an enemy in reach
    top = state.top(n)
    if top >= 0 and not occupants:
        return VALUE[top] / 2
    return 0.0


def best_orientation(state: ZarcanaState, q: int) -> int:
    """The orientation with the best aim; a pyramid alone on a card it holds keeps its own."""
    scores = [_aim(state, q, o) for o in range(5)]
    cur = state.orient[q]
    best = max(range(5), key=lambda o: (scores[o], o == cur))
    return best
