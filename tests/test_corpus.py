"""The stored corpus (tools/corpus.py) replays identically: speed work changes no game."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import meeple

_spec = importlib.util.spec_from_file_location(
    "corpus", Path(__file__).resolve().parent.parent / "tools" / "corpus.py")
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

GAMES = [g["id"] for g in meeple.games()]


@pytest.mark.parametrize("game", GAMES)
def test_corpus_replays_identically(game):
    data = corpus.CORPUS / f"{game}.json"
    assert data.exists(), "run: python tools/corpus.py write"
    assert corpus.check(game) == []


def test_corpus_covers_every_player_count_and_option_variant():
    for game in GAMES:
        wanted = {(p, repr(sorted(o.items()))) for p, o, _ in corpus.games_for(game)}
        stored = json.loads((corpus.CORPUS / f"{game}.json").read_text())["games"]
        assert len(stored) >= corpus.PER_GAME
        assert wanted == {(e["players"], repr(sorted(e["options"].items()))) for e in stored}


def test_a_changed_view_is_caught(monkeypatch):
    """The digest sees views: a game whose spectator view changes fails the corpus."""
    state_cls = type(meeple.make("trickarus", players=3, seed=1))
    original = state_cls.view

    def view(self, player):
        v = original(self, player)
        if player is None:
            v["extra"] = 1
        return v

    monkeypatch.setattr(state_cls, "view", view)
    bad = corpus.check("trickarus")
    assert bad and all(line.endswith(": views changed") for line in bad)


def test_a_changed_rule_is_caught(monkeypatch):
    """The digest sees the game: scores that change fail as "game changed"."""
    state_cls = type(meeple.make("trickarus", players=3, seed=1))
    original = state_cls.scores
    monkeypatch.setattr(state_cls, "scores", lambda self: [s + 1 for s in original(self)])
    bad = corpus.check("trickarus")
    assert bad and all(": game" in line for line in bad)  # (views show scores too)
