"""Every face from the install the README names for it, in a fresh clone.

Run by `.ci/run` before the test suite, with the machine's plain ``python3`` (standard library
only). Each face gets its own virtual environment inside one fresh clone of the repository, so
a dependency that only the developers' ``.[dev]`` install brings in fails here:

- run: the README's run command's set-up exactly as written (``.venv``), then ``meeple serve``:
  the lobby page, ``/api/games``, and a table in every game played by bots of every level the
  lobby offers;
- bare: ``pip install -e .``: a random game of every game at every player count through the
  Python API, every bot level choosing a move, ``meeple list`` and a ``meeple play`` watched to
  the end;
- interop: ``.[interop]``: every game through OpenSpiel and PettingZoo;
- arena: ``.[arena]`` and ``.[ray]``: ``meeple arena`` with its table, JSON and plot (``--ray``
  on the second);
- wheel: ``python -m build --wheel`` makes a platform wheel, which a fresh venv on a machine with
  no C compiler (``CC=false``) installs and runs compiled (how a release would ship);
- nocc: ``pip install -e '.[test]'`` with no C compiler: pure Python, said so, engine tests pass.

Every face but nocc must run the compiled engine (the modules setup.py lists), since every
install builds it where a C compiler is. The editable faces (run, bare, interop, arena) share one
clone and install one at a time: the first compiles beside the sources, the others find the
modules matching their sources and reuse them (as a second venv on one clone does); wheel and
nocc have clones of their own. Prints the seconds each install took. Exit status 1 names the
face that failed.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

MOVES = 60  # moves a table with bots must reach (or end) for its levels to count as playing
REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()

BARE_CHECK = r"""
import random, sys
import meeple
from meeple.bots import levels, make_bot
for heavy in ("numpy", "fastapi", "open_spiel", "pyspiel"):
    assert heavy not in sys.modules, f"a bare `import meeple` imported {heavy}"
for g in meeple.games():
    info = meeple.game_info(g["id"])
    for n in g["players"]:
        state = meeple.make(g["id"], players=n, seed=n)
        rng = random.Random(n)
        while not state.is_over():
            state.apply(rng.choice(state.legal_actions()))
        assert meeple.replay(state.record()).ranking() == state.ranking()
    for level in levels(info):
        state = meeple.make(g["id"], players=g["players"][0], seed=1)
        action = make_bot(level, info, seed=1).choose(state)
        assert action in state.legal_actions(), (g["id"], level, action)
    print(f"bare: {g['id']}: random games at {g['players']}, levels {levels(info)} move")
"""

INTEROP_CHECK = r"""
import random
import meeple
import pyspiel
import meeple.interop.openspiel  # registers meeple_<id>
from meeple.interop.pettingzoo import env as aec_env
for g in meeple.games():
    n = g["players"][0]
    game = pyspiel.load_game(f"meeple_{g['id']}", {"players": n})
    state = game.new_initial_state()
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    env = aec_env(g["id"], players=n)
    env.reset(seed=0)
    steps = 0
    for agent in env.agent_iter(max_iter=200):
        obs, reward, term, trunc, info = env.last()
        mask = obs["action_mask"]
        action = None if term or trunc else int(rng.choice(mask.nonzero()[0]))
        env.step(action)
        steps += 1
    print(f"interop: {g['id']} {n}p: OpenSpiel game to the end (returns {state.returns()}), "
          f"PettingZoo {steps} steps")
