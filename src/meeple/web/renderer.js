// The renderer interface every game's browser renderer follows (see docs/web.md).
//
// A game's renderer is the ES module src/meeple/games/<id>/web/renderer.js, served at
// /games/<id>/web/renderer.js. It exports:
//   render(root, ctx)        draw ctx.view into the element root (replace its content);
//                            make legal choices clickable: an element with data-action="<id>"
//                            whose click calls ctx.act(id).
//   describeEvent(ev, ctx)   optional: one log line for an event of state.log(), as text.
//   css                      optional: a stylesheet (text) added once to the page.
// ctx = { view, seat, legal: [{id, label, json}], seats: [{seat, name, kind, zombie, connected}],
//         act(id), over, ranking, scores, replay: bool }
// Games without a renderer use `generic` below, and every page also shows the generic panel
// of labelled choices, so any game is playable from the day it is registered.
import { h, seatName } from "./common.js";

function value(v) {
  if (v === null || v === undefined) return h("span.muted", {}, "—");
  if (Array.isArray(v)) {
    if (v.every((x) => x === null || typeof x !== "object")) return h("span", {}, v.map(String).join(", ") || "—");
    return h("ol.gv-list", {}, v.map((x) => h("li", {}, value(x))));
  }
  if (typeof v === "object") {
    return h("dl.gv", {}, Object.entries(v).flatMap(([k, x]) => [h("dt", {}, k), h("dd", {}, value(x))]));
  }
  return h("span", {}, String(v));
}

export const generic = {
  render(root, ctx) {
    const v = { ...ctx.view };
    delete v.legal;
    root.replaceChildren(h("div.generic-view", {}, value(v)));
  },
  describeEvent(ev, ctx) {
    const who = typeof ev.player === "number" ? seatName(ctx.seats, ev.player) + ": " : "";
    const rest = Object.entries(ev).filter(([k]) => k !== "type" && k !== "player")
      .map(([k, x]) => `${k} ${typeof x === "object" ? JSON.stringify(x) : x}`).join(", ");
    return `${who}${ev.type}${rest ? " — " + rest : ""}`;
  },
};

const cache = new Map();

// The game's renderer module, or the generic one when the game has none (or it fails to load).
export async function loadRenderer(game) {
  if (cache.has(game.id)) return cache.get(game.id);
  let r = generic;
  if (game.renderer) {
    try {
      const mod = await import(game.renderer);
      r = { render: mod.render || generic.render, describeEvent: mod.describeEvent || generic.describeEvent };
      if (mod.css) document.head.append(h("style", {}, mod.css));
    } catch (err) {
      console.error("renderer failed to load; using the generic one", err);
    }
  }
  cache.set(game.id, r);
  return r;
}

// The generic panel of labelled choices: works for every game.
export function choicesPanel(root, ctx) {
  if (!ctx.legal.length) { root.replaceChildren(); return; }
  root.replaceChildren(
    h("h3", {}, "Your choices"),
    h("div.choice-buttons", {}, ctx.legal.map((c) =>
      h("button.choice", { "data-choice": c.id, title: JSON.stringify(c.json), onclick: () => ctx.act(c.id) }, c.label))),
  );
}
