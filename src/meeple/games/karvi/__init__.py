"""Karvi (Torgeir Tjong, Hans im Glück 2023): the game's registration.

Rules in `rules.py`, the reconstructed components in the JSON files read by `components.py`.
"""

from meeple.core import AnalysisHooks, GameInfo, Option, SearchHooks

from .analysis import expected_place, expected_score, round_key
from .bot import HeuristicBot, PlannerBot, SearchPlannerBot, evaluate, rollout_policy
from .render import render_text
from .rules import NUM_ACTIONS, KarviState, check

GAME = GameInfo(
    id="karvi",
    title="Karvi",
    description=(
        "Torgeir Tjong's Viking euro: move the die furthest back along the action track, sail "
        "the North Sea to scout, build and trade or raid, and fill your trade and raid tracks."
    ),
    player_counts=(2, 3, 4),
    options=(
        Option("draft_start", False, (False, True), "Draft start cards: choose start cards in turn"),
        Option("variety", False, (False, True), "More action variety: action boards and stop tiles on their B sides"),
        Option("chaos", False, (False, True), "Chaos variant: swap same-size action boards, random sides"),
        Option("draw_two", False, (False, True), "Draw two: whenever you get an upgrade card, draw 2 and keep 1"),
        Option("less_luck", False, (False, True), "Less luck: draft the upgrade tiles and rune stones"),
        # Readings players could reasonably disagree on (docs/games/karvi.md, rulings); the
        # defaults are the closest reading of the rulebook's words.
        Option("zero_move_any", False, (False, True),
               "Stay to use a place again: any ship may sail 0 spaces to use its place again "
               "(the rulebook says so of a displaced ship)"),
        Option("locked_spots_open", False, (False, True),
               "Locked spots open: a die may go to a locked action spot before it is unlocked "
               "(it then does nothing)"),
        Option("trade_track_first", False, (False, True),
               "Trade tile first: a trade tile goes on the track before its bonus is taken (as "
               "the rulebook's example tells it)"),
        Option("card_move_equal_pays", False, (False, True),
               "Displacing an equal ship: moves from ship cards pay to displace an equally "
               "strong ship too (the card text says only a stronger one)"),
    ),
    num_actions=NUM_ACTIONS,
    state_factory=KarviState,
    rules_doc="docs/games/karvi.md",
    check=check,
    bots={"heuristic": HeuristicBot, "planner": PlannerBot, "planner_search": SearchPlannerBot},
    text_renderer=render_text,
    # ISMCTS (meeple.bots.ismcts): playouts by the fast policy, cut after 30 actions (about half a
    # round) and judged by the heuristic's position value (points alone say little mid-game), with
    # a root bias toward the planner's move. 300 such iterations: p95 0.49 s a move at load ~5 on
    # 2 cores.
    search=SearchHooks(
        rollout_policy=rollout_policy,
        evaluate=evaluate,
        depth=30,
        prior=1.0,
        iterations=300,
        prior_bot="planner",
        horizon=round_key,
    ),
    # Named levels (meeple.bots). The search above at 300 iterations was level with the heuristic
    # (2p, 80 games), so `hard` is the better heuristic `planner` (bot.py; a work budget of 8
    # moves x 4 determinizations, milliseconds a move), and `expert` searches on top of it:
    # `planner_search` plays the planner's best 3 die moves out to the round's end on 8 shared
    # determinizations (p95 0.28 s CPU a move at 2p). `ismcts` keeps its root bias, now toward
    # the planner's move.
    levels={"hard": "planner", "expert": "planner_search"},
    # Post-game analysis (meeple.bots.analysis) plays its rollouts by the heuristic: the planner
    # ranks every move of every playout by looking ahead, about five times the heuristic's cost,
    # and an analysis runs a few hundred playouts a decision. A playout stops where the round
    # ends (`horizon` above; ISMCTS uses it only with knob ``h``) and is judged by the expected
    # place from the position values (why: `analysis`); cut playouts cost about a third of
    # playouts to the end, so it samples twice the worlds. A cut playout's expected score is the
    # planner's position value, so a move is judged in points where the place is settled.
    analysis=AnalysisHooks(
        policy="heuristic", cut=True, place=expected_place, score=expected_score, worlds=2
    ),
    # The observation tensor (numpy) is imported only when an interop adapter asks, so playing
    # the game needs the standard library alone.
    tensors=f"{__name__}.tensor",
)
