"""Outside agents: a researcher's own bot at a meeple table or in the arena, next to the levels.

An agent is named by a level string with a prefix (`make_bot` takes it wherever it takes a
level: ``meeple arena --bots``, ``meeple play --bots``, `meeple.bots.arena.run_arena`):

- ``py:MODULE:NAME``: ``NAME`` in ``MODULE`` (a dotted module importable from the working
  folder, or a ``.py`` file) is a class or factory that follows the bot protocol (`Bot`:
  ``choose(state) -> int`` and a ``name``). It is called with whichever of the keyword
  arguments ``info`` (the game's `GameInfo`) and ``seed`` (an int) it accepts.
- ``pz:MODULE:NAME``: a policy ``NAME(observation) -> action`` written against the PettingZoo
  face's observation, the dict of ``observation`` (the game's tensor) and ``action_mask``
  (`meeple.interop.agents`).
- ``learned:PATH``: the weights ``examples/train.py`` saved for this game and player count
  (`meeple.interop.agents`).

Why they are wrapped (`OutsideAgent`): an agent sees only what its seat may know, and a broken
agent never stops a series. A ``py:`` agent is handed a *sealed* copy of the game: the seat's
view and own log, with everything it cannot know resampled (`State.determinize`), so reading a
hidden card reads a random one. A ``pz:`` or ``learned:`` agent gets the seat's observation
only. When an agent raises or answers an action that is not legal, the wrapper counts it
(``errors``, ``illegal``, the first message in ``fault``), plays a uniformly random legal action
in its place from its own seeded generator, and the game goes on; the arena reports the counts
by the agent's name.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import operator
import os
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from meeple.core import GameInfo, State

AGENT_KINDS: dict[str, str] = {
    "py": "meeple.bots.agents:python_agent",
    "pz": "meeple.interop.agents:pettingzoo_agent",
    "learned": "meeple.interop.agents:learned_agent",
}
"""Level prefix -> the factory ``(info, seed, rest_of_spec) -> Bot`` that builds such agents,
by name (``pz`` and ``learned`` need the interop extra's numpy; they load only when used)."""


class AgentError(ValueError):
    """An outside agent could not be loaded: the message names it and says why."""


class OutsideAgent:
    """An outside agent at a seat: what it may see in, a legal action out, faults counted."""

    def __init__(self, name: str, decide: Callable[[State], Any], seed: int, sealed: bool) -> None:
        self.name = name
        self.decide = decide
        self.sealed = sealed
        self.rng = random.Random(seed ^ 0xA6E27)
        self.errors = 0
        self.illegal = 0
        self.fault = ""
        self.agent: Any = None  # the researcher's own object, for its `last` and the like

    def choose(self, state: State) -> int:
        legal = state.legal_actions()
        seen = state
        if self.sealed:
            assert state.to_move is not None
            seen = state.determinize(state.to_move, self.rng, keep_log=True)
        try:
            answer = self.decide(seen)
        except Exception as exc:  # an agent's bug must not stop the series: counted instead
            self.errors += 1
            self._note(f"raised {type(exc).__name__}: {exc}")
            return self.rng.choice(legal)
        try:  # an int or a numpy integer; not a float, a string or an array of several
            action = operator.index(answer)
        except TypeError:
            action = None
        if action is None or action not in legal:
            self.illegal += 1
            self._note(f"answered {answer!r}, not a legal action")
            return self.rng.choice(legal)
        return action

    @property
    def last(self) -> Any:
        return getattr(self.agent, "last", None)

    def _note(self, message: str) -> None:
        if not self.fault:
            self.fault = message


def make_agent(level: str, info: GameInfo, seed: int) -> OutsideAgent:
    """The agent a prefixed level names (see the module docstring); `AgentError` naming it."""
    kind, _, rest = level.partition(":")
    module_name, _, attr = AGENT_KINDS[kind].partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except ImportError as exc:
        raise AgentError(f"{level}: {kind}: agents need the interop extra "
                         f"(pip install -e '.[interop]'): {exc}") from exc
    agent = factory(info, seed, rest)
    agent.name = level
    return agent


def load_attr(level: str, target: str) -> Any:
    """``NAME`` from ``MODULE:NAME`` (a dotted module from the working folder, or a .py file)."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise AgentError(f"{level}: write MODULE:NAME, e.g. examples.my_agent:act")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise AgentError(f"{level}: no file {module_name}")
            spec = importlib.util.spec_from_file_location(f"meeple_agent_{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            if os.getcwd() not in sys.path:  # as `python -m` does: the working folder's modules
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except AgentError:
        raise
    except Exception as exc:
        raise AgentError(f"{level}: cannot import {module_name} ({type(exc).__name__}: {exc})") from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise AgentError(f"{level}: {module_name} has no {attr!r}") from None


def construct(level: str, factory: Callable[..., Any], info: GameInfo, seed: int) -> Any:
    """Call ``factory`` with whichever of ``info`` and ``seed`` it takes (by keyword)."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    anything = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    kwargs = {k: v for k, v in (("info", info), ("seed", seed)) if anything or k in params}
    try:
        return factory(**kwargs)
    except Exception as exc:
        raise AgentError(f"{level}: building it raised {type(exc).__name__}: {exc}") from exc


def python_agent(info: GameInfo, seed: int, target: str) -> OutsideAgent:
    """``py:MODULE:NAME``: a class or factory of bots, each called with a sealed state."""
    level = f"py:{target}"
    bot = construct(level, load_attr(level, target), info, seed)
    if not callable(getattr(bot, "choose", None)):
        raise AgentError(f"{level}: what it builds has no choose(state) method")
    agent = OutsideAgent(level, bot.choose, seed, sealed=True)
    agent.agent = bot
    return agent
