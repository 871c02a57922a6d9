// Quick play, on the lobby: choose a game and a table size, and the server seats you
// with players near your rating, or with bots after a short wait you can watch (your
// place and the longest wait, live over SSE) and cancel. Not signed in, you play as a
// guest (an account you may keep later from #/account). docs/quickplay.md.

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
  const line = el("p", { id: "qp-status", role: "status", "aria-live": "polite" });
  const cancel = el("button", { type: "button", id: "qp-cancel", hidden: true }, "Cancel");
  const go = el("button", { type: "button", class: "primary", id: "quick-play" }, "Quick play");
  let stop = () => {};
  go.addEventListener("click", async () => {
    try {
      let me = account();
      if (!me) {
        me = await api("POST", "/v1/accounts", {}); // a guest: keep it from #/account
        setAccount(me);
      }
      const body = { game: game.value, seats: Number(size.value) };
      let ticket;
      try {
        ticket = await api("POST", "/v1/quickplay", body, me.token);
      } catch (e) {
        if (e.code !== "already_queued") throw e;
        ticket = await api("GET", "/v1/quickplay", undefined, me.token);
      }
      go.disabled = true;
      cancel.hidden = false;
      stop = await follow(me, ticket, line);
      setLeave(() => stop());
    } catch (e) {
      toast(e.message);
    }
  });
  cancel.addEventListener("click", async () => {
    const me = account();
    try {
      await api("DELETE", "/v1/quickplay", undefined, me.token);
      stop();
      line.textContent = "You left the queue.";
      go.disabled = false;
      cancel.hidden = true;
    } catch (e) {
      toast(e.message);
    }
  });
  return el(
    "section",
    { id: "quickplay", "aria-label": "quick play" },
    el("h2", {}, "Quick play"),
    el("div", { class: "row" }, game, size, go, cancel),
    line,
  );
}

function said(ticket) {
  if (ticket.state === "seated") return "Your table is ready.";
  if (ticket.state === "matched") return "A table is being set for you…";
  if (ticket.state === "cancelled") return "You left the queue.";
  const wait = Math.ceil(ticket.estimated_wait_s);
  const others = ticket.waiting - 1;
  return (
    `Waiting: ${ordinal(ticket.position)} in the queue` +
    (others > 0 ? ` with ${others} other${others === 1 ? "" : "s"}` : "") +
    `; bots take the empty seats in ${wait} s at most.`
  );
}

function ordinal(n) {
  const teen = n % 100 > 10 && n % 100 < 14;
  const suffix = teen ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

// The ticket live: each frame redraws the line; once seated, the table opens.
async function follow(me, ticket, line) {
  line.textContent = said(ticket);
  const { ticket: pass } = await api("POST", "/v1/quickplay/stream-tickets", undefined, me.token);
  const source = new EventSource(`/v1/quickplay/stream?ticket=${encodeURIComponent(pass)}`);
  source.addEventListener("queue", (message) => {
    const now = JSON.parse(message.data);
    line.textContent = said(now);
    if (now.state === "seated") {
      source.close();
      location.hash = `#/games/${now.game_id}`;
    }
  });
  return () => source.close();
}
