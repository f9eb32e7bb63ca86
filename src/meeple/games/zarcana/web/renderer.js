// Zarcana in the browser: the board of card stacks as an SVG grid, pyramids drawn by owner, size
// and orientation, the wasteland around the cards, your hand, and every legal choice clickable
// (spaces, pyramids and hand cards on the drawing, the rest as buttons beside it).
// Follows the interface in src/meeple/web/renderer.js.
import { h as el, plural, svg } from "/static/common.js";
import { listen } from "/static/patch.js";

const OWNER = ["#d94f3d", "#2f7de1", "#2faa5e", "#9b51e0"];
const TYPE = {
  grow_clone: { fill: "#dff3e4", ink: "#1d6b3a", letter: "G", name: "Grow or Clone" },
  move: { fill: "#dfeafb", ink: "#1d4f8f", letter: "M", name: "Move" },
  attack: { fill: "#fbe1dd", ink: "#8f2a1d", letter: "A", name: "Attack" },
  build: { fill: "#fbf0d4", ink: "#7a5600", letter: "B", name: "Build" },
  special: { fill: "#ece3fb", ink: "#4d2a8f", letter: "", name: "Special" },
};
const CELL = 84;  // a space, in px at zoom 1: a finger's width with room for a card's name
const SIZE = { small: 0.55, medium: 0.75, large: 0.95 };
const ANGLE = { N: 0, E: 90, S: 180, W: 270 };
const FACING = { N: "north", E: "east", S: "south", W: "west" };
// Pan and zoom: the board keeps its natural size (84 px a space, big enough for a finger) inside
// a box that scrolls (drag or swipe); the buttons zoom. The zoom is kept per tab; the box keeps
// its scroll position across moves because the page patches it rather than replacing it.
let zoom = 1;

const name = (ctx, p) => (ctx.seats && ctx.seats[p] && ctx.seats[p].name) || `Seat ${p + 1}`;

// Card codes: "move-7", "attack-wild-b", or a Special's code ("teleport"); values come from the
// code for Common cards and from the card list the server does not send, so Specials show a name.
function cardInfo(code) {
  const m = /^(grow_clone|move|attack|build)-(wild-[a-d]|\d+)$/.exec(code);
  if (m) {
    const t = TYPE[m[1]];
    const wild = m[2].startsWith("wild");
    return { type: m[1], short: wild ? `${t.letter}★` : `${t.letter}${m[2]}`, value: wild ? 11 : Number(m[2]), title: `${t.name} ${wild ? "(Wild) 11" : m[2]}` };
  }
  const words = code.split("_").map((w) => w[0].toUpperCase() + w.slice(1));
  return { type: "special", short: words.join(" "), value: null, title: words.join(" ") };
}
const clip = (text, n) => (text.length > n ? text.slice(0, n - 1) + "…" : text);
// A card's name in at most two lines of about 12 characters.
function wrap(text) {
  const lines = [""];
  for (const w of text.split(" ")) {
    const cur = lines[lines.length - 1];
    if (!cur || (cur + " " + w).length <= 12) lines[lines.length - 1] = cur ? `${cur} ${w}` : w;
    else lines.push(w);
  }
  return lines.length > 2 ? [lines[0], clip(lines.slice(1).join(" "), 12)] : lines;
}

const pyramidLabel = (p) => `P${p.owner} ${p.size[0].toUpperCase()}${(p.id % 5) + 1}`;

