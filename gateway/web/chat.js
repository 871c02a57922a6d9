// A table's chat (docs/social.md): the players' for a seated player, the spectators'
// for anyone watching; both open to everyone once the game is over. New messages come
// with the table's live stream (chat frames) and are announced politely.

import { account, api, el, named, toast } from "/static/api.js";
import { reportForm } from "/static/moderation.js";

const PRESETS = {
  hello: "Hello!",
  good_luck: "Good luck!",
  your_turn: "Your turn",
  well_played: "Well played!",
  thanks: "Thanks!",
  good_game: "Good game",
};

export function chatPanel(gameId, held) {
  const me = account();
  const audience = held ? "players" : "spectators";
  const readToken = held ? held.token : me ? me.token : undefined;
  const log = el("ol", { id: "chat-log", class: "chat-log", "aria-live": "polite" });
  const seen = new Set();
  function add(m) {
    if (m.audience !== audience || seen.has(m.id)) return;
    seen.add(m.id);
    // Someone else's line can be reported from where it was said.
    const report = me && m.player_id !== me.player_id ? reportForm(m.player_id, gameId) : null;
    log.append(
      el("li", {}, el("strong", {}, m.name ? named(m) : "someone"), `: ${m.text}`, report),
    );
  }
  api("GET", `/v1/games/${gameId}/chat?audience=${audience}`, undefined, readToken)
    .then((found) => found.messages.forEach(add))
    .catch(() => {});
  async function send(body) {
    try {
      add(await api("POST", `/v1/games/${gameId}/chat`, { audience, ...body }, me.token));
    } catch (e) {
      toast(e.message);
    }
  }
  const input = el("input", { id: "chat-text", maxlength: 200, "aria-label": "message" });
  const form = me
    ? el(
        "form",
        {
          class: "row",
          onsubmit: async (e) => {
            e.preventDefault();
            if (!input.value.trim()) return;
            await send({ text: input.value });
            input.value = "";
          },
        },
        input,
        el("button", { type: "submit", id: "chat-send" }, "Send"),
      )
    : el("p", { class: "muted" }, el("a", { href: "#/account" }, "Sign in"), " to chat.");
  const presets = me
    ? el(
        "div",
        { class: "row", role: "group", "aria-label": "quick phrases" },
        Object.entries(PRESETS).map(([key, text]) =>
          el(
            "button",
            { type: "button", class: "preset", onclick: () => send({ preset: key }) },
            text,
          ),
        ),
      )
    : null;
  const title = held ? "Chat with the players" : "Spectators' chat";
  const panel = el(
    "section",
    { id: "chat", "aria-labelledby": "chat-title" },
    el("h2", { id: "chat-title" }, title),
    log,
    presets,
    form,
  );
  return { panel, add };
}
