"""The table around every game (DESIGN §2, docs/fair-table.md): who still sits at it, the
players' time banks, and the endings a table decides rather than a game's rules.

``seated(spec)`` wraps any GameSpec into one whose state is ``Table(game state, ...)``:
the engine, the projection, replays and the live hub fold and view it through the same
functions as before, so every game gets, with no code of its own but a default move:

- concede / leave: the seat's player gives up; a bot stands in for the seat so the
  others can finish (Board Game Arena's "zombie"); the player ranks last. A concession
  at a table of two ends the game for the other player.
- seat_gone (the engine's, sent when presence says a player is gone past a setting): a
  bot stands in until the player sends ``return``; at a table of two the other player
  may ``claim_win`` once a countdown has passed (at once after a ``leave``).
- time banks (options ``bank_timer``, ``bank_increment``): every seat the game waits on
  runs its own clock from when it had to act (in simultaneous phases every seat that
  has not yet acted); a move adds the increment. When a bank runs out, ``flag`` (sent by
  the bot runner at the deadline the status shows) plays the game's default move
  (``GameSpec.expire``, AL-3) for the seats out of time.

Everything is an event (SeatLeft, SeatGone, SeatReturned, ClocksSet and the table's own
GameEnded, marked ``by_table``), so a replay shows it and the state stays a fold of the log.
Time comes in as the command's clock, as everywhere in game logic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, Generic, Literal, TypeVar, Union, get_args, get_origin

from pydantic import Field, create_model

from services.kernel.commands import Strict, seconds_option
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.events import EventTypes, event, payload
from services.kernel.game import ENGINE, JSON, Decision, Event, SeatSpec, Status
from services.kernel.rng import SeededRng
from services.kernel.spec import GameSpec, unsealed
from services.kernel.views import Shape

S = TypeVar("S")
TABLE_OPTIONS = ("bank_timer", "bank_increment", "spectator_delay_moves", "spectator_delay_s")
# Spectators see a table this many moves late unless its options say otherwise, when a
# seat is a player's at creation (a rated game, a quick-play table: docs/fair-table.md).
DEFAULT_DELAY_MOVES = 2
CLAIM_AFTER_S = 60  # default countdown before a table of two may claim a gone seat's game


# -- events --------------------------------------------------------------------------


@event
class SeatLeft:
    """A player conceded or left; a bot stands in for the seat to the end."""

    seat: int
    reason: str  # "conceded" | "left"
    claim_from_ms: int = 0  # at a table of two: when the other may claim the win


@event
class SeatGone:
    """Presence found the seat's player gone past the setting; a bot stands in."""

    seat: int
    claim_from_ms: int = 0


@event
class SeatReturned:
    """A gone player came back and plays their seat again."""

    seat: int


@event
class ClocksSet:
    """Every seat's time bank after a command (ms left; when its clock started, 0 while
    it is not running; the seats whose bank ran out in the current phase)."""

    banks: list[int]
    since: list[int]
    flagged: list[int] = field(default_factory=list)


TABLE_EVENTS = EventTypes(SeatLeft, SeatGone, SeatReturned, ClocksSet)
# After one of these a bot plays a seat: the game is followed by the runners from then on.
STAND_IN_EVENTS = frozenset({"SeatLeft", "SeatGone"})


# -- commands ------------------------------------------------------------------------


class Concede(Strict):
    """Give the game up: you rank last; a bot plays your seat for the others (at a table
    of two the other player wins at once)."""

    type: Literal["concede"]


class Leave(Strict):
    """Leave the table: you rank last; a bot plays your seat so the others can finish."""

    type: Literal["leave"]


class Return(Strict):
    """Take your seat back from the bot that stood in while you were gone."""

    type: Literal["return"]


class ClaimWin(Strict):
    """At a table of two whose other player left or is gone: end the game as its winner
    (after the countdown the view shows as ``claim_from_ms``)."""

    type: Literal["claim_win"]


class Flag(Strict):
    """A time bank ran out: the seats out of time make the game's default move (sent by
    the bot runner at the status's deadline; anyone may send it)."""

    type: Literal["flag"]


class MarkGone(Strict):
    """The engine's only (seat -1): presence found ``seat``'s player gone."""

    type: Literal["seat_gone"]
    seat: int = Field(ge=0)
    claim_after_s: int = Field(default=CLAIM_AFTER_S, ge=0, le=3600)


