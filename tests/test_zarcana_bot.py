"""Zarcana bots: the heuristic's push toward the end, the search's evaluation, and bot games that
end. Rule sections refer to the rulebook (shared/rules/003): Scoring and Winning says the game
ends only after a declaration, which needs a reshuffle (Playing), and sets no maximum length, so
the length bound tested here is the bots' own policy (docs/games/zarcana.md, Bots).
"""

from __future__ import annotations

import random

import pytest

import meeple
from meeple.bots import make_bot
from meeple.bots.ismcts import candidates_for, evaluation_for, rollout_policy_for
from meeple.games.zarcana import bot, rules
from meeple.games.zarcana.bot import HeuristicBot, heuristic_action, turns_to_reshuffle
from meeple.games.zarcana.rules import CARD_ID
from meeple.games.zarcana.search import (
    TOP,
    candidate_actions,
    evaluate_all,
    greedy_action,
    reply_eval,
)
from test_zarcana import fresh, hand, lay, pyr


def _leader_on(value_card: str, trailer_card: str):
    """P0 alone on ``value_card``, P1 alone on ``trailer_card``, three cards apart."""
    s = fresh()
    s.deck = [CARD_ID[f"move-{i}"] for i in range(1, 9)]
    lay(s, {(0, 0): value_card, (3, 0): trailer_card})
    pyr(s, 0, "S", 0, 0)
    pyr(s, 1, "S", 3, 0)
    return s


def test_eval_ranks_a_winning_position_above_a_losing_one():
    """Scoring and Winning: the player alone on the more valuable card is better off."""
    s = _leader_on("grow_clone-10", "move-2")
    v = evaluate_all(s)
    assert v[0] > 0 > v[1] and all(-1 <= x <= 1 for x in v)
    t = _leader_on("move-2", "grow_clone-10")
    w = evaluate_all(t)
    assert w[1] > 0 > w[0]
    assert v[0] > w[0]


def test_eval_in_the_final_round_counts_only_the_score():
    """Playing (declare): once the final round is declared only the score at the end matters,
    so a large pyramid army with fewer points is worth less than the points."""
    s = _leader_on("grow_clone-4", "move-3")
    for size in "LLLMM":
        pyr(s, 1, size, 3, 0)  # P1: a big army on its 3, P0 one small pyramid on its 4
    assert evaluate_all(s)[1] > 0  # mid-game the army counts
    s.declared, s.turns_left = 1, 2
    assert evaluate_all(s)[0] > 0 > evaluate_all(s)[1]


def test_reply_eval_sees_the_attack_that_answers_a_move():
    """Attack: a lone pyramid on a valuable card next to a larger enemy pointing at it, whose
    owner holds an Attack card, is lost on the enemy's turn; the search's leaf value sees it."""
    s = _leader_on("grow_clone-10", "move-1")
    lay(s, {(0, 1): "build-1"})
    pyr(s, 1, "L", 0, 1, "N")  # P1's large pyramid points at P0's card
    hand(s, 1, "attack-3")
    s.to_move = 1
    s._legal = None
    before = evaluate_all(s)[0]
    after = reply_eval(s)[0]
    assert before > 0 and after < 0
    assert s.on_board(0), "the leaf itself is left as it was"


def test_turns_to_reshuffle_full_hand_and_reshuffle_is_progress():
    """Playing (draw up to three, hand limit six): a full hand must discard before it can draw,
    so it is further from the reshuffle; and reaching a reshuffle always counts as progress."""
    s = fresh()
    s.deck = [CARD_ID[f"move-{i}"] for i in range(1, 11)]
    hand(s, 0, *(f"build-{i}" for i in range(1, 7)))
    full = turns_to_reshuffle(s, 0)
    hand(s, 0)
    assert turns_to_reshuffle(s, 0) < full
    s.deck, s.discard = [], [CARD_ID["move-1"]] * 1
    just_before = bot.CYCLE * s.reshuffles - turns_to_reshuffle(s, 0)
    s.deck, s.discard, s.reshuffles = [CARD_ID[f"attack-{i}"] for i in range(1, 11)] * 8, [], 1
    assert bot.CYCLE * s.reshuffles - turns_to_reshuffle(s, 0) > just_before


