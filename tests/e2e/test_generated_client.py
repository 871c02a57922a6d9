"""A client generated from the live /openapi.json (openapi-python-client, as a frontend
developer would) plays a move with typed models, and reads a refusal as a typed
Problem; and the document itself is what generators need."""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.system import System

BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def generated(system: System, tmp_path_factory: pytest.TempPathFactory) -> Any:
    where = tmp_path_factory.mktemp("client")
    spec = where / "openapi.json"
    spec.write_bytes(httpx.get(system.base_url + "/openapi.json").content)
    out = where / "raffe_client"
    tool = shutil.which("openapi-python-client", path=str(BIN)) or "openapi-python-client"
    subprocess.run(
        [tool, "generate", "--path", str(spec), "--meta", "none", "--output-path", str(out)],
        check=True,
        capture_output=True,
        env={"PATH": f"{BIN}:/usr/bin:/bin"},
        timeout=120,
    )
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module("raffe_client")
    finally:
        sys.path.remove(str(where))


def test_a_generated_client_plays_a_move_and_reads_a_refusal(
    system: System, generated: Any
) -> None:
    create = importlib.import_module("raffe_client.api.games.games_create_game")
    execute = importlib.import_module("raffe_client.api.games.games_execute")
    models = importlib.import_module("raffe_client.models")
    anonymous = generated.Client(base_url=system.base_url)
    body = models.CreateGame.from_dict(
        {"game": "giraffometer", "seats": [{"kind": "human"}, {"kind": "human"}]}
    )
    created = create.sync(client=anonymous, body=body)
    assert isinstance(created, models.Created) and created.version > 0
    seat0 = generated.AuthenticatedClient(
        base_url=system.base_url, token=created.tokens.additional_properties["0"]
    )
    vote = {"command": {"type": "vote", "lowest": 1, "highest": 2}, "command_id": "gen-1"}
    answer = execute.sync(created.game_id, client=seat0, body=models.CommandIn.from_dict(vote))
    assert isinstance(answer, models.CommandResult) and answer.version > created.version
    assert isinstance(answer.view, models.GiraffometerView)  # typed per game
    assert answer.view.your_vote.additional_properties == {"lowest": 1, "highest": 2}
    voted = answer.events[0]  # events typed per game and type, the payload too
    assert isinstance(voted, models.GiraffometerVoteCastEvent) and voted.type_ == "VoteCast"
    assert isinstance(voted.data, models.GiraffometerVoteCast) and voted.data.lowest == 1
    get_game = importlib.import_module("raffe_client.api.games.games_get_game")
    seen = get_game.sync(created.game_id, client=seat0, min_version=answer.version)
    assert isinstance(seen, models.GameView) and isinstance(seen.view, models.GiraffometerView)
    assert [f.position for f in seen.view.facts] == [1, 2, 3, 4, 5, 6]
    again = {"command": {"type": "vote", "lowest": 3, "highest": 4}, "command_id": "gen-2"}
    refused = execute.sync(created.game_id, client=seat0, body=models.CommandIn.from_dict(again))
    assert isinstance(refused, models.Problem) and refused.code == "already_voted"


def test_the_document_names_its_token_scheme_problems_and_stable_ids(http: httpx.Client) -> None:
    schema = http.get("/openapi.json").json()
    assert schema["components"]["securitySchemes"]["seatToken"]["scheme"] == "bearer"
    ids = []
    for path, operations in schema["paths"].items():
        for operation in operations.values():
            ids.append(operation["operationId"])
            assert operation["operationId"].startswith(tuple(operation["tags"])), path
            for status, answer in operation["responses"].items():
                if status[0] in "45":
                    content = answer["content"]["application/problem+json"]["schema"]
                    assert content == {"$ref": "#/components/schemas/Problem"}, (path, status)
    assert len(ids) == len(set(ids))
    execute = schema["paths"]["/v1/games/{game_id}/commands"]["post"]
    assert execute["security"] == [{"seatToken": []}]


def test_the_docs_pages_load_their_assets_from_this_server(http: httpx.Client) -> None:
    assert http.get("/redoc").status_code == 404  # its page fetches from its vendor's CDN
    assets = re.findall(r'(?:src|href)="([^"]+)"', http.get("/docs").text)
    assert assets and all(a.startswith("/") for a in assets), assets
    for asset in assets:
        assert http.get(asset).status_code == 200, asset
