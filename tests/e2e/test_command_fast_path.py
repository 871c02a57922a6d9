"""The command route's fast path (gateway.games.fast_path) over HTTP: what it answers carries
CORS headers, is counted under the route's metric label, and every refusal reads as the
route's would, including those it hands back to FastAPI (bodies that are not commands)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx

from services.kernel.rng import SeededRng
from tests.e2e.players import auth, create
from tests.e2e.system import System
from tests.e2e.test_api_contract import PROBLEM, move

ORIGIN = {"Origin": "https://play.example.org"}


def refusal(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, Any] = response.json()
    assert body["type"] == f"/problems/{code}" and body["status"] == status and body["detail"]
    return body


def test_a_command_answer_carries_cors_headers_and_its_etag(http: httpx.Client) -> None:
    created = create(http, "giraffe-raffe", [{"kind": "human"}] * 3, options={"dealer": 0})
    tokens = {int(seat): token for seat, token in created["tokens"].items()}
    moved = move(http, created["game_id"], tokens, SeededRng("fast-path", 0))
    assert moved is not None and moved.status_code == 200, moved and moved.text
    # move() sent no Origin: send the same command again (a duplicate) from a browser.
    request = moved.request
    again = http.post(
        str(request.url), content=request.content, headers={**request.headers, **ORIGIN}
    )
    assert again.status_code == 200 and again.json()["duplicate"] is True
    assert again.headers["access-control-allow-origin"] == "*"
    assert again.headers["etag"] == f'"{moved.json()["version"]}"'
    assert again.json()["events"] == moved.json()["events"]


def test_refusals_read_as_the_routes_and_carry_cors_headers(http: httpx.Client) -> None:
    game = create(http, "giraffe-raffe", [{"kind": "human"}] * 2, options={"dealer": 0})
    other = create(http, "giraffe-raffe", [{"kind": "human"}] * 2)
    url = f"/v1/games/{game['game_id']}/commands"
    me = {**auth(game["tokens"]["0"]), **ORIGIN}
    body = {"command": {"type": "return_apple"}, "command_id": uuid.uuid4().hex}
    json_type = {"content-type": "application/json"}
    cases = [
        (http.post(url, json=body, headers=ORIGIN), 401, "token_required"),
        (http.post(url, json=body, headers={**auth("nope"), **ORIGIN}), 401, "bad_token"),
        (http.post(url, json=body, headers={**auth("nope x"), **ORIGIN}), 401, "bad_token"),
        (
            http.post(url, json=body, headers={**auth(other["tokens"]["0"]), **ORIGIN}),
            403,
            "wrong_game",
        ),
        (http.post(url, json=body, headers={**me, "If-Match": '"99"'}), 409, "version_conflict"),
        (http.post(url, json=body, headers={**me, "If-Match": "soon"}), 422, "bad_if_match"),
        (http.post(url, json=body, headers=me), 422, "no_apple"),
        # handed back to FastAPI: not JSON, no body, not a command, a bad game id
        (http.post(url, content=b"{", headers={**me, **json_type}), 400, "bad_json"),
        (http.post(url, content=b"", headers={**me, **json_type}), 422, "invalid_request"),
        (http.post(url, json={"command": {"type": "fly"}}, headers=me), 422, "invalid_request"),
        (http.post("/v1/games/bad!id/commands", json=body, headers=me), 422, "invalid_request"),
    ]
    for response, status, code in cases:
        refusal(response, status, code)
        assert response.headers["access-control-allow-origin"] == "*"
    assert (
        cases[4][0].json()["current_version"]
        == http.get(url[: -len("/commands")]).json()["version"]
    )
    assert any(e["loc"][0] == "body" for e in cases[9][0].json()["errors"])


def test_commands_are_counted_under_the_routes_label(http: httpx.Client, system: System) -> None:
    game = create(http, "giraffe-raffe", [{"kind": "human"}] * 2, options={"dealer": 0})
    url = f"/v1/games/{game['game_id']}/commands"
    body = {"command": {"type": "return_apple"}, "command_id": uuid.uuid4().hex}

    def counted(status: int) -> float:
        label = f'method="POST",route="/v1/games/{{game_id}}/commands",status="{status}"'
        metrics = httpx.get(f"http://{system.metrics['gateway']}/metrics").text
        for line in metrics.splitlines():
            if line.startswith(f"raffe_gateway_requests_total{{{label}}}"):
                return float(line.rsplit(" ", 1)[1])
        return 0.0

    before = counted(422), counted(401)
    http.post(url, json=body, headers=auth(game["tokens"]["0"]))  # 422 no_apple
    http.post(url, json=body)  # 401 token_required
    assert (counted(422), counted(401)) == (before[0] + 1, before[1] + 1)
