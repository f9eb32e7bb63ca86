"""Research interop: every game passes OpenSpiel's and PettingZoo's own conformance tests.

OpenSpiel: its C++ random simulation test with serialization (as in its tests for Python games),
game/state pickling, and MCTS, IS-MCTS and `evaluate_bots` running on our games. PettingZoo:
`api_test` and `seed_test`. Every registered game and player count, automatically.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import pickle
import random

import pytest

import meeple

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from meeple.interop import openspiel as mos  # noqa: E402
from meeple.interop import tensor  # noqa: E402
from meeple.interop.pettingzoo import env  # noqa: E402

pytestmark = pytest.mark.interop

CONFIGS = [(g["id"], p) for g in meeple.games() for p in g["players"]]
IDS = [f"{g}-{p}p" for g, p in CONFIGS]


def _random_os_game(game: pyspiel.Game, rng: random.Random) -> pyspiel.State:
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


# ----- OpenSpiel -------------------------------------------------------------------------------
def test_every_game_is_registered_with_players_and_options_as_parameters():
    from contract import configs

    names = set(pyspiel.registered_names())
    for g in meeple.games():
        assert mos.game_name(g["id"]) in names
        spec = pyspiel.load_game(mos.game_name(g["id"])).get_type().parameter_specification
        assert "players" in spec and all(o["name"] in spec for o in g["options"])
    # Every option variant the contract fuzzes reaches the meeple game through the parameters,
    # and back through the game's own string (as OpenSpiel's load_game("name(k=v,...)")).
    for game_id, players, options in configs():
        game = mos.load(game_id, players, **options)
        again = pyspiel.load_game(str(game))
        for g in (game, again):
            state = g.new_initial_state()
            for a in mos.seed_actions(1):
                state.apply_action(a)
            s = mos.meeple_state(state)
            assert s.players == players and s.options == meeple.game_info(game_id).resolve_options(
                players, options
            )


@pytest.mark.parametrize(("game_id", "players"), CONFIGS, ids=IDS)
def test_openspiel_random_sim_test_with_serialization(game_id, players):
    """OpenSpiel's own C++ checks (legal actions, chance, returns, tensors, serialization)."""
    game = mos.load(game_id, players)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    # As OpenSpiel's games_sim_test: game and state survive pickling and SerializeGameAndState.
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    state = game.new_initial_state()
    rng = random.Random(players)
    for step in range(60):
        if state.is_terminal():
            break
        if step in (0, 3, 4, 5, 20, 59):
            again_game, again = pyspiel.deserialize_game_and_state(
                pyspiel.serialize_game_and_state(game, state)
            )
            assert str(again_game) == str(game) and str(again) == str(state)
            assert str(pickle.loads(pickle.dumps(state))) == str(state)
            # The state is a function of its history: replaying it gives the same state.
            assert str(game.deserialize_state(state.serialize())) == str(state)
        outcomes = state.chance_outcomes() if state.is_chance_node() else None
        state.apply_action(
            rng.choice(outcomes)[0] if outcomes else rng.choice(state.legal_actions())
        )


@pytest.mark.parametrize("game_id", sorted({g for g, _ in CONFIGS}))
def test_openspiel_state_is_the_meeple_game_with_the_drawn_seed(game_id):
    info = meeple.game_info(game_id)
    players = max(info.player_counts)
    state = meeple.make(game_id, players=players, seed=123_456_789)
    rng = random.Random(1)
    for _ in range(15):
        if not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
    os_state = mos.from_meeple(state)
    assert os_state.history()[: mos.SEED_BYTES] == mos.seed_actions(123_456_789)
    for p in range(players):
        assert os_state.observation_string(p) == json.dumps(
            state.view(p), sort_keys=True, separators=(",", ":")
        )
        np.testing.assert_array_equal(
            os_state.observation_tensor(p), tensor.encoding(game_id, players).encode(state, p)
        )
    assert os_state.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("game_id", sorted({g for g, _ in CONFIGS}))
