"""What another player sees, measured at the screen (#24 item 3): two Chromium browsers
sit at one Giraffometer table through the web client and take turns voting; for each
move, the time from the mover's click to the frame in which the mover's own table shows
the new version, and to the frame in which the other player's table shows it.

    python -m bench.browser_push [--moves 30]

Both tables stamp a version when it first appears in the page (a MutationObserver on
the table, then the next animation frame: the frame that paints it), with the page's
wall clock; both browsers run on this machine, so their clocks are one. The baseline is
the mover's own redraw (answered by the command itself): the target is the other table
within 2x of it, median and p90 over at least 20 moves. Needs Debian's chromium and
chromium-driver; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from typing import Any

import httpx
from selenium.webdriver.remote.webdriver import WebDriver

from bench.common import Figure, against, print_table, stop_all, write_json
from bench.fullstack import start_system
from tests.e2e.browser import browser

STAMP = """
window.__seen = {};
const app = document.getElementById('app');
const record = () => {
  const found = /version (\\d+)/.exec(app.textContent);
  if (!found || found[1] in window.__seen) return;
  const v = found[1];
  window.__seen[v] = -1;  // seen in the DOM; stamped when painted
  requestAnimationFrame(() => { window.__seen[v] = performance.timeOrigin + performance.now(); });
};
new MutationObserver(record).observe(app, {subtree: true, childList: true, characterData: true});
record();
"""

CAN_VOTE = "const r = document.getElementById('lowest-1'); return !!r && !r.disabled;"
VOTE = """
document.getElementById('lowest-1').click();
document.getElementById('highest-2').click();
window.__t0 = performance.timeOrigin + performance.now();
document.getElementById('vote').click();
return window.__t0;
"""


def seat(driver: WebDriver, base_url: str, game_id: str, seat: int, token: str) -> None:
    """Open the table as a player who holds ``seat`` (the client keeps seats in
    localStorage), and start stamping versions."""
    driver.get(base_url + "/")
    driver.execute_script(
        "localStorage.setItem('raffe.tokens', JSON.stringify({[arguments[0]]:"
        " {seat: arguments[1], token: arguments[2]}}));",
        game_id,
        seat,
        token,
    )
    driver.get(f"{base_url}/#/games/{game_id}")
    wait(lambda: driver.execute_script("return !!document.getElementById('vote')"))
    driver.execute_script(STAMP)


def wait(what: Any, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.005)
    raise TimeoutError("the page did not get there")


def seen(driver: WebDriver) -> dict[int, float]:
    stamps = driver.execute_script("return window.__seen")
    return {int(v): t for v, t in stamps.items() if t > 0}


def move(mover: WebDriver, other: WebDriver) -> tuple[float, float]:
    """One vote: (ms to the mover's own new version on screen, ms to the other's)."""
    before = max(seen(mover), default=0)
    t0 = float(mover.execute_script(VOTE))
    version = wait(lambda: max((v for v in seen(mover) if v > before), default=0))
    own = seen(mover)[version] - t0
    other_at = wait(lambda: min((t for v, t in seen(other).items() if v >= version), default=0))
    return own, other_at - t0


def run(base_url: str, moves: int) -> tuple[list[float], list[float]]:
    http = httpx.Client(base_url=base_url, timeout=10)
    body = {"game": "giraffometer", "seats": [{"kind": "human"}] * 2, "options": {"target": 100}}
    created = http.post("/v1/games", json=body).json()
    game_id, tokens = created["game_id"], created["tokens"]
    alice, bob = browser(), browser()
    try:
        seat(alice, base_url, game_id, 0, tokens["0"])
        seat(bob, base_url, game_id, 1, tokens["1"])
        own, other = [], []
        for i in range(moves):
            mover, watcher = (alice, bob) if i % 2 == 0 else (bob, alice)
            wait(lambda m=mover: m.execute_script(CAN_VOTE))
            a, b = move(mover, watcher)
            own.append(a)
            other.append(b)
            print(f"\r  moves: {i + 1}/{moves}", end="", file=sys.stderr)
        print(file=sys.stderr)
        return own, other
    finally:
        alice.quit()
        bob.quit()


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--short", action="store_true")
    args = parser.parse_args(argv)
    moves = 20 if args.short else max(20, args.moves)
    with tempfile.TemporaryDirectory() as state:
        system, where, _ = start_system(state)
        try:
            own, other = run(where["gateway"], moves)
        finally:
            stop_all([system])
    figures = [
        Figure("own table, median", statistics.median(own), "ms"),
        Figure("own table, p90", p90(own), "ms"),
        against(
            "other table, median",
            statistics.median(other),
            "ms",
            "own median",
            statistics.median(own),
        ),
        against("other table, p90", p90(other), "ms", "own p90", p90(own)),
    ]
    print_table(f"a move on screen, in Chromium ({moves} moves, 2 seats)", figures)
    print(f"written to {write_json('browser_push', figures)}")


if __name__ == "__main__":
    main()
