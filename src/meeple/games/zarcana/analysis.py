"""What post-game analysis (`meeple.bots.analysis`) needs from Zarcana: an expected final place
where a playout was cut.

Why not the rollout bot's judgement (`search.rollout_value`, a value in [-1, 1] read as a place):
it squashes the lead over the *best* rival by a fixed scale, so mid-game most seats read as near
certain last (a seat judged 2.99 of 3 at move 150 went on to win), and the difference two moves
make vanishes in the saturation. `expected_place` plays the same `search.ROLLOUT_ROUNDS` rounds
on and then asks, for every other player, how likely they are to finish ahead, from the
difference of the two players' position values (`bot.evaluate`, the heuristic's own judgement)
and a spread measured on the heuristic's own games at that stage of the game
(`benchmarks/analysis_calibration.py`). Only public parts of the world are read.
"""

from __future__ import annotations

import random

from meeple.core import soft_place

from .bot import evaluate
from .rules import ZarcanaState
from .search import ROLLOUT_ROUNDS, play_turns

SPREAD: dict[str, float] = {
    "deck 40+": 40.0, "deck 20-39": 32.0, "deck 0-19": 29.0, "reshuffled": 20.5, "declared": 6.0,
}
"""The standard deviation of a difference of two players' values (`values`) that the rest of the
game may still undo, by `stage`: fitted by maximum likelihood on the final places of 60
3-player games of the heuristic at every seat (`benchmarks/analysis_calibration.py --game zarcana`)."""


def stage(state: ZarcanaState) -> str:
    """How much of the game may be left: before the first reshuffle by the cards still in the deck
    (most of a game's turns come before it, and the game may end soon after it), after it, or
    once the final round is declared."""
    if state.declared >= 0:
        return "declared"
    if state.reshuffles:
        return "reshuffled"
    deck = len(state.deck)
    return "deck 40+" if deck >= 40 else ("deck 20-39" if deck >= 20 else "deck 0-19")


def values(state: ZarcanaState) -> list[float]:
    """Each player's position value on one scale: the score once the final round is declared
    (nothing else counts then), else the heuristic's value (`bot.evaluate`, which subtracts the
    best rival's score) with that rival's score added back, so values compare across players."""
    sole = state.scores()
    if state.declared >= 0:
        return sole
    out = []
    for p in range(state.players):
        rival = max(s for q, s in enumerate(sole) if q != p)
        out.append(evaluate(state, p) + rival)
    return out


def expected_place(world: ZarcanaState, me: int) -> float:
    """``me``'s expected final place where a playout stopped at the end of a turn: the rollout
    bot's `ROLLOUT_ROUNDS` more rounds of heuristic turns, then `soft_place` of the values."""
    rng = random.Random(world.turn)  # as `search.rollout_value`: alike for every candidate
    w = play_turns(world, world.turn + ROLLOUT_ROUNDS * world.players - 1, rng)
    if w.to_move is None:
        return float(w.ranking()[me])
    return soft_place(values(w), me, SPREAD[stage(w)])
