#!/usr/bin/env python3
"""Mutation testing for one module, with nothing but the standard library.

Why: a test suite that passes says nothing about whether it would notice a wrong rule. This
tool breaks the rules one small change at a time (a *mutant*) and runs the game's tests against
each mutant: a mutant the tests fail on is *killed*; one they pass on *survived*, which means
either the change is harmless (an equivalent mutant) or a rule has no test.

Mutations (one per mutant, found by walking the module's AST):
  - arithmetic / bitwise operator: ``+``<->``-``, ``*``->``//``, ``//``->``*``, ``%``->``//``,
    ``&``<->``|``, ``^``->``|``, ``<<``<->``>>`` (also in ``+=`` etc.)
  - comparison: ``<``<->``<=``, ``>``<->``>=``, ``==``<->``!=``, ``in``<->``not in``,
    ``is``<->``is not``
  - boolean: ``and``<->``or``, ``not x``->``x``, ``True``<->``False``
  - integer constant: ``n``->``n+1`` and ``n``->``0``
  - ``if``/``while``/conditional expression: condition negated
  - statement: replaced by ``pass``; ``break``<->``continue``
Docstrings, strings and type annotations are left alone.

Each mutant is written over the module in a private COPY of the worktree (one per job, made
under a temp dir; the working tree is never touched, so other processes may keep importing it),
then ``pytest -x -q -p no:cacheprovider <tests>`` runs with ``PYTHONPATH=<copy>/src``. A non-zero
exit or a timeout counts as killed. The unmutated module (round-tripped through ``ast.unparse``,
as every mutant is) must pass first, which also sets the default per-mutant timeout.

Rule code: mutants in functions matching ``--exclude`` (default: views, logs, labels,
descriptions, text, rendering, determinize, JSON forms) are *non-rule*; the summary prints the
killed percentage overall and in rule code only. ``--rule-only`` skips non-rule mutants.
``--equivalent FILE`` names mutants already judged harmless (one id a line; lines starting with
``#`` and anything after two spaces and ``#`` are comments), so
the summary also prints the score over behaviour-changing mutants.

Usage (from the worktree root):
  python tools/mutate.py --module src/meeple/games/trickarus/rules.py \\
      --tests "tests/test_trickarus.py tests/test_trickarus_bot.py" \\
      --sample 300 --seed 1 --jobs 2 --json /tmp/trickarus.json
  python tools/mutate.py --module ... --tests "tests/test_trickarus.py -k follow" --list
  python tools/mutate.py --module ... --tests ... --only 'legal_actions:120:'   # id prefix

A mutant id is ``<function>:<line>:<description>`` (stable while the source is unchanged).
Run it with ``nice -n 10``: it is CPU-heavy.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from queue import Queue

DEFAULT_EXCLUDE = (
    r"(^|\.)(view|_?views?_\w*|\w*_view|log|_log\w*|\w*_log|describe\w*|\w*label\w*|\w*text\w*|"
    r"render\w*|determinize\w*|_?determin\w*|_?resample\w*|\w*format\w*|\w*json\w*|__repr__|"
    r"__str__|summary|\w*_name)$"
)

BINOP_SWAP = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult, ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitOr, ast.LShift: ast.RShift, ast.RShift: ast.LShift,
}
CMP_SWAP = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
SYM = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Div: "/", ast.Mod: "%",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.And: "and",
    ast.Or: "or", ast.Pow: "**", ast.MatMult: "@",
}


@dataclass
class Mutant:
    index: int  # position in the deterministic walk (node index, variant)
    node: int
    variant: int
    line: int
    function: str
    description: str
    rule: bool
    outcome: str = ""  # killed / survived / timeout / error
    seconds: float = 0.0

    @property
    def id(self) -> str:
        return f"{self.function}:{self.line}:{self.description}"


def _walk(tree: ast.AST):
    """Yield (node, enclosing function qualname, in_annotation) in a fixed order."""

    def rec(node, scope, skip):
        yield node, scope, skip
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            child_skip = skip or field in ("annotation", "returns", "decorator_list")
            for child in children:
                if not isinstance(child, ast.AST):
                    continue
                child_scope = scope
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    child_scope = child.name if scope == "<module>" else f"{scope}.{child.name}"
                yield from rec(child, child_scope, child_skip)

    yield from rec(tree, "<module>", False)


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                ids.add(id(body[0]))
    return ids


def _variants(node: ast.AST, docstrings: set[int]) -> list[str]:
    """Descriptions of the mutations applicable to this node (order = variant number)."""
    out: list[str] = []
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in BINOP_SWAP:
        a, b = type(node.op), BINOP_SWAP[type(node.op)]
        aug = "=" if isinstance(node, ast.AugAssign) else ""
        out.append(f"{SYM[a]}{aug} -> {SYM[b]}{aug}")
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in CMP_SWAP:
                out.append(f"cmp#{i} {SYM[type(op)]} -> {SYM[CMP_SWAP[type(op)]]}")
    if isinstance(node, ast.BoolOp):
        out.append(f"{SYM[type(node.op)]} -> {'or' if isinstance(node.op, ast.And) else 'and'}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        out.append("not x -> x")
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            out.append(f"{v} -> {not v}")
        elif isinstance(v, int):
            out.append(f"{v} -> {v + 1}")
            if v != 0:
                out.append(f"{v} -> 0")
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        out.append(f"{type(node).__name__.lower()} condition negated")
    if isinstance(node, ast.stmt) and id(node) not in docstrings and not isinstance(
        node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Pass, ast.Import,
               ast.ImportFrom, ast.Global, ast.Nonlocal)
    ):
        out.append(f"{type(node).__name__} statement -> pass")
    if isinstance(node, ast.Break):
        out.append("break -> continue")
    if isinstance(node, ast.Continue):
        out.append("continue -> break")
    return out


def _apply(node: ast.AST, variant: int, docstrings: set[int], parents: dict[int, tuple]) -> None:
    """Mutate `node` in place (or in its parent) with the given variant."""
    desc = _variants(node, docstrings)[variant]
    if desc.startswith("cmp#"):
        i = int(desc[4:desc.index(" ")])
        node.ops[i] = CMP_SWAP[type(node.ops[i])]()
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and variant == 0:
        node.op = BINOP_SWAP[type(node.op)]()
    elif isinstance(node, ast.BoolOp) and variant == 0:
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif desc == "not x -> x":
        _replace(node, node.operand, parents)
    elif isinstance(node, ast.Constant) and not desc.endswith("-> pass"):
        v = node.value
        if isinstance(v, bool):
            node.value = not v
        elif desc.endswith(f"-> {v + 1}"):
            node.value = v + 1
        else:
            node.value = 0
    elif desc.endswith("condition negated"):
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    elif desc.endswith("statement -> pass"):
        _replace(node, ast.Pass(), parents)
    elif desc == "break -> continue":
        _replace(node, ast.Continue(), parents)
    elif desc == "continue -> break":
        _replace(node, ast.Break(), parents)
    else:  # pragma: no cover - _variants and _apply disagree
        raise AssertionError(desc)


def _replace(node, new, parents):
    parent, field, idx = parents[id(node)]
    if idx is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[idx] = new


def _parents(tree):
    out = {}
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        out[id(child)] = (parent, field, i)
            elif isinstance(value, ast.AST):
                out[id(value)] = (parent, field, None)
    return out


def enumerate_mutants(source: str, functions: str | None, exclude: str) -> list[Mutant]:
    tree = ast.parse(source)
    docstrings = _docstring_nodes(tree)
    fre = re.compile(functions) if functions else None
    xre = re.compile(exclude) if exclude else None
    out: list[Mutant] = []
    for n, (node, scope, skip) in enumerate(_walk(tree)):
        if skip or (fre and not fre.search(scope)):
            continue
        rule = not (xre and any(xre.search(part) for part in _scopes(scope)))
        for v, desc in enumerate(_variants(node, docstrings)):
            line = getattr(node, "lineno", 0)
            out.append(Mutant(len(out), n, v, line, scope, desc, rule))
    # The same change twice on one line (e.g. two ``1``s) gets "(2nd)"... so that ids are unique.
    seen: dict[str, int] = {}
    for m in out:
        k = seen[m.id] = seen.get(m.id, 0) + 1
        if k > 1:
            m.description += f" ({k}{'nd' if k == 2 else 'rd' if k == 3 else 'th'})"
    return out


def _scopes(scope: str) -> list[str]:
    """'A.b.c' -> ['A', 'A.b', 'A.b.c'] so that a helper nested in view() is non-rule too."""
    parts = scope.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def mutant_source(source: str, m: Mutant) -> str:
    tree = ast.parse(source)
    docstrings = _docstring_nodes(tree)
    parents = _parents(tree)
    for n, (node, _scope, _skip) in enumerate(_walk(tree)):
        if n == m.node:
            _apply(node, m.variant, docstrings, parents)
            break
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def _copy_tree(root: Path, dest: Path) -> None:
    shutil.copytree(
        root, dest, symlinks=True,
        ignore=shutil.ignore_patterns(".git", ".venv", "node_modules", ".pytest_cache",
                                      ".hypothesis", "*.db"),
    )
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(dest / "src")],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_tests(workdir: Path, tests: list[str], timeout: float, python: str) -> tuple[str, float]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(workdir / "src")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("HYPOTHESIS_PROFILE", "default")
    cmd = [python, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd, cwd=workdir, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=timeout,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - t0
    dt = time.monotonic() - t0
    if proc.returncode == 0:
        return "survived", dt
    if proc.returncode in (4, 5):  # usage error / no tests collected: a broken command, not a kill
        return "error", dt
    return "killed", dt


def load_equivalent(path: str | None) -> set[str]:
    if not path:
        return set()
    ids = set()
    for line in Path(path).read_text().splitlines():
        line = line.split("  #", 1)[0].strip()  # ids may hold '#' (cmp#0): comments need "  #"
        if line and not line.startswith("#"):
            ids.add(line)
    return ids


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", required=True, help="module file, relative to the worktree root")
    ap.add_argument("--tests", required=True,
                    help='pytest arguments, e.g. "tests/test_trickarus.py -k follow"')
    ap.add_argument("--sample", type=int, default=0, help="random sample of N mutants (0 = all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=0,
                    help="per-mutant seconds (default: 3 x baseline + 10)")
    ap.add_argument("--functions", default=None, help="regex: only mutate these functions")
    ap.add_argument("--exclude", default=DEFAULT_EXCLUDE,
                    help="regex of non-rule functions (counted apart); '' for none")
    ap.add_argument("--rule-only", action="store_true", help="skip non-rule mutants")
    ap.add_argument("--only", action="append", default=[],
                    help="run only mutants whose id starts with this (repeatable)")
    ap.add_argument("--equivalent", default=None,
                    help="file of mutant ids judged harmless (one a line, # comments)")
    ap.add_argument("--json", default=None, help="write every mutant and its outcome here")
    ap.add_argument("--rescore", default=None,
                    help="print the summary of an earlier --json file (e.g. with --equivalent)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--root", default=".", help="worktree root (default: current dir)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every mutant's outcome")
    args = ap.parse_args(argv)

    if args.rescore:
        data = json.loads(Path(args.rescore).read_text())
        fields = Mutant.__dataclass_fields__
        ms = [Mutant(**{k: v for k, v in m.items() if k in fields}) for m in data["mutants"]]
        print(summarize(ms, load_equivalent(args.equivalent))["text"])
        return 0
    root = Path(args.root).resolve()
    module = Path(args.module)
    rel = module.resolve().relative_to(root) if module.is_absolute() else module
    source = (root / rel).read_text()
    tests = shlex.split(args.tests)

    mutants = enumerate_mutants(source, args.functions, args.exclude)
    if args.rule_only:
        mutants = [m for m in mutants if m.rule]
    if args.only:
        mutants = [m for m in mutants if any(m.id.startswith(p) for p in args.only)]
    total = len(mutants)
    if args.sample and args.sample < len(mutants):
        mutants = sorted(random.Random(args.seed).sample(mutants, args.sample),
                         key=lambda m: m.index)
    if args.list:
        for m in mutants:
            print(f"{'rule' if m.rule else 'misc'}  {m.id}")
        print(f"{len(mutants)} of {total} mutants")
        return 0

    tmp = Path(tempfile.mkdtemp(prefix="mutate-"))
    baseline_src = ast.unparse(ast.parse(source))
    slots: Queue[Path] = Queue()
    try:
        for j in range(max(1, args.jobs)):
            d = tmp / f"w{j}"
            _copy_tree(root, d)
            slots.put(d)
        # Baseline: the round-tripped but unmutated module must pass.
        d = slots.get()
        (d / rel).write_text(baseline_src)
        outcome, base_t = run_tests(d, tests, 3600, args.python)
        slots.put(d)
        if outcome != "survived":
            print(f"baseline run failed ({outcome}): fix the tests first", file=sys.stderr)
            return 2
        timeout = args.timeout or 3 * base_t + 10
        print(f"{len(mutants)} of {total} mutants; baseline {base_t:.1f}s, "
              f"timeout {timeout:.0f}s, jobs {args.jobs}", flush=True)

        lock = threading.Lock()
        done = [0]

        def work(m: Mutant) -> None:
            d = slots.get()
            try:
                (d / rel).write_text(mutant_source(source, m))
                m.outcome, m.seconds = run_tests(d, tests, timeout, args.python)
                (d / rel).write_text(baseline_src)
            finally:
                slots.put(d)
            with lock:
                done[0] += 1
                if args.verbose or m.outcome == "survived":
                    print(f"[{done[0]}/{len(mutants)}] {m.outcome:8s} "
                          f"{'rule' if m.rule else 'misc'} {m.id}", flush=True)

        # SIGTERM (e.g. `kill PID`): stop handing out mutants and clean up the copies.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        ex = ThreadPoolExecutor(max_workers=max(1, args.jobs))
        try:
            list(ex.map(work, mutants))
        finally:
            ex.shutdown(wait=True, cancel_futures=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    equivalent = load_equivalent(args.equivalent)
    summary = summarize(mutants, equivalent)
    print(summary["text"])
    if args.json:
        Path(args.json).write_text(json.dumps({
            "module": str(rel), "tests": args.tests, "sample": args.sample, "seed": args.seed,
            "total_mutants": total,
            "summary": {k: v for k, v in summary.items() if k != "text"},
            "mutants": [dict(asdict(m), id=m.id, equivalent=m.id in equivalent)
                        for m in mutants],
        }, indent=1))
    return 0


def summarize(mutants: list[Mutant], equivalent: set[str]) -> dict:
    def score(ms):
        ms = [m for m in ms if m.outcome != "error"]
        killed = sum(m.outcome in ("killed", "timeout") for m in ms)
        return killed, len(ms), (100.0 * killed / len(ms) if ms else 100.0)

    out = {}
    lines = []
    for name, ms in (("overall", mutants), ("rule code", [m for m in mutants if m.rule])):
        k, n, pct = score(ms)
        out[name] = {"killed": k, "total": n, "percent": round(pct, 1)}
        lines.append(f"{name:10s}: killed {k}/{n} = {pct:.1f}%")
        if equivalent:
            beh = [m for m in ms if m.id not in equivalent]
            k2, n2, pct2 = score(beh)
            out[name + " (behaviour-changing)"] = {"killed": k2, "total": n2,
                                                   "percent": round(pct2, 1)}
            lines.append(f"{'':10s}  behaviour-changing only: {k2}/{n2} = {pct2:.1f}%")
    errors = sum(m.outcome == "error" for m in mutants)
    timeouts = sum(m.outcome == "timeout" for m in mutants)
    lines.append(f"timeouts (counted killed): {timeouts}; errors (not counted): {errors}")
    surv = [m for m in mutants if m.outcome == "survived"]
    if surv:
        lines.append("survivors:")
        for m in surv:
            mark = " (equivalent)" if m.id in equivalent else ""
            lines.append(f"  {'rule' if m.rule else 'misc'} {m.id}{mark}")
    out["text"] = "\n".join(lines)
    return out


if __name__ == "__main__":
    sys.exit(main())