TABLE_COMMANDS = (Concede, Leave, Return, ClaimWin, Flag, MarkGone)
TABLE_COMMAND_TYPES = frozenset(
    get_args(c.model_fields["type"].annotation)[0] for c in TABLE_COMMANDS
)


@dataclass(frozen=True)
class StandIn:
    """A command the bot runner plays for a seat a bot stands in for (the runtime wraps
    it when the engine call says so): the table refuses it for a seat its player holds,
    and refuses the player's own commands while a bot stands in."""

    command: Any


# -- state ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Table(Generic[S]):
    game: S
    kinds: tuple[str, ...] = ()  # each seat's kind at creation: human, bot, open
    seed: str = ""
    left: tuple[tuple[int, str], ...] = ()  # (seat, reason), in the order they left
    gone: tuple[int, ...] = ()
    claim_from_ms: int = 0  # a table of two: when the remaining player may claim
    bank_ms: int = 0  # 0: no time banks
    increment_ms: int = 0
    banks: tuple[int, ...] = ()
    since: tuple[int, ...] = ()
    flagged: frozenset[int] = frozenset()
    ended: Mapping[str, Any] | None = None  # the table's own GameEnded

    def but(self, **changes: Any) -> Table[S]:
        return replace(self, **changes)

    @property
    def left_seats(self) -> frozenset[int]:
        return frozenset(seat for seat, _ in self.left)

    @property
    def stand_ins(self) -> tuple[int, ...]:
        """Seats a bot plays now for a player who left or is gone."""
        return tuple(sorted(self.left_seats | set(self.gone)))

    @property
    def quiet(self) -> bool:
        """Nothing of the table to show: the game's view and status stand as they are."""
        return not (self.left or self.gone or self.bank_ms or self.ended)


# -- the wrapper ---------------------------------------------------------------------


def seated(spec: GameSpec[S]) -> GameSpec[Table[S]]:
    """``spec`` at a table (see the module); the game's own functions are unchanged."""
    t = _TableOf(spec)
    return GameSpec[Table[S]](
        name=spec.name,
        engine_version=spec.engine_version,
        title=spec.title,
        default_port=spec.default_port,
        players=spec.players,
        bots=spec.bots,
        default_bot=spec.default_bot,
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
            _with_table(spec.legal_model, "stand_in", bool), "table", list[dict[str, Any]]
        ),
        expire=t.expire if spec.expire is not None else None,
    )


