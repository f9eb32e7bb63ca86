"""The arena: bots play many seeded games of one game, and the results rank them.

Why it is built this way:
- **Seats rotate.** Games come in blocks of ``players`` games that share one deal (the same game
  seed) and rotate the line-up one seat each time, so no bot keeps a seat or a deal advantage.
  Successive blocks walk the cyclic orders of the bots, so who sits after whom varies too. The
  line-ups are balanced whenever ``games`` is a multiple of ``len(bots) * players``.
- **Seeds are fixed.** Game and bot seeds derive from the arena seed and the game's index, and
  results are gathered in index order, so a run repeats exactly, whatever ran it (one process,
  ``workers`` local processes, or Ray).
- **Statistics per bot.** Mean place and mean score are averaged over a bot's seats in each game
  (one observation per game, since seats in one game are not independent) with a Student-t 95%
  interval; win rate counts seats that finished first (shared firsts included) with a Wilson
  interval. The rating is openskill's Plackett-Luce, fed the games in index order.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import statistics
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import meeple
from meeple.bots import make_bot
from meeple.core import derive

Z95 = 1.959963984540054  # the normal 97.5% quantile


@dataclass(frozen=True)
class GameSpec:
    """One arena game: everything needed to play it anywhere, picklable."""

    index: int
    game: str
    players: int
    options: dict[str, Any]
    seed: int
    lineup: tuple[str, ...]  # the bot level per seat
    bot_seeds: tuple[int, ...]
    max_moves: int = 5000  # a game still going after this many is stopped and left out
    max_seconds: float | None = None  # a search move's safety cap, as a server sets it (None: off)


@dataclass(frozen=True)
class GameResult:
    """How one arena game ended, and how long each seat thought."""

    index: int
    seed: int
    lineup: tuple[str, ...]
    places: tuple[int, ...]
    scores: tuple[float, ...]
    moves: int
    seconds: float
    move_times: tuple[tuple[float, ...], ...] = field(repr=False)  # per seat, decisions only
    iterations: tuple[int, ...] = ()  # per seat: search iterations run (bots that report them)
    finished: bool = True  # False: stopped at max_moves; such games are left out of the stats
    cap_hits: tuple[int, ...] = ()  # per seat: moves cut by the time cap (``max_seconds``)
    cpu_times: tuple[tuple[float, ...], ...] = field(default=(), repr=False)  # per seat, CPU s
    errors: tuple[int, ...] = ()  # per seat: decisions where an outside agent raised
    illegal: tuple[int, ...] = ()  # per seat: decisions where it answered an illegal action
    faults: tuple[str, ...] = ()  # per seat: the first such fault, in words ("" for none)


@dataclass(frozen=True)
class Interval:
    mean: float
    lo: float
    hi: float

    def __str__(self) -> str:
        return f"{self.mean:.3f} [{self.lo:.3f}, {self.hi:.3f}]"


@dataclass(frozen=True)
class BotStats:
    """One bot's results: the arena's table row."""

    bot: str
    games: int
    seats: int
    mean_place: Interval
    win_rate: Interval
    mean_score: Interval
    rating_mu: float
    rating_sigma: float
    rating: float  # openskill ordinal, mu - 3 sigma: a conservative skill estimate
    p95_move_seconds: float
    max_move_seconds: float
    mean_iterations: float | None = None  # per decision, for search bots (`bot.last.iterations`)
    cap_hits: int = 0  # decisions cut by the time cap (then not repeatable)
    p95_cpu_seconds: float = 0.0  # the same in CPU time: one core's work, whatever the load
    errors: int = 0  # decisions where the (outside) agent raised: a random legal move instead
    illegal: int = 0  # decisions where it answered an illegal action: the same
    fault: str = ""  # the first of those, in words


@dataclass
class ArenaResult:
    game: str
    players: int
    options: dict[str, Any]
    bots: list[str]
    seed: int
    games: list[GameResult]
    stats: list[BotStats]
    seconds: float
    command: str = ""  # how the run was started, for the record
    max_seconds: float | None = None  # the safety cap per search move, if any

    def to_json(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "bots": self.bots,
            "seed": self.seed,
            "max_seconds": self.max_seconds,
            "seconds": self.seconds,
            "stats": [asdict(s) for s in self.stats],
            "games": [
                {k: v for k, v in asdict(g).items() if k not in ("move_times", "cpu_times")}
                for g in self.games
            ],
        }


# ----- schedule ----------------------------------------------------------------------------------
def schedule(
    game: str,
    bots: Sequence[str],
    games: int,
    players: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    max_moves: int = 5000,
    max_seconds: float | None = None,
) -> list[GameSpec]:
    """The arena's games, in order. Pure: the same arguments give the same games."""
    if not bots:
        raise ValueError("an arena needs at least one bot")
    if len(set(bots)) != len(bots):
        raise ValueError(f"bots must be distinct: {', '.join(bots)}")
    b = len(bots)
    cyclic = _cyclic_orders(list(bots))
    order: list[str] = []
    specs: list[GameSpec] = []
    for index in range(games):
        block, turn = divmod(index, players)
        if turn == 0:
            cyc = next(cyclic)
            shift = block % b
            perm = cyc[shift:] + cyc[:shift]
            order = [perm[k % b] for k in range(players)]
        lineup = tuple(order[(s - turn) % players] for s in range(players))
        game_seed = derive(seed, 0, "arena-deal", block).getrandbits(31)
        bot_seeds = tuple(
            derive(seed, 0, "arena-bot", index, s).getrandbits(31) for s in range(players)
        )
        specs.append(
            GameSpec(
                index,
                game,
                players,
                dict(options or {}),
                game_seed,
                lineup,
                bot_seeds,
                max_moves,
                max_seconds,
            )
        )
    return specs


