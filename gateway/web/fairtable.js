// The table around every game (docs/fair-table.md): who is here (presence), who left and
// which seats a bot plays, each player's time bank, and what a seat may do about it:
// leave, concede, take the seat back, claim the win, play again.

import { el } from "/static/api.js";

// Sentences for the table's own events in the move log (the games describe the rest).
// ``out``: the move's sentences so far (a game that ends as a seat leaves says it once).
export function describeTable(event, who, out = []) {
  const d = event.data || {};
  switch (event.type) {
    case "SeatLeft": {
      const them = who(d.seat) === "You" ? "you" : "them";
      if (d.reason === "timed_out") {
        // A turn-based table's take-over rule: the bot's move just before said time ran out.
        return `${who(d.seat)} ran out of time; a bot plays the seat for ${them} to the end`;
      }
      const what = d.reason === "conceded" ? "conceded" : "left the table";
      return `${who(d.seat)} ${what}; a bot plays on for ${them}`;
    }
    case "SeatGone":
      return `${who(d.seat)} is gone; a bot plays for them until they come back`;
    case "SeatReturned":
      return `${who(d.seat)} is back`;
    case "ClocksSet":
      return d.flagged && d.flagged.length
        ? `${d.flagged.map((s) => who(s)).join(", ")} ran out of time`
        : "";
    case "TimeRanOut": {
      // AL-3: the seat's bot makes the move it owes; the player stays. Said once: a
      // bank's "ran out of time" just before is folded into this sentence.
      if (out.length && out[out.length - 1].endsWith("ran out of time")) out.pop();
      const name = who(d.seat);
      const them = name === "You" ? "you" : name;
      return `Time ran out for ${them}; a bot played for ${name === "You" ? "you" : "them"}`;
    }
    case "GameEnded":
      if (!d.by_table) return null;
      if (d.reason === "claimed") return `${who(d.winners[0])} claimed the win`;
      // Conceded, and nobody is left to play on: no bot plays on after all.
      if (out.length && out[out.length - 1].startsWith(`${who(d.losers[0])} conceded;`)) out.pop();
      return `${who(d.losers[0])} conceded; ${d.winners.map((s) => who(s)).join(", ")} won`;
    default:
      return null;
  }
}

// Minutes and seconds; a turn-based bank in days and hours ("2 d 5 h", "7 h 12 min").
function clockText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const [d, h, m] = [
    Math.floor(s / 86400),
    Math.floor((s % 86400) / 3600),
    Math.floor((s % 3600) / 60),
  ];
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  return `${m}:${String(s % 60).padStart(2, "0")}`;
}

// A seat's presence in words, with what happens next and when (docs/fair-table.md): an
// away player has a bot stand in at gone_at_ms; at a table of two the other player may
// then claim the win from claim_from_ms.
function presenceText(p, count, over, other, turnBased) {
  if (!p) return "";
  if (p.state === "connected") return "here";
  const away = Math.max(0, Math.round((Date.now() - p.since_ms) / 1000));
  // Turn-based: nobody is expected to stay; their clock, not their absence, decides.
  if (turnBased) return "not here now";
  if (p.state === "gone" || over || !p.gone_at_ms)
    return p.state === "gone" ? "gone" : `away ${away} s`;
  // Clock times, not countdowns: the bar is redrawn when something changes, not every
  // second (a redraw would take the keyboard's focus from its buttons).
  const at = (ms) => new Date(ms).toLocaleTimeString();
  const claim =
    count === 2 && p.claim_from_ms
      ? `; ${other ? "you" : "the other player"} may claim the win from ${at(p.claim_from_ms)}`
      : "";
  const bot = `a bot plays for them from ${at(p.gone_at_ms)} unless they are back`;
  return `away since ${at(p.since_ms)}: ${bot}${claim}`;
}

// One line per seat: name, presence, who plays it, its clock. ``presence``: by seat, as
// the stream's presence frames (or GET /seats) said; ``count``: the seats at the table.
export function seatsBar(view, seat, who, presence, count) {
  const table = view.table;
  const seats = table ? table.seats : Array.from({ length: count }, (_, i) => ({ seat: i }));
  if (!table && !Object.keys(presence).length) return null;
  const clocks = table && table.clocks;
  const rows = seats.map((s) => {
    const bits = [];
    const over = view.status && view.status.over; // nobody plays on: no bot either
    const turnBased = table && table.speed === "turn_based";
    const other = seat >= 0 && s.seat !== seat;
    const p = presenceText(presence[s.seat], seats.length, over, other, turnBased);
    if (p) bits.push(p);
    const leftAs = { conceded: "conceded", timed_out: "out of time" };
    if (s.left) bits.push(leftAs[s.left] || "left");
    if (s.vacation_until_ms > Date.now())
      bits.push(`on vacation until ${new Date(s.vacation_until_ms).toLocaleString()}`);
    if (s.left && !over) bits.push("a bot plays");
    else if (s.gone && !over) bits.push("a bot plays until they are back");
    const item = el(
      "li",
      { class: `seat-line${s.seat === seat ? " mine" : ""}`, "data-seat": s.seat },
      el("span", { class: `dot ${presence[s.seat] ? presence[s.seat].state : "unknown"}` }),
      ` ${who(s.seat)}`,
      bits.length ? el("span", { class: "muted" }, ` (${bits.join(", ")})`) : "",
    );
    if (clocks) {
      const clock = el("span", { class: "bank", id: `bank-${s.seat}` });
      clock.dataset.bank = clocks.banks_ms[s.seat];
      clock.dataset.since = clocks.running_since_ms[s.seat];
      clock.dataset.full = clocks.max_ms || clocks.bank_ms;
      item.append(" ", clock);
    }
    return item;
  });
  const list = el(
    "ul",
    { class: "seats-bar", id: "seats-bar", "aria-label": "the players" },
    ...rows,
  );
  tickClocks(list);
  return list;
}

