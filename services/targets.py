"""Where the engines and the projection listen, from the environment.

Every game of services.games has an engine, and so has the tournament. Its address is
RAFFE_ENGINE_ADDRESS with ``{name}`` and ``{port}`` filled in (default
``127.0.0.1:{port}``, the game's default port; Kubernetes sets
``dns:///raffe-{name}:{port}``, a headless Service per engine, balanced per call with
round_robin). RAFFE_ENGINES overrides single engines: "giraffe-raffe=host:port,...";
several replicas without DNS: "giraffe-raffe=127.0.0.1:5001+127.0.0.1:5002" (an ipv4:
target)."""

from __future__ import annotations

import os

from services.games import GAMES

# Every service's default port, declared here once (the games' own: GameSpec.default_port);
# the launcher, the services and the manifests' tests read them from here.
TOURNAMENT_PORT = 50064
PROJECTION_PORT = 50070
BOTS_PORT = 50071  # the bot runner serves only its metrics and probes
NOTIFIER_PORT = 50072  # the notifier too
GATEWAY_PORT = 8000


def default_ports() -> dict[str, int]:
    return {**{name: g.default_port for name, g in GAMES.items()}, "tournament": TOURNAMENT_PORT}


def engine_targets() -> dict[str, str]:
    pattern = os.environ.get("RAFFE_ENGINE_ADDRESS", "") or "127.0.0.1:{port}"
    targets = {name: pattern.format(name=name, port=port) for name, port in default_ports().items()}
    raw = os.environ.get("RAFFE_ENGINES", "")
    for item in filter(None, (part.strip() for part in raw.split(","))):
        name, _, target = item.partition("=")
        targets[name.strip()] = _target(target.strip())
    return targets


def _target(raw: str) -> str:
    return "ipv4:" + raw.replace("+", ",") if "+" in raw else raw


def projection_target() -> str:
    return os.environ.get("RAFFE_PROJECTION", f"127.0.0.1:{PROJECTION_PORT}")
