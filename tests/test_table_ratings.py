"""The end panel's ratings: a finished rated table tells each account's shown rating before and
after the game (``GET /api/tables/<id>/ratings``); an unrated table says so and shows none."""

from __future__ import annotations

from server_util import create, wait_for
from test_accounts import c, play_two, seated_pair, url  # noqa: F401  (c and url are fixtures)


def test_a_rated_table_shows_each_accounts_rating_before_and_after(c):  # noqa: F811
    users, names, tid = seated_pair(c)
    end = play_two(c, tid, users, [0, 1])
    assert end["status"] == "over"
    got: dict = {}
    wait_for(lambda: got.update(c.get(f"/api/tables/{tid}/ratings").json()) or got.get("done"))
    assert got["rated"] is True
    rows = {r["seat"]: r for r in got["results"]}
    assert [rows[s]["username"] for s in (0, 1)] == names
    for s in (0, 1):
        r = rows[s]
        assert r["place"] == end["ranking"][s]
        assert r["before"] == 0 and r["after"] == r["before"] + r["delta"]  # newcomers start at 0
    winner = end["ranking"].index(1)
    assert rows[winner]["after"] > rows[winner]["before"]
    prof = c.get(f"/api/players/{names[winner]}").json()
    assert prof["ratings"][0]["rating"] == rows[winner]["after"]


def test_a_table_with_bots_is_not_rated_and_shows_no_ratings(c):  # noqa: F811
    t = create(c, game="trickarus", players=2,
               seats=[{"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}])
    wait_for(lambda: c.get(f"/api/tables/{t['id']}").json()["status"] == "over")
    got = c.get(f"/api/tables/{t['id']}/ratings").json()
    assert got["rated"] in (False, None) and got["results"] == []
