"""A server given a CPU budget gets no more than its budget (benchmarks/cpu_budget.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from cpu_budget import BudgetError, CpuBudget  # noqa: E402

BUSY = "import time\nend = time.monotonic() + {seconds}\nwhile time.monotonic() < end: pass\n"


def budget_or_skip(cores: float) -> CpuBudget:
    if os.geteuid() != 0:
        pytest.skip("CPU budgets need root")
    try:
        return CpuBudget(f"meeple-test-{uuid.uuid4().hex[:8]}", cores)
    except BudgetError as exc:
        pytest.skip(str(exc))


def cpu_of_child(cmd: list[str], budget: CpuBudget | None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of a child process run to its end."""
    before = os.times()
    start = time.monotonic()
    subprocess.run(cmd, check=True, preexec_fn=budget.enter if budget else None)
    wall = time.monotonic() - start
    after = os.times()
    return (after.children_user - before.children_user
            + after.children_system - before.children_system), wall


def test_a_budgeted_process_gets_no_more_than_its_budget():
    budget = budget_or_skip(0.3)
    try:
        cpu, wall = cpu_of_child([sys.executable, "-c", BUSY.format(seconds=3)], budget)
        throttled = budget.stats()["throttled_periods"]
    finally:
        budget.remove()
    assert cpu / wall <= 0.3 * 1.1, (cpu, wall)
    if cpu / wall > 0.25:  # it reached its budget (a loaded machine may give it less)
        assert throttled > 0  # the kernel held it back: the busy loop wanted a whole core


def test_children_of_a_budgeted_process_share_its_budget():
    """A server's bot workers are its children: two busy children still get 0.3 together."""
    budget = budget_or_skip(0.3)
    two = ("import subprocess, sys\n"
           f"ps = [subprocess.Popen([sys.executable, '-c', {BUSY.format(seconds=3)!r}]) "
           "for _ in range(2)]\n[p.wait() for p in ps]\n")
    try:
        cpu, wall = cpu_of_child([sys.executable, "-c", two], budget)
    finally:
        budget.remove()
    assert cpu / wall <= 0.3 * 1.1, (cpu, wall)


def test_a_budget_outside_the_machine_is_refused():
    with pytest.raises(BudgetError):
        CpuBudget("meeple-test-too-much", cores=1000)


def test_a_budget_is_accounted_in_short_periods():
    """10 ms periods (cpu_budget.py: a server held back for at most 7 ms in one go at 0.3 core,
    not 70 ms); a period whose quota the kernel would refuse is refused with the reason."""
    budget = budget_or_skip(0.3)
    try:
        if budget.kind == "v1":
            period = int((budget.path / "cpu.cfs_period_us").read_text())
            quota = int((budget.path / "cpu.cfs_quota_us").read_text())
        else:
            quota, period = map(int, (budget.path / "cpu.max").read_text().split())
    finally:
        budget.remove()
    assert (quota, period) == (3_000, 10_000)
    with pytest.raises(BudgetError, match="quota"):
        CpuBudget("meeple-test-tiny", cores=0.05, period_us=10_000)
