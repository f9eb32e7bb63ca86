"""Undo within a turn: what the engine lets a player take back.

`State.undo_start()` names the first step of the span the player to move may take back. The
checks here hold for every game: the span is the mover's own steps, taking steps back gives
exactly the state that stood before them (a fresh replay), and nothing in the span brought
anything to light that the mover did not already know. That last one is tested by playing the
span again in worlds where everything the mover could not know is resampled (future draws
included): their view must come out the same, whatever the world.
"""

from __future__ import annotations

import random

import pytest

import meeple
from contract import config_id, configs
from meeple.core import IllegalAction, State

UNDO_GAMES = {"karvi", "zarcana"}
CONFIGS = list(configs())
WORLDS = 3  # resampled worlds per checked span


def _snapshot(st: State) -> dict:
    seats = [*range(st.players), None]
    return {
        "views": [st.view(p) for p in seats],
        "logs": [st.log(p) for p in seats],
        "legal": st.legal_actions(),
        "to_move": st.to_move,
    }


def _check_span(states: list[State], movers: list[int | None], st: State, rng: random.Random) -> int:
    """Check the span `st` offers; return its length (0: nothing to undo)."""
    start = st.undo_start()
    n = len(st.history)
    if start is None:
        return 0
    p = st.to_move
    assert 0 <= start < n
    assert all(m == p for m in movers[start:n]), f"{st!r}: the span holds another player's step"
    # nothing to light: the same steps in worlds the mover cannot tell apart look the same
    mine = st.view(p)
    for _ in range(WORLDS):
        world = states[start].determinize(p, rng)
        for a in st.history[start:n]:
            world.apply(a)
        assert world.view(p) == mine, f"{st!r}: the steps since {start} revealed something to {p}"
    # nothing private to another seat was logged in the span
    before = states[start].log_size()
    assert all(to is None or to == p for to, _e in st._events[before:]), (
        f"{st!r}: a step since {start} told another seat something in private")
    return n - start


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_undo_span_is_the_movers_own_and_reveals_nothing(cfg):
    game, players, options = cfg
    rng = random.Random(f"undo {config_id(cfg)}")
    spans = 0
    for g in range(2):
        st = meeple.make(game, players, 1000 + g, **options)
        states = [st.clone()]
        movers: list[int | None] = []
        while not st.is_over():
            movers.append(st.to_move)
            st.apply(rng.choice(st.legal_actions()))
            states.append(st.clone())
            if st.undo_start() is not None and rng.random() < 0.3:
                spans += _check_span(states, movers, st, rng) > 0
        assert st.undo_start() is None  # a finished game takes nothing back
    if game in UNDO_GAMES:
        assert spans > 0, "a compound-turn game should offer undo somewhere"
    else:
        assert spans == 0


@pytest.mark.parametrize("game", sorted(UNDO_GAMES))
def test_undone_state_is_the_state_that_stood_before(game):
    """Taking steps back gives exactly the earlier state: every seat's view, log and choices
    (the opponents saw the undone steps happen, as on Board Game Arena, but the state keeps no
    trace of them)."""
    info = meeple.game_info(game)
    rng = random.Random(game)
    checked = 0
    for players in info.player_counts:
        st = meeple.make(game, players, 7 + players)
        snaps = [_snapshot(st)]
        while not st.is_over() and checked < 60 * players:
            st.apply(rng.choice(st.legal_actions()))
            snaps.append(_snapshot(st))
            start = st.undo_start()
            if start is not None and rng.random() < 0.5:
                to = rng.randrange(start, len(st.history))
                back = st.undone(to)
                assert back.history == st.history[:to]
                assert _snapshot(back) == snaps[to]
                assert back.undo_start() == (None if to == start else start)
                # a step that was never offered cannot be undone
                if start > 0:
                    with pytest.raises(IllegalAction):
                        st.undone(start - 1)
                checked += 1
                # continue from the undone state half the time: the game goes on from there
                if rng.random() < 0.5:
                    st = back
                    snaps = snaps[: to + 1]
        assert checked


def test_games_without_compound_turns_offer_no_undo():
    for g in meeple.games():
        info = meeple.game_info(g["id"])
        st = meeple.make(info.id, info.player_counts[0], 3)
        assert type(st).undo_within_turn == (info.id in UNDO_GAMES)
        with pytest.raises(IllegalAction):
            st.undone(0)


def test_search_copies_offer_no_undo():
    st = meeple.make("zarcana", 2, 5)
    rng = random.Random(1)
    while st.undo_start() is None:
        st.apply(rng.choice(st.legal_actions()))
    assert st.clone().undo_start() == st.undo_start()
    assert st.determinize(st.to_move, rng).undo_start() is None


def test_zarcana_a_card_played_from_the_hand_can_be_taken_back_until_its_chain_completes():
    """Zarcana's ruling: a hand card chosen (shown to all) goes back to the hand on undo; the
    chain's last step ends the turn, which confirms it."""
    rng = random.Random(4)
    st = meeple.make("zarcana", 2, 5)
    while True:
        legal = st.legal_actions()
        cards = [a for a in legal if "card" in st.action_to_json(a)]
        cells = [a for a in legal if "cell" in st.action_to_json(a)]
        played = cards[0] if cards and st.view(st.to_move)["pyramids"] else None
        if played is not None:
            break
        st.apply(cells[0] if cells else rng.choice(legal))
    me, at = st.to_move, len(st.history)
    code = st.action_to_json(played)["card"]
    st.apply(played)
    assert st.undo_start() == at and code not in st.view(me)["hand"]
    assert code in st.undone(at).view(me)["hand"]  # back in the hand
    while st.to_move == me:
        assert st.undo_start() == at
        st.apply(st.legal_actions()[0])
    assert st.undo_start() is None  # the next player has nothing to take back
    assert st.history[at] == played


def test_karvi_a_card_drawn_or_a_stack_looked_at_cannot_be_taken_back():
    from meeple.games.karvi.rules import _FAMILY

    seen = set()
    for seed in range(6):
        rng = random.Random(seed)
        st = meeple.make("karvi", 2 + seed % 3, seed)
        while not st.is_over() and len(seen) < 2:
            a = rng.choice(st.legal_actions())
            fam = _FAMILY[a][0]
            mover = st.to_move
            st.apply(a)
            if fam in ("DRAW_STACK", "SCOUT"):
                seen.add(fam)
                # the mover may go on (or their turn may have ended), but never back past it
                assert st.undo_start() is None, (fam, mover, st.to_move)
        if len(seen) == 2:
            break
    assert seen == {"DRAW_STACK", "SCOUT"}
