"""The server's modules talk through public names: no module reads or writes another module's
private (``_underscored``) attributes, so each seam (tables, presence and leases, bot seats,
routes) can change inside without breaking the others.

The web platform, "Many servers" (the parts of one server).
"""

from __future__ import annotations

import ast
from pathlib import Path

import meeple.server

SERVER = Path(meeple.server.__file__).parent

# what stays, and why: the standard library's own hooks
ALLOWED = {
    ("workers.py", "_adjust_process_count"),
    ("workers.py", "_exit"),
}


def own_names(tree: ast.AST) -> set[str]:
    """Private names the module itself defines: functions, classes, attributes set on self or
    declared in a class body."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_no_server_module_reaches_into_another_modules_private_names():
    reaches = []
    for path in sorted(SERVER.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        mine = own_names(tree)
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if node.attr in mine or (path.name, node.attr) in ALLOWED:
                continue
            reaches.append(f"{path.relative_to(SERVER)}:{node.lineno} .{node.attr}")
    assert reaches == []