def _cyclic_orders(bots: list[str]) -> Iterator[list[str]]:
    """Each cyclic order of ``bots`` ``len(bots)`` times (once per rotation), round and round."""
    first, rest = bots[0], bots[1:]
    while True:
        for perm in itertools.permutations(rest):
            for _ in range(len(bots)):
                yield [first, *perm]


# ----- playing ---------------------------------------------------------------------------------
def play_game(spec: GameSpec) -> GameResult:
    """Play one arena game to the end (a top-level function, so processes and Ray can run it)."""
    start = time.perf_counter()
    state = meeple.make(spec.game, players=spec.players, seed=spec.seed, **spec.options)
    info = state.info
    seats = [
        make_bot(level, info, seed) for level, seed in zip(spec.lineup, spec.bot_seeds, strict=True)
    ]
    if spec.max_seconds is not None:
        for bot in seats:
            if hasattr(bot, "max_seconds"):
                bot.max_seconds = spec.max_seconds
    times: list[list[float]] = [[] for _ in range(spec.players)]
    cpu: list[list[float]] = [[] for _ in range(spec.players)]
    iterations = [0] * spec.players
    caps = [0] * spec.players
    moves = 0
    while not state.is_over() and moves < spec.max_moves:
        p = state.to_move
        assert p is not None
        t0, c0 = time.perf_counter(), time.process_time()
        action = seats[p].choose(state)
        elapsed, used = time.perf_counter() - t0, time.process_time() - c0
        if len(state.legal_actions()) > 1:  # forced moves are not decisions
            times[p].append(elapsed)
            cpu[p].append(used)
            last = getattr(seats[p], "last", None)
            iterations[p] += getattr(last, "iterations", 0)
            caps[p] += bool(getattr(last, "capped", False))
        state.apply(action)
        moves += 1
    faults = [(getattr(b, "errors", 0), getattr(b, "illegal", 0), getattr(b, "fault", "")) for b in seats]
    return GameResult(
        index=spec.index,
        seed=spec.seed,
        lineup=spec.lineup,
        places=tuple(state.ranking()),
        scores=tuple(float(x) for x in state.scores()),
        moves=moves,
        seconds=time.perf_counter() - start,
        move_times=tuple(tuple(t) for t in times),
        iterations=tuple(iterations),
        finished=state.is_over(),
        cap_hits=tuple(caps),
        cpu_times=tuple(tuple(t) for t in cpu),
        errors=tuple(f[0] for f in faults),
        illegal=tuple(f[1] for f in faults),
        faults=tuple(f[2] for f in faults),
    )


