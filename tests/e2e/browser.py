"""A real browser for the web client's tests: Debian's Chromium, driven through its
chromedriver by Selenium, headless, one profile per browser (so two browsers are two
players), with its network log kept (what reached the page)."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

needs_chromium = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)) and not os.environ.get("CI"),
    reason="chromium and chromium-driver are not installed (CI installs them)",
)


# --no-sandbox: CI runs as root; --disable-dev-shm-usage: a small /dev/shm in containers.
ARGS = ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,1000")


SCRATCH = "raffe-chromium-"  # a browser's own folder for its temporary files


def browser() -> WebDriver:
    """A headless Chromium whose temporary files (its profile, its singleton socket's
    folder) go to a folder of its own, removed when the driver quits (or, should a test
    not quit it, when the run ends): the suite left one folder per browser in /tmp."""
    scratch = tempfile.mkdtemp(prefix=SCRATCH)
    atexit.register(shutil.rmtree, scratch, True)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1200,1000",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    service = webdriver.ChromeService(CHROMEDRIVER, env={**os.environ, "TMPDIR": scratch})
    driver = webdriver.Chrome(options=options, service=service)
    driver.execute_cdp_cmd("Network.enable", {})
    quit_browser = driver.quit

    def quit_and_clean() -> None:
        try:
            quit_browser()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    driver.quit = quit_and_clean
    driver.scratch = scratch  # type: ignore[attr-defined]
    return driver


def wait_for(what: Callable[[], Any], timeout: float = 20.0, message: str = "") -> Any:
    """Poll ``what`` until it returns something truthy (the page updates on its own)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = what()
            if found:
                return found
        except (StaleElementReferenceException, WebDriverException):
            pass
        if time.monotonic() > deadline:
            raise AssertionError(message or "the page did not get there")
        time.sleep(0.05)


def find(driver: WebDriver, css: str) -> WebElement:
    try:
        found = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, css))
    except AssertionError:
        raise AssertionError(f"no {css}; {page_state(driver)}") from None
    return cast(WebElement, found)


def page_state(driver: WebDriver) -> str:
    """What the page showed and said when a test gave up on it: its address, the start
    of its main part's text, and the browser's errors (a module that failed to load
    leaves the page at "Loading…"), so a failure far away (CI) explains itself."""
    try:
        url = driver.current_url
        shown = driver.execute_script(
            "const m = document.getElementById('app'); return m ? m.innerText : null"
        )
        errors = [e["message"] for e in log_of(driver, "browser") if e["level"] == "SEVERE"]
    except WebDriverException as error:  # the browser itself gone or hung
        return f"the browser did not answer: {error.msg}"
    return f"at {url}, showing {str(shown)[:300]!r}, browser errors: {errors[-5:]}"


def click(driver: WebDriver, css: str) -> None:
    """Click the first enabled element at ``css``; pages redraw from their live streams,
    so an element found a moment ago may be gone: find it again then (a person would
    click the button they see)."""

    def clicked() -> bool:
        found = (e for e in driver.find_elements(By.CSS_SELECTOR, css) if e.is_enabled())
        element = next(found, None)
        if element is None:
            return False
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        element.click()  # a stale element raises: wait_for looks again
        return True

    try:
        wait_for(clicked)
    except AssertionError:
        raise AssertionError(f"nothing enabled at {css}; {page_state(driver)}") from None


def shown_text(driver: WebDriver, css: str) -> str:
    """The shown text of the first element at ``css`` once there is one, read in one
    step (an element found, then read, may be redrawn between: stale under load)."""
    script = "const e = document.querySelector(arguments[0]); return e ? [e.innerText] : null"
    return str(wait_for(lambda: driver.execute_script(script, css), message=f"no {css}")[0])


def texts(driver: WebDriver, css: str) -> list[str]:
    """The shown text of every element ``css`` matches, read in one step: the page may
    redraw between reads of elements one by one (a stale element under load)."""
    script = "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText)"
    return [str(t) for t in driver.execute_script(script, css)]


def held_seat(driver: WebDriver, game_id: str) -> dict[str, Any]:
    raw = driver.execute_script("return localStorage.getItem('raffe.tokens')") or "{}"
    return dict(json.loads(raw)[game_id])


def game_id_of(driver: WebDriver) -> str:
    url = wait_for(lambda: "#/games/" in driver.current_url and driver.current_url)
    return str(url.split("#/games/")[1].split("/")[0])


def status(driver: WebDriver) -> str:
    """The table's status line (read in the page: the table redraws on every move)."""
    return str(driver.execute_script("return document.getElementById('status')?.textContent || ''"))


def log_of(driver: WebDriver, kind: str) -> list[dict[str, Any]]:
    """Chrome's log of ``kind`` ("browser", "performance") since the last read. Selenium
    types a driver as the remote WebDriver, which does not declare Chrome's get_log."""
    return cast(list[dict[str, Any]], driver.get_log(kind))  # type: ignore[attr-defined]


def network_text(driver: WebDriver) -> str:
    """Everything the page received from the API: response bodies and live-stream
    messages (not the client's own static files nor the games' catalog: the rules' example
    cards, in GET /v1/game-types, are no secret)."""
    seen: list[str] = []
    static: set[str] = set()
    for entry in log_of(driver, "performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if "/static/" in url or url.endswith("/v1/game-types"):
                static.add(params["requestId"])
        elif message["method"] == "Network.eventSourceMessageReceived":
            seen.append(params.get("data", ""))
        elif message["method"] == "Network.loadingFinished" and params["requestId"] not in static:
            try:
                body = driver.execute_cdp_cmd(
                    "Network.getResponseBody", {"requestId": params["requestId"]}
                )
                seen.append(body.get("body", ""))
            except WebDriverException:
                pass  # a stream still open, or a body already gone
    return "\n".join(seen)


# axe-core from the npm registry, installed by `make install` into .venv/npm (no CDN).
AXE = Path(__file__).resolve().parents[2] / ".venv/npm/node_modules/axe-core/axe.min.js"


def accessibility_problems(driver: WebDriver) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations of WCAG 2.1 A/AA on the page now."""
    if not AXE.exists():
        if os.environ.get("CI"):
            raise AssertionError(f"{AXE} is missing: `make install` installs it with npm")
        pytest.skip("axe-core is not installed (make install does it when npm is there)")
    driver.execute_script(AXE.read_text())
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']})"
        ".then((r) => done(r.violations.map((v) => ({id: v.id, impact: v.impact,"
        " nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ') + ': '"
        " + (n.failureSummary || '').slice(0, 160))}))));"
    )
    return [v for v in found if v["impact"] in ("serious", "critical")]


def rendered(driver: WebDriver, module: str, call: str) -> str:
    """The text of what ``call`` (JavaScript on ``m``, the web client's module ``module``,
    e.g. "m.lobbyRows([], {}, () => false)") renders in the page: its nodes' texts joined
    by " | ". The page's own code on data a test chooses (an empty list, say)."""
    text = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"import('/static/{module}').then((m) => done([].concat({call})"
        ".map((n) => n.textContent).join(' | ')));"
    )
    return str(text)
