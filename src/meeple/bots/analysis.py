"""Post-game analysis: which of one seat's decisions cost them, judged from that seat's seat.

`analyse` replays a record and, at each decision of ``seat`` with more than one legal choice,
estimates every candidate choice's expected final place (and final score) by rollouts: sampled
worlds (``state.determinize(seat, rng)``, never the true hidden cards, so the analysis knows
what the player knew and nothing more), each candidate applied and the game played to its end by
bots of the game's ``hard`` level at every seat. Every candidate of one decision is played out on
the same worlds with the same bot seeds (common random numbers), so their difference is the
choice and not the luck of the deal, and a mistake is judged on that paired difference, with
Student's t interval (a decision has few samples).

It is a **work budget** (`DEPTHS`: worlds x rollouts per world, and how many candidates), never a
clock, and every random draw comes from the record's seed and the decision's index (`_rng`), so
the same record gives the same analysis on any machine, and a decision's figures do not depend on
which other decisions were analysed.

Budgets where a game differs:

- the rollout policy is the game's ``hard`` level, unless that level is a search (``ismcts:`` or
  ``rollout:``; Trickarus): a search inside every rollout would cost its budget at every move of
  every playout, so the game's ``medium`` level (its heuristic) plays the rollouts instead. A game
  may name the level with ``AnalysisHooks.policy`` (Zarcana: ``heuristic``, because its
  ``hard`` looks ahead over sampled worlds at every move; Karvi: ``heuristic``, a fifth of its
  planner's cost a move);
- a game sets ``AnalysisHooks(cut=True)`` where playouts to the end are too long to run
  hundreds of times a decision (Zarcana, whose games run 300-450 actions) or too noisy to tell
  one move from another (Trickarus, Savage Bowl, Karvi: the later rounds swamp one move's
  effect): a playout then stops at the game's ``SearchHooks.horizon`` and is judged by its
  ``AnalysisHooks.place`` (an expected final place; Savage Bowl, Zarcana, Karvi, the last two
  by `meeple.core.soft_place` from position values), else its ``SearchHooks.value`` or
  ``SearchHooks.evaluate`` (the same judgement the game's rollout bot or search uses), a
  value in [-1, 1] mapped onto places as `State.returns` maps places onto values. A cut
  playout's expected score is the game's ``AnalysisHooks.score`` (Karvi: the position value,
  points plus what the tableau is worth in points); without it no expected score is given,
  unless every playout of the decision reached the end (the last stretch of a game, where the
  points are what is left to play for);
- ``AnalysisHooks.worlds`` (Trickarus, Savage Bowl: 4; Karvi: 2) multiplies the depth's worlds, for a game
  whose playouts are cheap (cut short) and whose outcomes are noisy;
- where many choices are legal (Scarvus' bids, Karvi, Zarcana), only the best ``top_k`` by the
  game's own bots are played out, plus the move actually chosen: the bot's ``ranked`` order where
  it has one, else the heuristic's and the policy's own moves first, then the game's
  ``SearchHooks.candidates`` (else the legal moves in order). A better move outside those is not found.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from meeple.core import GameInfo, State
from meeple.core.rng import derive

from . import level_specs, make_bot

MAX_PLAYOUT = 20_000  # a playout longer than this is a game bug, not an analysis problem
Z95 = 1.96  # two-sided 95% normal quantile, the large-sample limit of `_t95`
MIN_LOSS = 0.1
"""A mistake costs at least this much of a place (besides being outside its interval): smaller
differences are real but not worth a player's attention."""
MIN_SCORE_LOSS = 1.0
"""Likewise for a mistake judged in points (a move no worse in place that scores more)."""


METHOD_VERSION = 3
"""The analysis method's version, stored with every analysis the server keeps. Bump it whenever
a change makes the same record give different figures (the rollouts, the budgets, the test for
a mistake, a game's hooks): a stored analysis is kept for good, so without the bump one made by
the old method would still be shown as current; with it, the page says it was made with an older
method and offers to analyse the game again."""


@dataclass(frozen=True)
class Depth:
    """A named work budget: ``worlds`` sampled worlds per decision, ``rollouts`` playouts per world
    and candidate (with different bot seeds), at most ``top_k`` candidates besides the chosen one."""

    worlds: int
    rollouts: int
    top_k: int

    @property
    def samples(self) -> int:
        return self.worlds * self.rollouts


DEPTHS: dict[str, Depth] = {
    "quick": Depth(worlds=8, rollouts=1, top_k=3),
    "deep": Depth(worlds=16, rollouts=2, top_k=8),
}


@dataclass
class Choice:
    """One candidate of a decision: its expected final place and score, each with the half-width
    of its 95% interval (``score`` is None where playouts were cut before the end and the game
    gives no `AnalysisHooks.score`)."""

    action: int
    label: str
    place: float
    place_ci: float
    score: float | None = None
    score_ci: float | None = None


