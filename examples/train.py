"""Train a policy for any meeple game at any player count: OpenSpiel's PPO on the game's tensors.

    pip install torch==2.13.0     # a CPU build first (see docs/learned.md), then
    pip install -e '.[train]'     # meeple[interop] + PyTorch + dm-tree + matplotlib
    nice -n 10 python examples/train.py --game scarvus --players 3 --max-minutes 4
    meeple arena scarvus --players 3 --bots random,learned:learned-scarvus-3p.npz --games 120

The game is meeple's OpenSpiel face (`meeple.interop.openspiel.load`), stepped by OpenSpiel's own
`rl_environment.Environment` with ``ObservationType.OBSERVATION``: the input is the game's default
observation tensor (`meeple.interop.tensor`), the same for every game, not an encoding written
for one. The learner is OpenSpiel's PyTorch `PPO` (legal-action masking, GAE) with ReLU hidden
layers; it plays one seat, rotating game by game, and the other seats are meeple bots drawn per
game from ``--opponents`` (``self`` is the learner's recent greedy policy), moved inside the
environment so that every time step is the learner's.

Seeds: ``rl_environment.Environment`` ignores ``seed`` when handed a game object, so each
environment gets its own seeded ``ChanceEventSampler`` (the deals) and its own opponent
generator: the same ``--seed`` gives the same deals, opponents and seats.

Every ``--eval-every`` games the greedy policy plays ``random`` on fixed deals, rotating seats;
the best point is what ``--out`` keeps, in the format ``learned:PATH`` plays at once
(`meeple.interop.agents.save_policy`, numpy only). ``--out`` defaults to a new file in the
working folder (never inside the package). The progress bar's remaining time counts whichever
ends the run first, ``--episodes`` or ``--max-minutes``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from open_spiel.python import rl_environment

import meeple
from meeple.bots import make_bot
from meeple.interop.agents import LearnedPolicy, observe, save_policy
from meeple.interop.openspiel import load, meeple_state

TimeStep, StepType = rl_environment.TimeStep, rl_environment.StepType


class MoverEnvironment(rl_environment.Environment):
    """OpenSpiel's RL environment on the observation tensor, encoding only the mover's: an agent
    reads its ``info_state`` on its own turn only, so encoding every seat at every step is waste."""

    def get_time_step(self) -> rl_environment.TimeStep:
        state = self._state
        terminal = state.is_terminal()
        self._should_reset = terminal
        player = state.current_player()
        n = self.num_players
        info: list[Any] = [None] * n
        legal: list[list[int]] = [[] for _ in range(n)]
        if not terminal:
            info[player] = self.encode(state, player)
            legal[player] = state.legal_actions(player)
        observations = {"info_state": info, "legal_actions": legal, "current_player": player,
                        "serialized_state": []}
        if getattr(self, "_first", False):  # the time step `reset` returns
            self._first = False
            return TimeStep(observations, None, None, StepType.FIRST)
        discounts = [0.0] * n if terminal else list(self._discounts)
        return TimeStep(observations, list(state.rewards()), discounts,
                        StepType.LAST if terminal else StepType.MID)

    def encode(self, state: Any, player: int) -> Any:
        """The learner's input: the game's observation tensor."""
        return state.observation_tensor(player)

    def reset(self) -> rl_environment.TimeStep:
        self._should_reset = False
        self._first = True
        self._state = self._game.new_initial_state()
        self._sample_external_events()
        return self.get_time_step()


def seated(ts: rl_environment.TimeStep, seat: int, n: int) -> rl_environment.TimeStep:
    """``ts`` with the seats renumbered so that ``seat`` is player 0 (PPO learns as player 0)."""
    if seat == 0:
        return ts
    obs = ts.observations

    def turn(xs: list[Any] | None) -> list[Any] | None:
        return None if xs is None else list(xs[seat:]) + list(xs[:seat])

    cur = obs["current_player"]
    moved = {"info_state": turn(obs["info_state"]), "legal_actions": turn(obs["legal_actions"]),
             "current_player": (cur - seat) % n if cur >= 0 else cur, "serialized_state": []}
    return TimeStep(moved, turn(ts.rewards), turn(ts.discounts), ts.step_type)


class GreedyBot:
    """A policy (`LearnedPolicy`) as a meeple bot: the ``self`` opponent and the evaluation."""

    name = "self"

    def __init__(self, policy: LearnedPolicy) -> None:
        self.policy = policy

    def choose(self, state: meeple.State) -> int:
        return self.policy.act(observe(state, state.to_move))  # type: ignore[arg-type]


class VersusEnvironment:
    """One seat learns (rotating per game); the others are meeple bots drawn per game."""

    def __init__(self, game: Any, seed: int, opponents: list[tuple[str, float]],
                 shared: dict[str, Any]) -> None:
        sampler = rl_environment.ChanceEventSampler(seed=seed)  # the deals: `seed=` is ignored
        self.env = MoverEnvironment(game, chance_event_sampler=sampler,
                                    observation_type=rl_environment.ObservationType.OBSERVATION)
        self.n = game.num_players()
        self.rng = random.Random(seed)
        self.names = [n for n, _ in opponents]
        self.weights = [w for _, w in opponents]
        self.shared = shared  # "self": the learner's latest exported policy
        self.info = game.info
        self.episodes = seed  # so that the envs of one vector start at different seats
        self.seat = 0
        self.bots: dict[int, Any] = {}
        self.last: rl_environment.TimeStep | None = None

    def _opponent(self) -> Any:
        name = self.rng.choices(self.names, self.weights)[0]
        if name == "self":
            return GreedyBot(self.shared["self"])
        return make_bot(name, self.info, self.rng.randrange(2**31))

    def _advance(self, ts: rl_environment.TimeStep) -> rl_environment.TimeStep:
        while not ts.last() and ts.observations["current_player"] != self.seat:
            mover = ts.observations["current_player"]
            ts = self.env.step([self.bots[mover].choose(meeple_state(self.env.get_state))])
        self.last = seated(ts, self.seat, self.n)
        return self.last

    def reset(self) -> rl_environment.TimeStep:
        self.seat = self.episodes % self.n
        self.episodes += 1
        self.bots = {p: self._opponent() for p in range(self.n) if p != self.seat}
        return self._advance(self.env.reset())

    def step(self, actions: list[int]) -> rl_environment.TimeStep:
        return self._advance(self.env.step(actions))

    def get_time_step(self) -> rl_environment.TimeStep:
        return self.last

    def deal(self) -> int:
        """The meeple seed of the current game (for tests: same ``--seed``, same deals)."""
        return meeple_state(self.env.get_state).seed


def make_envs(game: Any, seed: int, count: int, opponents: list[tuple[str, float]],
              shared: dict[str, Any]) -> list[VersusEnvironment]:
    """``count`` environments whose deals, opponents and seats follow from ``seed`` alone."""
    return [VersusEnvironment(game, seed * 1000 + i, opponents, shared) for i in range(count)]


def evaluate(policy: LearnedPolicy, game_id: str, players: int, options: dict[str, Any],
             opponent: str, games: int, seed: int) -> float:
    """Mean return of the greedy policy against ``opponent`` at every other seat: the same deals
    at every evaluation, the learner's seat rotating over them."""
    info = meeple.game_info(game_id)
    total = 0.0
    for g in range(games):
        seat = g % players
        state = meeple.make(game_id, players=players, seed=seed + g // players, **options)
        bots = {p: make_bot(opponent, info, seed + 7919 * g + p) for p in range(players)}
        bots[seat] = GreedyBot(policy)
        while not state.is_over():
            state.apply(bots[state.to_move].choose(state))
        total += state.returns()[seat]
    return total / games


def default_out(game: str, players: int) -> Path:
    """A new file in the working folder: ``learned-<game>-<n>p.npz``, numbered if taken."""
    path = Path(f"learned-{game}-{players}p.npz")
    k = 2
    while path.exists():
        path = Path(f"learned-{game}-{players}p-{k}.npz")
        k += 1
    return path


def eta(start: float, done: int, episodes: int, max_minutes: float) -> float:
    """Seconds left: whichever comes first, the episode budget at the rate so far or the clock."""
    elapsed = time.monotonic() - start
    by_clock = max(0.0, max_minutes * 60 - elapsed)
    if done == 0:
        return by_clock
    return min(by_clock, (episodes - done) * elapsed / done)


def add_training_arguments(parser: argparse.ArgumentParser, *, episodes: int, max_minutes: float,
                           opponents: str, hidden: str, envs: int, eval_every: int,
                           eval_games: int) -> None:
    """The PPO run's options (this script's and ``train_trickarus.py``'s), with their defaults."""
    parser.add_argument("--episodes", type=int, default=episodes, help="training games (at most)")
    parser.add_argument("--max-minutes", type=float, default=max_minutes,
                        help="stop (keeping the best point so far) after this long")
    parser.add_argument("--opponents", default=opponents,
                        help="opponent levels with weights: meeple levels, or self (the learner)")
    parser.add_argument("--hidden", default=hidden, help="hidden layer sizes, comma-separated")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate")
    parser.add_argument("--envs", type=int, default=envs, help="games stepped together")
    parser.add_argument("--steps", type=int, default=32, help="steps per env per update")
    parser.add_argument("--entropy", type=float, default=0.01, help="PPO's entropy coefficient")
    parser.add_argument("--eval-every", type=int, default=eval_every, help="episodes")
    parser.add_argument("--eval-games", type=int, default=eval_games, help="games per opponent per point")
    parser.add_argument("--seed", type=int, default=0)


def opponent_weights(spec: str, info: meeple.GameInfo) -> list[tuple[str, float]]:
    """``random:3,self:1`` as (level, weight) pairs; a bad level fails now, not mid-run."""
    opponents = []
    for part in spec.split(","):
        name, _, w = part.partition(":")
        if name.strip() != "self":
            make_bot(name.strip(), info, 0)
        opponents.append((name.strip(), float(w or 1)))
    return opponents


def seed_everything(seed: int) -> None:
    """Python's, numpy's (PPO shuffles its minibatches with np.random) and PyTorch's generators."""
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)


