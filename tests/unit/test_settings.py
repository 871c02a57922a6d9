"""Settings come from RAFFE_* variables, typed and checked when a process starts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from gateway.settings import GatewaySettings
from services.core.settings import BotSettings, ServiceSettings, StoreSettings, env_names

README = Path(__file__).resolve().parents[2] / "README.md"


def test_a_bad_value_stops_the_process_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAFFE_PARTITIONS", "many")
    with pytest.raises(ValidationError, match="partitions"):
        StoreSettings.from_env()
    monkeypatch.setenv("RAFFE_PARTITIONS", "0")
    with pytest.raises(ValidationError, match="partitions"):
        StoreSettings.from_env()


def test_empty_means_the_default_and_lists_are_comma_separated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RAFFE_PORT", "")
    monkeypatch.setenv("RAFFE_CORS_ORIGINS", "https://a.example, https://b.example")
    monkeypatch.setenv("RAFFE_REDIS_CLUSTER", "1")
    gateway = GatewaySettings.from_env()
    assert gateway.port == 8000 and gateway.store.cluster
    assert gateway.cors_origins == ["https://a.example", "https://b.example"]
    assert ServiceSettings.from_env(default_port=50061).port == 50061
    monkeypatch.setenv("RAFFE_PORT", "6000")
    assert ServiceSettings.from_env(default_port=50061).port == 6000


def test_every_setting_is_in_the_readmes_table() -> None:
    rows = [line for line in README.read_text().splitlines() if line.startswith("| `RAFFE_")]
    table = {
        name for row in rows for name in re.findall(r"`(RAFFE_[A-Z0-9_]+)`", row.split("|")[1])
    }
    missing = (
        env_names(ServiceSettings) | env_names(GatewaySettings) | env_names(BotSettings)
    ) - table
    assert not missing, f"add {sorted(missing)} to the README's settings table"
