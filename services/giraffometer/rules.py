"""Giraffometer as a decider (DESIGN §2): setup, decide, evolve, status. Pure functions.

Votes are secret (AL-1): a VoteCast event carries the vote, a random salt and the
commitment sha256("salt:lowest:highest"); redaction shows others only the seat and the
commitment until RoundRevealed opens every vote, so anyone can check none was changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from services.giraffometer import decks
from services.giraffometer import events as ev
from services.giraffometer import options as game_options
from services.giraffometer.commands import CloseRound, Command, Vote
from services.giraffometer.evolve import evolve
from services.giraffometer.state import POSITIONS, State
from services.giraffometer.state import Vote as Ballot
from services.kernel.commands import deadline_passed
from services.kernel.commitment import commitment, new_salt
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.flow import Flow as KernelFlow
from services.kernel.game import ENGINE, Decision, Event, SeatSpec, Status
from services.kernel.rng import SeededRng


def score_change(vote: Ballot | None, lowest: int, highest: int, penalties: bool) -> int:
    """GM-4 before the floor at 0: +1 for each right guess, -1 for each opposite one."""
    if vote is None:
        return 0
    delta = (vote.highest == highest) + (vote.lowest == lowest)
    if penalties:
        delta -= (vote.highest == lowest) + (vote.lowest == highest)
    return delta


Flow = KernelFlow[State]  # the shared Flow over Giraffometer's state


# -- setup -------------------------------------------------------------------------


def options(raw: Mapping[str, Any], seats: list[SeatSpec]) -> dict[str, Any]:
    return game_options.validate(raw, seats)


def setup(state: State, opts: Mapping[str, Any], rng: SeededRng, now_ms: int = 0) -> list[Event]:
    flow = Flow(state, evolve)
    deck = opts["deck"]
    if isinstance(deck, dict):
        flow.emit(ev.DeckLoaded(name=deck["name"], facts=deck["facts"]))
    flow.emit(ev.DeckShuffled(order=rng.shuffled(sorted(drawable(flow.state)))))
    start_round(flow, rng, now_ms)
    return flow.events


def dealt(
    pile: tuple[str, ...], facts: Mapping[str, decks.Fact], rested: frozenset[str] = frozenset()
) -> list[str]:
    """GM-7: a round's six facts, each of another kind: from the top of the pile, the
    first fact of each kind not dealt yet, the kinds of the round before (``rested``)
    only where six are not found without them (the big kinds, a hundred facts each,
    would otherwise be in every round); [] when the pile holds fewer than six kinds (a
    deck of fewer kinds is then dealt from the top)."""
    ids: list[str] = []
    kinds: set[str] = set()
    for resting in (False, True):
        for i in pile:  # kinds looked up as met: six are usually found near the top
            fact = facts.get(i)
            kind = fact.kind if fact is not None else i
            if kind not in kinds and (resting or kind not in rested):
                kinds.add(kind)
                ids.append(i)
                if len(ids) == len(POSITIONS):
                    return ids
    return []


def rested_kinds(state: State) -> frozenset[str]:
    """The kinds of the last revealed round (GM-7 gives them a rest)."""
    last = state.last_reveal or {}
    return frozenset(state.facts[i].kind for i in last.get("ids", ()) if i in state.facts)


def drawable(state: State) -> list[str]:
    """The facts a new game shuffles: a custom deck's, or the current default deck's."""
    if state.options.get("deck") != "default":
        return list(state.facts)
    current = decks.default_deck()
    return [i for i in state.facts if i in current]


def start_round(flow: Flow, rng: SeededRng, now_ms: int) -> None:
    s = flow.state
    short = len(s.pile) < len(POSITIONS)
    # GM-5: the discards are shuffled under the pile when it runs short, or (GM-7) when
    # only they would bring six kinds together.
    if short or (not dealt(s.pile, s.facts) and dealt((*s.pile, *s.discard), s.facts)):
        flow.emit(ev.DeckReshuffled(order=[*s.pile, *rng.shuffled(s.discard)]))
    rested = rested_kinds(flow.state)
    ids = dealt(flow.state.pile, flow.state.facts, rested) or list(
        flow.state.pile[: len(POSITIONS)]
    )
    timer = s.options.get("round_timer")
    flow.emit(
        ev.RoundStarted(
            round=s.round + 1,
            ids=ids,
            facts=[flow.state.facts[i].public() for i in ids],
            deadline_ms=now_ms + timer * 1000 if timer else 0,
        )
    )


# -- decide ------------------------------------------------------------------------


def decide(
    state: State, seat: int, command: Command, rng: SeededRng, now_ms: int = 0
) -> Decision[State]:
    _check_command(state, seat, command)
    flow = Flow(state, evolve, actor=seat)
    if isinstance(command, Vote):
        _vote(flow, seat, command, rng)
        if len(flow.state.votes) == state.seat_count:
            reveal(flow, rng, now_ms, closed_by="votes")
    else:
        deadline_passed(state.deadline_ms, now_ms, "round")
        reveal(flow, rng, now_ms, closed_by="timer")
    return flow.decision()


def default_move(
    state: State, seats: tuple[int, ...], rng: SeededRng, now_ms: int = 0
) -> Decision[State]:
    """AL-3: the seats out of time cast no vote; called when every seat still to vote is
    out of time, so the round is revealed with the votes that are in."""
    flow = Flow(state, evolve)
    reveal(flow, rng, now_ms, closed_by="clock")
    return flow.decision()


def _check_command(state: State, seat: int, command: Command) -> None:
    if state.over:
        raise RuleViolation("the game is over", "game_over")
    closing = isinstance(command, CloseRound)
    allowed = range(ENGINE, state.seat_count) if closing else range(state.seat_count)
    if seat not in allowed:
        raise RuleViolation("only players at the table can vote", "not_a_player")


def _vote(flow: Flow, seat: int, command: Vote, rng: SeededRng) -> None:
    lowest, highest = command.lowest, command.highest
    if lowest == highest:
        raise InvalidArgument("lowest and highest must be different positions", "same_position")
    if flow.state.vote_of(seat) is not None:
        raise RuleViolation("you have voted this round; votes are final", "already_voted")
    salt = new_salt(rng)
    flow.emit(
        ev.VoteCast(
            seat=seat,
            lowest=lowest,
            highest=highest,
            salt=salt,
            commitment=commitment(salt, lowest, highest),
        )
    )


def reveal(flow: Flow, rng: SeededRng, now_ms: int, closed_by: str) -> None:
    s = flow.state
    answers = [s.facts[i].answer for i in s.table]
    lowest = POSITIONS[answers.index(min(answers))]
    highest = POSITIONS[answers.index(max(answers))]
    penalties = bool(s.options["penalties"])
    scores, changes = [], []
    for seat in range(s.seat_count):
        new = max(0, s.scores[seat] + score_change(s.vote_of(seat), lowest, highest, penalties))
        scores.append(new)
        changes.append(new - s.scores[seat])
    flow.emit(
        ev.RoundRevealed(
            round=s.round,
            answers=answers,
            lowest_position=lowest,
            highest_position=highest,
            votes={str(seat): asdict(v) for seat, v in s.votes},
            changes=changes,
            scores=scores,
            closed_by=closed_by,
        )
    )
    target = s.options["target"]
    winners = [seat for seat, score in enumerate(scores) if score >= target]
    if winners:
        losers = [seat for seat in range(s.seat_count) if seat not in winners]
        flow.emit(ev.GameEnded(winners=winners, losers=losers, seed=s.seed))
    else:
        start_round(flow, rng, now_ms)


def status(state: State) -> Status:
    if state.over:
        losers = tuple(s for s in range(state.seat_count) if s not in state.winners)
        return Status((), True, state.winners, losers)
    waiting = tuple(s for s in range(state.seat_count) if state.vote_of(s) is None)
    detail: dict[str, Any] = {"round": state.round, "deadline_ms": state.deadline_ms}
    if state.deadline_ms:
        detail["on_deadline"] = {"type": "close_round"}  # what a clock sends (AL-3)
    return Status(waiting, detail=detail)


def result_keys(final_view: Mapping[str, Any]) -> list[float]:
    """Tournaments: crystals."""
    return [float(s) for s in final_view["scores"]]
