"""The arena: balanced seat rotation, repeatable seeds, statistics on known cases, small runs."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import meeple
from meeple.bots.arena import (
    GameResult,
    Interval,
    _t_quantile,
    mean_ci,
    percentile,
    run_arena,
    schedule,
    separated,
    summarize,
    wilson,
)
from meeple.cli_arena import arena

GAME = "trickarus"  # the reference game; the arena itself never names a game


@pytest.mark.parametrize(("bots", "players"), [(["a", "b", "c"], 4), (["a", "b"], 3), (["a", "b", "c", "d"], 2), (["a", "b", "c"], 3)])
def test_schedule_rotates_seats_so_no_bot_keeps_an_advantage(bots: list[str], players: int) -> None:
    """Over len(bots) x players games every bot sits in every seat equally often."""
    games = len(bots) * players
    specs = schedule(GAME, bots, games, players, seed=3)
    seat_counts = Counter((s.lineup[seat], seat) for s in specs for seat in range(players))
    expected = games * players // (len(bots) * players)
    assert {seat_counts[(b, seat)] for b in bots for seat in range(players)} == {expected}
    # A block of `players` games shares one deal and rotates the line-up one seat per game.
    for start in range(0, games, players):
        block = specs[start : start + players]
        assert len({s.seed for s in block}) == 1
        for prev, nxt in zip(block, block[1:], strict=False):
            assert nxt.lineup == (prev.lineup[-1], *prev.lineup[:-1])


def test_schedule_is_fixed_by_its_seed() -> None:
    one = schedule(GAME, ["x", "y"], 10, 2, seed=5)
    assert one == schedule(GAME, ["x", "y"], 10, 2, seed=5)
    assert [s.seed for s in one] != [s.seed for s in schedule(GAME, ["x", "y"], 10, 2, seed=6)]
    assert len({s.bot_seeds for s in one}) == 10
    with pytest.raises(ValueError, match="distinct"):
        schedule(GAME, ["x", "x"], 2, 2)


def test_mean_ci_known_values() -> None:
    """[1..5]: mean 3, sd sqrt(2.5), t(0.975, 4) = 2.7764 -> half-width 1.9632."""
    iv = mean_ci([1, 2, 3, 4, 5])
    assert iv.mean == 3
    assert iv.hi - 3 == pytest.approx(2.776445 * math.sqrt(2.5) / math.sqrt(5), rel=1e-5)
    assert iv.hi - 3 == pytest.approx(1.9632, abs=1e-4)
    assert mean_ci([2, 2, 2]) == Interval(2, 2, 2)
    assert mean_ci([4]).lo == -math.inf


def test_t_quantile_fallback_matches_tables() -> None:
    """Known t quantiles (df 4, 10, 30, 1000) within 1e-3, scipy or not."""
    for df, q in ((4, 2.776), (10, 2.228), (30, 2.042), (1000, 1.962)):
        assert _t_quantile(0.975, df) == pytest.approx(q, abs=1e-3)


def test_wilson_known_values() -> None:
    """Wilson 95% for 5/10 is [0.2366, 0.7634]; for 0/10 it is [0, 0.2775]; 10/10 mirrors it."""
    iv = wilson(5, 10)
    assert (iv.mean, round(iv.lo, 4), round(iv.hi, 4)) == (0.5, 0.2366, 0.7634)
    assert round(wilson(0, 10).hi, 4) == 0.2775 and wilson(0, 10).lo == 0
    assert round(wilson(10, 10).lo, 4) == 0.7225 and wilson(10, 10).hi == 1


def test_percentile_and_separation() -> None:
    xs = [float(i) for i in range(1, 101)]
    assert percentile(xs, 0.95) == 95.0 and percentile([], 0.95) == 0.0
    assert separated(Interval(1.2, 1.1, 1.3), Interval(2.0, 1.8, 2.2))
    assert not separated(Interval(1.5, 1.1, 1.9), Interval(2.0, 1.8, 2.2))


def _result(index: int, lineup: tuple[str, ...], places: tuple[int, ...]) -> GameResult:
    scores = tuple(float(10 - p) for p in places)
    return GameResult(index, 0, lineup, places, scores, 10, 0.1, tuple(() for _ in lineup))


def test_summarize_on_a_known_case() -> None:
    """A bot in two seats counts once per game (its mean place); shared firsts are wins."""
    results = [
        _result(0, ("s", "w", "s"), (1, 3, 2)),
        _result(1, ("w", "s", "s"), (3, 1, 1)),  # s shares first twice
        _result(2, ("s", "w", "w"), (1, 2, 3)),
    ]
    stats = {s.bot: s for s in summarize(results, ["s", "w"])}
    s, w = stats["s"], stats["w"]
    assert (s.games, s.seats, w.games, w.seats) == (3, 5, 3, 4)
    assert s.mean_place.mean == pytest.approx((1.5 + 1 + 1) / 3)
    assert w.mean_place.mean == pytest.approx((3 + 3 + 2.5) / 3)
    assert s.win_rate.mean == pytest.approx(4 / 5) and w.win_rate.mean == 0
    assert s.mean_score.mean == pytest.approx(10 - s.mean_place.mean)
    assert s.rating > w.rating and s.rating_mu > 25 > w.rating_mu


def test_rating_order_does_not_depend_on_finishing_order() -> None:
    results = [_result(i, ("a", "b"), (1, 2) if i % 3 else (2, 1)) for i in range(9)]
    one = summarize(results, ["a", "b"])
    two = summarize(list(reversed(results)), ["a", "b"])
    assert one == two


def test_small_arena_runs_and_repeats_across_workers() -> None:
    """A tiny arena; the same seed gives the same games in one process and in two."""
    bots = ["ismcts:20", "heuristic", "random"]
    a = run_arena(GAME, bots, games=6, players=3, seed=1)
    b = run_arena(GAME, bots, games=6, players=3, seed=1, workers=2)
    assert [(g.lineup, g.places, g.scores) for g in a.games] == [
        (g.lineup, g.places, g.scores) for g in b.games
    ]
    assert [s.bot for s in a.stats] == bots
    assert all(s.games == 6 and s.seats == 6 for s in a.stats)
    assert sum(s.win_rate.mean * s.seats for s in a.stats) >= 6  # at least one first per game
    with pytest.raises(ValueError, match="levels"):
        run_arena(GAME, ["nobody"], games=1, players=3)


def test_a_game_that_does_not_end_is_stopped_and_left_out() -> None:
    """A game past max_moves stops (an arena must not hang on a game that never ends)."""
    cut = run_arena(GAME, ["random", "heuristic"], games=2, players=2, seed=1, max_moves=5)
    assert all(not g.finished and g.moves == 5 for g in cut.games)
    assert all(s.games == 0 and s.seats == 0 for s in cut.stats)
    full = run_arena(GAME, ["random", "heuristic"], games=2, players=2, seed=1)
    assert all(g.finished for g in full.games) and all(s.games == 2 for s in full.stats)


def test_arena_on_ray_matches_local() -> None:
    """`--ray` on a tiny local cluster (Ray 2.x has no local mode) plays the same games."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        bots = ["ismcts:10", "random"]
        on_ray = run_arena(GAME, bots, games=4, players=2, seed=2, use_ray=True)
    finally:
        if started:
            ray.shutdown()
    local = run_arena(GAME, bots, games=4, players=2, seed=2)
    assert [g.places for g in on_ray.games] == [g.places for g in local.games]


def test_cli_arena_prints_the_table_and_saves_json_csv_png(tmp_path: Path) -> None:
    app = typer.Typer()
    app.command("arena")(arena)
    app.command("noop")(lambda: None)  # two commands, so `arena` is a sub-command as in meeple
    runner = CliRunner()
    res = runner.invoke(app, ["arena", GAME, "--bots", "ismcts:10,random", "--games", "4",
                              "--players", "2", "--out", str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    assert "ismcts:10" in res.output and "place" in res.output and "caps" in res.output
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["game"] == GAME and len(data["games"]) == 4
    assert {s["bot"] for s in data["stats"]} == {"ismcts:10", "random"}
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
    res = runner.invoke(app, ["arena", GAME, "--bots", "random,heuristic", "--games", "2",
                              "--players", "2", "--out", str(tmp_path / "r.csv"), "--no-plot"])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert [r["bot"] for r in rows] == ["random", "heuristic"]
    assert len(list(csv.DictReader((tmp_path / "r-games.csv").open()))) == 4
    res = runner.invoke(app, ["arena", "no-such-game"])
    assert res.exit_code == 2 and "no game" in res.output
    assert meeple.game_info(GAME)  # the arena found the game through the registry
