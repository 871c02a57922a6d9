// Giraffe Raffe's table: your hand (select cards), the trees (the ones you can play on
// are outlined), Copy choices, returning an apple, and the Robot's colour ties.

import { el } from "/static/api.js";

const COLOURS = { R: "red", B: "blue", Y: "yellow", G: "green", C: "copy" };

function cardLabel(card) {
  return card[0] === "C" ? `Copy ${card.slice(1)}` : card;
}

function cardNode(card, attrs = {}) {
  return el(
    "span",
    { class: `card ${card[0]}`, title: `${COLOURS[card[0]]} ${card.slice(1)}`, ...attrs },
    cardLabel(card),
  );
}

// What a play on a tree must be, when the legal commands do not say (not your turn).
function needText(need) {
  const count =
    need.max_cards === need.min_cards
      ? need.min_cards
      : need.max_cards
        ? `${need.min_cards}-${need.max_cards}`
        : `${need.min_cards}+`;
  return `${count} card${count === 1 ? "" : "s"}${need.above ? `, above ${need.above}` : ""}`;
}

export function render({ view, legal, seat, send, last, who }) {
  const commands = (legal && legal.commands) || [];
  const lastPlay = last && last.events.find((e) => e.type === "CardsPlayed");
  const byTree = Object.fromEntries(
    commands.filter((c) => c.type === "play").map((c) => [c.tree, c]),
  );
  const selected = new Set();
  const root = el("div", { class: "giraffe-raffe" });
  // Each seat named as the table's header names it (a player's name, "Bot 1", "You").
  const name = (s) => (who ? who(s) : s === seat ? "You" : `Seat ${s}`);
  const turn = view.status && view.status.over ? -1 : view.turn; // nobody's, once over

  const players = el(
    "section",
    {},
    el("h2", {}, `Round ${view.round}`),
    el(
      "table",
      {},
      el(
        "tbody",
        {},
        view.players.map((p) =>
          el(
            "tr",
            { class: p.index === turn ? "turn" : "" },
            el("td", {}, p.robot ? "Robot" : name(p.index)),
            el("td", {}, plural(p.hand_size, "card")),
            el("td", {}, plural(p.apples, "apple")),
            el("td", {}, p.rotten_apples ? `rotten ${p.rotten_apples}` : ""),
            el("td", {}, p.index === turn ? "◀ turn" : ""),
          ),
        ),
      ),
    ),
    el(
      "p",
      { class: "muted" },
      `apples in the supply: ${view.supply} · redraw pile: ${view.redraw_size}`,
    ),
  );

  const copies = el("div", { class: "row", id: "copies" });
  const quick = el("div", {
    class: "row",
    id: "quick-play",
    "aria-label": "play the selected cards",
  });
  const trees = el("div", { class: "trees" });
  const hand = el("div", { class: "cards", id: "hand", role: "group", "aria-label": "your hand" });

  function selection() {
    return [...selected];
  }
  function copyChoices() {
    const chosen = {};
    for (const select of copies.querySelectorAll("select"))
      chosen[select.dataset.copy] = select.value;
    return chosen;
  }
  function refreshChoices() {
    const cards = selection();
    const numbered = cards.filter((c) => c[0] !== "C");
    copies.replaceChildren(
      ...cards
        .filter((c) => c[0] === "C" && numbered.length)
        .map((c) =>
          el(
            "label",
            {},
            `${cardLabel(c)} copies `,
            el(
              "select",
              { "data-copy": c, "aria-label": `what ${cardLabel(c)} copies` },
              numbered.map((n) => el("option", { value: n }, n)),
            ),
          ),
        ),
    );
    const count = cards.length;
    const key = [...cards].sort().join(",");
    const takers = []; // the trees this selection may be played on
    for (const button of trees.querySelectorAll("button.play")) {
      const entry = byTree[button.dataset.tree];
      const fits =
        entry &&
        entry.playable &&
        count >= entry.min_cards &&
        (entry.max_cards === null || count <= entry.max_cards);
      const options = entry && entry.options;
      const match = Boolean(options && options.some((o) => [...o].sort().join(",") === key));
      button.disabled = !send || !fits;
      // Why a Play button is off, for whoever hovers or focuses it.
      button.title = !send
        ? "not your move"
        : !entry || !entry.playable
          ? "nothing in your hand fits this tree now"
          : !fits
            ? `select ${needText(entry)} for this tree`
            : `play the selected cards on ${tree(button.dataset.tree)}`;
      button.closest(".tree").classList.toggle("match", match);
      // A tree that lists its plays takes exactly those; the others, a count that fits.
      if (send && count && (options ? match : fits)) takers.push(button);
    }
    // The trees the selection fits, right under the hand: on a phone the trees are a
    // long scroll away.
    quick.replaceChildren(
      ...takers.map((b) =>
        el(
          "button",
          {
            type: "button",
            class: "quick-play",
            "data-tree": b.dataset.tree,
            onclick: () => b.click(),
          },
          `Play on ${b.dataset.tree}`,
        ),
      ),
    );
  }

  for (const tree of view.trees) {
    const entry = byTree[tree.id];
    const top = tree.plays.length ? tree.plays[tree.plays.length - 1] : null;
    const justPlayed = lastPlay && lastPlay.data.tree === tree.id;
    trees.append(
      el(
        "div",
        {
          class: ["tree", entry && entry.playable && "playable", justPlayed && "last-move"]
            .filter(Boolean)
            .join(" "),
          "data-tree": tree.id,
        },
        el("strong", {}, boardName(tree.id)),
        " ",
        el("span", { class: "muted" }, tree.colours.length ? tree.colours.join("/") : ""),
        entry && entry.playable ? el("span", { class: "badge" }, " ✓ you can play here") : null,
        justPlayed
          ? el(
              "div",
              { class: "last-label" },
              `just played by ${who ? who(lastPlay.data.seat) : `seat ${lastPlay.data.seat}`}`,
            )
          : null,
        el("div", { class: "muted" }, entry ? entry.shape : needText(tree.need)),
        el(
          "div",
          { class: "cards" },
          top ? top.cards.map((c) => cardNode(c)) : el("span", { class: "muted" }, "empty"),
        ),
        el(
          "button",
          {
            type: "button",
            class: "play",
            "data-tree": tree.id,
            disabled: true,
            onclick: () =>
              send({ type: "play", tree: tree.id, cards: selection(), copies: copyChoices() }),
          },
          `Play on ${tree.id}`,
        ),
      ),
    );
  }

  for (const card of view.hand || []) {
    const button = cardNode(card, {
      role: "button",
      tabindex: 0,
      "aria-pressed": "false",
      "data-card": card,
    });
    const toggle = () => {
      if (selected.has(card)) selected.delete(card);
      else selected.add(card);
      button.setAttribute("aria-pressed", String(selected.has(card)));
      refreshChoices();
    };
    button.addEventListener("click", toggle);
    button.addEventListener("keydown", (e) => {
      if (e.key === " " || e.key === "Enter") {
        e.preventDefault();
        toggle();
      }
    });
    hand.append(button);
  }

  const actions = el("div", { class: "row" });
  if (send && commands.some((c) => c.type === "return_apple")) {
    actions.append(
      el(
        "button",
        { type: "button", id: "return-apple", onclick: () => send({ type: "return_apple" }) },
        "Return an apple and pass",
      ),
    );
  }
  const tie = commands.find((c) => c.type === "choose_robot_play");
  if (send && tie) {
    actions.append(
      el("span", {}, "The Robot plays on ", tie.options[0].tree || view.robot_tie?.tree, ": "),
    );
    for (const option of tie.options) {
      actions.append(
        el(
          "button",
          {
            type: "button",
            class: "robot-option",
            onclick: () => send({ type: "choose_robot_play", option: option.option }),
          },
          option.cards.map(cardLabel).join(" "),
        ),
      );
    }
  }

  // The hand above the trees: pick cards, then the tree to play them on (a phone scrolls
  // down from one to the other).
  root.append(
    players,
    el(
      "section",
      {},
      el("h2", {}, view.hand ? "Your hand" : "Hands are hidden"),
      hand,
      copies,
      quick,
      actions,
    ),
    el("section", {}, el("h2", {}, "Trees"), trees),
  );
  if (view.robot)
    root.append(
      el(
        "section",
        {},
        el("h2", {}, "The Robot's hand"),
        el(
          "div",
          { class: "cards" },
          view.robot.hand.map((c) => cardNode(c)),
        ),
      ),
    );
  if (view.hands)
    root.append(
      el(
        "section",
        {},
        el("h2", {}, "Every hand"),
        view.hands.map((h, i) =>
          el(
            "div",
            { class: "row" },
            `${name(i)}: `,
            el(
              "div",
              { class: "cards" },
              h.map((c) => cardNode(c)),
            ),
          ),
        ),
      ),
    );
  refreshChoices();
  return root;
}

