"""How to play Giraffometer, for players: from the rulebook and docs/rulings.md, drawn by
every client (services.kernel.how_to_play)."""

from services.kernel.how_to_play import Block, Figure, Tile, h, ol, p, ul

HOW_TO_PLAY: tuple[Block, ...] = (
    p(
        "Trivia estimation for 2–8 players (up to 30 in a classroom). Six facts lie on the ",
        "table, each hiding a number between 0 and 10,000. Everyone secretly guesses which ",
        "fact hides the **lowest** number and which the **highest**.",
    ),
    Figure(
        figure="A round's facts, positions 1–6; mind the unit.",
        style="facts",
        tiles=[
            Tile(title="1", text="Height of the Eiffel Tower", note="(m)"),
            Tile(title="2", text="Earth's circumference", note="(thousand km)"),
            Tile(title="3", text="…"),
        ],
    ),
    h("A round"),
    ol(
        'Read the six facts. Check each unit: "thousand km" means 40 for the Earth, not 40,000.',
        "Choose one position as *lowest* and another as *highest*, then press *Vote*. A vote "
        "is final, and secret: the others see only that you voted.",
        "When everyone has voted (or a round timer runs out; no vote scores nothing), every "
        "vote and every answer is revealed at once.",
    ),
    h("Scoring: crystals"),
    ul(
        "Right lowest: +1 crystal. Right highest: +1 crystal.",
        "Your lowest on the actual highest, or your highest on the actual lowest: −1 (a table "
        "option turns these penalties off, for children).",
        "A score never drops below 0.",
    ),
    h("Winning"),
    p(
        "After a reveal, everyone at or above the target (7 crystals unless the table chose ",
        "another) wins, together. The revealed round stays on screen until the next one ",
        "starts, with every answer and vote.",
    ),
    p(
        "Fair play: each vote is stored as a sealed commitment until the reveal, so nobody ",
        "(the server's operators included) can change a vote after seeing others'.",
        muted=True,
    ),
)
