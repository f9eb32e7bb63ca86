"""The docs stay true to the code: generated tables match the games, option tables list every
option, and nothing in them is a machine path or a work-log reference."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import meeple

ROOT = Path(__file__).resolve().parent.parent

# What a user doc, a code comment or a string must not carry: a path of one machine, a
# reference to a work session or an issue number (history goes to CHANGELOG.md and
# benchmarks/results/, why the code is as it is goes in the comment itself).
FORBIDDEN = {
    "machine path": re.compile(r"(?<![\w.])/(?:work|root|home/\w+|Users/\w+)/"),
    "work-log reference": re.compile(r"\b[Ss]ession \d+\b|\b[Ss]essions \d+[-–]\d+\b"),
    "issue number": re.compile(r"\b[Ii]ssues? #?\d+\b|(?<![\w&/#])#\d{1,3}\b(?![\w-])"),
}
SCANNED = ["README.md", "CONTRIBUTING.md", "docs", "src", "tests", "benchmarks", "tools",
           "examples", ".ci"]
# a bare "#12" is checked in prose and the package only: tests and tools print numbered items
BARE_NUMBER_IN = ("README.md", "CONTRIBUTING.md", "docs", "src")
SUFFIXES = {".md", ".py", ".pyx", ".pyi", ".js", ".html", ".css", ".ini", ".toml", ".txt"}


def scanned_files() -> list[Path]:
    files = []
    for entry in SCANNED:
        path = ROOT / entry
        files += [path] if path.is_file() else sorted(
            p for p in path.rglob("*") if p.suffix in SUFFIXES and "__pycache__" not in p.parts)
    return [f for f in files if f != Path(__file__).resolve()]  # its examples are on purpose


def test_no_machine_paths_work_log_references_or_issue_numbers():
    found = []
    for path in scanned_files():
        # saved arena output is data ("#12" numbers a sampled world there) and dated runs are
        # history, by session: machine paths only
        raw = (ROOT / "docs" / "arena") in path.parents or (
            ROOT / "benchmarks" / "results") in path.parents
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for what, pattern in FORBIDDEN.items():
                if raw and what != "machine path":
                    continue
                bare = path.suffix not in (".css", ".js", ".html") and any(
                    (ROOT / top) == path or (ROOT / top) in path.parents for top in BARE_NUMBER_IN)
                if what == "issue number" and not bare:
                    match = re.search(r"\b[Ii]ssues? #?\d+\b", line)  # #123 is a colour there
                else:
                    match = pattern.search(line)
                if match:
                    found.append(f"{path.relative_to(ROOT)}:{number}: {what}: {match.group(0)!r}")
    assert not found, "\n".join(found[:60]) + (f"\n... {len(found)} in all" if len(found) > 60 else "")


def test_the_check_finds_what_it_forbids():
    for text in ("see /work/main/x", "(session 17)", "issue #15", "issue 16", "as in #23,"):
        assert any(p.search(text) for p in FORBIDDEN.values()), text
    for text in ("a session seed 42", "colour #fff", "sessions rotate", "item #a", "C#"):
        assert not any(p.search(text) for p in FORBIDDEN.values()), text


def option_table(page: str) -> list[dict[str, str]]:
    """The rows of the first table whose first column is headed `option`, as dicts."""
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\|\s*option\s*\|", line))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=False)))
    return rows


@pytest.mark.parametrize("game", sorted(g["id"] for g in meeple.games()))
def test_rulings_page_lists_every_option_with_its_default(game):
    info = meeple.game_info(game)
    rows = option_table((ROOT / "docs" / "games" / f"{game}.md").read_text())
    listed = {row["option"].strip("`"): row for row in rows}
    assert set(listed) == {o.name for o in info.options}
    for option in info.options:
        shown = listed[option.name].get("default")
        if shown is not None:
            assert shown.strip("`") == json.dumps(option.default).strip('"'), option.name


@pytest.mark.interop
def test_openspiel_parameter_table_is_generated_from_the_games():
    pytest.importorskip("pyspiel")
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "docs_tables.py"), "--check"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
