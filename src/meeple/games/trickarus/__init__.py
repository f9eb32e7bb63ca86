"""Trickarus: the game's registration. Rules in `rules.py`, components in `components.json`."""

from meeple.core import AnalysisHooks, GameInfo, Option, SearchHooks

from .bot import HeuristicBot, evaluate, greedy_playout, round_key
from .learned import LearnedBot
from .render import render_text
from .rules import NUM_CARDS, TrickarusState, check

GAME = GameInfo(
    id="trickarus",
    title="Trickarus",
    description=(
        "Bajir Cannon's trick-taking game of flight: win tricks to climb the score track, but "
        "fly into the sun and you plummet. Every 5 flips day and night, and with them trump."
    ),
    player_counts=(2, 3, 4, 5),
    options=(
        Option("mode", "competitive", ("competitive", "cooperative"),
               "Mode: competitive (2-5 players), or co-operative (3-5 players: land everyone within the round limit)"),
        Option("lightning_variant", False, (False, True),
               "Lightning Card Variant: Lightning beats non-trump cards (its winner still moves down)"),
        Option("coop_landed", "came_back", ("came_back", "on_ground"),
               "Who has landed (co-operative): a player who came back to the ground after leaving "
               "it, or anyone on the ground, even if they never left it"),
        Option("track", None, (None, *range(2, 31)),
               "Track length: the spaces below the sun; standard is the length that suits the "
               "number of players"),
    ),
    num_actions=NUM_CARDS,
    state_factory=TrickarusState,
    rules_doc="docs/games/trickarus.md",
    check=check,
    bots={"heuristic": HeuristicBot, "learned": LearnedBot},
    text_renderer=render_text,
    # ISMCTS (meeple.bots.ismcts): full random playouts stay the default. A playout cut short (a
    # knob's ``d<actions>``) is judged by the heuristic's estimate of each player's final place
    # (`evaluate`). Knob ``greedy`` (``ismcts:<N>:greedy``) plays out by a cheap rule of thumb
    # instead of random moves; not the default, so ``hard`` keeps random playouts. Knob ``h``
    # (``ismcts:3000:h``; also the `rollout:` levels) stops playouts when the round ends and judges
    # them by `evaluate` (or by the result if the game ended).
    search=SearchHooks(evaluate=evaluate, greedy_policy=greedy_playout, horizon=round_key),
    # hard and expert: ISMCTS 1000 beats 200, and 200 beats the heuristic, head to head on fresh
    # seeds; 3000 was never shown ahead of 1000 (at 4p 1000 was ahead over 160 games). From
    # 2026-11-28 to 2026-12-05 the 4-5p levels were 1000 and 3000 (docs/arena.md). A sixth level
    # after the five (meeple.bots.extra_levels): the policy trained by examples/train_trickarus.py,
    # weights in learned.npz; standard library only, so every install offers it.
    levels={"hard": "ismcts:200", "expert": "ismcts:1000", "learned": "learned"},
    # Post-game analysis (meeple.bots.analysis): its playouts stop where the round ends and are
    # judged by `evaluate` (the heuristic's expected final place from the track), or by the result
    # if the round ended the game. Why: a card's effect on the final place is small next to the
    # luck of the later rounds' deals, so playouts to the end told a good card from a bad one only
    # by noise; a round's end is where the track is all that carries over. Those playouts cost
    # about a seventh, so the analysis samples 4 times the depth's worlds. The rollouts are the
    # heuristic's (`hard` is ISMCTS: its 200 iterations cost about 90 times the heuristic's time a
    # move, at every move of every playout).
    analysis=AnalysisHooks(cut=True, worlds=4),
    # The observation tensor (numpy) is imported only when an interop adapter asks.
    tensors=f"{__name__}.tensor",
)
