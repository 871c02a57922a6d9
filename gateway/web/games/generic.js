// Any game without a table of its own (a game added to services/games.py): its view as
// JSON, its legal commands, and a command box.

import { el } from "/static/api.js";

export function render({ view, legal, send }) {
  const box = el(
    "textarea",
    { id: "command", rows: 3, cols: 50, "aria-label": "command (JSON)" },
    "{}",
  );
  const commands = (legal && legal.commands) || [];
  return el(
    "div",
    {},
    el(
      "section",
      {},
      el("h2", {}, "View"),
      el("pre", { id: "view" }, JSON.stringify(view, null, 2)),
    ),
    el(
      "section",
      {},
      el("h2", {}, "Legal commands"),
      el("pre", {}, JSON.stringify(commands, null, 2)),
      send
        ? el(
            "div",
            { class: "row" },
            box,
            el(
              "button",
              {
                type: "button",
                class: "primary",
                id: "send",
                onclick: () => {
                  try {
                    send(JSON.parse(box.value));
                  } catch (e) {
                    box.setCustomValidity(e.message);
                    box.reportValidity();
                  }
                },
              },
              "Send",
            ),
          )
        : null,
    ),
  );
}

// Events as their type and data: a game without sentences of its own.
export function describe(event) {
  return event.type === "TurnStarted" ? null : `${event.type} ${JSON.stringify(event.data)}`;
}
