"""Every game says what it said: the stored log lines and choice labels of fixed games
(`tools/sentences.py`). A changed sentence fails here; if the change is meant, rewrite the game's
file with ``python tools/sentences.py write <game>`` and review the diff."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import meeple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import sentences  # noqa: E402


@pytest.mark.parametrize("game", sorted(g["id"] for g in meeple.games()))
def test_sentences_are_unchanged(game: str) -> None:
    problems = sentences.check(game)
    assert not problems, "\n".join(problems)


def test_a_changed_sentence_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    from meeple.games.karvi import rules

    monkeypatch.setattr(rules.KarviState, "describe", lambda self, a: "do something")
    problems = sentences.check("karvi")
    assert problems and "do something" in "\n".join(problems)
