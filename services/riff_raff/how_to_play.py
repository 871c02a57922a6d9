"""How to play Riff Raff, for players: from the rulebook and docs/rulings.md, drawn by
every client (services.kernel.how_to_play)."""

from services.kernel.how_to_play import Block, Figure, h, ol, p

SHIP = "      9 ─┼─ 10\n      7 ─┼─ 8\n      5 ─┼─ 6\n  [ 1 | 2 | 3 | 4 ]\n  ~~~~~~~~~~~~~~~~~"

HOW_TO_PLAY: tuple[Block, ...] = (
    p(
        "A dexterity game for 2–4 players: load your cargo onto a wobbling ship. **The first ",
        "with no pieces left wins**; what falls overboard and is not caught comes back to you.",
    ),
    h("What you have"),
    p(
        "Cards 1–10, each played once in the game, and 8 pieces: boat, barrel, flacon, box, ",
        "sailor, plank, rat, chest (two of each with 2 players).",
    ),
    Figure(
        figure="The ship's areas: 1–4 on the deck; 5/6, 7/8 and 9/10 on the low, middle and "
        "top yardarms.",
        pre=SHIP,
    ),
    h("A round"),
    ol(
        "Everyone secretly chooses a card; all are revealed at once.",
        "The highest card makes its player **captain** (on a tie the previous captain chooses "
        "among the tied). Turns go from the highest card down; the captain orders players who "
        "played the same card.",
        "On your turn you load one of your pieces into the area your card names.",
    ),
    h("Loading"),
    p(
        "On a yardarm (areas 5–10) that already held a piece before your turn, you may declare ",
        "a **double load** before loading: two pieces, one after the other. If anything falls ",
        "during the first, there is no second.",
    ),
    p(
        "In the **simulated** mode the server is the ship: choose the piece, where across the ",
        "area it goes and how it is turned; a physics model decides what tips and falls (the ",
        "same load always gives the same result, recorded for replays). In the **tabletop** ",
        "mode you play with a real ship: the active player reports what fell and what was ",
        "caught, the others may dispute, and the captain settles it.",
    ),
    h("Falling and catching"),
    p(
        "A fall ends your turn. You may try to catch up to two falling pieces (one per hand; ",
        "the higher they fall from, the harder). Caught pieces leave the game (good for you); ",
        "pieces not caught come back to you, to load again later. You may not catch only the ",
        "piece you just placed: it comes back to you.",
    ),
    h("Winning"),
    p(
        "A player with no pieces left at the end of their turn wins at once. After 10 rounds ",
        "(every card played; 20 with 2 players) the fewest pieces win, ties together.",
    ),
)
