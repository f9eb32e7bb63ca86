"""A CPU budget for a process and its children, from the kernel's cgroups (needs root).

With servers, PostgreSQL, Redis and the load client on one machine, the servers share its cores
with everything they talk to, and more servers cannot show more capacity. Giving each server a
budget of its own (0.3 of a core, say) makes the servers the bottleneck and leaves the rest to
the database, Redis and the client, so N servers can be compared with one on a small machine.

    budget = CpuBudget("meeple-load-0", cores=0.3)     # a new cgroup, quota set
    proc = subprocess.Popen(cmd, preexec_fn=budget.enter)   # the child joins before exec
    ...
    budget.stats()                                      # throttling seen by the kernel
    budget.remove()

Run as a script, it shows what the period does: a busy loop in a budget of ``--cores`` with
periods of ``--period-ms``, printing how often and how long the kernel held it back.

    python benchmarks/cpu_budget.py --cores 0.3 --period-ms 100     # holds of up to ~70 ms
    python benchmarks/cpu_budget.py --cores 0.3 --period-ms 10      # holds of up to ~7 ms

cgroup v1's ``cpu`` controller (``cpu.cfs_quota_us`` over ``cpu.cfs_period_us``) where it is
mounted, else cgroup v2's ``cpu.max``; `BudgetError` says why when neither can be written.

The period is 10 ms, not the kernel's default 100 ms. A budget is ``cores`` x period of CPU per
period, and a group that spends it early waits for the next period: with 100 ms and 0.3 core a
server can be held back for 70 ms in one go, which alone is most of a 100 ms latency line, so
where latency crosses the line depended on how a burst of work fell across period boundaries
(a noisy knee, well below the budget's average use). With 10 ms the longest hold is 7 ms, and
latency rises with the server's average use of its budget, as it would on a core of that speed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PERIOD_US = 10_000  # see the module docstring


class BudgetError(RuntimeError):
    pass


def hierarchy() -> tuple[str, Path]:
    """("v1", the cpu controller's mount) or ("v2", the unified root); BudgetError if none."""
    v1 = ROOT / "cpu"
    if (v1 / "cpu.cfs_quota_us").exists():
        return "v1", v1
    controllers = ROOT / "cgroup.controllers"
    if controllers.exists() and "cpu" in controllers.read_text().split():
        return "v2", ROOT
    raise BudgetError("no cgroup cpu controller found: neither cgroup v1's "
                      f"{v1}/cpu.cfs_quota_us nor cgroup v2's cpu in {controllers}")


class CpuBudget:
    """A cgroup holding at most ``cores`` of CPU time per wall-clock second."""

    def __init__(self, name: str, cores: float, period_us: int = PERIOD_US) -> None:
        if not 0.01 <= cores <= (os.cpu_count() or 1):
            raise BudgetError(f"a budget of {cores} cores is outside 0.01..{os.cpu_count()}")
        quota = int(cores * period_us)
        if not 1_000 <= period_us <= 1_000_000 or quota < 1_000:
            # the kernel's bounds: a period of 1 ms to 1 s, a quota of at least 1 ms
            raise BudgetError(f"a period of {period_us} us with {cores} cores gives a quota of "
                              f"{quota} us; the kernel needs a period of 1000..1000000 us and a "
                              "quota of at least 1000 us")
        self.cores, self.period_us = cores, period_us
        self.kind, root = hierarchy()
        self.path = root / name
        try:
            if self.kind == "v2":
                control = root / "cgroup.subtree_control"
                if "cpu" not in control.read_text().split():
                    control.write_text("+cpu")
            self.path.mkdir(exist_ok=True)
            if self.kind == "v1":
                (self.path / "cpu.cfs_period_us").write_text(str(period_us))
                (self.path / "cpu.cfs_quota_us").write_text(str(quota))
            else:
                (self.path / "cpu.max").write_text(f"{quota} {period_us}")
        except OSError as exc:
            raise BudgetError(f"cannot set a CPU budget in {self.path} ({exc.strerror}); "
                              "budgets need root and a writable cgroup hierarchy") from exc
        self._procs = str(self.path / "cgroup.procs")

    def add(self, pid: int) -> None:
        with open(self._procs, "w") as f:
            f.write(str(pid))

    def enter(self) -> None:
        """For ``Popen(preexec_fn=...)``: the child joins before it runs anything, so every
        process it starts (a server's bot workers) is inside the budget too."""
        self.add(os.getpid())

    def stats(self) -> dict[str, float]:
        """The kernel's count of periods and of the time the group was held back."""
        raw = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines())
        if self.kind == "v1":
            return {"periods": int(raw.get("nr_periods", 0)),
                    "throttled_periods": int(raw.get("nr_throttled", 0)),
                    "throttled_s": int(raw.get("throttled_time", 0)) / 1e9}
        return {"periods": int(raw.get("nr_periods", 0)),
                "throttled_periods": int(raw.get("nr_throttled", 0)),
                "throttled_s": int(raw.get("throttled_usec", 0)) / 1e6,
                "usage_s": int(raw.get("usage_usec", 0)) / 1e6}

    def remove(self) -> None:
        """Move what is left to the parent group and delete the group."""
        try:
            leftover = (self.path / "cgroup.procs").read_text().split()
            for pid in leftover:
                try:
                    (self.path.parent / "cgroup.procs").write_text(pid)
                except OSError:
                    pass
            self.path.rmdir()
        except OSError:
            pass


def idle_share(before: list[int], after: list[int]) -> float:
    """The host's idle share of CPU time between two `host_times()` readings."""
    total = sum(after) - sum(before)
    idle = (after[3] + after[4]) - (before[3] + before[4])  # idle + iowait
    return idle / total if total > 0 else 0.0


def host_times() -> list[int]:
    """The first line of /proc/stat: the host's CPU time by kind, in clock ticks."""
    with open("/proc/stat") as f:
        return [int(x) for x in f.readline().split()[1:]]


# a busy loop that notes every gap in its own progress over 2 ms: the time it was held back
_HOLDS = """
import time
holds, last = [], time.monotonic()
end = last + {seconds}
while (now := time.monotonic()) < end:
    if now - last > 0.002:
        holds.append(now - last)
    last = now
holds.sort()
print(f"held back {{len(holds)}} times, longest {{holds[-1] * 1e3:.0f}} ms, "
      f"median {{holds[len(holds) // 2] * 1e3:.1f}} ms" if holds else "never held back")
"""


def main() -> None:
    p = argparse.ArgumentParser(description="How a CPU budget holds a busy process back.")
    p.add_argument("--cores", type=float, default=0.3)
    p.add_argument("--period-ms", type=float, default=PERIOD_US / 1000)
    p.add_argument("--seconds", type=float, default=3.0)
    args = p.parse_args()
    budget = CpuBudget(f"meeple-holds-{os.getpid()}", args.cores, int(args.period_ms * 1000))
    try:
        subprocess.run([sys.executable, "-c", _HOLDS.format(seconds=args.seconds)], check=True,
                       preexec_fn=budget.enter)
        print(budget.stats())
    finally:
        budget.remove()


if __name__ == "__main__":
    main()
