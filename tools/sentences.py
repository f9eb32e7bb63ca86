"""Stored sentences: every log line and choice label a few fixed games produce, per game.

A changed sentence is a visible change for players (and for anyone reading a replay), yet a test
that only checks a sentence exists and shows no identifier (`tests/test_log_text.py`) cannot
notice one saying the wrong thing. This file pins them down: for each game, seeded random games
over every player count and the options that log events of their own; at each decision the label
of every legal action, and at the end every seat's and the spectator's log (Karvi adds the words
of every component in its data files, which fixed games cannot all meet). It stores the
distinct lines (readable in a diff) and a digest of the whole sequence (which line came where).
`tests/test_sentences.py` replays them.

    python tools/sentences.py write [GAME ...]   # (re)write tests/data/sentences/<game>.json
    python tools/sentences.py check [GAME ...]   # compare, as the test does

Rewrite a game's file only for a change that is meant to change its words, and review the diff.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src")]

import meeple  # noqa: E402

STORE = ROOT / "tests" / "data" / "sentences"
GAMES_PER_COUNT = 2
VARIANTS: dict[str, list[dict[str, Any]]] = {
    "trickarus": [{"mode": "cooperative"}, {"lightning_variant": True}],
    "savage_bowl": [{"chameleons": False}],
    "scarvus": [{"fancy_flying": True, "talons": True}, {"daedalus": True, "lives": 3}],
    "zarcana": [{"unreducible": "unharmed", "harvest_own": True, "tiebreak": True}],
    "karvi": [{"draw_two": True, "draft_start": True}, {"less_luck": True, "variety": True, "chaos": True}],
}


def catalogue(game: str) -> list[str]:
    """Words for components no fixed game may meet (Karvi: every card, tile, spot and step in its
    data files, each in words as the log and labels say it); empty for the other games."""
    if game != "karvi":
        return []
    from meeple.games.karvi import components as C
    from meeple.games.karvi import words as W

    out = [W.card_words(c) for c in range(len(C.UPGRADE_CARDS))]
    out += [W.trade_card_words(x) for x in range(len(C.TRADE_CARDS))]
    out += [W.tr_tile_words(x) for x in range(len(C.TR_TILES))]
    out += [W.placeable_words(x) for x in range(C.NUM_PLACEABLE)]
    out += [W.special_words(x) for x in range(len(C.SPECIALS))]
    out += [W.warrior_words(c) for c in range(12)]

    def steps_in(obj: Any) -> None:
        if isinstance(obj, dict):
            if "parts" in obj:
                out.extend([W.spot_words(obj), W.spot_name(obj)])
            for key, value in obj.items():
                if key in ("boxes", "parts"):
                    out.extend(W.steps_words(b) for b in value)
                elif key in ("bonus", "do") and isinstance(value, list):
                    out.append(W.steps_words(value))
                else:
                    steps_in(value)
        elif isinstance(obj, list):
            for x in obj:
                steps_in(x)

    for _, record in C.with_provenance():
        steps_in(record)
    for tile in C.UPGRADE_TILES:
        steps_in(tile)
    return out


def runs(game: str) -> list[tuple[int, int, dict[str, Any]]]:
    """(players, seed, options) of the games stored for ``game``."""
    counts = meeple.game_info(game).player_counts
    out = [(n, 500 + k, {}) for n in counts for k in range(GAMES_PER_COUNT)]
    out += [(n, 600, opts) for n in counts for opts in VARIANTS.get(game, [])]
    return out


def sentences(game: str) -> dict[str, Any]:
    """The distinct lines of ``game``'s stored runs and a digest of all of them in order."""
    digest = hashlib.sha256()
    lines: set[str] = set()
    played = 0
    for players, seed, options in runs(game):
        try:
            state = meeple.make(game, players=players, seed=seed, **options)
        except (meeple.BadPlayerCount, meeple.BadOption):
            continue  # an option this player count does not take
        played += 1
        rng = random.Random(seed)
        seq: list[str] = []
        while not state.is_over():
            legal = state.legal_actions()
            seq += [state.describe(a) for a in legal]
            state.apply(rng.choice(legal))
        for viewer in [None, *range(players)]:
            seq += [e["text"] for e in state.log(viewer)]
        lines.update(seq)
        digest.update("\n".join(seq).encode())
    words = catalogue(game)
    lines.update(words)
    digest.update("\n".join(words).encode())
    return {"game": game, "games": played, "digest": digest.hexdigest(), "lines": sorted(lines)}


def check(game: str) -> list[str]:
    """What differs between ``game``'s stored sentences and today's (empty if nothing)."""
    want = json.loads((STORE / f"{game}.json").read_text())
    got = sentences(game)
    if got["digest"] == want["digest"]:
        return []
    gone = sorted(set(want["lines"]) - set(got["lines"]))
    new = sorted(set(got["lines"]) - set(want["lines"]))
    out = [f"{game}: sentences changed ({len(gone)} no longer said, {len(new)} new)"]
    out += [f"  - {line}" for line in gone[:10]] + [f"  + {line}" for line in new[:10]]
    if not gone and not new:
        out.append("  the same lines, said at other moments (or as often as before, in another order)")
    return out


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("write", "check"):
        sys.exit(__doc__)
    games = argv[1:] or [g["id"] for g in meeple.games()]
    if argv[0] == "write":
        STORE.mkdir(parents=True, exist_ok=True)
        for game in games:
            data = sentences(game)
            path = STORE / f"{game}.json"
            path.write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n")
            print(f"{game}: {len(data['lines'])} lines from {data['games']} games -> {path.relative_to(ROOT)}")
        return 0
    failures = [line for game in games for line in check(game)]
    print("\n".join(failures) or "sentences: every game says the same")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
