"""The table and the ratings as a newcomer meets them, in Chromium (#51 items 8-11): a
turn that times out is the bot's move and says so; an away player's seat says what
happens next and when; a finished table's move log is whole, reachable by keyboard and
axe-clean, names trees as the rules do, counts in words and offers the record; ratings
read on a familiar scale, provisional games are counted, the chart has axes, and a page
explains them."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
from selenium.webdriver.remote.webdriver import WebDriver

from tests.e2e.browser import (
    accessibility_problems,
    find,
    needs_chromium,
    rendered,
    shown_text,
    status,
    texts,
    wait_for,
)
from tests.e2e.players import auth, create
from tests.e2e.system import System, extra_gateway
from tests.e2e.test_accounts import register, unique
from tests.e2e.test_fair_table import send, until
from tests.e2e.test_ratings import play_game, rated_games

pytestmark = needs_chromium


def said(driver: WebDriver, module: str, call: str) -> str:
    """What ``call`` (JavaScript on ``m``, the client's module) returns: a sentence."""
    return str(
        driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            f"import('/static/{module}').then((m) => done(String({call})));"
        )
    )


def svg_texts(driver: WebDriver, css: str) -> list[str]:
    """The text of SVG elements (they have no innerText)."""
    script = "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)"
    return [str(t) for t in driver.execute_script(script, css)]


def at_table(driver: WebDriver, base_url: str, game_id: str, seat: int, token: str) -> None:
    """Open the table as the seat's player (its token kept as the client keeps it)."""
    driver.get(f"{base_url}/")
    tokens = json.dumps({game_id: {"seat": seat, "token": token}})
    driver.execute_script(f"localStorage.setItem('raffe.tokens', {json.dumps(tokens)})")
    driver.get(f"{base_url}/#/games/{game_id}")


def over(driver: WebDriver) -> bool:
    return "Game over" in status(driver) or "won" in status(driver)


def test_a_turn_that_times_out_is_the_bots_move_and_the_log_says_so(
    page: WebDriver, system: System, http: httpx.Client
) -> None:
    """#51 item 8: a Giraffe Raffe turn timer runs out on a player with no apple: the
    game goes on (it ended before, "there was no legal play"), the player is still
    seated and the move log tells it in words."""
    game = create(
        http,
        "giraffe-raffe",
        [{"kind": "human"}, {"kind": "bot", "bot_level": "random"}],
        options={"turn_timer": 5, "dealer": 0},
    )
    gid, token = game["game_id"], game["tokens"]["0"]
    at_table(page, system.base_url, gid, 0, token)
    wait_for(lambda: "Your move" in status(page), 15, "the table did not load")
    told = "Time ran out for you; a bot played for you"
    wait_for(lambda: any(told in t for t in texts(page, "#move-log li")), 20, "not told")
    view = http.get(f"/v1/games/{gid}", headers=auth(token)).json()["view"]
    assert not view["status"]["over"], "a timeout ended a game the player could still play"
    assert "Game over" not in status(page)
    assert not view.get("table", {}).get("left")  # still seated


def test_an_away_player_is_said_to_have_a_bot_from_a_time(page: WebDriver) -> None:
    """#51 item 10: "away 43 s" told nothing of what comes: the seat line says when a
    bot plays for them, and at a table of two when the other may claim the win."""
    presence = {
        "1": {"state": "away", "since_ms": 1_000, "gone_at_ms": 121_000, "claim_from_ms": 181_000}
    }
    view = {"status": {"over": False, "to_act": [0]}, "table": None}
    call = (
        f"m.seatsBar({json.dumps(view)}, 0, (s) => s === 0 ? 'You' : 'Ben', "
        f"{json.dumps(presence)}, 2)"
    )
    text = rendered(page, "fairtable.js", call)
    assert "a bot plays for them from" in text and "you may claim the win from" in text, text


def finished_bots_game(http: httpx.Client, game: str, **options: Any) -> tuple[str, str]:
    """A game of three whose person left: the bots play it to the end. Its id and the
    person's token."""
    bots = [{"kind": "bot", "bot_level": "random"}] * 2
    made = create(http, game, [{"kind": "human"}, *bots], options=options)
    gid, token = made["game_id"], made["tokens"]["0"]
    assert send(http, gid, token, {"type": "leave"}).status_code == 200
    until(lambda: http.get(f"/v1/games/{gid}").json()["view"]["status"]["over"], 90)
    return gid, token


