"""Karvi search hooks: the cut-off evaluation that level `ismcts` uses (meeple.bots.ismcts).

Scoring refers to the English Hans im Glück rulebook, "Final scoring"; the evaluation is
the heuristic bot's estimate of it mid-game, so these tests check its shape, not exact values.
"""

from __future__ import annotations

import random

import pytest

import meeple
from meeple.bots.ismcts import leaf_returns, make_ismcts
from meeple.games import karvi
from meeple.games.karvi.bot import EVAL_SCALE, HeuristicBot, evaluate


def midgame(players: int, seed: int, actions: int = 60) -> meeple.core.State:
    s = meeple.make("karvi", players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        s.apply(karvi.GAME.search.rollout_policy(s, rng))
    return s


@pytest.mark.parametrize("players", [2, 3, 4])
def test_evaluation_is_a_soft_place_by_the_heuristic_value(players):
    """Per player a value in [-1, 1]; the player the heuristic values highest gets the most, the
    lowest the least; in 2 players the values are opposite (a zero-sum utility like `returns`)."""
    for seed in range(3):
        s = midgame(players, seed)
        assert s.to_move is not None
        ev = evaluate(s)
        assert len(ev) == players and all(-1.0 <= e <= 1.0 for e in ev)
        v = [HeuristicBot.value(s, q) for q in range(players)]
        assert ev.index(max(ev)) == v.index(max(v)) and ev.index(min(ev)) == v.index(min(v))
        if players == 2:
            assert ev[0] == pytest.approx(-ev[1])


def test_evaluation_grows_with_a_lead_and_saturates():
    """More points for one player raise their value and lower the others'; a lead many times
    EVAL_SCALE is close to a sure first place (+1), its opponent close to last (-1)."""
    s = midgame(2, seed=5)
    before = evaluate(s)
    s.tableaus[0].points += 5
    after = evaluate(s)
    assert after[0] > before[0] and after[1] < before[1]
    s.tableaus[0].points += int(20 * EVAL_SCALE)
    far = evaluate(s)
    assert far[0] > 0.99 and far[1] < -0.99


def test_evaluation_at_the_end_is_the_game_result():
    """Final scoring decides: an ended game is valued by its ranking, as `State.returns`."""
    s = meeple.make("karvi", players=3, seed=1)
    rng = random.Random(1)
    while not s.is_over():
        s.apply(karvi.GAME.search.rollout_policy(s, rng))
    assert evaluate(s) == s.returns() == leaf_returns(s, evaluate)


def test_level_ismcts_uses_the_hooks():
    """The game's search hooks reach level `ismcts`: the evaluation, the playout cut-off, the bias
    toward the heuristic's move; and the bot still picks a legal move with them."""
    bot = make_ismcts(karvi.GAME, seed=0)
    assert bot.evaluate is evaluate
    assert bot.rollout_depth == karvi.GAME.search.depth
    assert bot.iterations == karvi.GAME.search.iterations
    assert bot.prior_weight == karvi.GAME.search.prior and bot.prior is not None
    s = midgame(2, seed=3)
    small = make_ismcts(karvi.GAME, seed=0, knob="20")
    assert small.choose(s) in s.legal_actions()


# ----- level `hard`: PlannerBot -----------------------------------------------------
def _play(players: int, seed: int, bots: list) -> meeple.core.State:
    s = meeple.make("karvi", players=players, seed=seed)
    while not s.is_over():
        s.apply(bots[s.to_move].choose(s))
    return s


def test_planner_at_the_heuristic_settings_plays_the_heuristic_moves():
    """With medium's shortlist (4 moves), one determinization and its value function the planner
    makes medium's very moves: so what it adds is only its width, determinizations and value."""
    from meeple.games.karvi.bot import PlannerBot

    class AsMedium(PlannerBot):
        WIDTH, DETS, FINAL = 4, 1, False

    a = _play(2, 11, [AsMedium(3), HeuristicBot(4)])
    b = _play(2, 11, [HeuristicBot(3), HeuristicBot(4)])
    assert a.history == b.history
    c = _play(2, 11, [PlannerBot(3), HeuristicBot(4)])
    assert c.history != b.history  # the real settings do decide differently


def test_planner_values_the_last_round_by_the_final_scoring():
    """Rulebook, "Final scoring": in the last round the planner's value is
    points plus the final scoring lines plus a small non-negative rest; before it, medium's."""
    from meeple.games.karvi.bot import PlannerBot

    bot = PlannerBot(0)
    s = meeple.make("karvi", players=2, seed=2)
    rng = random.Random(2)
    seen_early = seen_late = False
    while not s.is_over():
        for q in range(2):
            if s.round < s.rounds:
                assert bot.value(s, q) == HeuristicBot.value(s, q)
                seen_early = True
            else:
                floor = s.tableaus[q].points + sum(s.final_lines(q).values())
                assert floor <= bot.value(s, q) <= floor + 60
                seen_late = True
        s.apply(karvi.GAME.search.rollout_policy(s, rng))
    assert seen_early and seen_late
    assert [bot.value(s, q) for q in range(2)] == s.scores()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hard_is_the_planner_and_expert_searches_on_top_of_it(players):
    """`hard` plays whole games at every count; `expert` searches on top of it (playouts of the
    planner's best die moves), and level `ismcts` biases its root toward the planner's move."""
    from meeple.bots import make_bot
    from meeple.games.karvi.bot import PlannerBot, SearchPlannerBot

    hard = make_bot("hard", karvi.GAME, 1)
    assert isinstance(hard, PlannerBot) and hard.name == "hard"
    s = _play(players, 5, [make_bot("hard", karvi.GAME, q) for q in range(players)])
    assert s.is_over()
    expert = make_bot("expert", karvi.GAME, 1)
    assert isinstance(expert, SearchPlannerBot) and expert.iterations > 0
    assert isinstance(getattr(make_ismcts(karvi.GAME, 1).prior, "__self__", None), PlannerBot)


def test_expert_keeping_one_move_plays_the_planner_and_more_moves_decide_differently():
    """The playouts only choose among the planner's best die moves: keeping one, the expert makes
    the planner's very moves; keeping three, its own."""
    from meeple.games.karvi.bot import PlannerBot, SearchPlannerBot

    class KeepOne(SearchPlannerBot):
        KEEP = 1

    class Small(SearchPlannerBot):
        iterations = 2

    a = _play(2, 13, [KeepOne(3), HeuristicBot(4)])
    b = _play(2, 13, [PlannerBot(3), HeuristicBot(4)])
    assert a.history == b.history
    c = _play(2, 13, [Small(3), HeuristicBot(4)])
    assert c.history != b.history
