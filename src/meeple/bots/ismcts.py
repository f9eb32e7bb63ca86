"""Single-observer Information-Set MCTS (Cowling, Powley and Whitehouse, 2012), for any game.

Why this shape: a meeple state hides other hands and future draws, so the bot never searches the
real state. Every iteration starts from ``state.determinize(me, rng)``, a world consistent with
what ``me`` knows, and walks one shared tree whose edges are actions. A child's UCB term uses
its *availability* (how often it was legal when its parent was visited) instead of the parent's
visits, because in a given determinization only some actions exist. Rollouts play to the end by
the game's own fast playout, and the final move is the most visited root action.

The search copies keep no event log (`determinize` drops it) and apply actions without the
base class' re-validation: every action comes from ``legal_actions`` of that very copy.

Hooks a game may give (``GameInfo(search=SearchHooks(...))``, `meeple.core.hooks`):
``rollout_policy: Callable[[State, random.Random], int]`` drives the playouts instead of uniform
random; ``iterations: int`` sets the default iteration budget (that of ``ismcts:<knob>`` without
a budget, and of levels ``hard``/``expert`` unless the game's ``levels`` say otherwise);
``rollout="heuristic"`` makes level ``ismcts`` play out with the game's heuristic bot
(for games where it is cheap and random playouts say little);
``depth: int`` cuts playouts after that many actions and judges them by the
running scores (for long games whose full playouts are too slow to run many);
``evaluate: Callable[[State], list[float]]`` judges such a cut-off playout instead (a value in
[-1, 1] per player, like `State.returns`), for games whose running score says little mid-game;
``prior: float`` turns on a progressive bias (Chaslot et al. 2008) toward the move the
game's ``heuristic`` level would make at the root: that child's UCB score gains
``weight / (visits + 1)``, so with few iterations the search follows the heuristic and with many
the evidence takes over. The heuristic sees the real state, which is the bot's own information set
(``prior_bot="<level>"`` names another of the game's own bots to take its place);
``greedy_policy``, a `RolloutPolicy` that knob ``greedy`` (``ismcts:3000:greedy``)
selects, for a cheap policy that should not replace the default playouts;
``horizon: Callable[[State], object]`` (shared with `meeple.bots.rollout`), a key such as
the round number: knob ``h`` (``ismcts:3000:h``) stops every playout as soon as the key differs
from the root state's, and judges it like a depth cut-off (``evaluate``, else running scores);
``candidates: Callable[[State], list[int]]`` narrows the actions the *tree* considers at
a node to a non-empty subset of the legal ones (e.g. bids near an estimate, when hundreds are
legal and nearly all absurd); playouts are unaffected.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from meeple.core import GameInfo, State, hooks

RolloutPolicy = Callable[[State, random.Random], int]
Evaluation = Callable[[State], list[float]]
Prior = Callable[[State], int]
Candidates = Callable[[State], list[int]]
Horizon = Callable[[State], object]

DEFAULT_ITERATIONS = 1000
"""Iterations per move of level ``ismcts`` unless the game's ``SearchHooks.iterations`` says otherwise."""
DEFAULT_ROLLOUT = "game"
EXPLORATION = 0.7  # UCB constant for rewards in [0, 1], the value Cowling et al. use
MAX_ROLLOUT = 20_000  # a playout longer than this is a game bug, not a search problem


class _Node:
    """One tree node: the action that led here, who took it, and its statistics."""

    __slots__ = ("action", "player", "children", "visits", "reward", "avail")

    def __init__(self, action: int, player: int) -> None:
        self.action = action
        self.player = player  # the player who chose `action` (rewards are theirs)
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


@dataclass(frozen=True)
class SearchStats:
    """What the last search did: for benchmarks and the curious."""

    iterations: int
    seconds: float
    visits: dict[int, int]
    capped: bool = False  # stopped by ``max_seconds`` short of its iterations (the safety net)


