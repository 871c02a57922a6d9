// Challenges (docs/social.md): on the lobby, the challenges you received (accept or
// decline) and sent (take back; go to the table once accepted), read again whenever your
// account stream says one changed (docs/bot-api.md), and every half minute while the
// lobby is shown (that also keeps you shown online). A player's page sends one
// (challengeForm).

import { account, api, el, toast } from "/static/api.js";

// A challenge's player as shown: a program's account says so (docs/bot-api.md).
function who(ch, side) {
  const name = ch[`${side}_name`];
  return (ch.bot_accounts || []).includes(ch[side]) ? `BOT ${name}` : name;
}

const EVERY_MS = 30000; // while the account stream is open; 4 s while it is not
const UNFOLLOWED_MS = 4000;
const RETRY_MS = 5000; // a lost account stream: a new ticket, a new stream, after this

function incomingItem(ch, titles, me, redraw) {
  const answer = (path, body) => async () => {
    try {
      const done = await api("POST", `/v1/challenges/${ch.challenge_id}/${path}`, body, me.token);
      if (done.game_id) {
        location.hash = `#/games/${done.game_id}`;
        return;
      }
      redraw();
    } catch (e) {
      toast(e.message);
    }
  };
  const what = `${titles[ch.game] || ch.game}, ${ch.seats} seats`;
  if (ch.state !== "open")
    return el("li", {}, `${who(ch, "challenger")}: ${what} (${ch.state})`, tableLink(ch));
  return el(
    "li",
    {},
    `${who(ch, "challenger")} challenges you: ${what} `,
    el("button", { type: "button", class: "accept", onclick: answer("accept") }, "Accept"),
    " ",
    el("button", { type: "button", onclick: answer("decline", { reason: "generic" }) }, "Decline"),
  );
}

function tableLink(ch) {
  return ch.game_id ? [" ", el("a", { href: `#/games/${ch.game_id}` }, "to the table")] : [];
}

function outgoingItem(ch, titles, me, redraw) {
  const what = `${titles[ch.game] || ch.game}, ${ch.seats} seats`;
  const back = async () => {
    try {
      await api("DELETE", `/v1/challenges/${ch.challenge_id}`, undefined, me.token);
      redraw();
    } catch (e) {
      toast(e.message);
    }
  };
  const answered = `${ch.state}${ch.reason ? `: ${ch.reason}` : ""}`;
  return el(
    "li",
    {},
    `You challenged ${who(ch, "invitee")}: ${what} (${answered})`,
    ch.state === "open" ? [" ", el("button", { type: "button", onclick: back }, "Take back")] : [],
    tableLink(ch),
  );
}

// The lobby's box; nothing for a visitor who is not signed in.
export function challengesBox(titles) {
  const me = account();
  if (!me) return null;
  const list = el("ul", { id: "challenges", "aria-live": "polite" });
  const box = el(
    "section",
    { "aria-labelledby": "challenges-title", hidden: true },
    el("h2", { id: "challenges-title" }, "Challenges"),
    list,
  );
  let source = null;
  let live = false; // the account stream is open and has sent its opening state
  const gone = () => !document.body.contains(box) && box.dataset.drawn; // the lobby was left
  // The account stream: a challenge frame (sent, answered) redraws at once. EventSource
  // reconnects by itself, but its ticket lapses: on an error, a new ticket.
  const follow = async () => {
    if (gone()) return;
    try {
      const { ticket } = await api("POST", "/v1/accounts/me/stream-tickets", {}, me.token);
      source = new EventSource(`/v1/accounts/me/events?ticket=${encodeURIComponent(ticket)}`);
      source.addEventListener("challenge", () => (gone() ? source.close() : draw()));
      source.addEventListener("opened", () => (live = true));
      source.onerror = () => {
        live = false;
        source.close();
        setTimeout(follow, RETRY_MS);
      };
    } catch {
      setTimeout(follow, RETRY_MS);
    }
  };
  const draw = async () => {
    try {
      const found = await api("GET", "/v1/challenges", undefined, me.token);
      const items = [
        ...found.incoming.map((ch) => incomingItem(ch, titles, me, draw)),
        ...found.outgoing.map((ch) => outgoingItem(ch, titles, me, draw)),
      ];
      list.replaceChildren(...items);
      box.hidden = !items.length;
      box.dataset.drawn = "1";
    } catch {
      // a moment away: the next round reads them again
    }
  };
  const redraw = async () => {
    if (gone()) {
      if (source) source.close();
      return;
    }
    await draw();
    setTimeout(redraw, live ? EVERY_MS : UNFOLLOWED_MS);
  };
  redraw();
  follow();
  return box;
}

// On a player's page: challenge them to a table of a game.
export function challengeForm(playerId, types) {
  const me = account();
  if (!me || me.player_id === playerId || playerId.startsWith("bot:")) return null;
  const game = el(
    "select",
    { id: "challenge-game", "aria-label": "game to challenge to" },
    types.map((t) => el("option", { value: t.name }, t.title)),
  );
  const send = async () => {
    try {
      await api("POST", "/v1/challenges", { to: playerId, game: game.value }, me.token);
      toast("Challenge sent: it shows in the lobby until they answer.");
    } catch (e) {
      toast(e.message);
    }
  };
  return el(
    "p",
    { class: "row" },
    game,
    el("button", { type: "button", id: "challenge", onclick: send }, "Challenge"),
  );
}
