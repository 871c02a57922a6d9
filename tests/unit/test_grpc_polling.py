"""gRPC's polling is chosen when services.core is imported (services.core.grpc_polling),
before gRPC starts; an operator's own GRPC_EXPERIMENTS wins."""

from __future__ import annotations

import os
import subprocess
import sys

from services.core.grpc_polling import EXPERIMENTS_OFF

SHOW = "import services.core, os; print(os.environ['GRPC_EXPERIMENTS'])"


def experiments_seen(env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", SHOW], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_importing_services_core_turns_the_event_engine_experiments_off() -> None:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    assert experiments_seen(env) == EXPERIMENTS_OFF
    assert "-event_engine_poller" in EXPERIMENTS_OFF.split(",")


def test_an_operators_own_setting_wins() -> None:
    env = {**os.environ, "GRPC_EXPERIMENTS": "event_engine_client"}
    assert experiments_seen(env) == "event_engine_client"