function pyramid(p, cx, cy, r, action, ctx) {
  const s = SIZE[p.size] * r;
  const standing = p.orient === "up";
  const pts = standing
    ? `${cx},${cy - s} ${cx + s * 0.8},${cy + s * 0.7} ${cx - s * 0.8},${cy + s * 0.7}`
    : `${cx},${cy - s} ${cx + s * 0.45},${cy + s * 0.8} ${cx - s * 0.45},${cy + s * 0.8}`;
  const g = svg("g", {
    class: `zc-pyramid${action !== undefined ? " legal" : ""}`, "data-pyramid": p.id,
    "data-action": action, onclick: action !== undefined ? () => ctx.act(action) : null,
  },
    action !== undefined ? svg("circle", { cx, cy, r: Math.max(r, 20), fill: "transparent", class: "zc-hit" }) : null,
    svg("polygon", {
      points: pts, fill: OWNER[p.owner % 4], stroke: standing ? "#fff" : "#222", "stroke-width": standing ? 1.5 : 1,
      transform: standing ? null : `rotate(${ANGLE[p.orient]} ${cx} ${cy})`,
    }),
    standing ? svg("circle", { cx, cy: cy - s * 0.35, r: 2.2, fill: "#fff" }) : null,
    // the owner's number as well as the colour
    svg("text", { x: cx, y: cy + s * 0.55, "text-anchor": "middle", "font-size": Math.max(8, s * 0.55), "font-weight": 800, fill: "#fff" }, String(p.owner + 1)));
  g.append(svg("title", {}, `${name(ctx, p.owner)}'s ${p.size} pyramid, ${standing ? "standing up (it targets its own space)" : `pointing ${FACING[p.orient]} (it targets the space that way)`}`));
  return g;
}

// The large preview beside the board: the card under the pointer (or last tapped), in full.
function previewBox(card, stack) {
  if (!card) return el("div", { class: "zc-preview empty", id: "zc-preview", "aria-live": "polite" }, "Point at a card on the board (or tap it) to read it here.");
  const t = TYPE[cardInfo(stack[stack.length - 1]).type];
  return el("div", { class: "zc-preview", id: "zc-preview", "aria-live": "polite", style: `--fill:${t.fill};--ink:${t.ink}` },
    el("div", { class: "zc-preview-head" }, el("b", {}, card.name), el("span", { class: "zc-preview-value" }, String(card.value))),
    el("p", {}, card.text),
    stack.length > 1 ? el("p", { class: "zc-muted" }, `On top of ${plural(stack.length - 1, "more card")}.`) : null);
}
let previewAt = null;  // the space whose card the preview shows, kept across moves
function preview(k, card, stack) {
  return () => {
    previewAt = k;
    const box = document.getElementById("zc-preview");
    if (box) box.replaceWith(previewBox(card, stack));
  };
}

