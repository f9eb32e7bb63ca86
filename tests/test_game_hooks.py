"""The hooks a game gives are typed `GameInfo` fields (`meeple.core.hooks`): every registered game's
are of the declared types, a misspelt or unknown one stops registration with a message naming
the field to use, and a hook left out gives the documented default (docs/api.md, "Adding a game")."""

from __future__ import annotations

import collections.abc
import dataclasses
import random
import re
import sys
import types
import typing
from typing import Any

import pytest

import meeple
from meeple.bots import LEVELS, analysis, default_level_specs, ismcts, level_specs, levels, make_bot
from meeple.bots.rollout import RolloutBot
from meeple.core import AnalysisHooks, GameInfo, HookError, SearchHooks, State, TensorHooks, hooks
from meeple.games import package_game, registry
from meeple.games.trickarus.bot import HeuristicBot

GAMES = sorted(registry())


def _fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` is of the annotated type ``hint`` (the checks cheap enough for hooks)."""
    args = typing.get_args(hint)
    if type(None) in args:
        return value is None or _fits(value, next(a for a in args if a is not type(None)))
    origin = typing.get_origin(hint) or hint
    if origin is collections.abc.Callable:
        return callable(value)
    if origin is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if origin is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, origin)


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(
        cls, localns={"State": State, "GameInfo": GameInfo, "random": random}
    )


@pytest.mark.parametrize("game", GAMES)
def test_every_games_hooks_have_the_declared_types(game: str) -> None:
    """Each hook of each registered game is of the type its field declares, each level the game
    defines makes a bot, and the game's package passes the registration check."""
    info = meeple.game_info(game)
    assert package_game(sys.modules[f"meeple.games.{game}"]) is info
    for cls, given in ((SearchHooks, info.search), (AnalysisHooks, info.analysis)):
        assert type(given) is cls
        for name, hint in _hints(cls).items():
            assert _fits(getattr(given, name), hint), f"{game}: {cls.__name__}.{name}"
    # GameInfo may be compiled (mypyc), whose annotations typing cannot read back: the declared
    # type, ``str | None``, is spelt out.
    assert info.tensors is None or isinstance(info.tensors, str)
    for name, spec in info.levels.items():
        assert name in hooks.OWN_LEVELS or (spec == name and name in info.bots)
        for n in info.player_counts:
            assert make_bot(name, info, 0) is not None and level_specs(info, n)[name]


@pytest.mark.parametrize("game", GAMES)
def test_every_games_tensor_hooks_have_the_declared_types(game: str) -> None:
    pytest.importorskip("numpy")
    from meeple.interop.tensor import tensor_hooks

    got = tensor_hooks(meeple.game_info(game))
    assert type(got) is TensorHooks
    for name, hint in _hints(TensorHooks).items():
        assert _fits(getattr(got, name), hint), f"{game}: TensorHooks.{name}"


def test_the_hook_checks_follow_the_declared_types() -> None:
    """Every field refuses a value of another type (so the checks and the annotations agree)."""
    wrong = {"callable": 3, "int": "3", "float": "x", "str": 3, "bool": 1}
    for cls in (SearchHooks, AnalysisHooks, TensorHooks):
        for name, hint in _hints(cls).items():
            kind = next(k for k in wrong if k in str(hint).lower())
            with pytest.raises(HookError, match=f"{cls.__name__}.{name}"):
                cls(**{name: wrong[kind]})
    with pytest.raises(HookError, match="rollout"):
        SearchHooks(rollout="fast")
    with pytest.raises(HookError, match="depth"):
        SearchHooks(depth=0)
    with pytest.raises(HookError, match="go together"):
        TensorHooks(observation_tensor=lambda s, p: [])


def _factory(players: int, seed: int, options: dict[str, Any]) -> State:
    return meeple.make("trickarus", players=players, seed=seed)


def fake(**hook_fields: Any) -> GameInfo:
    """A throwaway game (Trickarus' rules under another id, never registered for real)."""
    return GameInfo(
        id="fake", title="Fake", description="", player_counts=(3, 4), options=(),
        num_actions=meeple.game_info("trickarus").num_actions, state_factory=_factory,
        bots={"heuristic": HeuristicBot, "own": HeuristicBot}, **hook_fields,
    )  # fmt: skip


def package(info: GameInfo, **attributes: Any) -> types.ModuleType:
    module = types.ModuleType("fake_game")
    module.GAME = info  # type: ignore[attr-defined]
    for name, value in attributes.items():
        setattr(module, name, value)
    return module


def test_a_misspelt_hook_fails_loudly() -> None:
    """A misspelt field is an unexpected keyword; a wrong type or a level that cannot be is
    refused when the game is made, each naming what is wrong."""
    with pytest.raises(TypeError, match="serch"):
        fake(serch=SearchHooks())
    with pytest.raises(TypeError, match="evaluat"):
        SearchHooks(evaluat=lambda s: [])  # type: ignore[call-arg]
    with pytest.raises(HookError, match="GameInfo.search must be a SearchHooks"):
        fake(search={"depth": 3})
    with pytest.raises(HookError, match="expret"):
        fake(levels={"expret": "ismcts:100"})
    with pytest.raises(HookError, match="'easy' is meeple's own"):
        fake(levels={"easy": "heuristic"})
    with pytest.raises(HookError, match="player counts"):
        fake(levels={"hard": {2: "heuristic"}})
    with pytest.raises(HookError, match="prior_bot 'guide'"):
        fake(search=SearchHooks(prior=1.0, prior_bot="guide"))
    with pytest.raises(HookError, match="needs SearchHooks.horizon"):
        fake(analysis=AnalysisHooks(cut=True))
    assert fake(levels={"own": "own", "hard": {3: "own", 4: "heuristic"}}).levels["own"] == "own"


@pytest.mark.parametrize(
    ("attribute", "field"),
    [("ISMCTS_EVAL", "SearchHooks(evaluate="), ("ROLLOUT_HORIZON", "SearchHooks(horizon="),
     ("BOT_LEVELS", "levels="), ("ANALYSIS_CUT", "AnalysisHooks(cut="),
     ("observation_tensor", "tensors=")],
)  # fmt: skip
def test_a_hook_given_the_old_way_fails_registration(attribute: str, field: str) -> None:
    """A game package that still defines a hook as a module attribute is refused, the message
    naming the hook and the field that took it over."""
    with pytest.raises(HookError, match=rf"fake_game defines {attribute}.*{re.escape(field)}"):
        package_game(package(fake(), **{attribute: lambda s: s}))


def test_an_unknown_hook_like_name_and_a_missing_tensor_module_fail_registration() -> None:
    with pytest.raises(HookError, match="ISMCTS_EVALL, which is no hook"):
        package_game(package(fake(), ISMCTS_EVALL=lambda s: s))
    with pytest.raises(HookError, match="no module"):
        package_game(package(fake(tensors="meeple.games.fake.tensor")))
    assert package_game(package(fake(), SOME_CONSTANT=3)) is not None  # not hook-like: fine
    assert package_game(types.ModuleType("not_a_game")) is None


def test_a_tensor_module_must_give_its_hooks_in_tensors(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("fake_tensor")

    def observation_tensor(state: State, player: int | None) -> list[float]:
        return []

    module.observation_tensor = observation_tensor  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_tensor", module)
    with pytest.raises(HookError, match="must define TENSORS"):
        hooks.load_tensors("fake_tensor")
    module.TENSORS = TensorHooks()  # type: ignore[attr-defined]
    with pytest.raises(HookError, match="defines observation_tensor but TENSORS does not give it"):
        hooks.load_tensors("fake_tensor")
    module.TENSORS = TensorHooks(
        observation_tensor_shape=lambda p, o: (0,),  # type: ignore[attr-defined]
        observation_tensor=observation_tensor,
    )
    assert hooks.load_tensors("fake_tensor") is module.TENSORS  # type: ignore[attr-defined]


def test_missing_hooks_give_the_documented_defaults() -> None:
    """Without hooks: ISMCTS plays random playouts to the end at DEFAULT_ITERATIONS with no bias
    and every legal move in its tree; levels are the defaults; the rollout bot has no horizon,
    value or world; the analysis plays `hard` out (or `medium` where `hard` is a search) to the
    end; the interop adapters use the generic encodings."""
    info = fake()
    assert info.search == SearchHooks() and info.analysis == AnalysisHooks()
    assert info.levels == {} and info.tensors is None
    bot = make_bot("ismcts", info, 0)
    assert isinstance(bot, ismcts.ISMCTSBot)
    assert bot.iterations == ismcts.DEFAULT_ITERATIONS
    assert ismcts.default_rollout(info) == "game" and bot.rollout_policy is None
    assert bot.rollout_depth is None and bot.evaluate is None and bot.candidates is None
    assert bot.prior is None and bot.prior_weight == 0.0 and bot.horizon is None
    assert levels(info) == list(LEVELS)
    assert {k: level_specs(info)[k] for k in ("medium", "hard", "expert")} == default_level_specs(
        info
    )
    assert default_level_specs(info)["hard"] == f"ismcts:{ismcts.DEFAULT_ITERATIONS}"
    rb = RolloutBot(info, 0, base="medium")
    assert rb.horizon is rb.value is rb.world is rb.evaluate is rb.candidates_hook is None
    assert analysis.rollout_policy(info) == "medium"  # `hard` is a search here
    assert analysis.rollout_policy(fake(levels={"hard": "heuristic"})) == "hard"
    assert hooks.NO_TENSORS == TensorHooks()


def test_swapped_changes_a_games_hooks_for_a_block_only() -> None:
    info = meeple.game_info("trickarus")
    before = info.search
    with hooks.swapped(info, search=dataclasses.replace(before, iterations=7)):
        assert ismcts.default_iterations(info) == 7
    assert info.search is before
    with pytest.raises(HookError, match="no hook field serch"), hooks.swapped(info, serch=before):
        pass
    with pytest.raises(HookError, match="SearchHooks"), hooks.swapped(info, search=3):
        pass
    assert info.search is before