def test_resample_from_infostate_keeps_the_information_state(game_id):
    """determinize changes what the player cannot see, never what they know (perfect recall)."""
    game = mos.load(game_id, max(meeple.game_info(game_id).player_counts))
    rng = random.Random(5)
    state = game.new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = False
    for _ in range(40):
        if state.is_terminal():
            break
        if not state.is_chance_node():
            p = state.current_player()
            for _ in range(3):
                other = state.resample_from_infostate(p, sampler)
                assert other.information_state_string(p) == state.information_state_string(p)
                # ... and so it is when built afresh from the resampled world (not carried over).
                record = mos.information_state(other, p)
                assert record == mos.information_state(state, p)
                assert mos.information_state_digest(record, p) == other.information_state_string(p)
                for q in [None, *range(game.num_players())]:  # the others' records carried over
                    text = mos.information_state_digest(mos.information_state(other, q), q)
                    assert text == mos._info_string(other._c, q)
                assert other.observation_string(p) == state.observation_string(p)
                assert other.legal_actions() == state.legal_actions()
                assert other.history() == state.history()
                changed |= any(
                    other.observation_string(q) != state.observation_string(q)
                    for q in range(game.num_players())
                    if q != p
                )
            outcomes = None
        else:
            outcomes = state.chance_outcomes()
        state.apply_action(
            rng.choice(outcomes)[0] if outcomes else rng.choice(state.legal_actions())
        )
    assert changed or not meeple.game_info(game_id).hidden_information


@pytest.mark.parametrize("game_id", sorted({g for g, _ in CONFIGS}))
def test_information_state_has_perfect_recall(game_id):
    """Perfect recall: each player's information state extends their previous one (their log
    and own actions only grow), and holds what the current view holds; the string the adapter
    keeps incrementally is the digest of that record computed from scratch."""
    info = meeple.game_info(game_id)
    players = min(info.player_counts)
    state = mos.from_meeple(meeple.make(game_id, players=players, seed=4))
    rng = random.Random(4)
    before = [None] * players
    for _ in range(80):
        if state.is_terminal():
            break
        for p in range(players):
            now = mos.information_state(state, p)
            assert now["view"] == json.loads(state.observation_string(p))
            assert state.information_state_string(p) == mos.information_state_digest(now, p)
            if before[p] is not None:
                old = before[p]
                assert now["log"][: len(old["log"])] == old["log"]
                assert now["own_actions"][: len(old["own_actions"])] == old["own_actions"]
            before[p] = now
        mover = state.current_player()
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        assert mos.information_state(state, mover)["own_actions"][-1] == action


def test_information_state_strings_are_incremental_and_cached():
    """Each event is serialised once however many strings are asked for, and a position's
    string is built once (OpenSpiel's IS-MCTS asks for it several times per simulation): over
    60 moves, 4 players asking 3 times at each position, JSON is written once per event and
    once per (position, player) view, where re-serialising the log would write it 720 times."""
    from meeple.interop import recall

    state = mos.from_meeple(meeple.make("savage_bowl", players=4, seed=2))
    rng = random.Random(2)
    calls = []
    real = json.dumps

    def counting(obj, *args, **kwargs):
        calls.append(obj)
        return real(obj, *args, **kwargs)

    recall._BYTES.clear()
    mos.json.dumps = counting  # the same json module as recall's
    try:
        for _ in range(60):
            for p in range(4):
                for _ in range(3):
                    state.information_state_string(p)
            state.apply_action(rng.choice(state.legal_actions()))
    finally:
        mos.json.dumps = real
    events = mos.meeple_state(state).log_size()
    assert len([c for c in calls if isinstance(c, list)]) == 0  # never a whole log
    assert len(calls) <= events + 60 * 4


def test_spectator_observer_sees_only_public_information():
    from open_spiel.python.observation import make_observation

    game = mos.load("trickarus", 3)
    public = make_observation(
        game,
        pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
        ),
    )
    state = mos.from_meeple(meeple.make("trickarus", players=3, seed=9))
    s = mos.meeple_state(state)
    assert public.string_from(state, 0) == json.dumps(
        s.view(None), sort_keys=True, separators=(",", ":")
    )
    assert "hand" not in json.loads(public.string_from(state, 1))


def test_game_hook_replaces_the_generic_tensor(monkeypatch):
    """A game's TensorHooks may give observation_tensor(_shape); both adapters then use it."""
    info = meeple.game_info("trickarus")
    module = importlib.import_module(info.tensors)
    hooks = dataclasses.replace(
        module.TENSORS,
        observation_tensor_shape=lambda players, options: (2, 3),
        observation_tensor=lambda state, p: [p or 0] * 6,
    )
    monkeypatch.setattr(module, "TENSORS", hooks)
    tensor._tensor_hooks.cache_clear()
    tensor._encoding.cache_clear()
    try:
        assert tensor.tensor_hooks(info) is hooks
        enc = tensor.encoding("trickarus", 3)
        assert enc.source == "game" and enc.shape == (2, 3)
        e = env("trickarus", players=3)
        e.reset(seed=1)
        assert e.observe("player_2")["observation"].tolist() == [[2.0] * 3] * 2
    finally:
        monkeypatch.undo()
        tensor._tensor_hooks.cache_clear()
        tensor._encoding.cache_clear()