function board(v, ctx, legal) {
  const cards = new Map(v.board.map((b) => [`${b.x},${b.y}`, b.stack]));
  const tops = new Map(v.board.map((b) => [`${b.x},${b.y}`, b]));
  const pyrs = new Map();
  for (const p of v.pyramids) {
    const k = `${p.x},${p.y}`;
    if (!pyrs.has(k)) pyrs.set(k, []);
    pyrs.get(k).push(p);
  }
  const spaces = [...cards.keys(), ...pyrs.keys(), ...legal.cells.keys()].map((k) => k.split(",").map(Number));
  if (!spaces.length) return el("p", { class: "zc-muted" }, "Every card is gone from the board.");
  const xs = spaces.map((s) => s[0]), ys = spaces.map((s) => s[1]);
  const x0 = Math.min(...xs) - 1, x1 = Math.max(...xs) + 1, y0 = Math.min(...ys) - 1, y1 = Math.max(...ys) + 1;
  const W = (x1 - x0 + 1) * CELL, H = (y1 - y0 + 1) * CELL;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "zc-board", role: "img", "aria-label": "the board", width: W * zoom, height: H * zoom });
  root.append(svg("rect", { x: 0, y: 0, width: W, height: H, fill: "#cbbd9b", rx: 10 }));
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const k = `${x},${y}`;
      const px = (x - x0) * CELL, py = (y - y0) * CELL;
      const stack = cards.get(k);
      const action = legal.cells.get(k);
      const attrs = {
        "data-cell": k, "data-action": action, class: action !== undefined ? "zc-space legal" : "zc-space",
        onclick: action !== undefined ? () => ctx.act(action) : null,
      };
      if (stack) {
        const top = tops.get(k);
        const info = cardInfo(stack[stack.length - 1]);
        const t = TYPE[info.type];
        // The card's full name (a Common card's without its number, which is in the corner),
        // squeezed to the space's width when long; the whole card, large, on hover or tap.
        const title = info.type === "special" ? top.name : top.name.replace(/ \d+$/, "");
        const g = svg("g", { ...attrs, "data-card-here": k, onpointerenter: preview(k, top, stack), onpointerdown: preview(k, top, stack) },
          svg("rect", { x: px + 3, y: py + 3, width: CELL - 6, height: CELL - 6, rx: 7, fill: t.fill, stroke: t.ink, "stroke-width": 1.5 }),
          wrap(title).map((line, i) => svg("text", {
            x: px + 7, y: py + 16 + i * 12, "font-size": 10.5, "font-weight": 700, fill: t.ink,
            textLength: line.length > 11 ? CELL - 14 : null, lengthAdjust: "spacingAndGlyphs" }, line)),
          svg("text", { x: px + CELL - 8, y: py + CELL - 8, "font-size": 17, "font-weight": 800, "text-anchor": "end", fill: t.ink }, String(top.value)),
          stack.length > 1 ? svg("text", { x: px + 8, y: py + CELL - 9, "font-size": 10, fill: t.ink }, `×${stack.length}`) : null);
        g.append(svg("title", {}, `${top.name} (${top.value})${stack.length > 1 ? ` on ${stack.length - 1} more` : ""}: ${top.text}`));
        root.append(g);
      } else {
        root.append(svg("rect", { ...attrs, x: px + 3, y: py + 3, width: CELL - 6, height: CELL - 6, rx: 7, fill: action !== undefined ? "#e9dfc4" : "transparent", stroke: action !== undefined ? "#8a6d3b" : "none", "stroke-dasharray": "4 3" }));
      }
      const here = pyrs.get(k) || [];
      here.forEach((p, i) => {
        const n = Math.min(here.length, 4);
        const col = i % 2, row = Math.floor(i / 2) % 2;
        const cx = px + CELL / 2 + (n > 1 ? (col ? 17 : -17) : 0);
        const cy = py + CELL / 2 + 8 + (n > 2 ? (row ? 16 : -12) : 0);
        root.append(pyramid(p, cx, cy, n > 2 ? 15 : 22, legal.pyramids.get(p.id), ctx));
      });
    }
  }
  return root;
}

// Legal choices sorted by where they are drawn: spaces, pyramids, hand cards, the rest.
function sortLegal(ctx, v) {
  const cells = new Map(), pyramids = new Map(), cards = new Map(), rest = [];
  const byLabel = new Map(v.pyramids.map((p) => [pyramidLabel(p), p.id]));
  for (const c of ctx.legal) {
    const j = c.json || {};
    if (j.cell) cells.set(`${j.cell[0]},${j.cell[1]}`, c.id);
    else if (j.pyramid && byLabel.has(j.pyramid)) pyramids.set(byLabel.get(j.pyramid), c.id);
    else if (j.card && v.hand && v.hand.includes(j.card)) cards.set(j.card, c.id);
    else rest.push(c);
  }
  return { cells, pyramids, cards, rest };
}

