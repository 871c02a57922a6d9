"""Pin the real overlays to one pushed image by its digest:

    podman push --digestfile build/digest raffe:dev registry.example.org/raffe:1.2.0
    make pin-image REF=registry.example.org/raffe@$(cat build/digest)

A tag can be moved to other contents after a rollout was tested (or between two nodes
pulling it); a digest names exactly the bytes that were tested, so every replica of a
rollout runs the same image. This rewrites the ``images:`` entry of the image ``raffe`` in
each overlay's kustomization.yaml (comments and the rest kept as they are)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

K8S = Path(__file__).resolve().parent / "k8s"
PINNED = ("production", "replicated")  # the overlays a real cluster runs
REF = re.compile(r"^(?P<name>[a-z0-9]+(?:[._/:-][a-z0-9]+)*)@(?P<digest>sha256:[0-9a-f]{64})$")


def pinned_entry(text: str, name: str, digest: str) -> str:
    """``text`` (a kustomization) with the ``raffe`` image entry naming ``name@digest``."""
    lines = text.splitlines(keepends=True)
    try:
        start = lines.index("  - name: raffe\n")
    except ValueError:
        raise SystemExit("no '  - name: raffe' entry under images:") from None
    end = start + 1
    while end < len(lines) and lines[end].startswith("    "):
        end += 1
    entry = ["  - name: raffe\n", f"    newName: {name}\n", f"    digest: {digest}\n"]
    return "".join(lines[:start] + entry + lines[end:])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ref", help="the pushed image as NAME@sha256:DIGEST")
    parser.add_argument(
        "--overlay", action="append", help=f"default: {', '.join(PINNED)} (repeat for more)"
    )
    parser.add_argument("--k8s", type=Path, default=K8S, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    found = REF.match(args.ref)
    if found is None:
        print(f"not NAME@sha256:<64 hex digits>: {args.ref!r}", file=sys.stderr)
        return 2
    for overlay in args.overlay or PINNED:
        path = args.k8s / "overlays" / overlay / "kustomization.yaml"
        path.write_text(pinned_entry(path.read_text(), found["name"], found["digest"]))
        print(f"{path.relative_to(args.k8s.parent.parent)}: {args.ref}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