def run_games(
    specs: Sequence[GameSpec],
    workers: int = 1,
    use_ray: bool = False,
    ray_address: str | None = None,
) -> Iterator[GameResult]:
    """Play ``specs``, yielding results as they finish (not in order)."""
    if use_ray:
        yield from _run_ray(specs, ray_address, workers)
    elif workers <= 1:
        for spec in specs:
            yield play_game(spec)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(play_game, s) for s in specs]
            for fut in as_completed(futures):
                yield fut.result()


def _run_ray(specs: Sequence[GameSpec], address: str | None, workers: int) -> Iterator[GameResult]:
    """Ray: the same games as tasks on a cluster, the one already joined or a new local one.

    Without ``address`` and with ``workers`` > 1, a new local cluster gets that many CPUs.
    """
    import ray

    if not ray.is_initialized():
        cpus = workers if address is None and workers > 1 else None
        ray.init(address=address, num_cpus=cpus, log_to_driver=False)
    remote = ray.remote(play_game)
    pending = [remote.remote(s) for s in specs]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            yield ray.get(ref)


def run_arena(
    game: str,
    bots: Sequence[str],
    games: int,
    players: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    workers: int = 1,
    use_ray: bool = False,
    ray_address: str | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    max_moves: int = 5000,
    max_seconds: float | None = None,
) -> ArenaResult:
    """Schedule, play and rank. ``on_result`` sees each game as it finishes (progress bars)."""
    info = meeple.game_info(game)
    resolved = info.resolve_options(players, options or {})
    for level in bots:  # fail before any game starts, naming the levels (and bad agents)
        fits = getattr(make_bot(level, info, 0), "fits", None)
        if fits is not None:  # weights trained for another count or options say so now
            fits(players, resolved)
    specs = schedule(game, bots, games, players, seed, options or {}, max_moves, max_seconds)
    start = time.perf_counter()
    results: list[GameResult] = []
    for result in run_games(specs, workers, use_ray, ray_address):
        results.append(result)
        if on_result is not None:
            on_result(result)
    results.sort(key=lambda r: r.index)
    return ArenaResult(
        game=game,
        players=players,
        options=resolved,
        bots=list(bots),
        seed=seed,
        games=results,
        stats=summarize(results, bots),
        seconds=time.perf_counter() - start,
        max_seconds=max_seconds,
    )


# ----- statistics ------------------------------------------------------------------------------
def mean_ci(xs: Sequence[float], level: float = 0.95) -> Interval:
    """Mean with a Student-t interval (the sample is small and its variance unknown)."""
    n = len(xs)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan)
    mean = statistics.fmean(xs)
    if n == 1:
        return Interval(mean, -math.inf, math.inf)
    half = _t_quantile(0.5 + level / 2, n - 1) * statistics.stdev(xs) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half)


