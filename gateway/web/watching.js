// Tells the server whether a seat's table is in view (PUT /v1/games/{id}/watching): while
// it is, the notifier sends its player nothing about their turns there. On show and
// hide, and every minute while shown; stop() when the table is left.

import { api } from "/static/api.js";

export function watchTable(gameId, token) {
  if (!token) return () => {};
  const say = () =>
    api("PUT", `/v1/games/${gameId}/watching`, { visible: !document.hidden }, token).catch(
      () => {}, // a table left meanwhile, a finished game: nothing to say
    );
  say();
  const every = setInterval(() => document.hidden || say(), 60_000);
  document.addEventListener("visibilitychange", say);
  return () => {
    clearInterval(every);
    document.removeEventListener("visibilitychange", say);
    api("PUT", `/v1/games/${gameId}/watching`, { visible: false }, token).catch(() => {});
  };
}
