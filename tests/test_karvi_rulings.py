"""Karvi: the rulings of docs/games/karvi.md checked on the reference models' reproductions, and
the die move's label against its log line.

Section names refer to the English Hans im Glück rulebook.
Each reproduction is replayed action by action from ``meeple.make``: the exact records the
reference check found.
"""

from __future__ import annotations

import random

import meeple
from edit import put
from meeple.games.karvi.rules import BASE, END, KarviState
from test_karvi_printed import A, replay


def moves(s: KarviState) -> list[int]:
    """The die's target spots among the legal actions."""
    return [a - BASE["MOVE_DIE"] for a in s.legal_actions() if BASE["MOVE_DIE"] <= a < BASE["SHIP_TO"]]


# 3 players, seed 179: player 1 has played card 30 with a die ahead on the locked spot (put there
# by a fixed back-move) and holds no trade or raid tile.
CARD_30_ONTO_LOCKED = [
    296, 295, 305, 7, 269, 28, 91, 94, 0, 1, 36, 91, 110, 158, 248, 0, 147, 258, 11, 269, 163, 35,
    91, 120, 0, 4, 0, 2, 0, 18, 396, 246, 256, 397, 269, 161, 476, 396, 246, 256, 397, 269, 156, 250,
    250, 37, 92, 0, 3, 248, 248, 0, 9, 247, 256, 0, 6, 27, 0, 5, 397, 0, 16, 253, 252, 0, 21, 28, 92,
    0, 13, 0, 22, 0, 23, 253, 252, 0, 24, 0, 25, 247, 246, 0, 26, 251, 0, 7, 269, 162, 249, 250, 0,
    1, 0, 11, 269, 160, 252, 397, 396, 252, 253, 34, 92, 0, 11, 269, 204, 202, 236, 0, 4, 0, 18, 397,
    269, 396, 246, 258, 258, 169, 250, 0, 11, 269, 0, 9, 247, 260, 258, 41, 0, 170,
]

# 2 players, seed 291: player 2's die waits in the stop area with 0 beer, the player holds 1 gold
# and free spots cost 1 beer.
WAITING_DIE_WITH_GOLD = [
    297, 299, 4, 28, 92, 0, 42, 11, 0, 147, 258, 0, 9, 0, 258, 29, 0, 0, 14, 246, 0, 157, 250, 251,
    0, 10, 396, 251, 250, 0, 0, 17, 0, 26, 246, 0, 0, 12, 235, 235, 0, 22, 249, 249, 0, 21, 0, 25,
    260, 0, 9, 247, 246, 256, 0, 12, 236, 0, 3, 249, 249, 236, 0, 10, 397, 0, 42, 0, 17, 0, 21, 0,
    25, 246, 246, 0, 23, 0, 0, 19, 0, 0, 22, 0, 12, 236, 0, 6, 37, 92, 0, 3, 248, 249, 0,
]


def test_ruling_3_card_30_cannot_stack_onto_a_locked_spot():
    """Locked action (ruling 3): "Once you've unlocked this improvement with your second trade or
    raid tile, you may use a locked action"; before that a die may not move onto a spot whose only
    action is the locked one. Card 30 (Explanation of symbols: "place it on another die") chooses
    its target, so it is no exception, even when a die already stands there."""
    s = replay(CARD_30_ONTO_LOCKED, 3, 179)
    q = s.to_move
    pl = s.tableaus[q]
    assert s.die_move_card == 30 and not s.moved and len(pl.trade_track) < 2 and len(pl.raid_track) < 2
    locked = [x for x in range(s.track_size) if s.locked_only[x] and s._occupied(x)]
    assert locked, "a die stands on a locked spot ahead"
    targets = moves(s)
    assert targets and not set(targets) & set(locked)
    assert all(s._occupied(x) for x in targets)  # still card 30: onto dice only
    s.options["locked_spots_open"] = True  # the house reading opens them, card 30 included
    assert set(locked) <= set(moves(s))


