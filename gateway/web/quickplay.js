// Quick play, on the lobby: choose a game, a table size and a speed, and the server
// seats you with players near your rating, or with bots after a wait you can watch (your
// place and the longest wait, live over SSE) and cancel. A turn-based table fills over
// hours (bots after a day): the box shows that search whenever you come back, beside a
// live one. Not signed in, you play as a guest (an account you may keep later from
// #/account). docs/quickplay.md.

import { account, api, el, setAccount, toast } from "/static/api.js";

export function quickPlayBox(types, setLeave) {
  const game = el(
    "select",
    { id: "qp-game", "aria-label": "quick play game" },
    types.map((t) => el("option", { value: t.name }, t.title)),
  );
  const size = el("select", { id: "qp-seats", "aria-label": "table size" });
  const fitSizes = () => {
    const type = types.find((t) => t.name === game.value) || {};
    const rule = ((type.options || {})["x-seats"] || {}).default || { min: 2, max: 4 };
    const sizes = [];
    for (let n = Math.max(2, rule.min || 2); n <= Math.min(rule.max || 4, 8); n++) sizes.push(n);
    size.replaceChildren(...sizes.map((n) => el("option", { value: n }, `${n} players`)));
  };
  game.addEventListener("change", fitSizes);
  fitSizes();
  const speed = el(
    "select",
    { id: "qp-speed", "aria-label": "speed" },
    el("option", { value: "realtime" }, "Real time"),
    el("option", { value: "turn_based" }, "Turn-based: a move a day"),
  );
  const line = el("p", { id: "qp-status", role: "status", "aria-live": "polite" });
  const cancel = el("button", { type: "button", id: "qp-cancel", hidden: true }, "Cancel");
  const go = el("button", { type: "button", class: "primary", id: "quick-play" }, "Quick play");
  let stop = () => {};
  let following = "realtime"; // the speed of the ticket the line shows
  // One search at a time on the line; a turn-based one may go on unseen while you play
  // a live table (it is shown again when you come back).
  const busy = () => following === "realtime" || speed.value === "turn_based";
  const show = async (me, ticket) => {
    following = ticket.speed || "realtime";
    go.disabled = busy();
    cancel.hidden = false;
    stop();
    stop = await follow(me, ticket, line, () => {
      cancel.hidden = true;
      go.disabled = false;
    });
    setLeave(() => stop());
  };
  speed.addEventListener("change", () => (go.disabled = !cancel.hidden && busy()));
  go.addEventListener("click", async () => {
    try {
      let me = account();
      if (!me) {
        me = await api("POST", "/v1/accounts", {}); // a guest: keep it from #/account
        setAccount(me);
      }
      const body = { game: game.value, seats: Number(size.value), speed: speed.value };
      let ticket;
      try {
        ticket = await api("POST", "/v1/quickplay", body, me.token);
      } catch (e) {
        if (e.code !== "already_queued") throw e;
        ticket = await api("GET", `/v1/quickplay?speed=${speed.value}`, undefined, me.token);
      }
      await show(me, ticket);
    } catch (e) {
      toast(e.message);
    }
  });
  cancel.addEventListener("click", async () => {
    const me = account();
    try {
      await api("DELETE", `/v1/quickplay?speed=${following}`, undefined, me.token);
      stop();
      line.textContent = "You left the queue.";
      go.disabled = false;
      cancel.hidden = true;
    } catch (e) {
      toast(e.message);
    }
  });
  resume(show);
  return el(
    "section",
    { id: "quickplay", "aria-label": "quick play" },
    el("h2", {}, "Quick play"),
    el("div", { class: "row" }, game, size, speed, go, cancel),
    line,
  );
}

// Coming back to the lobby: a turn-based search still under way is shown again.
async function resume(show) {
  const me = account();
  if (!me) return;
  try {
    const ticket = await api("GET", "/v1/quickplay?speed=turn_based", undefined, me.token);
    if (ticket.state === "waiting" || ticket.state === "matched") await show(me, ticket);
  } catch {
    // not queued (404): nothing to show
  }
}

function span(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min`;
  return `${s} s`;
}

function said(ticket) {
  const turnBased = ticket.speed === "turn_based";
  if (ticket.state === "seated") return "Your table is ready.";
  if (ticket.state === "matched") return "A table is being set for you…";
  if (ticket.state === "cancelled") return "You left the queue.";
  const others = ticket.waiting - 1;
  const place =
    `${ordinal(ticket.position)} in the queue` +
    (others > 0 ? ` with ${others} other${others === 1 ? "" : "s"}` : "");
  const bots = `bots take the empty seats in ${span(ticket.estimated_wait_s)} at most`;
  if (!turnBased) return `Waiting: ${place}; ${bots}.`;
  return (
    `Looking for players for a turn-based table: ${place}; ${bots}. ` +
    "You may close this page: the game will be in your games, " +
    "and you are told when it is your turn."
  );
}

function ordinal(n) {
  const teen = n % 100 > 10 && n % 100 < 14;
  const suffix = teen ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

// The ticket live: each frame redraws the line; once seated, the table opens.
async function follow(me, ticket, line, ended) {
  line.textContent = said(ticket);
  const { ticket: pass } = await api("POST", "/v1/quickplay/stream-tickets", undefined, me.token);
  const query = `ticket=${encodeURIComponent(pass)}&speed=${ticket.speed || "realtime"}`;
  const source = new EventSource(`/v1/quickplay/stream?${query}`);
  source.addEventListener("queue", (message) => {
    const now = JSON.parse(message.data);
    line.textContent = said(now);
    if (now.state === "seated") {
      source.close();
      location.hash = `#/games/${now.game_id}`;
    } else if (now.state === "cancelled") {
      source.close();
      ended();
    }
  });
  return () => source.close();
}