def rollout_policy_for(info: GameInfo) -> RolloutPolicy | None:
    """The game's ``SearchHooks.rollout_policy``, or ``None`` (uniform random playouts)."""
    return info.search.rollout_policy


def default_rollout(info: GameInfo) -> str:
    """The game's ``SearchHooks.rollout`` (one of `ROLLOUTS`; ``game`` unless it says otherwise)."""
    return info.search.rollout


def default_rollout_depth(info: GameInfo) -> int | None:
    """The game's ``SearchHooks.depth``, or ``None`` (play to the end)."""
    return info.search.depth


def evaluation_for(info: GameInfo) -> Evaluation | None:
    """The game's ``SearchHooks.evaluate`` for cut-off playouts, or ``None`` (place by running scores)."""
    return info.search.evaluate


def horizon_for(info: GameInfo) -> Horizon | None:
    """The game's ``SearchHooks.horizon`` (a key whose change ends a playout), or ``None``."""
    return info.search.horizon


def candidates_for(info: GameInfo) -> Candidates | None:
    """The game's ``SearchHooks.candidates`` (the actions worth a tree edge), or ``None`` (all legal)."""
    return info.search.candidates


def default_prior_weight(info: GameInfo) -> float:
    """The game's ``SearchHooks.prior`` weight for its guide's root move (0: no bias)."""
    return float(info.search.prior)


def default_iterations(info: GameInfo) -> int:
    """The game's ``SearchHooks.iterations``, else `DEFAULT_ITERATIONS`."""
    return info.search.iterations or DEFAULT_ITERATIONS


