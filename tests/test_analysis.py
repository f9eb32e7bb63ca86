"""Post-game analysis (`meeple.analyse`): it flags decisions known to be much worse, judges only
from the seat's information, and gives the same figures for the same record."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

import meeple
from meeple.bots import make_bot
from meeple.bots.analysis import Analysis, _Evaluator, analyse, analysis_points, merge
from meeple.core import State
from meeple.games.karvi import analysis as karvi_analysis
from meeple.games.karvi.bot import HeuristicBot, PlannerBot
from meeple.games.scarvus import rules as scarvus_rules
from meeple.games.scarvus.search import ceiling, floor
from meeple.games.zarcana import rules as zarcana_rules

Blunder = Callable[[State], "tuple[int, int | None] | None"]
"""A scripted blunder: in a position where the rule applies, the bad move and a move the same
rule says is better (None where no move is surely better), else None."""


def _outcomes(state: State) -> list[tuple[int, State]]:
    out = []
    for a in state.legal_actions():
        c = state.clone()
        c.apply(a)
        out.append((a, c))
    return out


def trickarus_into_the_sun(s) -> tuple[int, int | None] | None:
    """Late in a round (three cards or fewer in hand), last to play to the trick and highest on
    the track: one card wins the trick and flies into the sun, another loses it. Flying Into the
    Sun: the flier falls to just below the bottom-most player; End of Game: the game ends after
    this round, so there is no time to climb back."""
    me = s.to_move
    if len(s.trick) != s.players - 1 or s.hands[me].bit_count() > 3 or s.pos[me] != max(s.pos):
        return None
    outs = _outcomes(s)
    bad = [a for a, c in outs if c.sun_reached and not s.sun_reached and c.pos[me] < s.pos[me]]
    safe = [a for a, c in outs if c.pos[me] == s.pos[me]]
    return (bad[0], safe[0]) if bad and safe else None


def savage_bowl_above_target(s) -> tuple[int, int | None] | None:
    """Already holding the target number of tricks: one card takes the trick, another does not.
    The Flow of a Round, step 4: winning the (target+1)th trick eliminates at once, and an
    eliminated player scores nothing for the round."""
    me = s.to_move
    if s.won[me] != s.target:
        return None
    outs = _outcomes(s)
    bad = [a for a, c in outs if c.out >> me & 1]
    safe = [a for a, c in outs if not c.out >> me & 1 and (c.trick_no != s.trick_no or c.round != s.round)]
    return (bad[0], safe[0]) if bad and safe else None


def _scarvus_bid(number: int, colour: int) -> int:
    return scarvus_rules.BID + (number - 1) * scarvus_rules.NC + colour


def scarvus_over_the_known_total(s) -> tuple[int, int | None] | None:
    """A bid two above the largest total the colour can have as the bidder sees it (its own
    card, the revealed ones and the highest values for every hidden hand). Challenge Step: the
    bid is unsafe when the total is less than the bid, and then the bidder takes the feather; so
    any challenge wins. Better: a bid no higher than the cards the bidder sees (always safe)."""
    if s.phase != scarvus_rules.BIDDING:
        return None
    legal = set(s.legal_actions())
    colours = [c for c in range(scarvus_rules.NC) if s.in_play >> c & 1]
    safe = [b for c in colours for n in range(1, floor(s, s.to_move, c) + 1) if (b := _scarvus_bid(n, c)) in legal]
    for c in colours:
        bid = _scarvus_bid(ceiling(s, s.to_move, c) + 2, c)
        if bid in legal:
            return bid, (safe[0] if safe else None)
    return None


def zarcana_declare_when_behind(s) -> tuple[int, int | None] | None:
    """Declaring the final round while six points or more behind the leader. Playing, option 8:
    after a declaration everyone gets one more turn, the declarer the last, then the game ends
    (Scoring and Winning: the most points wins), too few turns to catch up. No rule names one
    other move as surely better (the leader may declare next anyway, and then drawing cards is
    worth no more than declaring), so this blunder has no control."""
    if zarcana_rules.DECLARE not in s.legal_actions():
        return None
    scores = s.scores()
    return (zarcana_rules.DECLARE, None) if max(scores) - scores[s.to_move] >= 6 else None


def karvi_refuse_a_points_card(s) -> tuple[int, int | None] | None:
    """Late in the game, taking no trade card when a face-up one gives points at once. Trade
    cards: "When you get a trade card, choose 1 of the faceup trade cards ... you immediately get
    the bonus". Better: the card with the most points."""
    if len(s.history) <= 100:
        return None
    return _karvi_refusal(s)