@dataclass
class Decision:
    """One analysed decision: ``index`` is its position in the record's actions (the replay's
    move number), ``loss`` the chosen move's expected place minus the best's, with ``loss_ci``
    the half-width of that paired difference's interval. A decision is a mistake when the chosen
    move's place loss is at least `MIN_LOSS` and outside its interval, or, where the game has
    points, when another move no worse in place scores at least `MIN_SCORE_LOSS` more, outside
    its interval; ``best`` is then the move that does better."""

    index: int
    chosen: int
    chosen_label: str
    best: int
    best_label: str
    place: float  # the chosen move's expected final place
    loss: float
    loss_ci: float
    score_loss: float | None  # points lost to the best-scoring move no worse in place (None: cut)
    score_loss_ci: float | None
    mistake: bool
    legal: int
    choices: list[Choice] = field(default_factory=list)
    kind: str | None = None  # a mistake's measure: "place" or "points"


@dataclass
class Analysis:
    """What `analyse` found: every analysed decision, the curve of expected place, the mistakes
    and a one-line summary. `to_json` is what the CLI and the web store and show."""

    game: str
    seat: int
    players: int
    depth: str
    policy: str
    cut: bool
    budget: dict[str, int]
    decisions: list[Decision]
    final_place: int | None

    @property
    def mistakes(self) -> list[Decision]:
        return [d for d in self.decisions if d.mistake]

    @property
    def curve(self) -> list[tuple[int, float]]:
        """(move index, expected final place after the chosen move) at each analysed decision."""
        return [(d.index, d.place) for d in self.decisions]

    @property
    def mean_loss(self) -> float:
        """The mean loss per analysed decision, in places (0 when nothing was analysed)."""
        return sum(d.loss for d in self.decisions) / len(self.decisions) if self.decisions else 0.0

    @property
    def reported_loss(self) -> float:
        """The places the mistakes cost, per analysed decision: what the analysis reports, with
        the noise of decisions it judged sound left out (0 when nothing was analysed)."""
        ms = [d.loss for d in self.mistakes if d.kind == "place"]
        return sum(ms) / len(self.decisions) if self.decisions else 0.0

    @property
    def summary(self) -> str:
        ms = self.mistakes
        if not self.decisions:
            return "No decision with a choice to analyse."
        if not ms:
            return f"No clear mistake in {len(self.decisions)} decisions."
        cost = sum(d.loss for d in ms if d.kind == "place")
        points = sum(d.score_loss or 0.0 for d in ms if d.kind == "points")
        word = "mistake" if len(ms) == 1 else "mistakes"
        if cost and points:
            return f"{len(ms)} {word} cost about {cost:.1f} of a place and {points:.0f} points."
        if points:
            return f"{len(ms)} {word} cost about {points:.0f} points."
        return f"{len(ms)} {word} cost about {cost:.1f} of a place."

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Analysis:
        """The analysis `to_json` wrote (its derived fields are computed again)."""
        names = {f for f in cls.__dataclass_fields__ if f != "decisions"}
        decisions = [
            Decision(**{**d, "choices": [Choice(**c) for c in d["choices"]]}) for d in data["decisions"]
        ]
        return cls(**{k: data[k] for k in names}, decisions=decisions)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["curve"] = [list(p) for p in self.curve]
        out["mistakes"] = [d.index for d in self.mistakes]
        out["summary"] = self.summary
        out["mean_loss"] = round(self.mean_loss, 4)
        out["reported_loss"] = round(self.reported_loss, 4)
        return out


def rollout_policy(info: GameInfo) -> str:
    """The level whose bots play the analysis' rollouts (see the module's docstring)."""
    own = info.analysis.policy
    if own is not None:
        return own
    hard = level_specs(info)["hard"]
    return "medium" if hard.startswith(("ismcts", "rollout")) else "hard"


def _rng(record: Mapping[str, Any], seat: int, depth: str, index: int) -> Any:
    return derive(int(record["seed"]), 0, "analysis", record["game"], seat, depth, index)


