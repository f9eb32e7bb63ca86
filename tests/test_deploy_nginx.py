"""The shipped deploy/nginx.conf in front of two meeple servers, over HTTPS and WSS.

Off by default: needs Debian's nginx, openssl and Redis (the two servers
tell each other about moves through it). Turn on with ``MEEPLE_TEST_NGINX=1`` and
``MEEPLE_TEST_REDIS_URL``. The servers share one SQLite file (WAL), so no shared PostgreSQL
database is migrated by this test.

nginx is started from a copy of deploy/nginx.conf with only what a host would change: the name
(localhost), the certificate (self-signed, made here with openssl), the ports, and the two
upstream servers. ``ip_hash`` is dropped so that requests from this one test address alternate
between the two servers, and a game is played across both; the table's sockets all reach one
server, as the shipped ``hash $uri`` sends them.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.nginx, pytest.mark.redis]

REDIS = os.environ.get("MEEPLE_TEST_REDIS_URL")
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
ROOT = Path(__file__).resolve().parents[1]

if os.environ.get("MEEPLE_TEST_NGINX") != "1":
    pytest.skip("set MEEPLE_TEST_NGINX=1 (and MEEPLE_TEST_REDIS_URL) to test nginx",
                allow_module_level=True)
if not (NGINX and shutil.which("openssl") and REDIS):
    pytest.skip("needs nginx, openssl and MEEPLE_TEST_REDIS_URL", allow_module_level=True)

httpx = pytest.importorskip("httpx")
ws_client = pytest.importorskip("websockets.sync.client")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def site_config(https: int, http: int, upstreams: list[int], cert: Path, key: Path) -> str:
    """deploy/nginx.conf with a host's edits (name, certificate, ports, servers)."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    conf = conf.replace("games.example.org", "localhost")
    conf = re.sub(r"ssl_certificate\s+\S+;", f"ssl_certificate {cert};", conf)
    conf = re.sub(r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {key};", conf)
    conf = re.sub(r"listen \[::\]:\d+[^;]*;", "", conf)
    conf = re.sub(r"listen 443 ([^;]*);", rf"listen 127.0.0.1:{https} \1;", conf)
    conf = re.sub(r"listen 80;", f"listen 127.0.0.1:{http};", conf)
    conf = conf.replace("return 301 https://$host$request_uri;",
                        f"return 301 https://$host:{https}$request_uri;")
    conf = re.sub(r"\s*#?\s*server 127\.0\.0\.1:\d+;", "", conf)
    servers = "\n".join(f"server 127.0.0.1:{p};" for p in upstreams)
    conf = conf.replace("ip_hash;", servers)
    conf = conf.replace("hash $uri consistent;", f"hash $uri consistent;\n{servers}")
    # behind the test's own port, $host lacks it: pass the port on to meeple as browsers do
    conf = conf.replace("proxy_set_header Host $host;", "proxy_set_header Host $http_host;")
    return conf


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("nginx")
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key),
         "-out", str(cert)], check=True, capture_output=True)
    https, http = free_port(), free_port()
    public = f"https://localhost:{https}"
    ports = [free_port(), free_port()]
    db = f"sqlite:///{tmp / 'meeple.db'}"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    servers = []
    for port in ports:
        servers.append(subprocess.Popen(
            [sys.executable, "-m", "meeple.server", "--port", str(port), "--database-url", db,
             "--redis-url", REDIS, "--bot-delay", "0", "--no-bot-processes",
             "--public-url", public],
            env=env, stdout=subprocess.DEVNULL, stderr=open(tmp / f"meeple-{port}.log", "wb")))
        wait_port(port)  # one at a time: the first one migrates the database
    for d in ("logs", "tmp"):
        (tmp / d).mkdir()
    (tmp / "nginx.conf").write_text(f"""
pid {tmp}/nginx.pid;
error_log {tmp}/logs/error.log warn;
worker_processes 1;
events {{ worker_connections 256; }}
http {{
    log_format upstream '$upstream_addr $request';
    access_log {tmp}/logs/access.log upstream;
    client_body_temp_path {tmp}/tmp/body;
    proxy_temp_path {tmp}/tmp/proxy;
    fastcgi_temp_path {tmp}/tmp/fastcgi;
    uwsgi_temp_path {tmp}/tmp/uwsgi;
    scgi_temp_path {tmp}/tmp/scgi;
    {site_config(https, http, ports, cert, key)}
}}
""")
    check = subprocess.run([NGINX, "-t", "-p", str(tmp), "-c", str(tmp / "nginx.conf")],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    proxy = subprocess.Popen([NGINX, "-p", str(tmp), "-c", str(tmp / "nginx.conf"), "-g",
                              "daemon off;"], stderr=open(tmp / "nginx.stderr", "wb"))
    try:
        wait_port(https)
        yield {"public": public, "http": http, "cert": cert, "tmp": tmp, "ports": ports}
    finally:
        proxy.terminate()
        proxy.wait(10)
        for s in servers:
            s.terminate()
            s.wait(10)


def test_links_redirects_and_cookies_point_at_the_public_https_address(site):
    public = site["public"]
    with httpx.Client(verify=str(site["cert"]), base_url=public) as c:
        page = c.get("/")
        assert page.status_code == 200
        cookie = page.headers["set-cookie"]
        assert "meeple_client=" in cookie and "Secure" in cookie and "HttpOnly" in cookie
        moved = c.get("/api/games/", follow_redirects=False)
        assert moved.status_code in (307, 308)
        assert moved.headers["location"].startswith(f"{public}/api/games")
        t = c.post("/api/tables", json={"game": "trickarus", "players": 3, "name": "Ann",
                                        "seats": [{"kind": "me"}, {"kind": "open"},
                                                  {"kind": "bot"}]}).json()
        inv = c.post(f"/api/tables/{t['id']}/invite", json={"host": t["host"], "seat": 1}).json()
        assert inv["link"].startswith(f"{public}/table/{t['id']}#seat=1&invite=")
    plain = httpx.get(f"http://127.0.0.1:{site['http']}/", headers={"host": "localhost"},
                      follow_redirects=False)
    assert plain.status_code == 301 and plain.headers["location"].startswith(public)


def test_two_friends_play_to_the_end_over_https_and_wss_across_two_servers(site):
    public = site["public"]
    tls = ssl.create_default_context(cafile=str(site["cert"]))
    ann = httpx.Client(verify=str(site["cert"]), base_url=public)
    bo = httpx.Client(verify=str(site["cert"]), base_url=public)
    try:
        ann.get("/")
        t = ann.post("/api/tables", json={"game": "trickarus", "players": 3, "name": "Ann",
                                          "seats": [{"kind": "me"}, {"kind": "open"},
                                                    {"kind": "bot", "level": "random"}]}).json()
        inv = ann.post(f"/api/tables/{t['id']}/invite", json={"host": t["host"], "seat": 1}).json()
        bo.get(inv["link"].split("#")[0])  # the page: Bo's browser gets its client cookie
        joined = bo.post(f"/api/tables/{t['id']}/join",
                         json={"seat": 1, "name": "Bo", "secret": inv["secret"]}).json()
        seats = {0: t["secret"], 1: joined["secret"]}
        wss = public.replace("https://", "wss://") + f"/ws/tables/{t['id']}"
        socks = {p: ws_client.connect(wss, ssl=tls, open_timeout=10) for p in seats}
        spy = ws_client.connect(wss, ssl=tls, open_timeout=10)
        try:
            for p, sock in socks.items():
                sock.send(json.dumps({"type": "hello", "seat": p, "secret": seats[p]}))
            spy.send(json.dumps({"type": "hello"}))
            rng = random.Random(5)
            last = {p: {} for p in seats}
            end = time.monotonic() + 120
            while time.monotonic() < end and not all(m.get("status") == "over" for m in last.values()):
                for p, sock in socks.items():
                    try:
                        m = json.loads(sock.recv(timeout=0.05))
                    except TimeoutError:
                        continue
                    assert m["type"] != "error", m
                    if m["type"] != "state":
                        continue
                    last[p] = m
                    if m["legal"]:
                        choice = rng.choice(m["legal"])
                        sock.send(json.dumps({"type": "move", "action": choice["id"],
                                              "move": m["move"]}))
            assert all(m.get("status") == "over" for m in last.values()), "game did not end"
            seen = []
            while True:  # the spectator, through the proxy too, never got a hand
                try:
                    m = json.loads(spy.recv(timeout=1))
                except TimeoutError:
                    break
                seen.append(m)
                if m.get("type") == "state" and m["status"] == "over":
                    break
            states = [m for m in seen if m.get("type") == "state"]
            assert states and all("hand" not in m["view"] and m["legal"] == [] for m in states)
        finally:
            for sock in [*socks.values(), spy]:
                sock.close()
        record = ann.get(f"/api/tables/{t['id']}/record").json()
        assert record["result"]["ranking"] == last[0]["ranking"]
    finally:
        ann.close()
        bo.close()
    # both servers served this game (requests and sockets): it really crossed between them
    log = (site["tmp"] / "logs" / "access.log").read_text()
    for port in site["ports"]:
        assert f"127.0.0.1:{port} " in log
    # ... but every socket of the table (both players and the spectator) reached one server
    # (nginx logs a socket when it closes, so give it a moment)
    end = time.monotonic() + 10
    while True:
        log = (site["tmp"] / "logs" / "access.log").read_text()
        sockets = [line.split()[0] for line in log.splitlines() if f"/ws/tables/{t['id']}" in line]
        if len(sockets) >= 3 or time.monotonic() > end:
            break
        time.sleep(0.2)
    assert len(sockets) == 3 and len(set(sockets)) == 1, sockets