export function render(root, ctx) {
  const v = ctx.view;
  const legal = sortLegal(ctx, v);
  const header = el("div", { class: "zc-header" },
    el("span", {}, `Turn ${v.turn + 1}`),
    el("span", {}, `Deck ${v.deck_size} · discards ${v.discard.length} · reshuffles ${v.reshuffles}`),
    v.declared_by !== null ? el("span", { class: "zc-hot" }, `Final round declared by ${name(ctx, v.declared_by)} (${plural(v.turns_left, "turn")} left)`) : null,
    v.playing ? el("span", {}, `Playing ${v.playing_name}`) : null,
    v.reorient_next ? el("span", {}, `Reorienting ${v.reorient_next}`) : null);
  const players = el("div", { class: "zc-players" }, v.scores.map((s, p) => el("div", {
    class: `zc-player${p === v.to_move ? " to-move" : ""}${p === ctx.seat ? " me" : ""}`, "data-player": p,
  },
    el("span", { class: "zc-token", style: `background:${OWNER[p % 4]}` }, String(p + 1)),
    el("strong", {}, name(ctx, p)),
    el("span", { class: "zc-muted" }, `${plural(s, "point")} · ${plural(v.hand_sizes[p], "card")} · stash ${v.stash[p].join("/")}`),
    v.over ? el("span", { class: "zc-place" }, `place ${v.ranking[p]}`) : null)));
  const hand = v.hand_cards ? el("div", { class: "zc-hand", "aria-label": "your hand" }, v.hand_cards.map((c) => {
    const info = cardInfo(c.code);
    const id = legal.cards.get(c.code);
    return el("div", {
      class: `zc-card ${info.type}${id !== undefined ? " legal" : ""}`, "data-card": c.code, "data-action": id,
      title: c.text, onclick: id !== undefined ? () => ctx.act(id) : null,
    }, el("b", {}, `${c.name} · ${c.value}`), el("span", {}, c.text));
  })) : el("p", { class: "zc-muted" }, ctx.seat === null ? "Watching: hands are hidden." : "");
  const buttons = legal.rest.length ? el("div", { class: "zc-buttons" }, legal.rest.map((c) =>
    el("button", { class: "zc-choice", "data-action": c.id, onclick: () => ctx.act(c.id) }, c.label))) : null;
  const pan = el("div", { class: "zc-pan", id: "zc-pan", "data-pan": "" }, board(v, ctx, legal));
  const shown = previewAt && v.board.find((b) => `${b.x},${b.y}` === previewAt);
  dragToPan(pan);
  const zoomTo = (f) => (e) => {  // resizes the drawn board in place: no redraw
    zoom = f === 1 ? 1 : Math.min(2, Math.max(0.4, zoom * f));
    const b = e.currentTarget.closest(".zc-table").querySelector(".zc-board");
    if (!b) return;
    const [, , w, h] = b.getAttribute("viewBox").split(" ").map(Number);
    b.setAttribute("width", w * zoom);
    b.setAttribute("height", h * zoom);
  };
  const zoomBar = el("div", { class: "zc-zoom", id: "zc-zoom" },
    el("button", { onclick: zoomTo(1 / 1.25), title: "zoom out", "aria-label": "zoom out" }, "−"),
    el("button", { onclick: zoomTo(1.25), title: "zoom in", "aria-label": "zoom in" }, "+"),
    el("button", { onclick: zoomTo(1), title: "actual size" }, "1:1"),
    el("span", { class: "zc-muted" }, "drag to move the board; point at or tap a card to read it in full"));
  root.replaceChildren(el("div", { class: "zc-table" },
    header, players, zoomBar, el("div", { class: "zc-board-row", id: "zc-board-row" }, pan, previewBox(shown, shown && shown.stack)), buttons,
    el("div", { class: "zc-hand-box" }, el("h4", {}, "Your hand"), hand)));
}

// Mouse drag scrolls the board (touch screens scroll it natively). The handlers act on
// currentTarget: after a patch they sit on the live box, not on the drawing they came with.
let start = null;
function dragToPan(box) {
  listen(box, "pointerdown", (e) => {
    if (e.pointerType !== "mouse") return;
    const b = e.currentTarget;
    start = { x: e.clientX, y: e.clientY, left: b.scrollLeft, top: b.scrollTop, moved: false };
  });
  listen(box, "pointermove", (e) => {
    if (!start) return;
    const dx = e.clientX - start.x, dy = e.clientY - start.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) start.moved = true;
    e.currentTarget.scrollLeft = start.left - dx;
    e.currentTarget.scrollTop = start.top - dy;
  });
  listen(box, "click", (e) => { if (start && start.moved) { e.stopPropagation(); e.preventDefault(); } start = null; }, true);
  listen(box, "pointerup", () => { if (start && !start.moved) start = null; });
  listen(box, "pointerleave", () => { start = null; });
  requestAnimationFrame(() => {  // a board drawn for the first time opens on its middle
    if (!box.isConnected) return;
    box.scrollLeft = (box.scrollWidth - box.clientWidth) / 2;
    box.scrollTop = (box.scrollHeight - box.clientHeight) / 2;
  });
}

