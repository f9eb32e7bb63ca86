"""Batch stepping (`meeple.interop.vector`): N games stepped together behave exactly like N
games stepped one by one, under Gymnasium's vector conventions, for every game."""

from __future__ import annotations

import pytest

import meeple

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

from meeple.interop import recall, tensor  # noqa: E402
from meeple.interop.vector import vector_env  # noqa: E402

pytestmark = pytest.mark.interop

GAMES = [g["id"] for g in meeple.games()]


@pytest.mark.parametrize("game_id", GAMES)
def test_batch_equals_games_stepped_one_by_one_with_autoreset(game_id):
    """Each game of the batch is the engine's game with the seed ``envs.seeds[i]``, stepped with the same
    actions: same observation, mask and mover at every step; at its end the rewards are its
    returns (and ``final_returns`` says so), and the next game starts in the same step."""
    info = meeple.game_info(game_id)
    players = min(info.player_counts)
    n = 3
    envs = vector_env(game_id, num_envs=n, players=players)
    enc = tensor.encoding(game_id, players)
    obs, _ = envs.reset(seed=11)
    assert envs.observation_space.contains(obs)
    shadow = [meeple.make(game_id, players=players, seed=int(envs.seeds[i])) for i in range(n)]
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(400):
        for i, s in enumerate(shadow):
            p = s.to_move
            assert obs["to_move"][i] == p
            np.testing.assert_array_equal(obs["observation"][i], enc.encode(s, p))
            mask = np.zeros(info.num_actions, np.int8)
            mask[s.legal_actions()] = 1
            np.testing.assert_array_equal(obs["action_mask"][i], mask)
        actions = envs.sample_legal(rng)
        obs, rewards, terms, truncs, extra = envs.step(actions)
        assert rewards.shape == (n, players) and not truncs.any()
        for i, s in enumerate(shadow):
            s.apply(int(actions[i]))
            if s.is_over():
                assert terms[i]
                np.testing.assert_allclose(rewards[i], s.returns())
                np.testing.assert_allclose(extra["final_returns"][i], s.returns())
                shadow[i] = envs.states[i].clone()  # the fresh game the batch started
                assert shadow[i].history == []
                ended += 1
            else:
                assert not terms[i] and not rewards[i].any()
    assert ended > 0 or game_id in ("zarcana", "karvi")  # long games may not end in 400 steps


def test_same_seed_same_batch_and_illegal_actions_are_refused():
    a = vector_env("trickarus", num_envs=4, players=4)
    b = vector_env("trickarus", num_envs=4, players=4)
    oa, _ = a.reset(seed=5)
    ob, _ = b.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(150):  # through a game end, so autoreset seeds are compared too
        np.testing.assert_array_equal(oa["observation"], ob["observation"])
        act = a.sample_legal(rng)
        oa, ra, *_ = a.step(act)
        ob, rb, *_ = b.step(act)
        np.testing.assert_array_equal(ra, rb)
    illegal = [int(np.flatnonzero(m == 0)[0]) for m in oa["action_mask"]]
    with pytest.raises(meeple.IllegalAction):
        a.step(illegal)


@pytest.mark.parametrize("game_id", ["savage_bowl", "zarcana"])
def test_information_state_batch_is_the_recall_tensor(game_id):
    """With ``tensor="information_state"`` each row is the mover's perfect-recall tensor, kept
    incrementally per game and player: equal to `Layout.encode` of their record from scratch."""
    info = meeple.game_info(game_id)
    players = min(info.player_counts)
    envs = vector_env(game_id, num_envs=2, players=players, tensor="information_state")
    lay = recall.layout(game_id, players)
    obs, _ = envs.reset(seed=2)
    rng = np.random.default_rng(1)
    actors: list[list[int]] = [[], []]
    for _ in range(120):
        for i, s in enumerate(envs.states):
            p = s.to_move
            own = [a for who, a in zip(actors[i], s.history, strict=True) if who == p]
            np.testing.assert_array_equal(obs["observation"][i], lay.encode(s, own, p))
        act = envs.sample_legal(rng)
        movers = [s.to_move for s in envs.states]
        obs, _, terms, _, _ = envs.step(act)
        for i in range(2):
            actors[i] = [] if terms[i] else [*actors[i], movers[i]]
