"""examples/train.py without PyTorch: its environments are seeded (the same ``--seed``, the same
deals, seats and opponents), its learner sees the game's observation tensor through OpenSpiel's
``rl_environment`` and always as player 0, its output goes to the working folder, and its ETA
counts whichever budget ends first."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

pytest.importorskip("open_spiel")
np = pytest.importorskip("numpy")

from meeple.interop.openspiel import load, meeple_state  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def train():
    spec = importlib.util.spec_from_file_location("train_example", ROOT / "examples" / "train.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _deals(train, game, seed: int, episodes: int = 3) -> list[tuple[int, int, list[str]]]:
    envs = train.make_envs(game, seed, 2, [("random", 1.0), ("medium", 1.0)], {})
    out = []
    for env in envs:
        for _ in range(episodes):
            ts = env.reset()
            out.append((env.deal(), env.seat, sorted(type(b).__name__ for b in env.bots.values())))
            steps = 0
            while not ts.last() and steps < 3:  # the learner's seat, renumbered to player 0
                assert ts.observations["current_player"] == 0
                legal = ts.observations["legal_actions"][0]
                obs = ts.observations["info_state"][0]
                state = meeple_state(env.env.get_state)
                assert state.to_move == env.seat
                np.testing.assert_allclose(obs, env.env.get_state.observation_tensor(env.seat))
                assert legal == state.legal_actions()
                ts = env.step([legal[0]])
                steps += 1
    return out


def test_same_seed_same_deals_other_seed_other_deals(train):
    game = load("scarvus", 3)
    a, b, c = _deals(train, game, 4), _deals(train, game, 4), _deals(train, game, 5)
    assert a == b
    assert not {d[0] for d in a} & {d[0] for d in c}
    assert {d[1] for d in a} == {0, 1, 2}  # the learner's seat rotates


def test_output_goes_to_a_new_file_in_the_working_folder(train, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = train.default_out("zarcana", 2)
    assert first == Path("learned-zarcana-2p.npz")
    first.write_bytes(b"taken")
    assert train.default_out("zarcana", 2) == Path("learned-zarcana-2p-2.npz")


def test_eta_counts_whichever_budget_ends_first(train):
    start = time.monotonic() - 60  # a minute in
    assert train.eta(start, 100, 1_000_000, 10) == pytest.approx(540, abs=2)  # the clock
    assert train.eta(start, 100, 200, 10) == pytest.approx(60, abs=2)  # the episodes
