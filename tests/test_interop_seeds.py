"""Seeds mean one thing on every face: the same seed gives the same deal through OpenSpiel,
PettingZoo and the vector environment; a seed a face draws by itself is one every face accepts;
batches with different seeds share no deal; the vector environment meets Gymnasium's wrappers."""

from __future__ import annotations

import json

import pytest

import meeple

np = pytest.importorskip("numpy")
pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
pytest.importorskip("open_spiel")

from meeple.interop import openspiel as mos  # noqa: E402
from meeple.interop import tensor  # noqa: E402
from meeple.interop.pettingzoo import env as pz_env  # noqa: E402
from meeple.interop.vector import vector_env  # noqa: E402

pytestmark = pytest.mark.interop


@pytest.mark.parametrize("game_id,players", [("scarvus", 4), ("trickarus", 3), ("savage_bowl", 4)])
def test_same_seed_same_deal_on_openspiel_pettingzoo_and_vector_faces(game_id, players):
    """Row 1 of a seeded batch names its seed; PettingZoo's ``reset(seed=...)`` and OpenSpiel's
    ``seed_actions(...)`` with that seed give the same game: the same tensors and masks for every
    seat at every step of the same actions, and the same returns at the end."""
    envs = vector_env(game_id, num_envs=3, players=players)
    obs, _ = envs.reset(seed=42)
    seed = int(envs.seeds[1])
    assert 0 <= seed < 2**32
    pz = pz_env(game_id, players=players)
    pz.reset(seed=seed)
    game = mos.load(game_id, players)
    os_state = game.new_initial_state()
    for a in mos.seed_actions(seed):
        os_state.apply_action(a)
    enc = tensor.encoding(game_id, players)
    rng = np.random.default_rng(5)
    for _ in range(2000):
        mover = int(obs["to_move"][1])
        assert os_state.current_player() == mover
        assert pz.agent_selection == f"player_{mover}"
        row = obs["observation"][1]
        np.testing.assert_array_equal(pz.observe(f"player_{mover}")["observation"].ravel(), row)
        np.testing.assert_allclose(os_state.observation_tensor(mover), row)
        for p in range(players):  # every seat's view, not only the mover's, is the same game
            np.testing.assert_allclose(os_state.observation_tensor(p),
                                       enc.encode(envs.states[1], p))
        legal = np.flatnonzero(obs["action_mask"][1])
        assert list(legal) == os_state.legal_actions()
        actions = envs.sample_legal(rng)
        a = int(actions[1])
        obs, rewards, terms, _, info = envs.step(actions)
        pz.step(a)
        os_state.apply_action(a)
        if terms[1]:
            assert os_state.is_terminal()
            np.testing.assert_allclose(os_state.returns(), rewards[1])
            np.testing.assert_allclose([pz.rewards[f"player_{p}"] for p in range(players)],
                                       rewards[1])
            return
    pytest.fail("the game did not end in 2000 steps")


def test_batches_seeded_0_and_1_share_no_deal():
    a = vector_env("trickarus", num_envs=64, players=4)
    b = vector_env("trickarus", num_envs=64, players=4)
    a.reset(seed=0)
    b.reset(seed=1)
    assert len(set(a.seeds.tolist())) == 64
    assert not set(a.seeds.tolist()) & set(b.seeds.tolist())
    deals_a = {json.dumps([s.view(p)["hand"] for p in range(4)]) for s in a.states}
    deals_b = {json.dumps([s.view(p)["hand"] for p in range(4)]) for s in b.states}
    assert len(deals_a) == 64 and not deals_a & deals_b


def test_consecutive_seeding_is_kept_as_an_option():
    envs = vector_env("trickarus", num_envs=4, players=4, seeding="consecutive")
    envs.reset(seed=9)
    assert envs.seeds.tolist() == [9, 10, 11, 12]
    with pytest.raises(ValueError):
        vector_env("trickarus", num_envs=4, seeding="nope")


