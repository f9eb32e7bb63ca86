"""Zarcana: the game's registration. Rules in `rules.py`, components in `cards.json`."""

from typing import Any

from meeple.core import AnalysisHooks, BadOption, GameInfo, Option, SearchHooks

from .analysis import expected_place
from .bot import HeuristicBot, LookaheadBot
from .render import render_text
from .rules import NUM_ACTIONS, ZarcanaState
from .search import candidate_actions, greedy_action, reply_eval, rollout_horizon, rollout_value


def _check(players: int, options: dict[str, Any]) -> None:
    if options["tiebreak_depth"] != "highest" and not options["tiebreak"]:
        raise BadOption("zarcana: tiebreak_depth has no meaning without the optional tie-break (tiebreak=true)")


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
               "Tie-break: of tied players, whoever alone occupies the highest-ranked card wins"),
        Option("tiebreak_depth", "highest", ("highest", "all"),
               "Tie-break depth: only the highest card a player occupies alone decides (equal "
               "ones stay tied), or all of them: then the next highest, and so on"),
        Option("unreducible", "destroyed", ("destroyed", "unharmed"),
               "Attacked smallest pyramid: when an Attack would reduce a pyramid and its owner "
               "has no smaller one left, it is destroyed, or unharmed"),
        Option("harvest_own", False, (False, True),
               "Harvest your own card: a standing pyramid's Harvest may take the card it stands "
               "on (otherwise only Destroy Occupied Territory removes your own card)"),
    ),
    num_actions=NUM_ACTIONS,
    state_factory=ZarcanaState,
    rules_doc="docs/games/zarcana.md",
    check=_check,
    bots={"heuristic": HeuristicBot, "lookahead": LookaheadBot},
    text_renderer=render_text,
    # ISMCTS (meeple.bots.ismcts; why: src/meeple/games/zarcana/search.py). A game has no natural
    # end until someone declares, so a playout is one heuristic action, then `reply_eval` finishes
    # that turn and plays the next player's reply by the heuristic and judges the position by the
    # heuristic's value; the root leans toward the lookahead's move, and the tree weighs only the
    # heuristic's best few moves (`candidate_actions`). Rollouts (meeple.bots.rollout): a playout
    # stops where the mover's turn ends and is judged after `search.ROLLOUT_ROUNDS` more rounds
    # of heuristic turns (why: `search.rollout_horizon`).
    search=SearchHooks(
        depth=1,
        rollout_policy=greedy_action,
        evaluate=reply_eval,
        prior=5.0,
        candidates=candidate_actions,
        iterations=200,
        prior_bot="lookahead",
        horizon=rollout_horizon,
        value=rollout_value,
    ),
    # Post-game analysis (meeple.bots.analysis): `hard` looks ahead over sampled worlds at every
    # move, too dear inside hundreds of playouts a decision, and a game runs 300-450 actions, so
    # the analysis plays the heuristic and stops each playout where the rollout bot does; it
    # judges it by an expected place from the position values (why: `analysis`).
    analysis=AnalysisHooks(policy="heuristic", cut=True, place=expected_place),
    # Named levels (meeple.bots): the search at 200 iterations was not shown ahead of the
    # heuristic on the runs made (docs/arena.md), so `hard` is the heuristic with one more ply
    # (`bot.LookaheadBot`: the heuristic's best five moves, each judged after the next player's
    # reply, in three sampled worlds) and `expert` a rollout on top of it (meeple.bots.rollout):
    # the lookahead's best 4 moves, each played to the end of the turn and 2 rounds on by the
    # heuristic (the search hooks above) on 4 shared sampled worlds. `ismcts:600` (with the root
    # bias toward the lookahead) cost 1.5-2.4 s a move and was never measured against `hard`.
    levels={"hard": "lookahead", "expert": "rollout:lookahead:heuristic:k4:w4"},
    # The observation tensor and information-state hooks (numpy) are imported only when an
    # interop adapter asks, so playing the game needs the standard library alone.
    tensors=f"{__name__}.tensor",
)
