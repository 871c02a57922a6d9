"""The README's tour runs as written: its shell block, pasted into bash against a running
system, ends without an error and shows what it says it shows."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.e2e.system import System

README = Path(__file__).resolve().parents[2] / "README.md"


def tour() -> str:
    text = README.read_text()
    section = text[text.index("## A tour with curl") :]
    found = re.search(r"```sh\n(.*?)```", section, re.S)
    assert found, "the tour has no sh block"
    return found.group(1)


def test_the_readme_tour_runs_as_written(system: System) -> None:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", tour()],
        env={**os.environ, "API": system.base_url},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    out = done.stdout
    assert '"tokens"' in out and '"type":"CardsPlayed"' in out.replace(" ", "")
    assert '"to_act":[1]' in out.replace(" ", "")  # after your move, your friend's turn
    assert '"speed":"turn_based","joined_ms"' in out.replace(" ", "")  # a turn-based ticket
    assert '"seed"' in out  # the finished bot game's revealed replay shows its seed
    assert out.rstrip().endswith("}") and '"standings"' in out and '"over":true' in out
