// Tells the server whether a seat's table is in view (PUT /v1/games/{id}/watching): while
// it is, the notifier sends its player nothing about their turns there. On show and
// hide, and every minute while shown; stop() when the table is left. A page closed or
// navigated away says so with a keepalive request, which outlives the page (a plain
// fetch is cancelled with it, and the turn would be kept quiet for the mark's 90 s).

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
  const gone = () =>
    fetch(`/v1/games/${gameId}/watching`, {
      method: "PUT",
      keepalive: true,
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ visible: false }),
    }).catch(() => {});
  window.addEventListener("pagehide", gone);
  return () => {
    clearInterval(every);
    document.removeEventListener("visibilitychange", say);
    window.removeEventListener("pagehide", gone);
    api("PUT", `/v1/games/${gameId}/watching`, { visible: false }, token).catch(() => {});
  };
}