def _karvi_refusal(s) -> tuple[int, int | None] | None:
    labels = {a: s.describe(a) for a in s.legal_actions()}
    none = [a for a, label in labels.items() if label == "take no trade card"]
    points = {a: int(m.group(1)) for a, label in labels.items() if (m := re.search(r"\(\+(\d+) points\)", label))}
    return (none[0], max(points, key=points.__getitem__)) if none and points else None


def karvi_refuse_a_points_card_mid_game(s) -> tuple[int, int | None] | None:
    """The same refusal before the last round, where a cut playout stops at the round's end and
    the points are judged by `AnalysisHooks.score` (the card's points are a small share of a
    place so early, so a judge of places alone lets it pass)."""
    return _karvi_refusal(s) if s.round < s.rounds else None


def first_blunder(game: str, players: int, seed: int, blunder: Blunder,
                  good: bool = False) -> tuple[dict, int, int, int, int | None]:
    """Play the game by the `medium` level until ``blunder`` names a move; the record with that
    move played (``good``: the better move played instead), its index, the player, the bad move
    and the better one."""
    info = meeple.game_info(game)
    s = meeple.make(game, players=players, seed=seed)
    bots = [make_bot("medium", info, seed * 10 + p) for p in range(players)]
    while not s.is_over():
        if len(s.legal_actions()) > 1 and (found := blunder(s)) is not None:
            me, index = s.to_move, len(s.history)
            bad, better = found
            s.apply(better if good and better is not None else bad)
            return s.record(), index, me, bad, better
        s.apply(bots[s.to_move].choose(s))
    raise AssertionError(f"{game} seed {seed}: no such position")


SCRIPTED = [  # game, players, seed, blunder, depth (quick where its intervals see the blunder)
    ("trickarus", 4, 24, trickarus_into_the_sun, "quick"),
    ("trickarus", 4, 127, trickarus_into_the_sun, "quick"),
    ("trickarus", 3, 45, trickarus_into_the_sun, "quick"),
    ("savage_bowl", 4, 2, savage_bowl_above_target, "quick"),
    ("savage_bowl", 4, 4, savage_bowl_above_target, "quick"),
    ("scarvus", 3, 0, scarvus_over_the_known_total, "deep"),
    ("scarvus", 3, 1, scarvus_over_the_known_total, "deep"),
    ("zarcana", 3, 1, zarcana_declare_when_behind, "deep"),
    ("zarcana", 3, 2, zarcana_declare_when_behind, "deep"),
    ("karvi", 2, 26, karvi_refuse_a_points_card, "quick"),
    ("karvi", 2, 35, karvi_refuse_a_points_card, "quick"),
    ("karvi", 2, 1, karvi_refuse_a_points_card_mid_game, "quick"),
    ("karvi", 2, 2, karvi_refuse_a_points_card_mid_game, "quick"),
]


@pytest.mark.parametrize(("game", "players", "seed", "blunder", "depth"), SCRIPTED,
                         ids=[f"{g}-{n}p-{s}" for g, n, s, *_ in SCRIPTED])
def test_a_known_blunder_is_flagged(game, players, seed, blunder, depth):
    record, index, me, bad, _ = first_blunder(game, players, seed, blunder)
    result = analyse(record, me, depth, only=[index])
    (d,) = result.decisions
    assert d.index == index and d.chosen == bad
    assert d.mistake, d
    assert d.best != bad and d.best_label != d.chosen_label
    assert (d.kind == "place" and d.loss > 0) or (d.kind == "points" and d.score_loss > 0)
    assert "1 mistake cost about" in result.summary
    assert (" points" in result.summary) == (d.kind == "points")


@pytest.mark.parametrize(("game", "players", "seed", "blunder", "depth"), SCRIPTED,
                         ids=[f"{g}-{n}p-{s}" for g, n, s, *_ in SCRIPTED])
def test_the_better_move_in_a_blunder_position_costs_less(game, players, seed, blunder, depth):
    """The control of the test above: played instead of the blunder in the same position (so
    judged on the same sampled worlds), the move the same rule says is better gets a better
    expected place (or, at the same place, more points), and if it is flagged at all, for less
    than the blunder was. An analysis that flagged every move, or judged moves by noise, passes
    the blunder test but not this one."""
    record, index, me, bad, better = first_blunder(game, players, seed, blunder)
    if better is None:
        pytest.skip("no move in this position is surely better")
    (worse,) = analyse(record, me, depth, only=[index]).decisions
    record, *_ = first_blunder(game, players, seed, blunder, good=True)
    (d,) = analyse(record, me, depth, only=[index]).decisions
    assert d.chosen == better and worse.chosen == bad
    b, g = worse.choices[0], d.choices[0]
    assert (g.place, -(g.score or 0.0)) < (b.place, -(b.score or 0.0)), (g, b)
    assert not d.mistake or (d.loss, d.score_loss or 0.0) < (worse.loss, worse.score_loss or 0.0), (d, worse)


