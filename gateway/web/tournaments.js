// Tournaments: the list, a form to run one with bots (and yourself, and anyone you send
// its link to), and a tournament's standings, rounds (each table watchable) and the
// ratings chart, live; while an open one registers: join it, or (its organiser) start it.

import { api, apiRetrying, commandId, el, follow, remember, toast } from "/static/api.js";

const PLAYERS = "raffe.players";
const ORGANISERS = "raffe.organisers"; // open tournaments this browser created, to start

function kept(key) {
  try {
    return JSON.parse(localStorage.getItem(key) || "{}");
  } catch {
    return {};
  }
}
function keep(key, id, value) {
  const all = kept(key);
  all[id] = value;
  localStorage.setItem(key, JSON.stringify(all));
}

export async function renderTournaments(show, gameTypes) {
  const types = (await gameTypes()).filter((t) => t.players[1] >= 2);
  const games = el(
    "div",
    { class: "row" },
    types.map((t, i) =>
      el(
        "label",
        {},
        el("input", { type: "checkbox", name: "games", value: t.name, checked: i === 0 }),
        ` ${t.title}`,
      ),
    ),
  );
  const name = el("input", { id: "t-name", value: "Friday cup", "aria-label": "name" });
  const format = el(
    "select",
    { id: "t-format", "aria-label": "format" },
    ["swiss", "round_robin", "elimination", "duplicate"].map((f) => el("option", { value: f }, f)),
  );
  const bots = el("input", {
    id: "t-bots",
    type: "number",
    min: 1,
    max: 64,
    value: 5,
    "aria-label": "bots",
  });
  const me = el("input", { id: "t-me", type: "checkbox" });
  const open = el("input", { id: "t-open", type: "checkbox" });
  async function create(event) {
    event.preventDefault();
    const chosen = [...games.querySelectorAll("input:checked")].map((i) => i.value);
    try {
      const options = {
        name: name.value,
        games: chosen,
        format: format.value,
        table_size: format.value === "round_robin" ? 2 : 3,
        rounds: 2,
      };
      const t = await api(
        "POST",
        "/v1/tournaments",
        open.checked ? { ...options, open_registration: true } : options,
      );
      const organiser = t.organiser_token;
      if (me.checked) {
        const player = await api(
          "POST",
          `/v1/tournaments/${t.tournament_id}/players`,
          { name: "me", kind: "human" },
          organiser,
        );
        keep(PLAYERS, t.tournament_id, player.token);
      }
      for (let i = 0; i < Number(bots.value); i++) {
        await api(
          "POST",
          `/v1/tournaments/${t.tournament_id}/players`,
          { name: `bot ${i + 1}`, kind: "bot" },
          organiser,
        );
      }
      if (open.checked)
        keep(ORGANISERS, t.tournament_id, organiser); // started from its page
      else await api("POST", `/v1/tournaments/${t.tournament_id}/start`, undefined, organiser);
      location.hash = `#/tournaments/${t.tournament_id}`;
    } catch (e) {
      toast(e.message);
    }
  }
  const list = el("section", { id: "tournament-list" }, el("h2", {}, "Tournaments"));
  show(
    el(
      "section",
      {},
      el(
        "form",
        { onsubmit: create },
        el("h2", {}, "New tournament"),
        el(
          "div",
          { class: "row" },
          el("label", { for: "t-name" }, "Name"),
          name,
          el("label", { for: "t-format" }, "Format"),
          format,
        ),
        games,
        el(
          "div",
          { class: "row" },
          el("label", { for: "t-bots" }, "Bots"),
          bots,
          el("label", {}, me, " I play too"),
        ),
        el(
          "div",
          { class: "row" },
          el("label", {}, open, " Open: anyone with its link may join; I start it when all are in"),
        ),
        el("button", { type: "submit", class: "primary", id: "t-create" }, "Create"),
      ),
    ),
    list,
  );
  const { tournaments } = await api("GET", "/v1/tournaments?limit=30");
  list.replaceChildren(...tournamentList(tournaments));
}

// The list's heading and its tournaments, or a line saying there are none yet.
export function tournamentList(tournaments) {
  const heading = el("h2", {}, "Tournaments");
  if (!tournaments.length)
    return [
      heading,
      el("p", { class: "muted" }, "No tournaments yet: create the first one above."),
    ];
  const row = (t) =>
    el(
      "tr",
      {},
      el(
        "td",
        {},
        el(
          "a",
          { href: `#/tournaments/${t.tournament_id}` },
          t.name || t.options?.name || t.tournament_id,
        ),
      ),
      el("td", {}, t.state),
    );
  return [
    heading,
    el(
      "table",
      {},
      el("thead", {}, el("tr", {}, el("th", {}, "Name"), el("th", {}, "State"))),
      el("tbody", {}, ...tournaments.map(row)),
    ),
  ];
}

