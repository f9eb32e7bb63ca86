"""Rollout search: a base bot's best moves, each played out by bots over shared sampled worlds.

Why: where a tree search at an affordable budget does not beat a game's good heuristic, playing
that heuristic's own candidates out and keeping the one that does best is a policy improvement
step over the heuristic (Tesauro and Galperin 1996, "On-line policy improvement using Monte-Carlo
search"; Bertsekas' rollout algorithm). It costs candidates x worlds playouts a decision, and
never does worse than the base bot by more than the noise of those playouts.

The bot never sees hidden information: every world is ``state.determinize(me, rng)``, and all
candidates of one decision are judged on the same worlds with the same playout seeds (common
random numbers), so their difference is the move, not the luck.

Level ``rollout:<knob>`` (`parse_knob`), e.g. ``rollout:shedder:k4:w12:m0.02``. Optional hooks
a game may give (``GameInfo(search=SearchHooks(...))``, `meeple.core.hooks`):

- ``horizon: Callable[[State], object]``: a key such as the round number; a playout stops
  as soon as it changes (a round's end is where a trick-taker's points are sure);
- ``value: Callable[[State, int], float]``: the mover's value where a playout stopped
  (larger is better; e.g. its points minus the best other player's), else
  `meeple.bots.ismcts.leaf_returns` (``evaluate`` if the game has one);
- ``world: Callable[[State, int, random.Random], State]``: a world to play out, sampled
  from what the mover knows, in place of ``state.determinize(me, rng)``: a uniform sample ignores
  what the others' moves said (a bid says something about the bidder's card), and a bot judging
  a challenge on worlds that ignore it challenges too often. It must read only the mover's view.
- a base bot with ``ranked(state) -> list[int]`` (best first) names the candidates; otherwise the
  game's ``candidates``, else every legal action, with the base bot's own move first.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from meeple.core import GameInfo, State

from .ismcts import evaluation_for, leaf_returns

MAX_PLAYOUT = 20_000  # a playout longer than this is a game bug, not a search problem

Horizon = Callable[[State], object]
Value = Callable[[State, int], float]
World = Callable[[State, int, random.Random], State]


@dataclass
class RolloutStats:
    """What the last decision did: playouts run, each candidate's mean value (margin included)."""

    iterations: int
    seconds: float
    candidates: list[int] = field(default_factory=list)
    means: list[float] = field(default_factory=list)
    capped: bool = False  # stopped by ``max_seconds`` short of its worlds (the safety net)


