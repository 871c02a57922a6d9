// Riff Raff's table: your secret card, the captain and the order, the ship drawn from the
// engine's positions (tilt, pieces), loading a piece, catching what falls, and the
// tabletop mode's report, accept, dispute and settle.

import { el } from "/static/api.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

const COLOURS = {
  boat: "#8d6e63",
  barrel: "#a1887f",
  flacon: "#4fc3f7",
  box: "#ffb74d",
  sailor: "#e57373",
  plank: "#bcaaa4",
  rat: "#9e9e9e",
  chest: "#ffd54f",
};

// The ship in its own frame (cm, origin at the pivot), rotated by its tilt.
function shipDrawing(ship, highlight, lastPiece) {
  const g = ship.geometry;
  const frame = svg("g", { transform: `rotate(${-ship.tilt_degrees})` });
  const [x0, x1] = [-24, 24];
  frame.append(
    svg("path", { d: `M${x0} 0 L${x1} 0 L${x1 - 6} 8 L${x0 + 6} 8 Z`, fill: "#6d4c41" }),
  );
  frame.append(
    svg("line", { x1: 0, y1: 0, x2: 0, y2: -48, stroke: "#4e342e", "stroke-width": 1.2 }),
  );
  for (const [area, span] of Object.entries(g.deck.areas)) {
    frame.append(
      svg(
        "text",
        {
          x: (span[0] + span[1]) / 2,
          y: 5,
          "font-size": 3,
          "text-anchor": "middle",
          fill: area == highlight ? "#fff59d" : "#fff",
        },
        area,
      ),
    );
  }
  for (const [area, arm] of Object.entries(g.yardarms)) {
    frame.append(
      svg("line", {
        x1: arm.x[0],
        y1: -arm.y,
        x2: arm.x[1],
        y2: -arm.y,
        stroke: area == highlight ? "#f57f17" : "#795548",
        "stroke-width": 1,
      }),
    );
    frame.append(
      svg(
        "text",
        {
          x: (arm.x[0] + arm.x[1]) / 2,
          y: -arm.y + 3.2,
          "font-size": 2.6,
          "text-anchor": "middle",
        },
        area,
      ),
    );
  }
  for (const p of ship.pieces) {
    const just = p.id === lastPiece;
    frame.append(
      svg(
        "rect",
        {
          x: p.x - p.width / 2,
          y: -(p.y + p.height),
          width: p.width,
          height: p.height,
          fill: COLOURS[p.type] || "#999",
          stroke: just ? "#b71c1c" : "#333",
          "stroke-width": just ? 0.8 : 0.2,
          "stroke-dasharray": just ? "1.2 0.6" : "none",
          "data-piece": p.id,
          class: just ? "last-move" : "",
        },
        svg("title", {}, `${pieceName(p.id)} on area ${p.area}${just ? " (just loaded)" : ""}`),
      ),
    );
  }
  frame.append(svg("g", { class: "preview-layer" }));
  return svg(
    "svg",
    {
      viewBox: "-32 -60 64 72",
      role: "img",
      "aria-label": `the ship, ${tiltText(ship.tilt_degrees)}`,
    },
    svg("rect", { x: -32, y: 8, width: 64, height: 4, fill: "#81d4fa" }),
    frame,
  );
}

// The engine's tilt (degrees, counter-clockwise positive, 0-360) as a person reads it.
export function tiltText(degrees) {
  const signed = degrees > 180 ? degrees - 360 : degrees;
  if (Math.abs(signed) < 0.05) return "level";
  return (
    `tilted ${Math.abs(signed).toFixed(1)}° to the ${signed > 0 ? "left" : "right"} ` +
    `(${signed > 0 ? "+" : "−"}${Math.abs(signed).toFixed(1)}°)`
  );
}