// First-game help: what to do now (shown above the table).
export function hint({ view, legal, seat }) {
  if (view.status.over || seat < 0) return null;
  const commands = (legal && legal.commands) || [];
  if (!(view.status.to_act || []).includes(seat))
    return (
      "Not your move yet: your Play buttons wake up when it is. Meanwhile, plan which tree " +
      "your cards could climb."
    );
  const playable = commands.filter((c) => c.type === "play" && c.playable).length;
  const apple = commands.some((c) => c.type === "return_apple");
  if (commands.some((c) => c.type === "choose_robot_play"))
    return "The Robot can play in ways that differ only in colour: choose which it plays.";
  if (!playable)
    return (
      "No tree takes a play from your hand: return an apple to pass (with no apple, you " +
      "would lose)."
    );
  const pass = apple ? " Or return an apple to pass." : "";
  return (
    `Your move: select cards in your hand (click, or Enter), then press Play on one of the ` +
    `${playable} trees outlined in green.${pass}`
  );
}

// -- what happened, as sentences (the move log and the replay; moves.js) -------------------

const TREES = {
  single: "the Single tree",
  four: "Four of a Kind",
  three: "Three of a Kind",
  pair: "Pair",
  straight: "Straight",
  color: "Colour",
  free: "Free",
};
const COLOUR_WORDS = { r: "red", b: "blue", y: "yellow", g: "green" };

