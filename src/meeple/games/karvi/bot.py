"""A heuristic Karvi bot that plans a sensible engine.

Early it keeps beer and provisions up, scouts tiles with the ship and feeds the trade and raid
tracks (their improvements compound); late it builds, places rune stones and upgrade tiles and
cashes in. The die move and the ship move are chosen by rules (what the spot or location would
give this player now); every other decision by a one-step lookahead on a value function of the
player's own position. It reads only the mover's own tableau and public information.
"""

from __future__ import annotations

import math
import random
from typing import Any

from . import components as C
from . import map as sea
from .rules import _FAMILY, BASE, END, KarviState

RES_KEYS = ("fur", "silver", "gold")


class HeuristicBot:
    name = "heuristic"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, state: KarviState) -> int:  # type: ignore[override]
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        q = state.to_move
        assert q is not None
        if not state.tasks:
            return self._main(state, q, legal)
        return self._lookahead(state, q, legal)

    # ----- main phase ---------------------------------------------------------------------------
    def _main(self, s: KarviState, q: int, legal: list[int]) -> int:
        pl = s.tableaus[q]
        late = s.round == s.rounds
        # Free actions first: a useful card, then a worthwhile ship move, then the die.
        for a in legal:
            fam, x = _FAMILY[a]
            if fam == "PLAY_CARD" and self._card_worth(s, q, x) > 0:
                return a
        if not s.ship_moved:
            best, best_v = None, 0.5
            dist = sea.distances(s, q, pl.ship, pl.provisions)
            for a in legal:
                fam, x = _FAMILY[a]
                if fam != "SHIP_TO":
                    continue
                v = self._location_value(s, q, x) - 0.6 * dist.get(x, 0)
                if v > best_v:
                    best, best_v = a, v
            if best is not None:
                return best
        if not s.moved:
            moves = [a for a in legal if _FAMILY[a][0] == "MOVE_DIE"]
            if moves:
                return self._best_move(s, q, moves, late)
            gold = [a for a in legal if _FAMILY[a][0] == "GOLD_BEER"]
            if gold:
                return gold[0]
        return END if END in legal else legal[0]

    def _best_move(self, s: KarviState, q: int, moves: list[int], late: bool) -> int:
        """Shortlist die moves by the spot rule, then simulate the best few: the spot's action
        resolved greedily on a determinization, valued, minus the tempo the move spends."""
        ranked = sorted(moves, key=lambda a: -self._spot_value(s, q, _FAMILY[a][1], late))[:4]
        world = s.determinize(q, self.rng)
        base = self.value(world, q)
        d = s.cur_die
        best, best_v = ranked[0], None
        for a in ranked:
            c = world.clone()
            c.apply(a)
            self._finish_chain(c, q, deep=True)
            spot = _FAMILY[a][1]
            pos = s.die_pos[d]
            skipped = sum(
                1
                for t in range(pos + 1 if pos < s.track_size else 0, min(spot, s.track_size))
                if not s.blocked[t] and t not in s.die_pos
            )
            v = self.value(c, q) - base - 0.45 * skipped
            if spot >= s.track_size:
                v -= 0.0 if late else 0.8 * sum(1 for t in s._die_targets(d) if t < s.track_size) ** 0.5
            v += self.rng.random() * 1e-3
            if best_v is None or v > best_v:
                best, best_v = a, v
        return best

    def _card_worth(self, s: KarviState, q: int, c: int) -> float:
        card = C.UPGRADE_CARDS[c]
        cost = sum(card["cost"].values())
        gain = 0.0
        for box in card["boxes"]:
            g = 0.0
            for step in box:
                op = step[0]
                if op == "points":
                    g += step[1]
                elif op in ("pts_per", "best_healthy", "pts_per_beer"):
                    g += 3
                elif op in ("warrior", "strength", "heal", "provisions", "beer", "res", "gold"):
                    g += 1.5
                elif op == "unlock":
                    g += 2
            gain = max(gain, g)
        return gain - 1.2 * cost - (0 if s.round == s.rounds else 1)

    def _location_value(self, s: KarviState, q: int, node: int) -> float:
        opts = sea.location_options(s, q, node)
        v = 0.0
        if "build" in opts:
            site = s.side["spots"][node]["site"]
            v = max(v, site["points"][len(s.sites[node])] + 2.5)
        if "scout" in opts:
            waiting = len(s.tableaus[q].beside)
            v = max(v, (4.0 if s.round < s.rounds else 1.0) - 1.2 * waiting)
        if node != s.tableaus[q].ship and sea.arrival_cost(s, q, node, "normal"):
            v -= 1
        return v

    def _spot_value(self, s: KarviState, q: int, spot: int, late: bool) -> float:
        d = s.cur_die
        if spot >= s.track_size:
            v = 0.5 if late else 0.3
            beer_left = s.die_beer[d]
            # Stopping early wastes a die's turns; stopping with beer only scores it at the end.
            free_ahead = sum(1 for t in s._die_targets(d) if t < s.track_size)
            return v - 0.5 * free_ahead + (beer_left if late else 0) * 0.3
        sp = s.spots[spot]
        cost = s._cost(q, spot)
        vals = [self._part_value(s, q, part, late) for part in sp["parts"]]
        v = sum(vals) if sp["join"] == "+" else max(vals)
        skipped = sum(
            1
            for t in range(s.die_pos[d] + 1 if s.die_pos[d] < s.track_size else 0, spot)
            if not s.blocked[t] and t not in s.die_pos
        )
        return v - 1.1 * cost - 0.5 * skipped

    def _part_value(self, s: KarviState, q: int, part: list[Any], late: bool) -> float:
        pl = s.tableaus[q]
        v = 0.0
        for step in part:
            op = step[0]
            if op == "action":
                name = step[1]
                if name == "beer":
                    v += 0 if late else 2.5 - 0.4 * sum(s.die_beer[e] for e in s._own_dice(q))
                elif name == "provisions":
                    v += max(0.0, 2.5 - 0.5 * pl.provisions)
                elif name == "income":
                    r, st = 1 + pl.count("posts"), 1 + pl.count("towers")
                    v += (1.6 if self._needs_resources(pl) else 0.8) * r
                    v += (1.6 if self._needs_strength(pl) else 0.8) * st
                elif name == "upgrade":
                    v += 2 + self._placeable(pl)
                elif name == "trade":
                    ok = [
                        t
                        for t in pl.beside
                        if t < C.NUM_TR and self._affordable(pl, C.TR_TILES[t]["cost"])
                    ]
                    v += (
                        6 + len(pl.trade_track)
                        if ok
                        else (8 if len(pl.trade_track) >= 6 and pl.res[0] + pl.res[1] >= 4 else -1)
                    )
                elif name == "raid":
                    st = pl.strength()
                    ok = [t for t in pl.beside if t >= C.NUM_TR and C.TR_TILES[t]["strength"] <= st]
                    v += 6 + len(pl.raid_track) if ok else -1
                elif name == "locked":
                    v += 3 if len(pl.trade_track) >= 2 or len(pl.raid_track) >= 2 else -2
            elif op == "points":
                v += step[1]
            elif op in ("fur", "silver", "res"):
                v += (1.6 if self._needs_resources(pl) else 0.8) * step[1]
            elif op == "gold":
                v += 1.0 * step[1]
            elif op == "warrior":
                v += 1.5 + 0.5 * step[1] if pl.warriors() < C.WARRIOR_SPACES else 0.5
            elif op == "strength":
                v += (1.6 if self._needs_strength(pl) else 0.8) * step[1]
            elif op in ("heal", "provisions"):
                v += 0.8 * step[1]
            else:
                v += 0.5
        return v

    @staticmethod
    def _affordable(pl: Any, cost: dict[str, int]) -> bool:
        """Payable now, counting gold as any resource."""
        lack = sum(max(0, cost.get(k, 0) - pl.res[i]) for i, k in enumerate(("fur", "silver")))
        return lack + cost.get("gold", 0) <= pl.res[2]

    @staticmethod
    def _needs_resources(pl: Any) -> bool:
        """A trade tile beside the tableau that the supply cannot pay yet."""
        return any(t < C.NUM_TR and not pl.can_pay(C.TR_TILES[t]["cost"]) for t in pl.beside)

    @staticmethod
    def _needs_strength(pl: Any) -> bool:
        st = pl.strength()
        return any(t >= C.NUM_TR and C.TR_TILES[t]["strength"] > st for t in pl.beside)

    @staticmethod
    def _placeable(pl: Any) -> float:
        """Points the best tile or rune stone placeable now would bring (0 if none)."""
        best = 0.0
        for u in pl.hidden_ut:
            t = C.UPGRADE_TILES[u]
            if (
                pl.meets(t["requirement"])
                and pl.can_pay(C.SLOT_COST[t["slot"]])
                and not pl.slots[t["slot"]]
            ):
                best = max(
                    best,
                    C.SLOT_POINTS[t["slot"]] + 2.0 - 0.5 * sum(C.SLOT_COST[t["slot"]].values()),
                )
        for r in pl.hidden_runes:
            if pl.meets(C.RUNES[r]["requirement"]):
                for k, spot in enumerate(C.RUNE_SPOTS):
                    if not pl.rune_spots[k] and pl.can_pay(spot["cost"]):
                        best = max(
                            best,
                            spot["points"]
                            + C.RUNES[r]["easy"][1]
                            - 0.5 * sum(spot["cost"].values()),
                        )
        return best

    # ----- everything else: one-step lookahead --------------------------------------------------
    def _lookahead(self, s: KarviState, q: int, legal: list[int]) -> int:
        kind = s.tasks[-1][0]
        if kind in ("trade_action", "upgrade_action"):
            gold = self._gold_for(s, q, kind, legal)
            if gold is not None:
                return gold
        if kind in ("move", "paid_move", "join", "map_jump"):
            best, best_v = END if END in legal else legal[0], 0.0
            for a in legal:
                if _FAMILY[a][0] == "SHIP_TO":
                    v = self._location_value(s, q, _FAMILY[a][1])
                    if v > best_v:
                        best, best_v = a, v
            return best
        if kind in ("scout", "special_choose"):
            return max(legal, key=lambda a: self._tile_value(s, q, a))
        scored = []
        world = s.determinize(q, self.rng)  # look ahead only on what this player may know
        for a in legal:
            if _FAMILY[a][0].startswith("GOLD"):
                continue
            c = world.clone()
            c.apply(a)
            self._finish_chain(c, q)
            v = self.value(c, q)
            if _FAMILY[a][0] == "END" and kind in (
                "parts",
                "beer",
                "res",
                "strength",
                "heal",
                "trade_card",
                "upcard",
            ):
                v -= 0.5  # taking less is rarely right
            scored.append((v + self.rng.random() * 1e-3, a))
        if not scored:
            return legal[0]
        return max(scored)[1]

    @staticmethod
    def _gold_for(s: KarviState, q: int, kind: str, legal: list[int]) -> int | None:
        """Gold is universal: turn it into the fur or silver that the best cost still lacks."""
        pl = s.tableaus[q]
        if pl.res[2] <= 0:
            return None
        if kind == "trade_action":
            if any(_FAMILY[a][0] == "ACTIVATE" for a in legal):
                return None
            costs = [C.TR_TILES[t]["cost"] for t in pl.beside if t < C.NUM_TR]
        else:
            if any(_FAMILY[a][0] == "PLACE_TILE" for a in legal):
                return None
            costs = [
                C.SLOT_COST[C.UPGRADE_TILES[u]["slot"]]
                for u in pl.hidden_ut
                if pl.meets(C.UPGRADE_TILES[u]["requirement"])
                and not pl.slots[C.UPGRADE_TILES[u]["slot"]]
            ]
        for cost in sorted(costs, key=lambda c: sum(c.values())):
            lack = [max(0, cost.get(k, 0) - pl.res[i]) for i, k in enumerate(("fur", "silver"))]
            if sum(lack) + cost.get("gold", 0) <= pl.res[2] and sum(lack):
                return BASE["GOLD_FUR"] if lack[0] else BASE["GOLD_SILVER"]
        return None

    @staticmethod
    def _finish_chain(c: KarviState, q: int, deep: bool = False) -> None:
        """Resolve the rest of the pending choices with a cheap default, so that an action whose
        payoff comes later in its chain (a raid's bonus after its damage) is valued whole."""
        for _ in range(12):
            if c.to_move != q or not c.tasks:
                return
            legal = c.legal_actions()
            kind = c.tasks[-1][0]
            if kind == "damage":
                # The cheapest warrior to hurt: a healthy low one, else the lowest injured one.
                c.apply(min(legal, key=lambda a: (_FAMILY[a][1] % 2, _FAMILY[a][1])))
                continue
            useful = [a for a in legal if a != END and not _FAMILY[a][0].startswith("GOLD")]
            if deep and kind in ("trade_action", "raid_action", "upgrade_action") and useful:
                acts = [a for a in useful if _FAMILY[a][0] in ("ACTIVATE", "FRANCIA", "PLACE_TILE")]
                c.apply(acts[0] if acts else useful[0])
                continue
            if (
                kind
                in (
                    "upgrade_action",
                    "trade_action",
                    "raid_action",
                    "location",
                    "move",
                    "paid_move",
                    "join",
                    "map_jump",
                    "any_spot",
                    "reuse",
                    "die_back",
                    "prov_pts",
                    "sacrifice",
                    "flip_for",
                    "special_spot",
                    "place_warrior",
                )
                or not useful
            ):
                return
            c.apply(useful[0])

    def _tile_value(self, s: KarviState, q: int, a: int) -> float:
        fam, x = _FAMILY[a]
        if fam == "SPECIAL":
            sp = C.SPECIALS[x]
            return sp["points"] * sum(s.tableaus[q].count(w) for w in sp["per"])
        t = C.TR_TILES[x]
        pl = s.tableaus[q]
        pts = sum(step[1] for step in t["bonus"] if step[0] == "points")
        if x < C.NUM_TR:  # gold is scarce: weigh it more, and what is already in the supply less
            cost = t["cost"]
            short = sum(max(0, cost.get(k, 0) - pl.res[i]) for i, k in enumerate(RES_KEYS))
            return pts - 0.6 * sum(cost.values()) - 1.2 * short - 1.5 * cost.get("gold", 0)
        return pts - 0.7 * max(0, t["strength"] - pl.strength()) - 0.2 * t["strength"] - t["damage"]

    @staticmethod
    def value(s: KarviState, q: int) -> float:
        """A player's position: points plus what their supply and tableau are worth."""
        pl = s.tableaus[q]
        late = s.round == s.rounds
        v = float(pl.points)
        v += 0.5 * (pl.res[0] + pl.res[1]) + 0.8 * pl.res[2] + 0.3 * pl.provisions + 0.4 * len(pl.hand)
        v += 1.0 * pl.strength() + 0.3 * pl.count("healthy")
        v += (0.3 if late else 0.7) * sum(s.die_beer[d] for d in s._own_dice(q))
        v += len(pl.trade_track) ** 2 + 4 * len(pl.trade_track) + 5 * len(pl.raid_track)
        v += (0.5 if late else 2.0) * len(pl.beside)
        v += 1.5 * (pl.tower_supply + pl.post_supply)
        v += 0.8 * s.final_lines(q)["rune stones"] + 2.0 * sum(1 for st in pl.rune_spots if st)
        if s.over:
            v = s.scores()[q]
        return v


