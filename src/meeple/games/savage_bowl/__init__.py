"""Savage Bowl: the game's registration. Rules in `rules.py`, components in `components.json`."""

from meeple.core import AnalysisHooks, GameInfo, Option, SearchHooks

from .bot import (
    HeuristicBot,
    ShedderBot,
    expected_place,
    rollout_expert_value,
    rollout_horizon,
    rollout_policy,
)
from .render import render_text
from .rules import MAX_ROUND_ACTIONS, NUM_ACTIONS, SETUP, SavageBowlState, check

GAME = GameInfo(
    id="savage_bowl",
    title="Savage Bowl",
    description=(
        "URiO's savage trick-taker: win exactly the target number of tricks. In the first five "
        "tricks the second-strongest card wins and the strongest is yellow-carded; one trick "
        "too many gets you thrown out of the round."
    ),
    player_counts=tuple(sorted(SETUP)),
    options=(
        Option("chameleons", True, (True, False),
               "Chameleon cards: one per player per round, played with a card to copy the colour "
               "of the last card played (the rulebook leaves them out of a first game)"),
        Option("offcolour", "equal", ("by_number", "equal"),
               "Other colours in the first half: when finding the second strongest card, cards "
               "that are neither trump nor the led colour are all equal (the one played first "
               "ranks higher), or rank by their numbers"),
        Option("ties", "first_played", ("first_played", "last_played"),
               "Ties: of two equally strong cards (a Chameleon copy, or other colours), the one "
               "played first is stronger, or the one played last"),
    ),
    num_actions=NUM_ACTIONS,
    state_factory=SavageBowlState,
    rules_doc="docs/games/savage_bowl.md",
    check=check,
    bots={"heuristic": HeuristicBot, "shedder": ShedderBot},
    text_renderer=render_text,
    # ISMCTS (meeple.bots.ismcts): playouts by the heuristic, cut once the current round is scored
    # and judged by the running points: whole-game random playouts say little about a move.
    # 400 iterations: p95 0.46 s of CPU a move at 5p (benchmarks/level_times.py). Ahead of the
    # heuristic in the first arena runs (docs/games/savage_bowl.md, "Search"); not shown on fresh
    # seeds with the named levels (docs/arena.md), neither at 400 nor at 150 iterations.
    # Rollouts (meeple.bots.rollout): play a candidate out to the round's end, judge it by the
    # mover's expected final place then at 4 players, by its own points at 5
    # (`bot.rollout_expert_value`).
    search=SearchHooks(
        rollout_policy=rollout_policy,
        depth=MAX_ROUND_ACTIONS,
        iterations=400,
        horizon=rollout_horizon,
        value=rollout_expert_value,
    ),
    # Named levels (meeple.bots): the search was not shown ahead of the heuristic and at
    # 400 iterations hit the server's 5 s cap on a loaded machine, so `hard` is the better
    # heuristic (`bot.ShedderBot`, the heuristic's cost). `expert` (until 2026-11-27 `ismcts:1400`,
    # never shown stronger) is a rollout policy improvement over it: every legal move (k30 covers
    # a hand with Chameleon plays) played out by `shedder` at every seat to the round's end on 16
    # shared worlds, judged by the mover's expected place at 4 players (since 2026-11-28; by own
    # points it was not shown ahead at 4p) and own points at 5 (the search hooks above); about
    # 0.05 s of CPU a decision.
    levels={"hard": "shedder", "expert": "rollout:shedder:k30:w16"},
    # Post-game analysis (meeple.bots.analysis): playouts stop where the round is scored and are
    # judged by the expected final place from the points then (`bot.expected_place`). Why: with
    # playouts to the end, the later rounds' deals swamped one card's effect, and `quick` flagged a
    # `random` seat's decisions no more than a `hard` seat's. They cost about a third, so the
    # analysis samples 4 times the depth's worlds.
    analysis=AnalysisHooks(cut=True, place=expected_place, worlds=4),
    # The observation tensor (numpy) is imported only when an interop adapter asks.
    tensors=f"{__name__}.tensor",
)
