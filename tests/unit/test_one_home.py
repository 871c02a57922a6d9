"""One home per game: every game is a package with the same modules, importing only the
kernel and itself; nothing outside it names its package; its events and commands are
typed, and a fold refuses an event the game does not declare."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from services.games import GAMES, PACKAGES
from services.kernel.events import UnknownEvent
from services.kernel.game import SPECTATOR, Event
from services.kernel.how_to_play import Block, Figure, Heading, Paragraph, Points, Steps
from services.kernel.playthrough import play_bots
from services.kernel.spec import GameSpec
from services.kernel.views import LegalShape

ROOT = Path(__file__).resolve().parents[2]
EVERY_GAME = [*PACKAGES, "tests.games.pebbles"]


def table_of(game: GameSpec[Any], options: dict[str, Any]) -> int:
    """The seats the walking tests play these options with: one more than the least
    (as many as the table takes at most, if fewer: a solo game is one)."""
    rule = game.seat_rule(options)
    return int(min(rule["min"] + 1, rule["max"]))


def played_ways(game: GameSpec[Any]) -> list[dict[str, Any]]:
    """The defaults, then each other way the game says it can be played (GameSpec.variants)."""
    return [{}, *game.variants]


MODULES = {
    *("game", "state", "events", "commands", "options", "rules", "evolve", "view", "bots"),
    "how_to_play",
}


def folder(package: str) -> Path:
    return ROOT.joinpath(*package.split("."))


@pytest.mark.parametrize("package", EVERY_GAME)
def test_every_game_has_the_same_modules(package: str) -> None:
    present = {p.stem for p in folder(package).glob("*.py")}
    assert present >= MODULES, f"{package} lacks {MODULES - present}"


def test_the_import_floors_hold_and_name_every_game() -> None:
    """The floors are import-linter contracts (pyproject.toml, [tool.importlinter];
    `make lint` runs them too): a game imports only the kernel and itself, games are
    independent, nothing outside a game imports it, the kernel and the core import
    nothing above them, no service imports the gateway. What the tool cannot say: that
    the contracts name every game there is."""
    done = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and " 0 broken" in done.stdout, done.stdout[-4000:]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contracts = {c["name"]: c for c in config["contracts"]}
    games = set(EVERY_GAME)
    assert games <= set(contracts["A game imports only the kernel and itself"]["source_modules"])
    assert games <= set(contracts["Games are independent of each other"]["modules"])
    for name in ("The core runs any game it is handed: no game list, no game, no service above it",
                 "The kernel imports nothing of Raffe but itself"):  # fmt: skip
        assert set(PACKAGES) <= set(contracts[name]["forbidden_modules"]), name


@pytest.mark.parametrize("name", list(GAMES))
def test_a_fold_refuses_an_event_the_game_does_not_declare(name: str) -> None:
    game = GAMES[name]
    with pytest.raises(UnknownEvent):
        game.evolve(game.initial(), Event("SomethingNew", {}))


@pytest.mark.parametrize("name", list(GAMES))
def test_every_event_a_game_writes_is_declared_and_folds_back_alike(name: str) -> None:
    """Bots play whole games through the game's command schema; each stored event is a
    declared type, and folding the stored log gives the state the game decided on."""
    game = GAMES[name]
    played = play_bots(game, [game.bot("random")] * game.players[0], f"home-{name}")
    assert game.events is not None
    assert {e.type for e in played.events} <= set(game.events)
    state = game.initial()
    for event in played.events:  # as the store gives them back: JSON
        state = game.evolve(state, Event(event.type, json.loads(json.dumps(event.data))))
    assert game.view(state, 0) == game.view(played.state, 0)
    assert game.status(state) == game.status(played.state)


def test_the_test_only_game_is_a_package_the_registry_loads_by_name() -> None:
    pebbles = importlib.import_module("tests.games.pebbles.game").GAME
    assert pebbles.name == "pebbles" and pebbles.name not in GAMES
    assert {p.name for p in folder("tests.games.pebbles").glob("*.py")} == {
        "__init__.py",
        *(f"{m}.py" for m in MODULES),
    }


def declared(model: type | None) -> type[BaseModel]:
    """A GameSpec's declared shape (of its view or its legal commands)."""
    assert model is not None and issubclass(model, BaseModel)
    return model


@pytest.mark.parametrize("name", list(GAMES))
def test_every_view_a_game_shows_has_its_declared_shape(name: str) -> None:
    """The typed views the API documents (view.py) are the views clients get: every
    seat's, a spectator's and a revealed one, after every move of whole games."""
    game = GAMES[name]
    view_model, legal_model = declared(game.view_model), declared(game.legal_model)
    for options in played_ways(GAMES[name]):
        seats = table_of(game, options)
        checked = 0
        played = play_bots(game, [game.bot("random")] * seats, f"shape-{name}", options)
        state = game.initial()
        for event in played.events:
            state = game.evolve(state, event)
            for seat in (*range(seats), SPECTATOR):
                view_model.model_validate(game.view(state, seat))
                LegalShape.model_validate(game.legal_commands(state, seat))
                legal_model.model_validate(game.legal_commands(state, seat))
            view_model.model_validate(game.view(state, 0, True))  # revealed
            checked += 1
        assert checked == len(played.events) > 10


MIXED_SPEC = """
from services.giraffe_raffe import rules, view
from services.giraffe_raffe.state import State
from services.kernel.spec import GameSpec
from services.riff_raff.evolve import evolve

MIXED = GameSpec(
    name="mixed", engine_version="mixed/1", options=lambda raw, seats: {}, initial=State,
    setup=rules.setup, decide=rules.decide, evolve=evolve, status=rules.status,
    view=view.view, redact=view.redact, legal_commands=view.legal_commands,
)
"""


def test_mypy_refuses_a_game_whose_functions_take_another_games_state(
    tmp_path: Path,
) -> None:
    """GameSpec is generic in the game's state: a spec that hands in another game's
    evolve is a type error (make lint runs mypy over every game's spec)."""
    module = tmp_path / "mixed_spec.py"
    module.write_text(MIXED_SPEC)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", str(module)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert checked.returncode == 1, checked.stdout
    assert 'Argument "evolve" to "GameSpec" has incompatible type' in checked.stdout


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_declares_how_to_play_with_sections_and_marks_that_close(name: str) -> None:
    """Its rules page is drawn from this data alone (gateway/web/rules.js): a game without
    it would get no page, and an unclosed mark would show stars to players."""
    blocks = GAMES[name].how_to_play
    assert any(isinstance(b, Heading) for b in blocks), "no section"
    assert any(isinstance(b, Figure) for b in blocks), "no picture"
    texts = [t for b in blocks for t in _texts(b)]
    unclosed = [t for t in texts if t.replace("**", "").count("*") % 2 or t.count("**") % 2]
    assert not unclosed


def _texts(block: Block) -> list[str]:
    if isinstance(block, Paragraph):
        return [block.p]
    if isinstance(block, Steps):
        return block.ol
    if isinstance(block, Points):
        return block.ul
    return []
