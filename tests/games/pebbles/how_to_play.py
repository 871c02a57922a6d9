"""How to play Pebbles: a test game's rules page, drawn by the client like any game's."""

from services.kernel.how_to_play import Block, h, p

HOW_TO_PLAY: tuple[Block, ...] = (
    p("Take **one to three** pebbles from the pile in turn."),
    h("Winning"),
    p("Whoever takes the last pebble wins."),
)
