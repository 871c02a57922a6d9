// Raffe's web client: the lobby, a table for each game, replays and tournaments, over the
// same REST API any client uses (/docs). No build step, no third-party code.

import { renderAccount } from "/static/account.js";
import {
  account,
  api,
  apiRetrying,
  commandId,
  el,
  follow,
  heldSeat,
  named,
  remember,
  seatOf,
  toast,
} from "/static/api.js";
import {
  describeTable,
  rematchBox,
  seatsBar,
  standInNote,
  tableActions,
  tickClocks,
} from "/static/fairtable.js";
import { lobbyRows } from "/static/lobby.js";
import { allEvents, latestMove, moveLog, movesOf, namer, tell } from "/static/moves.js";
import { quickPlayBox } from "/static/quickplay.js";
import { challengesBox } from "/static/challenges.js";
import { chatPanel } from "/static/chat.js";
import { renderFriends } from "/static/friends.js";
import { renderLadder } from "/static/ladder.js";
import { renderModeration } from "/static/moderation.js";
import { renderLeaderboard, renderPlayer, renderRatingsHelp } from "/static/ratings.js";
import { renderRules, rulesLink } from "/static/rules.js";
import { awaitingBox } from "/static/awaiting.js";
import { watchTable } from "/static/watching.js";
import { renderTournament, renderTournaments } from "/static/tournaments.js";

const app = document.getElementById("app");
let leave = () => {}; // stops what the current page follows (streams, timers)
let catalog = null; // GET /v1/game-types

async function gameTypes() {
  catalog = catalog || (await api("GET", "/v1/game-types"));
  return catalog;
}

async function tableModule(game) {
  try {
    return await import(`/static/games/${game}.js`);
  } catch {
    return await import("/static/games/generic.js");
  }
}

// A page's parts; a part left out (null, false) shows nothing and a list shows its items
// (replaceChildren would write "null", or a list's items as "[object …]" text).
function show(...nodes) {
  app.replaceChildren(...nodes.flat().filter((n) => n !== null && n !== undefined && n !== false));
  app.focus();
}

// -- routing -------------------------------------------------------------------------------

