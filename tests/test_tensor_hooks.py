"""The games' own observation tensors (Karvi, Savage Bowl, Scarvus, Trickarus, Zarcana): the interop hooks of docs/interop.md.

A hook reads the state's fields directly instead of `view(player)`, so these tests hold it to
the view's information, both ways: nothing the player cannot know (a world determinized for
them gives the same tensor; another player's secret changing leaves it alone), and what they
do know (their own secret changing, or any change of their view along a game, changes it).
"""

from __future__ import annotations

import json
import random

import pytest

import meeple

np = pytest.importorskip("numpy")

from meeple.games.karvi import tensor as karvi  # noqa: E402
from meeple.games.savage_bowl import tensor as savage_bowl  # noqa: E402
from meeple.games.scarvus import tensor as scarvus  # noqa: E402
from meeple.games.trickarus import tensor as trickarus  # noqa: E402
from meeple.games.zarcana import tensor as zarcana  # noqa: E402
from meeple.interop.tensor import encoding  # noqa: E402

HOOKS = {
    "karvi": karvi,
    "savage_bowl": savage_bowl,
    "scarvus": scarvus,
    "trickarus": trickarus,
    "zarcana": zarcana,
}
CONFIGS = [(g, p) for g in HOOKS for p in (2, 3, 4) if g not in ("scarvus", "savage_bowl")] + [
    ("savage_bowl", 4),
    ("savage_bowl", 5),
    ("trickarus", 5),
    ("scarvus", 3),
    ("scarvus", 4),
    ("scarvus", 7),
]
IDS = [f"{g}-{p}p" for g, p in CONFIGS]


def _states(
    game: str, players: int, seed: int, every: int = 7, limit: int = 400
) -> list[meeple.State]:
    """Snapshots of one random game (the last one over if the game ended)."""
    state = meeple.make(game, players=players, seed=seed)
    rng = random.Random(seed)
    out = []
    for i in range(limit):
        if state.to_move is None:
            break
        if i % every == 0:
            out.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
    out.append(state)
    return out


def _tensor(state: meeple.State, player: int | None) -> np.ndarray:
    return np.asarray(HOOKS[_game(state)].observation_tensor(state, player))


def _game(state: meeple.State) -> str:
    return type(state).__module__.split(".")[2]


def _public(view: dict) -> str:
    """The view without `legal` (the action mask's business, not the tensor's)."""
    return json.dumps({k: v for k, v in view.items() if k != "legal"}, sort_keys=True)


@pytest.mark.parametrize(("game", "players"), CONFIGS, ids=IDS)
def test_both_adapters_use_the_hook_and_its_shape(game: str, players: int) -> None:
    enc = encoding(game, players)
    assert enc.source == "game"
    shape = HOOKS[game].observation_tensor_shape(players, {})
    for state in _states(game, players, seed=1, every=25):
        for p in [None, *range(players)]:
            t = _tensor(state, p)
            assert t.dtype == np.float32 and t.shape == shape
            assert t.min() >= 0.0 and t.max() <= 1.0  # inside the Box(-1, 1) space


@pytest.mark.parametrize(("game", "players"), CONFIGS, ids=IDS)
def test_tensor_is_unchanged_by_determinizing_for_the_player(game: str, players: int) -> None:
    """Information: everything a determinized world resamples is hidden from the player."""
    resampled = 0
    for seed in (2, 3):
        for state in _states(game, players, seed):
            for p in range(players):
                world = state.determinize(p, random.Random(seed * 31 + p))
                assert np.array_equal(_tensor(world, p), _tensor(state, p))
                resampled += world.view(None) == state.view(None) and _secrets(world) != _secrets(
                    state
                )
    assert resampled > 0  # the worlds did differ in hidden details


