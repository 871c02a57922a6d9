"""Riff Raff as a decider (DESIGN §2): options, setup, decide, status. Pure functions.

Cards are chosen secretly (AL-1): CardChosen carries the card, a salt and the commitment
sha256("salt:card"), shown to others as the commitment only until CardsRevealed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from services.kernel.commands import Timeout, check_timeout
from services.kernel.commitment import commitment, new_salt
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.game import Decision, Event, Status
from services.kernel.rng import SeededRng
from services.riff_raff import events as ev
from services.riff_raff import ship as physics
from services.riff_raff.commands import (
    Cargo,
    Catch,
    ChooseCaptain,
    ChooseCard,
    Command,
    LoadCargo,
    OrderPlayers,
    Report,
    Review,
)
from services.riff_raff.flow import (
    Flow,
    catch_chance,
    end_turn,
    new_flow,
    order_players,
    reveal,
    start_round,
)
from services.riff_raff.pieces import shape_of
from services.riff_raff.state import State

PHASE_COMMANDS = {
    "choose": {"choose_card"},
    "choose_captain": {"choose_captain"},
    "order_players": {"order_players"},
    "load": {"load"},
    "catch": {"catch"},
    "report": {"report"},
    "review": {"accept", "dispute"},
    "settle": {"settle"},
}


def setup(state: State, opts: Mapping[str, Any], rng: SeededRng, now_ms: int = 0) -> list[Event]:
    flow = new_flow(state, now_ms=now_ms)
    captain = opts.get("captain")
    flow.emit(ev.CaptainNamed(seat=rng.below(state.seat_count) if captain is None else captain))
    start_round(flow)
    return flow.events


def phase(s: State) -> str:
    if s.over:
        return "over"
    if s.pending is not None:
        return str(s.pending["kind"])
    if s.turn is None:
        return "choose"
    t = s.turn
    if s.simulated:
        return "catch" if t.fallen else "load"
    if not t.loaded:
        return "load"
    if t.report is None:
        return "report"
    return "settle" if t.disputed else "review"


def status(s: State) -> Status:
    p = phase(s)
    detail: dict[str, Any] = {"phase": p, "round": s.round, "captain": s.captain}
    if s.deadline_ms and not s.over:
        detail |= {"deadline_ms": s.deadline_ms, "on_deadline": {"type": "timeout"}}
    if s.over:
        losers = tuple(x for x in range(s.seat_count) if x not in s.winners)
        return Status((), True, s.winners, losers, detail)
    if p == "choose":
        return Status(
            tuple(x for x in range(s.seat_count) if s.choice_of(x) is None), detail=detail
        )
    if p in ("choose_captain", "order_players"):
        assert s.pending is not None
        return Status((int(s.pending["by"]),), detail=detail)
    assert s.turn is not None
    if p == "review":
        waiting = tuple(
            x for x in range(s.seat_count) if x != s.turn.seat and x not in s.turn.accepted
        )
        return Status(waiting, detail=detail)
    if p == "settle":
        return Status((s.captain,), detail=detail)
    return Status((s.turn.seat,), detail=detail)


def decide(
    state: State, seat: int, command: Command, rng: SeededRng, now_ms: int = 0
) -> Decision[State]:
    if isinstance(command, Timeout):
        return _timeout(state, rng, now_ms)
    _check(state, seat, command.type)
    flow = new_flow(state, actor=seat, now_ms=now_ms)
    _handle(flow, seat, command, rng)
    return flow.decision()


def _timeout(state: State, rng: SeededRng, now_ms: int) -> Decision[State]:
    """AL-3: whoever must act and has not, does the default: the lowest card, the first
    piece at the centre of the area, no catch, nothing reported fell, accept."""
    check_timeout(state.over, state.deadline_ms, now_ms)
    return default_moves(state, status(state).to_act, rng, now_ms)


def default_moves(
    state: State, seats: tuple[int, ...], rng: SeededRng, now_ms: int = 0
) -> Decision[State]:
    """AL-3's default of ``seats`` (of those the game waits on), by phase."""
    flow = new_flow(state, now_ms=now_ms)
    p = phase(state)
    default = DEFAULTS[p]
    for seat in seats if p in ("choose", "review") else seats[:1]:
        command = default(flow.state, seat)
        _handle(flow, seat, command, rng)
    return flow.decision()


