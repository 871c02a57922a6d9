"""Where the engines and the projection listen, from the environment.

RAFFE_ENGINES="giraffe-raffe=host:port,giraffometer=host:port" (a dns:/// target with
round_robin balances per call over every replica behind a headless Service). Several
replicas without DNS: "giraffe-raffe=127.0.0.1:5001+127.0.0.1:5002" (an ipv4: target)."""

from __future__ import annotations

import os

DEFAULT_ENGINES = {
    "giraffe-raffe": "127.0.0.1:50061",
    "giraffometer": "127.0.0.1:50062",
    "riff-raff": "127.0.0.1:50063",
    "tournament": "127.0.0.1:50064",
}


def engine_targets() -> dict[str, str]:
    raw = os.environ.get("RAFFE_ENGINES", "")
    targets = dict(DEFAULT_ENGINES)
    for item in filter(None, (part.strip() for part in raw.split(","))):
        name, _, target = item.partition("=")
        targets[name.strip()] = _target(target.strip())
    return targets


def _target(raw: str) -> str:
    return "ipv4:" + raw.replace("+", ",") if "+" in raw else raw


def projection_target() -> str:
    return os.environ.get("RAFFE_PROJECTION", "127.0.0.1:50070")