def _random_game(game: str, players: int, seed: int) -> dict:
    info = meeple.game_info(game)
    s = meeple.make(game, players=players, seed=seed)
    bots = [make_bot("random" if p == 0 else "medium", info, seed + p) for p in range(players)]
    while not s.is_over():
        s.apply(bots[s.to_move].choose(s))
    return s.record()


def test_same_record_same_analysis_and_a_decision_alone_matches_the_whole():
    record = _random_game("scarvus", 3, 5)
    calls: list[tuple[int, int]] = []
    first = analyse(record, 0, "quick", progress=lambda done, total: calls.append((done, total)))
    again = analyse(json.loads(json.dumps(record)), 0, "quick")
    assert json.dumps(first.to_json()) == json.dumps(again.to_json())
    points = analysis_points(record, 0)
    assert [d.index for d in first.decisions] == points and len(points) >= 3
    assert calls[0] == (0, len(points)) and calls[-1] == (len(points), len(points))
    alone = analyse(record, 0, "quick", only=[points[1]])
    assert alone.decisions[0] == first.decisions[1]
    assert first.curve == [(d.index, d.place) for d in first.decisions]
    assert first.final_place == record["result"]["ranking"][0]
    # A server analyses each decision as its own job and merges them; stored as JSON and read back.
    parts = [analyse(record, 0, "quick", only=[i]) for i in reversed(points)]
    merged = Analysis.from_json(json.loads(json.dumps(merge(parts).to_json())))
    assert merged.to_json() == first.to_json()


def test_worlds_are_the_seats_own_information_only(monkeypatch):
    """Every playout starts from a determinized world (salt != 0): the true deal is never used."""
    record = _random_game("savage_bowl", 4, 3)
    seen: list[int] = []
    original = _Evaluator.play_out

    def spy(self, world, action, me, seed):
        seen.append(world.salt)
        return original(self, world, action, me, seed)

    monkeypatch.setattr(_Evaluator, "play_out", spy)
    analyse(record, 1, "quick", only=analysis_points(record, 1)[:2])
    assert seen and all(salt != 0 for salt in seen)


def test_bad_arguments():
    record = _random_game("savage_bowl", 4, 1)
    with pytest.raises(ValueError, match="depth"):
        analyse(record, 0, "deepest")
    with pytest.raises(ValueError, match="seat"):
        analyse(record, 4)
    with pytest.raises(ValueError, match="not a decision"):
        analyse(record, 0, only=[analysis_points(record, 1)[0]])


