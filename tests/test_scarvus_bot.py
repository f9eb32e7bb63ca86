"""Scarvus search hooks (search.py): the ISMCTS playout policy and the cut-off evaluation.

Rule references are to shared/rules/000 (VPG rules): the Bid Step, the Challenge Step (a bid is
safe when the colour's total reaches it; Feather tokens) and How to Win."""

from __future__ import annotations

import random

import pytest

import meeple
from contract import snapshot
from meeple.bots import make_bot
from meeple.bots.ismcts import _playout, evaluation_for, rollout_policy_for
from meeple.games.scarvus import GAME
from meeple.games.scarvus import rules as R
from meeple.games.scarvus.bot import ProbabilisticBot
from meeple.games.scarvus.search import (
    candidate_actions,
    ceiling,
    estimates,
    evaluate,
    floor,
    rollout_policy,
)

VARIANTS = [
    {},
    {"fancy_flying": True, "talons": True, "daedalus": True},
    {"lives": 3},
]


def states_in(phase: int, count: int, erratic: float = 0.0, **options) -> list[R.ScarvusState]:
    """Decision points of ``phase`` from 4-player games played by the policy itself, with an
    ``erratic`` share of uniformly random moves (varied seeds)."""
    out: list[R.ScarvusState] = []
    rng = random.Random(7)
    seed = 0
    while len(out) < count:
        s = meeple.make("scarvus", players=4, seed=seed, **options)
        seed += 1
        while s.to_move is not None and len(out) < count:
            if s.phase == phase:
                out.append(s.clone())
            legal = s.legal_actions()
            s.apply(rng.choice(legal) if rng.random() < erratic else rollout_policy(s, rng))
    return out


@pytest.mark.parametrize("options", VARIANTS)
def test_policy_plays_legal_moves_to_the_end(options):
    """Every move the policy makes is legal (`apply` validates), in every variant, and its games
    end (How to Win) in far more actions than random ones, which crash into feathers."""
    rng = random.Random(1)
    lengths = []
    for seed in range(12):
        s = meeple.make("scarvus", players=4, seed=seed, **options)
        while s.to_move is not None:
            s.apply(rollout_policy(s, rng))
            assert len(s.history) < 5000
        lengths.append(len(s.history))
    random_lengths = []
    for seed in range(12):
        w = meeple.make("scarvus", players=4, seed=seed, **options).determinize(0, rng)
        _playout(w, rng, None)
        random_lengths.append(len(w.history))
    assert sum(lengths) > 1.3 * sum(random_lengths)


def test_policy_never_bids_into_a_certain_crash_when_it_can_avoid_one():
    """Challenge Step: a bid above the largest total the bidder can imagine loses for sure. The
    policy makes one only when every legal bid is such a bid."""
    checked = 0
    for s in states_in(R.BIDDING, 300, erratic=0.3):
        p = s.to_move
        a = rollout_policy(s, random.Random(checked))
        n, c = R.bid_of(a)
        avoidable = any(R.bid_of(b)[0] <= ceiling(s, p, R.bid_of(b)[1]) for b in s.legal_actions())
        if avoidable:
            assert n <= ceiling(s, p, c), (s.bid, a)
            checked += 1
    assert checked > 200


def test_policy_challenges_impossible_bids_and_accepts_certain_ones():
    """Challenge Step: a bid above the colour's largest possible total is challenged; a bid at
    most the cards the responder sees (so certainly safe) is accepted whenever a raise that can
    still be safe exists (Bid Step: accepting commits to a higher bid)."""
    impossible = certain = 0
    for i, s in enumerate(states_in(R.RESPOND, 400, erratic=0.3)):
        p = s.to_move
        n, c = s.bid
        a = rollout_policy(s, random.Random(i))
        if n > ceiling(s, p, c):
            assert a == R.CHALLENGE
            impossible += 1
        elif n <= floor(s, p, c) and any(
            ceiling(s, p, d) > n for d in range(R.NC) if s.in_play >> d & 1
        ):
            assert a == R.ACCEPT
            certain += 1
    assert impossible > 0 and certain > 0


def test_policy_opens_near_its_estimate_in_its_best_colour():
    """Bid Step: the opening bid is in the colour the policy expects to be highest, 1 to 3 under
    its estimate (never above what can be safe)."""
    for i, s in enumerate(states_in(R.BIDDING, 200)):
        if s.bid is not None:
            continue
        p = s.to_move
        est = estimates(s, p)
        n, c = R.bid_of(rollout_policy(s, random.Random(i)))
        assert est[c] == max(est)
        assert max(1, min(round(est[c]) - 3, ceiling(s, p, c))) <= n <= round(est[c]) - 1


def test_estimates_are_own_card_plus_mean_of_unseen():
    """A colour's estimate: my card, plus for each other hidden hand the mean of the cards I
    cannot see (the deck list minus my card and the visible discards)."""
    s = meeple.make("scarvus", players=3, seed=2)
    me, red = s.to_move, R.COLOUR_ID["red"]
    s.discards[red] = [7, 6]
    s.hand[me * R.NC + red] = 1
    unseen = sum(R.DECK) - 7 - 6 - 1  # 14 cards left unseen by me
    assert estimates(s, me)[red] == pytest.approx(1 + 2 * unseen / (len(R.DECK) - 3))
    s.in_play &= ~(1 << red)
    assert estimates(s, me)[red] == -1


