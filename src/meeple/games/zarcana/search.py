"""What level ``ismcts`` needs from Zarcana: a judgement of a playout cut off before the end.

Why: a Zarcana game has no end until someone declares, which nobody may do before the first
reshuffle, so random playouts to the end are long and say little. The search cuts them after
`SearchHooks.depth` actions (the game's `GAME.search`) and asks `evaluate_all` who is better off:
the heuristic bot's own position value (score by sole occupancy, pyramid material, cards held by
two pyramids, hand, aim) for each player, compared with the best rival's and squashed into
[-1, 1]. Only the board and hand sizes are read, all public, so judging a determinized world
leaks nothing.
"""

from __future__ import annotations

import math
import random

from .bot import (
    best_line,
    evaluate,
    heuristic_action,
    rule_move,
    rush_weight,
    scored_lines,
)
from .rules import MAIN, ZarcanaState

SCALE = 15.0
"""A position-value lead of this much is worth tanh(1) = 0.76 of a win."""
FINAL_SCALE = 3.0
"""In the final round, a score lead of this much is worth 0.76 of a win."""
TOP = 5
"""How many of the heuristic's best moves the search tree weighs (`candidate_actions`)."""
CACHE_SIZE = 50_000
"""`candidate_actions` forgets its rankings once it holds this many (bounded memory)."""
_CACHE: dict[tuple[object, ...], list[int]] = {}


def evaluate_all(state: ZarcanaState) -> list[float]:
    """Per player, tanh((own value - best rival's value) / SCALE): a value in [-1, 1].

    Once the final round is declared only the score counts (the game ends within a round), so
    the value is the score lead alone, judged more sharply (`FINAL_SCALE`).
    """
    if state.declared >= 0:
        values, scale = state.scores(), FINAL_SCALE
    else:
        values, scale = [evaluate(state, p) for p in range(state.players)], SCALE
    out = []
    for p, v in enumerate(values):
        rival = max(w for o, w in enumerate(values) if o != p)
        out.append(math.tanh((v - rival) / scale))
    return out


def greedy_action(state: ZarcanaState, rng: random.Random) -> int:
    """The heuristic bot's move in a world the search already sampled (no determinizing again)."""
    return heuristic_action(state, rng, sample=False)


def reply_eval(world: ZarcanaState) -> list[float]:
    """`evaluate_all` after the turn under way is finished and the next player has replied, both
    by the heuristic bot.

    Why: the heuristic already looks one whole turn ahead; what a search adds is the reply. A
    leaf judged before the opponent answers cannot tell a strong move from one that walks into
    an attack. Turns, not actions, are the unit here, because one turn takes from one action
    (draw) to a dozen (reorienting every pyramid).
    """
    rng = random.Random(len(world.history))  # tie-breaks depend on the world only: repeatable
    w = play_turns(world, world.turn + (1 if world.stage == MAIN else 2), rng)
    if w.to_move is None:
        return w.returns()
    return evaluate_all(w)


def play_turns(world: ZarcanaState, goal: int, rng: random.Random) -> ZarcanaState:
    """The world once the heuristic has played whole turns until turn ``goal`` (or the end);
    ``world`` itself is left as it was."""
    w = world
    while w.to_move is not None and w.turn < goal:
        me = w.to_move
        legal = w.legal_actions()
        forced = legal[0] if len(legal) == 1 else rule_move(w, legal, me)
        if forced >= 0:
            w = w.clone() if w is world else w
            w._apply(forced)
            continue
        w = best_line(w, legal, rush_weight(w, me), rng)[1]
    return w


def candidate_actions(world: ZarcanaState) -> list[int]:
    """The heuristic's `TOP` best first actions, best first: the search tree's edges.

    Why: most legal actions are passes, pointless discards and orientations that aim nowhere; a
    search of a few hundred iterations spread over all of them learns nothing about the few real
    alternatives. A move the heuristic makes by rule (orienting, declaring, the length bound) is
    the only candidate. The ranking is the heuristic's own in the first sampled world that
    reaches the position (so the first candidate is its move there) and is kept for later worlds
    that reach the same position with the same hand to move (`_CACHE`): one tree node, one set of
    edges, and one heuristic evaluation per node instead of one per visit. A kept candidate that
    is not legal in a later world is dropped.
    """
    me = world.to_move
    assert me is not None
    legal = world.legal_actions()
    if len(legal) == 1:
        return legal
    key = (tuple(world.history), me, tuple(world.hands[me]), tuple(world.pos), world.stage)
    kept = _CACHE.get(key)
    if kept is not None:
        ok = [a for a in kept if world.is_legal(a)]
        if ok:
            return ok
    forced = rule_move(world, legal, me)
    if forced >= 0:
        ranked = [forced]
    else:
        rng = random.Random(len(world.history))  # the same tie-breaks as `reply_eval`'s heuristic
        best: dict[int, float] = {}
        for a, _, val in scored_lines(world, legal, rush_weight(world, me), rng):
            if val > best.get(a, -math.inf):
                best[a] = val
        ranked = sorted(best, key=lambda a: -best[a])[:TOP]
    if len(_CACHE) >= CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = ranked
    return ranked


ROLLOUT_ROUNDS = 2
"""How many rounds (every player one turn) `rollout_value` plays after the mover's turn."""


def rollout_horizon(state: ZarcanaState) -> int:
    """The turn number: a rollout playout (`meeple.bots.rollout`) stops when the mover's turn ends.

    Why: a turn takes from one action to a dozen, so a cut after a number of actions stops
    different candidates at different points of a turn (one just after its own move, before the
    reply; another after the reply), and comparing them then favours the first. Stopping every
    playout where the mover's turn ends and playing on by whole turns (`rollout_value`) judges
    every candidate at the same point.
    """
    return state.turn


def rollout_value(world: ZarcanaState, me: int) -> float:
    """``me``'s value of a playout stopped where its turn ended: `ROLLOUT_ROUNDS` more rounds
    played by the heuristic (whole turns, in the sampled world), then `evaluate_all` at the start
    of ``me``'s turn, or the game's result if it ended."""
    rng = random.Random(world.turn)  # tie-breaks depend on the turn only: alike for every candidate
    # ``world`` is at the start of the next player's turn: play on to ``me``'s, ROLLOUT_ROUNDS on
    w = play_turns(world, world.turn + ROLLOUT_ROUNDS * world.players - 1, rng)
    if w.to_move is None:
        return w.returns()[me]
    return evaluate_all(w)[me]
