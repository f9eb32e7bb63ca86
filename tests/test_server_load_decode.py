"""The load generator's shortcut (`benchmarks/server_load.py`, `decode`) reads a state in which
the seat has nothing to do only for its status and move number. It must agree with a full
decode on every message a real server sends, so a change to the message's layout shows up
here rather than as a benchmark that silently measures the wrong moves."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import meeple
from server_util import client, create

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from server_load import decode  # noqa: E402


def test_the_load_generators_decode_agrees_with_json(tmp_path):
    rng = random.Random(3)
    with client(f"sqlite:///{tmp_path / 'decode.db'}") as c:
        for game in [g["id"] for g in meeple.games()]:
            players = min(meeple.game_info(game).player_counts)
            t = create(c, game=game, players=players)
            short = 0
            with c.websocket_connect(f"/ws/tables/{t['id']}") as ws, \
                    c.websocket_connect(f"/ws/tables/{t['id']}") as spy:
                ws.send_json({"type": "hello", "seat": 0, "secret": t["secret"]})
                spy.send_json({"type": "hello", "seat": None, "secret": None})
                while True:
                    for sock in (spy, ws):
                        raw = sock.receive_text()
                        full, quick = json.loads(raw), decode(raw)
                        if full.get("type") == "state":
                            assert {k: full[k] for k in ("status", "move")} == \
                                {k: quick[k] for k in ("status", "move")}
                            assert bool(full["legal"]) == bool(quick["legal"])
                            short += quick is not full and not full["legal"]
                        else:
                            assert quick == full
                        if sock is ws:
                            m = full
                    if m.get("type") == "state" and m["status"] == "over":
                        break
                    if m.get("type") == "state" and m["legal"]:
                        ws.send_json({"type": "move", "action": rng.choice(m["legal"])["id"],
                                      "move": m["move"]})
            assert short > 0, game  # the shortcut was taken
