"""The launcher stops its services even when one ignores SIGTERM (its event loop hung):
waiting for that one alone once left it, the services after it and Redis running."""

from __future__ import annotations

import signal
import subprocess
import sys

from services.launcher import stop_all

IGNORES_TERM = "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print(flush=True); time.sleep(60)"  # noqa: E501
STOPS = "import sys, time; print(flush=True); time.sleep(60)"


def started(code: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.readline()  # its signal handling is set up
    return process


def test_a_service_that_ignores_sigterm_is_killed_and_the_rest_still_stop() -> None:
    hung, polite = started(IGNORES_TERM), started(STOPS)
    stop_all([hung, polite], grace_s=0.5)
    assert hung.returncode == -signal.SIGKILL
    assert polite.returncode == -signal.SIGTERM
