"""No input crashes the gateway (#16 item 7): arbitrary unicode (lone surrogates
included) and numbers (NaN, infinities, huge integers) in every field of every body,
in the headers and in the query answer a documented 4xx problem+json, never a 500."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.e2e.players import auth, create
from tests.e2e.system import System

PROBLEM = "application/problem+json"
DOCUMENTED = {400, 401, 403, 404, 409, 413, 415, 422, 429}

# Any code point, surrogates included: json.dumps escapes them as \udXXX, which is how a
# client sends a lone surrogate.
ANY_TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, categories=None))
NUMBERS = st.one_of(
    st.integers(),
    st.integers(min_value=2**63 - 2, max_value=2**200),
    st.floats(allow_nan=True, allow_infinity=True),
)
# Values that broke the gateway before (#16 item 7), so every run tries them.
SPECIALS = st.sampled_from(["\ud800", "R\udfff", "²", float("nan"), float("-inf"), 10**30])
VALUES = st.recursive(
    st.one_of(SPECIALS, st.none(), st.booleans(), NUMBERS, ANY_TEXT),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(ANY_TEXT, inner, max_size=4)
    ),
    max_leaves=8,
)
# What HTTP allows in a header value (visible ASCII, space, obs-text): anything else the
# server's HTTP parser refuses before the app sees the request.
HEADER_TEXT = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0xFF, exclude_characters="\x7f"),
    max_size=12,
)

BODIES: dict[str, dict[str, Any]] = {
    "create": {
        "game": "giraffe-raffe",
        "seats": [{"kind": "human", "name": "a"}, {"kind": "bot", "bot_level": "random"}],
        "options": {"mode": "standard", "dealer": 0},
        "command_id": "c",
    },
    "play": {
        "command": {"type": "play", "tree": "single", "cards": ["R3"], "copies": {"C1": "R3"}},
        "command_id": "x",
    },
    "vote": {"command": {"type": "vote", "lowest": 1, "highest": 2}, "command_id": "x"},
    "load": {
        "command": {"type": "load", "pieces": [{"piece": "box", "position": 0.5}]},
        "command_id": "x",
    },
    "tournament": {
        "name": "t",
        "games": ["giraffometer"],
        "format": "swiss",
        "game_options": {"giraffometer": {"target": 3}},
    },
    "register": {"name": "p", "kind": "bot", "bot_level": "random"},
}


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a body a value can go: each key's value and each key itself."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, (*prefix, k))
            yield (*prefix, ("key", k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*prefix, i))


def replaced(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, tuple):  # rename a key to ``value`` (as text)
        out = dict(body)
        out[str(value)] = out.pop(head[1])
        return out
    copy = dict(body) if isinstance(body, dict) else list(body)
    copy[head] = replaced(body[head], rest, value)
    return copy


def assert_documented(response: httpx.Response) -> None:
    assert response.status_code < 500, (response.status_code, response.text)
    if response.status_code >= 400:
        assert response.status_code in DOCUMENTED, response.text
        assert response.headers["content-type"].startswith(PROBLEM), response.text
        assert response.json()["type"].startswith("/problems/")


@pytest.fixture(scope="module")
def game(system: System) -> dict[str, Any]:
    with httpx.Client(base_url=system.base_url, timeout=20) as http:
        created = create(http, "giraffe-raffe", [{"kind": "human"}, {"kind": "human"}])
        tournament = http.post("/v1/tournaments", json={"games": ["giraffometer"]}).json()
    return {**created, "tournament": tournament}


CASES = [(name, p) for name, body in BODIES.items() for p in paths(body)]


@pytest.mark.parametrize(("name", "path"), CASES, ids=[f"{n}:{p}" for n, p in CASES])
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(value=VALUES)
def test_any_value_in_any_field_is_a_documented_refusal_or_accepted(
    system: System, game: dict[str, Any], name: str, path: tuple[Any, ...], value: Any
) -> None:
    body = replaced(BODIES[name], path, value)
    raw = json.dumps(body, ensure_ascii=True, allow_nan=True).encode()
    headers = {"content-type": "application/json"}
    game_id, token = game["game_id"], game["tokens"]["0"]
    tournament = game["tournament"]
    url = {
        "create": "/v1/games",
        "tournament": "/v1/tournaments",
        "register": f"/v1/tournaments/{tournament['tournament_id']}/players",
    }.get(name, f"/v1/games/{game_id}/commands")
    if name == "register":
        headers |= auth(tournament["organiser_token"])
    elif url.endswith("/commands"):
        headers |= auth(token)
    with httpx.Client(base_url=system.base_url, timeout=20) as http:
        assert_documented(http.post(url, content=raw, headers=headers))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(text=HEADER_TEXT, number=st.integers() | st.text(max_size=8))
def test_any_header_or_query_value_is_a_documented_refusal_or_accepted(
    system: System, game: dict[str, Any], text: str, number: Any
) -> None:
    game_id, token = game["game_id"], game["tokens"]["0"]
    body = {"command": {"type": "return_apple"}, "command_id": "h"}
    with httpx.Client(base_url=system.base_url, timeout=5) as http:
        # Headers travel as bytes (obs-text included); h11 refuses edge whitespace.
        raw = text.strip(" ").encode("latin-1") or b"-"
        for headers in ({"If-Match": raw}, {"Authorization": raw}, {"If-Match": b'"%s"' % raw}):
            response = http.post(
                f"/v1/games/{game_id}/commands", json=body, headers={**auth(token), **headers}
            )
            assert_documented(response)
        for param in ("min_version", "after", "version", "limit", "status", "game"):
            for path in (f"/v1/games/{game_id}", f"/v1/games/{game_id}/replay", "/v1/games"):
                assert_documented(http.get(path, params={param: number}))
        url = f"/v1/games/{game_id}/events/stream"
        with http.stream("GET", url, headers={"Last-Event-ID": raw}) as stream:
            assert stream.status_code < 500
        tournament = game["tournament"]["tournament_id"]
        url = f"/v1/tournaments/{tournament}/events/stream"
        with http.stream("GET", url, headers={"Last-Event-ID": raw}) as stream:
            assert stream.status_code < 500


@pytest.mark.parametrize(
    "raw",
    [b"{", b'{"game": NaN}', b'{"a": "\\ud800"}', b"\xff\xfe", b'{"a": 1e999}', b"[1,]"],
)
def test_unparsable_bodies_are_a_documented_400(system: System, raw: bytes) -> None:
    with httpx.Client(base_url=system.base_url, timeout=5) as http:
        response = http.post("/v1/games", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert response.headers["content-type"].startswith(PROBLEM)
    assert response.json()["type"] == "/problems/bad_json"