export const css = `
.zc-pan { max-width: 100%; max-height: 70vh; overflow: auto; border-radius: 10px; touch-action: pan-x pan-y; cursor: grab; }
.zc-zoom { display: flex; gap: .3rem; align-items: center; flex-wrap: wrap; }
.zc-zoom button { min-width: 40px; min-height: 40px; }
.zc-board { display: block; }
.zc-board-row { display: grid; grid-template-columns: minmax(0, max-content) minmax(12rem, 16rem); gap: .6rem; align-items: start; }
.zc-preview { border: 2px solid var(--ink, #8a7f66); background: var(--fill, #fffdf8); color: var(--ink, #23211c); border-radius: 10px; padding: .6rem .7rem; font-size: .95rem; min-height: 8rem; }
.zc-preview.empty { color: #7a7466; border-style: dashed; font-size: .85rem; }
.zc-preview-head { display: flex; justify-content: space-between; gap: .5rem; font-size: 1.15rem; }
.zc-preview-value { font-weight: 800; font-size: 1.6rem; line-height: 1; }
.zc-preview p { margin: .4rem 0 0; }
@media (max-width: 700px) { .zc-board-row { grid-template-columns: minmax(0, 1fr); } .zc-preview { min-height: 0; } }
.zc-choice { min-height: 40px; }
.zc-table { display: grid; gap: .6rem; }
.zc-header { display: flex; gap: 1rem; flex-wrap: wrap; font-weight: 600; padding: .4rem .8rem; border-radius: 8px; background: #efe6cf; }
.zc-hot { color: #d9480f; }
.zc-players { display: flex; gap: .5rem; flex-wrap: wrap; }
.zc-player { display: flex; gap: .4rem; align-items: center; padding: .25rem .6rem; border: 1px solid #ddd6c6; border-radius: 8px; background: #fff; }
.zc-player.to-move { box-shadow: 0 0 0 2px #ffd85c; border-color: #d4a300; }
.zc-player.me { background: #e8f2ec; }
.zc-token { width: 1.3rem; height: 1.3rem; border-radius: 50%; color: #fff; font-weight: 700; display: inline-grid; place-items: center; font-size: .8rem; }
.zc-muted { color: #7a7466; font-size: .85rem; } .zc-place { font-weight: 700; color: #2f6f4f; }
.zc-space.legal, .zc-pyramid.legal { cursor: pointer; }
.zc-pyramid:not(.legal), .zc-board text { pointer-events: none; }
.zc-space.legal rect:first-child, rect.zc-space.legal { stroke: #ffb703; stroke-width: 3; }
.zc-pyramid.legal polygon { stroke: #ffb703; stroke-width: 3; }
.zc-buttons { display: flex; gap: .4rem; flex-wrap: wrap; }
.zc-hand { display: flex; gap: .5rem; flex-wrap: wrap; }
.zc-card { width: 10rem; min-height: 4.4rem; padding: .3rem; border-radius: 8px; border: 1.5px solid #8a7f66; display: grid; gap: .2rem; font-size: .8rem; background: #fff; }
.zc-card.grow_clone { background: #dff3e4; } .zc-card.move { background: #dfeafb; } .zc-card.attack { background: #fbe1dd; }
.zc-card.build { background: #fbf0d4; } .zc-card.special { background: #ece3fb; }
.zc-card.legal { cursor: pointer; box-shadow: 0 0 0 3px #ffb703; }
`;
