"""Outside agents that see what the PettingZoo face shows a seat: ``pz:`` policies and
``learned:`` weights (the prefixes and the wrapper are `meeple.bots.agents`).

- ``pz:MODULE:NAME``: ``NAME(observation) -> action``, where ``observation`` is exactly the
  PettingZoo face's observation of the seat to move: ``{"observation": tensor, "action_mask":
  int8 mask}`` (`meeple.interop.pettingzoo`). The policy never gets the state, so it cannot
  see more than that seat may. A class is built first (with ``info``/``seed`` if it takes
  them) and its instances are called.
- ``learned:PATH``: a policy network saved by ``examples/train.py`` (`save_policy`): the game's
  default observation tensor (`meeple.interop.tensor.encoding`, what OpenSpiel's
  ``observation_tensor`` gives) in, a ReLU multi-layer perceptron, the legal action with the
  highest logit out (deterministic). The file names its game, player count, options and tensor
  layout; playing it elsewhere is refused with the reason. numpy only: no PyTorch needed.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

import meeple
from meeple.bots.agents import AgentError, OutsideAgent, construct, load_attr
from meeple.core import GameInfo, State

from .tensor import Encoding, encoding

FORMAT = "meeple-learned/1"


def observe(state: State, player: int, enc: Encoding | None = None) -> dict[str, np.ndarray]:
    """The PettingZoo face's observation of ``player`` (the mover: its mask holds the legal actions)."""
    enc = enc or encoding(state.game_id, state.players, state.options)
    obs = enc.encode(state, player)
    if len(enc.shape) > 1:
        obs = obs.reshape(enc.shape)
    mask = np.zeros(state.info.num_actions, np.int8)
    if state.to_move == player:
        mask[state.legal_actions()] = 1
    return {"observation": obs, "action_mask": mask}


def _observing(policy: Any) -> Any:
    """``state -> policy(observation of the mover)``: the state itself never reaches the policy."""

    def decide(state: State) -> Any:
        assert state.to_move is not None
        return policy(observe(state, state.to_move))

    return decide


def pettingzoo_agent(info: GameInfo, seed: int, target: str) -> OutsideAgent:
    """``pz:MODULE:NAME``: a policy on the PettingZoo observation."""
    level = f"pz:{target}"
    policy = load_attr(level, target)
    if isinstance(policy, type):
        policy = construct(level, policy, info, seed)
    if not callable(policy):
        raise AgentError(f"{level}: {target} is not callable as policy(observation) -> action")
    agent = OutsideAgent(level, _observing(policy), seed, sealed=False)
    agent.agent = policy
    return agent


# ----- learned policies --------------------------------------------------------------------------
def layout_digest(enc: Encoding) -> str:
    """A short fingerprint of a tensor layout: weights trained on one layout refuse another."""
    parts = [enc.source, list(enc.shape)] + [[s.offset, s.size, s.path, s.kind] for s in enc.segments]
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:16]


