"""A heuristic Zarcana bot that follows the rulebook's own Strategies advice.

It looks one whole turn ahead on a determinized copy (so it never sees hidden cards or the deck
order) and scores the result: grow and clone early (pyramid material counts for a lot while the
deck is young), hold valuable cards with two pyramids, hurt the leader (the evaluation is its
own score minus the best rival's, so an attack on an exposed leader is worth most), and declare
the final round when ahead. Reorientation points each pyramid at the best neighbour.

Why it pushes toward the end (Scoring and winning: "you will want to end the game as soon as you
are sitting on more points than anyone else"): nobody may declare before the deck has been used
up and reshuffled, and a full hand cannot draw. So a player who leads or ties values the turns it
still needs to run the deck down to the next reshuffle (`turns_to_reshuffle`: drawing, and
discarding a full hand to draw again), and declares once allowed. The rules set no maximum
length; the bot does (`URGENT_TURN`, `LAST_TURN`), so that a game between bots always ends.
"""

from __future__ import annotations

import random

from .rules import (
    A_DRAW,
    A_ORIENT,
    CHAIN,
    DECLARE,
    DISCARD,
    DRAW_MAX,
    HAND_LIMIT,
    MAIN,
    NB,
    NUM_CARDS,
    PASS,
    REORIENT,
    REORIENTING,
    VALUE,
    ZarcanaState,
    owner_of,
    size_of,
)

RUSH = 3.0
"""Value of one turn less to the next reshuffle, for a player who leads or ties (or is urgent)."""
CYCLE = NUM_CARDS / DRAW_MAX + NUM_CARDS / HAND_LIMIT
"""The most turns `turns_to_reshuffle` can count: a reshuffle is always progress."""
RUSH_TURN = 40
"""Before this turn (all players' turns counted) nobody rushes: Strategies, grow and clone first."""
URGENT_TURN = 160
"""From this turn on (all players' turns counted) everyone runs the deck down and a player who
leads or ties declares once allowed: a bot-side bound, the rules set none."""
LAST_TURN = 320
"""From this turn on a bot only runs the deck down (draw, or discard a full hand) and declares as
soon as the rules allow, whatever the score: its own draws alone then bring a reshuffle."""


class HeuristicBot:
    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: ZarcanaState) -> int:
        return heuristic_action(state, self.rng, sample=True)


def heuristic_action(state: ZarcanaState, rng: random.Random, sample: bool) -> int:
    """The bot's move; with ``sample`` it first determinizes (on a real state), without it the
    state is taken as it is (a world that a search already sampled)."""
    me = state.to_move
    assert me is not None
    legal = state.legal_actions()
    forced = obvious_move(state, legal, me)
    if forced >= 0:
        return forced
    det = state.determinize(me, rng) if sample else state
    return best_line(det, legal, rush_weight(state, me), rng)[0]


def obvious_move(state: ZarcanaState, legal: list[int], me: int) -> int:
    """The move every level of this bot makes without weighing lines: the only legal one, or
    the one `rule_move` dictates; -1 when there is none."""
    if len(legal) == 1:
        return legal[0]
    return rule_move(state, legal, me)


def rule_move(state: ZarcanaState, legal: list[int], me: int) -> int:
    """The move the bot makes without weighing turns (orientation, declaring, the length bound),
    or -1."""
    if state.stage == REORIENTING:
        return A_ORIENT + best_orientation(state, state.reo[0])
    if DECLARE in legal and wants_to_declare(state, me):
        return DECLARE
    if state.turn >= LAST_TURN and state.stage == MAIN:
        return run_down(legal)
    return -1


def best_line(
    det: ZarcanaState, legal: list[int], rush: float, rng: random.Random
) -> tuple[int, ZarcanaState]:
    """The first action of the best whole turn for the player to move, and the state after it."""
    best: tuple[int, ZarcanaState] | None = None
    best_val = float("-inf")
    for a, line, val in scored_lines(det, legal, rush, rng):
        if val > best_val:
            best, best_val = (a, line), val
    assert best is not None
    return best


def scored_lines(det: ZarcanaState, legal: list[int], rush: float, rng: random.Random):  # type: ignore[no-untyped-def]
    """(first action, state after the whole turn, the bot's value of it) for every candidate
    turn but declaring; the value carries a tiny random tie-break."""
    me = det.to_move
    assert me is not None
    for a, line in turn_lines(det, legal):
        yield a, line, evaluate(line, me, rush) + rng.random() * 1e-3


def turn_lines(det: ZarcanaState, legal: list[int]):  # type: ignore[no-untyped-def]
    """(first action, state after the whole turn) for every candidate turn but declaring."""
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


def lead_of(state: ZarcanaState, me: int) -> float:
    """``me``'s running score minus the best rival's (Scoring: sole occupancy)."""
    scores = state.scores()
    return scores[me] - max(s for p, s in enumerate(scores) if p != me)


def wants_to_declare(state: ZarcanaState, me: int) -> bool:
    """Declare when ahead: by a clear margin at first, by anything later, at last anyway.

    The last two clauses are the bot's own bound on game length (the rules set none): a tie is a
    shared win, so from `URGENT_TURN` a player who ties declares too, and from `LAST_TURN`
    anyone does.
    """
    lead = lead_of(state, me)
    if state.reshuffles >= 3 or state.turn >= LAST_TURN:
        return True
    if state.turn >= URGENT_TURN and lead >= 0:
        return True
    return lead >= 6 or (state.reshuffles >= 2 and lead > 0)


