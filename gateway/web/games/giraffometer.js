// Giraffometer's table: six facts, a secret vote for the lowest and the highest, who has
// voted, the last reveal and the scores.

import { el } from "/static/api.js";

// What closed a round, when not every vote (RoundRevealed's closed_by, version 2).
const CLOSED_BY = {
  timer: " (the round timer closed it)",
  clock: " (the players still to vote ran out of time)",
};

// The vote being made, kept across redraws of the same round: everyone votes at once, so
// another player's vote redraws the table while this one is choosing, and a half-made
// choice must survive it.
let making = { key: "", lowest: null, highest: null };

export function render({ view, legal, seat, send, who }) {
  const canVote = Boolean(send && legal && legal.commands.some((c) => c.type === "vote"));
  const mine = view.your_vote;
  const root = el("div", { class: "giraffometer" });
  // Each seat named as the table's header names it (a player's name, "Bot 1", "You").
  const name = (s) => (who ? who(s) : s === seat ? "You" : `Seat ${s}`);
  const voteButton = el(
    "button",
    { type: "button", class: "primary", id: "vote", disabled: true },
    "Vote",
  );
  const key = JSON.stringify([view.round, view.facts]);
  if (making.key !== key) making = { key, lowest: null, highest: null };
  const choice = making;
  const update = () => {
    voteButton.disabled =
      !canVote || !choice.lowest || !choice.highest || choice.lowest === choice.highest;
    voteButton.title = !canVote
      ? mine
        ? "you have voted this round"
        : "not your vote now"
      : !choice.lowest || !choice.highest
        ? "choose a lowest and a highest fact first"
        : choice.lowest === choice.highest
          ? "lowest and highest must be different facts"
          : "cast your vote (final)";
  };
  voteButton.addEventListener("click", () =>
    send({ type: "vote", lowest: choice.lowest, highest: choice.highest }),
  );

  update(); // a choice kept from before the redraw may already be whole
  const facts = el("div", { class: "facts", role: "group", "aria-label": "facts" });
  for (const fact of view.facts) {
    const radio = (which) => {
      const input = el("input", {
        type: "radio",
        name: which,
        value: fact.position,
        id: `${which}-${fact.position}`,
        disabled: !canVote,
        checked: mine ? mine[which] === fact.position : choice[which] === fact.position,
      });
      input.addEventListener("change", () => {
        choice[which] = fact.position;
        update();
      });
      return el(
        "label",
        { for: `${which}-${fact.position}` },
        input,
        which === "lowest" ? " lowest" : " highest",
      );
    };
    const answer = view.answers ? el("strong", {}, ` = ${view.answers[fact.position - 1]}`) : "";
    facts.append(
      el(
        "div",
        { class: "fact" },
        el("strong", {}, fact.position),
        el(
          "span",
          {},
          fact.question,
          " ",
          el("span", { class: "muted" }, `(${fact.unit})`),
          answer,
        ),
        // Together: on a phone they go under the question as one row of two choices.
        el("span", { class: "choices" }, radio("lowest"), radio("highest")),
      ),
    );
  }

  const scores = el(
    "table",
    {},
    el(
      "tbody",
      {},
      view.scores.map((score, s) =>
        el(
          "tr",
          {},
          el("td", {}, name(s)),
          el("td", {}, `${score} crystals`),
          el("td", {}, (view.status.to_act || []).includes(s) ? "thinking…" : "voted"),
        ),
      ),
    ),
  );

  const last = view.last_reveal;
  if (view.status.over) {
    root.append(finalScores(view, name));
    if (last) root.append(revealed(last, name));
    return root;
  }
  // The round just revealed stays in view above the new one: its six facts with their
  // answers, the true lowest and highest, and everyone's votes and points.
  if (last) root.append(revealed(last, name));
  root.append(
    el(
      "section",
      {},
      el("h2", {}, `Round ${view.round}: which is lowest, which is highest?`),
      facts,
      el(
        "div",
        { class: "row" },
        voteButton,
        mine
          ? el(
              "span",
              { id: "my-vote" },
              `Your vote: lowest ${mine.lowest}, highest ${mine.highest}`,
            )
          : "",
        el(
          "span",
          { class: "muted" },
          `${view.progress.voted}/${view.progress.players} voted · first to ` +
            `${view.options.target} crystals`,
        ),
      ),
    ),
    el("section", {}, el("h2", {}, "Scores"), scores),
  );
  return root;
}