// Where a load would go: a dashed outline of the piece over its area, on the surface.
function drawPreview(layer, geometry, area, type, position, orientation) {
  if (!layer || !geometry || !geometry.shapes) return;
  const deck = geometry.deck.areas[String(area)];
  const arm = geometry.yardarms[String(area)];
  const [lo, hi] = deck || (arm ? arm.x : [0, 0]);
  const base = deck ? geometry.deck.y : arm.y;
  const [w, h] = geometry.shapes[type] || [3, 3];
  const x = lo + (hi - lo) * position;
  const cy = -(base + h / 2);
  layer.replaceChildren(
    svg(
      "rect",
      {
        x: x - w / 2,
        y: cy - h / 2,
        width: w,
        height: h,
        fill: "none",
        stroke: "#0d47a1",
        "stroke-width": 0.5,
        "stroke-dasharray": "1 0.6",
        transform: `rotate(${-orientation} ${x} ${cy})`,
        id: "load-preview",
      },
      svg("title", {}, `${type} would go here`),
    ),
  );
}

function loadForm(command, send, preview) {
  const pieces = command.pieces;
  const rows = [];
  const form = el("div", { class: "row", id: "load-form" });
  const typeOf = (id) => (/^s\d+-([a-z]+)-\d+$/.exec(id) || [null, id])[1];
  const show = () => {
    const r = rows[rows.length - 1];
    preview(typeOf(r.type.value), Number(r.position.value), Number(r.orientation.value));
  };
  const addRow = () => {
    const n = rows.length + 1;
    const type = el(
      "select",
      { class: "load-piece", id: `load-piece-${n}` },
      pieces.map((p) => el("option", { value: p }, pieceName(p))),
    );
    const position = el("input", {
      type: "range",
      min: 0,
      max: 1,
      step: 0.05,
      value: 0.5,
      class: "load-position",
      id: `load-position-${n}`,
    });
    const orientation = el("input", {
      type: "number",
      min: 0,
      max: 360,
      value: 0,
      class: "load-orientation",
      id: `load-orientation-${n}`,
      style: "width:5rem",
    });
    for (const input of [type, position, orientation]) input.addEventListener("input", show);
    rows.push({ type, position, orientation });
    form.insertBefore(
      el(
        "span",
        { class: "load-row" },
        // Each label keeps to its control when the row wraps (on a phone "Turned (°)"
        // ended one line and its box began the next).
        el(
          "span",
          { class: "load-field" },
          el("label", { for: `load-piece-${n}` }, n === 1 ? "Piece" : "Second piece"),
          type,
        ),
        el(
          "span",
          { class: "load-field" },
          el("label", { for: `load-position-${n}` }, "Where: left"),
          position,
          el("span", {}, "right"),
        ),
        el(
          "span",
          { class: "load-field" },
          el("label", { for: `load-orientation-${n}` }, "Turned (°)"),
          orientation,
        ),
      ),
      loadButton,
    );
    show();
  };
  const loadButton = el(
    "button",
    {
      type: "button",
      class: "primary",
      id: "load",
      onclick: () =>
        send({
          type: "load",
          pieces: rows.map((r) => ({
            piece: r.type.value,
            position: Number(r.position.value),
            orientation: Number(r.orientation.value),
          })),
        }),
    },
    `Load on area ${command.area}`,
  );
  form.append(loadButton);
  addRow();
  if (command.max_pieces > 1) {
    form.append(
      el(
        "button",
        {
          type: "button",
          id: "double-load",
          onclick: (e) => {
            addRow();
            e.target.remove();
          },
        },
        "Declare a double load",
      ),
    );
  }
  return form;
}

