"""What happens by itself between commands: rewards, the next turn, the Robot's turn,
a player who cannot act losing (GR-9) and, in the longer game, the next round (GR-10).

Each step emits a typed event (events.py) on the shared Flow, which folds it, so the
next step sees the state as it will be after replay.
"""

from __future__ import annotations

from collections.abc import Sequence

from services.giraffe_raffe import events as ev
from services.giraffe_raffe.cards import DECK, is_copy
from services.giraffe_raffe.plays import can_play
from services.giraffe_raffe.robot import colour_order, robot_choice
from services.giraffe_raffe.state import State
from services.giraffe_raffe.trees import need
from services.kernel.flow import Flow as KernelFlow
from services.kernel.rng import SeededRng

REWARD_APPLES = {"free": 1, "three": 1, "straight": 1, "color": 1, "four": 2}
ROBOT_HAND = 5


# The shared Flow (services.kernel.flow), over Giraffe Raffe's state.
Flow = KernelFlow[State]


def copies_of(cards: Sequence[str]) -> dict[str, str]:
    """The default Copy targets: each Copy duplicates the play's first numbered card."""
    numbered = [c for c in cards if not is_copy(c)]
    return {c: numbered[0] for c in cards if is_copy(c)}


def deal(flow: Flow, rng: SeededRng, round_: int, dealer: int) -> None:
    """Shuffle all 64 cards and deal a round (GR-2, GR-11)."""
    s = flow.state
    deck = rng.shuffled(DECK)
    if s.solo:
        size = s.options["robot_deck"]
        hands = [deck[:15], deck[15:20]]
        robot_deck, rest = deck[20 : 20 + size], deck[20 + size :]
    else:
        per = 12 if s.players == 5 else 15
        hands = [deck[i * per : (i + 1) * per] for i in range(s.players)]
        robot_deck, rest = [], deck[s.players * per :]
    flow.emit(
        ev.CardsDealt(
            round=round_,
            dealer=dealer,
            hands=hands,
            redraw=rest[:4],
            out=rest[4:],
            robot_deck=robot_deck,
        )
    )


def reward(flow: Flow, player: int, kind: str) -> None:
    """GR-7: take only what is there."""
    s = flow.state
    if kind == "pair" and s.redraw:
        to = "robot_deck" if player == s.robot else "hand"
        flow.emit(ev.RedrawCardTaken(seat=player, card=s.redraw[0], to=to))
    apples = min(REWARD_APPLES.get(kind, 0), s.supply)
    if apples:
        flow.emit(ev.ApplesTaken(seat=player, count=apples))


def play(
    flow: Flow, player: int, tree_id: str, cards: Sequence[str], copies: dict[str, str]
) -> None:
    flow.emit(ev.CardsPlayed(seat=player, tree=tree_id, cards=list(cards), copies=copies))
    tree = flow.state.tree(tree_id)
    assert tree is not None
    reward(flow, player, tree.kind)


def can_act(s: State, player: int) -> bool:
    if s.apples[player] > 0:
        return True
    hand = s.hands[player]
    rule = s.options["count_rule"]
    return any(can_play(need(t, rule), hand) for t in s.trees)


def next_turn(flow: Flow, rng: SeededRng, player: int) -> None:
    """Start ``player``'s turn and play on until a human must act or the game ends."""
    while not flow.state.over:
        timer = flow.state.options.get("turn_timer")
        deadline = flow.now_ms + timer * 1000 if timer and player != flow.state.robot else 0
        flow.emit(ev.TurnStarted(seat=player, deadline_ms=deadline))
        s = flow.state
        if player == s.robot:
            outcome = robot_turn(flow)
            if outcome == "pending":
                return
            if outcome == "played":
                player = (player + 1) % s.players
                continue
        elif can_act(s, player):
            return
        following = lose(flow, rng, player)
        if following is None:
            return
        player = following


def lose(flow: Flow, rng: SeededRng, player: int) -> int | None:
    """GR-9/GR-10: the player loses; returns who starts the next round, if any."""
    s = flow.state
    flow.emit(ev.PlayerLost(seat=player, round=s.round))
    if s.mode == "longer":
        flow.emit(ev.RottenAppleTaken(seat=player))
        if flow.state.rotten[player] < 2:
            deal(flow, rng, s.round + 1, player)
            return player
    if s.solo:
        winners, losers = ([0], []) if player == s.robot else ([], [0])
    else:
        winners, losers = [p for p in range(s.players) if p != player], [player]
    flow.emit(ev.GameEnded(winners=winners, losers=losers, seed=s.seed))
    return None


def robot_turn(flow: Flow) -> str:
    """GR-11. Returns "played", "pending" (a colour tie for the player) or "stuck"."""
    s, robot = flow.state, flow.state.robot
    refill = min(ROBOT_HAND - len(s.hands[robot]), len(s.robot_deck))
    if refill > 0:
        flow.emit(ev.RobotCardsDrawn(cards=list(s.robot_deck[:refill])))
    while True:
        s = flow.state
        choice = robot_choice(s.trees, s.hands[robot], s.options["count_rule"])
        if choice is not None:
            return robot_play(flow, choice[0], choice[1])
        if s.robot_deck:
            flow.emit(ev.RobotCardsDrawn(cards=[s.robot_deck[0]]))
        elif s.apples[robot] > 0:
            flow.emit(ev.AppleReturned(seat=robot))
            return "played"
        else:
            return "stuck"


def robot_play(flow: Flow, tree_id: str, options: list[tuple[str, ...]]) -> str:
    s = flow.state
    if len(options) > 1 and s.options["robot_ties"] == "player_chooses":
        offered = [{"cards": list(o), "copies": copies_of(o)} for o in options]
        flow.emit(ev.RobotTieOffered(tree=tree_id, options=offered))
        return "pending"
    cards = min(options, key=colour_order)
    play(flow, s.robot, tree_id, cards, copies_of(cards))
    return "played"