class LearnedPolicy:
    """A ReLU perceptron over a game's observation tensor (arrays ``w0, b0, w1, b1, ...`` in
    PyTorch's ``out x in`` layout) and the configuration it was trained on."""

    def __init__(self, meta: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        self.meta = meta
        n = sum(1 for k in arrays if k.startswith("w"))
        self.layers = [(arrays[f"w{i}"].astype(np.float32), arrays[f"b{i}"].astype(np.float32))
                       for i in range(n)]

    @property
    def game(self) -> str:
        return str(self.meta["game"])

    @property
    def players(self) -> int:
        return int(self.meta["players"])

    def logits(self, x: np.ndarray) -> np.ndarray:
        for i, (w, b) in enumerate(self.layers):
            x = w @ x + b
            if i + 1 < len(self.layers):
                x = np.maximum(x, 0.0)
        return x

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """The legal action with the highest logit (the lowest on a tie)."""
        logits = self.logits(np.asarray(observation["observation"], np.float32).ravel())
        mask = observation["action_mask"].astype(bool)
        return int(np.flatnonzero(mask)[np.argmax(logits[mask])])


def save_policy(path: Path | str, game: str, players: int, arrays: dict[str, np.ndarray],
                options: dict[str, Any] | None = None, **extra: Any) -> Path:
    """Write ``arrays`` (``w0, b0, ...``) with what they were trained on; `load_policy` reads it."""
    info = meeple.game_info(game)
    resolved = info.resolve_options(players, dict(options or {}))
    enc = encoding(game, players, resolved)
    meta = {"format": FORMAT, "game": game, "players": players, "options": resolved,
            "tensor": "observation", "size": enc.size, "layout": layout_digest(enc),
            "num_actions": info.num_actions, **extra}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:  # a file object: numpy adds no second ".npz" to the name
        np.savez_compressed(f, meta=np.array(json.dumps(meta)), **arrays)
    return path


def random_policy(game: str, players: int, hidden: tuple[int, ...] = (64,), seed: int = 0,
                  options: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Untrained weights of the right shapes (He-initialised): a numpy-only stand-in for a
    training run, for tests and for a baseline."""
    enc = encoding(game, players, options)
    sizes = [enc.size, *hidden, meeple.game_info(game).num_actions]
    rng = np.random.default_rng(seed)
    arrays = {}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:], strict=False)):
        arrays[f"w{i}"] = (rng.standard_normal((b, a)) * np.sqrt(2 / a)).astype(np.float32)
        arrays[f"b{i}"] = np.zeros(b, np.float32)
    return arrays


@cache
def _load(path: str, mtime: float) -> LearnedPolicy:
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        arrays = {k: data[k] for k in data.files if k != "meta"}
    return LearnedPolicy(meta, arrays)


def load_policy(path: Path | str) -> LearnedPolicy:
    """The policy in ``path`` (read once per file version)."""
    p = Path(path)
    level = f"learned:{path}"
    if not p.is_file():
        raise AgentError(f"{level}: no such file")
    try:
        policy = _load(str(p.resolve()), p.stat().st_mtime)
    except Exception as exc:
        raise AgentError(f"{level}: not weights saved by examples/train.py "
                         f"({type(exc).__name__}: {exc})") from exc
    if policy.meta.get("format") != FORMAT:
        raise AgentError(f"{level}: not weights saved by examples/train.py")
    return policy


class _Learned:
    """Checks the game it sits at against what the weights were trained on, then plays them."""

    def __init__(self, level: str, policy: LearnedPolicy) -> None:
        self.level, self.policy = level, policy
        self._checked: tuple[int, str] | None = None
        self._enc: Encoding | None = None

    def fits(self, players: int, options: dict[str, Any]) -> None:
        """`AgentError` unless a game of ``players`` with ``options`` is what it was trained on."""
        meta = self.policy.meta
        if players != meta["players"] or options != meta["options"]:
            raise AgentError(f"{self.level}: trained for {meta['game']} at {meta['players']} "
                             f"players with {meta['options']}, not {players} players with {options}")
        enc = encoding(meta["game"], players, options)
        if enc.size != meta["size"] or layout_digest(enc) != meta["layout"]:
            raise AgentError(f"{self.level}: the game's observation tensor has changed since "
                             "these weights were trained; train them again")
        self._enc = enc

    def __call__(self, state: State) -> int:
        key = (state.players, json.dumps(state.options, sort_keys=True))
        if self._checked != key:
            self.fits(state.players, state.options)
            self._checked = key
        assert state.to_move is not None
        return self.policy.act(observe(state, state.to_move, self._enc))


def learned_agent(info: GameInfo, seed: int, path: str) -> OutsideAgent:
    """``learned:PATH``: weights from ``examples/train.py``, for the game they were trained on."""
    policy = load_policy(path)
    level = f"learned:{path}"
    if policy.game != info.id:
        raise AgentError(f"{level}: trained for {policy.game}, not {info.id}")
    learned = _Learned(level, policy)
    agent = OutsideAgent(level, learned, seed, sealed=False)
    agent.agent = learned
    agent.fits = learned.fits  # type: ignore[attr-defined]
    return agent
