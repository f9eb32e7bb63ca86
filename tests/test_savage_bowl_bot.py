"""Savage Bowl search: level `ismcts` with the game's search hooks (heuristic playouts cut at the end
of the round, 400 iterations) on positions from real games.

Rule sections refer to the Savage Bowl rulebook.
"""

from __future__ import annotations

import meeple
from meeple.bots import make_bot
from meeple.games import savage_bowl
from meeple.games.savage_bowl.bot import HeuristicBot, ShedderBot, danger
from meeple.games.savage_bowl.rules import CHAM_BASE, FIRST_HALF, NUM_CARDS, PLAY, SavageBowlState


def last_to_play_at_target(limit: int = 40) -> list[SavageBowlState]:
    """Second-half positions (heuristic self-play) where the mover already has exactly the target,
    plays last to the trick, and may either win it or lose it."""
    info = meeple.game_info("savage_bowl")
    found = []
    for seed in range(limit):
        s = meeple.make("savage_bowl", players=4, seed=seed)
        bots = [make_bot("heuristic", info, seed * 10 + p) for p in range(4)]
        while s.to_move is not None:
            p = s.to_move
            if (
                s.phase == PLAY
                and s.trick_no > FIRST_HALF
                and s.won[p] == s.target
                and len(s.trick) == len(s.order) - 1
            ):
                places = {HeuristicBot._outcome(s, a)[1] for a in s.legal_actions()}
                if 0 in places and len(places) > 1:
                    found.append(s.clone())
            s.apply(bots[p].choose(s))
        if len(found) >= 3:
            break
    return found


def test_ismcts_does_not_take_the_trick_that_eliminates_it():
    """Elimination: one trick more than the target throws the player out of the round with 0
    points for it. Playing last, at the target, the search must duck (heuristic playouts to the
    round's scoring see the lost points)."""
    positions = last_to_play_at_target()
    assert positions, "no such position in the sampled games"
    info = meeple.game_info("savage_bowl")
    for k, s in enumerate(positions):
        bot = make_bot("ismcts", info, k)
        assert bot.iterations == savage_bowl.GAME.search.iterations
        a = bot.choose(s)
        assert (
            HeuristicBot._outcome(s, a)[1] > 0
        )  # not the strongest card: the trick goes elsewhere
        me = s.to_move
        s.apply(a)
        assert not s.out >> me & 1


def short_and_beaten(limit: int = 40) -> list[SavageBowlState]:
    """Second-half positions (heuristic self-play) where the mover is short of the target,
    follows to a trick, and no card of theirs can take it."""
    info = meeple.game_info("savage_bowl")
    found = []
    for seed in range(limit):
        s = meeple.make("savage_bowl", players=4, seed=seed)
        bots = [make_bot("heuristic", info, seed * 10 + p) for p in range(4)]
        while s.to_move is not None:
            p = s.to_move
            legal = s.legal_actions()
            if (
                s.phase == PLAY
                and s.trick_no > FIRST_HALF
                and s.won[p] < s.target
                and s.trick
                and len({danger(a % NUM_CARDS) for a in legal if a < CHAM_BASE}) > 1
                and all(HeuristicBot._outcome(s, a)[1] > 0 for a in legal)
            ):
                found.append(s.clone())
            s.apply(bots[p].choose(s))
        if len(found) >= 10:
            break
    return found


def test_shedder_throws_its_most_dangerous_card_when_it_cannot_take_the_trick():
    """Elimination: one trick over the target throws a player out of the round, and the cards
    that force that trick are the strong ones a player kept. Level `hard` (the shedder), short of
    the target and unable to take this trick, discards its most dangerous plain card; the
    heuristic (`medium`) plays its lowest, so the two differ here."""
    positions = short_and_beaten()
    assert len(positions) >= 5
    info = meeple.game_info("savage_bowl")
    differ = 0
    for s in positions:
        hard = make_bot("hard", info, 1)
        assert isinstance(hard, ShedderBot)
        a = hard.choose(s)
        plain = [b for b in s.legal_actions() if b < CHAM_BASE]
        assert a < CHAM_BASE and danger(a) == max(danger(b) for b in plain)
        differ += a != make_bot("medium", info, 1).choose(s)
    assert differ >= len(positions) // 2


def test_outcomes_of_all_plays_agree_with_one_at_a_time():
    """`_outcomes` (the trick's keys read once, for the rollout level's playouts) gives what
    `_outcome` gives card by card, at both player counts and under every strength option."""
    info = meeple.game_info("savage_bowl")
    checked = 0
    for players in (4, 5):
        for offcolour in ("equal", "by_number"):
            for ties in ("first_played", "last_played"):
                for seed in range(3):
                    s = meeple.make("savage_bowl", players=players, seed=seed,
                                    offcolour=offcolour, ties=ties)
                    bots = [make_bot("random", info, seed * 10 + p) for p in range(players)]
                    while s.to_move is not None:
                        legal = s.legal_actions()
                        if s.phase == PLAY and s.trick:
                            one = [HeuristicBot._outcome(s, a) for a in legal]
                            assert HeuristicBot._outcomes(s, legal) == one
                            checked += 1
                        s.apply(bots[s.to_move].choose(s))
    assert checked > 500