def wilson(successes: float, n: int, z: float = Z95) -> Interval:
    """A proportion with its Wilson score interval: sound at 0% and 100%, unlike mean ± 2 SE."""
    if n == 0:
        return Interval(math.nan, math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Interval(p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def _t_quantile(q: float, df: int) -> float:
    try:
        from scipy.stats import t

        return float(t.ppf(q, df))
    except ImportError:  # Cornish-Fisher expansion: within 1e-3 of the exact value for df >= 3
        z = statistics.NormalDist().inv_cdf(q)
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
        return z + g1 / df + g2 / df**2 + g3 / df**3


def summarize(results: Iterable[GameResult], bots: Sequence[str]) -> list[BotStats]:
    """The table: one row per bot, in the order given (games stopped unfinished left out)."""
    results = sorted((r for r in results if r.finished), key=lambda r: r.index)
    place: dict[str, list[float]] = {b: [] for b in bots}
    score: dict[str, list[float]] = {b: [] for b in bots}
    wins = dict.fromkeys(bots, 0)
    seats = dict.fromkeys(bots, 0)
    times: dict[str, list[float]] = {b: [] for b in bots}
    cpu: dict[str, list[float]] = {b: [] for b in bots}
    iters = dict.fromkeys(bots, 0)
    capped = dict.fromkeys(bots, 0)
    errors = dict.fromkeys(bots, 0)
    illegal = dict.fromkeys(bots, 0)
    fault = dict.fromkeys(bots, "")
    for r in results:
        for bot in dict.fromkeys(r.lineup):
            mine = [s for s, b in enumerate(r.lineup) if b == bot]
            place[bot].append(statistics.fmean(r.places[s] for s in mine))
            score[bot].append(statistics.fmean(r.scores[s] for s in mine))
            wins[bot] += sum(1 for s in mine if r.places[s] == 1)
            seats[bot] += len(mine)
            for s in mine:
                times[bot].extend(r.move_times[s])
                cpu[bot].extend(r.cpu_times[s] if r.cpu_times else ())
                iters[bot] += r.iterations[s] if r.iterations else 0
                capped[bot] += r.cap_hits[s] if r.cap_hits else 0
                errors[bot] += r.errors[s] if r.errors else 0
                illegal[bot] += r.illegal[s] if r.illegal else 0
                fault[bot] = fault[bot] or (r.faults[s] if r.faults else "")
    ratings = rate(results, bots)
    out = []
    for bot in bots:
        mu, sigma = ratings[bot]
        ts = sorted(times[bot])
        out.append(
            BotStats(
                bot=bot,
                games=len(place[bot]),
                seats=seats[bot],
                mean_place=mean_ci(place[bot]),
                win_rate=wilson(wins[bot], seats[bot]),
                mean_score=mean_ci(score[bot]),
                rating_mu=mu,
                rating_sigma=sigma,
                rating=mu - 3 * sigma,
                p95_move_seconds=percentile(ts, 0.95),
                max_move_seconds=ts[-1] if ts else 0.0,
                mean_iterations=iters[bot] / len(ts) if iters[bot] and ts else None,
                cap_hits=capped[bot],
                p95_cpu_seconds=percentile(sorted(cpu[bot]), 0.95),
                errors=errors[bot],
                illegal=illegal[bot],
                fault=fault[bot],
            )
        )
    return out


def percentile(sorted_xs: Sequence[float], q: float) -> float:
    """The nearest-rank percentile of an ascending sequence (0.0 when empty)."""
    if not sorted_xs:
        return 0.0
    k = max(0, math.ceil(q * len(sorted_xs)) - 1)
    return float(sorted_xs[k])


def rate(results: Iterable[GameResult], bots: Sequence[str]) -> dict[str, tuple[float, float]]:
    """openskill Plackett-Luce (mu, sigma) per bot; a bot in several seats ranks by its mean place."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {b: model.rating(name=b) for b in bots}
    for r in sorted((r for r in results if r.finished), key=lambda r: r.index):
        present = list(dict.fromkeys(r.lineup))
        if len(present) < 2:
            continue
        ranks = [
            statistics.fmean(r.places[s] for s, b in enumerate(r.lineup) if b == bot)
            for bot in present
        ]
        new = model.rate([[current[b]] for b in present], ranks=ranks)
        for bot, team in zip(present, new, strict=True):
            current[bot] = team[0]
    return {b: (float(current[b].mu), float(current[b].sigma)) for b in bots}


def separated(a: Interval, b: Interval) -> bool:
    """Whether two 95% intervals do not overlap: the arena's bar for "better", per the issue."""
    return a.hi < b.lo or b.hi < a.lo


# ----- output ------------------------------------------------------------------------------------
def save(result: ArenaResult, out: Path, plot: bool = True) -> list[Path]:
    """Write the results: ``.csv`` gives the table as CSV (plus ``-games.csv``), else JSON.

    A PNG plot goes next to it (same stem) unless ``plot`` is false. Returns the paths written.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    written = []
    if out.suffix.lower() == ".csv":
        write_csv(result, out)
        games_path = out.with_name(out.stem + "-games.csv")
        write_games_csv(result, games_path)
        written += [out, games_path]
    else:
        out.write_text(json.dumps(result.to_json(), indent=1))
        written.append(out)
    if plot:
        png = out.with_suffix(".png")
        save_plot(result, png)
        written.append(png)
    return written


def write_csv(result: ArenaResult, path: Path) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "game",
                "players",
                "bot",
                "games",
                "seats",
                "mean_place",
                "place_lo",
                "place_hi",
                "win_rate",
                "win_lo",
                "win_hi",
                "mean_score",
                "score_lo",
                "score_hi",
                "rating",
                "rating_mu",
                "rating_sigma",
                "p95_move_seconds",
                "mean_iterations",
                "cap_hits",
                "p95_cpu_seconds",
                "errors",
                "illegal",
            ]
        )
        for s in result.stats:
            w.writerow(
                [
                    result.game,
                    result.players,
                    s.bot,
                    s.games,
                    s.seats,
                    *_triple(s.mean_place),
                    *_triple(s.win_rate),
                    *_triple(s.mean_score),
                    f"{s.rating:.3f}",
                    f"{s.rating_mu:.3f}",
                    f"{s.rating_sigma:.3f}",
                    f"{s.p95_move_seconds:.4f}",
                    "" if s.mean_iterations is None else f"{s.mean_iterations:.1f}",
                    s.cap_hits,
                    f"{s.p95_cpu_seconds:.4f}",
                    s.errors,
                    s.illegal,
                ]
            )


def write_games_csv(result: ArenaResult, path: Path) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["index", "seed", "seat", "bot", "place", "score", "moves", "seconds"])
        for g in result.games:
            for seat, bot in enumerate(g.lineup):
                w.writerow(
                    [
                        g.index,
                        g.seed,
                        seat,
                        bot,
                        g.places[seat],
                        g.scores[seat],
                        g.moves,
                        f"{g.seconds:.3f}",
                    ]
                )


def _triple(iv: Interval) -> list[str]:
    return [f"{iv.mean:.4f}", f"{iv.lo:.4f}", f"{iv.hi:.4f}"]


def save_plot(result: ArenaResult, path: Path) -> None:
    """Mean place and win rate per bot, with their 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [s.bot for s in result.stats]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, key, label in (
        (ax1, "mean_place", "mean place (lower is better)"),
        (ax2, "win_rate", "win rate"),
    ):
        ivs = [getattr(s, key) for s in result.stats]
        means = [iv.mean for iv in ivs]
        err = [[_finite(iv.mean - iv.lo) for iv in ivs], [_finite(iv.hi - iv.mean) for iv in ivs]]
        ax.bar(names, means, yerr=err, capsize=6, color="#5b8bd0")
        ax.set_title(label)
        ax.grid(axis="y", alpha=0.3)
    ax1.set_ylim(1, result.players)
    ax2.set_ylim(0, 1)
    fig.suptitle(f"{result.game}, {result.players} players, {len(result.games)} games (95% CI)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _finite(x: float) -> float:
    return max(0.0, x) if math.isfinite(x) else 0.0
