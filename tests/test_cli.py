"""The `meeple` command, driven as a newcomer would: a subprocess with typed input."""

from __future__ import annotations

import json
import subprocess
import sys

import meeple


def meeple_cmd(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "meeple.cli", *args],
        input=stdin, capture_output=True, text=True, timeout=120,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin", "TERM": "dumb"},
    )


def test_play_a_whole_game_with_bad_input_then_replay(tmp_path):
    record_path = tmp_path / "game.json"
    typed = "xyz\n0\n99\n" + "1\n" * 40  # three bad answers, then always the first choice
    done = meeple_cmd("play", "trickarus", "--players", "2", "--seat", "0", "--bots", "random",
                      "--seed", "3", "--save", str(record_path), stdin=typed)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("is not one of") == 3  # each bad answer got a message and a new prompt
    assert "P1 (random)" in out and "Game over" in out and "Result" in out
    record = json.loads(record_path.read_text())
    state = meeple.replay(record)
    assert state.is_over() and record["meta"]["seats"] == {"1": "random"}
    assert record["result"]["ranking"] == state.ranking()

    shown = meeple_cmd("replay", str(record_path), "--as", "1")
    assert shown.returncode == 0, shown.stderr
    assert "P1's view" in shown.stdout and f"#{len(record['actions'])} " in shown.stdout


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
