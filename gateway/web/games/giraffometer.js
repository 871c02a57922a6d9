// Giraffometer's table: six facts, a secret vote for the lowest and the highest, who has
// voted, the last reveal and the scores.

import { el } from "/static/api.js";

export function render({ view, legal, seat, send }) {
  const canVote = Boolean(send && legal && legal.commands.some((c) => c.type === "vote"));
  const mine = view.your_vote;
  const root = el("div", { class: "giraffometer" });
  const voteButton = el("button", { type: "button", class: "primary", id: "vote", disabled: true }, "Vote");
  const choice = { lowest: null, highest: null };
  const update = () => {
    voteButton.disabled = !canVote || !choice.lowest || !choice.highest || choice.lowest === choice.highest;
    voteButton.title = !canVote ? (mine ? "you have voted this round" : "not your vote now")
      : !choice.lowest || !choice.highest ? "choose a lowest and a highest fact first"
      : choice.lowest === choice.highest ? "lowest and highest must be different facts" : "cast your vote (final)";
  };
  voteButton.addEventListener("click", () => send({ type: "vote", lowest: choice.lowest, highest: choice.highest }));

  const facts = el("div", { class: "facts", role: "group", "aria-label": "facts" });
  for (const fact of view.facts) {
    const radio = (which) => {
      const input = el("input", {
        type: "radio", name: which, value: fact.position, id: `${which}-${fact.position}`,
        disabled: !canVote, checked: mine && mine[which] === fact.position,
      });
      input.addEventListener("change", () => { choice[which] = fact.position; update(); });
      return el("label", { for: `${which}-${fact.position}` }, input, which === "lowest" ? " lowest" : " highest");
    };
    const answer = view.answers ? el("strong", {}, ` = ${view.answers[fact.position - 1]}`) : "";
    facts.append(el("div", { class: "fact" },
      el("strong", {}, fact.position),
      el("span", {}, fact.question, " ", el("span", { class: "muted" }, `(${fact.unit})`), answer),
      radio("lowest"), radio("highest")));
  }

  const scores = el("table", {}, el("tbody", {}, view.scores.map((score, s) =>
    el("tr", {}, el("td", {}, s === seat ? "You" : `Seat ${s}`), el("td", {}, `${score} crystals`),
      el("td", {}, (view.status.to_act || []).includes(s) ? "thinking…" : "voted")))));

  root.append(el("section", {}, el("h2", {}, `Round ${view.round}: which is lowest, which is highest?`),
    facts,
    el("div", { class: "row" }, voteButton,
      mine ? el("span", { id: "my-vote" }, `Your vote: lowest ${mine.lowest}, highest ${mine.highest}`) : "",
      el("span", { class: "muted" }, `${view.progress.voted}/${view.progress.players} voted · first to ${view.options.target} crystals`))),
  el("section", {}, el("h2", {}, "Scores"), scores));

  const last = view.last_reveal;
  if (last) {
    root.append(el("section", { id: "last-reveal" }, el("h2", {}, `Round ${last.round} revealed`),
      el("p", {}, `Lowest was ${last.lowest_position}, highest was ${last.highest_position}.`),
      el("p", { class: "muted" }, "Answers: ", last.answers.join(" · ")),
      el("p", {}, Object.entries(last.votes).map(([s, v]) => `${Number(s) === seat ? "you" : `seat ${s}`}: ${v.lowest}/${v.highest} (${last.changes[s] >= 0 ? "+" : ""}${last.changes[s]})`).join(" · "))));
  }
  return root;
}

// First-game help: what to do now (shown above the table).
export function hint({ view, legal, seat }) {
  if (view.status.over || seat < 0) return null;
  if ((view.status.to_act || []).includes(seat)) {
    return "Your vote: mark one fact as lowest and a different one as highest (mind each unit), then Vote. Votes are final and secret until everyone has voted.";
  }
  const left = view.progress.players - view.progress.voted;
  return view.your_vote ? `You voted; waiting for ${left} more. Then every answer and vote is revealed and crystals are scored.` : "Waiting for the round.";
}

// -- what happened, as sentences (the move log and the replay; moves.js) -------------------

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");

export function describe(event, who) {
  const d = event.data;
  switch (event.type) {
    case "GameCreated": return `A game for ${d.seats.length} players, first to ${d.options.target} crystals`;
    case "DeckLoaded": return `The custom deck “${d.name}” was loaded`;
    case "DeckReshuffled": return "The discarded facts were shuffled under what was left";
    case "RoundStarted": return `Round ${d.round}: six new facts`;
    case "VoteCast": {
      const mine = d.lowest ? ` (lowest ${d.lowest}, highest ${d.highest})` : "";
      return `${who(d.seat)} voted${mine}`;
    }
    case "RoundRevealed": {
      const changes = d.changes.map((c, s) => `${who(s)} ${signed(c)}`).join(", ");
      return `Round ${d.round} revealed${d.closed_by_timer ? " (the timer closed it)" : ""}: the lowest was fact ${d.lowest_position}, the highest fact ${d.highest_position}; crystals ${changes}`;
    }
    case "GameEnded": return `Game over: ${d.winners.map(who).join(", ") || "nobody"} won`;
    default: return null;
  }
}

// Why the game ended (ruling GM-5): everyone at or above the target wins, together.
export function explainEnd(view, events, who) {
  const ended = events.find((e) => e.type === "GameEnded");
  if (!ended) return null;
  const target = view.options.target;
  const reached = ended.data.winners.map((s) => `${who(s)} (${view.scores[s]})`).join(", ");
  return `${reached} reached the target of ${target} crystals after a reveal; everyone at or above it wins together.`;
}
