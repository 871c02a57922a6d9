"""Every answer of whole games matches the OpenAPI document (#51 item 6): each seat's and
a spectator's view and legal commands at every turn, each command's answer, the event
pages, replays with and without reveal, the record, a tournament's pages and replay,
and the problems of a bad request, checked with the document's own schemas."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator

from services.games import GAMES
from services.kernel.rng import SeededRng
from tests.e2e.players import auth, create
from tests.e2e.test_fair_table import until
from tests.e2e.test_records import finished_record


class Document:
    """The live OpenAPI document, and a check of an answer against an operation's."""

    def __init__(self, http: httpx.Client) -> None:
        self.doc = http.get("/openapi.json").json()
        self.checked: set[tuple[str, str, int]] = set()

    def check(self, method: str, path: str, answer: httpx.Response) -> Any:
        operation = self.doc["paths"][path][method]
        status = str(answer.status_code)
        assert status in operation["responses"], (method, path, status, answer.text)
        content = operation["responses"][status].get("content", {})
        kind = answer.headers.get("content-type", "").split(";")[0]
        assert kind in content, (method, path, status, kind)
        schema = content[kind].get("schema")
        body = answer.json()
        if schema:
            root = {**schema, "components": self.doc["components"]}
            errors = sorted(Draft202012Validator(root).iter_errors(body), key=str)
            assert not errors, (method, path, status, [e.message for e in errors[:3]])
        self.checked.add((method, path, answer.status_code))
        return body


@pytest.fixture
def document(http: httpx.Client) -> Document:
    return Document(http)


def get(doc: Document, http: httpx.Client, path: str, token: str = "", **params: Any) -> Any:
    """GET a concrete path, checked against its templated operation."""
    template = templated(path)
    answer = http.get(path, params=params, headers=auth(token) if token else {})
    return doc.check("get", template, answer)


def templated(path: str) -> str:
    parts = path.split("/")
    if len(parts) > 3 and parts[2] == "games":
        parts[3] = "{game_id}"
    if len(parts) > 3 and parts[2] == "tournaments":
        parts[3] = "{tournament_id}"
    return "/".join(parts)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_game_answers_as_the_document_says(
    http: httpx.Client, document: Document, game: str
) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot_level": "random"}]
    made = create(http, game, seats, options={"target": 3} if game == "giraffometer" else {})
    gid, tokens = made["game_id"], {int(s): t for s, t in made["tokens"].items()}
    rng, bot = SeededRng("openapi", game), GAMES[game].bot("random")
    for _ in range(400):
        spectator = get(document, http, f"/v1/games/{gid}")
        get(document, http, f"/v1/games/{gid}/commands")
        if spectator["view"]["status"]["over"]:
            break
        moved = False
        for token in tokens.values():
            view = get(document, http, f"/v1/games/{gid}", token)
            legal = get(document, http, f"/v1/games/{gid}/commands", token)
            if not legal["to_act"] or legal["version"] != view["version"]:
                continue
            body = {"command": bot(view["view"], legal, rng), "command_id": uuid.uuid4().hex}
            answer = http.post(f"/v1/games/{gid}/commands", json=body, headers=auth(token))
            if answer.status_code == 200:
                document.check("post", "/v1/games/{game_id}/commands", answer)
                moved = True
        if not moved:
            until(lambda: True, timeout=0.2)  # the bot's turn: it moves at once
    record = finished_record(http, gid)
    document.check("get", "/v1/games/{game_id}/record", http.get(f"/v1/games/{gid}/record"))
    last = record["commands"][-1]["events"][-1]["version"]
    for token in ("", tokens[0]):
        get(document, http, f"/v1/games/{gid}/events", token, limit=500)
        for version in (1, last // 2, last):
            get(document, http, f"/v1/games/{gid}/replay", token, version=version)
            get(document, http, f"/v1/games/{gid}/replay", token, version=version, reveal=True)
    get(document, http, f"/v1/games/{gid}/seats")
    # A problem: a command after the end (documented, problem+json).
    stale = http.post(
        f"/v1/games/{gid}/commands",
        json={"command": {"type": "leave"}, "command_id": "late"},
        headers=auth(tokens[0]),
    )
    document.check("post", "/v1/games/{game_id}/commands", stale)


def test_a_tournament_and_the_account_routes_answer_as_the_document_says(
    http: httpx.Client, document: Document
) -> None:
    made = http.post(
        "/v1/tournaments", json={"games": ["giraffometer"], "rounds": 1, "table_size": 2}
    )
    tid, organiser = made.json()["tournament_id"], made.json()["organiser_token"]
    for i in range(2):
        bot = {"name": f"b{i}", "kind": "bot", "bot_level": "random"}
        http.post(f"/v1/tournaments/{tid}/players", json=bot, headers=auth(organiser))
    http.post(f"/v1/tournaments/{tid}/start", headers=auth(organiser))
    over = until(lambda: (t := http.get(f"/v1/tournaments/{tid}").json())["status"]["over"] and t)
    get(document, http, f"/v1/tournaments/{tid}")
    get(document, http, f"/v1/tournaments/{tid}/standings")
    get(document, http, f"/v1/games/{tid}/events", limit=500)
    version = over["version"]
    get(document, http, f"/v1/games/{tid}/replay", version=version)
    get(document, http, f"/v1/games/{tid}/replay", version=1, reveal=True)
    # Account routes: a body that is not JSON is a documented 400.
    for path in ("/v1/accounts", "/v1/sessions"):
        bad = http.post(path, content=b"{not json", headers={"content-type": "application/json"})
        assert bad.status_code == 400, bad.text
        document.check("post", path, bad)
