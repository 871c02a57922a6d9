// Leaderboards (#/leaderboards/<game>) and a player's page (#/players/<id>): ratings per
// game kind, a chart of their score over their rated games, recent games with replays.
// docs/ratings.md describes the API.

import { account, api, el } from "/static/api.js";

const SVG = "http://www.w3.org/2000/svg";

export async function renderLeaderboard(game, show, gameTypes) {
  const types = await gameTypes();
  game = game || types[0].name;
  const season = new URLSearchParams(location.hash.split("?")[1] || "").get("season") || "current";
  const me = account();
  const board = await api("GET", `/v1/leaderboards/${game}?season=${season}&limit=50`);
  const around = me
    ? await api("GET", `/v1/leaderboards/${game}?season=${season}&limit=5&around=${me.player_id}`)
    : null;
  const pick = el(
    "nav",
    { class: "row", "aria-label": "game kinds and seasons" },
    types.map((t) =>
      el(
        "a",
        {
          href: `#/leaderboards/${t.name}?season=${season}`,
          "aria-current": t.name === game ? "page" : null,
        },
        t.title,
      ),
    ),
    " · ",
    el(
      "a",
      {
        href: `#/leaderboards/${game}?season=current`,
        "aria-current": season === "current" ? "page" : null,
      },
      "this season",
    ),
    el(
      "a",
      {
        href: `#/leaderboards/${game}?season=all`,
        "aria-current": season === "all" ? "page" : null,
      },
      "all time",
    ),
  );
  const when =
    board.season === "all"
      ? "All time"
      : `Season ${board.season}: ${day(board.starts_ms)} to ${day(board.ends_ms)}`;
  show(
    el("h1", {}, "Leaderboards"),
    pick,
    el("h2", {}, `${(types.find((t) => t.name === game) || {}).title || game}: ${when}`),
    board.entries.length
      ? boardTable(board.entries, "leaderboard", me)
      : el("p", { class: "muted" }, "No rated players yet this season."),
    around && around.entries.some((e) => e.player_id === me.player_id)
      ? [el("h2", {}, "Around you"), boardTable(around.entries, "around-me", me)]
      : null,
    el(
      "p",
      { class: "muted" },
      `${board.players} players on this board. How ratings work: `,
      el("a", { href: "/docs" }, "the API"),
      ".",
    ),
  );
}

function day(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

function boardTable(entries, id, me) {
  return el(
    "table",
    { id },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ["Rank", "Player", "Score", "Games"].map((h) => el("th", { scope: "col" }, h)),
      ),
    ),
    el(
      "tbody",
      {},
      entries.map((e) =>
        el(
          "tr",
          { class: me && e.player_id === me.player_id ? "mine" : null },
          el("td", {}, e.rank),
          el("td", {}, el("a", { href: `#/players/${e.player_id}` }, e.name || "an erased player")),
          el("td", {}, e.score.toFixed(2)),
          el("td", {}, e.games),
        ),
      ),
    ),
  );
}

export async function renderPlayer(id, show, gameTypes) {
  const titles = Object.fromEntries((await gameTypes()).map((t) => [t.name, t.title]));
  const rated = await api("GET", `/v1/players/${id}/games?limit=100`);
  let name = id.startsWith("bot:") ? `Bot (${id.slice(4)})` : "";
  if (!name)
    name = await api("GET", `/v1/players/${id}`).then(
      (p) => p.name,
      () => "an erased player",
    );
  const kinds = Object.entries(rated.ratings);
  show(
    el("h1", {}, name),
    kinds.length
      ? el(
          "ul",
          { id: "ratings" },
          kinds.map(([game, r]) =>
            el(
              "li",
              {},
              el("a", { href: `#/leaderboards/${game}` }, titles[game] || game),
              `: ${r.score.toFixed(2)} after ${r.games} rated game${r.games === 1 ? "" : "s"}`,
              r.provisional ? " (provisional)" : "",
            ),
          ),
        )
      : el("p", { class: "muted" }, "No rated games yet."),
    rated.games.length ? el("div", { class: "chart" }, historyChart(rated.games, titles)) : null,
    el("h2", {}, "Recent rated games"),
    el(
      "ul",
      { id: "rated-games" },
      rated.games.map((g) =>
        el(
          "li",
          {},
          `${titles[g.game] || g.game}, ${new Date(g.ended_ms).toLocaleString()}: `,
          `place ${g.place} of ${g.players.length} against `,
          g.players
            .filter((p) => p.player_id !== id)
            .map((p) => p.name || "an erased player")
            .join(", "),
          `, ${signed(g.after - g.before)} `,
          el("a", { href: `#/games/${g.game_id}/replay` }, "replay"),
        ),
      ),
    ),
  );
}

function signed(delta) {
  return `${delta >= 0 ? "+" : "−"}${Math.abs(delta).toFixed(2)}`;
}

// The score after each rated game, oldest first, one line per game kind.
function historyChart(games, titles) {
  const node = (tag, attrs) => {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    return n;
  };
  const ordered = [...games].reverse();
  const byKind = {};
  for (const g of ordered) (byKind[g.game] = byKind[g.game] || [g.before]).push(g.after);
  const values = Object.values(byKind).flat();
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const chart = node("svg", {
    viewBox: "0 0 100 50",
    role: "img",
    "aria-label": "score after each rated game",
    id: "rating-history",
  });
  Object.entries(byKind).forEach(([game, series], k) => {
    const x = (i) => (series.length === 1 ? 50 : 5 + (90 * i) / (series.length - 1));
    const y = (v) => 45 - (40 * (v - lo)) / (hi - lo || 1);
    const line = node("polyline", {
      points: series.map((v, i) => `${x(i)},${y(v)}`).join(" "),
      fill: "none",
      stroke: `hsl(${(k * 97 + 200) % 360} 60% 40%)`,
      "stroke-width": 0.6,
    });
    line.append(
      Object.assign(document.createElementNS(SVG, "title"), { textContent: titles[game] || game }),
    );
    chart.append(line);
  });
  return chart;
}