class ISMCTSBot:
    """SO-ISMCTS with a budget of ``iterations`` or ``seconds`` (whichever is given; both: first hit).

    With an iteration budget the choice is a pure function of the player's information and the
    bot's seed, which is what makes arenas repeatable. ``max_seconds`` is a safety net a server
    sets (a move that hits it is no longer repeatable, and says so in ``last.capped``).
    """

    name = "ismcts"

    def __init__(
        self,
        seed: int = 0,
        iterations: int | None = DEFAULT_ITERATIONS,
        seconds: float | None = None,
        exploration: float = EXPLORATION,
        rollout_policy: RolloutPolicy | None = None,
        max_seconds: float | None = None,
        rollout_depth: int | None = None,
        evaluate: Evaluation | None = None,
        prior: Prior | None = None,
        prior_weight: float = 0.0,
        candidates: Candidates | None = None,
        horizon: Horizon | None = None,
    ) -> None:
        if iterations is None and seconds is None:
            raise ValueError("ISMCTS needs a budget: iterations or seconds")
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.rollout_policy = rollout_policy
        self.max_seconds = max_seconds
        self.rollout_depth = rollout_depth
        self.evaluate = evaluate
        self.prior = prior
        self.prior_weight = prior_weight
        self.candidates = candidates
        self.horizon = horizon
        self.last: SearchStats | None = None

    def choose(self, state: State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last = SearchStats(0, 0.0, {legal[0]: 0})
            return legal[0]
        me = state.to_move
        assert me is not None, "the game is over"
        root = self.search(state, me)
        if self.candidates is not None:
            legal = [a for a in legal if a in root.children] or legal
        # Final move by visits; ties go to the lower action so the choice is reproducible.
        best = max(legal, key=lambda a: (root.children[a].visits if a in root.children else -1, -a))
        return best

    def search(self, state: State, me: int) -> _Node:
        """Run the budget from ``me``'s information set; return the root of the tree."""
        rng, c = self.rng, self.exploration
        policy, depth = self.rollout_policy, self.rollout_depth or MAX_ROLLOUT
        evaluate, narrow, horizon = self.evaluate, self.candidates, self.horizon
        key = horizon(state) if horizon is not None else None
        root = _Node(-1, -1)
        # Progressive bias at the root only: one heuristic call per move, on the bot's own state.
        favoured, weight = -1, self.prior_weight
        if self.prior is not None and weight > 0:
            favoured = self.prior(state)
        limit = self.iterations if self.iterations is not None else math.inf
        cap = min(t for t in (self.seconds, self.max_seconds, math.inf) if t is not None)
        start = time.perf_counter()
        done = 0
        capped = False
        path: list[_Node] = []
        while done < limit:
            if cap != math.inf and done:
                elapsed = time.perf_counter() - start
                if elapsed * (done + 1) / done >= cap:  # the next iteration would end past the cap
                    capped = self.seconds is None or cap < self.seconds
                    break
            world = state.determinize(me, rng)
            node = root
            path.clear()
            # Selection: descend while every action legal here has been tried.
            while world.to_move is not None:
                legal = world.legal_actions() if narrow is None else narrow(world)
                children = node.children
                untried = [a for a in legal if a not in children]
                if untried:  # Expansion: one new child, then roll out.
                    action = (
                        untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                    )
                    child = _Node(action, world.to_move)
                    children[action] = child
                    world._apply(action)
                    world.history.append(action)
                    path.append(child)
                    break
                best, best_score = None, -math.inf
                for a in legal:
                    ch = children[a]
                    ch.avail += 1
                    score = ch.reward / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if a == favoured and node is root:
                        score += weight / (ch.visits + 1)
                    if score > best_score:
                        best, best_score = ch, score
                assert best is not None
                world._apply(best.action)
                world.history.append(best.action)
                path.append(best)
                node = best
            # Simulation: the game's fast playout to the end (or to the depth or horizon cut-off).
            _playout(world, rng, policy, depth, horizon, key)
            # Backpropagation: each node is credited with the reward of the player who moved.
            rewards = [(r + 1.0) * 0.5 for r in leaf_returns(world, evaluate)]
            root.visits += 1
            for n in path:
                n.visits += 1
                n.reward += rewards[n.player]
            done += 1
        self.last = SearchStats(
            done,
            time.perf_counter() - start,
            {a: n.visits for a, n in root.children.items()},
            capped,
        )
        return root


def leaf_returns(world: State, evaluate: Evaluation | None = None) -> list[float]:
    """`State.returns` at the end; before it, ``evaluate`` if the game gives one, else the same
    place-based utility on current scores.

    Why: a cut-off playout in a long game is judged by who leads now, the only game-independent
    evaluation the contract offers (`scores` is the running score mid-game).
    """
    if world.to_move is None:
        return world.returns()
    if evaluate is not None:
        return evaluate(world)
    n = world.players
    if n == 1:
        return [0.0]
    s = world.scores()
    return [1.0 - 2.0 * sum(1 for o in s if o > mine) / (n - 1) for mine in s]


def _playout(
    world: State,
    rng: random.Random,
    policy: RolloutPolicy | None,
    depth: int = MAX_ROLLOUT,
    horizon: Horizon | None = None,
    key: object = None,
) -> None:
    """Play ``world`` to the end, or ``depth`` actions, or (with a ``horizon``) until
    ``horizon(world)`` differs from ``key``: the game's policy if any, else random."""
    history = world.history
    for _ in range(depth):
        if world.to_move is None or (horizon is not None and horizon(world) != key):
            return
        if policy is not None:
            action = policy(world, rng)
        else:
            legal = world.legal_actions()
            action = legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0]
        world._apply(action)
        history.append(action)
    if depth == MAX_ROLLOUT and world.to_move is not None:
        raise RuntimeError(f"{world!r}: no end after {MAX_ROLLOUT} playout actions")


def heuristic_rollout(info: GameInfo, seed: int, epsilon: float = 0.1) -> RolloutPolicy | None:
    """Playouts by the game's own ``heuristic`` level, with an ``epsilon`` share of random moves.

    Informed playouts cost a few random ones each but say far more about a move; the random share
    keeps the search from trusting one fixed line. ``None`` if the game has no heuristic.
    """
    factory = info.bots.get("heuristic")
    if factory is None:
        return None
    bot = factory(seed)

    def policy(state: State, rng: random.Random) -> int:
        if rng.random() < epsilon:
            legal = state.legal_actions()
            return legal[rng.randrange(len(legal))]
        return bot.choose(state)

    return policy


