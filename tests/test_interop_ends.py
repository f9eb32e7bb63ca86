"""Every game ends where its rules end it, through both adapters, whatever the agents.

the OpenSpiel adapter used to end a game, drawn, when a player's record neared the
room of the generic information-state tensor. Random play rarely got there; the games' own
`heuristic` bots did in every Karvi game and in many Zarcana games (cut after 131 to 391
actions, returns all 0). Here heuristic bots play every game and player count through OpenSpiel
(`MeepleBot`, the way a researcher meets it) and the same actions go through PettingZoo and the
bare engine: the end, the returns and the move count must be the engine's own. The seeds
include games where heuristic play runs long (all Karvi games; Zarcana 2p seed 2, 3p seed 0,
4p seed 2 were cut before).
"""

from __future__ import annotations

import pytest

import meeple

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

from meeple.interop import openspiel as mos  # noqa: E402
from meeple.interop.pettingzoo import env  # noqa: E402

pytestmark = pytest.mark.interop

# (game, players, seeds): fewer seeds where heuristic games are slow (Zarcana ~2 s a game).
GAMES = {"karvi": [0], "savage_bowl": [0, 1, 2], "scarvus": [0, 1, 2], "trickarus": [0]}
CASES = [
    (g["id"], p, seed)
    for g in meeple.games()
    for p in g["players"]
    for seed in GAMES.get(g["id"], [])
]
CASES += [("trickarus", 2, 1), ("trickarus", 2, 2), ("karvi", 2, 3)]
CASES += [("zarcana", 2, 2), ("zarcana", 3, 0), ("zarcana", 4, 2)]  # long under heuristics


def play_through_openspiel(game_id: str, players: int, seed: int) -> pyspiel.State:
    game = mos.load(game_id, players)
    state = game.new_initial_state()
    for a in mos.seed_actions(seed):
        state.apply_action(a)
    bots = [mos.MeepleBot(game_id, "heuristic", seed=10 * seed + p) for p in range(players)]
    while not state.is_terminal():
        assert not mos.meeple_state(state).is_over()
        state.apply_action(bots[state.current_player()].step(state))
    return state


@pytest.mark.parametrize(
    ("game_id", "players", "seed"), CASES, ids=[f"{g}-{p}p-s{s}" for g, p, s in CASES]
)
def test_heuristic_games_end_where_the_rules_end_them(game_id, players, seed):
    state = play_through_openspiel(game_id, players, seed)
    inner = mos.meeple_state(state)
    assert inner.is_over(), f"OpenSpiel ended the game after {len(inner.history)} actions"
    actions = list(inner.history)
    # The bare engine, same seed and actions.
    ref = meeple.make(game_id, players=players, seed=seed)
    for a in actions:
        assert not ref.is_over()
        ref.apply(a)
    assert ref.is_over()
    assert state.returns() == ref.returns() and state.returns() != [0.0] * players
    assert len(state.history()) == mos.SEED_BYTES + len(actions)
    # PettingZoo: the same actions; every agent terminates exactly at the last one.
    e = env(game_id, players=players)
    e.reset(seed=seed)
    played = 0
    final = {}
    for agent in e.agent_iter():
        _, reward, termination, truncation, _ = e.last()
        assert not truncation
        if termination:
            assert played == len(actions), f"PettingZoo ended the game after {played} actions"
            final[agent] = reward
            e.step(None)
            continue
        e.step(actions[played])
        played += 1
    assert played == len(actions)
    assert [final[a] for a in e.possible_agents] == ref.returns()


def test_max_game_length_is_no_cut():
    """`max_game_length` is a bound OpenSpiel may size buffers by, never a place where the
    adapter ends a game: without a game's own bound it is the contract's (20 000 actions)."""
    for g in meeple.games():
        for p in g["players"]:
            game = mos.load(g["id"], p)
            assert game.max_game_length() == mos.MAX_GAME_LENGTH + mos.SEED_BYTES