def rollout_policy(state: KarviState, rng: random.Random) -> int:
    """A fast playout policy for search: take what a choice offers (random among the gains),
    step the die a few spots ahead rather than straight into the stop area, end turns soon.

    It reads the mover's legal actions only, so it is safe on a determinized copy.
    """
    legal = state.legal_actions()
    if len(legal) == 1:
        return legal[0]
    if state.tasks:
        gains = [a for a in legal if a != END and not _FAMILY[a][0].startswith("GOLD")]
        return rng.choice(gains) if gains else legal[0]
    if not state.moved:
        moves = [a for a in legal if _FAMILY[a][0] == "MOVE_DIE"]
        track = [a for a in moves if _FAMILY[a][1] < state.track_size]
        if track:
            return rng.choice(track[:3])
        if moves:
            return rng.choice(moves)
    if END in legal and rng.random() < 0.7:
        return END
    return rng.choice(legal)


EVAL_SCALE = 8.0
"""Value points at which a lead counts as about three quarters of a sure win (tanh(1) = 0.76)."""


def evaluate(state: KarviState) -> list[float]:
    """SearchHooks.evaluate for a playout cut off before the end: a soft place by `HeuristicBot.value`.

    Each player's value is the mean over the others of tanh(lead / EVAL_SCALE), so it lies in
    [-1, 1] like `State.returns`, and tends to the place-based utility as the leads grow. The
    points alone say little mid-game: an engine (trade tracks, beer, beside tiles) scores later.
    """
    if state.over:
        return state.returns()
    v = [HeuristicBot.value(state, q) for q in range(state.players)]
    n = len(v)
    if n == 1:
        return [0.0]
    return [
        sum(math.tanh((v[i] - v[j]) / EVAL_SCALE) for j in range(n) if j != i) / (n - 1)
        for i in range(n)
    ]


