"""The server words every log line and choice label with the names on the seats: people by
their names, bots as "Bot N (level)", the reader "you"; when a seat gets a name, every socket
gets its log again, worded with it. The replay API names seats the same way.
"""

from __future__ import annotations

import random
import re

import pytest

from server_util import client, create, hello, join, until

PLAYER_N = re.compile(r"\bPlayer \d\b")


@pytest.fixture()
def c(tmp_path):
    with client(f"sqlite:///{tmp_path / 'names.db'}") as cl:
        yield cl


def test_log_lines_name_the_seats_and_follow_a_new_name(c):
    t = create(c, game="trickarus", players=3, name="Ann",
               seats=[{"kind": "open"}, {"kind": "me"}, {"kind": "bot", "level": "random"}])
    with c.websocket_connect(f"/ws/tables/{t['id']}") as spy:
        log: list = []
        first = hello(spy)
        log[first["log_start"]:] = first["log"]
        # before anyone sits there, the first seat (who leads) has no name yet
        assert any("Player 1 leads" in e["text"] for e in log), log
        r = join(c, t["id"], 0, "Bea")
        assert r.status_code == 200, r.text

        def seen(m):
            if m.get("type") == "state":
                log[m["log_start"]:] = m["log"]
            return m.get("type") == "state" and m["status"] == "running" and bool(log)

        until(spy, seen)
    lines = [e["text"] for e in log]
    assert lines and not any(PLAYER_N.search(x) for x in lines), lines
    assert any("Bea leads" in x for x in lines)


def test_a_seat_reads_you_others_by_name_and_labels_name_seats(c):
    t = create(c, game="scarvus", players=3, name="Ann", options={"fancy_flying": True},
               seats=[{"kind": "me"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}])
    rng = random.Random(2)
    with c.websocket_connect(f"/ws/tables/{t['id']}") as ws:
        m = hello(ws, 0, t["secret"])
        log = list(m["log"])
        labels: list[str] = []
        for _ in range(60):
            if m["type"] == "state" and m["status"] == "over":
                break
            if m["type"] == "state" and m["legal"]:
                labels += [x["label"] for x in m["legal"]]
                choice = rng.choice(m["legal"])
                ws.send_json({"type": "move", "action": choice["id"], "move": m["move"]})
            m = ws.receive_json()
            if m["type"] == "state":
                log[m["log_start"]:] = m["log"]
    lines = [e["text"] for e in log]
    assert any(x.startswith("You ") for x in lines)
    assert any("Bot 2 (random)" in x for x in lines)
    assert not any(PLAYER_N.search(x) or "Ann" in x for x in lines), lines
    assert not any(PLAYER_N.search(x) for x in labels), labels


def test_the_replay_api_names_the_seats(c):
    t = create(c, game="trickarus", players=2, name="Ann",
               seats=[{"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}])
    for _ in range(400):
        if c.get(f"/api/tables/{t['id']}").json()["status"] == "over":
            break
        import time
        time.sleep(0.05)
    data = c.get(f"/api/tables/{t['id']}/replay").json()
    lines = [e["text"] for e in data["log"]]
    assert any("Bot 1 (random)" in x for x in lines) and not any(PLAYER_N.search(x) for x in lines)
    assert data["view"]["final_scoring"] and len(data["view"]["final_scoring"]) == 2
