"""The sea map and what the setup reads off the boards for a player count: routes, distances,
displacing, the locations' scouting and building, and a ship's arrival."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Final

from . import components as C

if TYPE_CHECKING:
    from .rules import KarviState

# The parts of a locked action spot (More action variety): usable once unlocked.
LOCKED: Final = [["action", "locked"]]

# An action track: its spots, their beer costs, which are blocked (2 players), which hold
# locked parts only, and which are shut while locked actions are (blocked or locked only).
Track = tuple[list[dict[str, Any]], list[int], list[bool], list[bool], list[bool]]


class Layout:
    """What the setup reads off the board for a player count, worked out once per process (it
    was a sixth of a random game): never changed, so every game and copy of that count shares
    it, and the map distances found by any of them (`distances`)."""

    def __init__(self, n: int) -> None:
        self.players = n
        self.side = C.side(n)
        spots = self.side["spots"]
        self.nodes: list[str] = [s["name"] for s in spots]
        self.adj: list[list[int]] = [[] for _ in self.nodes]
        for a, b in self.side["routes"]:
            ia, ib = self.nodes.index(a), self.nodes.index(b)
            self.adj[ia].append(ib)
            self.adj[ib].append(ia)
        self.obstructed = [bool(s.get("obstructed")) for s in spots]
        # `distances` by (start, limit, map unlocked) as one int: depends on the map alone.
        self.dist_memo: dict[int, dict[int, int]] = {}
        self.stop_tiles = [i for i, t in enumerate(C.STOP_TILES) if n in t["players"]]
        # Location stacks (Setup 2): the locations that share a pair of symbols, and those kinds.
        pairs: dict[tuple[str, ...], list[int]] = {}
        for i, s in enumerate(spots):
            syms = s.get("symbols")
            if not syms:
                continue
            key = tuple(sorted(f"{k}:{v}" for sym in syms for k, v in sym.items()))
            pairs.setdefault(key, []).append(i)
        self.location_pairs: list[tuple[list[int], list[int]]] = [
            (locs, [C.KINDS.index(tuple(k.split(":"))) for k in key])  # type: ignore[arg-type]
            for key, locs in pairs.items()
        ]
        self.sites = [i for i, s in enumerate(spots) if "site" in s]
        self.special_spots = [i for i, s in enumerate(spots) if "special_runes" in s]
        self.tracks: dict[tuple[str, ...], Track] = {}

    def track(self, order: list[str], sides: dict[str, str]) -> Track:
        """The action spots for these boards and sides: their beer costs, which are blocked (2
        players), which hold locked parts only, and which are either (shut to a player who has
        not unlocked locked actions)."""
        key = tuple(order) + tuple(sides[b] for b in order)
        found = self.tracks.get(key)
        if found is None:
            spots = C.track_spots(sides, order)
            blocked = [bool(self.players == 2 and s.get("three_plus")) for s in spots]
            locked_only = [all(p == LOCKED for p in s["parts"]) for s in spots]
            found = self.tracks[key] = (
                spots,
                [s["cost"] for s in spots],
                blocked,
                locked_only,
                [b or lo for b, lo in zip(blocked, locked_only, strict=True)],
            )
        return found


_LAYOUTS: Final[dict[int, Layout]] = {}


def layout(n: int) -> Layout:
    """The shared `Layout` for ``n`` players."""
    found = _LAYOUTS.get(n)
    if found is None:
        found = _LAYOUTS[n] = Layout(n)
    return found


def has_map(s: KarviState, q: int) -> bool:
    pl = s.tableaus[q]
    return pl.map or any(e.get("map") for e in pl.effects())


def distances(s: KarviState, q: int, start: int, limit: int) -> dict[int, int]:
    """Nodes reachable in at most ``limit`` steps, with their distance. Without the map, a
    ship may not enter the obstructed spots; one already inside (special ability) may move
    within and out of the area, not back in (Obstructed spots, special case). The dict is
    shared (memoized): callers read it only."""
    unlocked = has_map(s, q)
    if not 0 <= limit < 1 << 20:  # pragma: no cover - no rule moves a ship that far
        return _search(s, start, limit, unlocked)
    # (start, limit, unlocked) as one int: no tuple to make and hash each time
    key = start << 21 | limit << 1 | (1 if unlocked else 0)
    dist = s._dist_memo.get(key)
    if dist is None:
        dist = s._dist_memo[key] = _search(s, start, limit, unlocked)
    return dist


def _search(s: KarviState, start: int, limit: int, unlocked: bool) -> dict[int, int]:
    """`distances`' breadth-first search."""
    obstructed, adj = s.obstructed, s.adj
    inside = obstructed[start]
    dist: dict[int, int] = {start: 0}
    seen = {(start, inside)}
    frontier = deque([(start, inside, 0)])
    while frontier:
        node, ins, k = frontier.popleft()
        if k >= limit:
            continue
        for nb in adj[node]:
            if obstructed[nb] and not unlocked and not ins:
                continue
            state = (nb, ins and obstructed[nb])
            if state in seen:
                continue
            seen.add(state)
            if nb not in dist:
                dist[nb] = k + 1
            frontier.append((nb, state[1], k + 1))
    return dist