class PlannerBot(HeuristicBot):
    """Level ``hard``: `HeuristicBot` with a wider, steadier die move and a last round judged by
    the final scoring (the search at 300 iterations was level with the heuristic).

    Where ``medium`` plays badly: it simulates only the 4 die moves its spot rule ranks first, on
    a single determinization, so one lucky or unlucky sampled draw decides the move; and its
    position value still weighs beer, provisions, gold and rune stones as mid-game assets in the
    last round, when the final scoring counts them at fixed rates. This bot simulates the best
    `WIDTH` moves on `DETS` determinizations (the mean gain decides) and, in the last round,
    values a position by points plus the final scoring lines. Exploratory runs in docs/arena.md.
    It reads only what the mover may know (every lookahead is on `determinize`).
    """

    name = "planner"
    WIDTH = 8
    """Die moves simulated (of up to ~12): 16 was no better in the exploratory runs, 4 worse."""
    DETS = 4
    """Determinizations a die move is simulated on (2 and 8 did about as well)."""
    FINAL = True
    """Value the last round by the final scoring (`_final_value`)."""

    def _best_move(self, s: KarviState, q: int, moves: list[int], late: bool) -> int:
        return self._ranked_moves(s, q, moves, late)[0][1]

    def _ranked_moves(
        self, s: KarviState, q: int, moves: list[int], late: bool
    ) -> list[tuple[float, int]]:
        """The `WIDTH` moves the spot rule likes best, by their mean simulated gain, best first."""
        ranked = sorted(moves, key=lambda a: -self._spot_value(s, q, _FAMILY[a][1], late))
        ranked = ranked[: self.WIDTH]
        d = s.cur_die
        pos = s.die_pos[d]
        totals = {a: 0.0 for a in ranked}
        for _ in range(self.DETS):
            world = s.determinize(q, self.rng)
            base = self.value(world, q)
            for a in ranked:
                c = world.clone()
                c.apply(a)
                self._finish_chain(c, q, deep=True)
                totals[a] += self.value(c, q) - base
        out = []
        for a in ranked:
            spot = _FAMILY[a][1]
            skipped = sum(
                1
                for t in range(pos + 1 if pos < s.track_size else 0, min(spot, s.track_size))
                if not s.blocked[t] and t not in s.die_pos
            )
            v = totals[a] / self.DETS - 0.45 * skipped
            if spot >= s.track_size:
                v -= 0.0 if late else 0.8 * sum(1 for t in s._die_targets(d) if t < s.track_size) ** 0.5
            v += self.rng.random() * 1e-3
            out.append((v, a))
        out.sort(key=lambda va: -va[0])
        return out

    def value(self, s: KarviState, q: int) -> float:  # type: ignore[override]
        if not self.FINAL or s.round < s.rounds or s.over:
            return HeuristicBot.value(s, q)
        return self._final_value(s, q)

    @staticmethod
    def _final_value(s: KarviState, q: int) -> float:
        """Last round: what the final scoring will count (`final_lines`, rulebook "Final
        scoring"), plus a little for what the tableau may still turn into points this round."""
        pl = s.tableaus[q]
        v = float(pl.points) + sum(s.final_lines(q).values())
        v += 0.25 * ((pl.res[0] + pl.res[1]) % 2) + 0.25 * (len(pl.hand) % 2)
        v += 0.5 * len(pl.beside) + 0.75 * (pl.tower_supply + pl.post_supply)
        v += 2 * len(pl.trade_track) + 2.5 * len(pl.raid_track) + 0.3 * pl.count("healthy")
        return v