def _stats(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% normal interval."""
    n = len(xs)
    mean = sum(xs) / n
    if n < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    return mean, _t95(n - 1) * math.sqrt(var / n)


def _t95(df: int) -> float:
    """Student's two-sided 95% quantile for ``df`` degrees of freedom: exact below 5, else the
    Cornish-Fisher expansion around the normal's (within 1% of the exact value).

    Why not the normal's 1.96: a decision has 8 to 64 samples, and with 8 the normal interval is
    17% too narrow, so noise alone was flagged as mistakes."""
    if df < 5:
        return (12.706, 4.303, 3.182, 2.776)[max(df, 1) - 1]
    z = Z95
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


class _Evaluator:
    """Plays candidates out for one game; holds what is looked up once per analysis."""

    def __init__(self, info: GameInfo, budget: Depth) -> None:
        self.info = info
        self.budget = Depth(budget.worlds * info.analysis.worlds, budget.rollouts, budget.top_k)
        self.policy = rollout_policy(info)
        self.cut = info.analysis.cut  # registration made sure a horizon and a judge are given then
        self.horizon: Callable[[State], object] | None = info.search.horizon
        self.value: Callable[[State, int], float] | None = info.search.value
        evaluate = info.search.evaluate
        if self.value is None and evaluate is not None:
            self.value = lambda state, me: evaluate(state)[me]
        self.place: Callable[[State, int], float] | None = info.analysis.place
        if self.place is None and self.value is not None:
            self.place = _as_place(self.value)
        self.score: Callable[[State, int], float] | None = info.analysis.score
        self.candidates_hook = info.search.candidates
        self.has_heuristic = "heuristic" in info.bots

    def candidates(self, state: State, legal: list[int], chosen: int, seed: int) -> list[int]:
        """The chosen move, then up to ``top_k`` more from the game's own bots' preferences."""
        k = self.budget.top_k
        if len(legal) <= k + 1:
            return [chosen, *(a for a in legal if a != chosen)]
        order: list[int] = []
        for level in dict.fromkeys([self.policy, "heuristic" if self.has_heuristic else self.policy]):
            bot = make_bot(level, self.info, seed)
            ranked = getattr(bot, "ranked", None)
            if callable(ranked):
                order.extend(ranked(state.clone()))
            else:
                order.append(bot.choose(state.clone()))
        pool = self.candidates_hook(state) if callable(self.candidates_hook) else legal
        order.extend(pool)
        order.extend(legal)
        out = [chosen]
        for a in order:
            if len(out) > k:
                break
            if a not in out and a in legal:
                out.append(a)
        return out

    def play_out(self, world: State, action: int, me: int, seed: int) -> tuple[float, float | None]:
        """One playout of ``action`` in ``world``: ``me``'s final place and score (where the
        playout was cut before the end, the game's expected score there, or None)."""
        c = world.clone()
        key = self.horizon(c) if self.cut and self.horizon is not None else None
        c._apply(action)  # legal in the analysed state, so in each of its determinizations
        c.history.append(action)
        bots = [make_bot(self.policy, self.info, seed + p) for p in range(c.players)]
        for _ in range(MAX_PLAYOUT):
            p = c.to_move
            if p is None or (self.cut and self.horizon is not None and self.horizon(c) != key):
                break
            a = bots[p].choose(c)
            c._apply(a)
            c.history.append(a)
        if c.to_move is None:
            return float(c.ranking()[me]), float(c.scores()[me])
        if self.cut and self.place is not None:
            score = None if self.score is None else float(self.score(c, me))
            return float(self.place(c, me)), score
        raise RuntimeError(f"{self.info.id}: a playout ran past {MAX_PLAYOUT} actions")

    def decision(self, state: State, seat: int, chosen: int, rng: Any) -> Decision:
        legal = state.legal_actions()
        cands = self.candidates(state, legal, chosen, rng.randrange(1 << 30))
        places: list[list[float]] = [[] for _ in cands]
        scores: list[list[float]] = [[] for _ in cands]
        for _ in range(self.budget.worlds):
            world = state.determinize(seat, rng)
            for _ in range(self.budget.rollouts):
                seed = rng.randrange(1 << 30)
                for i, a in enumerate(cands):
                    place, score = self.play_out(world, a, seat, seed)
                    places[i].append(place)
                    if score is not None:
                        scores[i].append(score)
        if any(len(xs) < len(places[0]) for xs in scores):
            # Points are compared only where every playout has a score: one that reached the end,
            # or a cut one of a game with `AnalysisHooks.score`.
            scores = [[] for _ in cands]
        choices = []
        for i, a in enumerate(cands):
            m, h = _stats(places[i])
            sm, sh = _stats(scores[i]) if scores[i] else (None, None)
            choices.append(Choice(a, state.describe(a), round(m, 4), round(h, 4),
                                  None if sm is None else round(sm, 4),
                                  None if sh is None else round(sh, 4)))
        # Best by expected place, then expected score; ties keep the chosen move (index 0).
        def mean(xs: list[float]) -> float:
            return round(sum(xs) / len(xs), 9) if xs else 0.0

        best = min(range(len(cands)), key=lambda i: (mean(places[i]), -mean(scores[i])))
        loss, loss_ci = _paired(places[0], places[best])
        mistake = best != 0 and loss >= MIN_LOSS and loss - loss_ci > 0
        kind = "place" if mistake else None
        score_loss = score_ci = None
        if scores[0]:
            # Points lost where the place is not: the best scorer among the moves whose expected
            # place is no worse than the chosen one's (never a trade of place for points).
            pool = [i for i in range(len(cands)) if mean(places[i]) <= mean(places[0])]
            top = max(pool, key=lambda i: mean(scores[i]))
            score_loss, score_ci = _paired(scores[top], scores[0])
            if not mistake and top != 0 and score_loss >= MIN_SCORE_LOSS and score_loss - score_ci > 0:
                mistake, best, kind = True, top, "points"
        return Decision(
            index=len(state.history), chosen=chosen, chosen_label=state.describe(chosen),
            best=cands[best], best_label=state.describe(cands[best]),
            place=choices[0].place, loss=round(loss, 4), loss_ci=round(loss_ci, 4),
            score_loss=None if score_loss is None else round(score_loss, 4),
            score_loss_ci=None if score_ci is None else round(score_ci, 4),
            mistake=mistake, legal=len(legal), choices=choices, kind=kind,
        )


def _as_place(value: Callable[[State, int], float]) -> Callable[[State, int], float]:
    """A value in [-1, 1] read as a place, as `State.returns` maps places onto values."""

    def place(state: State, me: int) -> float:
        v = max(-1.0, min(1.0, float(value(state, me))))
        return 1.0 + (1.0 - v) * (state.players - 1) / 2.0

    return place


def _paired(worse: list[float], better: list[float]) -> tuple[float, float]:
    """Mean of the paired differences ``worse - better`` (same worlds, same bot seeds) and its
    interval's half-width; 0 and 0 for a move compared with itself."""
    if worse is better:
        return 0.0, 0.0
    return _stats([x - y for x, y in zip(worse, better, strict=True)])


def merge(parts: Iterable[Analysis]) -> Analysis:
    """One analysis from analyses of single decisions of the same record, seat and depth (a
    server runs each decision as its own job): the same as analysing them together."""
    parts = list(parts)
    if not parts:
        raise ValueError("nothing to merge")
    first = parts[0]
    decisions = sorted((d for p in parts for d in p.decisions), key=lambda d: d.index)
    return Analysis(
        game=first.game, seat=first.seat, players=first.players, depth=first.depth,
        policy=first.policy, cut=first.cut, budget=dict(first.budget), decisions=decisions,
        final_place=first.final_place,
    )


def analysis_points(record: Mapping[str, Any], seat: int) -> list[int]:
    """The record's action indices where ``seat`` had a choice (more than one legal action)."""
    import meeple

    state = meeple.replay(dict(record), upto=0)
    out = []
    for i, action in enumerate(record["actions"]):
        if state.to_move == seat and len(state.legal_actions()) > 1:
            out.append(i)
        state.apply(action)
    return out


def analyse(
    record: Mapping[str, Any],
    seat: int,
    depth: str = "quick",
    *,
    only: Iterable[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """Analyse ``seat``'s decisions in a finished (or partial) game record.

    ``depth`` names a budget in `DEPTHS`. ``only`` limits the analysis to those action indices
    (each must be a decision of ``seat``; the figures are the same as in a whole analysis).
    ``progress(done, total)`` is called after each decision. Raises `ValueError` for an unknown
    depth or seat, `meeple.BadRecord` for a record that does not replay.
    """
    import meeple

    if depth not in DEPTHS:
        raise ValueError(f"depth must be one of {', '.join(DEPTHS)}, not {depth!r}")
    state = meeple.replay(dict(record), upto=0)
    if type(seat) is not int or not 0 <= seat < state.players:
        raise ValueError(f"seat must be 0..{state.players - 1}, not {seat!r}")
    actions = list(record["actions"])
    points = analysis_points(record, seat)
    if only is not None:
        wanted = set(only)
        bad = wanted - set(points)
        if bad:
            raise ValueError(f"not a decision of seat {seat} with a choice: {sorted(bad)}")
        points = [i for i in points if i in wanted]
    ev = _Evaluator(state.info, DEPTHS[depth])
    budget = ev.budget
    todo = set(points)
    decisions: list[Decision] = []
    if progress is not None:
        progress(0, len(points))
    for i, action in enumerate(actions):
        if i in todo:
            decisions.append(ev.decision(state, seat, action, _rng(record, seat, depth, i)))
            if progress is not None:
                progress(len(decisions), len(points))
        state.apply(action)
    return Analysis(
        game=state.info.id, seat=seat, players=state.players, depth=depth, policy=ev.policy,
        cut=ev.cut, budget={"worlds": budget.worlds, "rollouts": budget.rollouts, "top_k": budget.top_k},
        decisions=decisions, final_place=state.ranking()[seat] if state.is_over() else None,
    )