function ratingsChart(history, names) {
  const SVG = "http://www.w3.org/2000/svg";
  const node = (tag, attrs) => {
    const n = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    return n;
  };
  const chart = node("svg", {
    viewBox: "0 0 100 50",
    role: "img",
    "aria-label": "ratings after each round",
    id: "ratings-chart",
  });
  if (!history.length) return chart;
  const values = history.flat();
  const [lo, hi] = [Math.min(...values), Math.max(...values)];
  const x = (i) => (history.length === 1 ? 50 : 5 + (90 * i) / (history.length - 1));
  const y = (v) => 45 - (40 * (v - lo)) / (hi - lo || 1);
  names.forEach((who, p) => {
    const points = history.map((after, i) => `${x(i)},${y(after[p])}`).join(" ");
    const line = node("polyline", {
      points,
      fill: "none",
      stroke: `hsl(${(p * 67) % 360} 60% 45%)`,
      "stroke-width": 0.6,
    });
    line.append(Object.assign(document.createElementNS(SVG, "title"), { textContent: who }));
    chart.append(line);
  });
  return chart;
}

export async function renderTournament(id, show, setLeave, gameTypes) {
  const box = el("div");
  show(box);
  // Each game by its title, as the lobby names it ("Giraffe Raffe", not its id).
  const titles = Object.fromEntries((await gameTypes()).map((t) => [t.name, t.title]));
  let playerToken = kept(PLAYERS)[id];
  const organiserToken = kept(ORGANISERS)[id];
  let drawn = 0; // the version on the page or seen on the stream: reads ask for it
  let typedName = ""; // what the join form holds, kept across redraws
  let entrants = 0; // how many play: the page redraws less often for a large tournament
  let waiting = false; // my table of this round is paired but its game not made yet
  // My tables: kept across redraws of the page and drawn on their own, from the small
  // /me answer, so a new round shows my table at once while the whole page (the
  // standings, every table) redraws later, spread over a moment (see below).
  const mine = el("div", { id: "my-tables" });
  let mineAt = -1; // the version my tables were last read at
  async function drawMine() {
    const asked = drawn;
    const me = await api(
      "GET",
      `/v1/tournaments/${id}/me?min_version=${drawn}`,
      undefined,
      playerToken,
    );
    mineAt = asked;
    waiting = me.tables.some((x) => !x.ready && !x.finished);
    mine.replaceChildren(
      ...me.tables
        .filter((x) => x.ready && !x.finished)
        .map((table) => {
          remember(table.game_id, table.seat, table.token);
          return el(
            "p",
            {},
            el(
              "a",
              { href: `#/games/${table.game_id}`, class: "my-table" },
              `Your table in round ${table.round} (${titles[table.game] || table.game})`,
            ),
          );
        }),
    );
  }
  async function draw() {
    const t = await api("GET", `/v1/tournaments/${id}?min_version=${drawn}`);
    drawn = Math.max(drawn, t.version);
    entrants = t.players.length;
    const names = t.players.map((p) => p.name);
    const standings = el(
      "table",
      { id: "standings" },
      el(
        "thead",
        {},
        el(
          "tr",
          {},
          ["#", "player", "points", "rating"].map((h) => el("th", {}, h)),
        ),
      ),
      el(
        "tbody",
        {},
        t.standings.map((s) =>
          el(
            "tr",
            {},
            el("td", {}, s.rank),
            el("td", {}, s.name),
            el("td", {}, s.points),
            el("td", {}, s.rating.ordinal.toFixed(1)),
          ),
        ),
      ),
    );
    const rounds = t.rounds.map((r) =>
      el(
        "div",
        {},
        el("h3", {}, `Round ${r.round}: ${titles[r.game] || r.game}`),
        el(
          "ul",
          {},
          r.tables.map((table) =>
            el(
              "li",
              {},
              // Counted from 1 for people (the API's tables count from 0).
              el("a", { href: `#/games/${table.game_id || ""}` }, `Table ${table.table + 1}`),
              ": ",
              table.players.map((p) => names[p]).join(", "),
              table.keys ? " (finished)" : "",
            ),
          ),
        ),
      ),
    );
    if (playerToken && (mineAt < drawn || waiting)) await drawMine(); // not read twice
    const st = t.status;
    const said = st.over
      ? `Over. Champion: ${(st.champions || []).map((c) => names[c]).join(", ")}`
      : t.started
        ? `${t.progress.finished}/${t.progress.games} games played`
        : `Registering: ${
            t.players
              .filter((p) => !p.removed)
              .map((p) => p.name)
              .join(", ") || "nobody yet"
          }`;
    const typing = document.activeElement?.id === "t-join-name"; // keep the focus there
    box.replaceChildren(
      el(
        "section",
        {},
        el("h1", {}, t.options?.name || id),
        el("p", { class: "status", id: "t-status" }, said),
        t.started ? "" : registering(t),
        mine,
        standings,
      ),
      el(
        "section",
        {},
        el("h2", {}, "Ratings after each round"),
        el("div", { class: "chart" }, ratingsChart(t.rating_history, names)),
        el(
          "div",
          { class: "row" },
          names.map((who, p) =>
            el(
              "span",
              {},
              el("span", { style: `color:hsl(${(p * 67) % 360} 60% 45%)` }, "━━ "),
              who,
            ),
          ),
        ),
      ),
      el("section", { id: "rounds" }, el("h2", {}, "Rounds"), rounds),
    );
    if (typing) document.getElementById("t-join-name")?.focus();
    return st.over;
  }
  // Before the start: a join form (open tournaments, for whoever is not in yet), the
  // link to send, and the organiser's start button.
  function registering(t) {
    const part = el("div", { id: "t-registering" });
    if (t.options?.open_registration) {
      part.append(
        el(
          "p",
          {},
          "Send this page's link to invite players: ",
          el("code", { id: "t-invite" }, location.href),
        ),
      );
      if (!playerToken) {
        const who = el("input", {
          id: "t-join-name",
          maxlength: 64,
          "aria-label": "your name",
          placeholder: "your name",
          value: typedName,
          oninput: () => (typedName = who.value),
        });
        async function join(event) {
          event.preventDefault();
          try {
            const body = { name: who.value, command_id: commandId() };
            const joined = await apiRetrying("POST", `/v1/tournaments/${id}/join`, body);
            keep(PLAYERS, id, joined.token);
            playerToken = joined.token;
            typedName = "";
            await draw();
          } catch (e) {
            toast(e.message);
          }
        }
        part.append(
          el(
            "form",
            { class: "row", onsubmit: join },
            who,
            el("button", { type: "submit", class: "primary", id: "t-join" }, "Join"),
          ),
        );
      }
    }
    if (organiserToken) {
      async function start() {
        try {
          await api("POST", `/v1/tournaments/${id}/start`, undefined, organiserToken);
          await draw();
        } catch (e) {
          toast(e.message);
        }
      }
      // The organiser may take out an entrant before the start (a name they do not want).
      async function remove(player) {
        try {
          await api("DELETE", `/v1/tournaments/${id}/players/${player}`, undefined, organiserToken);
          await draw();
        } catch (e) {
          toast(e.message);
        }
      }
      const entrants = t.players.filter((p) => !p.removed);
      part.append(
        el(
          "ul",
          { id: "t-entrants" },
          entrants.map((p) =>
            el(
              "li",
              {},
              p.name,
              " ",
              el(
                "button",
                {
                  type: "button",
                  class: "t-remove",
                  "data-player": p.player,
                  "aria-label": `remove ${p.name}`,
                  onclick: () => remove(p.player),
                },
                "Remove",
              ),
            ),
          ),
        ),
      );
      part.append(el("button", { class: "primary", id: "t-start", onclick: start }, "Start"));
    }
    return part;
  }
  // A tournament's stream is public: every result, pairing and rating as it happens.
  // A new round or the end: my tables at once (the small /me read, asked again each
  // second while my table's game is not made yet), the whole page after 200 ms plus a
  // share of a moment that grows with the entrants (up to 3 s at a thousand), so a
  // thousand pages do not all read the whole tournament in the same instant. Others'
  // results redraw the page at most every second, or every 5 s with a thousand
  // entrants (#28, bench/tournament_crowd.py: pages redrawing together swamped the
  // gateways).
  let pending = null;
  let minePending = null;
  let lastDraw = 0;
  function redraw() {
    pending = null;
    lastDraw = Date.now();
    draw()
      .then((over) => {
        if (!over && waiting) mineSoon(1000);
      })
      .catch(() => {});
  }
  function soon(ms) {
    clearTimeout(pending);
    pending = setTimeout(redraw, ms);
  }
  function mineSoon(ms) {
    clearTimeout(minePending);
    minePending = setTimeout(() => {
      minePending = null;
      drawMine()
        .then(() => {
          if (waiting) mineSoon(1000);
        })
        .catch(() => {
          if (waiting) mineSoon(1000);
        });
    }, ms);
  }
  const spread = () => 200 + Math.random() * Math.min(3000, entrants * 3);
  const over = await draw();
  lastDraw = Date.now();
  if (over) return;
  if (waiting) mineSoon(1000);
  const types = [
    "PlayerRegistered",
    "PlayerRemoved",
    "TournamentStarted",
    "RoundStarted",
    "TableFinished",
    "RoundEnded",
    "GameEnded",
  ];
  const stop = follow(
    id,
    null,
    types,
    drawn,
    (event) => {
      drawn = Math.max(drawn, event.version); // the redraw shows at least this
      if (event.type === "RoundStarted" || event.type === "GameEnded") {
        if (playerToken && event.type === "RoundStarted") mineSoon(0);
        return soon(spread());
      }
      if (pending) return; // a redraw is due already: it shows this event too
      const calm = Math.max(1000, entrants * 5);
      soon(Math.max(200, lastDraw + calm - Date.now()));
    },
    "/v1/tournaments",
  );
  setLeave(() => {
    stop();
    clearTimeout(pending);
    clearTimeout(minePending);
  });
}
