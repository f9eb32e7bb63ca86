// The renderer interface every game's browser renderer follows (see docs/web.md).
//
// A game's renderer is the ES module src/meeple/games/<id>/web/renderer.js, served at
// /games/<id>/web/renderer.js. It exports:
//   render(root, ctx)        draw ctx.view into the element root (replace its content; the
//                            page draws into a detached copy and patches the live board, so
//                            add listeners with h/svg's on* attributes or listen() from
//                            patch.js, and keep no references to the root between calls);
//                            make legal choices clickable: an element with data-action="<id>"
//                            whose click calls ctx.act(id).
//   (log lines are not the renderer's: every event carries its sentence, ev.text, made by the
//   game's Python from the reading seat's view; pages show it as it is, see logLine below.)
//   css                      optional: a stylesheet (text) added once to the page.
// ctx = { view, seat, legal: [{id, label, json}], seats: [{seat, name, kind, zombie, connected}],
//         act(id), over, ranking, scores, replay: bool }
// Games without a renderer use `generic` below, and every page also shows the generic panel
// of labelled choices, so any game is playable from the day it is registered.
import { h, seatName } from "./common.js";
import { patch, patchFrom } from "./patch.js";

const isScalar = (v) => v === null || typeof v !== "object";

function compact(v, max = 90) {
  const text = isScalar(v) ? String(v) : JSON.stringify(v);
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

function value(v, depth = 0) {
  if (v === null || v === undefined) return h("span.muted", {}, "—");
  if (isScalar(v)) return h("span", {}, String(v));
  if (depth >= 2) return h("code", {}, compact(v));
  if (Array.isArray(v)) {
    if (v.every(isScalar)) return h("span", {}, v.map(String).join(", ") || "—");
    if (v.every((x) => x && typeof x === "object" && !Array.isArray(x))) return grid(v, depth);
    return h("ol.gv-list", {}, v.map((x) => h("li", {}, value(x, depth + 1))));
  }
  return h("dl.gv", {}, Object.entries(v).flatMap(([k, x]) => [h("dt", {}, k), h("dd", {}, value(x, depth + 1))]));
}

// A list of records (players, cards, spaces) as one table: a row each, a column per key.
function grid(rows, depth) {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].slice(0, 14);
  return h("table.gv-grid", {},
    h("thead", {}, h("tr", {}, h("th", {}, "#"), keys.map((k) => h("th", {}, k)))),
    h("tbody", {}, rows.map((r, i) => h("tr", {}, h("td", {}, i),
      keys.map((k) => h("td", {}, isScalar(r[k]) ? value(r[k]) : h("code", {}, compact(r[k], depth ? 40 : 60))))))));
}

export const generic = {
  // Scalars first as a summary line; every larger field in its own fold, open when small.
  render(root, ctx) {
    const v = { ...ctx.view };
    delete v.legal;
    const scalars = Object.entries(v).filter(([, x]) => isScalar(x));
    const rest = Object.entries(v).filter(([, x]) => !isScalar(x));
    root.replaceChildren(h("div.generic-view", {},
      h("div.gv-summary", {}, scalars.map(([k, x]) => h("span.gv-chip", {}, h("b", {}, k), " ", String(x)))),
      rest.map(([k, x]) => h("details.gv-fold", { open: JSON.stringify(x).length < 600 },
        h("summary", {}, k, h("span.muted", {}, " " + compact(x, 60))), value(x)))));
  },
  describeEvent(ev, ctx) {  // only for an event without text (a game that gives none)
    if (isScalar(ev)) return String(ev);
    const kind = ev.type ?? ev.event ?? ev.kind ?? "";
    const who = typeof ev.player === "number" ? seatName(ctx.seats, ev.player) + ": " : "";
    const text = ev.text ?? ev.message;
    const rest = Object.entries(ev).filter(([k]) => !["type", "event", "kind", "player", "text", "message"].includes(k))
      .map(([k, x]) => `${k} ${compact(x, 40)}`).join(", ");
    return `${who}${kind}${text ? " " + text : ""}${rest ? " — " + rest : ""}`;
  },
};

const cache = new Map();

// The renderer draws into a detached copy of the board and the live board is patched to match
// (see patch.js): what did not change keeps its nodes, focus and scroll position.
function patched(render) {
  return (root, ctx) => {
    const next = root.cloneNode(false);
    render(next, ctx);
    patchFrom(root, next);
  };
}

// The game's renderer module, or the generic one when the game has none (or it fails to load).
export async function loadRenderer(game) {
  if (cache.has(game.id)) return cache.get(game.id);
  let r = { ...generic, render: patched(generic.render) };
  if (game.renderer) {
    try {
      const mod = await import(game.renderer);
      r = { render: patched(mod.render || generic.render), describeEvent: generic.describeEvent };
      if (mod.css) document.head.append(h("style", {}, mod.css));
    } catch (err) {
      console.error("renderer failed to load; using the generic one", err);
    }
  }
  cache.set(game.id, r);
  return r;
}

// One log line: the event's own sentence (State.log's "text"), never rebuilt here.
export function logLine(ev, ctx) {
  return ev && typeof ev.text === "string" ? ev.text : generic.describeEvent(ev, ctx);
}

// The generic panel of labelled choices: works for every game. A drawing that lays out a whole
// family of choices itself (Scarvus' bid ladder) marks that part with data-choices-here="what
// they are"; those choices are not repeated here, only named.
export function choicesPanel(root, ctx) {
  if (!ctx.legal.length) { patch(root); return; }
  const here = new Set(), notes = [];
  for (const part of document.querySelectorAll("#board [data-choices-here]")) {
    const ids = [...part.querySelectorAll("[data-action]")].map((e) => e.getAttribute("data-action"));
    ids.forEach((id) => here.add(id));
    if (ids.length) notes.push(`${part.getAttribute("data-choices-here")}: ${ids.length} on the board`);
  }
  const listed = ctx.legal.filter((c) => !here.has(String(c.id)));
  patch(root,
    h("h3", {}, "Your choices"),
    notes.map((n) => h("p.choice-note", {}, n)),
    listed.length ? h("div.choice-buttons", {}, listed.map((c) =>
      h("button.choice", { "data-choice": c.id, title: c.label, onclick: () => ctx.act(c.id) }, c.label))) : null,
  );
}