// Tabletop: what fell and what was caught, as two lists of checkboxes (no Ctrl-click).
function tabletopReport(command, send, settle) {
  const list = (name, legend) =>
    el(
      "fieldset",
      { id: name, class: "piece-list" },
      el("legend", {}, legend),
      (command.aboard || []).map((p) =>
        el("label", {}, el("input", { type: "checkbox", value: p, name }), ` ${pieceName(p)}`),
      ),
    );
  const fell = list("fell", "Fell off");
  const caught = list("caught", "Caught");
  const values = (box) => [...box.querySelectorAll("input:checked")].map((i) => i.value);
  return el(
    "div",
    { class: "row" },
    fell,
    caught,
    el(
      "button",
      {
        type: "button",
        class: "primary",
        id: "report",
        onclick: () =>
          send({ type: settle ? "settle" : "report", fell: values(fell), caught: values(caught) }),
      },
      settle ? "Settle" : "Report",
    ),
  );
}

function actions(legal, view, send, preview) {
  const box = el("div", { class: "row", id: "actions" });
  if (!send || !legal) return box;
  for (const command of legal.commands) {
    if (command.type === "choose_card") {
      box.append(
        "Play a card: ",
        ...command.cards.map((card) =>
          el(
            "button",
            {
              type: "button",
              class: "choose-card",
              "data-card": card,
              onclick: () => send({ type: "choose_card", card }),
            },
            card,
          ),
        ),
      );
    } else if (command.type === "choose_captain") {
      box.append(
        "Choose the captain: ",
        ...command.seat.map((s) =>
          el(
            "button",
            {
              type: "button",
              class: "choose-captain",
              onclick: () => send({ type: "choose_captain", seat: s }),
            },
            `seat ${s}`,
          ),
        ),
      );
    } else if (command.type === "order_players") {
      box.append(
        el(
          "button",
          {
            type: "button",
            id: "order-players",
            onclick: () => send({ type: "order_players", order: command.order }),
          },
          `Order: ${command.order.join(", ")}`,
        ),
        el(
          "button",
          {
            type: "button",
            onclick: () => send({ type: "order_players", order: [...command.order].reverse() }),
          },
          `Order: ${[...command.order].reverse().join(", ")}`,
        ),
      );
    } else if (command.type === "load") {
      box.append(loadForm(command, send, preview));
    } else if (command.type === "catch") {
      const boxes = command.fallen.map((p) =>
        el(
          "label",
          {},
          el("input", { type: "checkbox", value: p, class: "catch-piece" }),
          ` ${pieceName(p)}`,
        ),
      );
      box.append(
        "Catch (up to two): ",
        ...boxes,
        el(
          "button",
          {
            type: "button",
            class: "primary",
            id: "catch",
            onclick: () =>
              send({
                type: "catch",
                pieces: boxes
                  .map((b) => b.firstChild)
                  .filter((i) => i.checked)
                  .map((i) => i.value)
                  .slice(0, command.max),
              }),
          },
          "Catch",
        ),
      );
    } else if (command.type === "report" || command.type === "settle") {
      box.append(tabletopReport(command, send, command.type === "settle"));
    } else if (command.type === "accept" || command.type === "dispute") {
      box.append(
        el(
          "button",
          { type: "button", id: command.type, onclick: () => send({ type: command.type }) },
          command.type === "accept" ? "Accept the report" : "Dispute it",
        ),
      );
    }
  }
  return box;
}

