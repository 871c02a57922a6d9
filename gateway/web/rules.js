// How to play each game, written for players from the rulebooks and docs/rulings.md,
// with small pictures of the table drawn from the same pieces the tables use.

import { el } from "/static/api.js";

const card = (c) => el("span", { class: `card ${c[0]}` }, c[0] === "C" ? `Copy ${c.slice(1)}` : c);
const cards = (...cs) => el("span", { class: "cards inline" }, cs.map(card));
const picture = (label, ...nodes) =>
  el("figure", { class: "picture" }, ...nodes, el("figcaption", {}, label));

function tree(name, need, top) {
  return el(
    "div",
    { class: "tree" },
    el("strong", {}, name),
    el("div", { class: "muted" }, need),
    el("div", { class: "cards" }, top ? top.map(card) : el("span", { class: "muted" }, "empty")),
  );
}

const GIRAFFE_RAFFE = () => [
  el(
    "p",
    {},
    "A climbing card game for 2–5 players (or one against the Robot Giraffe). Play cards onto ",
    "the trees, each play higher or longer than the one before, and collect apples. ",
    el("strong", {}, "The player who can neither play nor give back an apple loses"),
    "; everyone else wins.",
  ),
  el("h2", {}, "The cards"),
  el(
    "p",
    {},
    "60 numbered cards, 1–15 in red, blue, yellow and green, and 4 ",
    el("strong", {}, "Copies"),
    ". A Copy has no colour or value of its own: played with numbered cards, it becomes an " +
      "exact duplicate of one of them (you choose which).",
  ),
  picture("A hand: numbered cards and a Copy.", cards("R7", "R12", "B7", "Y3", "G15", "C1")),
  el("h2", {}, "Your turn"),
  el("p", {}, "The dealer plays first, then seat by seat. On your turn you do one of two things:"),
  el(
    "ol",
    {},
    el(
      "li",
      {},
      el("strong", {}, "Play"),
      ": select cards from your hand, then press ",
      el("em", {}, "Play on …"),
      " on a tree that takes them. Trees you can play on now are outlined in green.",
    ),
    el(
      "li",
      {},
      el("strong", {}, "Return an apple"),
      ": give one of your apples back and pass. You may do this even when you could play.",
    ),
  ),
  el("h2", {}, "The trees"),
  el(
    "div",
    { class: "trees" },
    tree("Single", "1 card of the tree's colour, higher than the top", ["R9"]),
    tree("Pair", "2 cards of one value, higher than the top", ["B4", "G4"]),
    tree("Three / Four", "3 or 4 cards of one value, higher", null),
    tree("Straight", "3+ consecutive values, then one card more each time", ["R3", "B4", "Y5"]),
    tree("Colour", "3+ cards of one colour, then one more each time", null),
    tree("Free", "3+ cards of anything, then one more each time", null),
  ),
  el(
    "p",
    {},
    "On Single, Pair, Three and Four the value must be strictly higher than the top play " +
      "(colour never matters for the comparison). ",
    "On Straight, Colour and Free the first play has 3 cards and each later play at least one " +
      "card more (a table option: exactly one more). ",
    "A Copy needs a numbered card in the same play, so never on a Single, and a Straight cannot " +
      "use one (a duplicate value breaks the run).",
  ),
  picture(
    "7 + Copy is a pair of 7s: it may go on a Pair tree whose top is lower than 7.",
    cards("R7", "C2"),
    " → ",
    cards("R7", "R7"),
  ),
  el("h2", {}, "Rewards"),
  el(
    "ul",
    {},
    el(
      "li",
      {},
      "Pair: draw the top card of the ",
      el("strong", {}, "Redraw pile"),
      " (4 cards set aside at the start).",
    ),
    el("li", {}, "Three, Straight, Colour, Free: 1 apple. Four: 2 apples. Single: nothing."),
    el("li", {}, "You take only what is left: an empty pile or supply gives less, or nothing."),
  ),
  el("h2", {}, "Losing and winning"),
  el(
    "p",
    {},
    "When your turn comes and you have no legal play and no apple to return, you lose at once " +
      "and everyone else wins. ",
    "An empty hand does not lose by itself. The server sees it for you: nobody has to claim it.",
  ),
  el("h2", {}, "Longer game and solo"),
  el(
    "p",
    {},
    el("strong", {}, "Longer"),
    ": rounds of the standard game. A round's loser takes a rotten apple and deals the next " +
      "round; every round is dealt afresh. Two rotten apples lose the game. ",
    el("strong", {}, "Solo"),
    ": you against the Robot Giraffe. The Robot plays by fixed rules (the first tree in the " +
      "order Single, Four, Three, Pair, Straight, Colour, Free where it can play, with its " +
      "lowest cards); when two of its plays differ only in colour, you choose. It draws from " +
      "its deck when it cannot play; when it can do nothing at all, you win.",
  ),
];

