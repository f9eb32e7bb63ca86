"""The mutation scores page, written from tools/mutate.py's JSON results (never by hand).

A sample is run once with ``tools/mutate.py --json``; its survivors are either killed by new
tests (re-run with ``--only ID`` into a second JSON, then merged here, the first outcome kept) or
judged equivalent in ``tools/equivalent/<game>.txt`` with a one-line reason. The results live in
``docs/mutation/`` and this script turns them into ``docs/mutation.md``.

    python tools/mutation_report.py add GAME RESULT.json     # -> docs/mutation/<game>-<stem>.json
    python tools/mutation_report.py merge RESULT.json RERUN.json [RERUN.json ...]  # in place
    python tools/mutation_report.py write      # docs/mutation/*.json -> docs/mutation.md

A result file's name is ``<game>-<module stem>.json`` (e.g. ``karvi-rules.json``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "mutation"
PAGE = ROOT / "docs" / "mutation.md"
EQUIVALENT = ROOT / "tools" / "equivalent"
GOAL = 95.0  # percent killed of the mutants not shown equivalent


def equivalents(game: str) -> dict[str, str]:
    """Mutant id -> the one-line reason, from ``tools/equivalent/<game>.txt``.

    The file's lines are ids; a comment block (lines starting with ``#``) just above a group of
    ids gives their reason, and ``  # reason`` after an id gives that id's own. A blank line sets
    a header comment apart."""
    path = EQUIVALENT / f"{game}.txt"
    out: dict[str, str] = {}
    if not path.exists():
        return out
    reason: list[str] = []
    last_was_id = False
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line:  # a blank line ends a group (and sets a header apart)
            reason, last_was_id = [], False
        elif line.startswith("#"):
            if last_was_id:
                reason = []
            reason.append(line.lstrip("# ").strip())
            last_was_id = False
        else:
            mid, _, own = line.partition("  #")
            out[mid.strip()] = own.strip() or " ".join(reason)
            last_was_id = True
    return out


def _sha(module: str) -> str:
    path = ROOT / module
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12] if path.exists() else "missing"


def add(game: str, result: Path) -> Path:
    """Copy a fresh result into docs/mutation/, noting the sampled module's sha256 (the ids hold
    line numbers, so they name mutants of that version only)."""
    data = json.loads(result.read_text())
    data["module_sha256"] = _sha(data["module"])
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"{game}-{Path(data['module']).stem}.json"
    out.write_text(json.dumps(data, indent=1) + "\n")
    return out


def merge(result: Path, reruns: list[Path]) -> None:
    """Take the outcomes of re-run mutants into ``result``, keeping each first outcome."""
    data = json.loads(result.read_text())
    by_id = {m["id"]: m for m in data["mutants"]}
    for path in reruns:
        for m in json.loads(path.read_text())["mutants"]:
            if m["id"] not in by_id:  # `--only` takes id prefixes, so a re-run may hold more
                print(f"{path}: {m['id']} is not in the sample; left out")
                continue
            old = by_id[m["id"]]
            old.setdefault("first_outcome", old["outcome"])
            old["outcome"], old["seconds"] = m["outcome"], m["seconds"]
            data.setdefault("rerun_tests", m.get("tests") or json.loads(path.read_text())["tests"])
    result.write_text(json.dumps(data, indent=1) + "\n")


def _score(ms: list[dict[str, Any]]) -> tuple[int, int]:
    ms = [m for m in ms if m["outcome"] != "error"]
    return sum(m["outcome"] in ("killed", "timeout") for m in ms), len(ms)


def _pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:.1f}%" if n else "n/a"


def section(path: Path) -> tuple[list[str], bool]:
    """The page's lines for one result file, and whether it meets the goal."""
    data = json.loads(path.read_text())
    game = path.stem.split("-")[0]
    module = data["module"]
    eq = equivalents(game)
    ms = data["mutants"]
    for m in ms:
        m["equivalent"] = m["id"] in eq
        if Path(module).stem == "words":  # a game's words module is sentence code throughout
            m["rule"] = False
    sentence = [m for m in ms if not m["rule"]]
    rule = [m for m in ms if m["rule"]]
    beh = [m for m in ms if not m["equivalent"]]
    k_all, n_all = _score(ms)
    k_beh, n_beh = _score(beh)
    first = sum(m.get("first_outcome", m["outcome"]) in ("killed", "timeout") for m in ms)
    later = sum(m.get("first_outcome") == "survived" and m["outcome"] in ("killed", "timeout") for m in ms)
    survivors = [m for m in ms if m["outcome"] == "survived"]
    ok = n_beh > 0 and 100.0 * k_beh / n_beh >= GOAL
    sampled, now = data.get("module_sha256", "?"), _sha(module)
    version = f"`{sampled}`" + ("" if sampled == now else f" (the module has changed since: now `{now}`)")
    lines = [
        f"### {game}: `{module}`",
        "",
        f"- Sample: {len(ms)} of {data['total_mutants']} mutants, seed {data['seed']} (drawn at random);"
        f" {len(rule)} in rule code, {len(sentence)} in sentence, view and other non-rule code.",
        f"- Tests: `{data['tests']}`" + (f"; survivors re-run with `{data['rerun_tests']}`"
                                         if data.get("rerun_tests") else "") + ".",
        f"- First pass: {first} killed ({_pct(first, len(ms))}); killed by tests written after it: {later}.",
        f"- Now: {k_all} of {n_all} killed ({_pct(k_all, n_all)}); rule code {_pct(*_score(rule))},"
        f" sentence and other code {_pct(*_score(sentence))}.",
        f"- Equivalent (shown harmless): {sum(m['equivalent'] for m in ms)}. **Behaviour-changing: "
        f"{k_beh} of {n_beh} killed ({_pct(k_beh, n_beh)})** — goal {GOAL:.0f}%: {'met' if ok else 'NOT met'}.",
        f"- Timeouts (counted killed): {sum(m['outcome'] == 'timeout' for m in ms)}; errors (not counted):"
        f" {sum(m['outcome'] == 'error' for m in ms)}. Module sampled at sha256 {version}.",
    ]
    if survivors:
        lines += ["", "| survivor | code | equivalent because |", "| --- | --- | --- |"]
        for m in survivors:
            why = eq.get(m["id"], "**neither killed nor shown equivalent**")
            # (a `|` in an id, "& -> |", or in a reason would end the table's cell)
            cell, why = m["id"].replace("|", "\\|"), why.replace("|", "\\|")
            lines.append(f"| `{cell}` | {'rule' if m['rule'] else 'sentence/other'} | {why} |")
    return lines + [""], ok