def test_a_finished_table_reads_whole_by_keyboard_and_offers_its_record(
    page: WebDriver, system: System, http: httpx.Client
) -> None:
    """#51 item 11: the move log kept the newest 40 entries in a box a keyboard could
    not reach (axe checked tables mid-game only), cut numbers of 10 and more, named
    trees `three`/`color`, said "1 cards"; a finished table now offers its record."""
    # A long Giraffometer game: every vote and every reveal is an entry.
    gid, token = finished_bots_game(http, "giraffometer", target=25)
    at_table(page, system.base_url, gid, 0, token)
    wait_for(lambda: over(page), 20, "not over")
    find(page, "#move-log li")
    log = page.find_element("css selector", "#move-log")
    assert log.get_attribute("tabindex") == "0"
    events = http.get(f"/v1/games/{gid}/events", params={"limit": 500}).json()["events"]
    reveals = sum(e["type"] == "RoundRevealed" for e in events)
    entries = texts(page, "#move-log li")
    assert len(entries) > 40 and len(entries) > reveals, (reveals, len(entries))
    padding = page.execute_script(
        "return parseFloat(getComputedStyle(document.getElementById('move-log')).paddingLeft)"
    )
    assert padding >= 40, padding  # room for "100." (1.5rem cut "10." at the left edge)
    problems = accessibility_problems(page)
    assert not problems, json.dumps(problems, indent=1)
    link = find(page, "#record-download")
    href = str(link.get_attribute("href"))
    assert href.endswith(f"/v1/games/{gid}/record") and link.get_attribute("download")
    assert http.get(f"/v1/games/{gid}/record").status_code == 200
    # A finished Giraffe Raffe table: its trees and counts as the rules say them.
    gid, token = finished_bots_game(http, "giraffe-raffe")
    at_table(page, system.base_url, gid, 0, token)
    wait_for(lambda: over(page), 20, "not over")
    find(page, ".tree strong")
    assert not accessibility_problems(page)
    board = shown_text(page, "#app")
    assert "Three of a Kind" in board and "Colour" in board
    assert not re.search(r"\b(three|color)\b", " ".join(texts(page, ".tree strong")))
    assert not re.search(r"\b1 (cards|apples)\b", board), board


def test_a_riff_raff_capsize_names_each_piece_once(page: WebDriver) -> None:
    """#51 item 11: every player has a "barrel 1": a capsize listed two as one piece
    twice; each piece is named with whose it is."""
    event = {
        "type": "PieceLoaded",
        "data": {
            "seat": 0,
            "piece": "s0-chest-0",
            "area": 2,
            "double": False,
            "outcome": {"fell": [{"id": "s2-barrel-0"}, {"id": "s0-barrel-0"}]},
        },
    }
    who = "(s) => ['You', 'Ann', 'Cy'][s]"
    text = said(page, "games/riff-raff.js", f"m.describe({json.dumps(event)}, {who})")
    assert "Cy's barrel 1, your barrel 1 fell" in text, text


def test_ratings_read_on_a_familiar_scale_with_their_provisional_games_and_a_help_page(
    page: WebDriver, system: System, http: httpx.Client
) -> None:
    """#51 item 9: after 2 games the player page showed "-3.12" and a line with no axes;
    the leaderboard said "No rated players yet" without a word of the provisional games,
    and "how ratings work" led to the API page."""
    ann = register(http, unique("Ann"), "ann's password")
    for _ in range(2):
        play_game(
            http,
            [{"kind": "human", "player": "me"}, {"kind": "bot", "bot_level": "random"}],
            {0: ann["token"]},
        )
    rated_games(http, ann["player_id"], 2)
    # A gateway that counts five provisional games (the suite's counts one).
    with extra_gateway(system, RAFFE_PROVISIONAL_GAMES="5") as five:
        base = str(five.base_url).rstrip("/")
        page.get(f"{base}/#/players/{ann['player_id']}")
        line = shown_text(page, "#ratings")
        rating = re.search(r": (\d{3,4}) after 2 rated games", line)
        assert rating and 1000 <= int(rating.group(1)) <= 2000, line
        assert "provisional: 3 more rated games" in line, line
        labels = svg_texts(page, "#rating-history text")
        assert "rated games" in labels and "rating" in labels, labels
        assert any(re.fullmatch(r"\d{3,4}", t) for t in labels), labels  # values on an axis
        assert not accessibility_problems(page)
        page.get(f"{base}/#/leaderboards/riff-raff?season=999")
        empty = shown_text(page, "#empty-board")
        assert "after 5 rated games" in empty, empty
        page.find_element("css selector", 'a[href="#/ratings"]').click()
        wait_for(lambda: "How ratings work" in shown_text(page, "h1"), 10)
        assert "1500" in shown_text(page, "#app") and "5 rated games" in shown_text(page, "#app")
        assert not accessibility_problems(page)
        page.set_window_size(390, 844)
        page.get(f"{base}/#/players/{ann['player_id']}")
        find(page, "#rating-history")
        assert not page.execute_script(
            "return document.documentElement.scrollWidth > window.innerWidth"
        ), "the player page scrolls sideways on a phone"
