"""A bot account that plays random legal moves, with httpx and the Bot API's NDJSON streams only.

    python examples/bot_random.py http://localhost:8000 mpl_... [GAMES]   (docs/bots-api.md)

It accepts every invitation and plays each game that starts on a thread of its own.
"""

import json
import random
import sys
import threading
import time

import httpx

URL, TOKEN = sys.argv[1].rstrip("/"), sys.argv[2]
AUTH = {"Authorization": f"Bearer {TOKEN}"}
GAMES = int(sys.argv[3]) if len(sys.argv) > 3 else None  # stop after this many games
finished = []  # tables whose game ended


def stream(path):  # waits out the token's rate limit, like post
    while True:
        with httpx.stream("GET", URL + path, headers=AUTH, timeout=httpx.Timeout(30, read=60)) as r:
            if r.status_code == 429:
                time.sleep(float(r.headers.get("retry-after", 1)))
                continue
            r.raise_for_status()
            for line in r.iter_lines():
                if line.strip():  # an empty line is a keep-alive
                    yield json.loads(line)
            return


def post(path, body=None):  # waits out the token's rate limit
    while (r := httpx.post(URL + path, json=body, headers=AUTH, timeout=30)).status_code == 429:
        time.sleep(float(r.headers.get("retry-after", 1)))
    return r


def play(table):
    for msg in stream(f"/api/bot/table/{table}/stream"):
        if msg["type"] == "state" and msg["legal"]:  # my turn: the legal actions, labelled
            action = random.choice(msg["legal"])["id"]
            post(f"/api/bot/table/{table}/move", {"action": action, "move": msg["move"]})
        elif msg["type"] == "gameEnd":
            print(table, "over:", msg["scores"], flush=True)
            break
    finished.append(table)


def main():
    started = set()
    for event in stream("/api/bot/stream/events"):
        if event["type"] == "invitation":
            post(f"/api/bot/invitation/{event['table']}/{event['seat']}/accept")
        elif event["type"] == "gameStart" and event["table"] not in started:
            started.add(event["table"])
            threading.Thread(target=play, args=(event["table"],), daemon=True).start()
        if GAMES is not None and len(finished) >= GAMES:
            return


if __name__ == "__main__":
    main()
