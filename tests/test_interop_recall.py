"""The OpenSpiel information-state tensor is perfect recall: it is a function of the information
state string, and two different information state strings never give the same tensor.

The hunt for collisions is built to find them: from positions of random games it resamples the
worlds a player cannot tell apart (`resample_from_infostate`), then plays short random
continuations in each. Continuations from indistinguishable worlds often lead to the same view
by different routes (the same trick won with the cards in other seats, a hidden discard), which
is where an encoding without memory collides. Every game and player count.
"""

from __future__ import annotations

import random

import pytest

import meeple
from contract import config_id, configs

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip("pyspiel")

from meeple.interop import openspiel as mos  # noqa: E402

pytestmark = pytest.mark.interop

CONFIGS = [(g["id"], p) for g in meeple.games() for p in g["players"]]
IDS = [f"{g}-{p}p" for g, p in CONFIGS]


def _step(state: pyspiel.State, rng: random.Random) -> None:
    if state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    else:
        state.apply_action(rng.choice(state.legal_actions()))


def hunt(
    game: pyspiel.Game,
    seed: int,
    prefixes: int = 6,
    worlds: int = 3,
    branches: int = 4,
    depth: int = 6,
):
    """States for the collision check: positions along random games, worlds resampled for the
    player to move, and short random continuations in each (every intermediate state kept)."""
    rng = random.Random(seed)
    sampler = rng.random  # resample_from_infostate draws its seed from this
    out = []
    for k in range(prefixes):
        state = game.new_initial_state()
        for a in mos.seed_actions(rng.randrange(2**32)):
            state.apply_action(a)
        length = rng.randrange(1, 3 * (k + 1) * depth)
        for _ in range(length):
            if state.is_terminal():
                break
            _step(state, rng)
        if state.is_terminal():
            continue
        p = state.current_player()
        starts = [state] + [state.resample_from_infostate(p, sampler) for _ in range(worlds)]
        for start in starts:
            out.append(start)
            for _ in range(branches):
                s = start.clone()
                for _ in range(rng.randrange(1, depth + 1)):
                    if s.is_terminal():
                        break
                    _step(s, rng)
                    out.append(s.clone())
    return out


def check_perfect_recall(game: pyspiel.Game, states) -> int:  # type: ignore[no-untyped-def]
    """Same string -> same tensor, different strings -> different tensors, per player. Returns
    how many distinct information states were compared."""
    seen = 0
    for p in range(game.num_players()):
        by_string: dict[str, bytes] = {}
        by_tensor: dict[bytes, str] = {}
        for s in states:
            text = s.information_state_string(p)
            x = np.asarray(s.information_state_tensor(p), np.float32).tobytes()
            if text in by_string:
                assert by_string[text] == x, (
                    f"player {p}: one information state, two tensors\n{text[:300]}"
                )
                continue
            other = by_tensor.get(x)
            assert other is None, (
                f"player {p}: two information states, one tensor\n{text[-400:]}\n{other[-400:]}"
            )
            by_string[text] = x
            by_tensor[x] = text
        seen += len(by_string)
    return seen


@pytest.mark.parametrize(("game_id", "players"), CONFIGS, ids=IDS)
def test_information_state_tensor_is_perfect_recall(game_id, players):
    game = mos.load(game_id, players)
    states = hunt(game, seed=players)
    assert check_perfect_recall(game, states) > 3 * players


def test_old_style_tensor_would_fail_the_hunt():
    """The hunt is a real test: the previous tensor (the view plus a count per own action)
    gives two information states one tensor in Trickarus with 3 players (a trick's cards in
    other seats), where the recall tensor does not."""
    from meeple.interop import tensor

    game = mos.load("trickarus", 3)
    enc = tensor.encoding("trickarus", 3)
    states = hunt(game, seed=3)
    collided = False
    for p in range(3):
        seen: dict[bytes, str] = {}
        for s in states:
            m = mos.meeple_state(s)
            own = np.zeros(game.num_distinct_actions(), np.float32)
            for actor, a in zip(s._c.actors, m.history, strict=False):
                own[a] += actor == p
            text = s.information_state_string(p)
            collided |= (
                seen.setdefault(np.concatenate([enc.encode(m, p), own]).tobytes(), text) != text
            )
    assert collided
    check_perfect_recall(game, states)


@pytest.mark.parametrize("cfg", list(configs()), ids=config_id)
def test_records_fit_their_room_in_every_configuration(cfg):
    """No event kind, field, value or count outside the layout over random games in every
    option configuration (the layout's overflow slot stays 0: nothing goes to the digest), and
    every game ends where its rules end it."""
    game_id, players, options = cfg
    game = mos.load(game_id, players, **options)
    layout = game.recall
    assert layout is not None
    for seed in range(2):
        state = game.new_initial_state()
        for a in mos.seed_actions(1_000 + seed):
            state.apply_action(a)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        assert mos.meeple_state(state).is_over()
        for p in [None, *range(players)]:
            s = mos.meeple_state(state)
            own = [a for actor, a in zip(state._c.actors, s.history, strict=False) if actor == p]
            assert layout.encode(s, own, p)[layout.overflow] == 0.0


