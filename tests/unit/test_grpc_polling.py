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
    assert "-event_engine_client" in EXPERIMENTS_OFF.split(",")


def test_an_operators_own_setting_wins() -> None:
    env = {**os.environ, "GRPC_EXPERIMENTS": "event_engine_client"}
    assert experiments_seen(env) == "event_engine_client"


def test_grpc_starts_without_unknown_experiment_errors() -> None:
    """#51 item 12: every name in the list is one the pinned grpcio knows (an unknown one
    printed two E0000 "Unknown experiment" lines from every process of `make run`)."""
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    start = "import services.core, grpc; grpc.insecure_channel('127.0.0.1:1').close()"
    done = subprocess.run([sys.executable, "-c", start], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "Unknown experiment" not in done.stderr, done.stderr
