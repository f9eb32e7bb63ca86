"""Python callers get tensors by a shorter path than OpenSpiel's (`openspiel._Lists`): the
player's previous list with the changed entries rewritten. It must give exactly what OpenSpiel's
own path (C++ ``State::InformationStateTensor`` through the observer) gives, whatever states are
asked in whatever order (clones, other games, resampled worlds), and a list handed out must be
the caller's own."""

from __future__ import annotations

import random

import pytest

import meeple

pyspiel = pytest.importorskip("pyspiel")
from meeple.interop.openspiel import load  # noqa: E402

CONFIGS = [(g["id"], p) for g in meeple.games() for p in (min(g["players"]), max(g["players"]))]


def _step(state: pyspiel.State, rng: random.Random) -> None:
    if state.is_chance_node():
        state.apply_action(rng.choice([o for o, _ in state.chance_outcomes()]))
    else:
        state.apply_action(rng.choice(state.legal_actions()))


@pytest.mark.parametrize(("game_id", "players"), CONFIGS, ids=[f"{g}-{p}p" for g, p in CONFIGS])
def test_lists_equal_openspiel_path_in_any_order(game_id: str, players: int) -> None:
    game = load(game_id, players)
    rng = random.Random(7)
    live = [game.new_initial_state()]
    kept: list[tuple[list[float], list[float]]] = []
    for step in range(160):
        state = rng.choice(live)
        if state.is_terminal():
            live.remove(state)
            live.append(game.new_initial_state())
            continue
        if step % 9 == 0:
            live.append(state.clone())
        if step % 23 == 0 and not state.is_chance_node() and len(live) < 6:
            live.append(state.resample_from_infostate(0, rng.random))
        for p in range(players):
            got = state.information_state_tensor(p)
            assert got == pyspiel.State.information_state_tensor(state, p)
            assert state.observation_tensor(p) == pyspiel.State.observation_tensor(state, p)
            kept.append((got, list(got)))
            got[0] = 123.0  # the caller's own list: changing it changes nothing of ours
        _step(state, rng)
    for got, copy in kept:  # lists handed out earlier are never rewritten afterwards
        assert got[1:] == copy[1:]


def test_default_player_and_bad_player() -> None:
    game = load("scarvus", 3)
    state = game.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node():
        _step(state, rng)
    assert state.information_state_tensor() == state.information_state_tensor(
        state.current_player()
    )
    with pytest.raises(pyspiel.SpielError):
        state.information_state_tensor(3)


@pytest.mark.parametrize(("game_id", "players"), CONFIGS, ids=[f"{g}-{p}p" for g, p in CONFIGS])
def test_legal_actions_and_rewards_equal_openspiel_path(game_id: str, players: int) -> None:
    game = load(game_id, players)
    rng = random.Random(3)
    state = game.new_initial_state()
    for _ in range(400):
        for q in [None, *range(players)]:
            mine = state.legal_actions() if q is None else state.legal_actions(q)
            theirs = (
                pyspiel.State.legal_actions(state)
                if q is None
                else pyspiel.State.legal_actions(state, q)
            )
            assert mine == theirs
        assert state.rewards() == pyspiel.State.rewards(state)
        if state.is_terminal():
            state = game.new_initial_state()
        else:
            _step(state, rng)
    with pytest.raises(pyspiel.SpielError):
        state.legal_actions(-1)
