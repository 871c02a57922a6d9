"""A whole Giraffometer state consistent with one seat's view (#53, docs/bots.md).

What a seat cannot see: the answers of the six facts on the table, the other seats'
votes this round (it sees only who voted) and the order of the pile. ``resample`` fills
them at random: distinct answers in GM-2's range, a vote for each seat that voted
(lowest and highest at different positions, with a salt and its commitment), and the
deck's other facts shuffled into the pile. Everything else (the round, the scores, the
last reveal with its answers, whose vote is in) comes from the view, so
``view(resample(v, rng), seat) == v``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.giraffometer.decks import Fact, facts_for
from services.giraffometer.state import POSITIONS, State, Vote
from services.kernel.commitment import commitment
from services.kernel.rng import SeededRng

MOST = 10_000  # GM-2: answers are integers 0-10,000


def _fact(shown: Mapping[str, Any], answer: int) -> Fact:
    return Fact(
        shown["id"],
        shown["question"],
        shown["unit"],
        answer,
        source="",
        theme=shown["theme"],
        kind=shown["kind"],
    )


def _vote(lowest: int, highest: int, rng: SeededRng) -> Vote:
    salt = f"{rng.below(1 << 62):x}"
    return Vote(lowest, highest, salt, commitment(salt, lowest, highest))


def _answers(view: Mapping[str, Any], rng: SeededRng) -> list[int]:
    """The table's answers: revealed ones as shown, hidden ones drawn (all distinct)."""
    if view.get("answers") is not None:
        return [int(a) for a in view["answers"]]
    drawn: list[int] = []
    while len(drawn) < len(view["facts"]):
        value = rng.below(MOST + 1)
        if value not in drawn:
            drawn.append(value)
    return drawn


def resample(view: Mapping[str, Any], rng: SeededRng) -> State:
    seat, options = int(view["seat"]), dict(view["options"])
    table = [_fact(f, a) for f, a in zip(view["facts"], _answers(view, rng), strict=True)]
    last = view.get("last_reveal")
    shown = [_fact(f, int(f["answer"])) for f in (last or {}).get("facts", [])]
    themes = options.get("themes")
    deck = (
        dict(facts_for(tuple(themes) if themes else None)) if options["deck"] == "default" else {}
    )
    facts = {**deck, **{f.id: f for f in [*shown, *table]}}
    seen = {f.id for f in [*shown, *table]}
    votes = []
    for voter in view["voted"]:
        if view.get("votes") is not None:  # revealed (the game is over)
            v = view["votes"][str(voter)]
            votes.append((voter, _vote(v["lowest"], v["highest"], rng)))
        elif voter == seat and view.get("your_vote"):
            own = view["your_vote"]
            votes.append((voter, _vote(own["lowest"], own["highest"], rng)))
        else:
            lowest = POSITIONS[rng.below(6)]
            highest = POSITIONS[(lowest + rng.below(5)) % 6]  # any position but lowest
            votes.append((voter, _vote(lowest, highest, rng)))
    status = view["status"]
    last_reveal = None
    if last is not None:
        last_reveal = {k: v for k, v in last.items() if k != "facts"}
    return State(
        options=options,
        seat_count=int(view["players"]),
        seed=view.get("seed") or "",
        seed_hash=view["seed_hash"],
        practice=view["practice"],
        facts=facts,
        pile=tuple(rng.shuffled(sorted(set(deck) - seen))),
        discard=tuple(f.id for f in shown),
        round=view["round"],
        table=tuple(f.id for f in table),
        deadline_ms=view["deadline_ms"],
        votes=tuple(votes),
        scores=tuple(view["scores"]),
        last_reveal=last_reveal,
        over=status["over"],
        winners=tuple(status["winners"]),
    )