// Running clocks count down where they are shown; the runner plays the default move
// when one reaches 0, the server being the one that measures.
export function tickClocks(root) {
  for (const clock of root.querySelectorAll(".bank")) {
    const bank = Number(clock.dataset.bank);
    const since = Number(clock.dataset.since);
    const left = since ? bank - Math.max(0, Date.now() - since) : bank;
    // A clock that starts later (its player is on vacation) waits, full.
    clock.textContent =
      since > Date.now() ? `clock ${clockText(bank)}, waiting` : `clock ${clockText(left)}`;
    clock.setAttribute("aria-label", `${clockText(left)} left on the clock`);
    clock.classList.toggle("running", Boolean(since));
    // A warning in the last tenth of a bank (10 s of a real-time one at least).
    const warnBelow = Math.max(10_000, Number(clock.dataset.full || 0) / 10);
    clock.classList.toggle("warn", Boolean(since) && left < warnBelow);
  }
}

// What the seat may do at the table now (legal.table), as buttons.
export function tableActions(legal, send) {
  const moves = (legal && legal.table) || [];
  if (!send || !moves.length) return null;
  const buttons = moves.map((m) => {
    if (m.type === "return") {
      return el(
        "button",
        { type: "button", id: "take-back", onclick: () => send({ type: "return" }) },
        "Take my seat back",
      );
    }
    if (m.type === "claim_win") {
      const early = m.valid_from_ms > Date.now();
      const button = el(
        "button",
        {
          type: "button",
          id: "claim-win",
          disabled: early,
          onclick: () => send({ type: "claim_win" }),
        },
        "Claim the win",
      );
      if (early) setTimeout(() => (button.disabled = false), m.valid_from_ms - Date.now());
      return button;
    }
    const words = m.type === "leave" ? "Leave the table" : "Concede";
    const ask =
      m.type === "leave"
        ? "Leave this game? A bot plays your seat to the end and you rank last."
        : "Concede this game? You rank last.";
    return el(
      "button",
      {
        type: "button",
        class: "quiet",
        id: m.type,
        onclick: () => window.confirm(ask) && send({ type: m.type }),
      },
      words,
    );
  });
  return el("p", { class: "row table-actions", id: "table-actions" }, ...buttons);
}

// A note to a player whose seat a bot plays: why, and that a move takes it back.
export function standInNote(legal) {
  if (!legal || !legal.stand_in) return null;
  const moves = legal.table || [];
  return el(
    "p",
    { class: "hint", id: "stand-in" },
    moves.some((m) => m.type === "return")
      ? "You were away, so a bot played for you. Take your seat back (or just move)."
      : "You left this game: a bot plays your seat.",
  );
}

// "Play again" at a finished table: asks for a rematch, then waits (asking every 2 s)
// until everyone has, and goes to the new game with this seat's new token.
export function rematchBox(gameId, held, api, remember) {
  if (!held) return null;
  const state = el("span", { id: "rematch-state", "aria-live": "polite" });
  let asking = null;
  async function look(method) {
    const said = await api(method, `/v1/games/${gameId}/rematch`, undefined, held.token);
    if (said.rematch) {
      clearInterval(asking);
      if (said.token) remember(said.rematch, held.seat, said.token);
      state.textContent = "Everyone is in: starting…";
      location.hash = `#/games/${said.rematch}`;
      return;
    }
    const plural = (n) => `${n} ${n === 1 ? "player" : "players"}`;
    const waiting = plural(said.waiting_for.length);
    const asked = said.accepted.length;
    if (said.accepted.includes(held.seat)) {
      state.textContent = `Waiting for ${waiting} more to accept…`;
    } else {
      state.textContent = asked ? `${plural(asked)} would like to play again` : "";
    }
  }
  const button = el(
    "button",
    {
      type: "button",
      class: "primary",
      id: "play-again",
      onclick: async () => {
        button.disabled = true;
        await look("POST");
        asking = asking || setInterval(() => look("GET").catch(() => {}), 2000);
      },
    },
    "Play again",
  );
  look("GET").catch(() => {});
  asking = setInterval(() => look("GET").catch(() => {}), 2000);
  const box = el("p", { class: "row", id: "rematch" }, button, " ", state);
  box.stop = () => clearInterval(asking);
  return box;
}
