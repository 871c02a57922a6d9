"""Who is on the other end: the peer's address, or, when the peer is a trusted proxy
(an ingress, a load balancer), the client it names in X-Forwarded-For.

uvicorn's own proxy handling is off (gateway.__main__): it trusted X-Forwarded-For from
127.0.0.1 by default, so anyone on the host could pick their address, and behind an
ingress it would either trust everyone or no one. Here the proxies to trust are a
setting (RAFFE_TRUSTED_PROXIES, addresses or networks), set by the production overlay."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from starlette.datastructures import Headers
from starlette.types import Scope

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def networks(raw: Sequence[str]) -> tuple[Network, ...]:
    """Parsed once at startup; a bad entry stops the gateway with a clear error."""
    return tuple(ipaddress.ip_network(item.strip(), strict=False) for item in raw if item.strip())


def _trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in trusted)


def client_address(scope: Scope, trusted: Sequence[Network]) -> str:
    """The peer, unless it is a trusted proxy: then the right-most address in
    X-Forwarded-For that is not a trusted proxy (addresses left of it were written by
    the client itself and prove nothing)."""
    peer = scope.get("client")
    address = str(peer[0]) if peer else "unknown"
    if not trusted or not _trusted(address, trusted):
        return address
    forwarded = Headers(scope=scope).getlist("x-forwarded-for")
    hops = [h.strip() for line in forwarded for h in line.split(",") if h.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, trusted):
            return hop[:64]
    return address
