"""Which OpenSpiel algorithms run on our games (docs/interop.md lists them; each is covered here
or in tests/test_interop.py): Python IS-MCTS and MCTS (test_interop.py), outcome-sampling
MCCFR, `rl_environment` with its agents, and the C++ `pyspiel.ISMCTSBot`, which crashes on every
Python-defined game (OpenSpiel's own included), checked in a child process so that the day it
stops crashing the docs get updated.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip("pyspiel")

from meeple.interop import openspiel as mos  # noqa: E402

pytestmark = pytest.mark.interop


def test_outcome_sampling_mccfr_runs_and_gives_policies():
    """Outcome-sampling MCCFR samples one trajectory per iteration (chance included), so it runs
    on any of our games; it has no hope of converging on games this large, but it runs."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = mos.load("trickarus", 2)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(3):
        solver.iteration()
    policy = solver.average_policy()
    state = game.new_initial_state()
    for a in mos.seed_actions(1):
        state.apply_action(a)
    probs = policy.action_probabilities(state)
    assert set(probs) == set(state.legal_actions())
    assert abs(sum(probs.values()) - 1.0) < 1e-9


def test_rl_environment_with_random_and_tabular_agents():
    """`rl_environment.Environment` (chance sampled, information-state tensors as observations)
    with OpenSpiel's random agent and tabular Q-learner: whole episodes to the real end."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import random_agent, tabular_qlearner

    game = mos.load("trickarus", 2)
    env = rl_environment.Environment(game, seed=3)
    n = env.action_spec()["num_actions"]
    for agents in (
        [random_agent.RandomAgent(player_id=p, num_actions=n) for p in range(2)],
        [tabular_qlearner.QLearner(player_id=p, num_actions=n) for p in range(2)],
    ):
        ts = env.reset()
        assert len(ts.observations["info_state"][0]) == game.information_state_tensor_size()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
        for agent in agents:
            agent.step(ts)
        assert sorted(ts.rewards) == [-1.0, 1.0]
        assert mos.meeple_state(env.get_state).is_over()


@pytest.mark.parametrize("which", ["meeple_trickarus", "python_kuhn_poker"])
def test_cxx_ismcts_bot_crashes_on_python_games(which):
    """OpenSpiel's C++ `pyspiel.ISMCTSBot` segfaults on Python-defined games in this OpenSpiel
    (ours and its own `python_kuhn_poker`): the docs warn; use the Python IS-MCTS."""
    code = textwrap.dedent(
        f"""
        import pyspiel
        import meeple.interop.openspiel
        from open_spiel.python.games import kuhn_poker  # registers python_kuhn_poker
        game = pyspiel.load_game("{which}")
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        bot = pyspiel.ISMCTSBot(0, pyspiel.RandomRolloutEvaluator(1, 0), 2.0, 10)
        print(bot.step(state))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    # Killed by a signal (SIGSEGV), not an ordinary error such as an import failing.
    assert done.returncode < 0, (done.returncode, done.stderr[-400:], "update docs/interop.md")
