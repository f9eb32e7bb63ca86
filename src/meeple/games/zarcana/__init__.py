"""Zarcana: the game's registration. Rules in `rules.py`, components in `cards.json`."""

from meeple.core import GameInfo, Option

from .bot import HeuristicBot
from .render import render_text
from .rules import NUM_ACTIONS, ZarcanaState

GAME = GameInfo(
    id="zarcana",
    title="Zarcana",
    description=(
        "John Cooper's game of war, journeys and growth: Icehouse pyramids spread over a board of "
        "cards that grows, shrinks and splits. Occupy the most valuable cards alone when the end "
        "is declared."
    ),
    player_counts=(2, 3, 4),
    options=(
        Option("tiebreak", False, (False, True),
               "optional rule: of tied players, whoever solely occupies the highest-ranked card wins"),
        Option("unreducible", "destroyed", ("destroyed", "unharmed"),
               "a pyramid an Attack would reduce when its owner has no smaller one in the stash"),
    ),
    num_actions=NUM_ACTIONS,
    state_factory=ZarcanaState,
    rules_doc="docs/games/zarcana.md",
    bots={"heuristic": HeuristicBot},
    text_renderer=render_text,
)

# ISMCTS hook (meeple.bots.ismcts): a game has no natural end until someone declares, so
# playouts are cut after this many actions and judged by the running scores (sole occupancy).
ISMCTS_ROLLOUT_DEPTH = 40

from .tensor import observation_tensor, observation_tensor_shape  # noqa: E402,F401  (interop hook)
