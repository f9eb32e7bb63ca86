"""The `meeple` command, driven as a newcomer would: a subprocess with typed input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import meeple


def meeple_cmd(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "meeple.cli", *args],
        input=stdin, capture_output=True, text=True, timeout=120,
        # the meeple under test (this checkout), not whichever one the venv has installed
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", "TERM": "dumb",
             "PYTHONPATH": str(Path(meeple.__file__).parents[1])},
    )


def test_play_a_whole_game_with_bad_input_then_replay(tmp_path):
    record_path = tmp_path / "game.json"
    typed = "xyz\n0\n99\n" + "1\n" * 40  # three bad answers, then always the first choice
    done = meeple_cmd("play", "trickarus", "--players", "2", "--seat", "0", "--bots", "random",
                      "--seed", "3", "--save", str(record_path), stdin=typed)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("is not one of") == 3  # each bad answer got a message and a new prompt
    # the log names the other seat as the table does ("Bot 2 (random)"), the reader "you"
    assert "Bot 2 (random) plays" in out and "You play" in out and "Player 2" not in out.split("Game over")[0]
    assert "Game over" in out and "Final scoring" in out
    record = json.loads(record_path.read_text())
    state = meeple.replay(record)
    assert state.is_over() and record["meta"]["seats"] == {"1": "random"}
    assert record["result"]["ranking"] == state.ranking()

    shown = meeple_cmd("replay", str(record_path), "--as", "1")
    assert shown.returncode == 0, shown.stderr
    assert "Player 2's view" in shown.stdout and f"#{len(record['actions'])} " in shown.stdout
    assert "You play" in shown.stdout and "Final scoring" in shown.stdout


def test_the_end_of_a_game_prints_how_each_score_was_made(tmp_path):
    """`meeple play` ends with the final scoring table: each player's lines (the game's
    `final_scoring`) and their total, the same numbers as the record's scores."""
    record_path = tmp_path / "karvi.json"
    done = meeple_cmd("play", "karvi", "--players", "2", "--seat", "-1", "--bots", "random",
                      "--seed", "5", "--save", str(record_path))
    assert done.returncode == 0, done.stderr
    table = done.stdout.split("Final scoring")[1]
    record = json.loads(record_path.read_text())
    for line in ("Scoring track", "Combat strength", "Trade tiles", "total"):
        assert line in table
    for p, score in enumerate(record["result"]["scores"]):
        assert f"Bot {p + 1} (random)" in table
        assert f" {score:g} " in table
    assert "Player 1 " not in done.stdout and "Player 2 " not in done.stdout.split("You are watching")[1]


def test_list_shows_every_game():
    done = meeple_cmd("list")
    assert done.returncode == 0
    for g in meeple.games():
        assert g["id"] in done.stdout


def test_bad_game_or_option_is_a_clear_error():
    done = meeple_cmd("play", "chess")
    assert done.returncode == 2 and "trickarus" in done.stdout
    done = meeple_cmd("play", "trickarus", "-o", "mode=solo")
    assert done.returncode == 2 and "competitive" in done.stdout


def test_input_ending_early_saves_the_unfinished_game(tmp_path):
    record_path = tmp_path / "part.json"
    done = meeple_cmd("play", "trickarus", "--players", "3", "--seed", "1", "--save", str(record_path), stdin="1\n")
    assert done.returncode == 1 and "not finished" in done.stdout
    assert not meeple.replay(json.loads(record_path.read_text())).is_over()


def test_watching_bots_shows_the_spectator_view(tmp_path):
    done = meeple_cmd("play", "trickarus", "--players", "3", "--seat", "-1", "--bots", "random", "--seed", "2",
                      "--save", str(tmp_path / "watch.json"))
    assert done.returncode == 0, done.stderr
    assert "You are watching" in done.stdout and "Your hand" not in done.stdout
    assert meeple_cmd("play", "trickarus", "--players", "3", "--seat", "5").returncode == 2


def test_a_choice_can_be_typed_as_words_of_its_label_or_as_json():
    from meeple.cli import _match_choice

    state = meeple.make("trickarus", players=4, seed=1)
    legal = state.legal_actions()
    labels = [state.describe(a) for a in legal]
    target = legal[0]
    words = labels[0].removeprefix("play ")
    assert _match_choice(state, words, legal, labels) == target
    assert _match_choice(state, json.dumps(state.action_to_json(target)), legal, labels) == target
    assert _match_choice(state, "no such card", legal, labels) is None
    assert _match_choice(state, "99", legal, labels) is None


def test_words_match_in_any_order_and_a_day_night_value_by_its_day_value():
    """``rain 6`` picks "play Rain 6/4"; words are a subset of the label's."""
    from meeple.cli import _label_words, _match_choice

    assert {"play", "rain", "6/4", "6"} <= _label_words("play Rain 6/4")
    labels = ["play Rain 6/4", "play Rain 7/3", "play Sun 6/4", "place a small pyramid on (15,16)"]
    legal = [10, 11, 12, 13]
    for typed, want in (("rain 6", 10), ("6 RAIN", 10), ("rain 6/4", 10), ("sun 6", 12),
                        ("15,16", 13), ("pyramid (15,16)", 13)):
        assert _match_choice(None, typed, legal, labels) == want, typed
    assert _match_choice(None, "6", legal, labels) is None  # fits two: say more
    assert _match_choice(None, "rain 4", legal, labels) is None  # the night value is not the card's


def test_play_picks_a_random_seed_unless_given_and_prints_it(tmp_path):
    seeds = set()
    for i in range(2):
        done = meeple_cmd("play", "trickarus", "--players", "3", "--seat", "-1", "--bots", "random",
                          "--save", str(tmp_path / f"w{i}.json"))
        assert done.returncode == 0, done.stderr
        record = json.loads((tmp_path / f"w{i}.json").read_text())
        assert f"--seed {record['seed']}" in done.stdout  # printed, so the game can be replayed
        seeds.add(record["seed"])
    assert len(seeds) == 2


def test_serve_banner_names_the_public_url_or_the_machines_addresses():
    from meeple.cli_serve import banner

    assert banner("127.0.0.1", 8000, None) == ["meeple: serving on http://127.0.0.1:8000/"]
    lines = banner("0.0.0.0", 8000, None)
    assert "0.0.0.0" not in "".join(lines[1:]) and any("http://127.0.0.1:8000/" in x for x in lines)
    assert any("https://games.example.org/" in x for x in banner("0.0.0.0", 8000, "https://games.example.org"))