def write() -> None:
    paths = sorted(RESULTS.glob("*.json"))
    games = sorted({p.stem.split("-")[0] for p in paths})
    body: list[str] = []
    met = []
    for path in paths:
        lines, ok = section(path)
        body += lines
        met.append((path.stem, ok))
    page = [
        "# Mutation scores",
        "",
        "Written by `python tools/mutation_report.py write` from the results in `docs/mutation/`;",
        "do not edit by hand. How a sample is made: `tools/mutate.py` (CONTRIBUTING.md, \"Mutation",
        "testing\") breaks one thing at a time in a module and runs the game's tests on each mutant;",
        "a mutant the tests pass on *survived*. Every survivor is either killed by a test written",
        "for it (the sample's survivors are then re-run) or listed in `tools/equivalent/<game>.txt`",
        "with its reason. Samples cover the whole module: rule code and the sentence code (log",
        "lines and labels; views, JSON forms and determinize count as non-rule code too).",
        "",
        f"Sampled: {', '.join(games) if games else 'none'}. "
        f"Goal: at least {GOAL:.0f}% of the behaviour-changing mutants killed; "
        + ", ".join(f"{stem} {'met' if ok else 'not met'}" for stem, ok in met) + ".",
        "Games without a result file here have not been sampled this way.",
        "",
        "A module changed since its sample (its sha256 below no longer matches) shifts mutant ids;",
        "re-sample it rather than reuse the ids.",
        "",
        *body,
    ]
    PAGE.write_text("\n".join(page).rstrip() + "\n")
    print(f"wrote {PAGE.relative_to(ROOT)} from {len(paths)} result files")


def main(argv: list[str]) -> int:
    if argv[:1] == ["write"]:
        write()
    elif argv[:1] == ["add"] and len(argv) == 3:
        print(add(argv[1], Path(argv[2])).relative_to(ROOT))
    elif argv[:1] == ["merge"] and len(argv) >= 3:
        merge(Path(argv[1]), [Path(a) for a in argv[2:]])
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
