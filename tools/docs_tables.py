"""Tables in the docs that are generated from the games themselves, so they cannot drift.

    python tools/docs_tables.py           # rewrite them
    python tools/docs_tables.py --check   # exit 1 if a doc differs from what the games say

Today: OpenSpiel's parameters of every game in docs/interop.md (needs the interop extra). The
rulings pages' option tables carry prose and rulebook sections, so they are checked against
`game_info()` by tests/test_docs.py instead of generated.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import meeple

ROOT = Path(__file__).resolve().parent.parent
INTEROP = ROOT / "docs" / "interop.md"
BEGIN, END = "<!-- openspiel parameters: begin -->", "<!-- openspiel parameters: end -->"


def openspiel_parameters() -> str:
    """The table of every game's OpenSpiel parameters with their defaults."""
    from meeple.interop.openspiel import game_name, param_spec

    rows = ["| game | parameters (defaults) |", "|---|---|"]
    for game in sorted(g["id"] for g in meeple.games()):
        info = meeple.game_info(game)
        spec = param_spec(info)
        nulls = {o.name for o in info.options if o.default is None}
        cells = [f"{name}={json.dumps(value) if isinstance(value, str) else value}"
                 + (" (null)" if name in nulls else "") for name, value in spec.items()]
        rows.append(f"| `{game_name(game)}` | {', '.join(cells)} |")
    return "\n".join(rows)


def replace_between(text: str, begin: str, end: str, body: str) -> str:
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"no {begin} ... {end} markers")
    return pattern.sub(lambda _: f"{begin}\n{body}\n{end}", text)


def main() -> int:
    old = INTEROP.read_text()
    new = replace_between(old, BEGIN, END, openspiel_parameters())
    if "--check" in sys.argv:
        if new != old:
            print(f"{INTEROP.relative_to(ROOT)}: the OpenSpiel parameter table differs from the "
                  "games; run python tools/docs_tables.py")
            return 1
        return 0
    INTEROP.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