def run_down(legal: list[int]) -> int:
    """The move that brings the next reshuffle closest: draw the most, else discard, else pass."""
    draws = [a for a in legal if A_DRAW <= a < DISCARD]
    if draws:
        return max(draws)
    return DISCARD if DISCARD in legal else PASS


def rush_weight(state: ZarcanaState, me: int) -> float:
    """How much ``me`` values getting to the next reshuffle sooner: `RUSH` when leading or tied
    after the opening (the end can only come after a reshuffle) or once the game is long."""
    if state.turn >= URGENT_TURN:
        return RUSH * (1 + (state.turn - URGENT_TURN) / 20)
    if state.turn >= RUSH_TURN and lead_of(state, me) >= 0:
        return RUSH
    return 0.0


def turns_to_reshuffle(state: ZarcanaState, me: int) -> float:
    """Roughly how many of ``me``'s own turns drawing takes to reach the next reshuffle.

    Each draw turn takes up to three cards; a full hand needs a discard turn first (so six cards
    cost about one extra turn). With deck and discards both empty nothing can be drawn until
    someone discards: one turn more.
    """
    need = len(state.deck) + 1  # the reshuffle happens on the draw that finds the deck empty
    room = max(0, HAND_LIMIT - len(state.hands[me]))
    turns = need / DRAW_MAX + max(0, need - room) / HAND_LIMIT
    if not state.deck and not state.discard:
        turns += 1
    return turns


def evaluate(state: ZarcanaState, me: int, rush: float = 0.0) -> float:
    """Own score minus the best rival's, plus material, holdings, hand, mobility and, weighted by
    ``rush`` (see `rush_weight`), how soon ``me`` can reach the next reshuffle."""
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
    # Strategies: draw early. Running the deck down (and through reshuffles) brings the end.
    val += 100 * state.reshuffles - 0.2 * len(state.deck)
    if not state.deck and not state.discard:
        val -= 1.0  # nothing to reshuffle: discarding is progress then
    if rush:
        val += rush * (CYCLE * state.reshuffles - turns_to_reshuffle(state, me))
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


LOOK_TOP = 5
"""How many of the heuristic's best first actions `LookaheadBot` weighs against each other."""
LOOK_WORLDS = 3
"""How many determinized worlds `LookaheadBot` plays each candidate out in."""
WIN_VALUE = 1000.0
"""What a finished game is worth to `LookaheadBot`, per unit of `State.returns` (any position
value is far smaller)."""


class LookaheadBot:
    """The heuristic with one more ply: each of its `LOOK_TOP` best first actions is played out,
    in `LOOK_WORLDS` determinized worlds, to the end of the turn and through the next player's
    whole reply (both by the heuristic), and judged by the heuristic's own value for this player.

    Why: the heuristic judges a turn by the position it leaves, so it cannot tell a strong move
    from one that walks into the next player's attack. It still decides from its seat's
    information alone (every world is `determinize`d for it) and costs a fixed amount of work
    (about 2 x `LOOK_TOP` x `LOOK_WORLDS` heuristic turns a decision), never a clock.
    """

    name = "lookahead"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: ZarcanaState) -> int:
        return self.ranked(state)[0]

    def ranked(self, state: ZarcanaState) -> list[int]:
        """The candidates best first (the first is `choose`'s move): the heuristic's `LOOK_TOP`
        best first actions ordered by their total value after the reply over the worlds, or the
        one move the heuristic makes by rule. `meeple.bots.rollout` plays these out."""
        me = state.to_move
        assert me is not None
        legal = state.legal_actions()
        forced = obvious_move(state, legal, me)
        if forced >= 0:
            return [forced]
        rush = rush_weight(state, me)
        worlds = [state.determinize(me, self.rng) for _ in range(LOOK_WORLDS)]
        best: dict[int, float] = {}
        for a, _, val in scored_lines(worlds[0], legal, rush, self.rng):
            if val > best.get(a, float("-inf")):
                best[a] = val
        ranked = sorted(best, key=lambda a: -best[a])[:LOOK_TOP]
        if len(ranked) == 1:
            return ranked
        total = dict.fromkeys(ranked, 0.0)
        for w in worlds:
            for a in ranked:
                total[a] += _after_reply(w, a, me, rush)
        # Ties (equal totals) keep the heuristic's own order (a stable sort).
        return sorted(ranked, key=lambda a: -total[a])


def _after_reply(world: ZarcanaState, action: int, me: int, rush: float) -> float:
    """``me``'s heuristic value once ``action`` is taken, the turn finished and the next player's
    turn played, both by the heuristic (the same line `meeple.games.zarcana.search.reply_eval`
    plays), in the world ``world`` (left unchanged)."""
    from .rules import MAIN as _MAIN

    w = world.clone()
    w._apply(action)
    rng = random.Random(len(w.history))
    goal = w.turn + (1 if w.stage == _MAIN else 2)  # a turn under way: finish it, then the reply
    while w.to_move is not None and w.turn < goal:
        p = w.to_move
        legal = w.legal_actions()
        forced = legal[0] if len(legal) == 1 else rule_move(w, legal, p)
        if forced >= 0:
            w._apply(forced)
            continue
        w = best_line(w, legal, rush_weight(w, p), rng)[1]
    if w.to_move is None:
        return WIN_VALUE * w.returns()[me]
    return evaluate(w, me, rush)
