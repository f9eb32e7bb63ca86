"""What post-game analysis (`meeple.bots.analysis`) needs from Karvi: where to cut a playout and
an expected final place there.

Why cut: a playout to the end runs up to 190 actions of the heuristic with hidden draws, and
once the candidates' playouts part ways the common seeds no longer pair them, so one decision's
effect (a point or two) drowned in the noise of the rest of the game (nothing flagged beyond
noise in either a `random` or a `hard` seat's games). A round is Karvi's natural boundary: every
die starts again at the back of the track, and what carries over is on the player boards. A
playout stops where the round ends (`round_key`) and is judged by `expected_place`: for every
other player, how likely they are to finish ahead, from the difference of the heuristic's
position values (`bot.HeuristicBot.value`) and a spread measured on the heuristic's own games
for the rounds still to play (`benchmarks/analysis_calibration.py`). A playout in the last round
plays to the end and is judged by the result. Only what `HeuristicBot.value` reads is used: the
players' boards, supplies and tracks, all public.

A cut playout also has an expected score (`expected_score`), so that a move is judged in points
where the place is settled: a player far behind after the first round is last whatever they
play, and what a strong player still plays for then is the score. It is the `hard` bot's own
judgement of a position (`PlannerBot.value`): points plus what the tableau is worth in points,
and in the last round points plus the final scoring lines.
"""

from __future__ import annotations

from meeple.core import soft_place

from .bot import HeuristicBot, PlannerBot
from .rules import KarviState

SPREAD: dict[int, float] = {1: 17.5, 2: 14.0}
"""The standard deviation of a difference of two players' values that the rounds still to play
(the key: 1, or 2 and more) may still undo: fitted by maximum likelihood on the final places of
300 2-player games of the heuristic (`benchmarks/analysis_calibration.py --game karvi`). Not
fitted at 3 and 4 players (a 4-player game has a fourth round, judged with the spread of 2)."""


def round_key(state: KarviState) -> int:
    """The round: a cut playout stops when it changes (`SearchHooks.horizon`)."""
    return state.round


def stage(state: KarviState) -> int:
    """The rounds still to play, counting the current one, at most 2 (a cut playout is judged at
    the start of a round, never the first: at 2 and 3 players with 1 or 2 rounds to play)."""
    return min(max(SPREAD), state.rounds - state.round + 1)


def values(state: KarviState) -> list[float]:
    """Each player's position value (`HeuristicBot.value`)."""
    return [HeuristicBot.value(state, q) for q in range(state.players)]


def expected_place(state: KarviState, me: int) -> float:
    """``me``'s expected final place where a playout stopped: the result once the game is over,
    else `soft_place` of the position values with the spread of the rounds still to play."""
    if state.to_move is None:
        return float(state.ranking()[me])
    return soft_place(values(state), me, SPREAD[stage(state)])


def expected_score(state: KarviState, me: int) -> float:
    """``me``'s expected final score where a playout stopped (`AnalysisHooks.score`): the final
    score once the game is over, else the planner's position value (`PlannerBot.value`, the
    judgement the `hard` bot plays by)."""
    if state.to_move is None:
        return float(state.scores()[me])
    if state.round < state.rounds:
        return HeuristicBot.value(state, me)
    return PlannerBot._final_value(state, me)