def relu_agent(hidden: tuple[int, ...]) -> type:
    """OpenSpiel's PPO network with ReLU layers of ``hidden`` units: what `LearnedPolicy` runs."""
    from open_spiel.python.pytorch.ppo import PPOAgent, layer_init
    from torch import nn

    class ReluAgent(PPOAgent):
        def __init__(self, num_actions: int, observation_shape: tuple[int, ...], device: str) -> None:
            super().__init__(num_actions, observation_shape, device)

            def mlp(width: int, std: float) -> nn.Sequential:
                layers: list[nn.Module] = []
                n = int(np.prod(observation_shape))
                for h in hidden:
                    layers += [layer_init(nn.Linear(n, h)), nn.ReLU()]
                    n = h
                return nn.Sequential(*layers, layer_init(nn.Linear(n, width), std=std))

            self.actor = mlp(num_actions, 0.01)
            self.critic = mlp(1, 1.0)

    return ReluAgent


def export(agent: Any) -> dict[str, np.ndarray]:
    """The agent's policy network as the arrays ``w0, b0, ...`` (PyTorch's out x in layout)."""
    from torch import nn

    linear = [m for m in agent.network.actor if isinstance(m, nn.Linear)]
    arrays = {}
    for i, layer in enumerate(linear):
        arrays[f"w{i}"] = layer.weight.detach().numpy().astype(np.float32).copy()
        arrays[f"b{i}"] = layer.bias.detach().numpy().astype(np.float32).copy()
    return arrays


