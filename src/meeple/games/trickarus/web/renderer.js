// Trickarus in the browser: the score track up to the sun, day/night and trump, the trick,
// and your hand with the legal cards clickable. Follows the interface in src/meeple/web/renderer.js.

import { h as el, svg } from "/static/common.js";

const SUIT = {
  sun: { icon: "☀", colour: "#f7c948", ink: "#5a3d00", name: "Sun" },
  cloud: { icon: "☁", colour: "#f3a6c8", ink: "#5b1536", name: "Cloud" },
  rain: { icon: "☂", colour: "#6aa9e9", ink: "#0d2f55", name: "Rain" },
  moon: { icon: "☾", colour: "#f4f4f8", ink: "#2b2b40", name: "Moon" },
};
const TOKEN = ["#d94f3d", "#2f7de1", "#2faa5e", "#9b51e0", "#f08c1a"];

const name = (ctx, p) => (ctx.seats && ctx.seats[p] && ctx.seats[p].name) || `Seat ${p + 1}`;

// A card: its active side large, the other side small in the corner; the Lightning card apart.
function card(c, side, opts = {}) {
  const classes = ["tk-card"];
  if (opts.legal) classes.push("legal");
  if (opts.dim) classes.push("dim");
  if (c.active === null) {
    classes.push("lightning");
    return el("div", { class: classes.join(" "), "data-card": c.code, "data-action": opts.action, title: "Lightning", onclick: opts.onclick },
      el("span", { class: "tk-big" }, "⚡"), el("span", { class: "tk-label" }, "Lightning"));
  }
  const [suit, value] = c.active;
  const other = side === "day" ? c.night : c.day;
  const s = SUIT[suit];
  return el("div", {
    class: classes.join(" "), "data-card": c.code, "data-action": opts.action, onclick: opts.onclick,
    style: `--suit:${s.colour};--ink:${s.ink}`, title: `${s.name} ${value} (${side === "day" ? "night" : "day"}: ${SUIT[other[0]].name} ${other[1]})`,
  },
    el("span", { class: "tk-corner" }, `${value}`),
    el("span", { class: "tk-big" }, s.icon),
    el("span", { class: "tk-value" }, `${value}`),
    el("span", { class: "tk-other", style: `--other:${SUIT[other[0]].colour}` }, `${side === "day" ? "☾" : "☀"} ${SUIT[other[0]].icon}${other[1]}`));
}

// The score track: ground, spaces 1..track_length, then the sun; one token per player.
function track(view, ctx) {
  const n = view.track_length;
  const W = 760, H = 92, x0 = 84, step = (W - x0 - 70) / n;
  const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "tk-track", role: "img", "aria-label": "score track" });
  g.append(svg("rect", { x: 0, y: 0, width: W, height: H, rx: 12, fill: view.side === "day" ? "#cfe8fb" : "#1f2547" }));
  g.append(svg("rect", { x: 6, y: 56, width: x0 - 12, height: 28, rx: 6, fill: "#8a6d3b" }));
  g.append(svg("text", { x: x0 / 2 - 2, y: 75, "text-anchor": "middle", "font-size": 11, fill: "#fff" }, "ground"));
  for (let i = 1; i <= n; i++) {
    const x = x0 + (i - 1) * step;
    g.append(svg("rect", { x, y: 56, width: step - 4, height: 28, rx: 5, fill: view.side === "day" ? "#ffffff" : "#3a4275", stroke: "#8aa", "stroke-width": 1 }));
    g.append(svg("text", { x: x + step / 2 - 2, y: 75, "text-anchor": "middle", "font-size": 12, fill: view.side === "day" ? "#456" : "#cdd" }, String(i)));
  }
  const sx = x0 + n * step + 28;
  g.append(svg("circle", { cx: sx, cy: 46, r: 26, fill: "#ffb703", stroke: "#fb8500", "stroke-width": 4 }));
  g.append(svg("text", { x: sx, y: 52, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: "#7a3b00" }, "SUN"));
  const ground = [];
  view.positions.forEach((pos, p) => {
    let cx, cy;
    if (pos === 0) { ground.push(p); cx = 14 + (ground.length - 1) * 14.5; cy = 40; } else { cx = x0 + (pos - 1) * step + step / 2 - 2; cy = 38; }
    const tok = svg("g", { "data-token": p },
      svg("circle", { cx, cy, r: pos === 0 ? 8 : 10, fill: TOKEN[p % TOKEN.length], stroke: "#fff", "stroke-width": 2 }),
      svg("text", { x: cx, y: cy + 4, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: "#fff" }, String(p + 1)));
    tok.append(svg("title", {}, `${name(ctx, p)}: ${pos === 0 ? "on the ground" : `space ${pos}`}`));
    g.append(tok);
  });
  return g;
}