def test_unseeded_resets_draw_seeds_every_face_accepts():
    """PettingZoo's and the vector env's own draws are 32-bit: OpenSpiel replays each deal."""
    pz = pz_env("scarvus", players=3)
    envs = vector_env("scarvus", num_envs=8, players=3)
    envs.reset()
    drawn = list(envs.seeds)
    for _ in range(8):
        pz.reset()
        drawn.append(pz.game_seed)
    for seed in drawn:
        assert 0 <= seed < 2**32
        mos.seed_actions(int(seed))  # raises outside OpenSpiel's range
    assert len(set(map(int, drawn))) == len(drawn)
    state = mos.from_meeple(pz.state_)
    assert mos.meeple_state(state).view(0) == pz.state_.view(0)


def test_record_episode_statistics_with_the_learning_seat():
    """Gymnasium's own vector wrapper works on the env with ``seat``: rewards of shape
    ``(num_envs,)``, episode returns equal to that seat's returns, and Gymnasium's same-step
    autoreset infos (``final_obs``, ``final_info``) for the games that ended."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    n, players, seat = 4, 3, 1
    envs = RecordEpisodeStatistics(vector_env("trickarus", num_envs=n, players=players, seat=seat))
    envs.reset(seed=3)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(600):
        obs, rewards, terms, truncs, info = envs.step(envs.unwrapped.sample_legal(rng))
        assert rewards.shape == (n,)
        if terms.any():
            np.testing.assert_array_equal(info["_episode"], terms)
            np.testing.assert_array_equal(info["_final_obs"], terms)
            for i in np.flatnonzero(terms):
                returns = info["final_info"]["returns"][i]
                assert info["episode"]["r"][i] == pytest.approx(returns[seat]) == rewards[i]
                assert info["final_returns"][i][seat] == returns[seat]
                final = info["final_obs"][i]
                assert final["to_move"] == seat and not final["action_mask"].any()
                assert final["observation"].shape == obs["observation"].shape[1:]
                episodes += 1
    assert episodes >= 4
    assert len(envs.return_queue) == episodes
    with pytest.raises(ValueError):
        vector_env("trickarus", num_envs=2, players=3, seat=3)


def test_opponents_make_a_single_agent_vector_env():
    """With ``seat`` and ``opponents`` every step is the seat's turn; an episode's return under
    `RecordEpisodeStatistics` is the seat's return in a game whose other seats the bots played,
    and the same seed replays the same games."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    def run(seed):
        envs = RecordEpisodeStatistics(
            vector_env("scarvus", num_envs=3, players=3, seat=2, opponents="random"))
        obs, _ = envs.reset(seed=seed)
        rng = np.random.default_rng(1)
        seen = []
        for _ in range(300):
            assert (obs["to_move"] == 2).all()
            obs, rewards, terms, _, info = envs.step(envs.unwrapped.sample_legal(rng))
            for i in np.flatnonzero(terms):
                assert info["episode"]["r"][i] == info["final_info"]["returns"][i][2] == rewards[i]
                seen.append(float(rewards[i]))
        return seen

    first = run(4)
    assert len(first) >= 3 and first == run(4)
    with pytest.raises(ValueError):
        vector_env("scarvus", num_envs=2, players=3, opponents="random")
    with pytest.raises(ValueError):
        vector_env("scarvus", num_envs=2, players=3, seat=0, opponents="no-such-level")


def test_information_state_with_opponents_is_the_recall_tensor():
    """The opponents' moves go into each game's record, so the seat's information-state row is
    still its perfect-recall tensor built from scratch."""
    from meeple.interop import recall

    envs = vector_env("zarcana", num_envs=2, players=2, seat=1, opponents="random",
                      tensor="information_state")
    lay = recall.layout("zarcana", 2)
    obs, _ = envs.reset(seed=2)
    rng = np.random.default_rng(1)
    for _ in range(60):
        for i, s in enumerate(envs.states):
            replay = meeple.make("zarcana", players=2, seed=int(envs.seeds[i]))
            own = []
            for a in s.history:  # who made each move, from the game replayed on the engine
                if replay.to_move == 1:
                    own.append(a)
                replay.apply(a)
            np.testing.assert_array_equal(obs["observation"][i], lay.encode(s, own, 1))
        obs, *_ = envs.step(envs.sample_legal(rng))