export function render({ view, legal, seat, send, last, who }) {
  const turn = view.turn;
  // Each seat named as the table's header names it (a player's name, "Bot 1", "You").
  const name = (s) => (who ? who(s) : s === seat ? "You" : `Seat ${s}`);
  const loaded = last ? last.events.filter((e) => e.type === "PieceLoaded") : [];
  const lastPiece = loaded.length ? loaded[loaded.length - 1].data.piece : null;
  const players = el(
    "table",
    {},
    el(
      "tbody",
      {},
      view.supplies.map((supply, s) =>
        el(
          "tr",
          {},
          el("td", {}, name(s), s === view.captain ? " ⚓ captain" : ""),
          el(
            "td",
            {},
            view.revealed[String(s)]
              ? `card ${view.revealed[String(s)]}`
              : view.chosen.includes(s)
                ? "chosen"
                : "",
          ),
          el("td", {}, `${supply.length} pieces left`),
          el("td", {}, turn && turn.seat === s ? "◀ loading" : ""),
        ),
      ),
    ),
  );
  const drawing = view.ship.pieces ? shipDrawing(view.ship, turn && turn.area, lastPiece) : null;
  const ship = drawing
    ? el("div", { class: "ship" }, drawing)
    : el("p", {}, `Aboard the real ship: ${listed(view.ship.aboard, "nothing yet")}`);
  const layer = drawing ? drawing.querySelector(".preview-layer") : null;
  const preview = (type, position, orientation) =>
    drawPreview(layer, view.ship.geometry, turn && turn.area, type, position, orientation);
  const controls = view.status.over ? null : actions(legal, view, send, preview);
  const fallen =
    turn && turn.fallen.length
      ? el("p", { id: "fallen" }, "Falling: ", turn.fallen.map((f) => pieceName(f.id)).join(", "))
      : null;
  const report =
    turn && turn.report
      ? el(
          "p",
          {},
          `Reported: fell ${listed(turn.report.fell)}, caught ${listed(turn.report.caught)}`,
        )
      : null;
  return el(
    "div",
    { class: "riff-raff" },
    el(
      "section",
      {},
      el("h2", {}, `Round ${view.round} · ${view.phase.replace("_", " ")}`),
      view.hand
        ? el(
            "p",
            { id: "hand" },
            "Your cards: ",
            view.hand.join(" "),
            view.your_card ? ` · your secret card: ${view.your_card}` : "",
          )
        : null,
      players,
    ),
    el(
      "section",
      {},
      el("h2", {}, `The ship${view.ship.pieces ? `, ${tiltText(view.ship.tilt_degrees)}` : ""}`),
      ship,
      fallen,
      report,
    ),
    // Only when there is something to do: an empty "Your move" (another seat's turn, a
    // spectator) said the wrong thing, and on a phone it follows the screen's foot.
    controls && controls.childElementCount
      ? el("section", { id: "rr-move" }, el("h2", {}, "Your move"), controls)
      : null,
  );
}

// First-game help: what to do now (shown above the table).
export function hint({ view, legal, seat }) {
  if (view.status.over || seat < 0) return null;
  const commands = (legal && legal.commands) || [];
  const kinds = new Set(commands.map((c) => c.type));
  if (kinds.has("choose_card"))
    return (
      "Choose a secret card: all are shown at once. The highest makes its player captain, " +
      "and your card is the area you load into (1-4 deck, 5-10 yardarms)."
    );
  if (kinds.has("load")) {
    const load = commands.find((c) => c.type === "load");
    const double =
      load.max_pieces > 1
        ? " This area already holds cargo: you may declare a double load first."
        : "";
    return (
      `Your turn: load a piece on area ${load.area}. Choose the piece, where across the ` +
      `area it goes and how it is turned, then Load.${double}`
    );
  }
  if (kinds.has("catch"))
    return (
      "Cargo is falling: tick up to two pieces to try to catch (caught pieces leave the " +
      "game), then Catch. Pieces not caught come back to you."
    );
  if (kinds.has("report") || kinds.has("settle"))
    return "Say what fell off the real ship and what was caught, then Report.";
  if (kinds.has("accept"))
    return "Check the report: accept it, or dispute it and the captain settles it.";
  if (kinds.has("choose_captain") || kinds.has("order_players"))
    return "You decide: the players tied on a card wait for your choice.";
  return "Not your move yet: watch the ship.";
}

// -- what happened, as sentences (the move log and the replay; moves.js) -------------------

// A piece's id (s1-barrel-0) as a person reads it: "barrel 1"; with ``who``, whose
// supply it came from too ("Ann's barrel 1"): every player has a barrel 1, and a
// capsize listing two of them as "barrel 1, barrel 1" read as one piece twice.
const listed = (ids, none = "nothing") => ids.map((id) => pieceName(id)).join(", ") || none;

