"""benchmarks/arena_suite.py reads the per-game log of a run cut short by a deadline."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SUITE = Path(__file__).resolve().parent.parent / "benchmarks" / "arena_suite.py"


def _suite():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("arena_suite", SUITE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_partial_run_reads_game_lines_the_80_column_console_wrapped(tmp_path: Path) -> None:
    """At 5 players the arena's line for a game wraps inside its tuples; every game still counts,
    with its places (a game lost to the wrap would bias the partial row)."""
    log = tmp_path / "trickarus-5p-hard-medium.log"
    log.write_text(
        "game 1/10: #0 ('hard', 'medium', 'hard', 'medium', 'hard') places (1, 2, 3, 4, 5) (9.1 s)\n"
        "game 2/10: #1 ('medium', 'hard', 'hard', 'medium', 'hard') places (2, 1, 5, 3, \n"
        "4) (12.9 s)\n"
        "game 3/10: #2 ('hard', 'hard', 'medium', 'hard', \n"
        "'medium') places (5, 4, 2, 3, 1) (15.6 s)\n"
        "game 4/10: #3 ('medium', 'hard', 'medium', 'hard', 'hard') places \n"  # 6p wraps here
        "(2, 4, 1, 5, 3) (11.0 s)\n"
        "trickarus 5p ━━━━━━ 4/10\n"
    )
    run = _suite().partial_run(log, "hard", "medium")
    assert run is not None and run["partial"] and run["seed"] == "partial: 4 of 10 games"
    stats = {s["bot"]: s for s in run["stats"]}
    assert stats["hard"]["games"] == 4 and stats["medium"]["games"] == 4
    # hard's places: (1, 3, 5), (1, 5, 4), (5, 4, 3), (4, 5, 3): the arena ranks a bot by its
    # seats' mean
    hard = (3 + 10 / 3 + 4 + 4) / 4
    medium = (3 + 2.5 + 1.5 + 1.5) / 4
    assert abs(stats["hard"]["mean_place"]["mean"] - hard) < 1e-9
    assert abs(stats["medium"]["mean_place"]["mean"] - medium) < 1e-9
