"""Generic checks of the engine contract, reused by every game's tests.

`configs()` lists every game × player count × option variant worth fuzzing; the functions below
check one state or one playthrough and fail with a message that says which game and seed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import meeple
from meeple.core import BadOption, BadPlayerCount, IllegalAction, State

MAX_ACTIONS = 20_000  # a random game longer than this is a bug (a loop with no progress)


def option_variants(info: meeple.GameInfo) -> list[dict[str, Any]]:
    """Defaults, plus each option set to each of its other values (range options: ends only)."""
    variants: list[dict[str, Any]] = [{}]
    for opt in info.options:
        choices = list(opt.choices)
        if len(choices) > 6:
            choices = [choices[0], choices[1], choices[-1]]
        variants += [{opt.name: c} for c in choices if c != opt.default or type(c) is not type(opt.default)]
    return variants


def configs(game_id: str | None = None) -> Iterator[tuple[str, int, dict[str, Any]]]:
    for info in (meeple.game_info(g["id"]) for g in meeple.games()):
        if game_id is not None and info.id != game_id:
            continue
        for players in info.player_counts:
            for options in option_variants(info):
                try:
                    info.resolve_options(players, options)
                except (BadOption, BadPlayerCount):
                    continue
                yield info.id, players, options


def config_id(cfg: tuple[str, int, dict[str, Any]]) -> str:
    game, players, options = cfg
    opts = ",".join(f"{k}={v}" for k, v in options.items())
    return f"{game}-{players}p" + (f"-{opts}" if opts else "")


def play_random(
    state: State, rng: random.Random, each: Callable[[State], None] | None = None
) -> State:
    """Play uniformly random legal actions to the end, calling ``each(state)`` after every one."""
    for _ in range(MAX_ACTIONS):
        if state.is_over():
            return state
        legal = state.legal_actions()
        assert legal, f"{state!r}: no legal action but the game is not over"
        assert legal == sorted(set(legal)), "legal_actions must be ascending and unique"
        state.apply(rng.choice(legal))
        if each is not None:
            each(state)
    raise AssertionError(f"{state!r}: no end after {MAX_ACTIONS} actions")


def check_finished(state: State) -> None:
    assert state.to_move is None and state.legal_actions() == []
    n = state.players
    assert len(state.scores()) == n
    ranking = state.ranking()
    assert len(ranking) == n and min(ranking) == 1
    assert all(1 <= r <= n for r in ranking)
    assert all(-1.0 <= r <= 1.0 for r in state.returns())
    json.dumps(state.view(None))
    with _raises(IllegalAction):
        state.apply(0)


def check_replay(state: State) -> None:
    record = json.loads(json.dumps(state.record()))
    again = meeple.replay(record)
    assert again.history == state.history
    for p in [None, *range(state.players)]:
        view = state.view(p)
        # plain JSON: no tuple or set (a state's own tuples must be listed in its view)
        assert json.loads(json.dumps(view)) == view, f"the view of {p} is not plain JSON"
        assert again.view(p) == view, f"replay differs in the view of {p}"
        assert again.log(p) == state.log(p)
    assert again.scores() == state.scores()


def check_actions_json(state: State) -> None:
    for a in state.legal_actions():
        obj = json.loads(json.dumps(state.action_to_json(a)))
        assert state.action_from_json(obj) == a, f"action {a} does not round-trip via {obj}"
        assert isinstance(state.describe(a), str) and state.describe(a)


# Up to this many action ids are checked one by one; a larger action space is checked through a
# seeded stratified sample of this size (one id from each equal slice of the range, so every
# check spans the whole range and successive checks try different ids).
ILLEGAL_SWEEP = 256


def illegal_ids(num_actions: int, legal: set[int], seed: int, sweep: int = ILLEGAL_SWEEP) -> list[int]:
    """The action ids to try as illegal: every id outside ``legal`` (or, past ``sweep`` ids, a
    stratified sample of ``sweep`` of them chosen by ``seed``), plus ids outside the range."""
    if num_actions <= sweep:
        ids = range(num_actions)
    else:
        rng = random.Random(seed)
        edges = [num_actions * i // sweep for i in range(sweep + 1)]
        ids = [rng.randrange(lo, hi) for lo, hi in zip(edges, edges[1:], strict=False) if hi > lo]
    out = [a for a in ids if a not in legal]
    if num_actions > sweep:  # the ends of the range, always
        out += [a for a in (0, num_actions - 1) if a not in legal and a not in out]
    return [-1, num_actions, num_actions + 1, 2**40, *out]


def check_illegal_untouched(
    state: State, num_actions: int, seed: int = 0, sweep: int = ILLEGAL_SWEEP
) -> int:
    """Every action id outside ``legal_actions()`` (a seeded sample covering the whole range when
    there are more than ``sweep``), ids outside the range and non-ints are refused with an
    `IllegalAction` naming the action, by `apply` and `action_from_json`, and `is_legal` says no;
    the state is untouched afterwards. Returns how many ids were tried."""
    if state.is_over():
        return 0
    def snapshot() -> tuple:
        return (state.view(None), [state.view(p) for p in range(state.players)],
                list(state.history), state.to_move, state.legal_actions())

    before = snapshot()
    legal = set(state.legal_actions())
    assert legal, f"{state!r}: no legal action but the game is not over"
    ids = illegal_ids(num_actions, legal, seed, sweep)
    for a in ids:
        assert not state.is_legal(a), f"{state!r}: is_legal({a}) but {a} is not in legal_actions()"
        try:
            state.apply(a)
        except IllegalAction as exc:
            assert str(a) in str(exc), f"{state!r}: the error for action {a} does not name it: {exc}"
        else:
            raise AssertionError(f"{state!r}: illegal action {a} was applied")
        with _raises(IllegalAction):
            state.action_from_json(a)
    for a in ["x", 1.5, None, True, False, [0], {"no such": "action"}]:
        with _raises(IllegalAction):
            state.apply(a)  # type: ignore[arg-type]
    with _raises(IllegalAction):
        state.action_from_json({"no such": "action"})
    assert snapshot() == before, f"{state!r}: an illegal action changed the state"
    return len(ids)


def check_no_leak(state: State, rng: random.Random, tries: int = 4) -> bool:
    """view(p) is unchanged by determinize(p). Returns True if some hidden part really differed."""
    differed = False
    if state.is_over():
        return False
    for p in range(state.players):
        mine = state.view(p)
        for _ in range(tries):
            det = state.determinize(p, rng)
            assert det.view(p) == mine, f"{state!r}: determinize({p}) changed player {p}'s view"
            assert det.legal_actions() == state.legal_actions() or det.to_move != p
            others = [q for q in range(state.players) if q != p]
            if any(det.view(q) != state.view(q) for q in others):
                differed = True
        # What determinize samples may depend on p's information only: two worlds p cannot tell
        # apart, resampled with the same rng seed, give the same world. (Otherwise the hidden
        # layout leaks into search through the sample.)
        a, b = state.determinize(p, rng), state.determinize(p, rng)
        x, y = a.determinize(p, random.Random(9)), b.determinize(p, random.Random(9))
        for q in [None, *range(state.players)]:
            assert x.view(q) == y.view(q), f"{state!r}: determinize({p}) depends on hidden state"
    return differed


def check_determinized_plays_out(state: State, rng: random.Random) -> None:
    if state.is_over():
        return
    det = state.determinize(state.to_move, rng)  # type: ignore[arg-type]
    play_random(det, rng)
    assert det.is_over()


class _raises:
    def __init__(self, exc: type[BaseException]) -> None:
        self.exc = exc

    def __enter__(self) -> None:
        return None

    def __exit__(self, et, ev, tb) -> bool:  # type: ignore[no-untyped-def]
        if et is None:
            raise AssertionError(f"expected {self.exc.__name__}")
        return issubclass(et, self.exc)


class SlowClock:
    """A `time` stand-in on which every reading is a full second later: a machine as slow as can
    be, for tests that a level is a work budget and that a time cap is only a counted safety net."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        self.now += 1.0
        return self.now


