"""Every meeple game as a PettingZoo AEC environment.

>>> from meeple.interop.pettingzoo import env
>>> e = env("trickarus", players=4)
>>> e.reset(seed=7)
>>> for agent in e.agent_iter():
...     obs, reward, termination, truncation, info = e.last()
...     action = None if termination else int(obs["action_mask"].nonzero()[0][0])
...     e.step(action)

Agents are ``player_0``..``player_{n-1}``. An observation is a dict: ``observation`` (the
game's tensor, see `meeple.interop.tensor` and docs/interop.md) and ``action_mask`` (int8, 1 for
the legal actions of the agent to move, all zeros for the others). Rewards come once, at the end
of the game, from `State.returns` (in [-1, 1]); games never truncate. An illegal action raises
`meeple.IllegalAction` rather than being punished silently: the mask says what is legal.

The environment is deliberately thin (no PettingZoo wrappers on the hot path) so that it costs
little beside the engine; `env()` and `raw_env()` are the same class.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import meeple
from meeple.core import State

from .tensor import encoding
from .vector import SEED_RANGE

__all__ = ["MeepleAECEnv", "env", "raw_env"]


class MeepleAECEnv(AECEnv):
    """One meeple game as an AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "meeple_v0", "is_parallelizable": False}

    def __init__(
        self, game: str, players: int | None = None, render_mode: str | None = None, **options: Any
    ) -> None:
        super().__init__()
        info = meeple.game_info(game)
        self.info = info
        self.game = game
        self.players = players if players is not None else min(info.player_counts)
        self.options = info.resolve_options(self.players, options)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"meeple_{game}_v0"}
        self._encoding = encoding(game, self.players, self.options)
        self._num_actions = info.num_actions
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-1.0, 1.0, self._encoding.shape, np.float32),
                "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8),
            }
        )
        # One space object per agent (seeding a space must not seed another agent's).
        self.observation_spaces = {a: _copy_space(obs_space) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self._num_actions) for a in self.possible_agents}
        self.state_: State | None = None
        self._seeds = np.random.default_rng()
        self._zero_mask = np.zeros(self._num_actions, np.int8)

    # ----- spaces -----------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ----- the AEC API ------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game. ``seed`` fixes the deal (the engine's seed: ``meeple.make(..., seed=seed)``,
        OpenSpiel's ``seed_actions(seed)``); without one, the next seed of the last seeded
        sequence (or OS entropy) is used, so repeated resets give different games. A seed drawn
        here is in [0, 2**32), the range every face accepts (``self.game_seed`` is the current one)."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self._seeds.integers(0, SEED_RANGE))
        self.game_seed = game_seed
        self.state_ = meeple.make(self.game, players=self.players, seed=game_seed, **self.options)
        self._legal: tuple[int, list[int]] | None = None
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state_.to_move or 0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.state_
        assert state is not None, "call reset() first"
        player = self._index[agent]
        if state.to_move == player:
            mask = np.zeros(self._num_actions, np.int8)
            legal = state.legal_actions()
            mask[legal] = 1
            # Kept for `step`: the env owns its state, so the move count identifies the position.
            self._legal = (len(state.history), legal)
        else:
            mask = self._zero_mask.copy()
        obs = self._encoding.encode(state, player)
        if len(self._encoding.shape) > 1:  # a game's own tensor may have a shape
            obs = obs.reshape(self._encoding.shape)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_
        assert state is not None
        self._cumulative_rewards[agent] = 0.0
        known = getattr(self, "_legal", None)
        state.apply(
            int(action), legal=known[1] if known and known[0] == len(state.history) else None
        )
        if state.to_move is None:
            returns = state.returns()
            for a, i in self._index.items():
                self.rewards[a] = float(returns[i])
                self.terminations[a] = True
                self._cumulative_rewards[a] += self.rewards[a]
        else:
            self.agent_selection = self.possible_agents[state.to_move]

    def render(self) -> str | None:
        """The spectator's view as text (the game's text renderer, else its JSON)."""
        if self.state_ is None:
            return None
        view = self.state_.view(None)
        if self.info.text_renderer is not None:
            text = self.info.text_renderer(view)
        else:
            import json

            text = json.dumps(view, indent=1, sort_keys=True)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.state_ = None

    def __str__(self) -> str:
        return self.metadata["name"]


def _copy_space(space: spaces.Dict) -> spaces.Dict:
    return spaces.Dict(
        {
            k: spaces.Box(s.low.copy(), s.high.copy(), s.shape, s.dtype)  # type: ignore[union-attr]
            for k, s in space.spaces.items()
        }
    )


def env(
    game: str, players: int | None = None, render_mode: str | None = None, **options: Any
) -> MeepleAECEnv:
    """The AEC environment of ``game`` for ``players`` (default: the fewest it takes) with
    ``options`` (the game's own, by name)."""
    return MeepleAECEnv(game, players=players, render_mode=render_mode, **options)


raw_env = env
