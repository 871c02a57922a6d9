"""How to play Giraffe Raffe, for players: from the rulebook and docs/rulings.md, drawn by
every client (services.kernel.how_to_play)."""

from services.kernel.how_to_play import Block, Figure, Tile, h, ol, p, ul


def _tree(name: str, need: str, top: list[str]) -> Tile:
    return Tile(title=name, note=need, cards=top)


HOW_TO_PLAY: tuple[Block, ...] = (
    p(
        "A climbing card game for 2–5 players (or one against the Robot Giraffe). Play cards ",
        "onto the trees, each play higher or longer than the one before, and collect apples. ",
        "**The player who can neither play nor give back an apple loses**; everyone else wins.",
    ),
    h("The cards"),
    p(
        "60 numbered cards, 1–15 in red, blue, yellow and green, and 4 **Copies**. A Copy has ",
        "no colour or value of its own: played with numbered cards, it becomes an exact ",
        "duplicate of one of them (you choose which).",
    ),
    Figure(
        figure="A hand: numbered cards and a Copy.",
        cards=[["R7", "R12", "B7", "Y3", "G15", "C1"]],
    ),
    h("Your turn"),
    p("The dealer plays first, then seat by seat. On your turn you do one of two things:"),
    ol(
        "**Play**: select cards from your hand, then press *Play on …* on a tree that takes "
        "them. Trees you can play on now are outlined in green.",
        "**Return an apple**: give one of your apples back and pass. You may do this even "
        "when you could play.",
    ),
    h("The trees"),
    Figure(
        figure="The six trees and what each takes.",
        style="trees",
        tiles=[
            _tree("Single", "1 card of the tree's colour, higher than the top", ["R9"]),
            _tree("Pair", "2 cards of one value, higher than the top", ["B4", "G4"]),
            _tree("Three / Four", "3 or 4 cards of one value, higher", []),
            _tree(
                "Straight",
                "3+ consecutive values, then one card more each time",
                ["R3", "B4", "Y5"],
            ),
            _tree("Colour", "3+ cards of one colour, then one more each time", []),
            _tree("Free", "3+ cards of anything, then one more each time", []),
        ],
    ),
    p(
        "On Single, Pair, Three and Four the value must be strictly higher than the top play ",
        "(colour never matters for the comparison). On Straight, Colour and Free the first ",
        "play has 3 cards and each later play at least one card more (a table option: exactly ",
        "one more). A Copy needs a numbered card in the same play, so never on a Single, and a ",
        "Straight cannot use one (a duplicate value breaks the run).",
    ),
    Figure(
        figure="7 + Copy is a pair of 7s: it may go on a Pair tree whose top is lower than 7.",
        cards=[["R7", "C2"], ["R7", "R7"]],
    ),
    h("Rewards"),
    ul(
        "Pair: draw the top card of the **Redraw pile** (4 cards set aside at the start).",
        "Three, Straight, Colour, Free: 1 apple. Four: 2 apples. Single: nothing.",
        "You take only what is left: an empty pile or supply gives less, or nothing.",
    ),
    h("Losing and winning"),
    p(
        "When your turn comes and you have no legal play and no apple to return, you lose at ",
        "once and everyone else wins. An empty hand does not lose by itself. The server sees ",
        "it for you: nobody has to claim it.",
    ),
    h("Longer game and solo"),
    p(
        "**Longer**: rounds of the standard game. A round's loser takes a rotten apple and ",
        "deals the next round; every round is dealt afresh. Two rotten apples lose the game. ",
        "**Solo**: you against the Robot Giraffe. The Robot plays by fixed rules (the first ",
        "tree in the order Single, Four, Three, Pair, Straight, Colour, Free where it can ",
        "play, with its lowest cards); when two of its plays differ only in colour, you ",
        "choose. It draws from its deck when it cannot play; when it can do nothing at all, ",
        "you win.",
    ),
)