class RolloutBot:
    """Keep the base bot's best `keep` moves; play each out on `worlds` shared determinizations
    (every seat by the playout bot, to the game's end, the horizon or `depth` actions); choose
    the best mean value. The base bot's own move gets `margin` on top, so noise alone does not
    move the bot off it. A work budget, no clock: one seed gives one game anywhere."""

    def __init__(
        self,
        info: GameInfo,
        seed: int,
        base: str,
        playout: str | None = None,
        keep: int = 4,
        worlds: int = 8,
        depth: int | None = None,
        margin: float = 0.0,
    ) -> None:
        from . import _own_specs, level_specs, make_bot  # the registry imports this module

        self.name = f"rollout:{base}"
        self.info, self.keep, self.worlds, self.margin = info, keep, worlds, margin
        self.depth = depth or MAX_PLAYOUT
        self.rng = random.Random(seed)
        self.base = make_bot(base, info, seed)
        level = playout or base
        # A named level resolved once, not at each of the keep x worlds x seats bots it makes.
        # (One defined per player count stays a name: its bot picks by the state's count.)
        if level in ("medium", "hard", "expert") and isinstance(_own_specs(info).get(level, ""), str):
            level = level_specs(info)[level]
        self.playout_level = level
        self._make_bot = make_bot
        self.horizon: Horizon | None = info.search.horizon
        self.value: Value | None = info.search.value
        self.world: World | None = info.search.world
        self.evaluate = evaluation_for(info)
        self.candidates_hook = info.search.candidates
        self.max_seconds: float | None = None  # a server's safety net only; None = no clock
        self.last: RolloutStats | None = None

    @property
    def iterations(self) -> int:
        """The work budget: playouts per decision (fewer where fewer moves are candidates)."""
        return self.keep * self.worlds

    def choose(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = state.to_move
        assert me is not None
        candidates = self.candidates(state, legal)
        if len(candidates) == 1:
            return candidates[0]
        start = time.perf_counter()
        totals = [0.0] * len(candidates)
        done, capped = 0, False
        while done < self.worlds:
            if self.world is not None:
                world = self.world(state, me, self.rng)
            else:
                world = state.determinize(me, self.rng)
            seed = self.rng.randrange(1 << 30)
            for i, action in enumerate(candidates):
                totals[i] += self._play_out(world, action, me, seed)
            done += 1
            if self.max_seconds is not None and time.perf_counter() - start > self.max_seconds:
                capped = done < self.worlds
                break
        means = [t / done for t in totals]
        means[0] += self.margin  # candidates[0] is the base bot's own move
        best = max(range(len(candidates)), key=means.__getitem__)
        self.last = RolloutStats(
            done * len(candidates), time.perf_counter() - start, candidates, means, capped
        )
        return candidates[best]

    def candidates(self, state: State, legal: list[int]) -> list[int]:
        """The base bot's move first, then its next best (or the game's candidates), `keep` in all."""
        ranked = getattr(self.base, "ranked", None)
        if callable(ranked):
            order = list(ranked(state))
        else:
            first = self.base.choose(state)
            pool = self.candidates_hook(state) if callable(self.candidates_hook) else legal
            order = [first, *(a for a in pool if a != first)]
        out: list[int] = []
        for a in order:
            if a not in out and a in legal:
                out.append(a)
            if len(out) == self.keep:
                break
        return out

    def _play_out(self, world: State, action: int, me: int, seed: int) -> float:
        c = world.clone()
        key = self.horizon(c) if self.horizon is not None else None
        c._apply(action)  # legal in `state`, so in every determinization of it
        c.history.append(action)
        bots = [self._make_bot(self.playout_level, self.info, seed + k) for k in range(c.players)]
        for _ in range(self.depth):
            p = c.to_move
            if p is None or (self.horizon is not None and self.horizon(c) != key):
                break
            a = bots[p].choose(c)
            c._apply(a)
            c.history.append(a)
        if self.value is not None:
            return self.value(c, me)
        return leaf_returns(c, self.evaluate)[me]


def parse_knob(knob: str) -> dict[str, Any]:
    """``<base>[:<playout>][:k<keep>][:w<worlds>][:d<depth>][:m<margin>]``.

    ``base`` is any level of the game (its own bot names, ``medium``, ``hard``, ...): it ranks
    the candidates; ``playout`` plays every seat in the playouts (default: ``base``).
    """
    out: dict[str, Any] = {}
    names: list[str] = []
    for part in knob.strip().split(":"):
        if not part:
            continue
        tag, rest = part[0], part[1:]
        try:
            if tag in "kwd" and rest.isdigit() and int(rest) > 0:
                out[{"k": "keep", "w": "worlds", "d": "depth"}[tag]] = int(rest)
                continue
            if tag == "m" and float(rest) >= 0:
                out["margin"] = float(rest)
                continue
        except ValueError:
            pass
        names.append(part)
    if not 1 <= len(names) <= 2:
        raise ValueError(
            f"rollout knob {knob!r}: give a base level and optionally a playout level, keep, "
            f"worlds, depth and margin, e.g. rollout:heuristic:k4:w8:d60:m0.02"
        )
    out["base"] = names[0]
    if len(names) == 2:
        out["playout"] = names[1]
    return out


def make_rollout(info: GameInfo, seed: int, knob: str) -> RolloutBot:
    return RolloutBot(info, seed, **parse_knob(knob))
