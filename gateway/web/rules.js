// How to play each game: drawn from the rules its package declares (GET /v1/game-types,
// `how_to_play`; services/kernel/how_to_play.py says the blocks), so every game the server
// plays, a new one included, has its page.

import { el } from "/static/api.js";

const card = (c) => el("span", { class: `card ${c[0]}` }, c[0] === "C" ? `Copy ${c.slice(1)}` : c);
const cardRow = (cs) => el("span", { class: "cards inline" }, cs.map(card));

// **strong** and *emphasis* in plain text; everything else stays text.
function inline(text) {
  return text
    .split(/(\*\*[^*]+\*\*|\*[^*]+\*)/)
    .filter((part) => part !== "")
    .map((part) =>
      part.startsWith("**")
        ? el("strong", {}, part.slice(2, -2))
        : part.startsWith("*") && part.length > 2
          ? el("em", {}, part.slice(1, -1))
          : part,
    );
}

function tile(t, style) {
  const kind = style === "trees" ? "tree" : style === "facts" ? "fact" : "tile";
  const note = t.note ? el(kind === "fact" ? "span" : "div", { class: "muted" }, t.note) : null;
  if (kind === "fact")
    return el("div", { class: kind }, el("strong", {}, t.title), el("span", {}, t.text, " ", note));
  const cards = t.cards
    ? el(
        "div",
        { class: "cards" },
        t.cards.length ? t.cards.map(card) : el("span", { class: "muted" }, "empty"),
      )
    : null;
  return el(
    "div",
    { class: kind },
    el("strong", {}, t.title),
    t.text ? el("div", {}, t.text) : null,
    note,
    cards,
  );
}

function figure(f) {
  const parts = [];
  f.cards.forEach((group, i) => parts.push(...(i ? [" → "] : []), cardRow(group)));
  if (f.tiles.length)
    parts.push(
      el(
        "div",
        { class: f.style || "tiles" },
        f.tiles.map((t) => tile(t, f.style)),
      ),
    );
  if (f.pre) parts.push(el("pre", { class: "ship-map" }, f.pre));
  return el("figure", { class: "picture" }, ...parts, el("figcaption", {}, f.figure));
}

function block(b) {
  if ("h" in b) return el("h2", {}, b.h);
  if ("p" in b) return el("p", b.muted ? { class: "muted" } : {}, inline(b.p));
  if ("ol" in b)
    return el(
      "ol",
      {},
      b.ol.map((item) => el("li", {}, inline(item))),
    );
  if ("ul" in b)
    return el(
      "ul",
      {},
      b.ul.map((item) => el("li", {}, inline(item))),
    );
  if ("figure" in b) return figure({ cards: [], tiles: [], pre: "", ...b });
  return null; // a block of a later server: skipped
}

const hasRules = (type) => type && type.how_to_play && type.how_to_play.length > 0;

export function rulesLink(type) {
  return hasRules(type)
    ? el(
        "a",
        { href: `#/rules/${type.name}`, class: "rules-link" },
        `How to play ${type.title || type.name}`,
      )
    : null;
}

export async function renderRules(game, show, gameTypes) {
  const types = (await gameTypes()).filter(hasRules);
  const index = el(
    "nav",
    { class: "row", "aria-label": "games" },
    types.map((t) =>
      el(
        "a",
        { href: `#/rules/${t.name}`, "aria-current": t.name === game ? "page" : null },
        t.title || t.name,
      ),
    ),
  );
  const found = types.find((t) => t.name === game);
  if (!found) {
    show(el("section", {}, el("h1", {}, "How to play"), el("p", {}, "Choose a game:"), index));
    return;
  }
  show(
    el(
      "section",
      { class: "rules" },
      el("h1", {}, `How to play ${found.title || found.name}`),
      index,
      ...found.how_to_play.map(block),
      el("p", {}, el("a", { href: "#/" }, "Play it: back to the lobby")),
    ),
  );
}
