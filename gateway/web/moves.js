// What happened at a table, as sentences: a game's events grouped into moves (one
// command's events share its command id), each told by the game's own ``describe``
// (games/<game>.js), for the move log of every table and the replay's captions.

import { api, el } from "/static/api.js";

// Every event of a game the caller may see (redacted for their seat until it ends).
export async function allEvents(gameId, token) {
  const events = [];
  for (;;) {
    const page = await api(
      "GET",
      `/v1/games/${gameId}/events?after=${events.length}&limit=500`,
      undefined,
      token,
    );
    events.push(...page.events);
    if (page.events.length < 500) return events;
  }
}

// Consecutive events of one command are one move: {events, version, first}.
export function movesOf(events) {
  const moves = [];
  for (const event of events) {
    const last = moves[moves.length - 1];
    if (last && last.command_id === event.command_id && last.actor === event.actor) {
      last.events.push(event);
      last.version = event.version;
    } else {
      moves.push({
        command_id: event.command_id,
        actor: event.actor,
        events: [event],
        version: event.version,
        first: event.version,
      });
    }
  }
  return moves;
}

// Who a seat is, for sentences: "You" for the reader's own seat, else the seat's name
// (a player's name now, from GET /seats: ``names``; else GameCreated's) or "Seat N"; the
// engine's own actor is "the table".
export function namer(events, seat, names = {}) {
  const created = events.find((e) => e.type === "GameCreated");
  const seats = (created && created.data.seats) || [];
  return (s) => {
    if (s === seat && seat >= 0) return "You";
    if (names[s]) return names[s];
    const spec = seats[s];
    if (spec && spec.name) return spec.name;
    if (spec && spec.kind === "bot") return `Bot ${s}`;
    return s >= 0 ? `Seat ${s}` : "The table";
  };
}

// A move's sentences, by the game's describe (which may fold an event into the one
// before it: "played … and took 2 apples").
export function tell(move, describe, who) {
  const out = [];
  for (const event of move.events) {
    const said = describe(event, who, out);
    if (said) out.push(said);
  }
  return out;
}

// The move log: every move, newest first, the newest marked; its newest sentence is
// announced. It scrolls, so it takes the keyboard's focus (arrow keys scroll it).
export function moveLog(moves, describe, who) {
  const told = moves
    .map((m) => ({ move: m, text: tell(m, describe, who) }))
    .filter((t) => t.text.length);
  const list = el("ol", {
    id: "move-log",
    reversed: true,
    tabindex: "0",
    "aria-label": "moves, newest first",
  });
  told
    .slice()
    .reverse()
    .forEach((t, i) => {
      list.append(
        el(
          "li",
          { class: i === 0 ? "latest" : "", "data-version": t.move.version },
          i === 0 ? el("span", { class: "tag" }, "latest ") : "",
          t.text.join("; "),
          ".",
        ),
      );
    });
  const newest = told.length ? `${told[told.length - 1].text.join("; ")}.` : "";
  return { list, newest };
}

// The move the table just saw (its events), for the board to highlight.
export function latestMove(moves) {
  for (let i = moves.length - 1; i >= 0; i--) {
    if (moves[i].command_id !== "create") return moves[i];
  }
  return null;
}