def midgame_states(game: str, seed: int, stops: int, every: int = 3, min_legal: int = 2,
                   players: int | None = None) -> list:
    """Up to ``stops`` positions of a seeded random game at ``players`` (default: the smallest
    count), every ``every`` steps, each with a real decision (``min_legal`` or more legal
    actions) to make: where the bot tests ask a level to decide."""
    import random

    import meeple

    info = meeple.game_info(game)
    state = meeple.make(game, players=players or min(info.player_counts), seed=seed)
    rng = random.Random(seed)
    found = []
    step = 0
    while not state.is_over() and len(found) < stops:
        if len(state.legal_actions()) >= min_legal and step % every == 0:
            found.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
        step += 1
    return found


def attrs(state) -> set[str]:
    """The attributes a state holds (a mypyc-compiled class lists them in ``__mypyc_attrs__``)."""
    names = set(getattr(state, "__dict__", {}))
    for name in getattr(type(state), "__mypyc_attrs__", ()):
        if name != "__dict__" and hasattr(state, name):
            names.add(name)
    return names


# The last legal actions (and Karvi's task they answer); Karvi's map distances (shared on
# purpose); whether the event log, or Zarcana's deck, is shared with a clone (a copy marks the
# original too: bookkeeping, not the game).
CACHES = {"_legal", "_legal_task", "_dist_memo", "_log_shared", "_deck_own"}


def plain(x):
    """``x`` as nested lists, dicts and values (an object, such as Karvi's `Player`, becomes the
    dict of its attributes), so that two snapshots compare by value."""
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if isinstance(x, set):
        return sorted(x, key=repr)
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    names = getattr(type(x), "__mypyc_attrs__", None) or getattr(type(x), "__slots__", None)
    if names:
        return {k: plain(getattr(x, k)) for k in names if k != "__dict__" and hasattr(x, k)}
    return x


def snapshot(state) -> dict:
    """Every attribute's value, by value (the caches left out)."""
    return plain({k: getattr(state, k) for k in attrs(state) if k not in CACHES})