const GIRAFFOMETER = () => [
  el(
    "p",
    {},
    "Trivia estimation for 2–8 players (up to 30 in a classroom). Six facts lie on the table, " +
      "each hiding a number between 0 and 10,000. ",
    "Everyone secretly guesses which fact hides the ",
    el("strong", {}, "lowest"),
    " number and which the ",
    el("strong", {}, "highest"),
    ".",
  ),
  picture(
    "A round's facts, positions 1–6; mind the unit.",
    el(
      "div",
      { class: "facts" },
      el(
        "div",
        { class: "fact" },
        el("strong", {}, "1"),
        el("span", {}, "Height of the Eiffel Tower ", el("span", { class: "muted" }, "(m)")),
      ),
      el(
        "div",
        { class: "fact" },
        el("strong", {}, "2"),
        el("span", {}, "Earth's circumference ", el("span", { class: "muted" }, "(thousand km)")),
      ),
      el("div", { class: "fact" }, el("strong", {}, "3"), el("span", {}, "…")),
    ),
  ),
  el("h2", {}, "A round"),
  el(
    "ol",
    {},
    el(
      "li",
      {},
      'Read the six facts. Check each unit: "thousand km" means 40 for the Earth, not 40,000.',
    ),
    el(
      "li",
      {},
      "Choose one position as ",
      el("em", {}, "lowest"),
      " and another as ",
      el("em", {}, "highest"),
      ", then press ",
      el("em", {}, "Vote"),
      ". A vote is final, and secret: the others see only that you voted.",
    ),
    el(
      "li",
      {},
      "When everyone has voted (or a round timer runs out; no vote scores nothing), every vote " +
        "and every answer is revealed at once.",
    ),
  ),
  el("h2", {}, "Scoring: crystals"),
  el(
    "ul",
    {},
    el("li", {}, "Right lowest: +1 crystal. Right highest: +1 crystal."),
    el(
      "li",
      {},
      "Your lowest on the actual highest, or your highest on the actual lowest: −1 (a table " +
        "option turns these penalties off, for children).",
    ),
    el("li", {}, "A score never drops below 0."),
  ),
  el("h2", {}, "Winning"),
  el(
    "p",
    {},
    "After a reveal, everyone at or above the target (7 crystals unless the table chose " +
      "another) wins, together. ",
    "The revealed round stays on screen until the next one starts, with every answer and vote.",
  ),
  el(
    "p",
    { class: "muted" },
    "Fair play: each vote is stored as a sealed commitment until the reveal, so nobody (the " +
      "server's operators included) can change a vote after seeing others'.",
  ),
];

const RIFF_RAFF = () => [
  el(
    "p",
    {},
    "A dexterity game for 2–4 players: load your cargo onto a wobbling ship. ",
    el("strong", {}, "The first with no pieces left wins"),
    "; what falls overboard and is not caught comes back to you.",
  ),
  el("h2", {}, "What you have"),
  el(
    "p",
    {},
    "Cards 1–10, each played once in the game, and 8 pieces: boat, barrel, flacon, box, sailor, " +
      "plank, rat, chest (two of each with 2 players).",
  ),
  picture(
    "The ship's areas: 1–4 on the deck; 5/6, 7/8 and 9/10 on the low, middle and top yardarms.",
    el(
      "pre",
      { class: "ship-map" },
      "      9 ─┼─ 10\n      7 ─┼─ 8\n      5 ─┼─ 6\n  [ 1 | 2 | 3 | 4 ]\n  ~~~~~~~~~~~~~~~~~",
    ),
  ),
  el("h2", {}, "A round"),
  el(
    "ol",
    {},
    el("li", {}, "Everyone secretly chooses a card; all are revealed at once."),
    el(
      "li",
      {},
      "The highest card makes its player ",
      el("strong", {}, "captain"),
      " (on a tie the previous captain chooses among the tied). ",
      "Turns go from the highest card down; the captain orders players who played the same card.",
    ),
    el("li", {}, "On your turn you load one of your pieces into the area your card names."),
  ),
  el("h2", {}, "Loading"),
  el(
    "p",
    {},
    "On a yardarm (areas 5–10) that already held a piece before your turn, you may declare a ",
    el("strong", {}, "double load"),
    " before loading: two pieces, one after the other. If anything falls during the first, " +
      "there is no second.",
  ),
  el(
    "p",
    {},
    "In the ",
    el("strong", {}, "simulated"),
    " mode the server is the ship: choose the piece, where across the area it goes and how it " +
      "is turned; ",
    "a physics model decides what tips and falls (the same load always gives the same result, " +
      "recorded for replays). ",
    "In the ",
    el("strong", {}, "tabletop"),
    " mode you play with a real ship: the active player reports what fell and what was caught, " +
      "the others may dispute, and the captain settles it.",
  ),
  el("h2", {}, "Falling and catching"),
  el(
    "p",
    {},
    "A fall ends your turn. You may try to catch up to two falling pieces (one per hand; the " +
      "higher they fall from, the harder). ",
    "Caught pieces leave the game (good for you); pieces not caught come back to you, to load " +
      "again later. ",
    "You may not catch only the piece you just placed: it comes back to you.",
  ),
  el("h2", {}, "Winning"),
  el(
    "p",
    {},
    "A player with no pieces left at the end of their turn wins at once. After 10 rounds (every " +
      "card played; 20 with 2 players) the fewest pieces win, ties together.",
  ),
];

const GAMES = {
  "giraffe-raffe": ["Giraffe Raffe", GIRAFFE_RAFFE],
  giraffometer: ["Giraffometer", GIRAFFOMETER],
  "riff-raff": ["Riff Raff", RIFF_RAFF],
};

export function rulesLink(game) {
  return GAMES[game]
    ? el("a", { href: `#/rules/${game}`, class: "rules-link" }, `How to play ${GAMES[game][0]}`)
    : null;
}

export function renderRules(game, show) {
  const index = el(
    "nav",
    { class: "row", "aria-label": "games" },
    Object.entries(GAMES).map(([name, [title]]) =>
      el("a", { href: `#/rules/${name}`, "aria-current": name === game ? "page" : null }, title),
    ),
  );
  const found = GAMES[game];
  if (!found) {
    show(el("section", {}, el("h1", {}, "How to play"), el("p", {}, "Choose a game:"), index));
    return;
  }
  show(
    el(
      "section",
      { class: "rules" },
      el("h1", {}, `How to play ${found[0]}`),
      index,
      ...found[1](),
      el("p", {}, el("a", { href: "#/" }, "Play it: back to the lobby")),
    ),
  );
}
