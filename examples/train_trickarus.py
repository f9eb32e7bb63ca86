"""Train Trickarus' ``learned`` level: OpenSpiel's PPO through meeple's OpenSpiel adapter.

    pip install torch==2.13.0     # a CPU build first (see docs/learned.md), then
    pip install -e '.[train]'     # meeple[interop] + PyTorch + dm-tree + matplotlib
    nice -n 10 python examples/train_trickarus.py     # 27 minutes on 2 cores: the shipped weights
    python examples/train_trickarus.py --episodes 20000 --out /tmp/learned.npz --plot /tmp/curve.png

This is the recipe of the weights Trickarus ships (`meeple.games.trickarus.learned`, its own
encoding, played without numpy). For any game at any count, on the game's own tensors, use
``examples/train.py``. The outputs go to the working folder; copying ``learned.npz`` into
``src/meeple/games/trickarus/`` is what replaces the shipped level.

The game is ``meeple_trickarus`` (2 players) from `meeple.interop.openspiel`, stepped by OpenSpiel's
own `rl_environment.Environment` (chance nodes, rewards, legal actions), 16 at a time in its
`SyncVectorEnv`; the learner is OpenSpiel's PyTorch `PPO` (legal-action masking, GAE), with one
ReLU hidden layer instead of its default tanh ones. One thing is changed in OpenSpiel's loop: the
environment's ``info_state`` is the learned bot's own encoding (`meeple.games.trickarus.learned.
features` of the player's view) instead of the adapter's generic tensor, because the weights must
stay bound to an encoding that ships with them and computes without numpy.

The opponent, drawn per game from ``--opponents`` (meeple's levels: ``random``, ``medium``, ...;
``self`` is the learner's recent greedy policy), moves inside the environment, so every time step
is the learner's; the learner alternates seats (seat 0 leads the first trick). Every
``--eval-every`` games the greedy policy is exported and played **by the bot's own
standard-library code** (`LearnedBot`) against ``random`` and ``medium`` on fixed deals, both
seats: the learning curve (``--plot``). The best evaluation point is what ``--out`` keeps.
docs/learned.md tells the whole story; run it under ``nice``: the machine may be shared.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from open_spiel.python import rl_environment
from open_spiel.python.pytorch.ppo import PPO
from open_spiel.python.vector_env import SyncVectorEnv
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from train import (
    MoverEnvironment,
    add_training_arguments,
    collect,
    eta,
    export,
    opponent_weights,
    relu_agent,
    seated,
    seed_everything,
)

import meeple
from meeple.bots import make_bot
from meeple.games.trickarus import learned
from meeple.interop.openspiel import load, meeple_state

GAME = "trickarus"
PLAYERS = 2
DEFAULT_OUT = Path(learned.WEIGHTS)  # the working folder, never the package
DEFAULT_PLOT = Path("trickarus_curve.png")
TimeStep, StepType = rl_environment.TimeStep, rl_environment.StepType


class FeatureEnvironment(MoverEnvironment):
    """OpenSpiel's RL environment whose ``info_state`` is `learned.features` of the mover's view
    (only the mover's, as in `train.MoverEnvironment`)."""

    def encode(self, state: Any, player: int) -> list[float]:
        return learned.features(meeple_state(state).view(player))


def as_policy(arrays: dict[str, np.ndarray]) -> learned.Policy:
    return learned.Policy.from_arrays({k: (v.shape, v.ravel().tolist()) for k, v in arrays.items()})


def evaluate(policy: learned.Policy, opponent: str, games: int, seed: int) -> float:
    """Mean return of the greedy policy (the shipped bot's code) against ``opponent``: the same
    ``games`` deals at every evaluation, the learner at seat 0 in even games, seat 1 in odd."""
    info = meeple.game_info(GAME)
    total = 0.0
    for g in range(games):
        seat = g % 2
        state = meeple.make(GAME, players=PLAYERS, seed=seed + g // 2)
        bots = {seat: learned.LearnedBot(policy=policy), 1 - seat: make_bot(opponent, info, seed + g)}
        while not state.is_over():
            state.apply(bots[state.to_move].choose(state))
        total += state.returns()[seat]
    return total / games


class VersusEnvironment:
    """One seat learns, the other is a meeple bot drawn per episode from ``opponents``.

    A single-agent view of `FeatureEnvironment` for OpenSpiel's PPO and `SyncVectorEnv`: the
    opponent's moves are played inside `step`, so every time step is the learner's turn (or the
    end), renumbered (`seated`) so that the learner is player 0. The learner's seat alternates
    episode by episode (seat 0 leads the first trick).
    """

    def __init__(self, seed: int, opponents: list[tuple[str, float]], shared: dict[str, object]) -> None:
        # rl_environment ignores ``seed`` when handed a game object: the sampler draws the deals
        self.env = FeatureEnvironment(load(GAME, PLAYERS),
                                      chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))
        self.rng = random.Random(seed)
        self.names = [n for n, _ in opponents]
        self.weights = [w for _, w in opponents]
        self.shared = shared  # "self": the learner's latest exported policy
        self.info = meeple.game_info(GAME)
        self.episodes = seed  # so that the envs of one vector start at different seats
        self.seat = 0
        self.bot: object = None
        self.last = None

    def _advance(self, ts: rl_environment.TimeStep) -> rl_environment.TimeStep:
        while not ts.last() and ts.observations["current_player"] != self.seat:
            ts = self.env.step([self.bot.choose(meeple_state(self.env.get_state))])  # type: ignore[attr-defined]
        self.last = seated(ts, self.seat, PLAYERS)
        return self.last

    def reset(self) -> rl_environment.TimeStep:
        self.seat = self.episodes % 2
        self.episodes += 1
        name = self.rng.choices(self.names, self.weights)[0]
        self.bot = (learned.LearnedBot(policy=self.shared["self"]) if name == "self"  # type: ignore[arg-type]
                    else make_bot(name, self.info, self.rng.randrange(2**31)))
        return self._advance(self.env.reset())

    def step(self, actions: list[int]) -> rl_environment.TimeStep:
        return self._advance(self.env.step(actions))

    def get_time_step(self) -> rl_environment.TimeStep:
        return self.last


def plot(curve: list[tuple[int, float, float, float]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    episodes = [c[0] for c in curve]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    ax.plot(episodes, [(c[1] + 1) / 2 for c in curve], marker="o", label="vs random (greedy, fixed deals)")
    ax.plot(episodes, [(c[2] + 1) / 2 for c in curve], marker="o", label="vs medium (greedy, fixed deals)")
    ax.plot(episodes, [(c[3] + 1) / 2 for c in curve], color="grey", alpha=0.6, label="training games (moving mean)")
    ax.axhline(0.5, color="black", lw=0.8, ls=":")
    ax.set_xlabel("training games")
    ax.set_ylabel("score share (win 1, tie 1/2)")
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_training_arguments(parser, episodes=250_000, max_minutes=27.0,
                           opponents="random:2,medium:1,self:1", hidden="256", envs=16,
                           eval_every=20_000, eval_games=200)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the weights (.npz)")
    parser.add_argument("--plot", type=Path, default=DEFAULT_PLOT, help="the learning curve (.png)")
    args = parser.parse_args()

    console = Console()
    seed_everything(args.seed)
    opponents = opponent_weights(args.opponents, meeple.game_info(GAME))
    shared: dict[str, object] = {}
    envs = SyncVectorEnv([VersusEnvironment(args.seed * 1000 + i, opponents, shared)
                          for i in range(args.envs)])
    agent = PPO(input_shape=(learned.FEATURES,), num_actions=learned.NUM_CARDS, num_players=PLAYERS,
                player_id=0, num_envs=args.envs, steps_per_batch=args.steps, learning_rate=args.lr,
                gamma=1.0, gae_lambda=0.95, entropy_coef=args.entropy,
                agent_fn=relu_agent(tuple(int(h) for h in args.hidden.split(","))))
    shared["self"] = as_policy(export(agent))

    eval_seed = 1_000_000 + args.seed
    curve: list[tuple[int, float, float, float]] = []
    recent: list[float] = []
    best: tuple[float, int, dict[str, np.ndarray]] | None = None
    start = time.monotonic()
    columns = (TextColumn("[bold]training"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
               TimeElapsedColumn(), TextColumn("ETA {task.fields[eta]}"), TextColumn("{task.fields[status]}"))
    episode = next_eval = next_snapshot = 0
    next_eval += args.eval_every
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("train", total=args.episodes, status="", eta="?")
        time_step = envs.reset()
        while episode < args.episodes:
            time_step = collect(agent, envs, time_step, args.steps, recent)
            progress.advance(task, len(recent) - episode)
            episode = len(recent)
            left = eta(start, episode, args.episodes, args.max_minutes)  # the sooner budget
            progress.update(task, eta=time.strftime("%M:%S", time.gmtime(left)))
            agent.learn(time_step)
            if episode >= next_snapshot:  # "self" plays the learner's recent policy
                shared["self"] = as_policy(export(agent))
                next_snapshot = episode + 2000
            out_of_time = time.monotonic() - start > args.max_minutes * 60
            if episode >= next_eval or episode >= args.episodes or out_of_time:
                next_eval += args.eval_every
                arrays = export(agent)
                policy = as_policy(arrays)
                vs_random = evaluate(policy, "random", args.eval_games, eval_seed)
                vs_medium = evaluate(policy, "medium", args.eval_games, eval_seed)
                train_mean = float(np.mean(recent[-3000:]))
                curve.append((episode, vs_random, vs_medium, train_mean))
                score = vs_random + vs_medium
                if best is None or score > best[0]:
                    best = (score, episode, arrays)
                progress.update(task, status=f"vs random {(vs_random + 1) / 2:.0%}, "
                                             f"vs medium {(vs_medium + 1) / 2:.0%}")
                console.log(f"{episode} games: score share vs random {(vs_random + 1) / 2:.3f}, "
                            f"vs medium {(vs_medium + 1) / 2:.3f}, training games {(train_mean + 1) / 2:.3f}")
            if out_of_time:
                console.log(f"[yellow]stopping at {episode} games: --max-minutes {args.max_minutes:g}")
                break
    assert best is not None
    minutes = (time.monotonic() - start) / 60
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, **best[2])
    png = args.plot
    png.parent.mkdir(parents=True, exist_ok=True)
    plot(curve, png, f"Trickarus 2p, OpenSpiel PPO {args.hidden} ReLU, {episode} games in {minutes:.0f} min "
                     f"(kept: {best[1]})")
    console.print(f"kept the policy after {best[1]} games -> {args.out} ({args.out.stat().st_size:,} bytes); "
                  f"learning curve {png}; {minutes:.1f} minutes")


if __name__ == "__main__":
    main()