export function render(root, ctx) {
  const v = ctx.view;
  const legalByCode = new Map(ctx.legal.map((c) => [c.json && c.json.play, c.id]));
  const header = el("div", { class: `tk-header ${v.side}` },
    el("span", { class: "tk-sky" }, v.side === "day" ? "☀ Day" : "☾ Night"),
    el("span", {}, `Trump: ${SUIT[v.trump].icon} ${SUIT[v.trump].name}`),
    el("span", {}, `Round ${v.round}${v.round_limit ? ` of ${v.round_limit}` : ""}`),
    el("span", {}, v.mode === "cooperative" ? `Co-operative · flying ${v.direction}` : "Competitive"),
    v.lightning_variant ? el("span", {}, "Lightning variant") : null,
    v.sun_reached ? el("span", { class: "tk-hot" }, "The sun has been reached") : null,
    v.lead_suit ? el("span", {}, `Lead: ${SUIT[v.lead_suit].icon} ${SUIT[v.lead_suit].name}`) : null);

  const players = el("div", { class: "tk-players" }, v.positions.map((pos, p) => el("div", {
    class: `tk-player${p === v.to_move ? " to-move" : ""}${p === ctx.seat ? " me" : ""}`, "data-player": p,
  },
    el("span", { class: "tk-token", style: `background:${TOKEN[p % TOKEN.length]}` }, String(p + 1)),
    el("strong", {}, name(ctx, p)),
    el("span", { class: "tk-muted" }, `${v.hand_sizes[p]} card${v.hand_sizes[p] === 1 ? "" : "s"} · ${pos === 0 ? "ground" : `space ${pos}`}`),
    v.over ? el("span", { class: "tk-place" }, `place ${v.ranking[p]}`) : null)));

  const trick = el("div", { class: "tk-trick" },
    v.trick.length ? v.trick.map((t) => el("div", { class: "tk-played" }, card(t.card, v.side), el("span", {}, name(ctx, t.player))))
      : el("div", { class: "tk-empty" },
        v.last_trick.winner !== null && v.last_trick.winner !== undefined
          ? `${name(ctx, v.last_trick.winner)} won the last trick` : v.over ? "Game over" : "No card played yet"));

  const myTurn = ctx.legal.length > 0;
  const hand = v.hand && v.hand.length ? el("div", { class: "tk-hand", "aria-label": "your hand" }, v.hand.map((c) => {
    const id = legalByCode.get(c.code);
    const legal = id !== undefined;
    return card(c, v.side, {
      legal, dim: myTurn && !legal, action: legal ? id : null,
      onclick: legal ? () => ctx.act(id) : null,
    });
  })) : null;

  root.replaceChildren(el("div", { class: "tk-board" },
    header, track(v, ctx), players,
    el("div", { class: `tk-felt ${v.side}` }, trick),
    hand ? el("div", { class: "tk-hand-box" }, el("h4", {}, myTurn ? "Your hand — pick a card" : "Your hand"), hand)
      : el("p", { class: "tk-muted" }, ctx.seat === null ? "Watching: hands are hidden." : v.over ? "" : "No cards in hand.")));
}

export const css = `
.tk-board { display: grid; gap: .7rem; }
.tk-header { display: flex; gap: 1rem; flex-wrap: wrap; align-items: center; font-weight: 600; padding: .4rem .8rem; border-radius: 8px; }
.tk-header.day { background: #fff4cc; color: #5a3d00; } .tk-header.night { background: #262c52; color: #e8e8ff; }
.tk-sky { font-size: 1.15rem; } .tk-hot { color: #d9480f; }
.tk-track { width: 100%; height: auto; max-height: 110px; }
.tk-players { display: flex; gap: .5rem; flex-wrap: wrap; }
.tk-player { display: flex; gap: .4rem; align-items: center; padding: .25rem .6rem; border: 1px solid #ddd6c6; border-radius: 8px; background: #fff; }
.tk-player.to-move { box-shadow: 0 0 0 2px #ffd85c; border-color: #d4a300; }
.tk-player.me { background: #e8f2ec; }
.tk-token { width: 1.3rem; height: 1.3rem; border-radius: 50%; color: #fff; font-weight: 700; display: inline-grid; place-items: center; font-size: .8rem; }
.tk-muted { color: #7a7466; font-size: .85rem; } .tk-place { font-weight: 700; color: #2f6f4f; }
.tk-felt { border-radius: 14px; min-height: 170px; display: grid; place-items: center; padding: .8rem; }
.tk-felt.day { background: radial-gradient(circle at 50% 30%, #3f8c63, #24563e); }
.tk-felt.night { background: radial-gradient(circle at 50% 30%, #2c3566, #151a38); }
.tk-trick { display: flex; gap: 1rem; flex-wrap: wrap; justify-content: center; }
.tk-played { display: grid; justify-items: center; gap: .25rem; color: #fff; font-size: .85rem; }
.tk-empty { color: #e3efe8; font-style: italic; }
.tk-hand-box h4 { margin: .2rem 0 .4rem; }
.tk-hand { display: flex; flex-wrap: wrap; gap: .45rem; }
.tk-card { position: relative; width: 64px; height: 96px; border-radius: 9px; background: var(--suit); color: var(--ink); border: 2px solid rgba(0,0,0,.25);
  display: grid; place-items: center; box-shadow: 0 2px 4px rgba(0,0,0,.25); user-select: none; transition: transform .08s; }
.tk-card .tk-corner { position: absolute; top: 3px; left: 6px; font-weight: 800; font-size: .9rem; }
.tk-card .tk-big { font-size: 1.9rem; line-height: 1; margin-top: -.6rem; }
.tk-card .tk-value { position: absolute; bottom: 18px; font-weight: 800; font-size: 1.25rem; }
.tk-card .tk-other { position: absolute; bottom: 2px; font-size: .68rem; padding: 0 .25rem; border-radius: 4px; background: var(--other); opacity: .85; }
.tk-card.lightning { background: linear-gradient(160deg, #2d2d2d, #5b4b9a); color: #ffe066; }
.tk-card.lightning .tk-label { position: absolute; bottom: 6px; font-size: .7rem; color: #fff; }
.tk-card.legal { cursor: pointer; transform: translateY(-6px); border-color: #d4a300; box-shadow: 0 0 0 3px #ffd85c, 0 4px 8px rgba(0,0,0,.3); }
.tk-card.legal:hover { transform: translateY(-10px); }
.tk-card.dim { opacity: .45; }
`;