"""


class Failed(Exception):
    pass


def readme_block(tag: str) -> str:
    block = re.search(rf"<!-- {tag} -->\s*```\s*\n(.*?)\n```", README, re.S)
    if not block:
        raise Failed(f"README has no {tag} block")
    return block.group(1).strip()


def sh(cmd: str | list[str], cwd: Path, timeout: float = 900, **kw) -> str:
    shown = cmd if isinstance(cmd, str) else " ".join(
        "<script>" if "\n" in part else part for part in cmd)
    print(f"+ {shown}", flush=True)
    run = subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), capture_output=True,
                         text=True, timeout=timeout, **kw)
    if run.returncode != 0:
        raise Failed(f"`{shown}` exited {run.returncode}:\n{run.stdout[-3000:]}{run.stderr[-3000:]}")
    return run.stdout


def compiled_modules() -> list[str]:
    """The modules setup.py compiles (its ``COMPILED`` and ``CYTHONIZED`` lists), as names."""
    tree = ast.parse((REPO / "setup.py").read_text())
    files = [f for node in tree.body if isinstance(node, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id in ("COMPILED", "CYTHONIZED")
                     for t in node.targets)
             for f in ast.literal_eval(node.value)]
    return [f.rsplit(".", 1)[0].replace("/", ".") for f in files]


COMPILED_CHECK = """
import importlib, sys, meeple, meeple._pure as pure
expected = sys.argv[1].split(",")
for name in expected:
    importlib.import_module(name)
