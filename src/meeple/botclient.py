"""`meeple bot run`: connect a bot to a meeple server's Bot API (docs/bots-api.md).

The client listens to the account's event stream, accepts invitations (challenges included),
and plays each game that starts on a thread of its own: it reads the table's stream and, on
each state of its turn, asks its policy for an action id and posts it. The policy is one of

- a local level (``random``, ``easy`` ... ``expert``): ``random`` needs only the legal actions;
  the others play on the *sampled world* the server sends with each turn (``?world=1``): a
  state the server determinized for this seat, rebuilt here with `meeple.core.worlds`, so the
  seed and the other seats' hidden cards never leave the server;
- a program (``--program "python mybot.py"``): it gets one JSON line on its stdin per state of
  its turn (the message the server sent: ``table``, ``game``, ``seat``, ``move``, ``view``,
  ``legal`` with ids and labels, ``log``, and ``world`` when asked for) and answers one JSON
  line on its stdout, ``{"action": <id>}``. A researcher's policy needs no network code.
"""

from __future__ import annotations

import json
import random
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx

import meeple
from meeple.bots import make_bot
from meeple.core.worlds import read_state

Policy = Callable[[dict[str, Any]], int]


class Refused(RuntimeError):
    """The server answered a stream's request with an error (``status``)."""

    def __init__(self, path: str, status: int, text: str, wait: float = 1.0) -> None:
        super().__init__(f"{path}: {status} {text}")
        self.status, self.wait = status, wait


class BotClient:
    """One bot account's connection. ``games``: stop after that many games ended (None:
    run until stopped)."""

    def __init__(
        self,
        url: str,
        token: str,
        policy: Policy,
        *,
        world: bool = False,
        games: int | None = None,
        play: dict[str, Any] | None = None,
        say: Callable[[str], None] = print,
    ) -> None:
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"}
        self.policy, self.world, self.games, self.play = policy, world, games, play
        self.say = say
        self.done = 0
        self.stop = threading.Event()
        self.threads: dict[str, threading.Thread] = {}
        self.lock = threading.Lock()

    # ----- HTTP --------------------------------------------------------------------------------
    def post(self, path: str, body: Any = None) -> httpx.Response:
        """A POST that waits out the token's rate limit (429 with ``Retry-After``)."""
        for _ in range(20):
            r = httpx.post(self.url + path, json=body, headers=self.headers, timeout=30)
            if r.status_code != 429:
                return r
            time.sleep(float(r.headers.get("retry-after") or 1))
        return r

    def lines(self, path: str) -> Iterator[dict[str, Any]]:
        """The objects of an NDJSON stream (keep-alive lines skipped)."""
        with httpx.stream(
            "GET", self.url + path, headers=self.headers, timeout=httpx.Timeout(30, read=60)
        ) as r:
            if r.status_code != 200:
                r.read()
                raise Refused(path, r.status_code, r.text, float(r.headers.get("retry-after") or 1))
            for line in r.iter_lines():
                if self.stop.is_set():
                    return
                if line.strip():
                    yield json.loads(line)

    # ----- the account's events ---------------------------------------------------------------
    def run(self) -> int:
        """Play until ``games`` games ended (or forever); returns the games played."""
        me = httpx.get(self.url + "/api/bot/account", headers=self.headers, timeout=30)
        if me.status_code != 200:
            raise RuntimeError(f"the server refused the token: {me.text}")
        self.say(f"connected as {me.json()['username']}")
        if self.play:
            r = self.post("/api/bot/play", self.play)
            if r.status_code != 200:
                raise RuntimeError(f"Play now refused: {r.text}")
        while not self.stop.is_set():
            try:
                for event in self.lines("/api/bot/stream/events"):
                    self.on_event(event)
                    if self.stop.is_set():
                        break
            except (httpx.TransportError, Refused) as exc:
                if self.stop.is_set():
                    break
                if isinstance(exc, Refused) and exc.status in (401, 403):
                    raise  # a revoked token or a missing scope: reconnecting will not help
                self.say(f"event stream lost ({exc}); reconnecting")
                time.sleep(exc.wait if isinstance(exc, Refused) else 1)
        for th in list(self.threads.values()):
            th.join(5)
        return self.done

    def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "invitation":
            r = self.post(f"/api/bot/invitation/{event['table']}/{event['seat']}/accept")
            self.say(
                f"invitation to {event['game']} table {event['table']}: "
                f"{'accepted' if r.status_code == 200 else r.text}"
            )
        elif kind == "gameStart" and event["table"] not in self.threads:
            th = threading.Thread(target=self.play_table, args=(event["table"],), daemon=True)
            self.threads[event["table"]] = th
            th.start()
        elif kind == "error":
            self.say(f"server: {event.get('message')}")
            self.stop.set()

    # ----- one table --------------------------------------------------------------------------
    def play_table(self, table: str) -> None:
        """Play one table until its ``gameEnd``; a stream that ends before (the server
        restarting, a slow connection dropped) is opened again, and it starts with the state."""
        query = "?world=1" if self.world else ""
        try:
            for _attempt in range(100):
                try:
                    if self._follow(table, query):
                        return
                except httpx.TransportError as exc:
                    self.say(f"table {table}: stream lost ({exc}); reconnecting")
                except Refused as exc:
                    if exc.status != 429:
                        raise
                    time.sleep(exc.wait)
                if self.stop.is_set():
                    return
                time.sleep(0.5)
        except Exception as exc:  # a table's failure must not end the others
            self.say(f"table {table}: {exc}")
        finally:
            with self.lock:
                self.done += 1
                if self.games is not None and self.done >= self.games:
                    self.stop.set()

    def _follow(self, table: str, query: str) -> bool:
        """Read the table's stream and move on each turn; True once the game ended."""
        for msg in self.lines(f"/api/bot/table/{table}/stream{query}"):
            if msg.get("type") == "state" and msg.get("legal"):
                with self.lock:  # one program, one question at a time
                    action = self.policy(msg)
                r = self.post(
                    f"/api/bot/table/{table}/move", {"action": action, "move": msg["move"]}
                )
                if r.status_code != 200 and r.json().get("error") != "stale":
                    self.say(f"table {table}: move refused: {r.text}")
            elif msg.get("type") == "gameEnd":
                self.say(f"table {table} over: scores {msg.get('scores')}")
                return True
        return False


