"""Sampled worlds as JSON (meeple.core.worlds): what the Bot API sends a remote bot that needs a
State. Every game: a world read back offers the same choices and views and plays on alike; a
world keeps the seat's view but not the real game's seed, history or the others' hands."""

from __future__ import annotations

import json
import random

import pytest

import meeple
from meeple.core.worlds import WorldError, dump_world, read_state, write_state

GAMES = [g["id"] for g in meeple.games()]


def fresh_of(st):
    return lambda seed: meeple.make(st.game_id, st.players, seed, **st.options)


def midgame(game: str, players: int, seed: int, steps: int):
    st = meeple.make(game, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if st.is_over():
            break
        st.apply(rng.choice(st.legal_actions()))
    return st


def wire(data):
    return json.loads(json.dumps(data))  # what crosses the network: plain JSON


@pytest.mark.parametrize("game", GAMES)
def test_a_state_written_and_read_back_plays_on_alike(game):
    info = meeple.game_info(game)
    for players in (min(info.player_counts), max(info.player_counts)):
        for steps in (0, 9, 40):
            st = midgame(game, players, seed=steps + players, steps=steps)
            if st.is_over():
                continue
            world = st.determinize(st.to_move, random.Random(1))
            back = read_state(wire(write_state(world, fresh_of(st))), fresh_of(st))
            rng = random.Random(2)
            for _ in range(150):
                assert back.legal_actions() == world.legal_actions()
                assert back.to_move == world.to_move
                if world.is_over():
                    break
                assert back.view(world.to_move) == world.view(world.to_move)
                a = rng.choice(world.legal_actions())
                world.apply(a)
                back.apply(a)
            assert back.scores() == world.scores()


@pytest.mark.parametrize("game", GAMES)
def test_a_sampled_world_keeps_the_seats_view_and_drops_seed_and_history(game):
    st = midgame(game, min(meeple.game_info(game).player_counts), seed=5, steps=12)
    assert not st.is_over()
    seat = st.to_move
    data = wire(dump_world(st, seat, random.Random(3), fresh_of(st)))
    assert data["seed"] != st.seed and data["attrs"]["history"] == [0] * len(st.history)
    world = read_state(data, fresh_of(st))
    assert world.view(seat) == st.view(seat)
    assert world.legal_actions() == st.legal_actions()
    rng = random.Random(4)
    while not world.is_over():  # a local bot can play it to the end
        world.apply(rng.choice(world.legal_actions()))


def test_worlds_do_not_carry_the_other_hands():
    """Trickarus: the others' hands in the worlds sent to seat 0 vary from sample to sample,
    and are not the real ones (determinize resamples them; the seed that deals them is not sent)."""
    st = midgame("trickarus", 3, seed=11, steps=0)
    seat = st.to_move
    others = [p for p in range(st.players) if p != seat]
    seen = set()
    for i in range(12):
        w = read_state(
            wire(dump_world(st, seat, random.Random(100 + i), fresh_of(st))), fresh_of(st)
        )
        assert w.hands[seat] == st.hands[seat]
        seen.add(tuple(w.hands[p] for p in others))
    assert len(seen) > 6
    assert tuple(st.hands[p] for p in others) not in seen


def test_a_world_names_only_classes_of_its_own_game():
    st = meeple.make("karvi", 2, seed=1)
    data = wire(write_state(st, fresh_of(st)))
    data["attrs"]["p"] = [{"$o": "subprocess:Popen", "a": {}}]
    with pytest.raises(WorldError):
        read_state(data, fresh_of(st))
    data["attrs"]["p"] = [{"$o": "meeple.games.trickarus.rules:TrickarusState", "a": {}}]
    with pytest.raises(WorldError):
        read_state(data, fresh_of(st))
