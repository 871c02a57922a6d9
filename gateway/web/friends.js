// Friends (#/friends, docs/social.md): the players you follow and who follow you; two
// who follow each other are friends, shown with the tables they have open now (watch
// them) and their last games. A player's page has the Follow button.

import { account, api, el, named, toast } from "/static/api.js";

function playerLink(p) {
  return el("a", { href: `#/players/${p.player_id}` }, named(p));
}

function tableLink(t, titles) {
  const what = titles[t.game] || t.game;
  return el("a", { href: `#/games/${t.game_id}` }, t.over ? `${what} (over)` : what);
}

function friendItem(f, titles) {
  const where = f.playing.length
    ? [" is at a table now: ", ...f.playing.map((t) => tableLink(t, titles))]
    : [f.online ? " is online" : " is not online now"];
  const recent = f.recent.length
    ? el(
        "p",
        { class: "muted" },
        "Last games: ",
        ...f.recent.flatMap((t, i) => [i ? ", " : "", tableLink(t, titles)]),
      )
    : null;
  return el("li", {}, el("p", {}, playerLink(f), ...where), recent);
}

function people(title, id, list, empty) {
  return [
    el("h2", { id: `${id}-title` }, title),
    list.length
      ? el(
          "ul",
          { id, "aria-labelledby": `${id}-title` },
          list.map((p) => el("li", {}, playerLink(p), p.friend ? " (friend)" : "")),
        )
      : el("p", { class: "muted" }, empty),
  ];
}

export async function renderFriends(show, gameTypes) {
  const me = account();
  if (!me) {
    show(
      el("h1", {}, "Friends"),
      el("p", {}, el("a", { href: "#/account" }, "Sign in"), " to follow players."),
    );
    return;
  }
  const titles = Object.fromEntries((await gameTypes()).map((t) => [t.name, t.title]));
  const found = await api("GET", "/v1/accounts/me/friends", undefined, me.token);
  show(
    el("h1", {}, "Friends"),
    el(
      "p",
      { class: "muted" },
      "Follow a player from their page; who follows you back is a friend.",
    ),
    el("h2", { id: "friends-title" }, "Friends"),
    found.friends.length
      ? el(
          "ul",
          { id: "friends", "aria-labelledby": "friends-title", "aria-live": "polite" },
          found.friends.map((f) => friendItem(f, titles)),
        )
      : el("p", { class: "muted" }, "No friends yet."),
    people("You follow", "following", found.following, "You follow nobody yet."),
    people("Following you", "followers", found.followers, "Nobody follows you yet."),
  );
}

// On a player's page: Follow / Unfollow and Block / Unblock, for a signed-in player
// looking at someone else. A block ends a follow, so Follow shows again after one.
export async function followButton(playerId) {
  const me = account();
  if (!me || me.player_id === playerId || playerId.startsWith("bot:")) return null;
  const [found, blocks] = await Promise.all([
    api("GET", "/v1/accounts/me/friends", undefined, me.token),
    api("GET", "/v1/accounts/me/blocks", undefined, me.token),
  ]);
  const state = {
    following: found.following.some((p) => p.player_id === playerId),
    blocking: blocks.blocking.some((p) => p.player_id === playerId),
  };
  const follow = el("button", { type: "button", id: "follow" });
  const block = el("button", { type: "button", id: "block" });
  const label = () => {
    follow.textContent = state.following ? "Unfollow" : "Follow";
    follow.disabled = state.blocking;
    block.textContent = state.blocking ? "Unblock" : "Block";
  };
  const toggle = (what, path) => async () => {
    try {
      await api(state[what] ? "DELETE" : "PUT", `${path}/${playerId}`, undefined, me.token);
      state[what] = !state[what];
      if (what === "blocking" && state.blocking) state.following = false;
      label();
    } catch (e) {
      toast(e.message);
    }
  };
  follow.onclick = toggle("following", "/v1/accounts/me/following");
  block.onclick = toggle("blocking", "/v1/accounts/me/blocks");
  label();
  return el("p", { class: "row" }, follow, block);
}
