"""A tournament as a game the engine runtime runs: its organiser (seat 0) registers
players and starts it; the tournament runner (seat -1, the engine's own actor) reports
each table's result. decide is pure: pairings come from the state and the seeded
generator, ratings from openskill, and both are recorded in the events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.events import stored
from services.kernel.game import ENGINE, Decision, Event, Status
from services.kernel.names import clean_name, look_alike_key
from services.kernel.rng import SeededRng
from services.tournament import events as ev
from services.tournament import pairing, ratings, scoring
from services.tournament.commands import Command, Join, Register, Remove, Result, Start
from services.tournament.evolve import evolve
from services.tournament.options import MAX_PLAYERS
from services.tournament.state import Round, State, entrants

__all__ = ["decide", "entrants", "evolve", "ranked", "setup", "status"]

ORGANISER = 0


def setup(state: State, opts: Mapping[str, Any], rng: SeededRng, now_ms: int = 0) -> list[Event]:
    """Game options with secrets (a custom deck's answers) are recorded apart."""
    if opts["game_options"] == state.options["game_options"]:
        return []
    return [stored(ev.GameOptionsSet(opts["game_options"]), ORGANISER)]


def decide(
    state: State, seat: int, command: Command, rng: SeededRng, now_ms: int = 0
) -> Decision[State]:
    events = _events(state, seat, command, rng)
    after = state
    for event in events:
        after = evolve(after, event)
    return Decision(events, after)


def _events(state: State, seat: int, command: Command, rng: SeededRng) -> list[Event]:
    if state.over:
        raise RuleViolation("the tournament is over", "game_over")
    if isinstance(command, Result):
        if seat != ENGINE:
            raise RuleViolation("results are reported by the tournament runner", "not_yours")
        return _result(state, command, rng)
    if isinstance(command, Join):
        return [_join(state, seat, command)]
    if seat != ORGANISER:
        raise RuleViolation("only the organiser may do that", "not_organiser")
    if state.started:
        raise RuleViolation("the tournament has started", "already_started")
    match command:
        case Register():
            entrant = (command.account, command.program)
            return [_register(state, command.name, command.kind, command.bot_level, entrant)]
        case Remove():
            return [_remove(state, command)]
        case Start():
            return _start(state, rng)


def _join(state: State, seat: int, command: Join) -> Event:
    """A person registering themself into an open tournament. The gateway sends it as the
    engine's own actor once it has checked nothing but the request (no token: anyone with
    the tournament's link), so the event says the organiser did not register them."""
    if seat != ENGINE:
        raise RuleViolation("players join through the gateway's join", "not_yours")
    if not state.options.get("open_registration", False):
        raise RuleViolation("this tournament's organiser registers its players", "closed")
    if state.started:
        raise RuleViolation("the tournament has started", "already_started")
    entrant = (command.account, command.program)
    return _register(state, command.name, "human", None, entrant, ENGINE)


def _register(
    state: State,
    raw_name: str | None,
    kind: str,
    bot_level: str | None,
    entrant: tuple[str | None, bool] = (None, False),
    actor: int = ORGANISER,
) -> Event:
    """A new entrant; ``entrant``: the account it is (if any) and whether that account is
    a program's, which only a tournament allowing bots (or a ladder) takes."""
    name, level = clean_name(raw_name), bot_level or ""
    account, program = entrant
    if kind not in ("human", "bot") or len(level) > 32 or (account and kind != "human"):
        raise InvalidArgument("kind is human or bot; bot_level a short string", "bad_player")
    allowed = state.options.get("bots_allowed") or state.options["format"] == "ladder"
    if program and not allowed:
        raise RuleViolation("this tournament takes no bot accounts", "bots_not_allowed")
    if account and any(p.account == account for p in state.players if not p.removed):
        raise RuleViolation("that account has entered already", "already_entered")
    most = state.options.get("max_players", MAX_PLAYERS)
    if len(entrants(state)) >= most:
        raise RuleViolation(f"at most {most} players", "tournament_full")
    if look_alike_key(name) in state.taken:
        raise RuleViolation(f"{name!r} (or a name that looks like it) is taken", "name_taken")
    registered = ev.PlayerRegistered(
        len(state.players), name, kind, level, account or None, True if program else None
    )
    return stored(registered, actor)


def _remove(state: State, command: Remove) -> Event:
    """The organiser takes an entrant out before the start (a name they do not want, an
    address that joined too often); the player keeps their number, never plays."""
    player = command.player
    if player is None:
        raise InvalidArgument("player is a player's number", "bad_player")
    if player not in entrants(state):
        raise RuleViolation(f"no entrant {player}", "no_such_player")
    return stored(ev.PlayerRemoved(player), ORGANISER)


def _start(state: State, rng: SeededRng) -> list[Event]:
    if len(entrants(state)) < state.options["table_size"]:
        need = state.options["table_size"]
        raise RuleViolation(f"at least {need} players are needed", "too_few_players")
    if state.options["format"] == "ladder":
        _check_ladder(state)
    started = stored(ev.TournamentStarted(len(entrants(state))), ORGANISER)
    after = evolve(state, started)
    return [started, _round_started(after, rng)]


def _check_ladder(state: State) -> None:
    """A bot ladder seats every entrant at every table, each in every seat once a round:
    exactly a table of bots."""
    players = [state.players[p] for p in entrants(state)]
    if len(players) != state.options["table_size"]:
        need = state.options["table_size"]
        raise RuleViolation(f"a ladder has exactly {need} entrants (the table)", "bad_ladder")
    if not all(p.plays_as_bot for p in players):
        raise RuleViolation(
            "a ladder is for bots: every entrant a bot level or a bot account", "bad_ladder"
        )


def _result(state: State, command: Result, rng: SeededRng) -> list[Event]:
    current = state.current
    number, index, keys = command.round, command.table, command.keys
    if current is None or number != current.round:
        raise RuleViolation("not a table of the current round", "not_current")
    table = next((t for t in current.tables if t.table == index), None)
    if table is None or table.finished:
        raise RuleViolation("no such unfinished table in this round", "not_current")
    if keys is None or len(keys) != len(table.players):
        raise InvalidArgument("keys: one number per seat of the table", "bad_keys")
    # Ratings move as each game finishes (the table's placings), recorded in the event.
    rated = ratings.rate(state.ratings, [(table.players, scoring.ranks(keys))])
    finished = stored(
        ev.TableFinished(
            round=number,
            table=table.table,
            keys=[float(k) for k in keys],
            ratings=[list(rated[p]) for p in table.players],
        )
    )
    events = [finished]
    after = evolve(state, finished)
    if all(t.finished for t in after.current.tables):  # type: ignore[union-attr]
        ended = _round_ended(after)
        events.append(ended)
        after = evolve(after, ended)
        events.append(_next(after, rng))
    return events


def _round_ended(state: State) -> Event:
    current = state.current
    assert current is not None
    alive = _survivors(state) if state.options["format"] == "elimination" else []
    return stored(
        ev.RoundEnded(
            round=current.round,
            points=_round_points(state, current),
            ratings=[list(r) for r in state.ratings],  # everyone's, after the round
            alive=alive,
        )
    )


def _round_points(state: State, current: Round) -> list[float]:
    """Every player's points from the round: table points (or duplicate matchpoints);
    a bye earns half the most anyone could earn."""
    points = [0.0] * len(state.players)
    tables = current.tables
    duplicate = state.options["format"] in ("duplicate", "ladder")
    if duplicate:
        earned = scoring.matchpoints([t.keys or () for t in tables])
    else:
        earned = [scoring.table_points(t.keys or ()) for t in tables]
    for table, table_points in zip(tables, earned, strict=True):
        for player, got in zip(table.players, table_points, strict=True):
            points[player] = got
    most = len(tables) - 1 if duplicate else state.options["table_size"] - 1
    for player in current.byes:
        points[player] = most / 2
    return points


def _survivors(state: State) -> list[int]:
    current = state.current
    assert current is not None
    advance = state.options["advance"]
    out = list(current.byes)
    for t in current.tables:
        order = sorted(
            range(len(t.players)),
            key=lambda i: (-(t.keys or ())[i], -ratings.ordinal(state.ratings[t.players[i]])),
        )
        out += [t.players[i] for i in order[: advance if len(current.tables) > 1 else 1]]
    place = {p: i for i, p in enumerate(ranked(state))}
    return sorted(out, key=place.__getitem__)


def _next(state: State, rng: SeededRng) -> Event:
    fmt, done = state.options["format"], len(state.rounds)
    if fmt == "round_robin":
        last = done >= pairing.round_robin_rounds(len(entrants(state)))
    elif fmt == "elimination":
        final = len(state.rounds[-1].tables) == 1 and not state.rounds[-1].byes
        last = final or len(state.alive) < 2
    else:
        last = done >= state.options["rounds"]
    if not last:
        return _round_started(state, rng)
    champions = state.alive[:1] if fmt == "elimination" else (ranked(state)[0],)
    return stored(ev.GameEnded(list(champions), state.seed))


def _round_started(state: State, rng: SeededRng) -> Event:
    number = len(state.rounds) + 1
    games = state.options["games"]
    fmt, size = state.options["format"], state.options["table_size"]
    if fmt == "round_robin":
        tables, byes = pairing.round_robin(entrants(state), number - 1)
    elif fmt == "ladder":
        tables, byes = pairing.rotations(entrants(state)), []
    elif fmt == "elimination":
        alive = list(state.alive) if state.rounds else ranked(state)
        if len(alive) <= size:
            tables, byes = [alive], []
        else:
            tables, byes = pairing.elimination(alive, size)
    else:
        met = opponents(state)
        bye_counts: dict[int, int] = {}
        for r in state.rounds:
            for p in r.byes:
                bye_counts[p] = bye_counts.get(p, 0) + 1
        order = ranked(state) if state.rounds else _shuffled(entrants(state), rng)
        tables, byes = pairing.pods(order, size, lambda a, b: b in met[a], bye_counts)
    return stored(
        ev.RoundStarted(
            round=number,
            game=games[(number - 1) % len(games)],
            tables=[{"table": i, "players": t} for i, t in enumerate(tables)],
            byes=byes,
        )
    )


def _shuffled(players: list[int], rng: SeededRng) -> list[int]:
    order = list(players)
    rng.shuffle(order)
    return order


def opponents(state: State) -> list[set[int]]:
    """Everyone each player has shared a table with, in one pass over the rounds."""
    met: list[set[int]] = [set() for _ in state.players]
    for r in state.rounds:
        for t in r.tables:
            for p in t.players:
                met[p].update(t.players)
    for p, others in enumerate(met):
        others.discard(p)
    return met


def buchholz(state: State) -> list[float]:
    """Each player's Buchholz tie-break: the points of everyone they have met."""
    return [sum(state.points[q] for q in others) for others in opponents(state)]


def ranked(state: State) -> list[int]:
    """Entrants in standings order: points, then Buchholz, then rating, then seniority.
    Buchholz is computed once for everyone: once per player and sort key made large
    tournaments' views quadratic."""
    tiebreak = buchholz(state)
    return sorted(
        entrants(state),
        key=lambda p: (-state.points[p], -tiebreak[p], -ratings.ordinal(state.ratings[p]), p),
    )


def status(state: State) -> Status:
    if state.over:
        return Status((), True, (), (), {"champions": list(state.champions)})
    if state.started:
        return Status(())
    return Status((ORGANISER,))
