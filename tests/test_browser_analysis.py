""""Analyse my game" in Debian's chromium: a game played to its end by clicking, the end screen's
button, the analysis' progress, its curve, and a mistake that jumps the replay to that move;
an analysis stored by an older method is said to be so, and analysed again by a press.
Off unless MEEPLE_TEST_BROWSER=1 (the gate and the helpers are test_browser's)."""

from __future__ import annotations

import random
import time

import pytest
import sqlalchemy as sa

import meeple
from meeple.bots.analysis import METHOD_VERSION
from meeple.server.analysis import analyses_t
from test_browser import (  # noqa: F401  (browser: a fixture)
    Server,
    browser,
    create_in_lobby,
    new_page,
    play_until_end,
)

pytestmark = pytest.mark.browser


@pytest.fixture()
def own_server(tmp_path):
    srv = Server(f"sqlite:///{tmp_path / 'analysis.db'}")
    srv.start()
    yield srv
    srv.kill()


def test_analyse_my_game_then_jump_to_a_mistake(browser, own_server):  # noqa: F811
    errors: list[str] = []
    page = new_page(browser, errors)
    # Savage Bowl, clicking at random: a trick taken above the target is a sure mistake, and
    # random play takes one in nearly every game; the other seats are quick bots.
    tid = create_in_lobby(page, own_server.url, "savage_bowl", 4,
                          seats={1: "bot:medium", 2: "bot:medium", 3: "bot:medium"})
    play_until_end(page, random.Random(3))
    page.locator("#end").wait_for(state="visible")
    page.click("#analyse-link")
    page.wait_for_url(f"**/replay/{tid}?seat=0&analyse=1")
    page.wait_for_selector("#analysis-result .analysis-summary", timeout=300_000)
    summary = page.text_content("#analysis-result .analysis-summary")
    assert "mistake" in summary
    assert page.locator("#analysis-result svg.analysis-curve polyline").count() == 1
    mistakes = page.locator("#analysis-result li.mistake")
    assert mistakes.count() >= 1, summary
    assert page.locator("#analysis-result svg circle.mistake-dot").count() == mistakes.count()
    last = mistakes.nth(mistakes.count() - 1)
    index = int(last.get_attribute("data-index"))
    last.click()
    page.wait_for_function(f"() => document.getElementById('where').textContent.startsWith('move {index} of')")
    # the move the mistake was: the next one in the list of moves, as the replay shows it
    assert "better: " in last.text_content()
    # stored once: a reload shows it without starting again
    page.goto(f"{own_server.url}/replay/{tid}?seat=0")
    page.wait_for_selector("#analysis-result .analysis-summary")
    assert page.text_content("#analysis-result .analysis-summary") == summary
    assert not errors, errors


def test_an_analysis_of_an_older_method_says_so_and_is_analysed_again(browser, own_server):  # noqa: F811
    errors: list[str] = []
    page = new_page(browser, errors)
    page.goto(own_server.url + "/")
    made = page.request.post(own_server.url + "/api/tables", data={
        "game": "savage_bowl", "players": 4, "name": None,
        "seats": [{"kind": "bot", "level": "medium"}] * 4})
    assert made.ok, made.text()
    tid = made.json()["id"]
    deadline = time.monotonic() + 120
    while page.request.get(f"{own_server.url}/api/tables/{tid}").json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots' game did not end"
        time.sleep(0.2)
    # what a server of an older method stored: an analysis of none of the decisions
    record = page.request.get(f"{own_server.url}/api/tables/{tid}/record").json()
    old = meeple.analyse(record, 0, "quick", only=[]).to_json()
    engine = sa.create_engine(own_server.db)
    with engine.begin() as conn:
        conn.execute(analyses_t.insert().values(
            table_id=tid, seat=0, depth="quick", status="done", done=0, total=0, result=old,
            updated_at=time.time(), method=METHOD_VERSION - 1))
    engine.dispose()
    page.goto(f"{own_server.url}/replay/{tid}?seat=0")
    page.wait_for_selector("#analysis-result .analysis-summary")
    assert page.text_content("#analysis-result .analysis-summary") == old["summary"]
    assert "made with an older method" in page.text_content("#analysis-status")
    assert page.text_content("#analyse") == "Analyse again"
    page.click("#analyse")
    page.wait_for_function("() => !document.querySelector('#analysis-status').textContent.includes('older')")
    page.wait_for_selector("#analysis-result .analysis-summary", timeout=300_000)
    stored = page.request.get(f"{own_server.url}/api/tables/{tid}/analysis?seat=0").json()
    assert stored["method"] == METHOD_VERSION and not stored["outdated"] and stored["result"]["decisions"]
    assert page.text_content("#analysis-result .analysis-summary") == stored["result"]["summary"]
    assert page.text_content("#analyse") == "Analyse my game"
    page.reload()  # stored: shown at once, as current
    page.wait_for_selector("#analysis-result .analysis-summary")
    assert page.text_content("#analysis-status") == "" and page.text_content("#analyse") == "Analyse my game"
    assert not errors, errors
