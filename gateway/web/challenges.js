// Challenges (docs/social.md): on the lobby, the challenges you received (accept or
// decline) and sent (take back; go to the table once accepted), read again every few
// seconds while the lobby is shown. A player's page sends one (challengeForm).

import { account, api, el, toast } from "/static/api.js";

// A challenge's player as shown: a program's account says so (docs/bot-api.md).
function who(ch, side) {
  const name = ch[`${side}_name`];
  return (ch.bot_accounts || []).includes(ch[side]) ? `BOT ${name}` : name;
}

const EVERY_MS = 4000;

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
  const redraw = async () => {
    if (!document.body.contains(box) && box.dataset.drawn) return; // the lobby was left
    try {
      const found = await api("GET", "/v1/challenges", undefined, me.token);
      const items = [
        ...found.incoming.map((ch) => incomingItem(ch, titles, me, redraw)),
        ...found.outgoing.map((ch) => outgoingItem(ch, titles, me, redraw)),
      ];
      list.replaceChildren(...items);
      box.hidden = !items.length;
      box.dataset.drawn = "1";
    } catch {
      // a moment away: the next round reads them again
    }
    setTimeout(redraw, EVERY_MS);
  };
  redraw();
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
