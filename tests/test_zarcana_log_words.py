"""Zarcana's log as a player reads it: one sentence per thing that happened, and a pyramid being
turned named by where it stands (Playing, option 4: reorient each of your pyramids)."""

from __future__ import annotations

import random

import pytest

import meeple
from meeple.games.zarcana.rules import DECLARE, REORIENT


def _game_with(seed: int, want: int, players: int = 2):
    """A random game that takes action ``want`` at least once, played to the end."""
    for s in range(seed, seed + 200):
        state = meeple.make("zarcana", players=players, seed=s)
        rng = random.Random(s)
        took = False
        while not state.is_over():
            legal = state.legal_actions()
            a = want if want in legal and rng.random() < 0.5 else rng.choice(legal)
            took = took or a == want
            state.apply(a)
        if took:
            return state
    raise AssertionError("no game took the action")


@pytest.mark.parametrize("reader", [None, 0, 1])
def test_declaring_the_final_round_is_said_once(reader):
    state = _game_with(1, DECLARE)
    lines = [e["text"] for e in state.log(reader)]
    declares = [t for t in lines if "declare" in t and "final round" in t]
    assert len(declares) == 1, declares
    assert any("one more turn" in t for t in lines)


@pytest.mark.parametrize("reader", [None, 0, 1])
def test_each_pyramid_turned_is_named_by_where_it_stands(reader):
    state = _game_with(7, REORIENT)
    turned = [e["text"] for e in state.log(reader)
              if e["type"] == "act" and "orient" in e["action"]]
    assert turned
    for t in turned:
        assert " pyramid on " in t, t  # "... your large pyramid on the Bloom card south."
