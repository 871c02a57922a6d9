"""state + event -> state for a tournament."""

from __future__ import annotations

from dataclasses import replace

from services.kernel.events import Folds, GameCreated
from services.kernel.names import look_alike_key
from services.kernel.shared import options
from services.tournament import events as ev
from services.tournament import ratings
from services.tournament.events import EVENTS
from services.tournament.state import Player, Round, State, Table, entrants


def _created(state: State, e: GameCreated) -> State:
    return State(options=options(e.options), seed=e.seed)


def _options_set(state: State, e: ev.GameOptionsSet) -> State:
    return state.but(options={**state.options, "game_options": dict(e.game_options)})


def _registered(state: State, e: ev.PlayerRegistered) -> State:
    player = Player(e.name, e.kind, e.bot_level, account=e.account or "", program=bool(e.program))
    return state.but(players=(*state.players, player), taken=state.taken | {look_alike_key(e.name)})


def _removed(state: State, e: ev.PlayerRemoved) -> State:
    players = tuple(
        replace(p, removed=True) if i == e.player else p for i, p in enumerate(state.players)
    )
    taken = state.taken - {look_alike_key(state.players[e.player].name)}
    return state.but(players=players, taken=taken)


def _started(state: State, e: ev.TournamentStarted) -> State:
    n = len(state.players)  # numbers stay: a removed player's entries are never used
    return state.but(
        started=True,
        points=(0.0,) * n,
        ratings=(ratings.INITIAL,) * n,
        alive=tuple(entrants(state)),
    )


def _round_started(state: State, e: ev.RoundStarted) -> State:
    tables = tuple(Table(x["table"], e.game, tuple(x["players"])) for x in e.tables)
    return state.but(rounds=(*state.rounds, Round(e.round, e.game, tables, tuple(e.byes))))


def _table_finished(state: State, e: ev.TableFinished) -> State:
    current = state.current
    assert current is not None
    table = next(t for t in current.tables if t.table == e.table)
    new_ratings = list(state.ratings)
    for player, (mu, sigma) in zip(table.players, e.ratings, strict=True):
        new_ratings[player] = (mu, sigma)
    tables = tuple(t.but(keys=tuple(e.keys)) if t.table == e.table else t for t in current.tables)
    return state.but(
        ratings=tuple(new_ratings),
        rounds=(*state.rounds[:-1], Round(current.round, current.game, tables, current.byes)),
    )


def _round_ended(state: State, e: ev.RoundEnded) -> State:
    current = state.current
    assert current is not None
    new_ratings = tuple((r[0], r[1]) for r in e.ratings)
    closed = Round(current.round, current.game, current.tables, current.byes, tuple(e.points))
    return state.but(
        rounds=(*state.rounds[:-1], closed),
        points=tuple(a + b for a, b in zip(state.points, e.points, strict=True)),
        ratings=new_ratings,
        rating_history=(*state.rating_history, new_ratings),
        alive=tuple(e.alive) if state.options["format"] == "elimination" else state.alive,
    )


def _ended(state: State, e: ev.GameEnded) -> State:
    return state.but(over=True, champions=tuple(e.champions), seed=e.seed)


evolve: Folds[State] = Folds(
    EVENTS,
    {
        GameCreated: _created,
        ev.GameOptionsSet: _options_set,
        ev.PlayerRegistered: _registered,
        ev.PlayerRemoved: _removed,
        ev.TournamentStarted: _started,
        ev.RoundStarted: _round_started,
        ev.TableFinished: _table_finished,
        ev.RoundEnded: _round_ended,
        ev.GameEnded: _ended,
    },
)
