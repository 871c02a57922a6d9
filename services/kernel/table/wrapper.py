"""``seated(spec)``: a game at a table (see the package)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Generic, TypeVar, Union, get_args, get_origin

from pydantic import Field, create_model

from services.kernel.commands import seconds_option
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.events import EventTypes, stored
from services.kernel.game import JSON, Decision, Event, SeatSpec, Status
from services.kernel.rng import SeededRng
from services.kernel.spec import GameSpec, unsealed
from services.kernel.table.commands import TABLE_COMMANDS, StandIn
from services.kernel.table.events import TABLE_EVENTS, ClocksSet, SeatReturned
from services.kernel.table.options import TABLE_OPTIONS, TABLE_SCHEMA, delay_options
from services.kernel.table.speed import SPEED_SCHEMA, turn_based_options
from services.kernel.table.state import TABLE_FOLDS, Table, created
from services.kernel.table.steps import TABLE_DECIDE, Steps, check_player
from services.kernel.table.timeouts import is_deadline_command, turn_ran_out
from services.kernel.table.views import (
    TableMove,
    TableView,
    bank_deadline,
    nothing,
    ranked_keys,
    table_json,
    table_moves,
)

S = TypeVar("S")


def seated(spec: GameSpec[S]) -> GameSpec[Table[S]]:
    """``spec`` at a table (see the module); the game's own functions are unchanged."""
    t = TableOf(spec)
    return GameSpec[Table[S]](
        name=spec.name,
        engine_version=spec.engine_version,
        title=spec.title,
        how_to_play=spec.how_to_play,
        default_port=spec.default_port,
        players=spec.players,
        bots=spec.bots,
        default_bot=spec.default_bot,
        bot_names=spec.bot_names,
        searching_bots=spec.searching_bots,
        clock_commands=spec.clock_commands,
        always_attended=spec.always_attended,
        variants=spec.variants,
        options=t.options,
        options_schema=t.options_schema,
        recorded_options=t.recorded_options,
        initial=t.initial,
        setup=t.setup,
        decide=t.decide,
        evolve=t.evolve,
        status=t.status,
        view=t.view,
        redact=t.redact,
        seal=unsealed if spec.seal is unsealed else t.seal,
        legal_commands=t.legal_commands,
        result_keys=t.result_keys,
        events=_events(spec.events),
        commands=_commands(spec.commands),
        view_model=_with_table(spec.view_model, "table", TableView),
        legal_model=_with_table(
            _with_table(spec.legal_model, "stand_in", bool), "table", list[TableMove]
        ),
        expire=t.expire if spec.expire is not None else None,
    )


