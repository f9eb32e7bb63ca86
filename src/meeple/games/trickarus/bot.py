"""A heuristic Trickarus bot: plays sensibly on what its player can see.

It decides whether it wants this trick (climb unless that means flying into the sun or a
Lightning descent; in co-op, descend once the sun is reached), then plays the cheapest card that
wins, or sheds its highest card that loses. The Lightning card goes where it hurts a rival.
"""

from __future__ import annotations

import random

from .rules import LIGHTNING, SUIT, TRUMP, VALUE, TrickarusState


class HeuristicBot:
    name = "heuristic"
    caution = 0.35  # free spaces kept above per trick still to play (tuned against random play)

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: TrickarusState) -> int:
        me = state.to_move
        assert me is not None
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        last = len(state.trick) == state.players - 1
        outcomes = [(card, *self._after(state, card)) for card in legal]  # (card, i_win, value)
        lightning_in = LIGHTNING in state.trick

        if LIGHTNING in legal:
            current = state.trick_winner() if state.trick else None
            if current is not None and current != me and self._hurts(state, me, current):
                return LIGHTNING

        want = self._wants_trick(state, me) and not lightning_in
        winners = [o for o in outcomes if o[1] and o[0] != LIGHTNING]
        losers = [o for o in outcomes if not o[1] and o[0] != LIGHTNING]
        if want and winners:
            # Last to play: win as cheaply as possible. Otherwise win as safely as possible.
            pick = min(winners, key=lambda o: o[2]) if last else max(winners, key=lambda o: o[2])
        elif not want and losers:
            pick = max(losers, key=lambda o: o[2])  # shed the most dangerous card that still loses
        else:
            pool = losers or winners or outcomes
            pick = min(pool, key=lambda o: o[2])  # follow cheaply
        return pick[0]

    @staticmethod
    def _after(state: TrickarusState, card: int) -> tuple[bool, int]:
        """Would ``me`` be winning the trick right after playing ``card``? And the card's
        strength (its value, trump counting above every other colour)."""
        sim = state._copy()
        sim._events = None
        sim.hands = sim.hands.copy()
        sim.trick = sim.trick.copy()
        # Play without finishing the trick so the winner can be read off.
        sim.trick.append(card)
        if sim.lead_card < 0 and card != LIGHTNING:
            sim.lead_card = card
        if card != LIGHTNING and VALUE[0][card] == 5:
            sim.side ^= 1
        winner = sim.trick_winner()
        if card == LIGHTNING:
            return winner == state.to_move, -1
        strength = VALUE[sim.side][card] + (20 if SUIT[sim.side][card] == TRUMP[sim.side] else 0)
        return winner == state.to_move, strength

    def _wants_trick(self, state: TrickarusState, me: int) -> bool:
        if state.coop:
            # Before the sun, someone must get there; after it, come down if in the air.
            return state.pos[me] > 0 if state.sun_reached else True
        pos, top = state.pos, state.track_length
        space = pos[me] + 1
        while space in pos:
            space += 1
        if space > top:
            return False  # climbing is good unless it flies into the sun
        # Keep room for the tricks one is forced to win later in the round: free spaces left
        # above after this climb, against the tricks still to come.
        room = sum(1 for q in range(space + 1, top + 1) if q not in pos)
        tricks_left = state.hands[me].bit_count() - (0 if me in self._played(state) else 1)
        return room >= int(tricks_left * self.caution)

    @staticmethod
    def _played(state: TrickarusState) -> set[int]:
        return {(state.leader + i) % state.players for i in range(len(state.trick))}

    @staticmethod
    def _hurts(state: TrickarusState, me: int, winner: int) -> bool:
        if state.coop:
            return state.sun_reached and state.pos[winner] > 0
        return state.pos[winner] >= state.pos[me] and state.pos[winner] > 0
