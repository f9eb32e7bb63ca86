"""examples/bot_random.py against a stand-in server that refuses with 429 first: the example
waits out a token's rate limit on its streams as on its moves (docs/bots-api.md, Limits)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class StandIn(BaseHTTPRequestHandler):
    refused: set[str] = set()  # paths already refused once
    moves: list[dict] = []

    def log_message(self, *args) -> None:  # quiet
        pass

    def _lines(self, objs: list[dict], pause: float = 0.0) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        try:
            for obj in objs:
                self.wfile.write((json.dumps(obj) + "\n").encode())
                self.wfile.flush()
                time.sleep(pause)
        except (BrokenPipeError, ConnectionResetError):  # the bot left, its games done
            pass

    def do_GET(self) -> None:
        if self.path not in self.refused:  # every stream is refused once
            self.refused.add(self.path)
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/api/bot/stream/events":
            self._lines([{"type": "gameStart", "table": "t1"}] + [{"type": "ping"}] * 20, 0.2)
        elif self.path == "/api/bot/table/t1/stream":
            self._lines([
                {"type": "state", "legal": [{"id": 7}], "move": 0},
                {"type": "gameEnd", "scores": [1.0, 0.0]},
            ])

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        StandIn.moves.append(json.loads(self.rfile.read(size) or b"null"))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")


def test_the_example_bot_waits_out_a_429_on_its_streams():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        out = subprocess.run(
            [sys.executable, str(ROOT / "examples" / "bot_random.py"),
             f"http://127.0.0.1:{httpd.server_port}", "mpl_test", "1"],
            capture_output=True, text=True, timeout=60,
        )
    finally:
        httpd.shutdown()
    assert out.returncode == 0, out.stderr
    assert "t1 over: [1.0, 0.0]" in out.stdout
    assert StandIn.moves == [{"action": 7, "move": 0}]
    assert StandIn.refused == {"/api/bot/stream/events", "/api/bot/table/t1/stream"}
