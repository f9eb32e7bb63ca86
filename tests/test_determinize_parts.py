"""Determinization resamples every hidden part, in every game.

The contract tests check that `determinize(p)` keeps p's view and depends on p's information
only; a part left as it is (or dealt in a fixed order: sorted, say) passes those, yet lets search
see it. Here each game names its hidden parts, and over random games of every player count and
option variant each part must come out differently under different seeds somewhere (it *varies*),
while the determinizing player's view stays the same.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

import meeple
from contract import configs

Part = Callable[[Any, int], Any]  # (state, player) -> the part, or None where it is not hidden


def _others(s: Any, p: int) -> list[int]:
    return [q for q in range(s.players) if q != p]


def _karvi_known(s: Any, p: int, known: dict[int, int], stacks: dict[int, tuple[int, ...]]) -> Any:
    return {str(n): st for n, st in stacks.items() if not known[n] >> p & 1 and st} or None


PARTS: dict[str, dict[str, Part]] = {
    "trickarus": {
        "others' hands": lambda s, p: [s.hands[q] for q in _others(s, p)],
        "undealt cards": lambda s, p: s.undealt or None,
    },
    "savage_bowl": {
        "others' hands": lambda s, p: [s.hands[q] for q in _others(s, p)],
        "others' face-down discards": lambda s, p: [s.discards[q] for q in _others(s, p)],
        "the score sheet's hidden discards": lambda s, p: [e for e in s.sheet if e[1] != p] or None,
    },
    "scarvus": {
        "others' unseen cards": lambda s, p: [s.hand[i] for c in range(len(s.decks))
                                              for i in s.hidden_places(p, c)] or None,
        "the Daedalus cards": lambda s, p: s.daedalus,
        "the decks": lambda s, p: s.decks,
        "the buried discards": lambda s, p: [d[:-1] for d in s.discards] if s.daedalus_mode else None,
        "others' Flight cards": lambda s, p: [s.flight_hand[q] for q in _others(s, p)] if s.fancy else None,
        "the Flight deck": lambda s, p: s.flight_deck if s.fancy else None,
        "another's scouted card": lambda s, p: s.pending
        if s.pending_colour is not None and s.pending_colour >= 0 and s.to_move != p else None,
    },
    "zarcana": {
        "others' hands": lambda s, p: [s.hands[q] for q in _others(s, p)],
        "the deck": lambda s, p: s.deck or None,
    },
    "karvi": {
        "others' upgrade cards": lambda s, p: [s.tableaus[q].hand for q in _others(s, p)],
        "the upgrade decks": lambda s, p: s.decks,
        "the trade deck": lambda s, p: s.trade_deck,
        "the face-down stop-area tiles": lambda s, p: s.stop_stack[1:] if len(s.stop_stack) > 2 else None,
        # (Others' face-down upgrade tiles are not hidden in this edition: each tile's back, its
        # slot and requirement stripe, is unique, so resampling within a back keeps them.)
        "others' face-down rune stones": lambda s, p: [s.tableaus[q].hidden_runes for q in _others(s, p)],
        "unscouted location stacks": lambda s, p: _karvi_known(s, p, s.stack_known, s.stacks),
        "unseen special rune stones": lambda s, p: _karvi_known(s, p, s.special_known, s.special_stacks),
        "Less-luck piles held by others": lambda s, p: {
            k: v for k, v in s.piles.items() if s.pile_holder.get(k) != p and v} or None,
    },
}
SEEDS = 6
ROUNDS = 4  # games per config at most: a rare part (Scarvus' scouted card) needs a few
EVERY = 9  # steps between checks: enough states of each kind, a few seconds a game


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


@pytest.mark.parametrize("game", sorted(PARTS))
def test_every_hidden_part_is_resampled(game: str) -> None:
    parts = PARTS[game]
    varied = {name: False for name in parts}
    varied["future draws (the salt)"] = False
    games = [(players, options, seed) for seed in range(7, 7 + ROUNDS) for _, players, options in configs(game)]
    for players, options, seed in games:
        state = meeple.make(game, players=players, seed=seed, **options)
        rng = random.Random(seed)
        step = 0
        while not state.is_over() and not all(varied.values()):
            mover = state.to_move if state.to_move is not None else 0
            seats = {mover, (mover + 1) % players}
            rare = any(not varied[n] and part(state, p) is not None for n, part in parts.items() for p in seats)
            if step % EVERY == 0 or rare:
                for p in seats:
                    mine = state.view(p)
                    worlds = [state.determinize(p, random.Random(s)) for s in range(SEEDS)]
                    assert all(w.view(p) == mine for w in worlds), f"determinize({p}) changed the view"
                    varied["future draws (the salt)"] |= len({w.salt for w in worlds}) > 1
                    for name, part in parts.items():
                        if not varied[name] and part(state, p) is not None:
                            varied[name] = len({_key(part(w, p)) for w in worlds}) > 1
            state.apply(rng.choice(state.legal_actions()))
            step += 1
        if all(varied.values()):
            break
    assert all(varied.values()), f"never resampled: {[n for n, v in varied.items() if not v]}"


def test_karvi_pair_drawn_to_keep_one_is_hidden_from_the_others() -> None:
    """Karvi, Variants, "You always lose, because you are just unlucky?": "draw 2 and choose 1 to
    keep. Return the other to the stack" (ruling 17): the two cards drawn are the drawer's alone.
    While the drawer chooses, a world determinized for another player must resample that pair
    like the rest of the drawer's hand (one kept as it is would show search the true cards); the
    drawer's own worlds keep it, and every world can settle the choice."""
    checked = 0
    for players in (2, 3, 4):
        for seed in range(3):
            state = meeple.make("karvi", players=players, seed=seed, draw_two=True)
            rng = random.Random(seed)
            for _ in range(150):
                if state.is_over():
                    break
                if state.tasks and state.tasks[-1][0] == "keep":
                    q = state.to_move
                    pair = state.tableaus[q].hand[-2:]
                    own = [state.determinize(q, random.Random(k)) for k in range(SEEDS)]
                    assert all(w.tableaus[q].hand[-2:] == pair for w in own), "the drawer's pair changed"
                    for p in _others(state, q):
                        mine = state.view(p)
                        worlds = [state.determinize(p, random.Random(k)) for k in range(SEEDS)]
                        assert all(w.view(p) == mine for w in worlds), f"determinize({p}) changed the view"
                        pairs = {w.tableaus[q].hand[-2:] for w in worlds}
                        assert len(pairs) > 1, f"player {p}'s worlds keep player {q}'s true pair"
                        for w in worlds:
                            w.apply(w.legal_actions()[0])  # the world's own pair can be settled
                    checked += 1
                state.apply(rng.choice(state.legal_actions()))
    assert checked >= 9
