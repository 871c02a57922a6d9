// The README's tour, as a TypeScript client sees it (generated types, no casts).
import type { components, paths } from "./api";

type Json<P extends keyof paths, M extends keyof paths[P]> = paths[P][M];

type CreateBody = components["schemas"]["CreateGame"];
const body: CreateBody = {
  game: "giraffe-raffe",
  seats: [{ kind: "human" }, { kind: "open" }, { kind: "bot", bot_level: "heuristic" }],
  options: { mode: "standard", dealer: 0 },
};
declare const created: components["schemas"]["Created"];
const gameId: string = created.game_id;
const token: string | undefined = created.tokens["0"];

declare const claimed: components["schemas"]["Claimed"];
const friend: string = claimed.token;

type Legal = paths["/v1/games/{game_id}/commands"]["get"]["responses"][200]["content"]["application/json"];
declare const legal: Legal;
const version: number = legal.version;
for (const c of legal.commands) {
  if (c.type === "play" && c.options) {
    const first: string[] = c.options[0];
    const move: components["schemas"]["CommandIn"] = {
      command: { type: "play", tree: c.tree, cards: first },
      command_id: "my-first-move",
    };
  }
}

declare const result: components["schemas"]["CommandResult"];
const next: number = result.version;
if (result.view.game === "giraffe-raffe") {
  const hand: string[] | null | undefined = result.view.hand;
}
for (const e of result.events) {
  if (e.type === "CardsPlayed") {
    const cards: string[] = e.data.cards;
  }
}

declare const view: components["schemas"]["GameView"];
const seat: number = view.seat;

declare const ticket: components["schemas"]["StreamTicket"];
const url = `/v1/games/${gameId}/events/stream?views=true&ticket=${ticket.ticket}`;
declare const frame: components["schemas"]["ViewFrame"];
const at: number = frame.version;

declare const lobby: components["schemas"]["Lobby"];
const waiting: number[] = lobby.games[0].open_seats;

declare const replay: components["schemas"]["ReplayView"];
const then: number = replay.version;

declare const tournament: components["schemas"]["Tournament"];
const leader: string = tournament.standings[0].name;
const ordinal: number = tournament.standings[0].rating.ordinal;
declare const mine: components["schemas"]["MyTables"];
const tableToken: string | null | undefined = mine.tables[0].token;
declare const problem: components["schemas"]["Problem"];
const code: string = problem.code;
export {};
