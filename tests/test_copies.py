"""Copies (`_copy` is where speed work, compiled or not, changes how a state is copied)
leave nothing out and share nothing that play changes: a clone has every attribute of its
original, plays on alike, and playing it leaves the original as it was."""

from __future__ import annotations

import pickle
import random

import pytest

import meeple
from contract import attrs, config_id, configs, snapshot

GAMES = [(g["id"], n) for g in meeple.games() for n in g["players"]]


def played(state, rng: random.Random, most: int):
    """``state`` after up to ``most`` random actions (fewer if the game ends)."""
    for _ in range(most):
        if state.is_over():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_clone_keeps_every_attribute_and_plays_alike(game, players):
    rng = random.Random(7)
    for seed in range(3):
        state = played(meeple.make(game, players=players, seed=seed), rng, rng.randrange(0, 60))
        twin = state.clone()
        assert attrs(twin) >= attrs(state)
        before = [state.view(p) for p in [None, *range(players)]]
        play = random.Random(seed)
        while not twin.is_over():  # the clone to the end; the original must not move
            twin.apply(play.choice(twin.legal_actions()))
        assert [state.view(p) for p in [None, *range(players)]] == before
        play = random.Random(seed)
        while not state.is_over():  # and the original, from the same point, ends the same way
            state.apply(play.choice(state.legal_actions()))
        assert state.history == twin.history and state.scores() == twin.scores()


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_a_clone_and_its_original_log_apart(game, players):
    """`clone` shares the event log until either logs again (`State._log_shared`): whichever
    plays on first, the other's log stays as it was, every seat's and the spectator's."""
    def logs(s):
        return [s.log(p, text=False) for p in [None, *range(players)]]

    rng = random.Random(5)
    for seed in range(3):
        state = played(meeple.make(game, players=players, seed=seed), rng, rng.randrange(0, 40))
        for first in ("original", "clone"):
            twin = state.clone() if first == "original" else state
            mover = state if first == "original" else state.clone()
            still, size = logs(twin), twin.log_size()
            played(mover, rng, 12)
            assert logs(twin) == still and twin.log_size() == size


def test_a_forgotten_attribute_is_caught(monkeypatch):
    """The attribute check can fail: a `_copy` that leaves one out is seen."""
    state = meeple.make("scarvus", players=4, seed=1)
    cls = type(state)
    if hasattr(cls, "__mypyc_attrs__"):
        pytest.skip("a compiled class cannot be patched")
    original = cls._copy

    def careless(self):
        new = original(self)
        del new.__dict__["last_challenge"]
        return new

    monkeypatch.setattr(cls, "_copy", careless)
    assert not attrs(state.clone()) >= attrs(state)


@pytest.mark.parametrize("game", sorted({g for g, _ in GAMES}))
def test_a_copy_keeps_the_class_of_its_original(game):
    """Each game's `_copy` starts from `State._copy_core`, which makes the new state from
    ``type(self)``: a copy of a state of a subclass (an interpreted one, on a compiled build)
    is of that subclass. A subclass that adds attributes copies them in its own `_copy`."""
    info = meeple.game_info(game)
    players = info.player_counts[0]
    base = type(meeple.make(game, players=players, seed=3))

    class Counting(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args):
            super().__init__(*args)
            self.counted = [0]

        def _copy(self):
            new = super()._copy()
            new.counted = self.counted.copy()
            return new

    state = Counting(players, 3, info.resolve_options(players, {}))
    twin, other = state.clone(), state.determinize(0, random.Random(1))
    assert type(twin) is Counting and type(other) is Counting
    assert twin.counted == [0] and twin.counted is not state.counted
    assert twin.history == state.history and twin.history is not state.history
    assert attrs(twin) >= attrs(state)


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_a_state_pickles_mid_game_and_plays_on_alike(game, players):
    """The server's bot workers and vectorized environments ship states to other processes; a
    compiled build pickles differently (mypyc's own __getstate__), so both builds are checked."""
    rng = random.Random(players)
    state = meeple.make(game, players=players, seed=5)
    for _ in range(rng.randrange(5, 40)):
        if state.is_over():
            break
        state.apply(rng.choice(state.legal_actions()))
    twin = pickle.loads(pickle.dumps(state))
    assert type(twin) is type(state) and attrs(twin) == attrs(state)
    assert twin.view(None) == state.view(None) and twin.record() == state.record()
    while not state.is_over():
        action = rng.choice(state.legal_actions())
        state.apply(action)
        twin.apply(action)
        assert twin.view(0) == state.view(0)
    assert twin.scores() == state.scores()


@pytest.mark.parametrize("cfg", list(configs()), ids=config_id)
def test_playing_a_clone_never_touches_its_original(cfg):
    """Every option and count (a rule that only one variant reaches, such as Scarvus' Fight in the
    Skies eliminating a player, changes lists that copies share): at several points of a random
    game, a clone and a determinization played to the end leave every attribute of the original,
    hidden ones included, as it was."""
    game, players, options = cfg
    rng = random.Random(players)
    for seed in (11, 12):
        state = meeple.make(game, players=players, seed=seed, **options)
        while not state.is_over():
            if rng.random() < 0.3:
                before = snapshot(state)
                twin = state.clone()
                while not twin.is_over():
                    twin.apply(rng.choice(twin.legal_actions()))
                world = state.determinize(state.to_move, rng)  # resampling shares lists too
                while not world.is_over():
                    world.apply(rng.choice(world.legal_actions()))
                assert snapshot(state) == before
            state.apply(rng.choice(state.legal_actions()))


def test_scarvus_elimination_leaves_the_original_alone():
    """Fight in the Skies: a player out of Lives loses their revealed cards and Flight cards; on
    a clone, the original's must stay (random play seldom eliminates a player who has revealed a
    card or holds a Flight card)."""
    state = meeple.make("scarvus", players=4, seed=3, lives=3, fancy_flying=True)
    state.revealed = [0b101, 0, 0b10, 0]  # replaced whole, as the rules do
    state.flight_hand = [[1] + [0] * (len(h) - 1) for h in state.flight_hand]
    before = snapshot(state)
    twin = state.clone()
    twin._eliminate(0)
    twin._eliminate(2)
    assert twin.revealed[0] == twin.revealed[2] == 0 and not twin.alive[0]
    assert not any(twin.flight_hand[0]) and any(twin.flight_hand[1])
    assert snapshot(state) == before