def _secrets(state: meeple.State) -> str:
    if _game(state) == "karvi":
        return repr(
            [(pl.hand, pl.hidden_ut, pl.hidden_runes) for pl in state.tableaus]
            + [state.decks, state.trade_deck]
        )
    if _game(state) == "trickarus":
        return repr([state.hands, state.undealt])
    if _game(state) == "scarvus":
        return repr([state.hand, state.decks, state.daedalus])
    if _game(state) == "savage_bowl":
        return repr([state.hands, state.discards, state.sheet])
    return repr([state.hands, state.deck])


def _swap_own_secret(state: meeple.State, p: int) -> bool:
    """Swap a card of p's hand with a hidden card others cannot tell from it (same back)."""
    if _game(state) == "karvi":
        hand = state.tableaus[p].hand
        for i, c in enumerate(hand):
            back = karvi._CARD_BACK[c]
            for dk in state.decks:
                for j, d in enumerate(dk):
                    if karvi._CARD_BACK[d] == back:  # the rules' tuples are replaced
                        state.tableaus[p].hand = (*hand[:i], d, *hand[i + 1 :])
                        k = state.decks.index(dk)
                        new = (*dk[:j], c, *dk[j + 1 :])
                        state.decks = (*state.decks[:k], new, *state.decks[k + 1 :])
                        return True
        return False
    if _game(state) == "scarvus":  # a card nobody else has seen, with its colour's deck top
        n, nc = state.players, len(state.decks)
        for c in range(nc):
            mine = state.hand[p * nc + c]
            seen = state.revealed[p] >> c & 1 or any(k >> (p * nc + c) & 1 for k in state.peeks)
            deck = state.decks[c]
            if mine >= 0 and not seen and deck and deck[-1] != mine and state.alive[p] and n:
                state.hand[p * nc + c], deck[-1] = deck[-1], mine
                return True
        return False
    if _game(state) == "savage_bowl":  # a card won face down: nobody's view shows those
        hand = state.hands[p]
        for q in range(state.players):
            won = state.won_cards[q]
            if hand and won:
                mine, other = hand & -hand, won & -won
                state.hands[p] = hand ^ mine ^ other
                state.won_cards[q] = won ^ other ^ mine
                return True
        return False
    if _game(state) == "trickarus":  # an undealt card (2 players): nobody else sees either
        hand, undealt = state.hands[p], state.undealt
        if not hand or not undealt:
            return False
        mine, other = hand & -hand, undealt & -undealt
        state.hands[p] = hand ^ mine ^ other
        state.undealt = undealt ^ other ^ mine
        return True
    hand = state.hands[p]
    if not hand or not state.deck:
        return False
    hand[0], state.deck[-1] = state.deck[-1], hand[0]
    state.tag[hand[0]] = state.tag[state.deck[-1]]
    return True


@pytest.mark.parametrize(("game", "players"), CONFIGS, ids=IDS)
def test_own_secret_changes_own_tensor_only(game: str, players: int) -> None:
    """A player's hand is theirs alone: changing it changes their tensor, nobody else's."""
    if game == "trickarus" and players > 2:
        pytest.skip("every card is in some hand: a swap changes another player's view too")
    swapped = 0
    for state in _states(game, players, seed=4, every=11):
        for p in range(players):
            other = state.clone()
            if not _swap_own_secret(other, p):
                continue
            swapped += 1
            assert other.view(p) != state.view(p)
            assert not np.array_equal(_tensor(other, p), _tensor(state, p))
            for q in [None, *range(players)]:
                if q != p:
                    assert other.view(q) == state.view(q)
                    assert np.array_equal(_tensor(other, q), _tensor(state, q))
    assert swapped > 0


@pytest.mark.parametrize(("game", "players"), CONFIGS, ids=IDS)
def test_tensor_changes_whenever_the_view_does(game: str, players: int) -> None:
    """Completeness along a game: each step that changes a player's view changes their tensor."""
    state = meeple.make(game, players=players, seed=5)
    rng = random.Random(5)
    before = [(_public(state.view(p)), _tensor(state, p)) for p in range(players)]
    for _ in range(300):
        if state.to_move is None:
            break
        state.apply(rng.choice(state.legal_actions()))
        after = [(_public(state.view(p)), _tensor(state, p)) for p in range(players)]
        for p in range(players):
            if before[p][0] != after[p][0]:
                assert not np.array_equal(before[p][1], after[p][1]), (p, state.history[-1])
        before = after


