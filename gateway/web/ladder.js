// The bot ladder (#/ladder/<game>, GET /v1/accounts/me/ladder/<game>, docs/bots.md): a
// game's bot levels, weakest first; beat a level twice to climb its rung, then play the
// next one up. A game against the next level is you and one bot seat of that level.

import { account, api, apiRetrying, commandId, el, remember, toast } from "/static/api.js";

function rungRow(rung, index, ladder) {
  const climbed = rung.beaten && index < ladder.climbed;
  const state = climbed ? "climbed" : rung.level === ladder.next ? "your next rung" : "ahead";
  const rating = rung.rating != null ? `${rung.rating}${rung.provisional ? "?" : ""}` : "unrated";
  return el(
    "tr",
    { "aria-current": rung.level === ladder.next ? "step" : null },
    el("th", { scope: "row" }, rung.name),
    el("td", {}, rung.about),
    el("td", {}, rating),
    el("td", {}, `${Math.min(rung.wins, 2)} of 2 wins (${rung.games} played)`),
    el("td", {}, state),
  );
}

async function play(game, level, me) {
  const body = {
    game,
    seats: [
      { kind: "human", player: "me" },
      { kind: "bot", bot_level: level },
    ],
    command_id: commandId(),
  };
  try {
    const created = await apiRetrying("POST", "/v1/games", body, me.token);
    const mine = Object.keys(created.tokens).map(Number);
    if (mine.length) remember(created.game_id, mine[0], created.tokens[mine[0]]);
    location.hash = `#/games/${created.game_id}`;
  } catch (e) {
    toast(e.message);
  }
}

export async function renderLadder(game, show, gameTypes) {
  const types = await gameTypes();
  game = game || types[0].name;
  const title = (types.find((t) => t.name === game) || {}).title || game;
  const pick = el(
    "nav",
    { class: "row", "aria-label": "game kinds" },
    types.map((t) =>
      el(
        "a",
        { href: `#/ladder/${t.name}`, "aria-current": t.name === game ? "page" : null },
        t.title,
      ),
    ),
  );
  const me = account();
  if (!me) {
    show(
      el("h1", {}, "Bot ladder"),
      pick,
      el("p", {}, el("a", { href: "#/account" }, "Sign in"), " to climb the ladder."),
    );
    return;
  }
  const ladder = await api("GET", `/v1/accounts/me/ladder/${game}`, undefined, me.token);
  const next = ladder.rungs.find((r) => r.level === ladder.next);
  const head = ["Level", "What it does", "Rating", "Your wins", ""].map((h) =>
    el("th", { scope: "col" }, h),
  );
  show(
    el("h1", {}, "Bot ladder"),
    pick,
    el("h2", {}, title),
    el(
      "p",
      { id: "ladder-standing" },
      next
        ? `You stand on rung ${ladder.climbed} of ${ladder.rungs.length}. ` +
            `Beat ${next.name} twice to climb.`
        : `You have climbed all ${ladder.rungs.length} rungs.`,
    ),
    el(
      "table",
      { class: "ladder" },
      el("caption", {}, `${title}: bot levels, weakest first`),
      el("thead", {}, el("tr", {}, head)),
      el(
        "tbody",
        {},
        ladder.rungs.map((r, i) => rungRow(r, i, ladder)),
      ),
    ),
    next
      ? el(
          "button",
          { type: "button", id: "ladder-play", onclick: () => play(game, next.level, me) },
          `Play ${next.name}`,
        )
      : null,
  );
}