def collect(agent: Any, envs: Any, time_step: Any, steps: int, returns: list[float]) -> Any:
    """``steps`` steps of every environment, the learner (player 0) acting; each finished game's
    return goes to ``returns``. The last time step, for PPO's ``learn``."""
    for _ in range(steps):
        outputs = agent.step(time_step)
        time_step, reward, done, ended = envs.step(outputs, reset_if_done=True)
        agent.post_step([r[0] for r in reward], done)
        returns.extend(ts.rewards[0] for ts in ended if ts.last())
    return time_step


def main(argv: list[str] | None = None) -> None:
    from open_spiel.python.pytorch.ppo import PPO
    from open_spiel.python.vector_env import SyncVectorEnv
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="trickarus", help="a meeple game id")
    parser.add_argument("--players", type=int, default=None, help="default: the fewest the game takes")
    parser.add_argument("--option", "-o", action="append", default=[], help="game option NAME=VALUE")
    add_training_arguments(parser, episodes=1_000_000, max_minutes=10.0, opponents="random:3,self:1",
                           hidden="128", envs=8, eval_every=2000, eval_games=60)
    parser.add_argument("--out", type=Path, default=None, help="the weights (.npz); default: a new file here")
    parser.add_argument("--plot", type=Path, default=None, help="the learning curve (.png), if wanted")
    args = parser.parse_args(argv)

    info = meeple.game_info(args.game)
    players = args.players or min(info.player_counts)
    options: dict[str, Any] = {}
    for pair in args.option:
        name, _, raw = pair.partition("=")
        try:
            options[name] = json.loads(raw)
        except json.JSONDecodeError:
            options[name] = raw
    options = info.resolve_options(players, options)
    out = args.out or default_out(args.game, players)
    console = Console()
    seed_everything(args.seed)
    opponents = opponent_weights(args.opponents, info)
    hidden = tuple(int(h) for h in args.hidden.split(","))
    game = load(args.game, players, **options)
    size = game.observation_tensor_size()
    meta = {"game": args.game, "players": players, "options": options}
    shared: dict[str, Any] = {}
    envs = SyncVectorEnv(make_envs(game, args.seed, args.envs, opponents, shared))
    agent = PPO(input_shape=(size,), num_actions=info.num_actions, num_players=players,
                player_id=0, num_envs=args.envs, steps_per_batch=args.steps, learning_rate=args.lr,
                gamma=1.0, gae_lambda=0.95, entropy_coef=args.entropy, agent_fn=relu_agent(hidden))
    shared["self"] = LearnedPolicy(meta, export(agent))

    eval_seed = 1_000_000 + args.seed
    curve: list[tuple[int, float, float]] = []
    recent: list[float] = []
    best: tuple[float, int, dict[str, np.ndarray]] | None = None
    start, cpu_start = time.monotonic(), time.process_time()
    episode, next_eval, next_snapshot = 0, args.eval_every, 0
    columns = (TextColumn("[bold]training"), BarColumn(), TextColumn("{task.fields[games]} games"),
               TimeElapsedColumn(), TextColumn("ETA {task.fields[eta]}"), TextColumn("{task.fields[status]}"))
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("train", total=1.0, games=0, eta="?", status="")
        time_step = envs.reset()
        while True:
            time_step = collect(agent, envs, time_step, args.steps, recent)
            episode = len(recent)
            agent.learn(time_step)
            elapsed = time.monotonic() - start
            left = eta(start, episode, args.episodes, args.max_minutes)
            progress.update(task, completed=min(1.0, elapsed / (elapsed + left)) if elapsed + left else 1.0,
                            games=episode, eta=time.strftime("%M:%S", time.gmtime(left)))
            if episode >= next_snapshot:  # "self" plays the learner's recent policy
                shared["self"] = LearnedPolicy(meta, export(agent))
                next_snapshot = episode + 1000
            finished = episode >= args.episodes or elapsed > args.max_minutes * 60
            if episode >= next_eval or finished:
                next_eval = episode + args.eval_every
                arrays = export(agent)
                vs_random = evaluate(LearnedPolicy(meta, arrays), args.game, players, options,
                                     "random", args.eval_games, eval_seed)
                train_mean = float(np.mean(recent[-2000:])) if recent else float("nan")
                curve.append((episode, vs_random, train_mean))
                if best is None or vs_random > best[0]:
                    best = (vs_random, episode, arrays)
                progress.update(task, status=f"vs random {vs_random:+.2f}")
                console.log(f"{episode} games: mean return vs random {vs_random:+.3f} "
                            f"(greedy, {args.eval_games} fixed deals), training games {train_mean:+.3f}")
            if finished:
                break
    assert best is not None
    minutes = (time.monotonic() - start) / 60
    cpu_minutes = (time.process_time() - cpu_start) / 60  # a loaded machine gives less than minutes
    save_policy(out, args.game, players, best[2], options, trainer="examples/train.py",
                episodes=episode, kept=best[1], minutes=round(minutes, 2),
                cpu_minutes=round(cpu_minutes, 2), seed=args.seed,
                hidden=list(hidden), opponents=args.opponents)
    if args.plot is not None:
        plot(curve, args.plot, f"{info.title} {players}p, PPO {args.hidden} ReLU, {episode} games "
                               f"in {minutes:.0f} min (kept: {best[1]})")
    console.print(f"kept the policy after {best[1]} of {episode} games -> {out} "
                  f"({out.stat().st_size:,} bytes); {minutes:.1f} minutes ({cpu_minutes:.1f} of CPU). Play it: "
                  f"meeple arena {args.game} --players {players} --bots random,learned:{out}")


def plot(curve: list[tuple[int, float, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.plot([c[0] for c in curve], [c[1] for c in curve], marker="o", label="vs random (greedy, fixed deals)")
    ax.plot([c[0] for c in curve], [c[2] for c in curve], color="grey", alpha=0.6, label="training games")
    ax.axhline(0.0, color="black", lw=0.8, ls=":")
    ax.set_xlabel("training games")
    ax.set_ylabel("mean return")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


if __name__ == "__main__":
    main()
