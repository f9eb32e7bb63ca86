"""The engine contract, checked for every game, player count and option variant.

Random-play fuzzing to the end, replay determinism, JSON round-trips of actions and records,
illegal input leaving the state untouched, and the leak test (a player's view is unchanged when
what they cannot see is resampled, and the resampling really changes something).
"""

from __future__ import annotations

import bisect
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import meeple
from contract import (
    ILLEGAL_SWEEP,
    check_actions_json,
    check_determinized_plays_out,
    check_finished,
    check_illegal_untouched,
    check_no_leak,
    check_replay,
    config_id,
    configs,
    play_random,
)

CONFIGS = list(configs())
GAMES_PER_CONFIG = 3


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_random_games_finish_and_replay(cfg):
    game, players, options = cfg
    for seed in range(GAMES_PER_CONFIG):
        state = meeple.make(game, players=players, seed=seed, **options)
        play_random(state, random.Random(seed))
        check_finished(state)
        check_replay(state)


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_contract_along_a_game(cfg):
    """Every few moves: JSON actions round-trip, illegal input is refused, nothing leaks."""
    game, players, options = cfg
    info = meeple.game_info(game)
    rng = random.Random(99)
    state = meeple.make(game, players=players, seed=42, **options)
    differed = False
    step = 0
    while not state.is_over():
        if step % 7 == 0:
            check_actions_json(state)
            # Every id outside the legal ones (256 spread over the range for big action spaces)
            # at every third check; 48 spread over the range in between (time).
            check_illegal_untouched(state, info.num_actions, seed=step,
                                    sweep=ILLEGAL_SWEEP if step % 21 == 0 else 48)
            differed |= check_no_leak(state, rng, tries=2)
            if step % 21 == 0:
                check_determinized_plays_out(state, rng)
                clone = state.clone()
                assert clone.view(None) == state.view(None) and clone.history == state.history
        state.apply(rng.choice(state.legal_actions()))
        step += 1
    assert differed or not _has_hidden_information(game), "determinize never changed anything hidden"


def _has_hidden_information(game: str) -> bool:
    return getattr(meeple.game_info(game), "hidden_information", True)


def test_same_seed_same_game():
    for game, players, options in configs():
        a = meeple.make(game, players=players, seed=5, **options)
        b = meeple.make(game, players=players, seed=5, **options)
        rng_a, rng_b = random.Random(1), random.Random(1)
        play_random(a, rng_a)
        play_random(b, rng_b)
        assert a.history == b.history and a.scores() == b.scores()


def test_unknown_game_player_count_and_option_name_what_is_allowed():
    with pytest.raises(meeple.UnknownGame, match="trickarus"):
        meeple.make("chess", players=2)
    with pytest.raises(meeple.BadPlayerCount, match="2–5"):
        meeple.make("trickarus", players=9)
    with pytest.raises(meeple.BadOption, match="mode"):
        meeple.make("trickarus", players=4, colour="red")
    with pytest.raises(meeple.BadOption, match="competitive"):
        meeple.make("trickarus", players=4, mode="solo")
    for exc in (meeple.UnknownGame, meeple.BadPlayerCount, meeple.BadOption, meeple.IllegalAction):
        assert issubclass(exc, ValueError)


def test_games_lists_options_with_defaults_and_choices():
    listed = {g["id"]: g for g in meeple.games()}
    assert "trickarus" in listed
    for g in listed.values():
        assert g["title"] and g["description"] and g["players"]
        for opt in g["options"]:
            assert opt["default"] in opt["choices"] and opt["description"]


def test_bad_record_is_refused():
    state = meeple.make("trickarus", players=3, seed=1)
    record = state.record()
    record["actions"] = [999]
    with pytest.raises(meeple.BadRecord):
        meeple.replay(record)
    with pytest.raises(meeple.BadRecord):
        meeple.replay({"format": "nope"})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_prefix_of_any_game_replays_and_hides_what_it_should(data):
    """Property: after any sequence of legal moves, the record replays to identical views, a
    clone is identical, and determinize leaves the mover's view unchanged."""
    game, players, options = data.draw(st.sampled_from(CONFIGS), label="config")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    picks = data.draw(st.lists(st.integers(0, 10**6), max_size=150), label="picks")
    state = meeple.make(game, players=players, seed=seed, **options)
    for pick in picks:
        if state.is_over():
            break
        legal = state.legal_actions()
        state.apply(legal[pick % len(legal)])
    again = meeple.replay(state.record())
    for p in [None, *range(players)]:
        assert again.view(p) == state.view(p)
    assert state.clone().view(None) == state.view(None)
    if not state.is_over():
        mover = state.to_move
        det = state.determinize(mover, random.Random(seed))
        assert det.view(mover) == state.view(mover)
        assert det.legal_actions() == state.legal_actions()


def test_illegal_ids_cover_every_id_or_a_stratified_sample_of_the_whole_range():
    """The illegal-action check tries every id outside the legal ones (small action spaces), or
    one seeded id from each slice of the range (large ones), plus ids outside the range."""
    from contract import ILLEGAL_SWEEP, illegal_ids

    ids = illegal_ids(40, {3, 7}, seed=1)
    assert sorted(a for a in ids if 0 <= a < 40) == [a for a in range(40) if a not in (3, 7)]
    assert {-1, 40, 41} <= set(ids)
    big = 1191
    ids = [a for a in illegal_ids(big, {5}, seed=2) if 0 <= a < big]
    assert 5 not in ids and {0, big - 1} <= set(ids) and len(ids) >= ILLEGAL_SWEEP
    edges = [big * i // ILLEGAL_SWEEP for i in range(1, ILLEGAL_SWEEP + 1)]
    slices = {bisect.bisect_right(edges, a) for a in ids}
    slices.add(bisect.bisect_right(edges, 5))  # the legal id's slice may have drawn it
    assert slices == set(range(ILLEGAL_SWEEP))  # the whole range, every time
    assert ids == [a for a in illegal_ids(big, {5}, seed=2) if 0 <= a < big]  # deterministic
    assert ids != [a for a in illegal_ids(big, {5}, seed=3) if 0 <= a < big]  # seeds differ


def test_illegal_check_catches_a_game_that_accepts_one_illegal_id():
    """The contract check fails a game that silently accepts any single id outside its legal
    actions (here the highest one, which a five-id check never reached)."""
    from contract import check_illegal_untouched
    from meeple.games.trickarus.rules import TrickarusState

    class Sloppy(TrickarusState):
        def apply(self, action, legal=None):
            if action == 39 and not self.is_legal(action):
                return  # accepted silently: neither raised nor applied
            super().apply(action, legal)

    state = meeple.make("trickarus", players=3, seed=4)
    assert 39 not in state.legal_actions()
    check_illegal_untouched(state, 40)
    state.__class__ = Sloppy
    with pytest.raises(AssertionError, match="illegal action 39 was applied"):
        check_illegal_untouched(state, 40)