const ROUTES = [
  [/^#\/games\/([\w-]+)\/replay$/, (id) => replayPage(id)],
  [/^#\/games\/([\w-]+)$/, (id) => tablePage(id)],
  [/^#\/join\/([\w-]+)\/(\d+)$/, (id, seat) => joinSeat(id, Number(seat))],
  [/^#\/tournaments\/([\w-]+)$/, (id) => renderTournament(id, show, setLeave, gameTypes)],
  [/^#\/tournaments$/, () => renderTournaments(show, gameTypes)],
  [/^#\/rules(?:\/([\w-]+))?$/, (game) => renderRules(game, show, gameTypes)],
  [/^#\/account$/, () => renderAccount(show, gameTypes)],
  [/^#\/leaderboards(?:\/([\w-]+))?(?:\?.*)?$/, (game) => renderLeaderboard(game, show, gameTypes)],
  [/^#\/players\/([\w:-]+)$/, (id) => renderPlayer(id, show, gameTypes)],
  [/^#\/ratings$/, () => renderRatingsHelp(show)],
  [/^#\/ladder(?:\/([\w-]+))?$/, (game) => renderLadder(game, show, gameTypes)],
  [/^#\/friends$/, () => renderFriends(show, gameTypes)],
  [/^#\/moderation$/, () => renderModeration(show)],
  [/^.*$/, () => lobbyPage()],
];

function setLeave(stop) {
  leave = stop;
}

async function route() {
  leave();
  leave = () => {};
  const hash = location.hash || "#/";
  for (const [pattern, page] of ROUTES) {
    const found = hash.match(pattern);
    if (found) {
      try {
        await page(...found.slice(1));
      } catch (e) {
        show(el("p", { class: "error" }, e.message));
      }
      return;
    }
  }
}

// The header names the signed-in player (or offers to sign in) on every page.
function showAccount() {
  const me = account();
  const link = document.getElementById("account-link");
  if (link) link.textContent = me ? me.name : "Sign in";
}

window.addEventListener("hashchange", route);
window.addEventListener("raffe-account", showAccount);
showAccount();
route();

// -- lobby ---------------------------------------------------------------------------------

// The create form is built from each game's options schema (GET /v1/game-types: titles,
// a label per value, options that apply in some modes, the seats a table takes), so it
// offers nothing the engine would refuse.
const KIND_LABELS = { you: "you", open: "open (a friend)", bot: "bot" };

function labelOf(prop, value) {
  const labels = prop["x-labels"] || {};
  return labels[String(value)] || String(value);
}

function optionControl(name, prop, seatCount) {
  const id = `option-${name}`;
  let input;
  if (prop.enum) {
    input = el(
      "select",
      { id, "data-option": name },
      prop.enum.map((v) =>
        el("option", { value: v, selected: v === prop.default }, labelOf(prop, v)),
      ),
    );
  } else if (prop.type === "boolean") {
    input = el("input", {
      id,
      type: "checkbox",
      "data-option": name,
      "data-kind": "boolean",
      checked: prop.default === true,
    });
  } else if (prop["x-seat"]) {
    input = el(
      "select",
      { id, "data-option": name, "data-kind": "seat" },
      el("option", { value: "" }, labelOf(prop, null)),
      Array.from({ length: seatCount }, (_, i) => el("option", { value: i }, `seat ${i}`)),
    );
  } else if (prop.type === "array" || (Array.isArray(prop.type) && prop.type.includes("array"))) {
    input = el(
      "span",
      { id, "data-option": name, "data-kind": "list", role: "group", "aria-label": prop.title },
      (prop.items.enum || []).map((v) =>
        el("label", {}, el("input", { type: "checkbox", value: v }), ` ${v}`),
      ),
    );
  } else {
    const optional = Array.isArray(prop.type) && prop.type.includes("null");
    input = el("input", {
      id,
      type: "number",
      "data-option": name,
      "data-kind": "number",
      min: prop.minimum,
      max: prop.maximum,
      value: prop.default ?? "",
      placeholder: optional ? "none" : "",
      style: "width:6rem",
    });
  }
  return el("label", { class: "option", for: id, "data-for": name }, `${prop.title} `, input);
}

function optionValues(box) {
  const out = {};
  for (const input of box.querySelectorAll("[data-option]")) {
    if (input.closest(".option").hidden) continue;
    const kind = input.dataset.kind;
    if (kind === "boolean") out[input.dataset.option] = input.checked;
    else if (kind === "list") {
      const chosen = [...input.querySelectorAll("input:checked")].map((i) => i.value);
      if (chosen.length) out[input.dataset.option] = chosen;
    } else if (kind === "number" || kind === "seat") {
      if (input.value !== "") out[input.dataset.option] = Number(input.value);
    } else out[input.dataset.option] = input.value;
  }
  return out;
}

function seatRule(schema, options) {
  const rules = (schema && schema["x-seats"]) || {};
  for (const [option, byValue] of Object.entries(rules)) {
    if (option !== "default" && byValue[String(options[option])])
      return byValue[String(options[option])];
  }
  const rule = { min: 1, max: 30, kinds: ["human", "open", "bot"], ...(rules.default || {}) };
  if (rule.max_option && options[rule.max_option])
    rule.max = Math.min(Number(options[rule.max_option]), 30);
  return rule;
}

async function lobbyPage() {
  const types = await gameTypes();
  const seats = el("div", { id: "seats" });
  const gameSelect = el(
    "select",
    { id: "game", "aria-label": "game" },
    types.map((t) => el("option", { value: t.name }, t.title)),
  );
  const optionsBox = el("div", { class: "row", id: "options" });
  const practice = el("input", { id: "practice", type: "checkbox" });
  // A practice game may take a seed of your own: the same seed deals the same game again.
  const seed = el("input", {
    id: "seed",
    maxlength: 128,
    placeholder: "drawn",
    disabled: true,
    "aria-label": "seed",
  });
  practice.addEventListener("change", () => {
    seed.disabled = !practice.checked;
  });
  const addSeat = el(
    "button",
    {
      type: "button",
      id: "add-seat",
      onclick: () => {
        seats.append(seatRow("bot"));
        fitSeats();
      },
    },
    "Add a seat",
  );
  const seatNote = el("span", { class: "muted", id: "seat-note" });

  function typeOf() {
    return types.find((t) => t.name === gameSelect.value);
  }
  function rule() {
    return seatRule(typeOf().options, optionValues(optionsBox));
  }
  // A bot level as people know it: its name and, once it has played rated games, its
  // rating ("Master · 1620"); the default level first, as the server lists them.
  function levelOf(t, level) {
    return (t.bot_levels || []).find((l) => l.level === level) || { name: level, about: "" };
  }
  function levelLabel(t, level) {
    const l = levelOf(t, level);
    return l.rating != null ? `${l.name} · ${l.rating}${l.provisional ? "?" : ""}` : l.name;
  }
  function seatRow(kind) {
    const t = typeOf();
    const kindSelect = el(
      "select",
      { class: "seat-kind", "aria-label": "seat" },
      ["you", "open", "bot"].map((k) =>
        el("option", { value: k, selected: k === kind }, KIND_LABELS[k]),
      ),
    );
    const level = el(
      "select",
      { class: "bot-level", "aria-label": "bot level" },
      t.bots.map((b) => el("option", { value: b, title: levelOf(t, b).about }, levelLabel(t, b))),
    );
    const remove = el(
      "button",
      {
        type: "button",
        class: "remove-seat",
        onclick: () => {
          row.remove();
          fitSeats();
        },
      },
      "Remove",
    );
    const row = el("div", { class: "row seat" }, kindSelect, level, remove);
    kindSelect.addEventListener("change", () => {
      // One seat is yours: a second "you" would wait for ever for a player nobody is.
      if (kindSelect.value === "you") {
        for (const other of seats.querySelectorAll(".seat-kind"))
          if (other !== kindSelect && other.value === "you") other.value = "open";
      }
      fitSeats();
    });
    return row;
  }
  // Keep the seats to what the table takes: count, kinds (a kind a mode refuses is not
  // offered), and one "you" at most.
  function fitSeats() {
    const r = rule();
    const allowed = new Set(r.kinds.map((k) => (k === "human" ? "you" : k)));
    let rows = [...seats.querySelectorAll(".seat")];
    while (rows.length > r.max) rows.pop().remove();
    while (rows.length < r.min) {
      seats.append(seatRow(rows.length ? "bot" : "you"));
      rows = [...seats.querySelectorAll(".seat")];
    }
    for (const row of rows) {
      const select = row.querySelector(".seat-kind");
      for (const option of select.options) option.disabled = !allowed.has(option.value);
      if (!allowed.has(select.value)) select.value = [...allowed].find((k) => k !== "you") || "you";
      row.querySelector(".bot-level").hidden = select.value !== "bot";
      row.querySelector(".remove-seat").disabled = rows.length <= r.min;
    }
    addSeat.disabled = rows.length >= r.max;
    seatNote.textContent =
      r.min === r.max ? `${r.min} seat${r.min === 1 ? "" : "s"}` : `${r.min}-${r.max} seats`;
    for (const select of optionsBox.querySelectorAll('[data-kind="seat"]')) {
      const keep = select.value;
      select.replaceChildren(
        select.options[0],
        ...rows.map((_, i) => el("option", { value: i }, `seat ${i}`)),
      );
      select.value = Number(keep) < rows.length ? keep : "";
    }
  }
  // Options that apply only in some modes show only then.
  function fitOptions() {
    const schema = typeOf().options || { properties: {} };
    const values = optionValues(optionsBox);
    for (const [name, prop] of Object.entries(schema.properties || {})) {
      const label = optionsBox.querySelector(`[data-for="${name}"]`);
      if (!label || !prop["x-when"]) continue;
      label.hidden = !Object.entries(prop["x-when"]).every(([other, allowed]) =>
        allowed.includes(values[other] ?? schema.properties[other].default),
      );
    }
    fitSeats();
  }
  function resetGame() {
    const schema = typeOf().options || { properties: {} };
    seats.replaceChildren(seatRow("you"));
    optionsBox.replaceChildren(
      ...Object.entries(schema.properties || {})
        .filter(([, prop]) => prop["x-form"] !== false)
        .map(([name, prop]) => optionControl(name, prop, 2)),
    );
    for (const input of optionsBox.querySelectorAll("[data-option]"))
      input.addEventListener("change", fitOptions);
    fitOptions();
  }
  const howTo = el("span", { id: "how-to" });
  const showHowTo = () => howTo.replaceChildren(rulesLink(typeOf()) || "");
  gameSelect.addEventListener("change", resetGame);
  gameSelect.addEventListener("change", showHowTo);
  resetGame();
  showHowTo();

  async function create(event) {
    event.preventDefault();
    const t = typeOf();
    const rows = [...seats.querySelectorAll(".seat")];
    const me = account();
    const body = {
      game: t.name,
      seats: rows.map((row) => {
        const kind = row.querySelector(".seat-kind").value;
        if (kind === "bot") return { kind, bot_level: row.querySelector(".bot-level").value };
        // Signed in, your seat is your player's: it follows you to any device.
        if (kind === "you") return me ? { kind: "human", player: "me" } : { kind: "human" };
        return { kind };
      }),
      options: optionValues(optionsBox),
      practice: practice.checked || undefined,
      seed: (practice.checked && seed.value) || undefined,
      command_id: commandId(),
    };
    try {
      const created = await apiRetrying("POST", "/v1/games", body, me ? me.token : undefined);
      const mine = Object.keys(created.tokens)
        .map(Number)
        .sort((a, b) => a - b);
      if (mine.length) remember(created.game_id, mine[0], created.tokens[mine[0]]);
      location.hash = `#/games/${created.game_id}`;
    } catch (e) {
      toast(e.message);
    }
  }

  const form = el(
    "form",
    { onsubmit: create },
    el("h2", {}, "New game"),
    el("div", { class: "row" }, el("label", { for: "game" }, "Game"), gameSelect, howTo),
    el("h3", {}, "Options"),
    optionsBox,
    el("h3", {}, "Seats ", seatNote),
    seats,
    el("div", { class: "row" }, addSeat),
    el(
      "div",
      { class: "row" },
      el("label", {}, practice, " practice"),
      el("label", { for: "seed" }, "seed"),
      seed,
    ),
    el("button", { class: "primary", type: "submit", id: "create" }, "Create and play"),
  );

  const lobby = el("table", { id: "lobby" });
  const games = el("section", {}, el("h2", {}, "Games"), lobby);
  const titles = Object.fromEntries(types.map((t) => [t.name, t.title]));
  show(
    awaitingBox(titles),
    challengesBox(titles),
    quickPlayBox(types, setLeave),
    el("section", {}, form),
    games,
  );
  const { games: found } = await api("GET", "/v1/games?limit=30");
  lobby.replaceChildren(...lobbyRows(found, titles, mineIn));
}

function mineIn(g) {
  const me = account();
  return seatOf(g.game_id) || (me && (g.seats || []).some((s) => s.player === me.player_id));
}

async function joinSeat(gameId, seat) {
  const held = await heldSeat(gameId);
  if (!held) {
    const me = account();
    try {
      const path = `/v1/games/${gameId}/seats/${seat}`;
      const claimed = await api("POST", path, {}, me ? me.token : undefined);
      remember(gameId, claimed.seat, claimed.token);
    } catch (e) {
      toast(`Could not join: ${e.message}`);
    }
  }
  location.hash = `#/games/${gameId}`;
}

// -- a table ---------------------------------------------------------------------------------

// Why a game ended: the table's own reason (a concession, a claimed win) before the
// game's rules, which would explain a result the game's play did not reach.
function whyOver(module, view, events, who) {
  const ended = events.find((e) => e.type === "GameEnded");
  if (ended && ended.data && ended.data.by_table) return `${describeTable(ended, who)}.`;
  return module.explainEnd ? module.explainEnd(view, events, who) : null;
}

function statusLine(view, seat, why, who) {
  const st = view.status || {};
  // Seats by the names the table shows (a player's name, "Bot 1"), "you" for your own.
  const name = (s) => (s === seat ? "you" : who(s));
  if (st.over) {
    const won = (st.winners || []).map(name);
    return el(
      "div",
      { class: "status", id: "status" },
      el("p", {}, `Game over. Winner${won.length === 1 ? "" : "s"}: ${won.join(", ") || "none"}`),
      why ? el("p", { id: "why" }, why) : null,
    );
  }
  const yours = (st.to_act || []).includes(seat);
  const waiting = (st.to_act || []).map(name).join(", ");
  return el(
    "p",
    { class: `status${yours ? " yours" : ""}`, id: "status" },
    yours ? "Your move" : `Waiting for ${waiting || "…"}`,
  );
}

// The clock of the current turn or round: a countdown, a warning in its last seconds
// (announced once), and "Time is up: move on" (the game's default move) only once it is.
const WARN_S = 10;

function timerLine(view, send) {
  const deadline = (view.status || {}).deadline_ms;
  if (!deadline || view.status.over) return null;
  const line = el("span", { class: "timer", id: "timer-left", role: "timer" });
  const warning = el("span", { class: "visually-hidden", "aria-live": "assertive" });
  const onDeadline = view.status.on_deadline;
  const moveOn =
    onDeadline && send
      ? el(
          "button",
          { type: "button", id: "move-on", hidden: true, onclick: () => send(onDeadline) },
          "Time is up: move on",
        )
      : null;
  let warned = false;
  const tick = () => {
    const left = Math.ceil((deadline - Date.now()) / 1000);
    line.textContent = left > 0 ? `${left} s left` : "time is up";
    line.classList.toggle("warn", left > 0 && left <= WARN_S);
    if (left > 0 && left <= WARN_S && !warned) {
      warned = true;
      warning.textContent = `${left} seconds left`;
    }
    if (moveOn) moveOn.hidden = left > 0;
  };
  tick();
  const handle = setInterval(tick, 1000);
  line.stop = () => clearInterval(handle);
  return el("span", {}, line, warning, moveOn ? " " : null, moveOn);
}

async function tablePage(gameId) {
  const held = await heldSeat(gameId);
  const token = held ? held.token : null;
  const summary = await api("GET", `/v1/games/${gameId}`, undefined, token);
  const type = (await gameTypes()).find((t) => t.name === summary.view.game) || {
    events: [],
    name: summary.view.game,
  };
  const module = await tableModule(type.name);
  const own = module.describe || ((e) => e.type);
  const describe = (e, w, out) => describeTable(e, w, out) ?? own(e, w, out);
  const board = el("div", { id: "board", tabindex: -1, "aria-label": "the table" });
  // data-version: the version drawn (what If-Match and min_version speak of), for tools
  // and tests; players see moves, not versions.
  const header = el("div", { id: "table-head" });
  const invite = el("div", { class: "row muted", id: "invite" });
  // The move log: every move as a sentence, newest first; the newest is announced.
  const events = await allEvents(gameId, token).catch(() => []);
  const seated = await api("GET", `/v1/games/${gameId}/seats`).catch(() => ({ seats: [] }));
  const names = Object.fromEntries(
    seated.seats.filter((s) => s.name).map((s) => [s.seat, named(s)]),
  );
  const who = namer(events, held ? held.seat : -1, names);
  // Each seat's presence (connected, away, gone), kept current by the stream's frames.
  const presence = Object.fromEntries(
    seated.seats.filter((s) => s.presence).map((s) => [s.seat, s.presence]),
  );
  const bar = el("div", { id: "table-bar" });
  let shown = null; // the view and legal commands the bar was drawn from
  let again = null; // the "Play again" box, once the game is over
  function drawBar() {
    if (!shown) return;
    const seat = held ? held.seat : -1;
    const over = shown.view.status.over;
    if (over && !again) again = rematchBox(gameId, held, api, remember);
    bar.replaceChildren(
      seatsBar(shown.view, seat, who, presence, seated.seats.length) || "",
      over ? again || "" : standInNote(shown.legal) || "",
      over ? recordLink(gameId) : "",
      over ? "" : tableActions(shown.legal, held ? send : null) || "",
    );
  }
  const clocks = setInterval(() => tickClocks(bar), 1000);
  const log = el(
    "section",
    { id: "log", "aria-label": "what happened" },
    el("h2", {}, "What happened"),
  );
  const announce = el("p", { class: "visually-hidden", id: "announce", "aria-live": "polite" });
  const chat = chatPanel(gameId, held);
  show(
    el(
      "section",
      {},
      el("h1", {}, type.title || type.name),
      header,
      invite,
      el(
        "p",
        {},
        el("a", { href: `#/games/${gameId}/replay` }, "Replay"),
        held ? ` · you are seat ${held.seat}` : " · watching",
        rulesLink(type) ? " · " : "",
        rulesLink(type),
      ),
    ),
    board,
    log,
    chat.panel,
    announce,
  );
  function heard(event) {
    // an event of the stream, in order, once
    if (!events.length || event.version > events[events.length - 1].version) events.push(event);
  }

  let version = summary.version;
  let busy = false;
  let timer = null;
  async function send(command) {
    if (busy) return;
    busy = true;
    try {
      const answer = await apiRetrying(
        "POST",
        `/v1/games/${gameId}/commands`,
        { command, command_id: commandId() },
        token,
      );
      for (const event of answer.events) heard(event);
      draw(answer.view, answer.commands, answer.version);
    } catch (e) {
      toast(e.message);
      await refresh();
    } finally {
      busy = false;
    }
  }
  let drawn = false;
  function draw(view, legal, at) {
    // Only a newer version redraws: a redraw would drop a selection the player is making.
    if (drawn && at <= version) return;
    drawn = true;
    version = at;
    if (timer) timer.stop?.();
    const seat = held ? held.seat : -1;
    const clock = timerLine(view, held ? send : null);
    timer = clock ? clock.firstChild : null;
    const moves = movesOf(events.filter((e) => e.version <= at));
    const why = view.status.over ? whyOver(module, view, events, who) : null;
    const help = module.hint ? module.hint({ view, legal, seat }) : null;
    shown = { view, legal };
    drawBar();
    header.dataset.version = String(at);
    header.replaceChildren(
      statusLine(view, seat, why, who),
      bar,
      help ? el("p", { class: "hint", id: "hint" }, help) : "",
      clock ? el("p", { class: "muted" }, clock) : "",
    );
    const last = latestMove(moves);
    const lastTold = last
      ? { seat: last.actor, events: last.events, text: tell(last, describe, who).join("; ") }
      : null;
    // A redraw replaces the table's controls: keep the focus on the table (the same
    // control if it is still there, else the board), not on the page's body.
    const focused = document.activeElement;
    const hadFocus = focused && focused !== document.body && board.contains(focused);
    const focusId = hadFocus ? focused.id : "";
    board.replaceChildren(
      module.render({
        view,
        legal,
        seat,
        send: held ? send : null,
        gameId,
        version: at,
        last: lastTold,
        who,
      }),
    );
    if (hadFocus) {
      const again = focusId && document.getElementById(focusId);
      (again && !again.disabled ? again : board).focus({ preventScroll: true });
    }
    const { list, newest } = moveLog(moves, describe, who);
    log.replaceChildren(el("h2", {}, "What happened"), list);
    const yours = (view.status.to_act || []).includes(seat);
    announce.textContent = `${newest}${yours ? " Your move." : ""}`;
  }
  let latest = version; // the newest version the stream announced
  async function refresh() {
    // min_version: the read models may trail the stream by a batch; wait for what we saw.
    const [seen, legal] = await Promise.all([
      api("GET", `/v1/games/${gameId}?min_version=${latest}`, undefined, token),
      token ? api("GET", `/v1/games/${gameId}/commands`, undefined, token) : Promise.resolve(null),
    ]);
    if (legal && legal.version !== seen.version) {
      // a move in between: read that version
      latest = Math.max(latest, legal.version, seen.version);
      return refresh();
    }
    draw(seen.view, legal, seen.version);
  }
  // The stream carries this seat's view and legal commands after each batch of events:
  // another player's move is drawn from it at once. Reading them again is the fallback
  // for a view frame that does not come (a gateway of before them).
  let pending = null;
  const stop = follow(
    gameId,
    token,
    type.events || [],
    version,
    (event) => {
      heard(event);
      latest = Math.max(latest, event.version);
      if (event.version <= version) return;
      clearTimeout(pending);
      pending = setTimeout(() => refresh().catch(() => {}), 1000);
    },
    "/v1/games",
    (frame) => {
      if (frame.version < latest) return; // more events are on their way, with their view
      clearTimeout(pending);
      draw(frame.view, frame.commands, frame.version);
    },
    (said) => {
      for (const key of Object.keys(presence)) delete presence[key];
      for (const p of said.seats) presence[p.seat] = p;
      drawBar();
    },
    chat.add,
  );
  const unwatch = watchTable(gameId, token);
  setLeave(() => {
    unwatch();
    clearInterval(clocks);
    if (again) again.stop();
    stop();
    if (timer) timer.stop?.();
    clearTimeout(pending);
  });
  await showInvites(gameId, invite);
  await refresh();
}

// The seats still open, from GET /seats: asked again on a 503 (the store a moment away;
// a game too new for the read models is answered from its first event), so a table
// opened at once still shows its invite.
async function openSeats(gameId) {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const { seats } = await api("GET", `/v1/games/${gameId}/seats`);
      return seats.filter((s) => s.open).map((s) => s.seat);
    } catch (e) {
      if (e.status !== 503) return [];
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  return [];
}

async function showInvites(gameId, box) {
  try {
    const open = await openSeats(gameId);
    if (!open.length) return;
    box.append("Invite a friend: ");
    for (const s of open) {
      const link = `${location.origin}${location.pathname}#/join/${gameId}/${s}`;
      box.append(
        el("a", { href: link, class: "invite-link" }, `seat ${s}`),
        " ",
        el(
          "button",
          {
            type: "button",
            onclick: () => navigator.clipboard?.writeText(link).then(() => toast("Link copied")),
          },
          "Copy link",
        ),
        " ",
      );
    }
  } catch {
    /* the seats are a read model; a table works without them */
  }
}

// A finished game's portable record (docs/records.md), to keep or to check with
// `raffe verify`.
function recordLink(gameId) {
  return el(
    "p",
    {},
    el(
      "a",
      { href: `/v1/games/${gameId}/record`, download: `${gameId}.json`, id: "record-download" },
      "Download this game's record",
    ),
  );
}

// -- replay ---------------------------------------------------------------------------------

// Steps by move (one command's events), each captioned with its sentence; a round is the
// moves from one round's start to the next. Plain-text controls (glyphs such as ⏮ do not
// render on every system's fonts).
const ROUND_STARTS = new Set(["CardsDealt", "RoundStarted"]);

async function replayPage(gameId) {
  const held = await heldSeat(gameId);
  const token = held ? held.token : null;
  const now = await api("GET", `/v1/games/${gameId}`, undefined, token);
  const module = await tableModule(now.view.game);
  const own = module.describe || ((e) => e.type);
  const describe = (e, w, out) => describeTable(e, w, out) ?? own(e, w, out);
  const events = await allEvents(gameId, token);
  const who = namer(events, held ? held.seat : -1);
  const moves = movesOf(events);
  const rounds = moves
    .map((m, i) => (m.events.some((e) => ROUND_STARTS.has(e.type)) ? i : -1))
    .filter((i) => i >= 0);
  const slider = el("input", {
    type: "range",
    min: 1,
    max: moves.length,
    value: moves.length,
    id: "replay-move",
    "aria-label": "move",
  });
  const label = el("span", { id: "replay-label" });
  const caption = el("p", { id: "replay-caption", "aria-live": "polite" });
  const reveal = el("input", { type: "checkbox", id: "reveal", disabled: !now.view.status.over });
  const board = el("div", { id: "board" });
  let index = moves.length - 1;
  let asked = 0; // the newest step asked for: an older answer arriving late must not draw
  async function at(i) {
    const mine = ++asked;
    index = Math.min(moves.length - 1, Math.max(0, i));
    const move = moves[index];
    slider.value = index + 1;
    label.textContent = `move ${index + 1} of ${moves.length} (version ${move.version})`;
    caption.textContent = `${tell(move, describe, who).join("; ") || "…"}.`;
    const query = `version=${move.version}${reveal.checked ? "&reveal=true" : ""}`;
    const shown = await api("GET", `/v1/games/${gameId}/replay?${query}`, undefined, token);
    if (mine !== asked) return; // stepped on (or revealed) meanwhile: that answer draws
    const last = { seat: move.actor, events: move.events, text: caption.textContent };
    board.replaceChildren(
      module.render({
        view: shown.view,
        legal: null,
        seat: shown.seat,
        send: null,
        gameId,
        version: move.version,
        last,
        who,
      }),
    );
  }
  const round = (direction) => {
    const found =
      direction > 0 ? rounds.find((r) => r > index) : [...rounds].reverse().find((r) => r < index);
    return at(found === undefined ? (direction > 0 ? moves.length - 1 : 0) : found);
  };
  const button = (id, text, onclick) => el("button", { type: "button", id, onclick }, text);
  slider.addEventListener("change", () => at(Number(slider.value) - 1));
  reveal.addEventListener("change", () => at(index));
  const controls = el(
    "div",
    { class: "row", id: "replay-controls" },
    button("replay-first", "First", () => at(0)),
    button("replay-prev-round", "Previous round", () => round(-1)),
    button("replay-back", "Previous move", () => at(index - 1)),
    slider,
    button("replay-next", "Next move", () => at(index + 1)),
    button("replay-next-round", "Next round", () => round(1)),
    button("replay-last", "Last", () => at(moves.length - 1)),
    label,
  );
  // The arrow keys step too, while focus is not in a field.
  controls.addEventListener("keydown", (e) => {
    if (e.target === slider) return;
    if (e.key === "ArrowRight") {
      e.preventDefault();
      at(index + 1);
    }
    if (e.key === "ArrowLeft") {
      e.preventDefault();
      at(index - 1);
    }
  });
  show(
    el(
      "section",
      {},
      el("h1", {}, "Replay"),
      controls,
      caption,
      el("label", {}, reveal, " show every hand (finished games)"),
      el("p", {}, el("a", { href: `#/games/${gameId}` }, "Back to the table")),
    ),
    board,
  );
  await at(moves.length - 1);
}