def test_a_record_past_its_room_goes_on_in_the_digest(monkeypatch):
    """With little room (here 6 own actions and 3 events of each kind) the game still plays to
    its end; what does not fit sets the overflow flag and goes into the digest, so the tensor
    stays perfect recall (the collision hunt passes) past the room."""
    import dataclasses

    from meeple.interop import recall

    big = recall.layout("scarvus", 3)
    kinds = {k: dataclasses.replace(v, cap=3) for k, v in big.kinds.items()}
    small = dataclasses.replace(big, own_cap=6, kinds=kinds, _cache={})
    monkeypatch.setattr(mos, "layout", lambda *args: small)
    game = pyspiel.load_game("meeple_scarvus", {"players": 3})
    assert game.max_game_length() == mos.MAX_GAME_LENGTH + mos.SEED_BYTES
    state = game.new_initial_state()
    for a in mos.seed_actions(5):
        state.apply_action(a)
    rng = random.Random(5)
    digests = set()
    while not state.is_terminal():
        x = np.asarray(state.information_state_tensor(state.current_player()))
        if x[small.overflow]:
            digests.add(x[small.overflow + 1 :].tobytes())
        state.apply_action(rng.choice(state.legal_actions()))
    assert mos.meeple_state(state).is_over() and sorted(state.returns()) != [0.0, 0.0, 0.0]
    assert len(digests) > 10  # the digest moves with the record
    assert check_perfect_recall(game, hunt(game, seed=5, prefixes=8)) > 9


def test_public_information_state_is_the_spectators_record():
    from open_spiel.python.observation import make_observation

    game = mos.load("savage_bowl", 4)
    public = make_observation(
        game,
        pyspiel.IIGObservationType(
            perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
        ),
    )
    private = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    state = mos.from_meeple(meeple.make("savage_bowl", players=4, seed=3))
    rng = random.Random(3)
    for _ in range(30):
        state.apply_action(rng.choice(state.legal_actions()))
    public.set_from(state, 1)
    private.set_from(state, 1)
    assert set(private.dict) == {"observation", "own_actions", "log"}
    assert public.dict["own_actions"].sum() == 0 and private.dict["own_actions"].sum() > 0
    # Player 1's record holds their deal and discards, the spectator's does not.
    assert private.dict["log"].sum() > public.dict["log"].sum()
    first = public.tensor.copy()
    public.set_from(state, 2)
    np.testing.assert_array_equal(first, public.tensor)  # the same for everyone


@pytest.mark.parametrize("game_id", sorted({g for g, _ in CONFIGS}))
def test_every_event_stays_in_its_own_slot(game_id):
    """Each event writes only inside its slot, past the present flag and position, never twice
    to one place (overlapping slots would let one event hide another)."""
    from meeple.interop import recall

    players = max(meeple.game_info(game_id).player_counts)
    layout = recall.layout(game_id, players)
    state = meeple.make(game_id, players=players, seed=2)
    rng = random.Random(2)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    for p in range(players):
        for event in state.log(p, text=False):
            kind, idx, _, over = layout._event(event)
            assert kind is not None and not over
            assert len(set(idx)) == len(idx) and all(1 <= i < kind.slot for i in idx), event


@pytest.mark.parametrize(("game_id", "players"), CONFIGS, ids=IDS)
def test_incremental_tensor_equals_the_tensor_built_from_scratch(game_id, players):
    """The adapter extends each player's record as events and own actions come (never
    re-encoding the log), across clones (which share the record until one side moves) and
    resampled worlds; at every step, for every player and the spectator, the tensor equals
    `Layout.encode` of the whole record from scratch."""
    from open_spiel.python.observation import make_observation

    game = mos.load(game_id, players)
    layout = game.recall
    public = make_observation(
        game,
        pyspiel.IIGObservationType(
            perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
        ),
    )
    rng = random.Random(players)

    def check(state):
        m = mos.meeple_state(state)
        for p in range(players):
            own = [a for actor, a in zip(state._c.actors, m.history, strict=False) if actor == p]
            got = np.asarray(state.information_state_tensor(p), np.float32)
            np.testing.assert_array_equal(got, layout.encode(m, own, p))
        public.set_from(state, 0)
        np.testing.assert_array_equal(public.tensor, layout.encode(m, [], None))

    state = game.new_initial_state()
    for a in mos.seed_actions(rng.randrange(2**32)):
        state.apply_action(a)
    steps = 0
    while not state.is_terminal() and steps < 60:
        check(state)
        if steps % 7 == 3:  # a clone goes its own way; the original must not see its moves
            other = state.clone()
            for _ in range(3):
                if not other.is_terminal():
                    other.apply_action(rng.choice(other.legal_actions()))
                    check(other)
        if steps % 11 == 5:
            world = state.resample_from_infostate(state.current_player(), rng.random)
            for _ in range(3):
                if not world.is_terminal():
                    world.apply_action(rng.choice(world.legal_actions()))
                    check(world)
        state.apply_action(rng.choice(state.legal_actions()))
        steps += 1
    check(state)
