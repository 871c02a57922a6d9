// The lobby's list of games: a row each (its game, players, whom it waits for, when it
// started, and links to play, watch, join or replay), or a line saying there are none.

import { el, named } from "/static/api.js";

// The table's heading row and body for ``found`` (GET /v1/games); ``titles`` names each
// game type, ``mine(g)`` says whether the caller plays in g (their link says "Play").
export function lobbyRows(found, titles, mine) {
  const head = el(
    "thead",
    {},
    el(
      "tr",
      {},
      ["game", "players", "waiting for", "started", ""].map((h) => el("th", {}, h)),
    ),
  );
  const body = el("tbody");
  if (!found.length)
    body.append(
      el(
        "tr",
        {},
        el("td", { colspan: 5, class: "muted" }, "No games yet: quick play, or create one above."),
      ),
    );
  for (const g of found) body.append(row(g, titles, mine));
  return [head, body];
}

function row(g, titles, mine) {
  const actions = [el("a", { href: `#/games/${g.game_id}` }, mine(g) ? "Play" : "Watch")];
  for (const s of g.open_seats)
    actions.push(" ", el("a", { href: `#/join/${g.game_id}/${s}` }, `Join seat ${s}`));
  if (g.status.over) actions.push(" ", el("a", { href: `#/games/${g.game_id}/replay` }, "Replay"));
  return el(
    "tr",
    {},
    el(
      "td",
      {},
      titles[g.game] || g.game,
      g.practice ? el("span", { class: "muted" }, " (practice)") : "",
    ),
    el("td", {}, playersOf(g)),
    el("td", {}, waitingFor(g)),
    el("td", {}, ago(g.created_ms)),
    el("td", {}, actions),
  );
}

function playersOf(g) {
  return (g.seats || [])
    .map(
      (s, i) =>
        (s.name && named(s)) ||
        (s.kind === "bot"
          ? `bot${s.bot_level ? ` (${s.bot_level})` : ""}`
          : g.open_seats.includes(i)
            ? "open seat"
            : "player"),
    )
    .join(", ");
}

function waitingFor(g) {
  if (g.status.over) return "finished";
  if (g.open_seats.length) return `a player for seat ${g.open_seats.join(", ")}`;
  const acting = g.status.to_act || [];
  return acting.length ? `seat ${acting.join(", ")} to move` : "…";
}

function ago(ms) {
  if (!ms) return "";
  const minutes = Math.round((Date.now() - ms) / 60000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h ago` : `${Math.round(hours / 24)} days ago`;
}
