"""Batch stepping: N games of one meeple game as one Gymnasium vector environment.

>>> from meeple.interop.vector import vector_env
>>> envs = vector_env("trickarus", num_envs=64, players=4)
>>> obs, info = envs.reset(seed=7)
>>> obs["observation"].shape, obs["action_mask"].shape, obs["to_move"].shape
((64, 956), (64, 50), (64,))
>>> actions = envs.sample_legal()               # or a policy's batch of actions
>>> obs, rewards, terminations, truncations, info = envs.step(actions)

Gymnasium's vector conventions (``gymnasium.vector.VectorEnv``), for turn-based games of any
player count: each of the ``num_envs`` games is at the turn of some player, and a step takes one
action per game, for the player to move there.

- **Observation** (a dict of arrays, first axis the game): ``observation`` is the mover's tensor
  (the game's observation tensor, `meeple.interop.tensor`; with ``tensor="information_state"``
  the mover's perfect-recall information-state tensor, `meeple.interop.recall`, kept
  incrementally per game and player), ``action_mask`` (int8, the mover's legal actions) and
  ``to_move`` (the mover's seat). One array per key, written in place and returned as copies.
- **Rewards**: with ``seat=k`` (what Gymnasium's own wrappers, such as
  ``gymnasium.wrappers.vector.RecordEpisodeStatistics``, expect) one number per game, shape
  ``(num_envs,)``: seat ``k``'s return when its game ends, zero before. Without a seat, per game
  *and player* (shape ``(num_envs, players)``), for self-play over every seat. Returns are
  `State.returns` (in [-1, 1]); ``terminations[i]`` is True at that step; games never truncate.
- **Opponents**: with ``seat=k`` and ``opponents=LEVEL`` (any `meeple.bots.make_bot` level,
  e.g. ``"random"`` or ``"hard"``) the other seats are that bot, moved inside `step` (and
  `reset`), so every observation is seat ``k``'s turn: a single-agent vector environment, as
  Gymnasium's learners expect. Each game's bots are seeded from its seed.
- **Autoreset, same step** (Gymnasium's ``AutoresetMode.SAME_STEP``): a game that ends is
  replaced at once by a new one, and the observation returned for it is the new game's first.
  As Gymnasium's own vector environments do, ``info["final_obs"]`` and ``info["final_info"]``
  (object arrays, with the masks ``info["_final_obs"]`` and ``info["_final_info"]``) hold the
  finished games' last observation (seen by ``seat``, or by the player who moved last) and
  info (``{"returns": ...}``); ``info["final_returns"]`` holds their returns (NaN rows for the
  others).
- **Seeds**: ``reset(seed=s)`` gives game ``i`` the ``i``-th 32-bit word that
  ``numpy.random.SeedSequence(s)`` generates, and the games that follow seeds drawn from a
  generator on that sequence, so a batch replays exactly and batches with different seeds share
  no deal. Every seed is in [0, 2**32), the range OpenSpiel's face accepts; ``envs.seeds`` are
  the current games' seeds, so any game of a batch can be replayed on another face.
  ``seeding="consecutive"`` keeps the former rule (game ``i`` seeded ``s + i``), under which
  batches seeded 0 and 1 share all but one deal.
- An illegal action raises `meeple.IllegalAction` (the mask says what is legal).

There is no subprocess or thread: the engine is pure Python, so the gain of stepping N games
at once is the per-step overhead paid once per batch instead of once per game (one array per
observation key, one loop in Python, no per-step dicts), which `benchmarks/vector_env.py`
measures as N grows.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

import meeple
from meeple.bots import make_bot
from meeple.core import State

from .recall import Record, layout
from .tensor import encoding

__all__ = ["MeepleVectorEnv", "vector_env"]

TENSORS = ("observation", "information_state")
SEEDINGS = ("sequence", "consecutive")
SEED_RANGE = 2**32
"""Every seed a face draws by itself is below this: OpenSpiel's face takes 32-bit seeds."""


class MeepleVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``game`` stepped together (see the module docstring)."""

    def __init__(
        self,
        game: str,
        num_envs: int,
        players: int | None = None,
        tensor: str = "observation",
        seat: int | None = None,
        seeding: str = "sequence",
        opponents: str | None = None,
        **options: Any,
    ) -> None:
        if num_envs < 1:
            raise ValueError("num_envs must be at least 1")
        if tensor not in TENSORS:
            raise ValueError(f"tensor must be one of {TENSORS}, not {tensor!r}")
        if seeding not in SEEDINGS:
            raise ValueError(f"seeding must be one of {SEEDINGS}, not {seeding!r}")
        info = meeple.game_info(game)
        self.game = game
        self.players = players if players is not None else min(info.player_counts)
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"seat must be in [0, {self.players}), not {seat}")
        self.seat = seat
        self.seeding = seeding
        if opponents is not None:
            if seat is None:
                raise ValueError("opponents play the seats other than `seat`: give a seat")
            make_bot(opponents, info, 0)  # an unknown level fails here, naming the levels
        self.opponents = opponents
        self._bots: list[dict[int, Any]] = []
        self.options = info.resolve_options(self.players, options)
        self.num_envs = num_envs
        self.tensor = tensor
        self._encoding = encoding(game, self.players, self.options)
        self._layout = (
            layout(game, self.players, self.options) if tensor == "information_state" else None
        )
        size = self._layout.size if self._layout is not None else self._encoding.size
        self._size = size
        self._num_actions = info.num_actions
        low = -np.inf if self._layout is not None else -1.0
        high = np.inf if self._layout is not None else 1.0
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8),
                "to_move": spaces.Discrete(self.players),
            }
        )
        self.single_action_space = spaces.Discrete(self._num_actions)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, (num_envs, size), np.float32),
                "action_mask": spaces.Box(0, 1, (num_envs, self._num_actions), np.int8),
                "to_move": spaces.MultiDiscrete([self.players] * num_envs),
            }
        )
        self.action_space = spaces.MultiDiscrete([self._num_actions] * num_envs)
        mode = getattr(gymnasium.vector, "AutoresetMode", None)
        self.metadata = {
            "name": f"meeple_{game}_vector_v0",
            "autoreset_mode": mode.SAME_STEP if mode is not None else "same-step",
        }
        self._obs = np.zeros((num_envs, size), np.float32)
        self._mask = np.zeros((num_envs, self._num_actions), np.int8)
        self._to_move = np.zeros(num_envs, np.int64)
        self._states: list[State] = []
        self._legal: list[list[int]] = []
        self._actors: list[list[int]] = []
        self._records: list[dict[int, Record]] = []
        self._seeds = np.random.default_rng()
        self.seeds = np.zeros(num_envs, np.int64)

    # ----- Gymnasium's vector API --------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if seed is not None and self.seeding == "consecutive":
            self._seeds = np.random.default_rng(seed)
            seeds = [int(seed) + i for i in range(self.num_envs)]
        elif seed is not None:
            sequence = np.random.SeedSequence(seed)
            seeds = [int(w) for w in sequence.generate_state(self.num_envs, np.uint32)]
            self._seeds = np.random.default_rng(sequence.spawn(1)[0])
        else:
            seeds = [self._next_seed() for _ in range(self.num_envs)]
        self.seeds[:] = seeds
        self._states = [self._new(s) for s in seeds]
        self._legal = [[] for _ in range(self.num_envs)]
        self._actors = [[] for _ in range(self.num_envs)]
        self._records = [{} for _ in range(self.num_envs)]
        self._bots = [self._seat_bots(s) for s in seeds]
        self._mask.fill(0)
        for i in range(self.num_envs):
            self._play_opponents(i)
            self._observe(i)
        return self._out(), {}

    def step(
        self, actions: Any
    ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions).reshape(self.num_envs)
        rewards = np.zeros((self.num_envs, self.players), np.float64)
        terminations = np.zeros(self.num_envs, np.bool_)
        truncations = np.zeros(self.num_envs, np.bool_)
        final: np.ndarray | None = None
        info: dict[str, Any] = {}
        for i, state in enumerate(self._states):
            actor = state.to_move
            state.apply(int(actions[i]), legal=self._legal[i])
            self._actors[i].append(actor)  # type: ignore[arg-type]
            self._play_opponents(i)  # with opponents the final view is `seat`'s anyway
            if state.to_move is None:  # over: report the returns, start the next game
                returns = state.returns()
                rewards[i] = returns
                terminations[i] = True
                if final is None:
                    final = np.full((self.num_envs, self.players), np.nan)
                final[i] = returns
                info = self._add_info(info, {"final_obs": self._final_obs(state, actor),
                                             "final_info": {"returns": np.asarray(returns)}}, i)
                self.seeds[i] = self._next_seed()
                self._states[i] = self._new(int(self.seeds[i]))
                self._actors[i] = []
                self._records[i] = {}
                self._bots[i] = self._seat_bots(int(self.seeds[i]))
                self._play_opponents(i)
            self._observe(i)
        if final is not None:
            info["final_returns"] = final
        if self.seat is not None:
            return self._out(), rewards[:, self.seat], terminations, truncations, info
        return self._out(), rewards, terminations, truncations, info

    def sample_legal(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action per game (vectorised over the masks)."""
        rng = rng or self._seeds
        noise = rng.random(self._mask.shape) * self._mask
        return noise.argmax(axis=1)

    def close(self, **kwargs: Any) -> None:
        self._states = []

    @property
    def states(self) -> list[State]:
        """The meeple states (read them, do not change them)."""
        return self._states

    # ----- internals ---------------------------------------------------------------------------
    def _next_seed(self) -> int:
        return int(self._seeds.integers(0, SEED_RANGE))

    def _final_obs(self, state: State, actor: int | None) -> dict[str, Any]:
        """A finished game's last observation, seen by ``seat`` (or by its last mover)."""
        who = self.seat if self.seat is not None else actor
        assert who is not None
        if self._layout is None:
            obs = self._encoding.encode(state, who).astype(np.float32)
        else:  # the information state needs the per-player record, which the game drops now
            obs = np.full(self._size, np.nan, np.float32)
        return {"observation": obs, "action_mask": np.zeros(self._num_actions, np.int8),
                "to_move": who}

    def _seat_bots(self, seed: int) -> dict[int, Any]:
        """The opponents of one game, seeded from its seed (so a batch replays exactly)."""
        if self.opponents is None:
            return {}
        info = meeple.game_info(self.game)
        return {p: make_bot(self.opponents, info, (seed * 7919 + p) % 2**31)
                for p in range(self.players) if p != self.seat}

    def _play_opponents(self, i: int) -> int | None:
        """Let the opponents move until it is ``seat``'s turn or the game is over; the last of
        them to move (None if none did)."""
        bots = self._bots[i] if self._bots else {}
        state = self._states[i]
        last = None
        while bots and state.to_move is not None and state.to_move != self.seat:
            last = state.to_move
            state.apply(bots[last].choose(state))
            self._actors[i].append(last)
        return last

    def _new(self, seed: int) -> State:
        return meeple.make(self.game, players=self.players, seed=seed, **self.options)

    def _observe(self, i: int) -> None:
        state = self._states[i]
        p = state.to_move
        assert p is not None
        legal = state.legal_actions()
        self._legal[i] = legal
        row = self._mask[i]
        row.fill(0)
        row[legal] = 1
        self._to_move[i] = p
        lay = self._layout
        if lay is None:
            self._obs[i] = self._encoding.encode(state, p)
            return
        # The information state: the view, then the mover's record, extended incrementally.
        rec = self._records[i].get(p)
        if rec is None:
            rec = self._records[i][p] = Record(lay)
        rec.read_log(state, p)
        actors = self._actors[i]
        if rec.moves_read < len(actors):
            history = state.history
            rec.read_own([history[k] for k in range(rec.moves_read, len(actors)) if actors[k] == p])
            rec.moves_read = len(actors)
        n = self._encoding.size
        self._obs[i, :n] = self._encoding.encode(state, p)
        self._obs[i, n:] = rec.arr

    def _out(self) -> dict[str, np.ndarray]:
        return {
            "observation": self._obs.copy(),
            "action_mask": self._mask.copy(),
            "to_move": self._to_move.copy(),
        }


def vector_env(
    game: str,
    num_envs: int,
    players: int | None = None,
    tensor: str = "observation",
    seat: int | None = None,
    seeding: str = "sequence",
    opponents: str | None = None,
    **options: Any,
) -> MeepleVectorEnv:
    """``num_envs`` games of ``game`` for ``players`` (default: the fewest it takes) with
    ``options``, stepped together; ``tensor`` is ``"observation"`` or ``"information_state"``;
    ``seat``: rewards of that seat only, shape ``(num_envs,)``; ``seeding``: ``"sequence"`` or
    ``"consecutive"``; ``opponents``: a bot level that plays every seat but ``seat`` (see the
    module docstring)."""
    return MeepleVectorEnv(game, num_envs, players=players, tensor=tensor, seat=seat,
                           seeding=seeding, opponents=opponents, **options)