def _default_load(s: State, seat: int) -> LoadCargo:
    piece = s.supplies[seat][0].split("-")[1]
    return LoadCargo(type="load", pieces=[Cargo(piece=piece)])


def _tied(s: State) -> list[int]:
    assert s.pending is not None
    return list(s.pending["seats"])


def _default_settle(s: State, seat: int) -> Report:
    report = s.turn.report if s.turn else None
    assert report is not None
    return Report(
        type="settle",
        fell=list(report["fell"]),
        caught=list(report["caught"]),
        second_not_loaded=report.get("second_not_loaded", False),
    )


# What a seat that let its timer run out does, by phase (AL-3).
DEFAULTS: dict[str, Callable[[State, int], Command]] = {
    "choose": lambda s, seat: ChooseCard(type="choose_card", card=min(s.hands[seat])),
    "choose_captain": lambda s, seat: ChooseCaptain(type="choose_captain", seat=_tied(s)[0]),
    "order_players": lambda s, seat: OrderPlayers(type="order_players", order=_tied(s)),
    "load": _default_load,
    "catch": lambda s, seat: Catch(type="catch", pieces=[]),
    "report": lambda s, seat: Report(type="report"),
    "review": lambda s, seat: Review(type="accept"),
    "settle": _default_settle,
}


def _check(s: State, seat: int, kind: str) -> None:
    if s.over:
        raise RuleViolation("the game is over", "game_over")
    if not 0 <= seat < s.seat_count:
        raise RuleViolation("only players at the table can act", "not_a_player")
    p = phase(s)
    if kind in ("report", "accept", "dispute", "settle") and s.simulated:
        raise RuleViolation("in simulated mode the ship itself decides what falls", "not_tabletop")
    if kind not in PHASE_COMMANDS.get(p, set()):
        raise RuleViolation(f"now is not the time to {kind} (phase: {p})", "wrong_phase")
    if seat not in status(s).to_act:
        if kind == "dispute" and s.turn and seat == s.turn.seat:
            raise RuleViolation("the active player cannot dispute their own report", "own_report")
        raise RuleViolation("it is not your move", "not_your_turn")


# -- cards, captain, order -----------------------------------------------------------


def _choose_card(flow: Flow, seat: int, command: ChooseCard, rng: SeededRng) -> None:
    card = command.card
    if card not in flow.state.hands[seat]:
        raise RuleViolation(
            f"card {card} is not in your hand (each card plays once)", "card_not_in_hand"
        )
    salt = new_salt(rng)
    flow.emit(ev.CardChosen(seat=seat, card=card, salt=salt, commitment=commitment(salt, card)))
    if len(flow.state.choices) == flow.state.seat_count:
        reveal(flow)


def _choose_captain(flow: Flow, seat: int, command: ChooseCaptain, rng: SeededRng) -> None:
    pending = flow.state.pending
    assert pending is not None
    chosen = command.seat
    if chosen not in pending["seats"]:
        raise InvalidArgument(f"choose one of the tied seats {pending['seats']}", "bad_seat")
    flow.emit(ev.CaptainChosen(seat=chosen))
    order_players(flow)


def _order_players(flow: Flow, seat: int, command: OrderPlayers, rng: SeededRng) -> None:
    pending = flow.state.pending
    assert pending is not None
    order = list(command.order)
    if sorted(order) != pending["seats"]:
        raise InvalidArgument(
            f"order must list the seats {pending['seats']} once each", "bad_order"
        )
    decided = {**pending.get("decided", {}), ",".join(map(str, pending["seats"])): order}
    flow.emit(ev.PlayersOrdered(seats=pending["seats"], order=order))
    order_players(flow, decided)


