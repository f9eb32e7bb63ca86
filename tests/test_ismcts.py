"""ISMCTS: it decides from its player's information only, searches correctly, and has its knob."""

from __future__ import annotations

import random
from typing import Any

import pytest

import meeple
from contract import midgame_states
from meeple.bots import KNOB_LEVELS, make_bot
from meeple.bots.ismcts import (
    ISMCTSBot,
    _playout,
    leaf_returns,
    parse_knob,
    rollout_policy_for,
)
from meeple.core import GameInfo, SearchHooks, State

GAMES = [g["id"] for g in meeple.games()]


@pytest.mark.parametrize("game", GAMES)
def test_ismcts_never_reads_hidden_information(game: str) -> None:
    """Two worlds that differ only in what the mover cannot see get the very same search.

    Each is a determinization of one real position for the mover, so the mover's view is equal
    while other hands and future draws differ. Under one bot seed the chosen action and every
    root visit count must agree: any read of hidden state would show up as a difference.
    """
    checked = differed = 0
    for seed in range(3):
        for state in midgame_states(game, seed, stops=2):
            me = state.to_move
            assert me is not None
            a = state.determinize(me, random.Random(1))
            b = state.determinize(me, random.Random(2))
            assert a.view(me) == b.view(me), "determinize must keep the mover's view"
            if not _determinize_reads_only_the_view(a, b, me):
                pytest.xfail(
                    f"{game}: determinize's sample depends on the hidden layout, not only on the "
                    "mover's information (a pool gathered in hidden order, then shuffled: sort it "
                    "first), so a fixed seed cannot show ISMCTS's independence; see the spy test"
                )
            others = [p for p in range(state.players) if p != me]
            differed += any(a.view(p) != b.view(p) for p in others) or a.salt != b.salt
            bot_a = ISMCTSBot(seed=7, iterations=24, max_seconds=None)
            bot_b = ISMCTSBot(seed=7, iterations=24, max_seconds=None)
            assert bot_a.choose(a) == bot_b.choose(b)
            assert bot_a.last is not None and bot_b.last is not None
            assert bot_a.last.visits == bot_b.last.visits
            checked += 1
    assert checked >= 3
    assert differed, "the test needs worlds whose hidden parts differ"


def _determinize_reads_only_the_view(a: State, b: State, me: int) -> bool:
    """Whether one rng seed maps the two worlds to the same determinization (as it should)."""
    x, y = a.determinize(me, random.Random(9)), b.determinize(me, random.Random(9))
    return all(x.view(p) == y.view(p) for p in [None, *range(a.players)])


class _Spy:
    """Wraps a real state and records which of its attributes the bot touches."""

    def __init__(self, state: State) -> None:
        self._state, self.touched = state, set()

    def __getattr__(self, name: str) -> Any:
        self.touched.add(name)
        return getattr(self._state, name)


@pytest.mark.parametrize("game", GAMES)
def test_ismcts_touches_the_real_state_only_through_determinize(game: str) -> None:
    """On the real state ISMCTS asks only whose turn it is, the legal moves and determinize:
    every world it searches is a determinization for the mover, never the real deal."""
    for state in midgame_states(game, seed=5, stops=2):
        spy = _Spy(state)
        ISMCTSBot(seed=1, iterations=10, max_seconds=None).choose(spy)  # type: ignore[arg-type]
        assert spy.touched <= {"to_move", "legal_actions", "determinize"}, spy.touched
        assert "determinize" in spy.touched


@pytest.mark.parametrize("game", GAMES)
def test_ismcts_plays_legal_moves_and_spends_its_budget(game: str) -> None:
    state = midgame_states(game, seed=11, stops=1)[0]
    bot = ISMCTSBot(seed=3, iterations=25, max_seconds=None)
    action = bot.choose(state)
    assert action in state.legal_actions()
    assert bot.last is not None and bot.last.iterations == 25
    assert sum(bot.last.visits.values()) == 25
    assert state.history == midgame_states(game, seed=11, stops=1)[0].history  # untouched