def test_heuristic_leader_with_a_full_hand_runs_the_deck_down():
    """Scoring and Winning: end the game when ahead; nobody may declare before a reshuffle, so a
    leader whose full hand blocks drawing makes room to draw instead of idling."""
    s = _leader_on("move-10", "move-1")
    s.deck = [CARD_ID[f"attack-{i}"] for i in range(1, 11)] * 2
    hand(s, 0, *(f"move-{i}" for i in range(1, 7)))  # all unusable: P0's only pyramid stands
    s.turn = bot.RUSH_TURN
    before = turns_to_reshuffle(s, 0)
    assert HeuristicBot(0).choose(s) == rules.DISCARD
    s.apply(rules.DISCARD)
    assert turns_to_reshuffle(s, 0) < before
    s.turn = bot.RUSH_TURN - 2  # in the opening the same hand is kept (Strategies: draw early)
    hand(s, 0, *(f"move-{i}" for i in range(1, 7)))
    s.to_move = 0
    assert HeuristicBot(0).choose(s) != rules.DISCARD


def test_heuristic_length_bound_discards_then_declares_even_when_behind():
    """The bots' own bound (the rules set none): from LAST_TURN a bot only runs the deck down
    and declares as soon as Playing allows it (after a reshuffle), whatever the score."""
    s = _leader_on("move-1", "grow_clone-10")  # P0 is behind
    s.deck = [CARD_ID[f"attack-{i}"] for i in range(1, 11)]
    hand(s, 0, *(f"grow_clone-{i}" for i in range(1, 7)))
    s.turn = bot.LAST_TURN
    assert HeuristicBot(0).choose(s) == rules.DISCARD
    s.reshuffles = 1
    s._legal = None
    assert HeuristicBot(0).choose(s) == rules.DECLARE


def test_package_exports_the_search_hooks():
    """Level ismcts finds Zarcana's playout policy and leaf evaluation."""
    info = meeple.game_info("zarcana")
    assert evaluation_for(info) is reply_eval
    assert rollout_policy_for(info) is greedy_action
    assert candidates_for(info) is candidate_actions


def _positions(count: int, every: int = 5):
    """``count`` positions of a 2-player heuristic game, each with a choice to make."""
    s = meeple.make("zarcana", players=2, seed=11)
    bots = [HeuristicBot(1), HeuristicBot(2)]
    out: list[rules.ZarcanaState] = []
    for n in range(2000):
        if s.is_over() or len(out) >= count:
            break
        if n % every == 0 and len(s.legal_actions()) > TOP:
            out.append(s.clone())
        s.apply(bots[s.to_move].choose(s))
    return out


def test_candidates_are_the_heuristics_best_legal_moves():
    """Playing: the search tree's edges are a few legal actions, led by the heuristic's own move
    in the same sampled world."""
    seen_narrowed = 0
    for s in _positions(8):
        world = s.determinize(s.to_move, random.Random(5))
        cands = candidate_actions(world)
        legal = world.legal_actions()
        assert cands and len(cands) <= TOP and len(set(cands)) == len(cands)
        assert all(a in legal for a in cands)
        assert cands[0] == heuristic_action(world, random.Random(len(world.history)), sample=False)
        seen_narrowed += len(cands) < len(legal)
    assert seen_narrowed >= 4


def test_candidates_while_reorienting_are_the_heuristics_orientation():
    """Reorient: the heuristic aims each pyramid by rule, and that is the only edge."""
    s = _leader_on("grow_clone-10", "move-2")
    lay(s, {(0, 1): "build-1"})
    pyr(s, 1, "L", 0, 1)
    s._legal = None
    s.apply(rules.REORIENT)
    assert s.stage == rules.REORIENTING
    assert candidate_actions(s) == [rules.A_ORIENT + bot.best_orientation(s, s.reo[0])]


def test_level_ismcts_searches_only_the_candidates():
    """The hook reaches level ismcts: its root children are the candidates, fewer than the legal
    actions, and its move is one of them."""
    info = meeple.game_info("zarcana")
    s = _positions(1)[0]
    search = make_bot("ismcts:40", info, seed=3)
    move = search.choose(s)
    legal = s.legal_actions()
    tried = set(search.last.visits)
    assert move in tried and tried <= set(legal) and len(tried) <= TOP < len(legal)


def _play(
    levels: list[str], players: int, seed: int, bot_seed: int, cap: int = 3000
) -> meeple.State:
    info = meeple.game_info("zarcana")
    s = meeple.make("zarcana", players=players, seed=seed)
    bots = [make_bot(levels[p % len(levels)], info, seed=bot_seed * 10 + p) for p in range(players)]
    for _ in range(cap):
        if s.is_over():
            break
        s.apply(bots[s.to_move].choose(s))
    return s


@pytest.mark.parametrize(
    ("players", "seed", "bot_seed"), [(2, 100, 0), (2, 104, 4), (2, 106, 6), (3, 1, 1), (4, 2, 2)]
)
def test_heuristic_games_end_by_declaration(players, seed, bot_seed):
    """Scoring and Winning: the game ends after a declaration; heuristic bots always get there.
    The 2-player games stalled in earlier versions of the bot (full hands before the first
    reshuffle; an idle leader; an endless place-and-destroy loop on the leader's card)."""
    s = _play(["heuristic"], players, seed, bot_seed)
    assert s.is_over() and s.declared >= 0 and s.reshuffles >= 1