def test_cli_analyse_json_and_table(tmp_path):
    from meeple.cli import app

    record = _random_game("scarvus", 3, 7)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    runner = CliRunner()
    done = runner.invoke(app, ["analyse", str(path), "--as", "0", "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout[done.stdout.index("{"):])
    assert data["seat"] == 0 and data["depth"] == "quick" and data["decisions"]
    assert data["summary"].endswith(".") and len(data["curve"]) == len(data["decisions"])
    table = runner.invoke(app, ["analyse", str(path), "--as", "0"])
    assert table.exit_code == 0 and data["summary"] in table.stdout
    bad = runner.invoke(app, ["analyse", str(path), "--as", "9"])
    assert bad.exit_code == 2


CORPUS = Path(__file__).parent / "data" / "corpus"


@pytest.mark.parametrize("game", [g["id"] for g in meeple.games()])
def test_meeple_analyse_on_a_stored_record_prints_the_same_twice(game, tmp_path):
    """Seeded from the record alone: `meeple analyse` in two interpreters with different hash
    seeds (set and dict orders of str differ) prints the same analysis of a stored game, cut
    after seat 0's second decision so that it stays short."""
    stored = json.loads((CORPUS / f"{game}.json").read_text())["games"][0]
    keys = ("players", "options", "seed", "actions")
    record = {"format": meeple.RECORD_FORMAT, "game": game, **{k: stored[k] for k in keys}}
    points = analysis_points(record, 0)[:2]
    record["actions"] = record["actions"][: points[-1] + 1]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    code = "import sys; from meeple.cli import app; sys.argv[0] = 'meeple'; app()"
    outs = []
    for hash_seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", code, "analyse", str(path), "--as", "0", "--json"],
            capture_output=True, text=True, timeout=600,
            env={**os.environ, "PYTHONHASHSEED": hash_seed,
                 "PYTHONPATH": str(Path(meeple.__file__).parents[1])},
        )
        assert done.returncode == 0, done.stderr
        outs.append(done.stdout)
    assert outs[0] == outs[1]
    data = json.loads(outs[0])
    assert [d["index"] for d in data["decisions"]] == points and data["final_place"] is None


def test_soft_place_is_an_expected_place():
    """`soft_place`: every player's expected place lies in [1, n] and they add up to 1 + ... + n
    (every pair is one ahead of the other), a larger value is a better place, a lead many
    spreads wide is near first, equal values share the middle."""
    from meeple.core import soft_place

    values = [12.0, 3.0, -4.0, 3.0]
    places = [soft_place(values, p, 10.0) for p in range(4)]
    assert sum(places) == pytest.approx(1 + 2 + 3 + 4)
    assert places[1] == pytest.approx(places[3])
    assert places[0] < places[1] < places[2]
    assert soft_place([100.0, 0.0, 0.0], 0, 5.0) == pytest.approx(1.0)
    assert soft_place([100.0, 0.0, 0.0], 1, 5.0) == pytest.approx(2.5)
    with pytest.raises(ValueError, match="spread"):
        soft_place(values, 0, 0.0)


@pytest.mark.parametrize(("game", "players"), [("zarcana", 3), ("karvi", 2)])
def test_cut_playouts_are_judged_by_an_expected_place_that_is_not_saturated(game, players):
    """Zarcana and Karvi judge a cut playout by `soft_place` of the position values: mid-game the
    places add up as places do, the leader by value is expected ahead, and a finished game is
    judged by its result."""
    info = meeple.game_info(game)
    place = info.analysis.place
    assert info.analysis.cut and place is not None
    s = meeple.make(game, players=players, seed=11)
    bots = [make_bot("medium", info, 11 + p) for p in range(players)]
    for _ in range(120):
        s.apply(bots[s.to_move].choose(s))
    got = [place(s, p) for p in range(players)]
    assert sum(got) == pytest.approx(players * (players + 1) / 2)
    assert all(1.0 < g < players for g in got)
    if game == "karvi":  # (Zarcana's judge plays two rounds on before it reads the values)
        values = karvi_analysis.values(s)
        assert got.index(min(got)) == values.index(max(values))
    while not s.is_over():
        s.apply(bots[s.to_move].choose(s))
    assert [place(s, p) for p in range(players)] == [float(r) for r in s.ranking()]


def _karvi_first_and_last_round_decisions(record: dict) -> tuple[int, int]:
    state = meeple.replay(record, upto=0)
    first = last = None
    for i, action in enumerate(record["actions"]):
        if state.to_move == 0 and len(state.legal_actions()) > 1:
            if state.round == 1 and first is None:
                first = i
            if state.round == state.rounds:
                last = i
        state.apply(action)
    assert first is not None and last is not None
    return first, last


def test_a_cut_analysis_judges_points_only_where_every_playout_reached_the_end():
    """Without `AnalysisHooks.score` (Karvi's taken away), a cut playout has no score: a
    first-round decision has no expected score, a last-round one (every playout reaches the end)
    has one for every candidate."""
    from meeple.bots.analysis import DEPTHS, _rng

    record = _random_game("karvi", 2, 4)
    ev = _Evaluator(meeple.game_info("karvi"), DEPTHS["quick"])
    ev.score = None  # as for a game without the hook
    first, last = _karvi_first_and_last_round_decisions(record)
    early, late = (
        ev.decision(meeple.replay(record, upto=i), 0, record["actions"][i], _rng(record, 0, "quick", i))
        for i in (first, last)
    )
    assert all(c.score is None for c in early.choices) and early.score_loss is None
    assert all(c.score is not None for c in late.choices) and late.score_loss is not None


def test_karvi_cut_playouts_have_an_expected_score():
    """With Karvi's `AnalysisHooks.score`, a first-round decision (every playout cut at the
    round's end) has an expected score for every candidate, and the score loss is measured; the
    hook reads a finished game's result and the planner's value before."""
    info = meeple.game_info("karvi")
    score = info.analysis.score
    assert score is not None
    record = _random_game("karvi", 2, 4)
    first, last = _karvi_first_and_last_round_decisions(record)
    (early,) = analyse(record, 0, "quick", only=[first]).decisions
    assert all(c.score is not None for c in early.choices) and early.score_loss is not None
    first_state = meeple.replay(record, upto=first)
    assert score(first_state, 0) == HeuristicBot.value(first_state, 0)
    last_state = meeple.replay(record, upto=last)  # the last round: the final scoring lines
    assert score(last_state, 0) == PlannerBot._final_value(last_state, 0)
    assert score(last_state, 0) != HeuristicBot.value(last_state, 0)
    end = meeple.replay(record)
    assert [score(end, p) for p in range(2)] == [float(x) for x in end.scores()]