def test_generic_encoding_rules_on_unseen_values():
    """The documented rules: numbers scaled and clipped, unseen strings to `other`, fixed rows by
    position (cut when longer), bags with counts and length, lists of dicts cut at the longest."""
    stat = tensor._Stat()
    for view in (
        {"n": 2, "s": "a", "row": [1, 2], "bag": ["x"], "cards": [{"c": "p"}]},
        {"n": -1, "s": "b", "row": [0, 1], "bag": ["x", "y", "y"], "cards": []},
    ):
        stat.add(view)
    gen = tensor._Gen(cache=False)
    emit, size = gen.compile(stat)
    where = {seg.path: seg for seg in gen.segments}

    def encode(view):
        ones, idx, val = [], [], []
        emit(view, ones, idx, val)
        out = np.zeros(size)
        out[ones] = 1.0
        out[idx] = val
        return out

    x = encode(
        {
            "n": 9,
            "s": "zzz",
            "row": [1, 2, 3],
            "bag": ["y", "w"],
            "cards": [{"c": "q"}, {"c": "p"}],
            "new": 1,
        }
    )
    assert x[where["n"].offset] == 1.0  # 9 / (2 * 2), clipped
    assert x[where["s"].offset + where["s"].labels.index("other")] == 1.0
    assert x[where["row[1]"].offset] == 2 / 4 and "row[2]" not in where
    bag = where["bag"]
    assert x[bag.offset + bag.labels.index("y")] == 1 / 2  # once, of at most twice
    assert x[bag.offset + bag.labels.index("other")] == 1 / 2  # "w", counted the same way
    assert x[bag.offset + bag.labels.index("length")] == 2 / 6
    cards = where["cards[i].c"]
    assert (
        x[cards.offset + cards.labels.index("other")] == 1.0 and x[where["cards[i]"].offset] == 1.0
    )
    # n, s, row[0] = 1 / (2 * 1), row[1], bag y, other and length, card 0 present and other;
    # "new" is ignored and the second card is cut.
    assert x.sum() == pytest.approx(1 + 1 + 1 / 2 + 1 / 2 + 1 / 2 + 1 / 2 + 2 / 6 + 2)


def test_generic_tensor_is_bounded_and_sees_the_hand():
    # Trickarus has its own encoding now; the generic one is built for it here regardless
    info = meeple.game_info("trickarus")
    state = meeple.make("trickarus", players=4, seed=2)
    enc = tensor._generic(info, 4, info.resolve_options(4, {}))
    x = enc.encode(state, 1)
    assert x.shape == (enc.size,) and x.min() >= -1.0 and x.max() <= 1.0
    y = enc.encode(state.determinize(1, random.Random(0)), 1)
    np.testing.assert_array_equal(x, y)  # a function of the view only
    z = enc.encode(state, 2)
    assert not np.array_equal(x, z)  # player 2's hand differs
    assert any(seg.path == "hand[i].code" for seg in enc.segments)


@pytest.mark.parametrize("game_id", sorted({g for g, _ in CONFIGS}))
def test_cached_encoder_equals_uncached_and_views_are_snapshots(game_id):
    """The encoder reuses the slots of view parts equal to the last ones; that is only sound if
    a view is a fresh snapshot, never the game's live objects (checked here for every game)."""
    info = meeple.game_info(game_id)
    players = min(info.player_counts)
    options = info.resolve_options(players, {})
    cached = tensor._generic(info, players, options, cache=True)
    plain = tensor._generic(info, players, options, cache=False)
    rng = random.Random(2)
    state = meeple.make(game_id, players=players, seed=8)
    old = [(state.view(p), json.dumps(state.view(p), sort_keys=True)) for p in range(players)]
    for _ in range(60):
        if state.is_over():
            break
        for p in [None, *range(players)]:
            np.testing.assert_array_equal(cached.encode(state, p), plain.encode(state, p))
        state.apply(rng.choice(state.legal_actions()))
    for view, text in old:
        assert json.dumps(view, sort_keys=True) == text, "a view changed after it was taken"


@pytest.mark.parametrize("game_id", sorted({g for g, _ in CONFIGS}))
def test_openspiel_algorithms_run(game_id):
    """MCTS, IS-MCTS and evaluate_bots on our games (smoke: they finish with legal moves)."""
    from open_spiel.python.algorithms import evaluate_bots, mcts

    players = min(meeple.game_info(game_id).player_counts)
    game = mos.load(game_id, players)
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    is_bot = mos.ismcts_bot(game, simulations=8, seed=0)
    mcts_bot = mcts.MCTSBot(
        game, uct_c=2.0, max_simulations=8, evaluator=evaluator, random_state=rs
    )
    state = game.new_initial_state()
    for a in mos.seed_actions(11):
        state.apply_action(a)
    for bot in (is_bot, mcts_bot):
        action = bot.step(state.clone())
        assert action in state.legal_actions()
    # A whole game under evaluate_bots: a meeple bot and OpenSpiel's uniform random bots.
    bots = [mos.MeepleBot(game_id, "random", seed=0)]
    bots += [pyspiel.make_uniform_random_bot(p, p) for p in range(1, players)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rs)
    assert len(returns) == players and all(-1.0 <= r <= 1.0 for r in returns)


