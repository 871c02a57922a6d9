"""Free ports are claimed across the machine's processes (services.core.local_redis): two
launchers starting at once (the suite's workers) each found the same port free, and the
second one's gateway could not bind it seconds later ("Address already in use")."""

from __future__ import annotations

import os
import random
import subprocess
import sys

from services.core.local_redis import CLAIMS, claim, free_port


def fake_port() -> int:
    """A claim's name no real port has (the suite's other workers claim real ones)."""
    return random.randrange(70_000, 1_000_000)


def test_a_port_another_live_process_claimed_is_not_claimed_here() -> None:
    port = fake_port()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        CLAIMS.mkdir(exist_ok=True)
        (CLAIMS / str(port)).write_text(str(other.pid))
        assert not claim(port)  # held by a live process
    finally:
        other.kill()
        other.wait()
    assert claim(port)  # its process is gone: taken over
    assert (CLAIMS / str(port)).read_text() == str(os.getpid())


def test_a_claim_being_written_counts_as_held() -> None:
    port = fake_port()
    CLAIMS.mkdir(exist_ok=True)
    (CLAIMS / str(port)).write_text("")  # created, its pid not yet written
    assert not claim(port)
    (CLAIMS / str(port)).unlink()


def test_a_chosen_port_is_claimed_and_let_go_when_its_process_exits() -> None:
    assert (CLAIMS / str(free_port())).read_text() == str(os.getpid())
    code = "from services.core.local_redis import free_port; print(free_port())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert not (CLAIMS / out.stdout.strip()).exists()
