"""An exploration screen for a game bot with some class attributes changed, head to
head with the unchanged bot on the same deals (seats rotating, common seeds), so the difference
is the change. Results of screens go only into docs/arena.md "What was tried", never the table.

    python benchmarks/bot_variant_screen.py scarvus 6 probabilistic softness=0.1 softness=0.3 \\
        --games 1800 --seed 303 --workers 2

Each positional ``ATTR=VALUE[,ATTR=VALUE...]`` is one variant, screened in turn. The seed is
given by hand before the run; a variant that looks better is then measured as a level by
`arena_suite.py` on seeds drawn at random.
"""

from __future__ import annotations

import argparse
import time

import meeple
from meeple.bots.arena import run_arena


def variant(base: type, spec: str) -> type:
    """A subclass of ``base`` with the attributes of ``spec`` (``a=1.5,b=2``) set as floats."""
    attrs: dict[str, object] = {}
    for part in spec.split(","):
        name, _, value = part.partition("=")
        if not hasattr(base, name):
            raise SystemExit(f"{base.__name__} has no attribute {name!r}")
        attrs[name] = float(value)
    return type(f"{base.__name__}Variant", (base,), {**attrs, "name": "variant"})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("players", type=int)
    ap.add_argument("bot", help="one of the game's own bots, e.g. probabilistic")
    ap.add_argument("variants", nargs="+", metavar="ATTR=VALUE[,ATTR=VALUE]")
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args()
    info = meeple.game_info(args.game)
    base = info.bots[args.bot]
    for spec in args.variants:
        # Workers fork from this process, so they see the variant registered here.
        info.bots["variant"] = variant(base, spec)
        start = time.time()
        r = run_arena(args.game, ["variant", args.bot], args.games, args.players, args.seed,
                      workers=args.workers)
        stats = {s.bot: s.mean_place for s in r.stats}
        v, b = stats["variant"], stats[args.bot]
        print(f"{args.game} {args.players}p {spec}: variant {v} vs {args.bot} {b}, "
              f"difference {v.mean - b.mean:+.3f} ({args.games} games, seed {args.seed}, "
              f"{time.time() - start:.0f} s)", flush=True)
    info.bots.pop("variant", None)


if __name__ == "__main__":
    main()