# -- loading (simulated and tabletop) --------------------------------------------------


def _pieces_to_load(s: State, seat: int, raw: Sequence[Cargo]) -> list[dict[str, Any]]:
    assert s.turn is not None
    # RR-4 in both modes: the server knows the area of every piece aboard.
    if len(raw) == 2 and (s.turn.area < 5 or not s.area_held_piece(s.turn.area)):
        raise RuleViolation(
            "a double load needs an area 5-10 that held a piece before the turn",
            "no_double_here",
        )
    supply = list(s.supplies[seat])
    out = []
    for item in raw:
        piece = next((p for p in supply if shape_of(p).name == item.piece), None)
        if piece is None:
            raise RuleViolation(f"you have no {item.piece} left to load", "piece_not_in_supply")
        supply.remove(piece)
        placement = {"position": item.position, "orientation": item.orientation}
        out.append({"id": piece, **(placement if s.simulated else {})})
    return out


def _load(flow: Flow, seat: int, command: LoadCargo, rng: SeededRng) -> None:
    s = flow.state
    assert s.turn is not None
    pieces = _pieces_to_load(s, seat, command.pieces)
    double = len(pieces) == 2
    for item in pieces:
        if not s.simulated:
            flow.emit(ev.PieceLoaded(seat=seat, piece=item["id"], area=s.turn.area, double=double))
            continue
        st = flow.state
        load = physics.Load(item["id"], s.turn.area, item["position"], item["orientation"])
        out = physics.simulate(st.tilt, st.ship, load)
        flow.emit(
            ev.PieceLoaded(
                seat=seat,
                piece=item["id"],
                area=s.turn.area,
                double=double,
                position=load.position,
                orientation=load.orientation,
                outcome=outcome_json(out),
                physics=physics.PHYSICS_VERSION,
            )
        )
        if out.fell:
            return  # RR-4: a fall ends the turn at once; no second load; the catch comes
    if s.simulated:
        end_turn(flow)


def outcome_json(out: physics.Outcome) -> dict[str, Any]:
    return {
        "tilt": out.tilt,
        "peak_tilt": out.peak_tilt,
        "pieces": [p.__dict__ for p in out.pieces],
        "fell": [{"id": f.id, "height": f.height} for f in out.fell],
    }


def _catch(flow: Flow, seat: int, command: Catch, rng: SeededRng) -> None:
    s = flow.state
    assert s.turn is not None
    fallen = dict(s.turn.fallen)
    tries = list(command.pieces)
    if len(set(tries)) != len(tries):
        raise InvalidArgument("catch up to two different fallen pieces (one per hand)", "bad_catch")
    for piece in tries:
        if piece not in fallen:
            raise RuleViolation(f"{piece!r} did not fall", "not_fallen")
    attempts = []
    for piece in tries:
        chance = catch_chance(fallen[piece])
        roll = rng.random()
        attempts.append(
            {
                "id": piece,
                "height": fallen[piece],
                "chance": round(chance, 4),
                "roll": round(roll, 6),
                "caught": roll < chance,
            }
        )
    flow.emit(ev.CatchAttempted(seat=seat, attempts=attempts))
    caught = [str(a["id"]) for a in attempts if a["caught"]]
    resolve_fall(flow, list(fallen), caught)
    end_turn(flow)


