// Reports and moderation (docs/social.md): a Report button on a player's page and on a
// chat line, the moderators' page (#/moderation: the queue, most reported first, and an
// action with its reason for each case), and on the account page what moderators did
// about you and why.

import { account, api, el, toast } from "/static/api.js";

const REASONS = {
  abuse: "abuse",
  cheating: "cheating",
  spam: "spam",
  name: "name",
  other: "other",
};

// A small form: a reason, a few words, and (from a table) the game it happened in.
export function reportForm(playerId, gameId = null) {
  const me = account();
  if (!me || me.player_id === playerId || playerId.startsWith("bot:")) return null;
  const reason = el(
    "select",
    { "aria-label": "why", class: "report-reason" },
    Object.entries(REASONS).map(([v, t]) => el("option", { value: v }, t)),
  );
  const text = el("input", { maxlength: 500, "aria-label": "what happened", class: "report-text" });
  const send = async () => {
    const body = { player_id: playerId, reason: reason.value, text: text.value };
    if (gameId) body.game_id = gameId;
    try {
      await api("POST", "/v1/reports", body, me.token);
      toast("Reported: a moderator will look at it.");
      details.open = false;
    } catch (e) {
      toast(e.message);
    }
  };
  const details = el(
    "details",
    { class: "report" },
    el("summary", {}, "Report"),
    el(
      "p",
      { class: "row" },
      reason,
      text,
      el("button", { type: "button", onclick: send }, "Send report"),
    ),
  );
  return details;
}

function caseItem(c, me, redraw) {
  const action = el(
    "select",
    { "aria-label": `action on ${c.name}`, class: "mod-action" },
    ["warn", "mute", "shadow_mute", "suspend_rated", "ban", "clear"].map((a) =>
      el("option", { value: a }, a.replace("_", " ")),
    ),
  );
  const reason = el("input", { "aria-label": "reason the player is shown", class: "mod-reason" });
  const days = el("input", {
    type: "number",
    min: 0,
    value: 0,
    "aria-label": "days (0: for good)",
  });
  const go = async () => {
    const body = { action: action.value, reason: reason.value, days: Number(days.value) || 0 };
    try {
      await api("POST", `/v1/moderation/players/${c.player_id}`, body, me.token);
      redraw();
    } catch (e) {
      toast(e.message);
    }
  };
  return el(
    "li",
    { class: "case" },
    el(
      "h3",
      {},
      el("a", { href: `#/players/${c.player_id}` }, c.name || c.player_id),
      ` (${c.open_reports})`,
    ),
    el(
      "ul",
      {},
      c.reports.map((r) =>
        el(
          "li",
          {},
          `${r.reason}: ${r.text || "(no words)"}`,
          r.game_id ? [" at ", el("a", { href: `#/games/${r.game_id}/replay` }, "the table")] : [],
          r.chat && r.chat.length ? el("blockquote", {}, r.chat.join(" / ")) : null,
        ),
      ),
    ),
    el(
      "p",
      { class: "row" },
      action,
      reason,
      days,
      el("button", { type: "button", class: "mod-go", onclick: go }, "Act"),
    ),
  );
}

export async function renderModeration(show) {
  const me = account();
  if (!me) {
    show(el("h1", {}, "Moderation"), el("p", {}, el("a", { href: "#/account" }, "Sign in")));
    return;
  }
  const redraw = () => renderModeration(show);
  try {
    const queue = await api("GET", "/v1/moderation/queue", undefined, me.token);
    show(
      el("h1", {}, "Moderation"),
      queue.cases.length
        ? el(
            "ol",
            { id: "cases" },
            queue.cases.map((c) => caseItem(c, me, redraw)),
          )
        : el("p", { class: "muted" }, "No open reports."),
    );
  } catch (e) {
    show(el("h1", {}, "Moderation"), el("p", { class: "error" }, e.message));
  }
}

// On the account page: what moderators did about the account, and why.
export async function myModeration() {
  const me = account();
  if (!me) return null;
  const mine = await api("GET", "/v1/accounts/me/moderation", undefined, me.token).catch(
    () => null,
  );
  if (!mine || !mine.actions.length) return null;
  return el(
    "section",
    { "aria-labelledby": "moderation-title" },
    el("h2", { id: "moderation-title" }, "From the moderators"),
    el(
      "ul",
      { id: "moderation" },
      mine.actions.map((a) =>
        el(
          "li",
          {},
          `${a.action.replace("_", " ")}: ${a.reason}`,
          a.until_ms ? ` (until ${new Date(a.until_ms).toLocaleString()})` : "",
        ),
      ),
    ),
  );
}
