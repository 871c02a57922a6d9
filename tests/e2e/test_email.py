"""Your turn, by e-mail (#52 item 5): an address gets nothing before its owner opened the
confirmation link sent to it; then one mail per turn with the table's link and a
one-click unsubscribe (RFC 8058) that stops them, or a daily digest. Against a real SMTP
server on loopback (aiosmtpd), with the whole system. And #52's done-criterion in two
browsers, where web push, e-mail and a webhook each tell one turn once."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from selenium.webdriver.support.ui import Select

from services.notifier.webhook import SIGNATURE, verify
from tests.e2e.browser import (
    accessibility_problems,
    browser,
    click,
    find,
    needs_chromium,
    shown_text,
    status,
    wait_for,
)
from tests.e2e.players import auth
from tests.e2e.receivers import MailReceiver, WebhookReceiver, mail_receiver, webhook_receiver
from tests.e2e.system import System, running_system
from tests.e2e.test_accounts import register, unique
from tests.e2e.test_browser import click_a_move, overflows
from tests.e2e.test_browser_accounts import sign_up
from tests.e2e.test_notifications import ENV, move, turn_based
from tests.e2e.test_push import Browser as PushBrowser

DIGEST_EVERY_S = 6  # a "daily" digest every 6 s here


@pytest.fixture(scope="module")
def mails() -> Iterator[MailReceiver]:
    with mail_receiver() as r:
        yield r


@pytest.fixture(scope="module")
def system(tmp_path_factory: pytest.TempPathFactory, mails: MailReceiver) -> Iterator[System]:
    env = {
        **ENV,  # webhooks and a push service on loopback
        "RAFFE_SMTP_HOST": mails.host,
        "RAFFE_SMTP_PORT": str(mails.port),
        "RAFFE_MAIL_FROM": "turns@raffe.test",
        "RAFFE_DIGEST_EVERY_S": str(DIGEST_EVERY_S),
        "RAFFE_REGISTRATIONS_PER_WINDOW": "1000",  # an account or two per test
    }
    with running_system(tmp_path_factory.mktemp("mail"), **env) as s:
        yield s


@pytest.fixture
def http(system: System) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=system.base_url, timeout=20) as client:
        yield client


def link(mail: Any, path: str) -> str:
    found = re.search(r"(http://\S+" + re.escape(path) + r"\S*)", mail.get_content())
    assert found, mail.get_content()
    return found.group(1)


def with_address(http: httpx.Client, mails: MailReceiver, confirm: bool = True) -> dict[str, Any]:
    me = register(http, unique("mailer"), "a long password")
    address = f"{me['player_id']}@players.test"
    put = http.put(
        "/v1/accounts/me/notifications/email", json={"address": address}, headers=auth(me["token"])
    )
    assert put.status_code == 202, put.text
    shown = {"address": address, "confirmed": False, "on": True}
    assert put.json() == {**shown, "when": "each_turn", "hour_utc": 8}
    (asked,) = mails.wait(address, 1)
    assert asked["Subject"] == "Confirm your address for Raffe"
    if confirm:
        opened = httpx.get(link(asked, "/v1/notifications/email/confirm"))
        assert opened.status_code == 200 and "confirmed" in opened.text.lower()
    return {**me, "address": address}


def test_nothing_is_mailed_before_the_address_is_confirmed(
    http: httpx.Client, mails: MailReceiver
) -> None:
    ann = with_address(http, mails, confirm=False)
    bo = with_address(http, mails)
    gid = turn_based(http, ann, bo)  # ann's turn: her address is not confirmed
    move(http, gid, ann)
    (told,) = mails.wait(bo["address"], 2)[1:]  # the confirmation, then the turn
    assert told["Subject"] == "Your turn in Giraffe Raffe."
    time.sleep(1.0)
    assert len(mails.to(ann["address"])) == 1  # the confirmation only
    state = http.get("/v1/accounts/me/notifications", headers=auth(ann["token"])).json()
    shown = {"address": ann["address"], "confirmed": False, "on": True}
    assert state["email"] == {**shown, "when": "each_turn", "hour_utc": 8}


def test_one_mail_a_turn_with_the_link_and_a_one_click_unsubscribe(
    http: httpx.Client, mails: MailReceiver
) -> None:
    cy, di = with_address(http, mails), with_address(http, mails)
    gid = turn_based(http, cy, di)
    turn = mails.wait(cy["address"], 2)[1]
    assert f"/#/games/{gid}" in turn.get_content()
    assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    unsubscribe = turn["List-Unsubscribe"].strip("<>")
    assert httpx.get(unsubscribe).status_code == 200  # a page: a link scanner stops nothing
    move(http, gid, cy)
    move(http, gid, di)
    mails.wait(cy["address"], 3)
    form = {"content-type": "application/x-www-form-urlencoded"}
    one_click = httpx.post(unsubscribe, content=b"List-Unsubscribe=One-Click", headers=form)
    assert one_click.status_code == 200, one_click.text
    state = http.get("/v1/accounts/me/notifications", headers=auth(cy["token"])).json()
    assert state["email"]["on"] is False
    move(http, gid, cy)
    move(http, gid, di)
    time.sleep(1.0)
    assert len(mails.to(cy["address"])) == 3  # unsubscribed: no more
    assert len(mails.to(di["address"])) == 1 + 2  # di's turns still come


def test_a_daily_digest_lists_the_games_still_awaiting_the_player_in_one_mail(
    http: httpx.Client, mails: MailReceiver
) -> None:
    """A player who asked for a daily digest gets no mail per turn: at the digest's hour
    (every 6 s here) one mail lists the games whose move is still theirs, and a game they
    moved in meanwhile is not in it; with nothing new, no more mails come."""
    ev, fa = with_address(http, mails), with_address(http, mails)
    schedule = {"when": "daily", "hour_utc": 8}
    daily = http.put(
        "/v1/accounts/me/notifications/email/schedule", json=schedule, headers=auth(ev["token"])
    )
    assert daily.status_code == 200, daily.text
    assert daily.json()["when"] == "daily" and daily.json()["confirmed"] is True
    while time.time() % DIGEST_EVERY_S > 0.5:  # just after a digest time: all in the next
        time.sleep(0.05)
    waiting = [turn_based(http, ev, fa) for _ in range(2)]  # ev's turn in each
    moved = turn_based(http, ev, fa)
    move(http, moved, ev)  # ev's turn came and went: not in the digest
    (digest,) = mails.wait(ev["address"], 2, timeout=DIGEST_EVERY_S * 3)[1:]
    assert digest["Subject"] == "Your move: 2 games await you at Raffe"
    text = digest.get_content()
    assert all(f"/#/games/{g}" in text for g in waiting) and f"/#/games/{moved}" not in text
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    time.sleep(DIGEST_EVERY_S + 1)
    assert len(mails.to(ev["address"])) == 2  # the confirmation and one digest
    assert len(mails.to(fa["address"])) == 2  # fa is mailed each turn: the moved game's


def test_a_schedule_needs_an_address(http: httpx.Client) -> None:
    me = register(http, unique("nodigest"), "a long password")
    path = "/v1/accounts/me/notifications/email/schedule"
    none = http.put(path, json={"when": "daily"}, headers=auth(me["token"]))
    assert none.status_code == 404 and none.json()["code"] == "no_address"
    late = http.put(path, json={"when": "daily", "hour_utc": 24}, headers=auth(me["token"]))
    assert late.status_code == 422


def test_bad_addresses_and_tokens_are_refused(http: httpx.Client) -> None:
    me = register(http, unique("nomail"), "a long password")
    bad = http.put(
        "/v1/accounts/me/notifications/email",
        json={"address": "not an address"},
        headers=auth(me["token"]),
    )
    assert bad.status_code == 422 and bad.json()["code"] == "bad_address"
    for path in ("/v1/notifications/email/confirm", "/v1/notifications/email/unsubscribe"):
        unknown = http.get(path, params={"token": "nope"})
        assert unknown.status_code == 404 and unknown.json()["code"] == "no_such_token"


@needs_chromium
def test_a_person_sets_their_address_on_the_account_page_and_confirms_it(
    system: System, mails: MailReceiver
) -> None:
    """The account page's "Tell me when it is my turn": an address typed, the link mailed
    to it opened in the browser, the page then says it is confirmed; axe clean."""
    page = browser()
    try:
        me = sign_up(page, system.base_url, unique("Ida"), "ida's password")
        address = f"{me['player_id']}@players.test"
        field = find(page, "#notify-email")
        field.send_keys(address)
        click(page, "#notify-email-save")
        wait_for(lambda: "on its way" in shown_text(page, "#notify-status"))
        (asked,) = mails.wait(address, 1)
        page.get(link(asked, "/v1/notifications/email/confirm"))
        assert "confirmed" in page.page_source.lower()
        page.get(system.base_url + "/#/account")
        wait_for(lambda: "(confirmed)" in shown_text(page, "#notify-title + p + div + div"))
        assert not accessibility_problems(page)
        # A daily digest instead of a mail per turn, at 07:00 of the browser's day.
        Select(find(page, "#notify-email-when")).select_by_value("daily")
        Select(find(page, "#notify-email-hour")).select_by_value("7")
        click(page, "#notify-email-schedule")
        wait_for(
            lambda: (
                "once a day" in shown_text(page, "#notify-status").lower()
                or "one mail a day" in shown_text(page, "#notify-status").lower()
            )
        )
        state = httpx.get(
            system.base_url + "/v1/accounts/me/notifications", headers=auth(me["token"])
        ).json()
        offset_min = page.execute_script("return new Date().getTimezoneOffset()")
        assert state["email"]["when"] == "daily"
        assert state["email"]["hour_utc"] == (7 * 60 + offset_min) // 60 % 24
        page.set_window_size(390, 844)  # on a phone: the section fits
        page.refresh()
        find(page, "#notify-email")
        assert not overflows(page), "the account page scrolls sideways on a phone"
        assert not accessibility_problems(page)
    finally:
        page.quit()


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    """A webhook receiver, and a push service (its own paths) on loopback."""
    with webhook_receiver() as r:
        yield r


def every_channel(
    http: httpx.Client, me: dict[str, Any], mails: MailReceiver, receiver: WebhookReceiver
) -> dict[str, Any]:
    """A confirmed address, a webhook and a browser's push subscription for ``me``."""
    address = f"{me['player_id']}@players.test"
    path, headers = "/v1/accounts/me/notifications", auth(me["token"])
    assert http.put(f"{path}/email", json={"address": address}, headers=headers).is_success
    (asked,) = mails.wait(address, 1)
    assert httpx.get(link(asked, "/v1/notifications/email/confirm")).status_code == 200
    hook = {"url": receiver.url + f"/hook/{me['player_id']}", "format": "raffe"}
    made = http.put(f"{path}/webhook", json=hook, headers=headers)
    assert made.status_code == 200, made.text
    pusher = PushBrowser(receiver.url + f"/push/{me['player_id']}")
    assert http.put(f"{path}/push", json=pusher.subscription(), headers=headers).is_success
    return {"address": address, "secret": made.json()["secret"], "push": pusher}