class SearchPlannerBot(PlannerBot):
    """Level ``expert``: `PlannerBot`, whose die move is checked by playouts to the round's end.

    The planner's best `KEEP` die moves are each played on the same `iterations` determinizations
    (common random numbers), every seat then played by `HeuristicBot` until the round ends (the
    game's end in the last round), and judged by the planner's value: the mover's minus the best
    opponent's. The planner's one-step estimate breaks near ties. A work budget, no clock.
    """

    name = "planner_search"
    KEEP = 3
    iterations = 8
    """Determinizations each kept die move is played out on."""

    def _best_move(self, s: KarviState, q: int, moves: list[int], late: bool) -> int:
        ranked = self._ranked_moves(s, q, moves, late)[: self.KEEP]
        if len(ranked) == 1:
            return ranked[0][1]
        totals = {a: 0.0 for _, a in ranked}
        for _ in range(self.iterations):
            world = s.determinize(q, self.rng)
            seed = self.rng.randrange(1 << 30)
            for _, a in ranked:
                c = world.clone()
                c.apply(a)
                totals[a] += self._playout(c, q, seed)
        best = max(ranked, key=lambda va: (totals[va[1]] / self.iterations + 0.1 * va[0]))
        return best[1]

    def _playout(self, c: KarviState, q: int, seed: int) -> float:
        bots = [HeuristicBot(seed + k) for k in range(c.players)]
        start = c.round
        for _ in range(2000):
            if c.over or c.to_move is None or c.round != start:
                break
            c.apply(bots[c.to_move].choose(c))
        mine = self.value(c, q)
        return mine - max(self.value(c, o) for o in range(c.players) if o != q)