ROLLOUTS = hooks.ROLLOUTS
"""``game``: the game's ``SearchHooks.rollout_policy`` if it gives one, else random. ``heuristic``:
its bot. ``greedy``: the game's ``SearchHooks.greedy_policy`` (a cheap rule-of-thumb policy
offered as a knob without becoming the default playout of ``hard``), else as ``game``."""


def parse_knob(knob: str) -> dict[str, Any]:
    """Parts separated by ``:``, each optional: ``2000`` iterations or ``0.5s`` per move; a rollout
    (``game``, ``random``, ``heuristic``, ``greedy``); ``d40``, playouts cut after 40 actions; ``b1.5``, the
    root bias toward the heuristic's move (``b0`` turns off a game's default bias); ``h``, playouts
    cut at the game's ``SearchHooks.horizon`` (e.g. the round's end).

    So ``ismcts:0.5s:heuristic:d40:b1`` is a valid level.
    """
    out: dict[str, Any] = {}
    for part in knob.strip().lower().split(":"):
        if part in ROLLOUTS and "rollout" not in out:
            out["rollout"] = part
            continue
        if part.startswith("d") and part[1:].isdigit() and int(part[1:]) > 0 and "depth" not in out:
            out["depth"] = int(part[1:])
            continue
        if part == "h" and "horizon" not in out:
            out["horizon"] = True
            continue
        if part.startswith("b") and "prior" not in out:
            try:
                out["prior"] = float(part[1:])
            except ValueError:
                pass
            else:
                if out["prior"] >= 0:
                    continue
                del out["prior"]
        try:
            if "iterations" in out or "seconds" in out:
                raise ValueError
            if part.endswith("s"):
                seconds = float(part[:-1])
                if not seconds > 0:
                    raise ValueError
                out["seconds"] = seconds
            else:
                iterations = int(part)
                if iterations <= 0:
                    raise ValueError
                out["iterations"] = iterations
        except ValueError:
            raise ValueError(
                f"ismcts knob {knob!r}: give iterations (ismcts:2000) or seconds (ismcts:0.5s), "
                f"optionally a rollout ({', '.join(ROLLOUTS)}) and a playout depth cut-off "
                f"(d<actions>), a heuristic bias (b<weight>) and a horizon cut (h), e.g. ismcts:0.5s:heuristic:d40:b1"
            ) from None
    return out


def make_ismcts(info: GameInfo, seed: int, knob: str | None = None) -> ISMCTSBot:
    """``ismcts:<knob>`` (see `parse_knob`); without a budget in the knob, the game's default.

    No wall-clock cap: the budget alone decides, so a seed gives the same moves anywhere.
    """
    spec = parse_knob(knob) if knob else {}
    iterations: int | None = spec.get("iterations")
    seconds: float | None = spec.get("seconds")
    explicit_budget = iterations is not None or seconds is not None
    if not explicit_budget:
        iterations = default_iterations(info)
    rollout = spec.get("rollout") or default_rollout(info)
    if rollout == "heuristic":
        policy = heuristic_rollout(info, seed) or rollout_policy_for(info)
    elif rollout == "random":
        policy = None
    elif rollout == "greedy":
        policy = info.search.greedy_policy or rollout_policy_for(info)
    else:
        policy = rollout_policy_for(info)
    weight = spec.get("prior", default_prior_weight(info))
    guide = info.bots.get(info.search.prior_bot)
    prior = guide(seed + 1).choose if guide is not None and weight > 0 else None
    return ISMCTSBot(
        seed,
        iterations=iterations,
        seconds=seconds,
        rollout_policy=policy,
        rollout_depth=spec.get("depth", default_rollout_depth(info)),
        evaluate=evaluation_for(info),
        prior=prior,
        prior_weight=weight if prior is not None else 0.0,
        candidates=candidates_for(info),
        horizon=horizon_for(info) if spec.get("horizon") else None,
    )
