"""A game's core (rules, views, bots) imports nothing beyond the standard library.

A bare `pip install meeple` has no numpy, FastAPI or OpenSpiel; importing one game must not
drag in another face's dependency. Run in a fresh interpreter so other tests' imports don't hide it.
"""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "fastapi", "starlette", "sqlalchemy", "pyspiel", "pettingzoo", "gymnasium",
         "openskill", "matplotlib", "ray")

SCRIPT = f"""
import random, sys
import meeple
from meeple.bots import levels, make_bot
for g in meeple.games():
    info = meeple.game_info(g["id"])
    state = meeple.make(g["id"], players=g["players"][0], seed=1)
    for level in levels(info):
        bot = make_bot(level, info, seed=1)
        if level != "expert":  # the same code as hard, at three times the cost
            bot.choose(state)
    rng = random.Random(1)
    for _ in range(50):
        if state.is_over():
            break
        state.apply(rng.choice(state.legal_actions()))
        state.view(0), state.log(0), state.view(None)
loaded = sorted(m for m in {HEAVY!r} if m in sys.modules)
print(",".join(loaded))
"""


def test_games_and_bots_import_only_the_standard_library() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"making and playing games imported {out.stdout.strip()}"
