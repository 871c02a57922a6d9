// The account page (#/account): sign in, create an account or play as a guest; once
// signed in, your games, your sessions and API tokens, claiming a name, signing out.
// docs/accounts.md describes the API.

import { account, actionButton as button, api, el, setAccount, toast } from "/static/api.js";
import { myModeration } from "/static/moderation.js";
import { notificationsBox } from "/static/notify.js";

// The games' titles by name, from the app's cached GET /v1/game-types (kept across the
// page's own redraws, which pass no new one).
let gameTypes = async () => [];

export async function renderAccount(showAnywhere, types) {
  if (types) gameTypes = types;
  // Drawn after a few requests: not over a page the reader has gone to meanwhile.
  const show = (...nodes) => location.hash === "#/account" && showAnywhere(...nodes);
  const me = account();
  if (!me) return show(...signedOut(show));
  let mine;
  try {
    mine = await api("GET", "/v1/accounts/me", undefined, me.token);
  } catch (e) {
    if (e.status === 401) {
      setAccount(null);
      return show(...signedOut(show));
    }
    throw e;
  }
  const games = await api("GET", "/v1/accounts/me/games", undefined, me.token);
  const titles = Object.fromEntries((await gameTypes()).map((t) => [t.name, t.title]));
  show(
    el("h1", {}, mine.name),
    el(
      "p",
      {},
      el("a", { href: `#/players/${me.player_id}`, id: "my-page" }, "Your ratings and rated games"),
    ),
    mine.guest ? claimForm(me, show) : null,
    await myModeration(),
    el("h2", {}, "Your games"),
    gameList(games.games, titles),
    mine.guest ? null : await notificationsBox(me).catch(() => null),
    mine.guest || mine.bot ? null : botsBox(mine.bots_welcome, me),
    el("h2", {}, "Signed in on"),
    sessionList(mine.sessions, me, show),
    el(
      "div",
      { class: "row" },
      button("Sign out", "sign-out", async () => {
        await api("DELETE", "/v1/sessions/current", undefined, me.token);
        setAccount(null);
        renderAccount(show);
      }),
      button("Sign out everywhere", "sign-out-everywhere", async () => {
        await api("DELETE", "/v1/sessions", undefined, me.token);
        setAccount(null);
        renderAccount(show);
      }),
    ),
    el(
      "p",
      { class: "muted" },
      "Personal API tokens for scripts and bots: POST /v1/accounts/me/tokens (see ",
      el("a", { href: "/docs" }, "the API"),
      ").",
    ),
  );
}

function field(id, label, attrs) {
  return el(
    "div",
    { class: "row" },
    el("label", { for: id }, label),
    el("input", { id, name: id, required: true, ...attrs }),
  );
}

function signedOut(show) {
  const signIn = el(
    "form",
    { id: "sign-in", onsubmit: (e) => submit(e, "/v1/sessions", show) },
    el("h2", {}, "Sign in"),
    field("sign-in-name", "Name", { autocomplete: "username", maxlength: 64 }),
    field("sign-in-password", "Password", {
      type: "password",
      autocomplete: "current-password",
    }),
    el("button", { class: "primary", type: "submit" }, "Sign in"),
  );
  const register = el(
    "form",
    { id: "register", onsubmit: (e) => submit(e, "/v1/accounts", show) },
    el("h2", {}, "Create an account"),
    field("register-name", "Name", { autocomplete: "username", maxlength: 32 }),
    field("register-password", "Password (8 or more characters)", {
      type: "password",
      autocomplete: "new-password",
      minlength: 8,
    }),
    el("button", { class: "primary", type: "submit" }, "Create account"),
  );
  const guest = el(
    "p",
    {},
    button("Play as a guest", "guest", async () => {
      setAccount(await api("POST", "/v1/accounts", {}));
      location.hash = "#/";
    }),
    el("span", { class: "muted" }, " (you can claim a name later)"),
  );
  return [el("h1", {}, "Your account"), signIn, register, guest];
}

async function submit(event, path, show) {
  event.preventDefault();
  const form = event.target;
  const [name, password] = [...form.querySelectorAll("input")].map((i) => i.value);
  try {
    setAccount(await api("POST", path, { name, password }));
    renderAccount(show);
  } catch (e) {
    toast(e.message);
  }
}

function claimForm(me, show) {
  return el(
    "form",
    {
      id: "claim",
      onsubmit: async (event) => {
        event.preventDefault();
        const [name, password] = [...event.target.querySelectorAll("input")].map((i) => i.value);
        try {
          const claimed = await api("POST", "/v1/accounts/me/claim", { name, password }, me.token);
          setAccount({ ...me, name: claimed.name, guest: false });
          renderAccount(show);
        } catch (e) {
          toast(e.message);
        }
      },
    },
    el("p", {}, "You play as a guest. Choose a name and a password to keep this account."),
    field("claim-name", "Name", { maxlength: 32 }),
    field("claim-password", "Password", { type: "password", minlength: 8 }),
    el("button", { class: "primary", type: "submit" }, "Keep this account"),
  );
}

function gameList(games, titles) {
  if (!games.length) return el("p", { class: "muted" }, "No games yet.");
  return el(
    "ul",
    { id: "my-games" },
    games.map((g) =>
      el(
        "li",
        {},
        el("a", { href: `#/games/${g.game_id}` }, `${titles[g.game] || g.game} (seat ${g.seat})`),
        " ",
        g.over ? "finished" : g.your_turn ? el("strong", {}, "your turn") : "waiting",
      ),
    ),
  );
}

function sessionList(sessions, me, show) {
  return el(
    "ul",
    { id: "sessions" },
    sessions.map((s) =>
      el(
        "li",
        {},
        `${s.label || "a browser"}, since ${new Date(s.opened_ms).toLocaleString()} `,
        s.id === me.session_id
          ? el("span", { class: "muted" }, "(this one)")
          : button("Sign out", undefined, async () => {
              await api("DELETE", `/v1/accounts/me/sessions/${s.id}`, undefined, me.token);
              renderAccount(show);
            }),
      ),
    ),
  );
}

// Where programs (bot accounts, docs/bot-api.md) may meet you: both off until you say.
function botsBox(welcome, me) {
  const box = (id, label, key) => {
    const input = el("input", { type: "checkbox", id });
    input.checked = Boolean(welcome[key]);
    input.addEventListener("change", async () => {
      welcome = { ...welcome, [key]: input.checked };
      await api("PUT", "/v1/accounts/me/bots-welcome", welcome, me.token);
      toast(input.checked ? `${label}: yes` : `${label}: no`);
    });
    return el("p", {}, el("label", { for: id }, input, ` ${label}`));
  };
  return el(
    "section",
    { "aria-labelledby": "bots-heading" },
    el("h2", { id: "bots-heading" }, "Bots"),
    el("p", { class: "muted" }, "Programs people connect to Raffe show as BOT."),
    box("bots-quick-play", "Programs may sit at my quick-play tables", "quick_play"),
    box("bots-challenges", "Programs may challenge me", "challenges"),
  );
}