def test_evaluate_bots_with_ismcts_and_mcts_plays_a_whole_game():
    from open_spiel.python.algorithms import evaluate_bots, mcts

    game = mos.load("trickarus", 2)
    rs = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bots = [
        mos.ismcts_bot(game, simulations=6, seed=1),
        mcts.MCTSBot(game, uct_c=2.0, max_simulations=6, evaluator=evaluator, random_state=rs),
    ]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rs)
    assert sorted(returns) in ([-1.0, 1.0], [1.0, 1.0])


def test_meeple_bots_play_through_openspiel():
    bots = [mos.MeepleBot("trickarus", "heuristic", seed=p) for p in range(3)]
    from open_spiel.python.algorithms import evaluate_bots

    game = mos.load("trickarus", 3)
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(1))
    assert sorted(returns) != [0.0, 0.0, 0.0]


# ----- PettingZoo --------------------------------------------------------------------------
@pytest.mark.parametrize(("game_id", "players"), CONFIGS, ids=IDS)
def test_pettingzoo_api_and_seed(game_id, players):
    api_test(env(game_id, players=players), num_cycles=1000)
    seed_test(lambda: env(game_id, players=players), num_cycles=500)


def test_pettingzoo_rewards_are_returns_at_the_end_and_render_is_text():
    e = env("trickarus", players=3, render_mode="ansi")
    e.reset(seed=4)
    total = dict.fromkeys(e.possible_agents, 0.0)
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        assert reward == 0.0 and obs["action_mask"].sum() >= 1
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    record = meeple.make("trickarus", players=3, seed=4)
    assert e.state_ is not None and e.state_.is_over()
    assert [total[a] for a in e.possible_agents] == e.state_.returns()
    assert record.seed == e.state_.seed
    assert "Game over" in e.render()


def test_pettingzoo_illegal_action_is_refused():
    e = env("trickarus", players=4)
    e.reset(seed=0)
    obs = e.observe(e.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(meeple.IllegalAction):
        e.step(illegal)
    others = [a for a in e.possible_agents if a != e.agent_selection]
    assert all(e.observe(a)["action_mask"].sum() == 0 for a in others)


# ----- the examples run (CI runs them through this file) ------------------------------------
def _run_example(name: str, argv: list[str], monkeypatch, capsys) -> str:  # type: ignore[no-untyped-def]
    import runpy
    import sys
    from pathlib import Path

    path = Path(__file__).parent.parent / "examples" / name
    monkeypatch.setattr(sys, "argv", [str(path), *argv])
    runpy.run_path(str(path), run_name="__main__")
    return capsys.readouterr().out


def test_example_pettingzoo_training_loop_runs(monkeypatch, capsys):
    out = _run_example(
        "pettingzoo_random_train.py", ["--episodes", "30", "--eval", "10"], monkeypatch, capsys
    )
    assert "after 30 training games" in out


def test_example_openspiel_ismcts_runs(monkeypatch, capsys):
    out = _run_example(
        "openspiel_ismcts.py",
        ["--players", "2", "--games", "1", "--simulations", "5"],
        monkeypatch,
        capsys,
    )
    assert "mean return per seat" in out


def test_example_openspiel_mcts_ismcts_and_a_meeple_bot_run(monkeypatch, capsys):
    """Every kind of bot the example offers, through evaluate_bots, in one 3-player game."""
    argv = [
        "--players",
        "3",
        "--games",
        "1",
        "--simulations",
        "4",
        "--bots",
        "mcts,ismcts,meeple:heuristic",
    ]
    out = _run_example("openspiel_ismcts.py", argv, monkeypatch, capsys)
    assert "mcts, ismcts, meeple:heuristic" in out and "mean return per seat" in out


def test_pettingzoo_env_pickles_mid_game():
    """Vectorized runners ship environments to worker processes."""
    e = env("scarvus", players=3)
    e.reset(seed=6)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    again = pickle.loads(pickle.dumps(e))
    assert again.agent_selection == e.agent_selection
    for agent in e.possible_agents:
        np.testing.assert_array_equal(
            again.observe(agent)["observation"], e.observe(agent)["observation"]
        )