missing = sorted(set(expected) - set(pure.compiled()))
assert not missing, f"not compiled: {missing} ({pure.engine()})"
print(f"compiled: {len(expected)} modules ({pure.engine()})")
"""


def assert_compiled(bin_: Path, cwd: Path, face: str) -> None:
    out = sh([str(bin_ / "python"), "-c", COMPILED_CHECK, ",".join(compiled_modules())], cwd)
    print(f"{face}: {out.strip()}", flush=True)


EDITABLE = threading.Lock()  # one editable install at a time in the shared clone
EDITABLE_FACES = ("run", "bare", "interop", "arena")


def install(clone: Path, venv: str, extra: str, timings: dict[str, float]) -> Path:
    spec = "." if not extra else f".[{extra}]"
    start = time.monotonic()
    with EDITABLE:
        sh(f"python3 -m venv {venv} && {venv}/bin/pip install -q -e '{spec}'", clone)
    timings[spec] = time.monotonic() - start
    print(f"installed {spec} in {timings[spec]:.0f} s", flush=True)
    assert_compiled(clone / venv / "bin", clone, spec)
    return clone / venv / "bin"


def http(url: str, body: dict | None = None) -> tuple[int, object]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            kind = resp.headers.get("content-type", "")
            return resp.status, json.loads(raw) if "json" in kind else raw.decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")[:500]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_run_face(clone: Path, timings: dict[str, float]) -> None:
    run = readme_block("run-command")
    setup, _, last = run.rpartition("&&")
    if "meeple serve" not in last:
        raise Failed(f"the run command does not end by starting the server: {run}")
    start = time.monotonic()
    with EDITABLE:
        sh(setup.strip(), clone)
    timings["run command set-up"] = time.monotonic() - start
    print(f"run command set-up took {timings['run command set-up']:.0f} s", flush=True)
    assert_compiled(clone / ".venv" / "bin", clone, "run")
    port = free_port()
    db = clone / "smoke.db"
    log = open(clone / "serve.log", "w")  # noqa: SIM115  (kept open for the server's life)
    server = subprocess.Popen(
        [str(clone / ".venv/bin/meeple"), "serve", "--port", str(port), "--bot-delay", "0",
         "--database-url", f"sqlite:///{db}"], cwd=clone, stdout=log, stderr=subprocess.STDOUT,
        # one address opens a table per level of every game: above a visitor's caps (docs/web.md,
        # "Limits"), and nobody watches them
        env={**os.environ, "MEEPLE_MAX_TABLES_PER_VISITOR": "1000",
             "MEEPLE_MAX_BOT_SEATS_PER_VISITOR": "10000",
             "MEEPLE_UNWATCHED_BOT_TABLE_SECONDS": "3600"},
        start_new_session=True)  # its own process group: its bot workers end with it
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                status, games = http(f"{base}/api/games")
                break
            except OSError:
                time.sleep(0.25)
        else:
            raise Failed("the server did not answer within 30 s")
        if status != 200 or not isinstance(games, list) or len(games) < 5:
            raise Failed(f"GET /api/games answered {status}: {str(games)[:300]}")
        status, page = http(f"{base}/")
        if status != 200 or "<html" not in str(page).lower():
            raise Failed(f"GET / answered {status}")
        tables: list[tuple[str, str, str]] = []
        for g in games:
            n = g["players"][0]
            if g.get("renderer"):
                status, _ = http(base + g["renderer"])
                if status != 200:
                    raise Failed(f"{g['id']}: renderer {g['renderer']} answered {status}")
            # Every level the lobby offers sits at one table; all-random tables fill the rest.
            lineups = [g["bots"][i:i + n] for i in range(0, len(g["bots"]), n)]
            for lineup in lineups:
                seats = [{"kind": "bot", "level": lv} for lv in lineup]
                seats += [{"kind": "bot", "level": "random"}] * (n - len(seats))
                status, made = http(f"{base}/api/tables",
                                    {"game": g["id"], "players": n, "seats": seats})
                if status != 200:
                    raise Failed(f"{g['id']}: creating a table of {lineup} answered {status}: {made}")
                tables.append((g["id"], "/".join(lineup), made["id"]))
        deadline = time.monotonic() + 600
        pending = list(tables)
        while pending and time.monotonic() < deadline:
            time.sleep(1)
            for entry in list(pending):
                status, summary = http(f"{base}/api/tables/{entry[2]}")
                if status != 200:
                    raise Failed(f"{entry[0]}: GET table answered {status}: {summary}")
                # Search levels at a table for a few rounds; a bot that fails stalls its table.
                if summary["status"] == "over" or summary["move"] >= MOVES:
                    done = "to the end" if summary["status"] == "over" else "on"
                    print(f"run: {entry[0]}: bots {entry[1]} played {done} "
                          f"({summary['move']} moves)", flush=True)
                    pending.remove(entry)
        if pending:
            raise Failed(f"tables that stalled (under {MOVES} moves in 10 minutes): {pending}")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            log.close()
    errors = [ln for ln in (clone / "serve.log").read_text().splitlines()
              if re.match(r"^\w*(Error|Exception)\b", ln) or "Traceback" in ln]
    if errors:
        raise Failed("the server logged errors:\n" + "\n".join(errors[:20]))


def check_bare_face(clone: Path, timings: dict[str, float]) -> None:
    bin_ = install(clone, ".venv-bare", "", timings)
    print(sh([str(bin_ / "python"), "-c", BARE_CHECK], clone), end="")
    listing = sh([str(bin_ / "meeple"), "list"], clone)
    for name in ("trickarus", "savage_bowl", "scarvus", "zarcana", "karvi"):
        if name not in listing:
            raise Failed(f"`meeple list` does not list {name}")
    for game, n in (("trickarus", 3), ("karvi", 2)):
        out = sh([str(bin_ / "meeple"), "play", game, "--players", str(n), "--seat", "-1",
                  "--bots", ",".join(["random"] * n), "--seed", "3",
                  "--save", str(clone / f"{game}.json")], clone, timeout=300,
                 stdin=subprocess.DEVNULL)
        record = json.loads((clone / f"{game}.json").read_text())
        print(f"bare: meeple play {game} watched to the end: {len(record['actions'])} actions, "
              f"{len(out.splitlines())} lines shown")


def check_interop_face(clone: Path, timings: dict[str, float]) -> None:
    bin_ = install(clone, ".venv-interop", "interop", timings)
    print(sh([str(bin_ / "python"), "-c", INTEROP_CHECK], clone), end="")


def check_arena_face(clone: Path, timings: dict[str, float]) -> None:
    for extra, more in (("arena", []), ("ray", ["--ray", "--workers", "2"])):
        bin_ = install(clone, f".venv-{extra}", extra, timings)
        out_dir = clone / f"arena-{extra}"
        out_dir.mkdir()
        sh([str(bin_ / "meeple"), "arena", "trickarus", "--bots", "heuristic,random",
            "--games", "4", "--players", "3", "--out", str(out_dir / "result.json"), *more],
           clone, timeout=600)
        made = sorted(p.name for p in out_dir.iterdir())
        if not any(p.endswith(".json") for p in made) or not any(p.endswith(".png") for p in made):
            raise Failed(f"meeple arena ({extra}) wrote {made}, not its JSON and plot")
        print(f"arena ({extra}): meeple arena wrote {made}")


def check_wheel_face(clone: Path, timings: dict[str, float]) -> None:
    start = time.monotonic()
    sh("python3 -m venv .venv-build && .venv-build/bin/pip install -q build "
       "&& .venv-build/bin/python -m build -q --wheel --outdir dist .", clone)
    wheels = sorted((clone / "dist").glob("meeple-*.whl"))
    if len(wheels) != 1 or wheels[0].name.endswith("-none-any.whl"):
        raise Failed(f"python -m build --wheel made {[w.name for w in wheels]}, not one platform wheel")
    timings["wheel build"] = time.monotonic() - start
    away = clone.parent / "wheel-user"  # not the clone: the sources must not be importable
    away.mkdir()
    sh(f"python3 -m venv venv && CC=false venv/bin/pip install -q {wheels[0]}", away)
    assert_compiled(away / "venv" / "bin", away, f"wheel {wheels[0].name} (installed with CC=false)")
    print(sh([str(away / "venv/bin/meeple"), "--version"], away).strip(), flush=True)


def check_nocc_face(clone: Path, timings: dict[str, float]) -> None:
    start = time.monotonic()
    sh("python3 -m venv .venv-nocc && CC=false .venv-nocc/bin/pip install -q -e '.[test]'", clone)
    timings["no compiler"] = time.monotonic() - start
    version = sh([str(clone / ".venv-nocc/bin/meeple"), "--version"], clone).strip()
    if "pure Python" not in version or "no C compiler" not in version:
        raise Failed(f"an install with CC=false says {version!r}, not pure Python and why")
    print(f"nocc: {version}", flush=True)
    out = sh([str(clone / ".venv-nocc/bin/python"), "-m", "pytest", "-p", "no:cacheprovider",
              "tests/test_core.py", "tests/test_contract.py", "tests/test_corpus.py"], clone,
             timeout=1200)
    print(f"nocc: engine tests, pure Python: {out.strip().splitlines()[-1]}", flush=True)


def main() -> int:
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="meeple-smoke-") as tmp:
        faces = {"run": check_run_face, "bare": check_bare_face,
                 "interop": check_interop_face, "arena": check_arena_face,
                 "wheel": check_wheel_face, "nocc": check_nocc_face}
        chosen = sys.argv[1:] or list(faces)
        clones = {}
        for name in chosen:  # builds write beside the sources: editable faces share one clone
            where = "editable" if name in EDITABLE_FACES else name
            clones[name] = Path(tmp) / where / "meeple"
            if not clones[name].exists():
                clones[name].parent.mkdir()
                sh(["git", "clone", "-q", str(REPO), str(clones[name])], Path(tmp))
        # Two faces at a time (each in its own venv): installs wait on the network and the disk
        # as much as on a core, and CI has a time budget. Run and wheel first: they compile.
        chosen.sort(key=lambda name: ["run", "wheel", "nocc", "bare", "interop",
                                      "arena"].index(name))
        with ThreadPoolExecutor(max_workers=2) as pool:
            running = {name: pool.submit(faces[name], clones[name], timings) for name in chosen}
            for name, future in running.items():
                try:
                    future.result()
                except (Failed, subprocess.TimeoutExpired) as exc:
                    print(f"\nSMOKE FAILED, face '{name}': {exc}", file=sys.stderr)
                    return 1
    print("install seconds: " + ", ".join(f"{k} {v:.0f} s" for k, v in timings.items()))
    print(f"smoke: every face works from its own install ({', '.join(chosen)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
