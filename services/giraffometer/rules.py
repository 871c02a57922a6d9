"""Giraffometer as a decider (DESIGN §2): setup, decide, evolve, status. Pure functions.

Votes are secret (AL-1): a VoteCast event carries the vote, a random salt and the
commitment sha256("salt:lowest:highest"); redaction shows others only the seat and the
commitment until RoundRevealed opens every vote, so anyone can check none was changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from services.core.commands import command_type, deadline_passed
from services.core.commitment import commitment, new_salt
from services.core.errors import InvalidArgument, RuleViolation
from services.core.game import ENGINE, Event, SeatSpec, Status
from services.core.rng import SeededRng
from services.giraffometer import decks
from services.giraffometer import options as game_options
from services.giraffometer.state import POSITIONS, State, Vote

COMMAND_FIELDS = {"vote": {"type", "lowest", "highest"}, "close_round": {"type"}}
Data = Mapping[str, Any]


def score_change(vote: Vote | None, lowest: int, highest: int, penalties: bool) -> int:
    """GM-4 before the floor at 0: +1 for each right guess, -1 for each opposite one."""
    if vote is None:
        return 0
    delta = (vote.highest == highest) + (vote.lowest == lowest)
    if penalties:
        delta -= (vote.highest == lowest) + (vote.lowest == highest)
    return delta


@dataclass
class Flow:
    state: State
    actor: int = ENGINE
    events: list[Event] = field(default_factory=list)

    def emit(self, type_: str, **data: Any) -> None:
        event = Event(type_, data, self.actor)
        self.events.append(event)
        self.state = evolve(self.state, event)


# -- setup -------------------------------------------------------------------------


def options(raw: Mapping[str, Any], seats: list[SeatSpec]) -> dict[str, Any]:
    return game_options.validate(raw, seats)


def setup(state: State, opts: Mapping[str, Any], rng: SeededRng, now_ms: int = 0) -> list[Event]:
    flow = Flow(state)
    deck = opts["deck"]
    if isinstance(deck, dict):
        flow.emit("DeckLoaded", name=deck["name"], facts=deck["facts"])
    flow.emit("DeckShuffled", order=rng.shuffled(sorted(drawable(flow.state))))
    start_round(flow, rng, now_ms)
    return flow.events


def drawable(state: State) -> list[str]:
    """The facts a new game shuffles: a custom deck's, or the current default deck's."""
    if state.options.get("deck") != "default":
        return list(state.facts)
    current = decks.default_deck()
    return [i for i in state.facts if i in current]


def start_round(flow: Flow, rng: SeededRng, now_ms: int) -> None:
    s = flow.state
    if len(s.pile) < len(POSITIONS):  # GM-5: reshuffle the discards under what is left
        flow.emit("DeckReshuffled", order=[*s.pile, *rng.shuffled(s.discard)])
    ids = list(flow.state.pile[: len(POSITIONS)])
    timer = s.options.get("round_timer")
    flow.emit(
        "RoundStarted",
        round=s.round + 1,
        ids=ids,
        facts=[flow.state.facts[i].public() for i in ids],
        deadline_ms=now_ms + timer * 1000 if timer else 0,
    )


# -- decide ------------------------------------------------------------------------


def decide(
    state: State, seat: int, command: Mapping[str, Any], rng: SeededRng, now_ms: int = 0
) -> list[Event]:
    kind = _check_command(state, seat, command)
    flow = Flow(state, actor=seat)
    if kind == "vote":
        _vote(flow, seat, command, rng)
        if len(flow.state.votes) == state.seat_count:
            reveal(flow, rng, now_ms, closed=False)
    else:
        deadline_passed(state.deadline_ms, now_ms, "round")
        reveal(flow, rng, now_ms, closed=True)
    return flow.events


def _check_command(state: State, seat: int, command: Mapping[str, Any]) -> str:
    kind = command_type(command, COMMAND_FIELDS)
    if state.over:
        raise RuleViolation("the game is over", "game_over")
    allowed = range(-1, state.seat_count) if kind == "close_round" else range(state.seat_count)
    if seat not in allowed:
        raise RuleViolation("only players at the table can vote", "not_a_player")
    return kind


def _vote(flow: Flow, seat: int, command: Mapping[str, Any], rng: SeededRng) -> None:
    lowest, highest = command.get("lowest"), command.get("highest")
    for name, value in (("lowest", lowest), ("highest", highest)):
        if isinstance(value, bool) or not isinstance(value, int) or value not in POSITIONS:
            raise InvalidArgument(f"{name} must be a position 1..6, not {value!r}", "bad_position")
    if lowest == highest:
        raise InvalidArgument("lowest and highest must be different positions", "same_position")
    if flow.state.vote_of(seat) is not None:
        raise RuleViolation("you have voted this round; votes are final", "already_voted")
    salt = new_salt(rng)
    flow.emit(
        "VoteCast",
        seat=seat,
        lowest=lowest,
        highest=highest,
        salt=salt,
        commitment=commitment(salt, int(lowest), int(highest)),  # type: ignore[arg-type]
    )


def reveal(flow: Flow, rng: SeededRng, now_ms: int, closed: bool) -> None:
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
        "RoundRevealed",
        round=s.round,
        answers=answers,
        lowest_position=lowest,
        highest_position=highest,
        votes={str(seat): asdict(v) for seat, v in s.votes},
        changes=changes,
        scores=scores,
        closed_by_timer=closed,
    )
    target = s.options["target"]
    winners = [seat for seat, score in enumerate(scores) if score >= target]
    if winners:
        losers = [seat for seat in range(s.seat_count) if seat not in winners]
        flow.emit("GameEnded", winners=winners, losers=losers, seed=s.seed)
    else:
        start_round(flow, rng, now_ms)


# -- evolve ------------------------------------------------------------------------


def _created(s: State, d: Data) -> State:
    opts = dict(d["options"])
    facts: dict[str, decks.Fact] = {}
    if opts["deck"] == "default":
        themes = opts.get("themes")
        # Every known fact (retired ones too), so games dealt before a fact was retired
        # fold; new games shuffle only the current deck (``drawable``).
        facts = decks.facts_for(tuple(themes) if themes else None)
    return s.but(
        options=opts,
        seat_count=len(d["seats"]),
        seed=str(d.get("seed", "")),
        seed_hash=str(d["seed_hash"]),
        facts=facts,
        scores=(0,) * len(d["seats"]),
    )


def _round_started(s: State, d: Data) -> State:
    ids = tuple(d["ids"])
    return s.but(
        round=int(d["round"]),
        table=ids,
        pile=s.pile[len(ids) :],
        votes=(),
        deadline_ms=int(d.get("deadline_ms", 0)),
    )


def _vote_cast(s: State, d: Data) -> State:
    vote = Vote(int(d["lowest"]), int(d["highest"]), str(d["salt"]), str(d["commitment"]))
    return s.but(votes=(*s.votes, (int(d["seat"]), vote)))


def _revealed(s: State, d: Data) -> State:
    return s.but(
        scores=tuple(d["scores"]),
        discard=(*s.discard, *s.table),
        table=(),
        votes=(),
        deadline_ms=0,
        last_reveal={**d, "ids": list(s.table)},
    )


FOLDS: dict[str, Callable[[State, Data], State]] = {
    "GameCreated": _created,
    "DeckLoaded": lambda s, d: s.but(facts={f["id"]: decks.Fact(**f) for f in d["facts"]}),
    "DeckShuffled": lambda s, d: s.but(pile=tuple(d["order"])),
    "DeckReshuffled": lambda s, d: s.but(pile=tuple(d["order"]), discard=()),
    "RoundStarted": _round_started,
    "VoteCast": _vote_cast,
    "RoundRevealed": _revealed,
    "GameEnded": lambda s, d: s.but(over=True, winners=tuple(d["winners"]), seed=d["seed"]),
}


def evolve(state: State, event: Event) -> State:
    fold = FOLDS.get(event.type)
    return fold(state, event.data) if fold else state


def status(state: State) -> Status:
    if state.over:
        losers = tuple(s for s in range(state.seat_count) if s not in state.winners)
        return Status((), True, state.winners, losers)
    waiting = tuple(s for s in range(state.seat_count) if state.vote_of(s) is None)
    detail: dict[str, Any] = {"round": state.round, "deadline_ms": state.deadline_ms}
    if state.deadline_ms:
        detail["on_deadline"] = {"type": "close_round"}  # what a clock sends (AL-3)
    return Status(waiting, detail=detail)
