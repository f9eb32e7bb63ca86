"""The end of a game explains itself: every game's final view carries ``final_scoring``, per
player a list of ``[label, points]`` lines, in the game's words, that add up to `scores()`.

Random games of every game, player count and scoring mode (seeded loops), each test naming the
rulebook section whose steps the lines follow.
"""

from __future__ import annotations

import random
import re

import pytest

import meeple

# Options that change what is scored, played at every player count that takes them.
MODES: dict[str, list[dict[str, object]]] = {
    "trickarus": [{}, {"mode": "cooperative"}, {"mode": "cooperative", "coop_landed": "on_ground"}],
    "savage_bowl": [{}, {"chameleons": False}],
    "scarvus": [{}, {"feathers": 5}, {"lives": 2}],
    "zarcana": [{}, {"tiebreak": True}],
    "karvi": [{}, {"draft_start": True, "less_luck": True}],
}
SEEDS = {"trickarus": 6, "savage_bowl": 3, "scarvus": 4, "zarcana": 4, "karvi": 2}
# What a player never reads in a label: identifiers, JSON, "None".
IDENT = re.compile(r"[{}\[\]\"\\_]|\b(None|True|False|null)\b")


def random_game(game: str, players: int, seed: int, **options: object) -> meeple.State:
    state = meeple.make(game, players=players, seed=seed, **options)
    rng = random.Random(seed)
    while not state.is_over():
        state.apply(rng.choice(state.legal_actions()))
    return state


def finished_games(game: str):
    info = meeple.game_info(game)
    for options in MODES[game]:
        for players in info.player_counts:
            for seed in range(SEEDS[game]):
                try:
                    yield random_game(game, players, seed, **options)
                except (meeple.BadPlayerCount, meeple.BadOption):
                    break  # a mode this player count does not take (co-op needs 3+)


def check_lines_add_up(game: str) -> int:
    """Each seat's and the spectator's final view carries the same lines; per player they sum to
    the score; each label is words. Returns how many games were checked."""
    n = 0
    for state in finished_games(game):
        n += 1
        scores = state.scores()
        final = state.view(None)["final_scoring"]
        assert final is not None and len(final) == state.players
        for p in range(state.players):
            assert state.view(p)["final_scoring"] == final
        for p, lines in enumerate(final):
            assert lines, (p, state)
            for label, points in lines:
                assert isinstance(label, str) and label.strip() and not IDENT.search(label), label
                assert isinstance(points, (int, float))
            assert sum(points for _, points in lines) == pytest.approx(scores[p]), (p, lines, scores)
    return n


def test_trickarus_lines_are_the_scoring_track_or_the_team_landing() -> None:
    """Trickarus, Advancing Along the Scoring Track ("the player highest on the Scoring Track is the
    winner") and Co-operative Mode ("1 million points for every player who lands safely")."""
    assert check_lines_add_up("trickarus") >= 30
    wordings, reached = set(), 0
    for seed, track in [(s, t) for s in range(6) for t in (None, 4)]:  # 4: a short track, the sun in reach
        state = random_game("trickarus", 4, seed, mode="cooperative", track=track)
        lines = state.view(None)["final_scoring"]
        assert all(ls == lines[0] for ls in lines)  # one team, one result
        assert len(lines[0]) == 1 and lines[0][0][1] == 1_000_000 * state.landed()
        wordings.add("million" in lines[0][0][0] if state.sun_reached else "sun" in lines[0][0][0])
        reached += state.sun_reached
    assert wordings == {True} and 0 < reached < 12


def test_savage_bowl_lines_are_base_and_bonus_points_round_by_round() -> None:
    """Savage Bowl, End-of-Round Scoring: Base Points (by round, for exactly the target number of
    tricks) and Bonus Points (a Runaway Champ card kept to the round's end)."""
    assert check_lines_add_up("savage_bowl") >= 8
    state = random_game("savage_bowl", 5, 2)
    lines = state.view(0)["final_scoring"]
    rounds = len(state.view(None)["round_results"])
    for p, ls in enumerate(lines):
        assert {int(re.match(r"Round (\d+)", label).group(1)) for label, _ in ls} == set(range(1, rounds + 1))
        assert sum(pts for label, pts in ls if "Bonus" in label) == sum(
            r["gained"][p] for r in state.view(None)["round_results"]) - sum(
            pts for label, pts in ls if "Base" in label)


def test_scarvus_lines_are_each_feather() -> None:
    """Scarvus, How to Win: "each player totals their points using the singed (-2 each) and
    burnt (-5 each) feathers"; Fight in the Skies: Lives left, the fallen by when they fell."""
    assert check_lines_add_up("scarvus") >= 30
    state = random_game("scarvus", 5, 3)
    view = state.view(None)
    for p, ls in enumerate(view["final_scoring"]):
        feathers = view["feathers"][p]
        assert sum(1 for label, _ in ls if label == "Singed feather") == feathers["singed"]
        assert sum(1 for label, _ in ls if label == "Burnt feather") == feathers["burnt"]


def test_zarcana_lines_are_each_occupied_card() -> None:
    """Zarcana, Scoring and Winning: "You score points for each card on the board that your
    pyramids occupy by yourself. If two players have pyramids on the same card, neither gets
    points for it." """
    assert check_lines_add_up("zarcana") >= 8
    state = random_game("zarcana", 3, 1)
    sole = state.sole_cards()
    for p, ls in enumerate(state.view(None)["final_scoring"]):
        scored = [label for label, pts in ls if label.endswith("occupied alone")]
        assert len(scored) == len(sole[p])


def test_karvi_lines_explain_the_difference_from_the_scoring_track() -> None:
    """Karvi, End of the Game and Final Scoring: the scoring track, then each rune stone, combat
    strength, trade tiles squared, beer, provisions, gold and cards, resources."""
    assert check_lines_add_up("karvi") >= 6
    state = random_game("karvi", 3, 4)
    view = state.view(None)
    for p, ls in enumerate(view["final_scoring"]):
        track = view["players"][p]["points"]
        assert ls[0] == ["Scoring track: points scored during the game", track]
        stones = sum(1 for spot in view["players"][p]["rune_spots"] if spot)
        assert sum(1 for label, _ in ls if "rune stone" in label.lower()) == stones
        rest = sum(pts for _, pts in ls[1:])
        assert rest == sum(state.final_lines(p).values())  # the difference the end panel shows


def test_no_final_scoring_before_the_end() -> None:
    for game in MODES:
        state = meeple.make(game, players=meeple.game_info(game).player_counts[-1], seed=0)
        state.apply(state.legal_actions()[0])
        assert state.view(None)["final_scoring"] is None
        assert state.view(0)["final_scoring"] is None