@needs_chromium
def test_two_people_over_days_one_closes_the_page_and_each_channel_tells_the_turn_once(
    system: System, http: httpx.Client, mails: MailReceiver, receiver: WebhookReceiver
) -> None:
    """#52's done-criterion: two people at a turn-based table in two browsers; one closes
    the page, the other moves, and the first's web push (a local push service), confirmed
    address (SMTP) and webhook (signature verified) each get exactly one "your turn" with
    the table's link; they open it and move; a vacation stops their clock, which the
    other sees. (A bank running out takes a day: tests/unit/table/test_turn_based.py.)"""
    pages = [browser(), browser()]
    try:
        ann, bo = (
            sign_up(p, system.base_url, unique(n), "a long password")
            for p, n in zip(pages, ("Ann", "Bo"), strict=True)
        )
        told = every_channel(http, ann, mails, receiver)
        gid = turn_based(http, bo, ann)  # bo sits first and moves first
        for page in pages:
            page.get(f"{system.base_url}/#/games/{gid}")
            wait_for(lambda page=page: status(page), message="the table did not draw")
        assert "Your move" in status(pages[1]) and "Your move" not in status(pages[0])
        pages[0].get("about:blank")  # ann closes the page: the notifier may tell her now
        time.sleep(0.5)
        assert click_a_move(pages[1], http, "giraffe-raffe", gid, bo["token"])
        table = f"/#/games/{gid}"
        (mail,) = mails.wait(told["address"], 2)[1:]
        assert mail["Subject"] == "Your turn in Giraffe Raffe." and table in mail.get_content()
        (hooked,) = receiver.wait(f"/hook/{ann['player_id']}", 1)
        assert verify(told["secret"], hooked.headers[SIGNATURE], hooked.body, int(time.time()))
        assert hooked.json()["url"].endswith(table) and hooked.json()["seat"] == 1
        (pushed,) = receiver.wait(f"/push/{ann['player_id']}", 1)
        assert told["push"].read(pushed.body)["url"].endswith(table)
        # She follows the mail's link and moves; the channels told that turn once each.
        pages[0].get(link(mail, "/#/games/"))
        assert click_a_move(pages[0], http, "giraffe-raffe", gid, ann["token"])
        time.sleep(1.0)
        assert len(mails.to(told["address"])) == 2
        assert len(receiver.at(f"/hook/{ann['player_id']}")) == 1
        assert len(receiver.at(f"/push/{ann['player_id']}")) == 1
        # Ann takes two days off on the account page: bo sees it and her clock stands.
        pages[0].get(system.base_url + "/#/account")
        days = find(pages[0], "#vacation-days")
        days.clear()
        days.send_keys("2")
        click(pages[0], "#vacation-take")
        wait_for(lambda: "wait until" in shown_text(pages[0], "#notify-status"))
        pages[1].refresh()
        wait_for(lambda: "on vacation until" in shown_text(pages[1], "#app"))
        view = http.get(f"/v1/games/{gid}", headers=auth(ann["token"])).json()["view"]
        assert view["table"]["seats"][1]["vacation_until_ms"] > time.time() * 1000 + 86_400_000
        assert not accessibility_problems(pages[1]), "a table with a player on vacation"
    finally:
        for page in pages:
            page.quit()