function revealed(last, name) {
  const mark = (p) =>
    p === last.lowest_position ? "lowest" : p === last.highest_position ? "highest" : "";
  const facts = el(
    "table",
    { id: "revealed-facts" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ["#", "fact", "answer", ""].map((h) => el("th", {}, h)),
      ),
    ),
    el(
      "tbody",
      {},
      (last.facts || []).map((f) =>
        el(
          "tr",
          { class: mark(f.position) ? "extreme" : "" },
          el("td", {}, f.position),
          el("td", {}, f.question, " ", el("span", { class: "muted" }, `(${f.unit})`)),
          el("td", {}, el("strong", {}, f.answer)),
          el("td", {}, mark(f.position) ? el("strong", {}, mark(f.position)) : ""),
        ),
      ),
    ),
  );
  const ok = (v, p) => (v === p ? "right" : "wrong");
  const votes = el(
    "table",
    { id: "revealed-votes" },
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        ["player", "lowest", "highest", "crystals"].map((h) => el("th", {}, h)),
      ),
    ),
    el(
      "tbody",
      {},
      last.scores.map((score, s) => {
        const v = last.votes[String(s)];
        const change = last.changes[s];
        return el(
          "tr",
          {},
          el("td", {}, name(s)),
          el("td", {}, v ? `${v.lowest} (${ok(v.lowest, last.lowest_position)})` : "no vote"),
          el("td", {}, v ? `${v.highest} (${ok(v.highest, last.highest_position)})` : "no vote"),
          el("td", {}, `${change > 0 ? "+" : ""}${change} → ${score}`),
        );
      }),
    ),
  );
  return el(
    "section",
    { id: "last-reveal" },
    el("h2", {}, `Round ${last.round} revealed`),
    el(
      "p",
      {},
      `The lowest was fact ${last.lowest_position}, the highest fact ` +
        `${last.highest_position}${CLOSED_BY[last.closed_by] || ""}.`,
    ),
    facts,
    votes,
  );
}

function finalScores(view, name) {
  const winners = new Set(view.status.winners || []);
  const order = view.scores.map((score, s) => ({ s, score })).sort((a, b) => b.score - a.score);
  return el(
    "section",
    { id: "final-scores" },
    el("h2", {}, "Final scores"),
    el(
      "table",
      {},
      el(
        "tbody",
        {},
        order.map(({ s, score }) =>
          el(
            "tr",
            {},
            el("td", {}, name(s)),
            el("td", {}, `${score} crystals`),
            el("td", {}, winners.has(s) ? el("strong", {}, "winner") : ""),
          ),
        ),
      ),
    ),
    el(
      "p",
      { class: "muted" },
      `First to ${view.options.target} crystals; everyone at or above it after a reveal wins.`,
    ),
  );
}

// First-game help: what to do now (shown above the table).
export function hint({ view, legal, seat }) {
  if (view.status.over || seat < 0) return null;
  if ((view.status.to_act || []).includes(seat)) {
    return (
      "Your vote: mark one fact as lowest and a different one as highest (mind each unit), " +
      "then Vote. Votes are final and secret until everyone has voted."
    );
  }
  const left = view.progress.players - view.progress.voted;
  return view.your_vote
    ? `You voted; waiting for ${left} more. Then every answer and vote is revealed and crystals ` +
        `are scored.`
    : "Waiting for the round.";
}

// -- what happened, as sentences (the move log and the replay; moves.js) -------------------

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");

export function describe(event, who) {
  const d = event.data;
  switch (event.type) {
    case "GameCreated":
      return `A game for ${d.seats.length} players, first to ${d.options.target} crystals`;
    case "DeckLoaded":
      return `The custom deck “${d.name}” was loaded`;
    case "DeckReshuffled":
      return "The discarded facts were shuffled under what was left";
    case "RoundStarted":
      return `Round ${d.round}: six new facts`;
    case "VoteCast": {
      const mine = d.lowest ? ` (lowest ${d.lowest}, highest ${d.highest})` : "";
      return `${who(d.seat)} voted${mine}`;
    }
    case "RoundRevealed": {
      const changes = d.changes.map((c, s) => `${who(s)} ${signed(c)}`).join(", ");
      return (
        `Round ${d.round} revealed${CLOSED_BY[d.closed_by] || ""}: ` +
        `the lowest was fact ${d.lowest_position}, the highest fact ${d.highest_position}; ` +
        `crystals ${changes}`
      );
    }
    case "GameEnded":
      return `Game over: ${d.winners.map(who).join(", ") || "nobody"} won`;
    default:
      return null;
  }
}

// Why the game ended (ruling GM-5): everyone at or above the target wins, together.
export function explainEnd(view, events, who) {
  const ended = events.find((e) => e.type === "GameEnded");
  if (!ended) return null;
  const target = view.options.target;
  const reached = ended.data.winners.map((s) => `${who(s)} (${view.scores[s]})`).join(", ");
  return (
    `${reached} reached the target of ${target} crystals after a reveal; everyone at or ` +
    `above it wins together.`
  );
}