def test_policy_is_cheap_it_builds_no_view():
    """The heuristic builds a JSON view per decision; the policy reads the raw state only: a whole
    game (no Flight cards) without a single `view` or `legal_actions` call."""
    calls = {"view": 0, "legal": 0}
    s = meeple.make("scarvus", players=5, seed=3)

    class Counting(R.ScarvusState):
        def view(self, player):
            calls["view"] += 1
            return super().view(player)

        def legal_actions(self):
            calls["legal"] += 1
            return super().legal_actions()

    s.__class__ = Counting
    rng = random.Random(0)
    moves = 0
    while s.to_move is not None:
        a = rollout_policy(s, rng)
        assert calls == {"view": 0, "legal": 0}
        assert s.is_legal(a)
        calls["legal"] = 0
        s._apply(a)
        moves += 1
    assert moves > 50
    # The same count for the heuristic: one view per decision with a choice.
    heuristic = GAME.bots["heuristic"](0)
    s2 = meeple.make("scarvus", players=5, seed=3)
    s2.__class__ = Counting
    for _ in range(20):
        s2._apply(heuristic.choose(s2))
    assert calls["view"] > 0


def test_evaluate_prefers_fewer_and_lighter_feathers():
    """Feather tokens: a burnt feather (-5) is worse than a singed one (-2); level scores are
    worth 0 to all; the values are in [-1, 1] and sum to zero."""
    s = meeple.make("scarvus", players=4, seed=1)
    assert evaluate(s) == [0.0] * 4
    s.singed[1] = 1
    s.burnt[2] = 1
    v = evaluate(s)
    assert v[0] == v[3] > v[1] > v[2]
    assert all(-1 <= x <= 1 for x in v)
    assert sum(v) == pytest.approx(0.0)


def test_ismcts_uses_the_scarvus_hooks_and_plays_legally():
    """Level ismcts picks up the game's SearchHooks rollout_policy and evaluate, and its moves with a
    small budget are legal through a whole game."""
    assert rollout_policy_for(GAME) is rollout_policy
    assert evaluation_for(GAME) is evaluate
    bot = make_bot("ismcts:30", GAME, seed=1)
    other = make_bot("heuristic", GAME, seed=2)
    s = meeple.make("scarvus", players=3, seed=4)
    while s.to_move is not None:
        s.apply((bot if s.to_move == 0 else other).choose(s))


def test_candidate_bids_are_legal_near_the_estimate_and_cover_the_policy():
    """Bid Step: the searched bids are legal; raises go one or two over the current bid, in every
    colour in play; openings stay within 5 under and 1 over the bidder's estimate; the policy's
    own move is always among them. Outside the Bid Step every legal move is searched."""
    for i, s in enumerate(states_in(R.BIDDING, 200, erratic=0.2)):
        legal = s.legal_actions()
        cands = candidate_actions(s)
        assert cands and set(cands) <= set(legal)
        assert rollout_policy(s, random.Random(i)) in cands
        if s.bid is not None:
            cur = s.bid[0]
            assert {R.bid_of(a)[0] for a in cands} <= {cur, cur + 1, cur + 2}
            if cur < R.CAP:
                colours = {R.bid_of(a)[1] for a in cands if R.bid_of(a)[0] == cur + 1}
                assert colours == {c for c in range(R.NC) if s.in_play >> c & 1}
        else:
            est = estimates(s, s.to_move)
            assert len(cands) < len(legal) / 3
            for a in cands:
                n, c = R.bid_of(a)
                assert round(est[c]) - 5 <= n <= round(est[c]) + 1
    for s in states_in(R.RESPOND, 20):
        assert candidate_actions(s) == s.legal_actions()


def test_default_ismcts_gets_the_candidates_and_the_probabilistic_guide():
    """Level ismcts at its default budget picks up SearchHooks.candidates and is guided at the root
    by the game's SearchHooks.prior_bot level; on a Bid Step opening (Bid Step) its tree expands only
    the candidate bids, and its choice is one of them."""
    from meeple.bots.ismcts import ISMCTSBot, candidates_for
    assert candidates_for(GAME) is candidate_actions
    bot = make_bot("ismcts", GAME, seed=5)
    assert isinstance(bot, ISMCTSBot)
    assert bot.candidates is candidate_actions
    assert bot.rollout_policy is rollout_policy and bot.evaluate is evaluate
    assert bot.prior is not None and bot.prior_weight == GAME.search.prior > 0
    assert type(bot.prior.__self__) is GAME.bots[GAME.search.prior_bot] is ProbabilisticBot
    opening = next(s for s in states_in(R.BIDDING, 50) if s.bid is None)
    small = make_bot("ismcts:60", GAME, seed=5)
    move = small.choose(opening)
    assert small.last is not None
    assert set(small.last.visits) <= set(candidate_actions(opening))
    assert move in candidate_actions(opening)


