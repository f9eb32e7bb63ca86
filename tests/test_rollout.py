"""Rollout search (`meeple.bots.rollout`): the base bot's candidates, judged on shared worlds."""

from __future__ import annotations

import random

import pytest

import meeple
from contract import SlowClock, midgame_states
from meeple.bots import make_bot
from meeple.bots import rollout as rollout_module
from meeple.bots.rollout import RolloutBot, parse_knob
from meeple.core import State

GAMES = [g["id"] for g in meeple.games()]


def test_knob() -> None:
    assert parse_knob("shedder") == {"base": "shedder"}
    assert parse_knob("hard:medium:k3:w12:d40:m0.05") == {
        "base": "hard", "playout": "medium", "keep": 3, "worlds": 12, "depth": 40, "margin": 0.05,
    }
    with pytest.raises(ValueError, match="base level"):
        parse_knob("k3:w2")
    with pytest.raises(ValueError, match="base level"):
        parse_knob("a:b:c")


@pytest.mark.parametrize("game", GAMES)
def test_one_candidate_is_the_base_bots_move(game: str) -> None:
    """With `keep` 1 nothing is played out: the base bot's move, whatever the worlds say."""
    info = meeple.game_info(game)
    for state in midgame_states(game, 3, 2, every=5, min_legal=3):
        bot = RolloutBot(info, 5, base="medium", playout="random", keep=1, worlds=3)
        assert bot.choose(state) == make_bot("medium", info, 5).choose(state)


@pytest.mark.parametrize("game", GAMES)
def test_never_reads_hidden_information_nor_changes_the_state(game: str) -> None:
    """Two worlds that differ only in what the mover cannot see get the same playouts' means."""
    info = meeple.game_info(game)
    for state in midgame_states(game, 1, 2, every=5, min_legal=3):
        me = state.to_move
        assert me is not None
        a = state.determinize(me, random.Random(1))
        b = state.determinize(me, random.Random(2))
        x, y = a.determinize(me, random.Random(9)), b.determinize(me, random.Random(9))
        if not all(x.view(p) == y.view(p) for p in [None, *range(a.players)]):
            pytest.xfail(f"{game}: determinize's sample depends on the hidden layout")
        before = (a.view(None), list(a.history))
        bots = [RolloutBot(info, 7, base="medium", playout="random", keep=3, worlds=2) for _ in "ab"]
        assert bots[0].choose(a) == bots[1].choose(b)
        assert bots[0].last is not None and bots[1].last is not None
        assert bots[0].last.means == bots[1].last.means
        assert (a.view(None), list(a.history)) == before


def test_the_best_playout_value_wins_and_the_margin_keeps_the_base_move() -> None:
    info = meeple.game_info("savage_bowl")
    state = midgame_states("savage_bowl", 2, 1, every=5, min_legal=3)[0]
    legal = state.legal_actions()
    n = len(state.history)
    base_move = make_bot("medium", info, 4).choose(state)
    target = next(a for a in legal if a != base_move)

    def value(world: State, me: int) -> float:  # 1 for the playouts that began with `target`
        return 0.5 if world.history[n] == target else 0.0

    bot = RolloutBot(info, 4, base="medium", keep=len(legal), worlds=2, depth=3)
    bot.value = value
    assert bot.choose(state) == target
    assert bot.last is not None and bot.last.iterations == 2 * len(legal)
    kept = RolloutBot(info, 4, base="medium", keep=len(legal), worlds=2, depth=3, margin=0.6)
    kept.value = value
    assert kept.choose(state) == base_move


def test_a_time_cap_is_a_safety_net_that_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    info = meeple.game_info("savage_bowl")
    state = midgame_states("savage_bowl", 2, 1, every=5, min_legal=3)[0]
    bot = RolloutBot(info, 4, base="medium", keep=3, worlds=8, depth=5)
    assert bot.max_seconds is None  # no clock unless a server sets one
    monkeypatch.setattr(rollout_module, "time", SlowClock())
    bot.max_seconds = 0.5  # every clock reading is a second later: one world, then the cap
    bot.choose(state)
    assert bot.last is not None and bot.last.capped and bot.last.iterations == 3


def test_a_world_hook_replaces_determinize() -> None:
    """SearchHooks.world samples the worlds (one per world, shared by the candidates)."""
    info = meeple.game_info("savage_bowl")
    state = midgame_states("savage_bowl", 2, 1, every=5, min_legal=3)[0]
    calls: list[int] = []

    def world(s: State, me: int, rng: random.Random) -> State:
        calls.append(me)
        return s.determinize(me, rng)

    bot = RolloutBot(info, 4, base="medium", keep=3, worlds=5, depth=3)
    bot.world = world
    bot.choose(state)
    assert bot.last is not None and bot.last.iterations == 5 * len(bot.last.candidates)
    assert calls == [state.to_move] * 5
