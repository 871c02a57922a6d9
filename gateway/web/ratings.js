// Leaderboards (#/leaderboards/<game>) and a player's page (#/players/<id>): ratings per
// game kind, a chart of their score over their rated games, recent games with replays.
// docs/ratings.md describes the API.

import { account, api, el, named } from "/static/api.js";
import { challengeForm } from "/static/challenges.js";
import { followButton } from "/static/friends.js";
import { reportForm } from "/static/moderation.js";

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
      : el(
          "p",
          { class: "muted", id: "empty-board" },
          `No rated players on this board yet: a player joins it after ` +
            `${plural(board.provisional_games, "rated game")} ` +
            "(until then their rating is provisional).",
        ),
    around && around.entries.some((e) => e.player_id === me.player_id)
      ? [el("h2", {}, "Around you"), boardTable(around.entries, "around-me", me)]
      : null,
    el(
      "p",
      { class: "muted" },
      `${board.players} players on this board. `,
      el("a", { href: "#/ratings" }, "How ratings work"),
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
        ["Rank", "Player", "Rating", "Games"].map((h) => el("th", { scope: "col" }, h)),
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
          el(
            "td",
            {},
            el("a", { href: `#/players/${e.player_id}` }, e.name ? named(e) : "an erased player"),
          ),
          el("td", {}, e.rating),
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
      (p) => named(p),
      () => "an erased player",
    );
  const kinds = Object.entries(rated.ratings);
  const follow = await followButton(id);
  const types = await gameTypes();
  show(
    el("h1", {}, name),
    follow,
    challengeForm(id, types),
    reportForm(id),
    kinds.length
      ? el(
          "ul",
          { id: "ratings" },
          kinds.map(([game, r]) =>
            el(
              "li",
              {},
              el("a", { href: `#/leaderboards/${game}` }, titles[game] || game),
              `: ${r.rating} after ${plural(r.games, "rated game")}`,
              r.provisional
                ? ` (provisional: ${plural(r.provisional_left, "more rated game")} ` +
                    "until it counts on the leaderboards)"
                : "",
            ),
          ),
        )
      : el("p", { class: "muted" }, "No rated games yet."),
    rated.games.length ? el("div", { class: "chart" }, historyChart(rated.games, titles)) : null,
    el("p", {}, el("a", { href: "#/ratings" }, "How ratings work")),
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
            .map((p) => (p.name ? named(p) : "an erased player"))
            .join(", "),
          `, rating ${g.rating_after} (${signed(g.rating_after - g.rating_before)}) `,
          el("a", { href: `#/games/${g.game_id}/replay` }, "replay"),
        ),
      ),
    ),
  );
}

function signed(delta) {
  return `${delta >= 0 ? "+" : "−"}${Math.abs(delta)}`;
}

function plural(n, what) {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

// What a rating is, in words (docs/ratings.md says the same for developers).
export async function renderRatingsHelp(show) {
  const p = (...parts) => el("p", {}, ...parts);
  const any = await api("GET", "/v1/leaderboards/giraffe-raffe?limit=1").catch(() => null);
  const provisional = any ? any.provisional_games : 5;
  show(
    el("h1", {}, "How ratings work"),
    p(
      "Every player has a rating for each game, and so does every bot level. " +
        "A newcomer starts at 1500. Winning against strong players raises it more " +
        "than winning against weak ones; losing lowers it.",
    ),
    p(
      "A rating also knows how sure it is. While you have played few games it is cautious: " +
        "it starts at 1500 and climbs as your results make it certain. " +
        `Your first ${provisional} rated games of a game are provisional: you are not on its ` +
        "leaderboards until you have played them.",
    ),
    p(
      "A game is rated when it has two or more players, every person at the table is " +
        "signed in, and it is not a practice game. Games against bots count: bots are " +
        "rated like people.",
    ),
    p(
      "Leaderboards start again each season (30 days); your rating carries over. " +
        "Behind the number: openskill's Plackett-Luce model; the rating shown is " +
        "1500 + 40 × (μ − 3σ).",
    ),
    p(el("a", { href: "#/leaderboards" }, "The leaderboards")),
  );
}

// The rating after each rated game, oldest first, one line per game kind, with axes:
// ratings up the side (lowest, highest), rated games along the bottom, a legend.
function historyChart(games, titles) {
  const node = (tag, attrs, text) => {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    return n;
  };
  const ordered = [...games].reverse();
  const byKind = {};
  for (const g of ordered) {
    (byKind[g.game] = byKind[g.game] || [g.rating_before]).push(g.rating_after);
  }
  const values = Object.values(byKind).flat();
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const most = Math.max(...Object.values(byKind).map((s) => s.length)) - 1;
  const [left, right, top, bottom] = [30, 195, 8, 62];
  const x = (i, n) => (n <= 1 ? (left + right) / 2 : left + ((right - left) * i) / (n - 1));
  const y = (v) => bottom - ((bottom - top) * (v - lo)) / (hi - lo || 1);
  const chart = node("svg", {
    viewBox: "0 0 200 80",
    role: "img",
    "aria-label": `rating after each rated game: from ${lo} to ${hi} over ${most} games`,
    id: "rating-history",
  });
  const axis = { stroke: "currentColor", "stroke-width": 0.4 };
  const label = (at, text, anchor) =>
    node("text", { "font-size": 5, "text-anchor": anchor, fill: "currentColor", ...at }, text);
  chart.append(
    node("line", { x1: left, y1: top, x2: left, y2: bottom, ...axis }),
    node("line", { x1: left, y1: bottom, x2: right, y2: bottom, ...axis }),
    label({ x: left - 2, y: top + 2 }, String(hi), "end"),
    label({ x: left - 2, y: bottom }, String(lo), "end"),
    label({ x: left, y: bottom + 7 }, "0", "middle"),
    label({ x: right, y: bottom + 7 }, String(most), "middle"),
    label({ x: (left + right) / 2, y: bottom + 14 }, "rated games", "middle"),
    label({ x: 3, y: (top + bottom) / 2 }, "rating", "start"),
  );
  Object.entries(byKind).forEach(([game, series], k) => {
    const colour = `hsl(${(k * 97 + 200) % 360} 60% 40%)`;
    const line = node("polyline", {
      points: series.map((v, i) => `${x(i, most + 1)},${y(v)}`).join(" "),
      fill: "none",
      stroke: colour,
      "stroke-width": 0.8,
    });
    line.append(node("title", {}, `${titles[game] || game}: ${series[series.length - 1]}`));
    chart.append(
      line,
      label({ x: right, y: top + 6 * k, fill: colour }, `${titles[game] || game}`, "end"),
    );
  });
  return chart;
}