# ----- rollout hooks (src/meeple/bots/rollout.py) -------------------------------------------------
def test_probabilistic_ranked_puts_its_own_move_first_then_bids_by_expected_loss():
    info = meeple.game_info("scarvus")
    for phase in (R.CARD, R.BIDDING, R.RESPOND):
        for s in states_in(phase, 6):
            bot = make_bot("probabilistic", info, 3)
            order = bot.ranked(s)
            assert order[0] == make_bot("probabilistic", info, 3).choose(s)
            if phase == R.CARD:  # a swap reaches past a Round: not played out
                assert order == order[:1]
            else:
                assert sorted(order) == sorted(s.legal_actions())


def hard_states(phase: int, count: int, players: int = 3, **options) -> list[R.ScarvusState]:
    """Decision points of ``phase`` (with their logs) from games of the probabilistic bot."""
    info = meeple.game_info("scarvus")
    out: list[R.ScarvusState] = []
    seed = 0
    while len(out) < count:
        s = meeple.make("scarvus", players=players, seed=seed, **options)
        bots = [make_bot("probabilistic", info, p) for p in range(players)]
        seed += 1
        while s.to_move is not None and len(out) < count:
            if s.phase == phase and s.round > 1 and len(s.legal_actions()) > 1:
                out.append(s.clone())
            s.apply(bots[s.to_move].choose(s))
    return out


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.parametrize("hook", ["bid_world", "explained_world"])
def test_rollout_worlds_read_only_the_movers_view(options, hook):
    """Two worlds that differ only in what the mover cannot see (their logs included) give the
    same rollout world."""
    from meeple.games.scarvus import search

    sample = getattr(search, hook)
    for s in hard_states(R.RESPOND, 3, **options) + hard_states(R.BIDDING, 3, **options):
        me = s.to_move
        a = s.determinize(me, random.Random(1), keep_log=True)
        b = s.determinize(me, random.Random(2), keep_log=True)
        untouched = snapshot(a)
        x, y = sample(a, me, random.Random(9)), sample(b, me, random.Random(9))
        assert snapshot(a) == untouched  # the world shares lists with ``a`` (ScarvusState._copy)
        assert all(x.view(p) == y.view(p) for p in [None, *range(s.players)])
        assert x.view(me) == s.view(me)  # what the responder sees is untouched
        for c in range(R.NC):  # the same cards, moved between hidden places
            def cards(w, c=c):
                return sorted([w.hand[q * R.NC + c] for q in range(w.players)] + [w.daedalus[c], *w.decks[c]])
            assert cards(x) == cards(s)


def test_explained_world_explains_the_rounds_bids_as_the_probabilistic_bot_would():
    """Against the probabilistic bot, a world that explains a bid is one in which that bot,
    holding the sampled cards, makes the very bid it made."""
    from meeple.games.scarvus.search import explained_world, round_bids

    info = meeple.game_info("scarvus")
    explained = 0
    for s in hard_states(R.RESPOND, 12):
        me = s.to_move
        bids = round_bids(s, me)
        assert bids and bids[-1][0] == s.bidder and (bids[-1][2], bids[-1][3]) == s.bid
        world = explained_world(s, me, random.Random(3))
        assert world.view(me) == s.view(me)
        past = world.clone()
        past.phase, past.to_move, past.bid = R.BIDDING, s.bidder, bids[-1][1]
        explained += make_bot("probabilistic", info, 0).choose(past) == R.bid_action(*s.bid)
    assert explained >= 8  # a world explains the latest bid unless every try missed


def test_bid_world_reads_a_bid_as_the_bidders_strong_card():
    """The bidder's card of the bid colour is higher on average than a uniform sample says."""
    from meeple.games.scarvus.search import bid_world

    s = states_in(R.RESPOND, 1)[0]
    me, q, c = s.to_move, s.bidder, s.bid[1]
    rng = random.Random(4)
    tilted = [bid_world(s, me, rng).hand[q * R.NC + c] for _ in range(400)]
    uniform = [s.determinize(me, rng).hand[q * R.NC + c] for _ in range(400)]
    assert sum(tilted) / 400 > sum(uniform) / 400 + 1.0


def test_place_value_is_minus_the_place_at_the_end_and_smooth_before():
    from meeple.games.scarvus.search import place_value, round_key

    info = meeple.game_info("scarvus")
    s = meeple.make("scarvus", players=3, seed=5)
    bots = [make_bot("probabilistic", info, p) for p in range(3)]
    key = round_key(s)
    while s.to_move is not None:
        s.apply(bots[s.to_move].choose(s))
        if round_key(s) != key and s.to_move is not None:  # a feather was taken
            key = round_key(s)
            values = [place_value(s, p) for p in range(3)]
            assert all(-3 < v < -1 for v in values)
            scores = s.scores()
            best, worst = scores.index(max(scores)), scores.index(min(scores))
            assert values[best] >= values[worst]
    assert [place_value(s, p) for p in range(3)] == [-r for r in s.ranking()]