# ----- a tiny game with a known best move, to check the search itself ---------------------------
class _NimState(State):
    """Two players take 1 or 2 from a pile; who takes the last stone wins. From 4, take 1."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.pile = options["pile"]
        self.to_move = 0
        self.winner: int | None = None

    def legal_actions(self) -> list[int]:
        return [] if self.to_move is None else [a for a in (1, 2) if a <= self.pile]

    def _apply(self, action: int) -> None:
        self.pile -= action
        if self.pile == 0:
            self.winner, self.to_move = self.to_move, None
        else:
            self.to_move = 1 - self.to_move

    def scores(self) -> list[float]:
        return [float(self.winner == p) for p in range(2)]

    def view(self, player: int | None) -> dict[str, Any]:
        return {"pile": self.pile, "to_move": self.to_move}

    def _copy(self) -> _NimState:
        new = self._copy_core()  # (a compiled State refuses object.__new__)
        new.pile, new.to_move, new.winner = self.pile, self.to_move, self.winner
        return new

    def _resample_hidden(self, player: int, rng: random.Random) -> None:
        pass  # nothing is hidden

    def action_to_json(self, action: int) -> dict[str, Any]:
        return {"take": action}

    def describe(self, action: int) -> str:
        return f"take {action}"


NIM = GameInfo(
    id="nim-test",
    title="Nim",
    description="test game",
    player_counts=(2,),
    options=(),
    num_actions=3,
    state_factory=_NimState,
    hidden_information=False,
)


@pytest.mark.parametrize(("pile", "best"), [(4, 1), (5, 2), (7, 1), (8, 2)])
def test_ismcts_finds_the_winning_move_for_the_player_to_move(pile: int, best: int) -> None:
    """Rewards go to the player who moved at each node: a mix-up would pick the losing take."""
    for mover in (0, 1):
        state = _NimState(2, 0, {"pile": pile + (0 if mover == 0 else 1)})
        if mover == 1:
            state.apply(1)  # player 0 takes 1, leaving `pile` for player 1
        assert state.to_move == mover
        assert ISMCTSBot(seed=1, iterations=400, max_seconds=None).choose(state) == best


def test_rollout_policy_hook_is_used_when_a_game_gives_one() -> None:
    """A game may give SearchHooks.rollout_policy; without one the playout is uniform random."""
    calls: list[int] = []

    def take_two_when_possible(state: State, rng: random.Random) -> int:
        calls.append(1)
        return max(state.legal_actions())

    def nim(search: SearchHooks) -> GameInfo:
        return GameInfo(
            id="nim-test",
            title="Nim",
            description="",
            player_counts=(2,),
            options=(),
            num_actions=3,
            state_factory=_nim_factory,
            search=search,
        )

    info = nim(SearchHooks(rollout_policy=take_two_when_possible))
    assert rollout_policy_for(info) is take_two_when_possible
    random_rollouts = nim(SearchHooks(rollout_policy=take_two_when_possible, rollout="random"))
    assert make_bot("ismcts:30", random_rollouts, seed=0).rollout_policy is None  # type: ignore[attr-defined]
    bot = make_bot("ismcts:30", info, seed=0)
    bot.choose(_NimState(2, 0, {"pile": 9}))
    assert calls, "the game's policy drove the playouts"
    assert rollout_policy_for(nim(SearchHooks())) is None


def _nim_factory(players: int, seed: int, options: dict[str, Any]) -> State:
    return _NimState(players, seed, {"pile": 9, **options})


_nim_factory.__module__ = "nim_test_pkg.rules"


def test_levels_and_knob() -> None:
    """Old name `ismcts` (now level `hard`: a budget, no clock); `ismcts:N` sets iterations,
    `ismcts:Xs` a time budget."""
    assert "ismcts" in KNOB_LEVELS
    info = meeple.game_info("trickarus")
    default = make_bot("ismcts", info, seed=0)
    assert isinstance(default, ISMCTSBot) and default.iterations and default.max_seconds is None
    strong = make_bot("ismcts:2000", info, seed=0)
    assert (
        isinstance(strong, ISMCTSBot) and strong.iterations == 2000 and strong.max_seconds is None
    )
    timed = make_bot("ismcts:0.25s", info, seed=0)
    assert isinstance(timed, ISMCTSBot) and timed.seconds == 0.25 and timed.iterations is None
    assert parse_knob("10") == {"iterations": 10}
    assert parse_knob("0.5s:heuristic") == {"seconds": 0.5, "rollout": "heuristic"}
    with_heuristic = make_bot("ismcts:50:heuristic", info, seed=0)
    assert isinstance(with_heuristic, ISMCTSBot) and with_heuristic.rollout_policy is not None
    plain = make_bot("ismcts:50:random", info, seed=0)
    assert isinstance(plain, ISMCTSBot) and plain.rollout_policy is None
    assert parse_knob("d40:300") == {"depth": 40, "iterations": 300}
    cut = make_bot("ismcts:d25", info, seed=0)
    assert isinstance(cut, ISMCTSBot) and cut.rollout_depth == 25 and cut.max_seconds is None
    for bad in ("", "x", "-3", "0s", "5:6", "5:heuristic:random", "d0", "d3:d4"):
        with pytest.raises(ValueError):
            parse_knob(bad)
    with pytest.raises(ValueError, match="levels"):
        make_bot("mcts:5", info, seed=0)


def test_cut_off_playouts_are_judged_by_the_running_scores() -> None:
    """A playout cut at depth d stops after d actions; mid-game its utility ranks the scores."""
    state = meeple.make("trickarus", players=3, seed=4)
    world = state.determinize(0, random.Random(0))
    _playout(world, random.Random(0), None, depth=5)
    assert len(world.history) == 5 and not world.is_over()
    world.pos = [3, 7, 3]  # running scores: player 1 leads, 0 and 2 share second
    assert leaf_returns(world) == [0.0, 1.0, 0.0]  # shared 2nd of 3 is the middle utility
    _playout(world, random.Random(0), None)
    assert world.is_over() and leaf_returns(world) == world.returns()


def test_game_evaluation_judges_cut_off_playouts() -> None:
    """SearchHooks.evaluate replaces the running-score utility for a playout cut before the end."""
    state = meeple.make("trickarus", players=3, seed=4)
    world = state.determinize(0, random.Random(0))
    _playout(world, random.Random(0), None, depth=5)

    def favour_last(s: State) -> list[float]:
        return [-1.0, -1.0, 1.0]

    assert leaf_returns(world, favour_last) == [-1.0, -1.0, 1.0]
    _playout(world, random.Random(0), None)
    assert leaf_returns(world, favour_last) == world.returns()  # the real end always wins


def test_root_bias_follows_the_heuristic_until_the_evidence_says_otherwise() -> None:
    """With the bias the heuristic's move wins close calls; without it the search decides alone.

    In Nim from a pile of 5 the only winning take is 2. A prior that always prefers taking 1
    wins the vote at a tiny budget, and loses it once the search has seen enough playouts.
    """
    state = _NimState(2, 0, {"pile": 5})

    def take_one(s: State) -> int:
        return 1

    def bot(iterations: int, weight: float) -> ISMCTSBot:
        return ISMCTSBot(
            seed=3, iterations=iterations, max_seconds=None, prior=take_one, prior_weight=weight
        )

    assert bot(400, 0.0).choose(state) == 2
    assert bot(6, 50.0).choose(state) == 1  # few iterations: the bias decides
    assert bot(3000, 1.0).choose(state) == 2  # many: the search overrules a wrong prior
    assert parse_knob("300:b1.5") == {"iterations": 300, "prior": 1.5}
    assert parse_knob("b0") == {"prior": 0.0}
    for bad in ("b", "b-1", "bx"):
        with pytest.raises(ValueError):
            parse_knob(bad)
    info = meeple.game_info("trickarus")
    biased = make_bot("ismcts:50:b2", info, seed=0)
    assert isinstance(biased, ISMCTSBot) and biased.prior is not None and biased.prior_weight == 2
    unbiased = make_bot("ismcts:50:b0", info, seed=0)
    assert isinstance(unbiased, ISMCTSBot) and unbiased.prior is None


def test_candidates_hook_narrows_the_tree_not_the_playouts() -> None:
    """SearchHooks.candidates limits the edges the tree may take; the choice comes from them only."""
    state = _NimState(2, 0, {"pile": 5})
    seen: list[list[int]] = []

    def only_take_one(s: State) -> list[int]:
        seen.append(s.legal_actions())
        return [1]

    bot = ISMCTSBot(seed=3, iterations=200, max_seconds=None, candidates=only_take_one)
    assert bot.choose(state) == 1  # 2 wins from a pile of 5, but the tree may not consider it
    assert bot.last is not None and set(bot.last.visits) == {1}
    assert seen and all(1 in legal for legal in seen)
    assert ISMCTSBot(seed=3, iterations=200, max_seconds=None).choose(state) == 2


def test_prior_hooks_pick_the_guiding_level_from_the_game() -> None:
    """SearchHooks.prior turns the root bias on; SearchHooks.prior_bot names which of the game's
    levels guides it."""

    class TakeOne:
        name = "take-one"

        def __init__(self, seed: int) -> None:
            pass

        def choose(self, state: State) -> int:
            return 1

    def nim(search: SearchHooks) -> GameInfo:
        return GameInfo(
            id="nim-test", title="Nim", description="", player_counts=(2,), options=(),
            num_actions=3, state_factory=_nim_factory, bots={"take-one": TakeOne}, search=search,
        )  # fmt: skip

    assert make_bot("ismcts:6", nim(SearchHooks()), seed=0).prior is None  # type: ignore[attr-defined]
    no_guide = nim(SearchHooks(prior=50.0))
    assert make_bot("ismcts:6", no_guide, seed=0).prior is None  # type: ignore[attr-defined]  # no heuristic level to follow
    info = nim(SearchHooks(prior=50.0, prior_bot="take-one"))
    guided = make_bot("ismcts:6", info, seed=3)
    assert isinstance(guided, ISMCTSBot) and guided.prior_weight == 50.0
    assert guided.choose(_NimState(2, 0, {"pile": 5})) == 1  # the guide's move, at this budget
    assert make_bot("ismcts:6:b0", info, seed=0).prior is None  # type: ignore[attr-defined]


def test_horizon_knob_cuts_playouts_where_the_games_key_changes() -> None:
    """Knob ``h`` uses the game's SearchHooks.horizon (Trickarus: the round): a playout stops as soon
    as the round differs from the root's, so the search sees the round's end, not the game's."""
    info = meeple.game_info("trickarus")
    assert parse_knob("3000:h") == {"iterations": 3000, "horizon": True}
    with pytest.raises(ValueError):
        parse_knob("h:h")
    cut = make_bot("ismcts:40:h", info, seed=0)
    assert isinstance(cut, ISMCTSBot) and cut.horizon is not None
    plain = make_bot("ismcts:40", info, seed=0)
    assert isinstance(plain, ISMCTSBot) and plain.horizon is None
    state = meeple.make("trickarus", players=3, seed=4)
    world = state.determinize(0, random.Random(0))
    _playout(world, random.Random(0), None, horizon=cut.horizon, key=state.round)
    assert not world.is_over() and world.round == state.round + 1  # stopped at the next deal
    assert len(world.history) == 39  # 13 tricks of 3 cards: the whole first round, no more
    # The search runs with it and its playouts never pass the round's end.
    rounds: list[int] = []

    def spy(s: State, rng: random.Random) -> int:
        rounds.append(s.round)  # type: ignore[attr-defined]
        legal = s.legal_actions()
        return legal[rng.randrange(len(legal))]

    bot = ISMCTSBot(seed=1, iterations=60, rollout_policy=spy, horizon=cut.horizon)
    assert bot.choose(state) in state.legal_actions()
    assert rounds and set(rounds) == {state.round}