def test_zarcana_scores_match_the_engine() -> None:
    """Scoring (sole occupancy of top cards): the tensor's own count agrees with State.scores."""
    lay = zarcana._layout(3)
    for state in _states("zarcana", 3, seed=6, every=5):
        t = _tensor(state, 1)
        scores = state.scores()
        for p in range(3):
            assert t[lay["scores"] + (p - 1) % 3] == pytest.approx(min(1.0, scores[p] / 60))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_karvi_caches_give_what_a_fresh_encoder_gives(players: int) -> None:
    """Karvi caches rows, the map and the supply by everything they are computed from (and a
    row seen by its owner stands in, less the owner's secrets, for the row others see): along a
    game, every observer's tensor equals the one computed with empty caches."""
    from meeple.games.karvi import tensor as kt

    caches = [kt._ROWS, kt._MAPS, kt._SUPPLY]
    state = meeple.make("karvi", players=players, seed=11, draw_two=True)
    rng = random.Random(11)
    for step in range(400):
        if state.to_move is None:
            break
        for p in [state.to_move, None, *range(players)]:
            warm = _tensor(state, p)
            if step % 3 == 0:
                for c in caches:
                    c.clear()
                kt._TAILS[:] = [None, -1, None, None]  # the position's row keys and seen rows
                np.testing.assert_array_equal(warm, _tensor(state, p))
        state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize(
    ("game", "players"), [("savage_bowl", 5), ("scarvus", 5), ("trickarus", 4), ("zarcana", 3)]
)
def test_position_caches_give_what_a_fresh_encoding_gives(game: str, players: int) -> None:
    """Savage Bowl, Scarvus, Trickarus and Zarcana compute the part every observer shares once
    per position (keyed by the state object and its history length; Zarcana also caches its
    board and pyramids by their fields): asked in any order, across a state and its clone
    moving apart, each tensor equals the one computed with the caches emptied."""
    module = HOOKS[game]
    rng = random.Random(12)
    a = meeple.make(game, players=players, seed=12)
    b = a.clone()
    for _ in range(200):
        for state in (a, b):
            if state.to_move is None:
                continue
            for p in [state.to_move, None, *range(players)]:
                warm = module.observation_tensor(state, p)
                module._SHARED.clear()
                for name in ("_BOARDS", "_PIECES"):  # Zarcana's caches of slow-changing parts
                    getattr(module, name, {}).clear()
                assert np.array_equal(warm, module.observation_tensor(state, p))
            state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("players", [4, 5])
def test_savage_bowl_tensor_is_a_function_of_the_view_and_tells_views_apart(players: int) -> None:
    """Exactly as informative as the view: over many positions of whole games (every round,
    the end included) and every observer, equal views give equal tensors and different views
    different tensors. What the hook leaves out follows from what it keeps (module docstring)."""
    by_view: dict[str, bytes] = {}
    by_tensor: dict[bytes, str] = {}
    for seed in range(6):
        for state in _states("savage_bowl", players, seed, every=3, limit=2000):
            for p in [None, *range(players)]:
                v, t = _public(state.view(p)), _tensor(state, p).tobytes()
                assert by_view.setdefault(v, t) == t
                assert by_tensor.setdefault(t, v) == v
    assert len(by_view) > 1000


def test_zarcana_chain_fits_its_room() -> None:
    """The tensor keeps a chain's decisions in order, in room for `CHAIN_ROOM` (a chain is at
    most 4 decisions and runs at its last): along random games of every count, what is on view
    fits, and chains of 2 and 3 decisions do occur."""
    longest = 0
    for players in (2, 3, 4):
        for seed in range(8):
            for state in _states("zarcana", players, seed, every=1, limit=3000):
                assert len(state.chosen) < zarcana.CHAIN_ROOM
                longest = max(longest, len(state.chosen))
    assert longest >= 2