def resolve_fall(
    flow: Flow, fell: list[str], caught: list[str], back: list[str] | None = None
) -> None:
    """RR-5: caught pieces leave the game, the rest go to the active player; catching only
    the piece just placed does not count: it goes back to the player."""
    s = flow.state
    assert s.turn is not None
    # RR-4: in a double load cut short (the second piece comes back unloaded), the piece
    # just placed is the first one.
    placed = (s.turn.loaded[0] if back else s.turn.loaded[-1]) if s.turn.loaded else None
    if caught == [placed]:
        caught = []
    removed = [p for p in fell if p in caught]
    to_player = [p for p in fell if p not in caught] + (back or [])
    flow.emit(ev.FallResolved(seat=s.turn.seat, removed=removed, to_player=to_player))


# -- tabletop: report, review, settle ----------------------------------------------------


def _report_fields(s: State, command: Report) -> tuple[list[str], list[str], list[str]]:
    assert s.turn is not None
    fell, caught = list(command.fell), list(command.caught)
    aboard = set(s.aboard)
    if not set(fell) <= aboard:
        raise RuleViolation("only pieces on the ship can fall", "not_aboard")
    if not set(caught) <= set(fell) or len(caught) > 2:
        raise RuleViolation("catch at most two of the pieces that fell", "bad_catch")
    back = []
    if command.second_not_loaded:
        if not s.turn.double or len(s.turn.loaded) < 2 or not fell:
            raise RuleViolation(
                "only a double load cut short by a fall skips its second piece", "bad_report"
            )
        back = [s.turn.loaded[1]]
        if back[0] in fell:
            raise RuleViolation(
                "the second piece was not loaded, so it cannot have fallen", "bad_report"
            )
    return fell, caught, back


def _report(flow: Flow, seat: int, command: Report, rng: SeededRng) -> None:
    fell, caught, back = _report_fields(flow.state, command)
    flow.emit(ev.FallReported(seat=seat, fell=fell, caught=caught, second_not_loaded=bool(back)))


def _apply_report(flow: Flow) -> None:
    s = flow.state
    assert s.turn is not None and s.turn.report is not None
    r = s.turn.report
    back = [s.turn.loaded[1]] if r.get("second_not_loaded") else []
    resolve_fall(flow, list(r["fell"]), list(r["caught"]), back)
    end_turn(flow)


def _accept(flow: Flow, seat: int, command: Review, rng: SeededRng) -> None:
    flow.emit(ev.ReportAccepted(seat=seat))
    if not status(flow.state).to_act:
        _apply_report(flow)


def _dispute(flow: Flow, seat: int, command: Review, rng: SeededRng) -> None:
    flow.emit(ev.ReportDisputed(seat=seat))


def _settle(flow: Flow, seat: int, command: Report, rng: SeededRng) -> None:
    fell, caught, back = _report_fields(flow.state, command)
    flow.emit(
        ev.FallReported(
            seat=seat,
            fell=fell,
            caught=caught,
            second_not_loaded=bool(back),
            settled=True,
        )
    )
    _apply_report(flow)


def _handle(flow: Flow, seat: int, command: Command, rng: SeededRng) -> None:
    """Each command to its handler by its model (and, where one model has two types, by
    its type), so mypy checks every handler gets the model it reads."""
    match command:
        case ChooseCard():
            _choose_card(flow, seat, command, rng)
        case ChooseCaptain():
            _choose_captain(flow, seat, command, rng)
        case OrderPlayers():
            _order_players(flow, seat, command, rng)
        case LoadCargo():
            _load(flow, seat, command, rng)
        case Catch():
            _catch(flow, seat, command, rng)
        case Report(type="report"):
            _report(flow, seat, command, rng)
        case Report():
            _settle(flow, seat, command, rng)
        case Review(type="accept"):
            _accept(flow, seat, command, rng)
        case Review():
            _dispute(flow, seat, command, rng)
        case Timeout():  # decide answers a clock's Timeout before any handler
            raise InvalidArgument("a timeout is not a move", code="unknown_command")


def result_keys(final_view: Mapping[str, Any]) -> list[float]:
    """Tournaments: fewer pieces left in one's supply."""
    return [-float(len(supply)) for supply in final_view["supplies"]]
