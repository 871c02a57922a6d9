"""Giraffe Raffe's search bot (#53, docs/bots.md): Monte Carlo over sampled deals.

The bot sees what its seat sees and nothing more. Each simulation deals the cards it has
not seen at random, consistent with its view (``resample``), tries one of its candidate
moves on that deal and plays the game out with the heuristic bot in every seat; a move's
value is how often its seat was not the one who lost. Moves are tried by UCB1, so the
simulations go where the choice is close. The number of simulations is fixed (not a
clock), so a decision is the same for the same view and seed, and its time is measured
in bench/bots.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from services.giraffe_raffe import rules
from services.giraffe_raffe.bots import (
    COPY_COST,
    REWARD,
    Command,
    candidates,
    card_costs,
    heuristic_bot,
    shaped_candidates,
)
from services.giraffe_raffe.cards import FACE
from services.giraffe_raffe.commands import ChooseRobotPlay, Play, ReturnApple
from services.giraffe_raffe.plays import HandIndex, can_play, index
from services.giraffe_raffe.resample import resample
from services.giraffe_raffe.state import State
from services.giraffe_raffe.trees import VALUE_KINDS, Need, need
from services.giraffe_raffe.turns import copies_of
from services.kernel.rng import SeededRng

Bot = Callable[[dict[str, Any], dict[str, Any], SeededRng], Command]
EXPLORE = 0.7  # UCB1's exploration: rewards are 0 or 1
# Simulated moves a decision: p95 ~185 ms on one core of the machine bench/bots.py ran
# on (docs/bots.md); a game's first decisions, with the longest rollouts, are the slowest.
BUDGET = 1200
MAX_CANDIDATES = 12  # the cheapest plays per tree shape, so simulations are not spread thin
ROLLOUT_MOVES = 400  # a game ends long before; a bound, not a horizon


def root_moves(view: dict[str, Any], legal: dict[str, Any]) -> list[Command]:
    """The moves worth comparing: every play on value trees, the cheapest plays (as the
    heuristic prices cards) on the others, returning an apple, the Robot's options."""
    for c in legal["commands"]:
        if c["type"] == "choose_robot_play":
            return [{"type": "choose_robot_play", "option": o["option"]} for o in c["options"]]
    hand = view["hand"]
    costs = card_costs(hand)
    priced: list[tuple[float, Command]] = []
    moves: list[Command] = []
    for entry in legal["commands"]:
        if entry["type"] == "return_apple":
            moves.append({"type": "return_apple"})
        elif entry["playable"]:
            for cards in candidates(entry, hand, costs):
                command = {"type": "play", "tree": entry["tree"], "cards": list(cards)}
                priced.append(
                    (sum(costs[c] for c in cards), command | {"copies": copies_of(cards)})
                )
    priced.sort(key=lambda p: p[0])
    return moves + [c for _, c in priced[:MAX_CANDIDATES]]


def typed(command: Command) -> Any:
    """A command as the rules take it, without a client's validation (the bot made it)."""
    if command["type"] == "play":
        return Play.model_construct(**command)
    if command["type"] == "choose_robot_play":
        return ChooseRobotPlay.model_construct(**command)
    return ReturnApple.model_construct(type="return_apple")


def policy(state: State, seat: int) -> Any:
    """The heuristic bot's choice, read off the state rather than a view and the legal
    commands (a rollout makes thousands: their JSON was most of its time)."""
    if state.robot_tie is not None:
        return ChooseRobotPlay.model_construct(type="choose_robot_play", option=0)
    hand, rule = state.hands[seat], state.options["count_rule"]
    costs, held = card_costs(hand), index(hand)
    best: tuple[float, str, Sequence[str]] | None = None
    for tree in state.trees:
        n = need(tree, rule)
        gain = REWARD.get(n.kind, 0.0) if n.kind == "pair" or state.supply else 0.0
        found: tuple[float, Sequence[str]] | None
        if n.kind in VALUE_KINDS:
            found = _cheapest_value_play(n, held, costs)
        elif can_play(n, hand):
            priced = ((sum(costs[c] for c in p), p) for p in shaped_candidates(n, hand, costs))
            found = min(priced, key=lambda x: x[0], default=None)
        else:
            found = None
        if found is not None and (best is None or gain - found[0] > best[0]):
            best = (gain - found[0], tree.id, found[1])
    if best is None:
        return ReturnApple.model_construct(type="return_apple")
    cards = list(best[2])
    return Play.model_construct(type="play", tree=best[1], cards=cards, copies=copies_of(cards))


