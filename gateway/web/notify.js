// "Tell me when it is my turn" on the account page (docs/notifications.md): this
// browser by web push, an e-mail address (confirmed by a link mailed to it), a webhook.

import { actionButton as button, api, el } from "/static/api.js";

const base64url = (text) => {
  const padded =
    text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
};

async function subscribeHere(me) {
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) {
    throw new Error("this browser has no web push");
  }
  if ((await Notification.requestPermission()) !== "granted") {
    throw new Error("notifications are blocked for this site");
  }
  const { public_key: key } = await api("GET", "/v1/notifications/push/key");
  const registration = await navigator.serviceWorker.register("/sw.js");
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: base64url(key),
  });
  await api("PUT", "/v1/accounts/me/notifications/push", subscription.toJSON(), me.token);
}

export async function notificationsBox(me) {
  const state = await api("GET", "/v1/accounts/me/notifications", undefined, me.token);
  const status = el("p", { class: "muted", id: "notify-status", "aria-live": "polite" });
  const say = (text) => (status.textContent = text);
  const address = el("input", {
    id: "notify-email",
    type: "email",
    autocomplete: "email",
    value: state.email ? state.email.address : "",
  });
  const hook = el("input", {
    id: "notify-webhook",
    type: "url",
    placeholder: "https://…",
    value: state.webhook ? state.webhook.url : "",
  });
  const format = el(
    "select",
    { id: "notify-webhook-format", "aria-label": "webhook format" },
    ["raffe", "discord", "slack"].map((f) =>
      el("option", { value: f, selected: state.webhook && state.webhook.format === f }, f),
    ),
  );
  const emailNote = !state.email
    ? ""
    : !state.email.confirmed
      ? " (waiting for you to open the link mailed to it)"
      : state.email.on
        ? " (confirmed)"
        : " (unsubscribed)";
  const hookNote = state.webhook && !state.webhook.on ? ` (off: ${state.webhook.notice})` : "";
  return el(
    "section",
    { "aria-labelledby": "notify-title" },
    el("h2", { id: "notify-title" }, "Tell me when it is my turn"),
    el("p", { class: "muted" }, "At turn-based tables, once per turn, on each channel you choose."),
    el(
      "div",
      { class: "row" },
      button("In this browser", "notify-push", async () => {
        await subscribeHere(me);
        say("This browser will show your turns.");
      }),
      el("span", { class: "muted" }, `${state.push.length} browser(s) now`),
    ),
    el(
      "div",
      { class: "row" },
      el("label", { for: "notify-email" }, `E-mail${emailNote}`),
      address,
      button("Mail me my turns", "notify-email-save", async () => {
        await api(
          "PUT",
          "/v1/accounts/me/notifications/email",
          { address: address.value },
          me.token,
        );
        say(`A link is on its way to ${address.value}: open it to confirm.`);
      }),
    ),
    state.email ? scheduleRow(me, state.email, say) : "",
    el(
      "div",
      { class: "row" },
      el("label", { for: "notify-webhook" }, `Webhook${hookNote}`),
      hook,
      format,
      button("Call it on my turns", "notify-webhook-save", async () => {
        const body = { url: hook.value, format: format.value };
        const made = await api("PUT", "/v1/accounts/me/notifications/webhook", body, me.token);
        say(`Saved. Its signing secret, shown once: ${made.secret}`);
      }),
    ),
    await vacationRow(me, say),
    status,
  );
}

// A mail per turn, or one a day at an hour of the player's day (sent as UTC).
function scheduleRow(me, email, say) {
  const shift = new Date().getTimezoneOffset(); // minutes: UTC minus local
  const toLocal = (h) => ((((h * 60 - shift) / 60) % 24) + 24) % 24;
  const toUtc = (h) => Math.floor(((((h * 60 + shift) / 60) % 24) + 24) % 24);
  const when = el(
    "select",
    { id: "notify-email-when", "aria-label": "how often to mail" },
    el("option", { value: "each_turn", selected: email.when === "each_turn" }, "at each turn"),
    el("option", { value: "daily", selected: email.when === "daily" }, "once a day, at"),
  );
  const local = Math.floor(toLocal(email.hour_utc));
  const hour = el(
    "select",
    { id: "notify-email-hour", "aria-label": "the daily mail's hour" },
    Array.from({ length: 24 }, (_, h) =>
      el("option", { value: h, selected: h === local }, `${String(h).padStart(2, "0")}:00`),
    ),
  );
  return el(
    "div",
    { class: "row" },
    el("span", {}, "Mail me"),
    when,
    hour,
    button("Save", "notify-email-schedule", async () => {
      const body = { when: when.value, hour_utc: toUtc(Number(hour.value)) };
      await api("PUT", "/v1/accounts/me/notifications/email/schedule", body, me.token);
      say(
        when.value === "daily"
          ? `One mail a day at ${hour.selectedOptions[0].textContent}: the games awaiting you.`
          : "A mail at each of your turns.",
      );
    }),
  );
}

// Vacation: days off a year that stop the clocks of all your turn-based games.
async function vacationRow(me, say) {
  const v = await api("GET", "/v1/accounts/me/vacation", undefined, me.token);
  const days = el("input", { id: "vacation-days", type: "number", min: 1, max: 365, value: 3 });
  const away = v.until_ms ? ` (on vacation until ${new Date(v.until_ms).toLocaleString()})` : "";
  return el(
    "div",
    { class: "row" },
    el("label", { for: "vacation-days" }, `Vacation days${away}`),
    days,
    button("Stop my clocks", "vacation-take", async () => {
      const took = await api(
        "POST",
        "/v1/accounts/me/vacation",
        { days: Number(days.value) },
        me.token,
      );
      const until = new Date(took.until_ms).toLocaleString();
      say(`Your clocks wait until ${until} in ${took.games} game(s).`);
    }),
    button("I am back", "vacation-end", async () => {
      await api("DELETE", "/v1/accounts/me/vacation", undefined, me.token);
      say("Your clocks run again.");
    }),
    el("span", { class: "muted" }, `${v.used_this_year} of ${v.days_per_year} days used this year`),
  );
}
