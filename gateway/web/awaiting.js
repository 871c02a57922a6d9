// Games awaiting you (GET /v1/accounts/me/awaiting): on the home page of a signed-in
// player, every game whose move is theirs, live or turn-based, the soonest to run out
// first (docs/turn-based.md).

import { account, api, el } from "/static/api.js";

function timeLeft(ms) {
  if (ms === null || ms === undefined) return "no clock";
  const s = Math.max(0, Math.floor(ms / 1000));
  const [d, h, m] = [
    Math.floor(s / 86400),
    Math.floor((s % 86400) / 3600),
    Math.floor((s % 3600) / 60),
  ];
  if (d) return `${d} d ${h} h left`;
  if (h) return `${h} h ${m} min left`;
  return `${m} min ${s % 60} s left`;
}

const speedOf = (g) => (g.speed === "turn_based" ? "turn-based" : "live");

// The section, filled once the list is read; nothing for a visitor who is not signed in.
export function awaitingBox(titles) {
  const me = account();
  if (!me) return null;
  const list = el("ul", { id: "awaiting", class: "awaiting" });
  const note = el("p", { class: "muted", id: "awaiting-note" });
  const box = el(
    "section",
    { "aria-labelledby": "awaiting-title" },
    el("h2", { id: "awaiting-title" }, "Your turn"),
    note,
    list,
  );
  api("GET", "/v1/accounts/me/awaiting", undefined, me.token)
    .then((found) => {
      const held = `${found.turn_based_games} of at most ${found.turn_based_cap}`;
      note.textContent = found.games.length
        ? `Turn-based games in play: ${held}.`
        : "No game awaits your move.";
      list.replaceChildren(
        ...found.games.map((g) =>
          el(
            "li",
            { "data-game": g.game_id },
            el("a", { href: `#/games/${g.game_id}` }, titles[g.game] || g.game),
            el("span", { class: "muted" }, ` · ${speedOf(g)} · ${timeLeft(g.time_left_ms)}`),
          ),
        ),
      );
    })
    .catch(() => box.remove()); // a signed-out token: the page works without it
  return box;
}