def test_ruling_3_card_30_is_not_playable_when_the_only_die_ahead_is_locked():
    """Ruling 13 with ruling 3: card 30 needs a die ahead that the die may stand on; a die on a
    locked spot (before the improvement) is not one."""
    s = replay(CARD_30_ONTO_LOCKED, 3, 179)
    q = s.to_move
    d = s.cur_die
    locked = next(x for x in range(s.track_size) if s.locked_only[x] and s._occupied(x))
    s.die_move_card = 0
    for e in range(len(s.die_pos)):  # every other track die but the locked one goes home
        if e != d and s.die_pos[e] < s.track_size and s.die_pos[e] != locked:
            put(s, "die_pos", e, s.track_size + 3)
    put(s, "die_pos", d, min(locked - 1, s.die_pos[d]))
    card30 = 29
    s.tableaus[q].hand = (card30,)
    s.tableaus[q].res = (5, 5, 5)
    assert A("PLAY_CARD", card30) not in s.legal_actions()
    s.options["locked_spots_open"] = True
    assert A("PLAY_CARD", card30) in s.legal_actions()


def test_ruling_1_a_waiting_die_that_gold_can_pay_for_must_move():
    """Moving dice (ruling 1): a die waiting in the stop area sits the round out only when it can
    pay for no free spot even after gold -> beer. Here 1 gold makes the 1 beer a free spot costs,
    so "leave this die in the stop area" is not offered and the die must move."""
    s = replay(WAITING_DIE_WITH_GOLD, 2, 291)
    q = s.to_move
    d = s.cur_die
    assert s.die_pos[d] >= s.track_size and s.die_beer[d] == 0 and s.tableaus[q].res[2] == 1 and not s.moved
    assert moves(s) == []
    assert END not in s.legal_actions()
    s.apply(A("GOLD_BEER", d))
    assert moves(s) and all(x < s.track_size for x in moves(s))
    s.apply(A("MOVE_DIE", moves(s)[0]))
    assert s.die_pos[d] < s.track_size


def test_ruling_1_without_gold_the_waiting_die_sits_out():
    """Ruling 1: the same die without gold can pay for no free spot, so it sits the round out."""
    s = replay(WAITING_DIE_WITH_GOLD, 2, 291)
    q = s.to_move
    put(s.tableaus[q], "res", 2, 0)
    assert moves(s) == [] and END in s.legal_actions()
    assert s.describe(END) == "leave this die in the stop area for the round"


def _move_log(s: KarviState, action: int) -> str:
    """The log line of the die move ``action`` (applied to a clone)."""
    t = s.clone()
    n = t.log_size()
    t.apply(action)
    lines = [e["text"] for e in t.log(None, n) if "to" in e]
    assert len(lines) == 1, lines
    return lines[0]


def _cost_words(label: str) -> str:
    """"paying N beer" or "free", from a label or a log line."""
    if "paying" in label:
        return label[label.index("paying"):].rstrip(".")
    assert "free" in label, label
    return "free"


def test_card_30_label_and_log_agree_it_is_free():
    """Card 30: "Then perform the action without paying the beer cost": the move's label and its
    log line both say free."""
    s = replay(CARD_30_ONTO_LOCKED, 3, 179)
    for x in moves(s):
        label = s.describe(A("MOVE_DIE", x))
        assert _cost_words(label) == "free" == _cost_words(_move_log(s, A("MOVE_DIE", x))), label
        assert "onto" in label


def test_die_move_label_and_log_agree_on_the_cost_paid_and_free():
    """Moving dice: "pay beer equal to the number of pips" (the sail tile caps it at 1; cards 19 and
    30 move for free). Over random games every die move's label states the beer its log line says
    was paid, for paid and free moves alike."""
    seen = {"paid": 0, "free": 0, "card": 0}
    for seed in range(6):
        for players in (2, 3, 4):
            s = meeple.make("karvi", players=players, seed=seed)
            rng = random.Random(seed)
            while not s.is_over():
                legal = s.legal_actions()
                if not s.tasks:
                    for a in legal:
                        if BASE["MOVE_DIE"] <= a < BASE["SHIP_TO"]:
                            label, log = s.describe(a), _move_log(s, a)
                            assert _cost_words(label) == _cost_words(log), (label, log)
                            seen["paid" if "paying" in label else "free"] += 1
                            seen["card"] += s.die_move_card != 0
                s.apply(rng.choice(legal))
    assert seen["paid"] and seen["free"] and seen["card"], seen


def test_card_19_label_says_free():
    """Card 19: "your next die move pays no beer": the label says free, as the log does."""
    s = replay(WAITING_DIE_WITH_GOLD, 2, 291)
    s.apply(A("GOLD_BEER", s.cur_die))
    dear = [x for x in moves(s) if s._cost(s.to_move, x) > 0]
    assert dear
    s.die_move_card = 19
    for x in dear:
        label = s.describe(A("MOVE_DIE", x))
        assert _cost_words(label) == "free" == _cost_words(_move_log(s, A("MOVE_DIE", x))), label
