"""A compiled build never shadows an edited source (setup.py, `meeple._pure`)."""

from __future__ import annotations

import hashlib
import json
import sys

import meeple._pure as pure


def test_a_changed_or_missing_source_is_stale(tmp_path, monkeypatch):
    src = tmp_path / "meeple" / "games" / "x"
    src.mkdir(parents=True)
    rules = src / "rules.py"
    rules.write_text("A = 1\n")
    monkeypatch.setattr(pure, "ROOT", tmp_path)
    record = {"meeple/games/x/rules.py": hashlib.sha256(rules.read_bytes()).hexdigest()}
    assert not pure.stale(record)
    rules.write_text("A = 2\n")
    assert pure.stale(record)
    rules.unlink()
    assert pure.stale(record)


def test_stale_or_meeple_pure_loads_the_py(tmp_path, monkeypatch):
    """With a record that no longer matches (or MEEPLE_PURE=1) the finder serves the .py."""
    pkg = tmp_path / "meeple"
    (pkg / "games" / "x").mkdir(parents=True)
    (pkg / "games" / "x" / "rules.py").write_text("WHERE = 'source'\n")
    record = pkg / "_compiled.json"
    monkeypatch.setattr(pure, "ROOT", tmp_path)
    monkeypatch.setattr(pure, "RECORD", record)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    assert not pure.use_pure_if_stale()  # no record: a pure install, nothing to do
    digest = hashlib.sha256(b"WHERE = 'source'\n").hexdigest()
    record.write_text(json.dumps({"meeple/games/x/rules.py": digest}))
    monkeypatch.delenv("MEEPLE_PURE", raising=False)
    assert not pure.use_pure_if_stale()  # up to date: the build is used
    monkeypatch.setenv("MEEPLE_PURE", "1")
    assert pure.use_pure_if_stale()
    finder = next(f for f in sys.meta_path if isinstance(f, pure.PureFinder))
    spec = finder.find_spec("meeple.games.x.rules")
    assert spec is not None and spec.origin == str(pkg / "games" / "x" / "rules.py")
    assert finder.find_spec("meeple.games.x.bot") is None  # only the compiled modules
    monkeypatch.delenv("MEEPLE_PURE")
    monkeypatch.setattr(sys, "meta_path", [f for f in sys.meta_path if not isinstance(f, pure.PureFinder)])
    (pkg / "games" / "x" / "rules.py").write_text("WHERE = 'edited'\n")
    assert pure.use_pure_if_stale()  # edited since the build