function tree(id) {
  return treeName(id);
}

// A tree's name on the board, as the rules and the move log name it.
function boardName(id) {
  if (id.startsWith("single")) return "Single";
  return TREES[id] || id;
}

export function treeName(id) {
  if (TREES[id]) return TREES[id];
  const colours = id
    .replace("single-", "")
    .split("")
    .map((c) => COLOUR_WORDS[c] || c);
  return `the ${colours.join("/")} Single tree`;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function describe(event, who, said) {
  const d = event.data;
  switch (event.type) {
    case "GameCreated":
      return `A game for ${plural(d.seats.length, "seat")} (${d.options.mode})`;
    case "CardsDealt":
      return (
        `Round ${d.round}: cards dealt; ${who(d.dealer)} ` +
        `deal${who(d.dealer) === "You" ? "" : "s"} and ` +
        `play${who(d.dealer) === "You" ? "" : "s"} first`
      );
    case "CardsPlayed": {
      const copies = Object.entries(d.copies || {}).map(([c, n]) => `${cardLabel(c)} as ${n}`);
      return (
        `${who(d.seat)} played ${d.cards.map(cardLabel).join(" + ")} on ` +
        `${treeName(d.tree)}${copies.length ? ` (${copies.join(", ")})` : ""}`
      );
    }
    case "ApplesTaken": {
      const last = said.length ? said[said.length - 1] : "";
      if (last.startsWith(`${who(d.seat)} played`)) {
        said[said.length - 1] = `${last} and took ${plural(d.count, "apple")}`;
        return null;
      }
      return `${who(d.seat)} took ${plural(d.count, "apple")}`;
    }
    case "RedrawCardTaken": {
      if (d.to === "robot_deck")
        return "The Robot took the top Redraw card, face down, onto its deck";
      const what = d.card ? cardLabel(d.card) : "a card";
      const last = said.length ? said[said.length - 1] : "";
      if (last.startsWith(`${who(d.seat)} played`)) {
        said[said.length - 1] = `${last} and drew ${what} from the Redraw pile`;
        return null;
      }
      return `${who(d.seat)} drew ${what} from the Redraw pile`;
    }
    case "AppleReturned":
      return `${who(d.seat)} returned an apple and passed`;
    case "RobotCardsDrawn":
      return `The Robot drew ${plural(d.cards.length, "card")}`;
    case "RobotTieOffered":
      return (
        `The Robot can play on ${treeName(d.tree)} in ${d.options.length} ways that differ ` +
        `only in colour: its player chooses`
      );
    case "PlayerLost":
      return `${who(d.seat)} could neither play nor return an apple, and lost round ${d.round}`;
    case "RottenAppleTaken":
      return `${who(d.seat)} took a rotten apple`;
    case "GameEnded":
      return `Game over: ${d.winners.map(who).join(", ") || "nobody"} won`;
    default:
      return null;
  }
}

// Why the game ended, by the rule that decided it (rulings GR-9, GR-10, GR-11).
export function explainEnd(view, events, who) {
  const ended = events.find((e) => e.type === "GameEnded");
  if (!ended) return null;
  const lost = events.filter((e) => e.type === "PlayerLost").map((e) => e.data);
  const last = lost[lost.length - 1];
  const winners = ended.data.winners.map(who).join(", ");
  const mode = (view.options || {}).mode;
  if (mode === "longer") {
    return (
      `${ended.data.losers.map(who).join(", ")} took a second rotten apple (a round's ` +
      `loser takes one; two lose the game), so ${winners} win.`
    );
  }
  if (mode === "solo" && last && view.players.some((p) => p.robot && p.index === last.seat)) {
    return "The Robot could neither play, draw from its deck nor return an apple: you win.";
  }
  if (last) {
    return (
      `On ${who(last.seat) === "You" ? "your" : `${who(last.seat)}'s`} turn there was no ` +
      `legal play and no apple to return, which loses at once; everyone else wins: ${winners}.`
    );
  }
  return `${winners} won.`;
}
