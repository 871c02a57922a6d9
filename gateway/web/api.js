// The REST API as the web client uses it: fetch with the seat's bearer token, problems
// thrown as errors, seat tokens kept in localStorage, live updates over EventSource.

const TOKENS = "raffe.tokens";

export class Problem extends Error {
  constructor(status, body) {
    super(body.detail || body.title || `HTTP ${status}`);
    this.status = status;
    this.code = body.code || "error";
    this.retryAfter = Number(body.retry_after) || 1; // seconds, as the problem says
  }
}

export async function api(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["Authorization"] = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : {};
  if (!response.ok) throw new Problem(response.status, json);
  return json;
}

// The same, sent again on a 503 (a store a moment away, a failover, a tournament many
// join at once) after the Retry-After it names, at most ``tries`` times in all. Only for
// a request whose body carries a command_id: sent again, it is decided once.
export async function apiRetrying(method, path, body, token, tries = 4) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api(method, path, body, token);
    } catch (e) {
      if (!(e instanceof Problem) || e.status !== 503 || attempt >= tries) throw e;
      await new Promise((done) => setTimeout(done, Math.min(e.retryAfter, 2) * 1000));
    }
  }
}

// -- seats this browser holds, by game ---------------------------------------------------

function all() {
  try {
    return JSON.parse(localStorage.getItem(TOKENS) || "{}");
  } catch {
    return {};
  }
}

export function seatOf(gameId) {
  return all()[gameId] || null; // {seat, token}
}

export function remember(gameId, seat, token) {
  const tokens = all();
  tokens[gameId] = { seat: Number(seat), token };
  localStorage.setItem(TOKENS, JSON.stringify(tokens));
}

// -- the signed-in player (docs/accounts.md) ---------------------------------------------

const ACCOUNT = "raffe.account";

// {player_id, name, guest, token, session_id}, or null when signed out
export function account() {
  try {
    return JSON.parse(localStorage.getItem(ACCOUNT) || "null");
  } catch {
    return null;
  }
}

export function setAccount(signed) {
  if (signed) localStorage.setItem(ACCOUNT, JSON.stringify(signed));
  else localStorage.removeItem(ACCOUNT);
  window.dispatchEvent(new Event("raffe-account"));
}

// The seat this browser acts at in a game: its own seat token, else the signed-in
// player's seat there (their token acts at it from any device), else null.
export async function heldSeat(gameId) {
  const held = seatOf(gameId);
  if (held) return held;
  const me = account();
  if (!me) return null;
  try {
    const view = await api("GET", `/v1/games/${gameId}`, undefined, me.token);
    return view.seat >= 0 ? { seat: view.seat, token: me.token } : null;
  } catch (e) {
    if (e.status === 401) setAccount(null); // signed out elsewhere
    return null;
  }
}

// A player's name as shown: a program's account (docs/bot-api.md) says so, everywhere.
export function named(p) {
  return p.bot_account || p.bot ? `BOT ${p.name}` : p.name;
}

// Each seat's name as it is now (a player's current name), by seat.
export async function seatNames(gameId) {
  try {
    const found = await api("GET", `/v1/games/${gameId}/seats`);
    return Object.fromEntries(found.seats.filter((s) => s.name).map((s) => [s.seat, named(s)]));
  } catch {
    return {};
  }
}

export function commandId() {
  return crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random();
}

// -- live updates ------------------------------------------------------------------------

// Follow a game's events: a seat's private stream needs a short-lived ticket (EventSource
// cannot send the bearer token); a spectator's stream needs none. ``onEvent`` gets each
// event; with ``onView`` the stream also carries, after each batch of events, the
// follower's view and legal commands at the new version (``views=1``), so a table redraws
// from the stream alone. Returns a function that stops following.
export function follow(
  gameId,
  token,
  eventTypes,
  after,
  onEvent,
  base = "/v1/games",
  onView = null,
  onPresence = null,
  onChat = null,
) {
  let source = null;
  let stopped = false;
  let last = after;
  async function open() {
    if (stopped) return;
    let query = `after=${last}${onView ? "&views=1" : ""}`;
    if (token) {
      try {
        const ticket = await api("POST", `/v1/games/${gameId}/stream-tickets`, undefined, token);
        query += `&ticket=${encodeURIComponent(ticket.ticket)}`;
      } catch (e) {
        setTimeout(open, 2000);
        return;
      }
    }
    source = new EventSource(`${base}/${gameId}/events/stream?${query}`);
    let ended = false;
    const handle = (message) => {
      const event = JSON.parse(message.data);
      last = Math.max(last, event.version);
      onEvent(event);
      if (event.type === "GameEnded") ended = true;
      if (ended && !onView) stop();
    };
    for (const type of eventTypes) source.addEventListener(type, handle);
    if (onView) {
      source.addEventListener("view", (message) => {
        onView(JSON.parse(message.data));
        if (ended) stop(); // the view after the last event: nothing follows
      });
    }
    if (onPresence) {
      source.addEventListener("presence", (message) => onPresence(JSON.parse(message.data)));
    }
    if (onChat) {
      source.addEventListener("chat", (message) => onChat(JSON.parse(message.data)));
    }
    source.onerror = () => {
      // tickets expire: reconnect with a fresh one
      if (source) source.close();
      if (!stopped && !ended) setTimeout(open, 1000);
    };
  }
  function stop() {
    stopped = true;
    if (source) source.close();
  }
  open();
  return stop;
}

// -- small DOM helpers -------------------------------------------------------------------

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// A button that runs ``action`` and toasts what went wrong, if anything.
export function actionButton(text, id, action) {
  return el(
    "button",
    {
      type: "button",
      id,
      onclick: async () => {
        try {
          await action();
        } catch (e) {
          toast(e.message);
        }
      },
    },
    text,
  );
}

export function toast(message) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.classList.add("show");
  clearTimeout(box.hideTimer);
  box.hideTimer = setTimeout(() => box.classList.remove("show"), 4000);
}
