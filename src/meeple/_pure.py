"""Pure modules instead of a compiled build that no longer matches them (setup.py).

A compiled build (every install where a C compiler is) leaves ``.so`` files beside the sources, and Python
imports a ``.so`` before the ``.py`` of the same name: an edited rules file would be ignored until
the next build. ``_compiled.json`` holds the hash of each source as it was compiled; when one
differs, or ``MEEPLE_PURE=1`` is set, every compiled module is loaded from its ``.py`` (all of
them: they share one library, and a compiled module calls the others inside it directly).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent  # the folder that holds the meeple package
RECORD = ROOT / "meeple" / "_compiled.json"
NOTE = ROOT / "meeple" / "_build_note.txt"  # setup.py: why the install is pure Python


class PureFinder:
    """Finds the named modules' ``.py`` files, ahead of the compiled ones."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        if name not in self.names:
            return None
        source = ROOT / (name.replace(".", "/") + ".py")
        if not source.exists():  # compiled only (the Cython Twister): pure Python goes without
            raise ModuleNotFoundError(f"{name} runs compiled only", name=name)
        return importlib.util.spec_from_file_location(name, source)


def stale(record: dict[str, str]) -> bool:
    """Whether a compiled source differs from what was compiled (or is gone)."""
    for file, digest in record.items():
        try:
            if hashlib.sha256((ROOT / file).read_bytes()).hexdigest() != digest:
                return True
        except OSError:
            return True
    return False


def use_pure_if_stale() -> bool:
    """Install `PureFinder` for the compiled modules if they are stale or ``MEEPLE_PURE=1``;
    whether it did. Nothing to do (one failed stat) for a pure install."""
    try:
        record = json.loads(RECORD.read_text())
    except (OSError, ValueError):
        return False
    if os.environ.get("MEEPLE_PURE") != "1" and not stale(record):
        return False
    names = {f.rsplit(".", 1)[0].replace("/", ".") for f in record}
    if not any(isinstance(f, PureFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, PureFinder(names))
    return True


def compiled() -> list[str]:
    """The meeple modules running compiled in this process (for reports and tests)."""
    return sorted(name for name, mod in sys.modules.items()
                  if name.startswith("meeple.") and str(getattr(mod, "__file__", "")).endswith((".so", ".pyd")))


def engine() -> str:
    """One line on how the rules run here: compiled, or pure Python and why (`meeple list`)."""
    import meeple.core.game  # noqa: F401  (a compiled build shows once a compiled module loads)

    if "meeple.core.game" in compiled():
        try:
            count = len(json.loads(RECORD.read_text()))
        except (OSError, ValueError):
            count = len(compiled())
        return f"compiled ({count} modules; MEEPLE_PURE=1 runs pure Python)"
    if os.environ.get("MEEPLE_PURE") == "1":
        return "pure Python (MEEPLE_PURE=1)"
    if RECORD.exists():
        return "pure Python (a source changed since the build: reinstall to compile it again)"
    try:
        why = NOTE.read_text().strip()
    except OSError:
        why = "no compiled build in this install"
    return f"pure Python ({why}); 2-6x slower than compiled"