def _cheapest_value_play(
    n: Need, held: HandIndex, costs: dict[str, float]
) -> tuple[float, tuple[str, ...]] | None:
    """The cheapest play on a Single/Pair/Three/Four tree without listing them all: cards
    of one value cost the same (card_costs prices values), so per value only how many
    Copies stand in matters."""
    k, copies = n.min_cards, held.copies
    best: tuple[float, tuple[str, ...]] | None = None
    for v, cards in held.values.items():
        if v <= n.above:
            continue
        if n.kind == "single":
            fits = [c for c in cards if FACE[c][0] in n.colours]
            options: list[tuple[float, tuple[str, ...]]] = (
                [(costs[fits[0]], (fits[0],))] if fits else []
            )
        else:
            each = costs[cards[0]]
            options = [
                (m * each + (k - m) * COPY_COST, (*cards[:m], *copies[: k - m]))
                for m in range(max(1, k - len(copies)), min(k, len(cards)) + 1)
            ]
        for option in options:
            if best is None or option[0] < best[0]:
                best = option
    return best


def rollout(state: State, rng: SeededRng) -> tuple[State, int]:
    """The round played out by the heuristic in every seat (the Robot plays itself), and
    how many moves that took. A round decides what a move is worth: in the longer game
    whoever loses it takes a rotten apple, and the next round is dealt afresh."""
    dealt = state.round
    for moves in range(ROLLOUT_MOVES):
        to_act = rules.status(state).to_act
        if state.over or not to_act or state.round != dealt:
            return state, moves
        state = rules.decide(state, to_act[0], policy(state, to_act[0]), rng).state
    return state, ROLLOUT_MOVES


def _reward(start: State, end: State, seat: int) -> float:
    """1 when the seat did not lose (the longer game: did not lose the round it is in)."""
    if end.rotten != start.rotten:
        return 0.0 if end.rotten[seat] > start.rotten[seat] else 1.0
    return 0.0 if seat in end.losers else 1.0


def search_bot(moves_budget: int, most_simulations: int = 400) -> Bot:
    """A bot that spends up to ``moves_budget`` simulated moves a decision (a game's
    first turns have long rollouts, its last short ones: the budget, not a count of
    simulations, bounds a decision's time) and at most ``most_simulations``."""

    def bot(view: dict[str, Any], legal: dict[str, Any], rng: SeededRng) -> Command:
        moves = root_moves(view, legal)
        if len(moves) <= 1:
            return moves[0] if moves else heuristic_bot(view, legal, rng)
        seat = int(view["seat"])
        wins, tries = [0.0] * len(moves), [0] * len(moves)
        spent = 0
        for n in range(most_simulations):
            if spent >= moves_budget and n >= len(moves):
                break
            i = _ucb(wins, tries, n)
            start = resample(view, rng)
            after = rules.decide(start, seat, typed(moves[i]), rng).state
            end, length = rollout(after, rng)
            wins[i] += _reward(start, end, seat)
            tries[i] += 1
            spent += length + 1
        best = max(range(len(moves)), key=lambda j: (wins[j] / max(1, tries[j]), tries[j]))
        return moves[best]

    return bot


def _ucb(wins: list[float], tries: list[int], n: int) -> int:
    for i, t in enumerate(tries):
        if not t:
            return i
    log_n = math.log(n)
    return max(
        range(len(tries)),
        key=lambda i: wins[i] / tries[i] + EXPLORE * math.sqrt(log_n / tries[i]),
    )
