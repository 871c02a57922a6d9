"""state + event -> state for Giraffometer: total, no validation, no randomness."""

from __future__ import annotations

from services.giraffometer import decks
from services.giraffometer import events as ev
from services.giraffometer.events import EVENTS
from services.giraffometer.state import State, Vote
from services.kernel.events import Folds, GameCreated, payload
from services.kernel.shared import options


def _created(s: State, e: GameCreated) -> State:
    opts = options(e.options)
    facts: dict[str, decks.Fact] = {}
    if opts["deck"] == "default":
        themes = opts.get("themes")
        # Every known fact (retired ones too), so games dealt before a fact was retired
        # fold; new games shuffle only the current deck (``drawable``).
        facts = decks.facts_for(tuple(themes) if themes else None)
    return s.but(
        options=opts,
        seat_count=len(e.seats),
        practice=bool(e.practice),
        seed=e.seed,
        seed_hash=e.seed_hash,
        facts=facts,
        scores=(0,) * len(e.seats),
    )


def _round_started(s: State, e: ev.RoundStarted) -> State:
    ids = tuple(e.ids)
    dealt = set(ids)
    return s.but(
        round=e.round,
        table=ids,
        # GM-7 deals across kinds, not always from the top: the dealt ids leave the pile.
        pile=tuple(i for i in s.pile if i not in dealt),
        votes=(),
        deadline_ms=e.deadline_ms,
    )


def _vote_cast(s: State, e: ev.VoteCast) -> State:
    vote = Vote(e.lowest, e.highest, e.salt, e.commitment)
    return s.but(votes=(*s.votes, (e.seat, vote)))


def _revealed(s: State, e: ev.RoundRevealed) -> State:
    return s.but(
        scores=tuple(e.scores),
        discard=(*s.discard, *s.table),
        table=(),
        votes=(),
        deadline_ms=0,
        last_reveal={**payload(e), "ids": list(s.table)},
    )


evolve: Folds[State] = Folds(
    EVENTS,
    {
        GameCreated: _created,
        ev.DeckLoaded: lambda s, e: s.but(facts={f["id"]: decks.Fact(**f) for f in e.facts}),
        ev.DeckShuffled: lambda s, e: s.but(pile=tuple(e.order)),
        ev.DeckReshuffled: lambda s, e: s.but(pile=tuple(e.order), discard=()),
        ev.RoundStarted: _round_started,
        ev.VoteCast: _vote_cast,
        ev.RoundRevealed: _revealed,
        ev.GameEnded: lambda s, e: s.but(over=True, winners=tuple(e.winners), seed=e.seed),
    },
)