class TableOf(Generic[S]):
    def __init__(self, spec: GameSpec[S]) -> None:
        self.g = spec

    # -- options ---------------------------------------------------------------------

    def options(self, raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> JSON:
        own = {k: v for k, v in raw.items() if k not in TABLE_OPTIONS}
        options = {**self.g.options(own, seats), **delay_options(raw, seats)}
        speed = raw.get("speed", "realtime")
        if speed not in ("realtime", "turn_based"):
            raise InvalidArgument("option speed is realtime or turn_based", "bad_option")
        timed = speed == "turn_based" or raw.get("bank_timer") is not None
        if timed and self.g.expire is None:
            raise InvalidArgument(f"{self.g.name} has no default move for time banks", "bad_option")
        if speed == "turn_based":
            return {**options, **turn_based_options(raw, options)}
        bank = seconds_option(raw, "bank_timer", 10, 7200)
        if bank is None:  # no bank: an increment means nothing (a form sends both)
            return options
        increment = raw.get("bank_increment") or 0
        if (
            isinstance(increment, bool)
            or not isinstance(increment, int)
            or not 0 <= increment <= 600
        ):
            raise InvalidArgument("option bank_increment is 0..600 seconds", "bad_option")
        return {**options, "bank_timer": bank, "bank_increment": increment}

    def recorded_options(self, options: JSON) -> JSON:
        own = self.g.recorded_options({k: v for k, v in options.items() if k not in TABLE_OPTIONS})
        return {**own, **{k: options[k] for k in TABLE_OPTIONS if k in options}}

    def options_schema(self) -> dict[str, Any]:
        schema = self.g.options_schema
        base = dict(schema() if callable(schema) else schema)
        # Time banks, and so turn-based play, only where the game has a default move.
        timed = self.g.expire is not None
        offered = {
            name: prop
            for name, prop in {**(SPEED_SCHEMA if timed else {}), **TABLE_SCHEMA}.items()
            if timed or not name.startswith("bank_")
        }
        return {**base, "properties": {**base.get("properties", {}), **offered}}

    # -- folding ---------------------------------------------------------------------

    def initial(self) -> Table[S]:
        return Table(self.g.initial())

    def evolve(self, t: Table[S], e: Event) -> Table[S]:
        fold = TABLE_FOLDS.get(e.type)
        if fold is not None:
            return fold(t, TABLE_EVENTS.parse(e))
        if e.type == "GameEnded" and e.data.get("by_table"):
            return t.but(ended=dict(e.data))
        folded = t.but(game=self.g.evolve(t.game, e))
        return created(folded, e) if e.type == "GameCreated" else folded

    # -- deciding --------------------------------------------------------------------

    def setup(
        self, t: Table[S], options: Mapping[str, Any], rng: SeededRng, now_ms: int = 0
    ) -> list[Event]:
        own = {k: v for k, v in options.items() if k not in TABLE_OPTIONS}
        events = self.g.setup(t.game, own, rng, now_ms)
        if not t.bank_ms:
            return events
        state = t
        for e in events:
            state = self.evolve(state, e)
        return events + [c for c in [self._clocks(state, set(), now_ms)] if c is not None]

    def decide(
        self, t: Table[S], seat: int, command: Any, rng: SeededRng, now_ms: int = 0
    ) -> Decision[Table[S]]:
        stand_in = isinstance(command, StandIn)
        inner = command.command if stand_in else command
        if t.ended is not None:
            raise RuleViolation("the game is over", "game_over")
        steps = Steps(self, t, now_ms)
        if isinstance(inner, TABLE_COMMANDS):
            TABLE_DECIDE[type(inner)](steps, seat, inner)
        elif not stand_in and is_deadline_command(steps, inner):
            turn_ran_out(steps, rng)  # AL-3: the bots of the seats out of time move
        else:
            if not stand_in and seat in t.gone:  # a gone player who plays is back
                steps.emit(stored(SeatReturned(seat), seat))
            check_player(steps.state, seat, stand_in)
            decided = self.g.decide(steps.state.game, seat, inner, rng, now_ms)
            steps.events.extend(decided.events)
            steps.state = steps.state.but(game=decided.state)
        steps.expire_waiting(rng)
        steps.run_clocks(seat)
        return Decision(steps.events, steps.state)

    def _clocks(self, after: Table[S], moved: set[int], now_ms: int) -> Event | None:
        """The ClocksSet after a command whose ``moved`` seats made a move (their own or
        their default), or None when no clock changed."""
        if not after.bank_ms:
            return None
        if after.ended is not None or self.g.status(after.game).over:
            return None  # GameEnded stays the last event; a finished game's clocks stop
        waiting = set(self.g.status(after.game).to_act)
        banks, since = list(after.banks), list(after.since)
        running = {s for s, started in enumerate(since) if started}
        charged = (running - waiting) | (moved & running)
        for s in charged:
            spent = max(0, now_ms - since[s])  # a clock paused for a vacation: none
            banks[s] = max(0, banks[s] - spent) + after.increment_ms
            if after.bank_max_ms:  # turn-based: a pace's bank never grows past its start
                banks[s] = min(banks[s], after.bank_max_ms)
            since[s] = 0
        for s in waiting:
            if 0 <= s < len(since) and not since[s]:
                since[s] = after.back_at(s, now_ms)  # after a vacation, if one runs
        flagged = sorted((after.flagged - moved) & waiting)
        if (
            banks == list(after.banks)
            and since == list(after.since)
            and flagged == sorted(after.flagged)
        ):
            return None
        return stored(ClocksSet(banks, since, flagged))

    # -- reading ---------------------------------------------------------------------

    def status(self, t: Table[S]) -> Status:
        st = self.g.status(t.game)
        if t.quiet:
            return st
        if t.ended is not None:
            e = t.ended
            return Status(
                (), True, tuple(e["winners"]), tuple(e["losers"]), {"reason": e["reason"]}
            )
        to_act = tuple(s for s in st.to_act if s not in t.flagged)
        detail = dict(st.detail)
        if t.stand_ins:
            detail["stand_ins"] = list(t.stand_ins)
        deadline = bank_deadline(t, st)
        if (
            deadline
            and not st.over
            and (not detail.get("deadline_ms") or deadline < detail["deadline_ms"])
        ):
            detail |= {"deadline_ms": deadline, "on_deadline": {"type": "flag"}}
        return Status(to_act, st.over, st.winners, st.losers, detail)

    def view(self, t: Table[S], seat: int, reveal: bool = False) -> JSON:
        seen = self.g.view(t.game, seat, reveal or t.ended is not None)
        if t.quiet:
            return seen
        over = bool(t.bank_ms) and (t.ended is not None or self.g.status(t.game).over)
        out = {**seen, "table": table_json(t, over)}
        if "status" in seen:
            out["status"] = self.status(t).to_json()
        return out

    def legal_commands(self, t: Table[S], seat: int) -> JSON:
        if t.ended is not None or seat < 0 or seat >= len(t.kinds):
            return self.g.legal_commands(t.game, seat) if t.ended is None else nothing(seat)
        over = self.g.status(t.game).over
        # A seat out of time waits for its default move. A stand-in's seat keeps the
        # game's commands: the bot plays them (the player's own are refused, "stand_in").
        legal = nothing(seat) if seat in t.flagged else self.g.legal_commands(t.game, seat)
        table = [] if over else table_moves(t, seat)
        if seat in t.stand_ins:
            legal = {**legal, "stand_in": True}
        return {**legal, "table": table} if table or not t.quiet else legal

    def redact(self, t: Table[S], e: Event, seat: int) -> Event:
        if e.type in TABLE_EVENTS.by_name or (e.type == "GameEnded" and e.data.get("by_table")):
            return e
        return self.g.redact(t.game, e, seat)

    def expire(
        self, t: Table[S], seats: tuple[int, ...], rng: SeededRng, now_ms: int
    ) -> Decision[Table[S]]:
        assert self.g.expire is not None
        decided = self.g.expire(t.game, seats, rng, now_ms)
        return Decision(decided.events, t.but(game=decided.state))

    def seal(self, t: Table[S], e: Event) -> Event:
        return self.g.seal(t.game, e)

    def result_keys(self, final_view: Mapping[str, Any]) -> list[float]:
        keys = list(self.g.result_keys(final_view))
        table = final_view.get("table") or {}
        return ranked_keys(keys, table.get("ended"), [s["seat"] for s in table.get("left", [])])


def _events(types: EventTypes | None) -> EventTypes | None:
    if types is None:
        return None
    # The table's own events hide nothing (TableOf.redact passes them on as they are).
    return EventTypes(
        *types.by_name.values(),
        *TABLE_EVENTS.by_name.values(),
        seen=types.seen,
        hidden=types.hidden,
    )


def _commands(commands: Any) -> Any:
    if commands is None:
        return None
    members = _members(commands)
    return Annotated[Union[tuple(members + list(TABLE_COMMANDS))], Field(discriminator="type")]  # noqa: UP007


def _members(commands: Any) -> list[Any]:
    if get_origin(commands) is Annotated:
        return _members(get_args(commands)[0])
    if isinstance(commands, type):
        return [commands]
    return [m for member in get_args(commands) for m in _members(member)]


def _with_table(model: type | None, name: str, kind: Any) -> type | None:
    if model is None:
        return None
    return create_model(model.__name__, __base__=model, **{name: (kind | None, None)})  # type: ignore[call-overload,no-any-return]