def test_search_against_heuristic_game_ends():
    """A game between a (small-budget) search bot and the heuristic ends by declaration."""
    s = _play(["ismcts:6", "heuristic"], 2, 3, 3)
    assert s.is_over() and s.declared >= 0


def test_lookahead_weighs_the_reply_to_a_move():
    """Attack: the lookahead level judges a move after the next player's answer, so the same
    threatened position is worth less to it than the heuristic's one-turn value says."""
    s = _leader_on("grow_clone-10", "move-1")
    lay(s, {(0, 1): "build-1"})
    pyr(s, 1, "L", 0, 1, "N")  # P1's large pyramid points at P0's card
    hand(s, 1, "attack-3")
    s._legal = None
    assert s.to_move == 0
    world = s.determinize(0, random.Random(1))
    legal = world.legal_actions()
    pass_like = next(a for a in legal if a != rules.DECLARE)
    after = bot._after_reply(world, pass_like, 0, 0.0)
    line = bot.best_line(world, legal, 0.0, random.Random(0))[1]
    assert after < bot.evaluate(line, 0) - 5  # the attack that answers costs P0 its card
    assert world.on_board(0), "the world itself is left as it was"


def test_lookahead_level_is_repeatable_and_picks_a_heuristic_candidate():
    """`hard` (the lookahead) is a fixed amount of work from its own seed: same seed, same move;
    and its move is one of the heuristic's best few."""
    info = meeple.game_info("zarcana")
    for s in _positions(3):
        a = make_bot("hard", info, seed=4).choose(s)
        assert a == make_bot("hard", info, seed=4).choose(s)
        world = s.determinize(s.to_move, random.Random(4))
        assert a in s.legal_actions()
        assert len(set(s.legal_actions())) > 1 and world.view(s.to_move) == s.view(s.to_move)


def test_lookahead_against_heuristic_games_end():
    """Scoring and Winning: games between the lookahead and the heuristic end by declaration."""
    s = _play(["hard", "heuristic"], 3, 5, 5)
    assert s.is_over() and s.declared >= 0


def test_lookahead_ranked_lists_its_move_first_and_the_rest_from_the_heuristics_best():
    """`ranked` (the rollout level's candidates) starts with `choose`'s move from the same seed,
    holds at most `LOOK_TOP` distinct legal moves, and a move made by rule stands alone."""
    for s in _positions(3):
        order = bot.LookaheadBot(seed=6).ranked(s)
        assert order[0] == bot.LookaheadBot(seed=6).choose(s)
        assert 1 <= len(order) <= bot.LOOK_TOP and len(set(order)) == len(order)
        assert set(order) <= set(s.legal_actions())
        forced = bot.obvious_move(s, s.legal_actions(), s.to_move)
        if forced >= 0:
            assert order == [forced]


def test_rollout_playouts_stop_where_the_movers_turn_ends():
    """The rollout level's playouts (`SearchHooks.horizon`) all stop at the start of the next
    player's turn, whatever the candidate (one action or a chain), so every candidate is judged
    at the same point of play."""
    from meeple.bots.rollout import RolloutBot

    info = meeple.game_info("zarcana")
    for s in _positions(3):
        me, turn = s.to_move, s.turn
        seen: list[tuple[int, object, str]] = []

        def spy(world, mover, seen=seen):  # type: ignore[no-untyped-def]
            seen.append((world.turn, world.to_move, world.stage))
            return 0.0

        bot = RolloutBot(info, 3, base="lookahead", playout="heuristic", keep=4, worlds=2)
        bot.value = spy
        bot.choose(s)
        assert seen and all(x == (turn + 1, (me + 1) % s.players, rules.MAIN) for x in seen)


def test_rollout_value_plays_whole_rounds_and_leaves_the_world_alone():
    """`rollout_value` judges the world `ROLLOUT_ROUNDS` rounds on, at the start of ``me``'s turn,
    as a value in [-1, 1], and leaves the world it is given as it was."""
    from meeple.games.zarcana import search

    for s in _positions(3):
        me = s.to_move
        world = s.determinize(me, random.Random(2))
        while world.to_move == me and not world.is_over():  # to the end of me's turn
            world.apply(heuristic_action(world, random.Random(0), sample=False))
        before = (world.view(None), world.turn)
        v = search.rollout_value(world, me)
        assert -1.0 <= v <= 1.0
        assert (world.view(None), world.turn) == before
        assert search.rollout_value(world, me) == v  # repeatable: no hidden randomness
