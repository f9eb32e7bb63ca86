"""Copies (issue 15: `_copy` is where speed work, compiled or not, changes how a state is copied)
leave nothing out and share nothing that play changes: a clone has every attribute of its
original, plays on alike, and playing it leaves the original as it was."""

from __future__ import annotations

import random

import pytest

import meeple

GAMES = [(g["id"], n) for g in meeple.games() for n in g["players"]]


def attrs(state) -> set[str]:
    """The attributes a state holds (a mypyc-compiled class lists them in ``__mypyc_attrs__``)."""
    names = set(getattr(state, "__dict__", {}))
    for name in getattr(type(state), "__mypyc_attrs__", ()):
        if name != "__dict__" and hasattr(state, name):
            names.add(name)
    return names


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_clone_keeps_every_attribute_and_plays_alike(game, players):
    rng = random.Random(7)
    for seed in range(3):
        state = meeple.make(game, players=players, seed=seed)
        for _ in range(rng.randrange(0, 60)):
            if state.is_over():
                break
            state.apply(rng.choice(state.legal_actions()))
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


def test_the_compiled_cores_copier_assigns_every_recorded_attribute():
    """`State._shallow` on a compiled build copies by a function generated from mypyc's attribute
    list. Checked on a stand-in class with that list, so it runs without a compiler: every slot
    copied, and the ``__dict__`` entry (mypyc lists it for classes that allow interpreted
    subclasses) copied only where instances have one."""
    from meeple.core.game import _native_copier

    class Native:
        __slots__ = ("a", "b")
        __mypyc_attrs__ = ("a", "b", "__dict__")

    class Interpreted:
        __mypyc_attrs__ = ("a", "__dict__")

    x = Native()
    x.a, x.b = [1], 2
    y = _native_copier(Native, own_dict=False)(x)
    assert (y.a, y.b) == ([1], 2) and y.a is x.a  # shallow: `_copy` copies what play changes
    z = Interpreted()
    z.a, z.extra = 1, [3]
    w = _native_copier(Interpreted, own_dict=True)(z)
    assert (w.a, w.extra) == (1, [3]) and w.__dict__ is not z.__dict__