# ----- policies -----------------------------------------------------------------------------------
def level_policy(level: str, seed: int | None = None) -> tuple[Policy, bool]:
    """A local level's policy, and whether it needs sampled worlds."""
    rng = random.Random(seed)
    if level == "random":
        return (lambda msg: rng.choice(msg["legal"])["id"]), False

    def choose(msg: dict[str, Any]) -> int:
        world = msg.get("world")
        legal = [a["id"] for a in msg["legal"]]
        if not isinstance(world, dict) or "error" in world:
            raise RuntimeError(
                f"level {level!r} needs a world the server could not send: "
                f"{(world or {}).get('error', 'none sent')}"
            )
        game, players, options = world["game"], world["players"], world["options"]
        state = read_state(world, lambda s: meeple.make(game, players, s, **options))
        action = make_bot(level, meeple.game_info(game), rng.getrandbits(31)).choose(state)
        return action if action in legal else rng.choice(legal)

    return choose, True


def program_policy(command: str) -> Policy:
    """A program speaking JSON lines: a state in, ``{"action": id}`` out."""
    proc = subprocess.Popen(
        shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )

    def choose(msg: dict[str, Any]) -> int:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(msg, separators=(",", ":")) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the program ended (exit code {proc.poll()})")
        answer = json.loads(line)
        action = answer.get("action") if isinstance(answer, dict) else None
        if type(action) is not int:
            raise RuntimeError(
                f'the program answered {line.strip()!r}; expected {{"action": <int>}}'
            )
        return action

    return choose
