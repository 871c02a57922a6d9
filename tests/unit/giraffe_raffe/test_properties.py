"""Hypothesis playthroughs of random legal commands, every mode and player count."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.core.redaction import redact_event
from services.giraffe_raffe.bots import random_bot
from services.giraffe_raffe.cards import DECK, KNOWN
from services.giraffe_raffe.evolve import evolve
from services.giraffe_raffe.game import GAME
from services.giraffe_raffe.rules import status
from services.giraffe_raffe.state import State
from services.giraffe_raffe.view import legal_commands, view
from services.kernel.game import SeatSpec
from services.kernel.playthrough import Playthrough
from services.kernel.rng import SeededRng

MAX_MOVES = 3000
SETUPS = st.sampled_from(
    [("standard", n) for n in (2, 3, 4, 5)] + [("longer", n) for n in (2, 3, 5)] + [("solo", 1)]
)


def all_cards(s: State) -> Counter[str]:
    held = [c for h in s.hands for c in h]
    on_trees = [c for t in s.trees for p in t.plays for c in p.cards]
    return Counter(held + on_trees + list(s.redraw) + list(s.out) + list(s.robot_deck))


def card_ids(value: Any) -> set[str]:
    """Every card id that appears as a whole string anywhere in a JSON-like value."""
    if isinstance(value, str):
        return {value} if value in KNOWN else set()
    if isinstance(value, dict):
        return set().union(*(card_ids(v) for v in value.values()), *(card_ids(k) for k in value))
    if isinstance(value, list | tuple):
        return set().union(*(card_ids(v) for v in value)) if value else set()
    return set()


def public_cards(s: State) -> set[str]:
    cards = {c for t in s.trees for p in t.plays for c in p.cards}
    cards |= {target for t in s.trees for p in t.plays for _, target in p.copies}
    if s.solo:
        cards |= set(s.hands[1])
    if s.robot_tie:
        cards |= {c for p in s.robot_tie.options for c in p.cards}
    return cards


def check_invariants(p: Playthrough) -> None:
    s = p.state
    assert all_cards(s) == Counter(DECK), "all 64 cards are accounted for"
    assert s.supply + sum(s.apples) == 16, "all 16 apples are accounted for"
    assert all(a >= 0 for a in s.apples) and s.supply >= 0
    if s.over:
        return
    for seat in range(-1, s.seat_count):
        own = set(s.hands[seat]) if seat >= 0 else set()
        seen = card_ids(view(s, seat)) | card_ids(legal_commands(s, seat))
        leaked = seen - own - public_cards(s)
        assert not leaked, f"seat {seat} sees {leaked}"
        assert s.seed not in str(view(s, seat))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=SETUPS,
    seed=st.text(min_size=1, max_size=12),
    count_rule=st.sampled_from(["more", "exactly_one_more"]),
)
def test_random_playthroughs_keep_every_invariant(
    setup: tuple[str, int], seed: str, count_rule: str
) -> None:
    mode, players = setup
    seed = f"SEED<{seed}>"  # recognisable, so a leak shows as a substring
    options = {"mode": mode, "count_rule": count_rule}
    p = Playthrough.start(GAME, options, [SeatSpec("bot")] * players, seed)
    rng = SeededRng(seed, "bots")
    check_invariants(p)
    moves = 0
    while not p.state.over:
        seat = status(p.state).to_act[0]
        command = random_bot(view(p.state, seat), legal_commands(p.state, seat), rng)
        p.execute(seat, command)
        check_invariants(p)
        moves += 1
        assert moves < MAX_MOVES, "every game ends"
    replayed = evolve.replay(p.events, State())
    assert replayed == p.state, "folding the events rebuilds the state exactly"
    assert p.events[-1].type == "GameEnded"


@settings(max_examples=30, deadline=None)
@given(setup=SETUPS, seed=st.text(min_size=1, max_size=8))
def test_redacted_events_never_show_another_seats_cards(setup: tuple[str, int], seed: str) -> None:
    mode, players = setup
    seed = f"SEED<{seed}>"  # recognisable, so a leak shows as a substring
    p = Playthrough.start(GAME, {"mode": mode}, [SeatSpec("bot")] * players, seed)
    rng = SeededRng(seed, "bots")
    for _ in range(30):
        if p.state.over:
            break
        seat = status(p.state).to_act[0]
        p.execute(seat, random_bot(view(p.state, seat), legal_commands(p.state, seat), rng))
    if p.state.over:
        return
    public = public_cards(p.state) | {
        c for e in p.events if e.type == "CardsPlayed" for c in e.data["cards"]
    }
    for seat in range(-1, p.state.seat_count):
        own: set[str] = set()
        for e in p.events:
            if e.type == "CardsDealt" and seat >= 0:
                own |= set(e.data["hands"][seat])
            if e.type == "RedrawCardTaken" and e.data["seat"] == seat and e.data["to"] == "hand":
                own.add(e.data["card"])
        if p.state.solo:
            own |= {c for e in p.events if e.type == "CardsDealt" for c in e.data["hands"][1]}
            own |= {c for e in p.events if e.type == "RobotCardsDrawn" for c in e.data["cards"]}
        redacted = [redact_event(GAME, p.state, e, seat) for e in p.events]
        seen = set().union(*(card_ids(dict(e.data)) for e in redacted))
        assert all(p.state.seed not in str(e.data) for e in redacted)
        assert not seen - own - public, f"seat {seat} sees {seen - own - public}"