export function pieceName(id, who) {
  const found = /^s(\d+)-([a-z]+)-(\d+)$/.exec(id);
  if (!found) return id;
  const piece = `${found[2]} ${Number(found[3]) + 1}`;
  if (typeof who !== "function") return piece;
  const owner = who(Number(found[1]));
  return `${owner === "You" ? "your" : `${owner}'s`} ${piece}`;
}

export function describe(event, who, said) {
  const d = event.data;
  const names = (ids) => ids.map((id) => pieceName(id, who)).join(", ");
  switch (event.type) {
    case "GameCreated":
      return `A game for ${d.seats.length} players (${d.options.mode})`;
    case "CaptainNamed":
    case "CaptainChosen":
      return `${who(d.seat)} ${who(d.seat) === "You" ? "are" : "is"} the captain`;
    case "RoundStarted":
      return `Round ${d.round}: everyone chooses a card`;
    case "CardChosen":
      return `${who(d.seat)} chose a card${d.card ? ` (${d.card})` : ""}`;
    case "CardsRevealed":
      return `Cards: ${Object.entries(d.cards)
        .map(([s, c]) => `${who(Number(s))} ${c}`)
        .join(", ")}`;
    case "DecisionPending":
      return (
        `${who(d.by)} decide${who(d.by) === "You" ? "" : "s"} ` +
        `${d.kind === "choose_captain" ? "who is captain" : "the order"} among ` +
        `${d.seats.map(who).join(", ")}`
      );
    case "PlayersOrdered":
    case "TurnOrderSet":
      return `Turn order: ${d.order.map(who).join(", ")}`;
    case "TurnStarted":
      return `${who(d.seat)} load${who(d.seat) === "You" ? "" : "s"} on area ${d.area}`;
    case "PieceLoaded": {
      const fell = (d.outcome && d.outcome.fell) || [];
      const what =
        `${who(d.seat)} loaded ${pieceName(d.piece, who)} on area ` +
        `${d.area}${d.double ? " (a double load)" : ""}`;
      return fell.length ? `${what}; ${names(fell.map((f) => f.id))} fell` : what;
    }
    case "CatchAttempted":
      return d.attempts
        .map((a) => `${who(d.seat)} ${a.caught ? "caught" : "missed"} ${pieceName(a.id, who)}`)
        .join(", ");
    case "FallReported":
      return (
        `${who(d.seat)} reported ${names(d.fell) || "nothing"} ` +
        `fell${d.caught.length ? `, ${names(d.caught)} caught` : ""}`
      );
    case "ReportAccepted":
      return `${who(d.seat)} accepted the report`;
    case "ReportDisputed":
      return `${who(d.seat)} disputed the report: the captain settles it`;
    case "FallResolved": {
      const parts = [];
      if (d.removed.length) parts.push(`${names(d.removed)} left the game`);
      if (d.to_player.length) parts.push(`${names(d.to_player)} back to ${who(d.seat)}`);
      return parts.join("; ") || null;
    }
    case "GameEnded":
      return `Game over: ${d.winners.map(who).join(", ") || "nobody"} won`;
    default:
      return null;
  }
}

// Why the game ended, by the rule that decided it (ruling RR-6).
export function explainEnd(view, events, who) {
  const ended = events.find((e) => e.type === "GameEnded");
  if (!ended) return null;
  const winners = ended.data.winners.map(who).join(", ");
  if (ended.data.reason === "emptied")
    return `${winners} had no pieces left at the end of a turn, which wins at once.`;
  const counts = (ended.data.pieces || []).map((n, s) => `${who(s)} ${n}`).join(", ");
  return `Every card was played; the fewest pieces left win (${counts}): ${winners}.`;
}
