"""Giraffe Raffe as a decider (DESIGN §2): setup, decide, status. Pure functions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.giraffe_raffe import events as ev
from services.giraffe_raffe.commands import ChooseRobotPlay, Command, Play
from services.giraffe_raffe.evolve import evolve
from services.giraffe_raffe.plays import check, parse_play
from services.giraffe_raffe.state import State
from services.giraffe_raffe.trees import need
from services.giraffe_raffe.turns import Flow, deal, lose, next_turn, play
from services.kernel.commands import Timeout, check_timeout
from services.kernel.errors import InvalidArgument, RuleViolation
from services.kernel.game import Decision, Event, Status
from services.kernel.rng import SeededRng


def setup(state: State, options: Mapping[str, Any], rng: SeededRng, now_ms: int = 0) -> list[Event]:
    """The deal and the first turn, after the engine's GameCreated event (GR-2, GR-3)."""
    flow = Flow(state, evolve, now_ms=now_ms)
    if state.solo:
        dealer = 0  # GR-11: you go first
    elif state.options.get("dealer") is not None:
        dealer = int(state.options["dealer"])
    else:
        dealer = rng.below(state.seat_count)
    deal(flow, rng, 1, dealer)
    next_turn(flow, rng, dealer)
    return flow.events


def decide(
    state: State, seat: int, command: Command, rng: SeededRng, now_ms: int = 0
) -> Decision[State]:
    if isinstance(command, Timeout):
        return _timeout(state, rng, now_ms)
    _check_command(state, seat, command)
    flow = Flow(state, evolve, actor=seat, now_ms=now_ms)
    if isinstance(command, ChooseRobotPlay):
        _choose_robot_play(flow, command)
        next_turn(flow, rng, (state.robot + 1) % state.players)
        return flow.decision()
    if isinstance(command, Play):
        _play(flow, seat, command)
    else:
        if state.apples[seat] <= 0:
            raise RuleViolation("you have no apple to return", "no_apple")
        flow.emit(ev.AppleReturned(seat=seat))
    next_turn(flow, rng, (seat + 1) % state.players)
    return flow.decision()


def _timeout(state: State, rng: SeededRng, now_ms: int) -> Decision[State]:
    """AL-3: when the turn timer runs out, the player returns an apple if they hold one,
    else loses (a pending Robot tie takes its first option). Anyone may send it, after
    the deadline; the events' actor is the engine."""
    check_timeout(state.over, state.deadline_ms, now_ms)
    return default_move(state, (state.turn,), rng, now_ms)


def default_move(
    state: State, seats: tuple[int, ...], rng: SeededRng, now_ms: int = 0
) -> Decision[State]:
    """AL-3's default move of the player to act (a turn timer's or a time bank's)."""
    flow = Flow(state, evolve, now_ms=now_ms)
    player = state.turn
    if state.robot_tie is not None:
        chosen = state.robot_tie.options[0]
        play(flow, state.robot, state.robot_tie.tree, chosen.cards, dict(chosen.copies))
        next_turn(flow, rng, (state.robot + 1) % state.players)
    elif state.apples[player] > 0:
        flow.emit(ev.AppleReturned(seat=player))
        next_turn(flow, rng, (player + 1) % state.players)
    else:
        following = lose(flow, rng, player)
        if following is not None:
            next_turn(flow, rng, following)
    return flow.decision()


def _check_command(state: State, seat: int, command: Command) -> None:
    robot_play = isinstance(command, ChooseRobotPlay)
    if state.over:
        raise RuleViolation("the game is over", "game_over")
    if not 0 <= seat < state.seat_count:
        raise RuleViolation("only players at the table can act", "not_a_player")
    if state.robot_tie is not None:
        if not robot_play:
            raise RuleViolation(
                "first choose the Robot's play (choose_robot_play)", "robot_tie_pending"
            )
    elif robot_play:
        raise RuleViolation("the Robot is not waiting for a choice", "no_robot_tie")
    elif state.turn != seat:
        raise RuleViolation(f"it is seat {state.turn}'s turn, not yours", "not_your_turn")


def _play(flow: Flow, seat: int, command: Play) -> None:
    state = flow.state
    tree = state.tree(command.tree)
    if tree is None:
        names = ", ".join(t.id for t in state.trees)
        raise InvalidArgument(f"unknown tree {command.tree!r}; trees are {names}", "unknown_tree")
    cards, copies = parse_play(state.hands[seat], command.cards, command.copies)
    check(need(tree, state.options["count_rule"]), cards)
    play(flow, seat, tree.id, cards, dict(copies))


def _choose_robot_play(flow: Flow, command: ChooseRobotPlay) -> None:
    tie = flow.state.robot_tie
    assert tie is not None
    option = command.option
    if not 0 <= option < len(tie.options):
        raise InvalidArgument(
            f"option must be an index 0..{len(tie.options) - 1} of the offered plays",
            "bad_option_index",
        )
    chosen = tie.options[option]
    play(flow, flow.state.robot, tie.tree, chosen.cards, dict(chosen.copies))


def status(state: State) -> Status:
    detail: dict[str, Any] = {}
    if state.over:
        if state.solo:
            detail = {"robot_won": bool(state.losers)}
        return Status((), True, state.winners, state.losers, detail)
    if state.deadline_ms:
        detail = {"deadline_ms": state.deadline_ms, "on_deadline": {"type": "timeout"}}
    if state.robot_tie is not None:
        return Status((0,), detail={"waiting_for": "choose_robot_play", **detail})
    return Status((state.turn,) if 0 <= state.turn < state.seat_count else (), detail=detail)


def result_keys(final_view: Mapping[str, Any]) -> list[float]:
    """Tournaments: not being the loser, then fewer rotten apples (the longer game)."""
    losers = set(final_view["status"]["losers"])
    return [
        (0.0 if p["index"] in losers else 1000.0) - p.get("rotten_apples", 0)
        for p in final_view["players"]
        if not p.get("robot")
    ]