def ships_at(s: KarviState, node: int, but: int) -> list[int]:
    return [o for o in range(s.players) if o != but and s.tableaus[o].ship == node]


def arrival_cost(s: KarviState, q: int, node: int, mode: str) -> int:
    """Occupied spot: displacing costs 1 provision per ship at least as strong (mode normal).
    A ship card's move (mode card) pays "if you displace someone else when you have less combat
    strength than them" only (ruling; the option makes an equal ship cost too)."""
    if node == 0 or mode not in ("normal", "card"):
        return 0
    mine = s.tableaus[q].strength()
    if mode == "card" and not s.options.get("card_move_equal_pays", False):
        mine += 1
    return sum(1 for o in ships_at(s, node, q) if s.tableaus[o].strength() >= mine)


def displace_targets(s: KarviState, victim: int, node: int) -> list[int]:
    """Displacing: a free adjacent spot (obstructed only if that player has the map), else a
    spot 2 away (special case); Kaupanger always has room."""
    ok = has_map(s, victim)

    def free(x: int) -> bool:
        if s.obstructed[x] and not ok:
            return False
        return x == 0 or not any(s.tableaus[o].ship == x for o in range(s.players))

    near = [x for x in s.adj[node] if free(x)]
    if near:
        return sorted(near)
    far = {y for x in s.adj[node] for y in s.adj[x] if y != node and free(y)}
    return sorted(far) or [0]


def location_options(s: KarviState, q: int, node: int) -> list[str]:
    """End movement: scout a stack whose kind you lack, or build the building shown."""
    pl = s.tableaus[q]
    out = []
    stack = s.stacks.get(node)
    if stack and not pl.kinds >> C.TILE_KIND[stack[0]] & 1:
        out.append("scout")
    if node in s.sites:
        site = s.side["spots"][node]["site"]
        supply = pl.tower_supply if site["building"] == "tower" else pl.post_supply
        if supply > 0 and q not in s.sites[node] and len(s.sites[node]) < len(site["points"]):
            out.append("build")
    return out


def sail(s: KarviState, q: int, node: int, mode: str) -> None:
    """Ship arrives at ``node``: displace (paying if not stronger), then the location."""
    pl = s.tableaus[q]
    pl.provisions -= arrival_cost(s, q, node, mode)
    if pl.exception and not s.obstructed[node]:
        pl.exception = False
    pl.ship = node
    pl.displaced = False
    s.log_event(("sail", q, s.nodes[node]))
    s.tasks.append(("location", node))
    if node != 0 and mode in ("normal", "card", "force"):
        for o in reversed(ships_at(s, node, q)):
            s.tasks.append(("displace", o, node))