class _TableOf(Generic[S]):
    def __init__(self, spec: GameSpec[S]) -> None:
        self.g = spec

    # -- options ---------------------------------------------------------------------

    def options(self, raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> JSON:
        own = {k: v for k, v in raw.items() if k not in TABLE_OPTIONS}
        options = {**self.g.options(own, seats), **_delay(raw, seats)}
        bank = seconds_option(raw, "bank_timer", 10, 7200)
        if bank is None:  # no bank: an increment means nothing (a form sends both)
            return options
        if self.g.expire is None:
            raise InvalidArgument(f"{self.g.name} has no default move for time banks", "bad_option")
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
        offered = {
            name: prop
            for name, prop in TABLE_SCHEMA.items()
            if self.g.expire is not None or not name.startswith("bank_")
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
        return _created(folded, e) if e.type == "GameCreated" else folded

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
        if isinstance(inner, TABLE_COMMANDS):
            steps = _Steps(self, t, now_ms)
            TABLE_DECIDE[type(inner)](steps, seat, inner)
        else:
            steps = _Steps(self, t, now_ms)
            if not stand_in and seat in t.gone:  # a gone player who plays is back
                steps.emit(_stored(SeatReturned(seat), seat))
            _check_player(steps.state, seat, stand_in)
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
            spent = now_ms - since[s]
            banks[s] = max(0, banks[s] - spent) + after.increment_ms
            since[s] = 0
        for s in waiting:
            if not since[s] and 0 <= s < len(since):
                since[s] = now_ms
        flagged = sorted((after.flagged - moved) & waiting)
        if (
            banks == list(after.banks)
            and since == list(after.since)
            and flagged == sorted(after.flagged)
        ):
            return None
        return _stored(ClocksSet(banks, since, flagged))

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
        deadline = _bank_deadline(t, st)
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
        out = {**seen, "table": table_json(t)}
        if "status" in seen:
            out["status"] = self.status(t).to_json()
        return out

    def legal_commands(self, t: Table[S], seat: int) -> JSON:
        if t.ended is not None or seat < 0 or seat >= len(t.kinds):
            return self.g.legal_commands(t.game, seat) if t.ended is None else _nothing(seat)
        over = self.g.status(t.game).over
        # A seat out of time waits for its default move. A stand-in's seat keeps the
        # game's commands: the bot plays them (the player's own are refused, "stand_in").
        legal = _nothing(seat) if seat in t.flagged else self.g.legal_commands(t.game, seat)
        table = [] if over else _table_moves(t, seat)
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


# -- steps of a table command ----------------------------------------------------------


class _Steps(Generic[S]):
    """A table command's events, each folded as it is emitted (like services.kernel.flow)."""

    def __init__(
        self,
        of: _TableOf[S],
        t: Table[S],
        now_ms: int,
        events: list[Event] | None = None,
        state: Table[S] | None = None,
    ) -> None:
        self.of, self.now_ms = of, now_ms
        self.expired: set[int] = set()
        self.events = events or []
        self.state = t if state is None else state

    def emit(self, e: Event) -> None:
        self.events.append(e)
        self.state = self.of.evolve(self.state, e)

    def emit_all(self, events: Sequence[Event]) -> None:
        for e in events:
            self.emit(e)

    def end(self, winners: Sequence[int], losers: Sequence[int], reason: str) -> None:
        data = {
            "winners": list(winners),
            "losers": list(losers),
            "reason": reason,
            "seed": self.state.seed,
            "by_table": True,
        }
        self.emit(Event("GameEnded", data, ENGINE))

    def expire_waiting(self, rng: SeededRng) -> None:
        """When every seat the game waits on is out of time, their default move."""
        t = self.state
        if not t.flagged or t.ended is not None or self.of.g.expire is None:
            return
        st = self.of.g.status(t.game)
        if st.over or not st.to_act or not set(st.to_act) <= t.flagged:
            return
        decided = self.of.g.expire(t.game, tuple(st.to_act), rng, self.now_ms)
        self.expired = set(st.to_act)
        self.events.extend(decided.events)
        self.state = t.but(game=decided.state)

    def run_clocks(self, mover: int) -> None:
        clocks = self.of._clocks(self.state, {mover} | self.expired, self.now_ms)
        if clocks is not None:
            self.emit(clocks)


def _concede(steps: _Steps[Any], seat: int, command: Concede | Leave) -> None:
    t = steps.state
    if not 0 <= seat < len(t.kinds) or t.kinds[seat] == "bot" or seat in t.left_seats:
        raise RuleViolation("only a player still at the table can leave it", "not_a_player")
    if steps.of.g.status(t.game).over:
        raise RuleViolation("the game is over", "game_over")
    reason = "conceded" if isinstance(command, Concede) else "left"
    others = [s for s in range(len(t.kinds)) if s != seat and s not in t.left_seats]
    if not others or (reason == "conceded" and len(t.kinds) == 2):
        steps.emit(_stored(SeatLeft(seat, reason)))
        steps.end(others, [seat, *(s for s, _ in reversed(t.left))], reason)
        return
    claim = steps.now_ms if len(t.kinds) == 2 else 0
    steps.emit(_stored(SeatLeft(seat, reason, claim), seat))


def _return(steps: _Steps[Any], seat: int, command: Return) -> None:
    t = steps.state
    if seat not in t.gone:
        raise RuleViolation("no bot stands in for your seat", "not_gone")
    steps.emit(_stored(SeatReturned(seat), seat))


def _claim(steps: _Steps[Any], seat: int, command: ClaimWin) -> None:
    t = steps.state
    _check_player(t, seat, False)
    other = [s for s in range(len(t.kinds)) if s != seat]
    if len(t.kinds) != 2 or not (set(other) <= t.left_seats | set(t.gone)):
        raise RuleViolation(
            "only at a table of two whose other player left or is gone", "nothing_to_claim"
        )
    if steps.now_ms < t.claim_from_ms:
        left = (t.claim_from_ms - steps.now_ms + 999) // 1000
        raise RuleViolation(f"the other player may come back for {left} s", "claim_too_early")
    steps.end([seat], other, "claimed")


def _flag(steps: _Steps[Any], seat: int, command: Flag) -> None:
    t = steps.state
    out = [
        s
        for s, started in enumerate(t.since)
        if started and s not in t.flagged and started + t.banks[s] <= steps.now_ms
    ]
    if not t.bank_ms or not out:
        raise RuleViolation("no time bank has run out", "clock_running")
    banks = list(t.banks)
    for s in out:
        banks[s] = 0
    steps.emit(_stored(ClocksSet(banks, list(t.since), sorted(t.flagged | set(out)))))


def _mark_gone(steps: _Steps[Any], seat: int, command: MarkGone) -> None:
    t = steps.state
    if seat != ENGINE:
        raise RuleViolation("only the engine marks a seat gone", "not_allowed")
    target = command.seat
    if target >= len(t.kinds) or t.kinds[target] == "bot" or target in t.stand_ins:
        raise RuleViolation("that seat is not a player's seat at the table", "not_a_player")
    if steps.of.g.status(t.game).over:
        raise RuleViolation("the game is over", "game_over")
    claim = steps.now_ms + command.claim_after_s * 1000 if len(t.kinds) == 2 else 0
    steps.emit(_stored(SeatGone(target, claim)))


TABLE_DECIDE: dict[type, Callable[[_Steps[Any], int, Any], None]] = {
    Concede: _concede,
    Leave: _concede,
    Return: _return,
    ClaimWin: _claim,
    Flag: _flag,
    MarkGone: _mark_gone,
}


def _check_player(t: Table[Any], seat: int, stand_in: bool) -> None:
    """A stand-in's move needs a seat a bot stands in for; a player's, their own seat."""
    if seat < 0 or seat >= len(t.kinds):
        if stand_in:
            raise RuleViolation("no such seat", "not_a_player")
        return  # the engine's own commands (timeouts) and spectators: the game decides
    taken = seat in t.stand_ins
    if stand_in and not taken:
        raise RuleViolation("this seat's player plays it", "not_taken_over")
    if not stand_in and taken:
        code = "seat_left" if seat in t.left_seats else "seat_gone"
        raise RuleViolation(
            "a bot plays this seat now"
            + ("; send return to take it back" if code == "seat_gone" else ""),
            code,
        )


# -- folds -----------------------------------------------------------------------------


def _created(t: Table[Any], e: Event) -> Table[Any]:
    kinds = tuple(str(s.get("kind", "human")) for s in e.data.get("seats", []))
    options = e.data.get("options", {})
    bank = int(options.get("bank_timer") or 0) * 1000
    n = len(kinds)
    return t.but(
        kinds=kinds,
        seed=str(e.data.get("seed", "")),
        bank_ms=bank,
        increment_ms=int(options.get("bank_increment") or 0) * 1000,
        banks=(bank,) * n if bank else (),
        since=(0,) * n if bank else (),
    )


TABLE_FOLDS: dict[str, Callable[[Table[Any], Any], Table[Any]]] = {
    "SeatLeft": lambda t, e: t.but(
        left=(*t.left, (e.seat, e.reason)),
        gone=tuple(s for s in t.gone if s != e.seat),
        claim_from_ms=e.claim_from_ms or t.claim_from_ms,
    ),
    "SeatGone": lambda t, e: t.but(gone=(*t.gone, e.seat), claim_from_ms=e.claim_from_ms),
    "SeatReturned": lambda t, e: t.but(
        gone=tuple(s for s in t.gone if s != e.seat), claim_from_ms=0
    ),
    "ClocksSet": lambda t, e: t.but(
        banks=tuple(e.banks), since=tuple(e.since), flagged=frozenset(e.flagged)
    ),
}


def _stored(typed: Any, actor: int = ENGINE) -> Event:
    return Event(type(typed).__name__, payload(typed), actor)


# -- reading helpers -------------------------------------------------------------------


def _bank_deadline(t: Table[Any], st: Status) -> int:
    running = [
        t.since[s] + t.banks[s]
        for s in st.to_act
        if 0 <= s < len(t.since) and t.since[s] and s not in t.flagged
    ]
    return min(running, default=0)


def _nothing(seat: int) -> JSON:
    return {"seat": seat, "to_act": False, "commands": []}


def _table_moves(t: Table[Any], seat: int) -> list[dict[str, Any]]:
    """The table commands ``seat`` may send now."""
    if t.kinds[seat] == "bot" or seat in t.left_seats:
        return []
    if seat in t.gone:
        return [{"type": "return"}]
    moves: list[dict[str, Any]] = [{"type": "concede"}, {"type": "leave"}]
    others = [s for s in range(len(t.kinds)) if s != seat]
    if len(t.kinds) == 2 and set(others) <= t.left_seats | set(t.gone):
        moves.append({"type": "claim_win", "valid_from_ms": t.claim_from_ms})
    return moves


class SeatAtTable(Shape):
    seat: int
    stand_in: bool  # a bot plays the seat now
    left: str | None = None  # "conceded" | "left"
    gone: bool = False


class ClocksView(Shape):
    bank_ms: int  # each player's bank at the start
    increment_ms: int
    banks_ms: list[int]  # ms left, at running_since_ms for a running clock
    running_since_ms: list[int]  # 0: not running
    flagged: list[int]  # out of time in this phase: their default move comes


class TableView(Shape):
    """What the table adds to a game's view once it has something to say."""

    seats: list[SeatAtTable]
    claim_from_ms: int = 0
    clocks: ClocksView | None = None
    ended: dict[str, Any] | None = None  # the table's own ending: reason, winners, losers
    left: list[dict[str, Any]] = Field(default_factory=list)  # in the order they left


def table_json(t: Table[Any]) -> JSON:
    reasons = dict(t.left)
    out: JSON = {
        "seats": [
            {
                "seat": s,
                "stand_in": s in reasons or s in t.gone,
                "left": reasons.get(s),
                "gone": s in t.gone,
            }
            for s in range(len(t.kinds))
        ],
        "claim_from_ms": t.claim_from_ms,
        "left": [{"seat": s, "reason": r} for s, r in t.left],
    }
    if t.bank_ms:
        out["clocks"] = {
            "bank_ms": t.bank_ms,
            "increment_ms": t.increment_ms,
            "banks_ms": list(t.banks),
            "running_since_ms": list(t.since),
            "flagged": sorted(t.flagged),
        }
    if t.ended is not None:
        out["ended"] = {k: t.ended[k] for k in ("reason", "winners", "losers")}
    return out


def ranked_keys(
    keys: list[float], ended: Mapping[str, Any] | None, left: Sequence[int]
) -> list[float]:
    """A game's result keys after the table: a claimed or conceded game's winners first;
    those who left last, the earlier leaver lower (docs/fair-table.md)."""
    if not keys:
        return keys
    out = list(keys)
    top, bottom = max(out), min(out)
    if ended is not None:
        for s in ended.get("winners", []):
            out[s] = top + 1
    for rank, s in enumerate(left):
        out[s] = bottom - len(left) + rank
    return out


# -- the wrapped spec's types ----------------------------------------------------------


def _events(types: EventTypes | None) -> EventTypes | None:
    if types is None:
        return None
    return EventTypes(*types.by_name.values(), *TABLE_EVENTS.by_name.values(), seen=types.seen)


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


# The table's options, offered with every game's own (a time bank only where the game
# has a default move).
TABLE_SCHEMA: dict[str, Any] = {
    "spectator_delay_moves": {
        "title": "Spectators see the game this many moves late",
        "type": ["integer", "null"],
        "minimum": 0,
        "maximum": 50,
        "default": None,
        "description": "null: 2 when a seat is a player's (a rated game), else 0",
    },
    "spectator_delay_s": {
        "title": "Spectators see the game this many seconds late",
        "type": ["integer", "null"],
        "minimum": 0,
        "maximum": 3600,
        "default": None,
    },
    "bank_timer": {
        "title": "Time bank per player (seconds)",
        "type": ["integer", "null"],
        "minimum": 10,
        "maximum": 7200,
        "default": None,
        "description": "each player's clock; when it runs out, the default move is played (AL-3)",
    },
    "bank_increment": {
        "title": "Seconds added per move",
        "type": "integer",
        "minimum": 0,
        "maximum": 600,
        "default": 0,
    },
}


def _delay(raw: Mapping[str, Any], seats: Sequence[SeatSpec]) -> JSON:
    """The spectator delay options, recorded only when they delay anything."""
    moves, seconds = raw.get("spectator_delay_moves"), raw.get("spectator_delay_s")
    if moves is None and seconds is None and any(s.player for s in seats):
        moves = DEFAULT_DELAY_MOVES
    out: JSON = {}
    for name, value, most in (
        ("spectator_delay_moves", moves, 50),
        ("spectator_delay_s", seconds, 3600),
    ):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
            raise InvalidArgument(f"option {name} is 0..{most}", "bad_option")
        if value:
            out[name] = value
    return out


def is_table_command(raw: Mapping[str, Any]) -> bool:
    return raw.get("type") in TABLE_COMMAND_TYPES
