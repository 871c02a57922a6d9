"""What follows by itself in Riff Raff: the reveal, the captain, the turn order, the next
turn, the next round and the end (RR-3, RR-6)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.kernel.flow import Flow as KernelFlow
from services.kernel.game import ENGINE
from services.riff_raff import events as ev
from services.riff_raff.evolve import evolve
from services.riff_raff.state import State


def stamp_deadline(flow: KernelFlow[State], typed: Any) -> Any:
    """With a turn timer, an event after which someone new must act carries the deadline
    (AL-3), counted from the command's clock."""
    timer = flow.state.options.get("turn_timer")
    if not timer or not hasattr(typed, "deadline_ms"):
        return typed
    if isinstance(typed, ev.PieceLoaded) and not (typed.outcome or {}).get("fell"):
        return typed
    return replace(typed, deadline_ms=flow.now_ms + timer * 1000)


def new_flow(state: State, actor: int = ENGINE, now_ms: int = 0) -> Flow:
    return Flow(state, evolve, actor, now_ms, stamp=stamp_deadline)


# The shared Flow (services.kernel.flow) over Riff Raff's state, stamping deadlines.
Flow = KernelFlow[State]


def start_round(flow: Flow) -> None:
    s = flow.state
    if not any(s.hands):
        if s.seat_count == 2 and s.passes == 1:
            flow.emit(ev.CardsReturned())
        else:
            return end_by_count(flow)
    flow.emit(ev.RoundStarted(round=flow.state.round + 1))


def reveal(flow: Flow) -> None:
    """All chose: show the cards, then the captain (RR-3)."""
    s = flow.state
    flow.emit(
        ev.CardsRevealed(
            cards={str(seat): c.card for seat, c in s.choices},
            salts={str(seat): c.salt for seat, c in s.choices},
        )
    )
    cards = flow.state.revealed
    top = max(cards.values())
    tied = sorted(seat for seat, card in cards.items() if card == top)
    if len(tied) > 1:
        flow.emit(ev.DecisionPending(kind="choose_captain", by=s.captain, seats=tied))
        return
    flow.emit(ev.CaptainChosen(seat=tied[0]))
    order_players(flow)


def groups(s: State) -> list[list[int]]:
    """Seats by card, highest first; the captain leads the group of the highest card."""
    by_card: dict[int, list[int]] = {}
    for seat, card in s.revealed.items():
        by_card.setdefault(card, []).append(seat)
    out = [sorted(by_card[c]) for c in sorted(by_card, reverse=True)]
    first = out[0]
    if s.captain in first:
        first.remove(s.captain)
        out[0] = [s.captain, *first]
    return out


def order_players(flow: Flow, decided: dict[str, list[int]] | None = None) -> None:
    """Set the turn order, asking the captain to order each group of equal cards."""
    decided = decided or {}
    order: list[int] = []
    for card_group in groups(flow.state):
        lead = card_group[:1] if card_group[0] == flow.state.captain else []
        rest = card_group[len(lead) :]
        key = ",".join(map(str, sorted(rest)))
        if len(rest) > 1 and key not in decided:
            flow.emit(
                ev.DecisionPending(
                    kind="order_players",
                    by=flow.state.captain,
                    seats=sorted(rest),
                    decided=decided,
                )
            )
            return
        order += lead + (decided.get(key) or rest)
    flow.emit(ev.TurnOrderSet(order=order))
    begin_turn(flow, order[0])


def begin_turn(flow: Flow, seat: int) -> None:
    flow.emit(ev.TurnStarted(seat=seat, area=flow.state.revealed[seat]))


def end_turn(flow: Flow) -> None:
    s = flow.state
    assert s.turn is not None
    seat = s.turn.seat
    flow.emit(ev.TurnEnded(seat=seat))
    if not flow.state.supplies[seat]:  # RR-6: no pieces left at the end of the turn
        flow.emit(ev.GameEnded(winners=[seat], reason="emptied", seed=s.seed))
        return
    nxt = s.turn_index + 1
    if nxt < len(s.order):
        begin_turn(flow, s.order[nxt])
    else:
        start_round(flow)


def end_by_count(flow: Flow) -> None:
    s = flow.state
    counts = [len(p) for p in s.supplies]
    fewest = min(counts)
    winners = [seat for seat, n in enumerate(counts) if n == fewest]
    flow.emit(ev.GameEnded(winners=winners, reason="cards_out", pieces=counts, seed=s.seed))


def catch_chance(height: float) -> float:
    """The further a piece drops, the harder it is to catch (RR-7)."""
    return max(0.05, min(0.9, 0.95 - 0.02 * height))
