"""A stored corpus of random games that pins down what every game does, for speed work.

Optimising a game's rules (cheaper copies, incremental legal moves, compiled modules) must not
change the game. The corpus holds, per game, at least 50 random games over every player count and
option variant (`tests/contract.py`'s `configs()`): the actions played, and a digest of what they
produced: the legal actions before each one, every seat's and the spectator's view every few
steps and at the end, the record, scores and ranking. `tests/test_corpus.py` replays it.

    python tools/corpus.py write [GAME ...]  # (re)write tests/data/corpus/<game>.json
    python tools/corpus.py check      # replay and compare, as the test does

Rewrite it only for a change that is meant to change a game (a rules fix) or its views (a field
a renderer needs), and say which in the commit: a speed change must pass against the old corpus.
The check names what changed: "game" (legal moves, record, scores) or "views".
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

import meeple  # noqa: E402
from contract import configs  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "corpus"
PER_GAME = 50  # at least this many games per game
VIEW_EVERY = 7  # views are digested every this many steps (and at the end): keeps the check fast


def games_for(game: str) -> list[tuple[int, dict[str, Any], int]]:
    """(players, options, seed) for ``game``: every config at least once, at least PER_GAME."""
    cfgs = [(p, o) for g, p, o in configs(game)]
    out = []
    i = 0
    while len(out) < max(PER_GAME, len(cfgs)):
        players, options = cfgs[i % len(cfgs)]
        out.append((players, options, 1000 + i))
        i += 1
    return out


def play(game: str, players: int, options: dict[str, Any], seed: int,
         actions: list[int] | None = None) -> tuple[list[int], str, str]:
    """Play (randomly, or the given ``actions``); return the actions and two digests: the game's
    (legal moves, record, scores) and the views'. A view can gain a field for a renderer without
    the game changing, so the two are told apart."""
    state = meeple.make(game, players=players, seed=seed, **options)
    rng = random.Random(seed)
    game_digest, view_digest = hashlib.sha256(), hashlib.sha256()

    def add(digest: Any, obj: Any) -> None:
        digest.update(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode())

    def views() -> None:
        for seat in [*range(players), None]:
            add(view_digest, state.view(seat))

    played: list[int] = []
    step = 0
    while not state.is_over():
        legal = state.legal_actions()
        add(game_digest, legal)
        if step % VIEW_EVERY == 0:
            views()
        action = actions[step] if actions is not None else rng.choice(legal)
        state.apply(action)
        played.append(action)
        step += 1
    views()
    add(game_digest, state.record())
    add(game_digest, [state.scores(), state.ranking()])
    return played, game_digest.hexdigest(), view_digest.hexdigest()


def write(only: list[str] | None = None) -> None:
    CORPUS.mkdir(parents=True, exist_ok=True)
    for info in meeple.games():
        game = info["id"]
        if only and game not in only:
            continue
        entries = []
        for players, options, seed in games_for(game):
            actions, digest, views = play(game, players, options, seed)
            entries.append({"players": players, "options": options, "seed": seed,
                            "actions": actions, "digest": digest, "views": views})
        path = CORPUS / f"{game}.json"
        path.write_text(json.dumps({"game": game, "games": entries}, separators=(",", ":")) + "\n")
        print(f"{game}: {len(entries)} games -> {path.relative_to(ROOT)}")


def check(game: str) -> list[str]:
    """Replay ``game``'s corpus; return a line per game that came out different."""
    data = json.loads((CORPUS / f"{game}.json").read_text())
    bad = []
    for e in data["games"]:
        _, digest, views = play(game, e["players"], e["options"], e["seed"], e["actions"])
        what = [name for name, got, want in (("game", digest, e["digest"]),
                                             ("views", views, e["views"])) if got != want]
        if what:
            bad.append(f"{game} {e['players']}p seed {e['seed']} options {e['options']}: "
                       f"{' and '.join(what)} changed")
    return bad


if __name__ == "__main__":
    if sys.argv[1:2] == ["write"]:
        write(sys.argv[2:])
    elif sys.argv[1:] == ["check"]:
        failures = [line for g in meeple.games() for line in check(g["id"])]
        print("\n".join(failures) or "corpus: every game replays identically")
        sys.exit(1 if failures else 0)
    else:
        sys.exit(__doc__)
