// Karvi in the browser: the action track with the dice, the stop area, the sea map drawn as a
// map (places, sea routes, ships, buildings, tile stacks), each player's board (goods, warriors,
// trade and raid tracks, rune spots, ship slots) and your hand. Die moves are clicked on the
// track, ship moves on the map; every other choice is a labelled button on the board (the label
// is the game's own words). Follows the interface in src/meeple/web/renderer.js.

import { h as el, plural, svg } from "/static/common.js";
import { listen } from "/static/patch.js";

const COLOUR = ["#2f9e44", "#1c7ed6", "#f08c00", "#9c36b5"];
const SHAPE = ["●", "■", "▲", "◆"];  // each player's colour has a symbol too
// Where each place lies (longitude, latitude): the reconstructed map follows the real North Sea,
// nudged so that no two places are closer than a finger (tests/test_browser.py clicks them).
const PLACE = {
  Kaupanger: [7.2, 61.2], Trondheim: [10.4, 63.4], Birka: [17.5, 59.3], Skagerrak: [9.5, 57.9],
  Hedeby: [11.8, 54.2], Ribe: [6.8, 56.3], "North Sea": [3.5, 56.3], Dorestad: [5.3, 52.0],
  Rouen: [1.1, 49.4], York: [-0.3, 53.4], Lindisfarne: [-2.4, 56.2], Jarlshof: [0.6, 60.8],
  "Tórshavn": [-6.8, 62.0], Kirkwall: [-4.0, 58.5], Iona: [-6.4, 56.3], Dublin: [-6.6, 54.2],
  "Irish Sea": [-3.4, 52.4], "Norwegian Sea": [2.5, 62.6], "Western map": [-11.5, 54.5],
  Waterford: [-9.6, 51.6], "Northern map": [-11.5, 63.8], "Vík í Mýrdal": [-19.0, 63.4],
};
const MAP_W = 760, MAP_H = 560;
let mapZoom = null;  // the map's scale (null: its natural size, 1), kept across moves

const name = (ctx, p) => (ctx.seats && ctx.seats[p] && ctx.seats[p].name) || `Player ${p + 1}`;

// The effect language in short words (the full sentence is the spot's tooltip).
const ACTION = { beer: "beer", provisions: "provisions", income: "income", upgrade: "upgrade", trade: "trade", raid: "raid", locked: "locked action" };
function step(s) {
  const [op, a, b] = s;
  switch (op) {
    case "points": return `+${plural(a, "point")}`;
    case "fur": case "silver": case "gold": return `${a} ${op}`;
    case "res": return `${a} fur/silver`;
    case "provisions": return `+${plural(a, "provision")}`;
    case "beer": return `+${a ?? 1} beer`;
    case "warrior": return `warrior (${a})`;
    case "strength": return `+${a} strength`;
    case "heal": return `heal ${a}`;
    case "trade_card": return `${a} trade card`;
    case "upgrade_card": return `${a} upgrade card`;
    case "move": return `sail ${a}`;
    case "action": return ACTION[a] || a;
    case "unlock": return `unlock ${a === "post" ? "trading post" : a}`;
    default: return String(op).replace(/_/g, " ");
  }
}
const part = (steps) => steps.map(step).join(" + ");
const spotText = (sp) => sp.parts.map(part).join(sp.join === "/" ? " or " : " + ");

function die(d, i, ctx, by, used) {
  const node = el("span", { class: `kv-die${d.done ? " done" : ""}`, style: `--c:${COLOUR[d.player]}`, title: `Player ${d.player + 1}'s die: ${d.beer} beer`, "data-die": i },
    `${SHAPE[d.player]}${d.beer}`);
  const choice = by.get(`die:${i}`) || by.get(`gold_beer:${i}`);
  if (choice) listen(node, "click", (e) => e.stopPropagation());  // not the spot's choice
  return clickable(node, choice, ctx, used);
}

// Legal actions by JSON family and index, so the drawing can attach them where they belong.
function legalIndex(ctx) {
  const by = new Map();
  for (const c of ctx.legal) {
    const j = c.json || {};
    by.set(`${j.a}:${j.x ?? ""}`, c);
  }
  return by;
}

function clickable(node, choice, ctx, used) {
  if (!choice) return node;
  used.add(choice.id);
  node.classList.add("legal");
  node.setAttribute("data-action", choice.id);
  node.setAttribute("title", choice.label);
  listen(node, "click", () => ctx.act(choice.id));
  return node;
}

// Where spot i lies on a track that snakes through rows of `cols` spots (left to right, then
// right to left), and which way the track goes on from it: the order reads at any width.
function snake(i, cols, last) {
  const row = Math.floor(i / cols), k = i % cols, back = row % 2 === 1;
  const next = i === last ? "end" : k === cols - 1 ? "down" : back ? "left" : "right";
  return { row: row + 1, col: back ? cols - k : k + 1, next };
}

function trackView(v, ctx, by, used) {
  const diceAt = new Map();
  v.dice.forEach((d, i) => { if (!diceAt.has(d.pos)) diceAt.set(d.pos, []); diceAt.get(d.pos).push(die(d, i, ctx, by, used)); });
  const last = v.track.length - 1;
  const track = el("ol", { class: "kv-track", "aria-label": "action track, in order" }, v.track.map((sp, i) => {
    const wide = snake(i, 5, last), narrow = snake(i, 3, last);
    return clickable(
      el("li", {
        class: `kv-spot${sp.blocked ? " blocked" : ""}`, "data-spot": i, "data-next5": wide.next, "data-next3": narrow.next,
        style: `--r5:${wide.row};--c5:${wide.col};--r3:${narrow.row};--c3:${narrow.col}`,
        title: sp.blocked ? "blocked with 2 players" : `spot ${i + 1}: ${spotText(sp)}; costs ${sp.cost} beer`,
      },
      el("span", { class: "kv-cost" }, el("span", { class: "kv-no" }, String(i + 1)), sp.cost ? ` ${sp.cost} beer` : " free"),
      el("span", { class: "kv-label" }, spotText(sp)),
      el("span", { class: "kv-dice" }, diceAt.get(i) || [])),
      by.get(`move_die:${i}`) || by.get(`spot:${i}`), ctx, used);
  }));
  const T = v.track.length;
  const stop = el("div", { class: "kv-stop", "aria-label": "stop area" }, el("b", {}, `Then the stop area (${plural(v.stop_tiles_left, "tile")} left)`),
    v.stop_area.map((sp, k) => clickable(
      el("div", { class: "kv-spot stop", "data-spot": T + k, title: `stop area place ${k + 1}: ${spotText(sp)}` },
        el("span", { class: "kv-cost" }, `${k + 1}`), el("span", { class: "kv-label" }, spotText(sp)),
        el("span", { class: "kv-dice" }, diceAt.get(T + k) || [])),
      by.get(`move_die:${T + k}`) || by.get(`spot:${T + k}`), ctx, used)));
  return el("div", { class: "kv-row", id: "kv-track" }, track, stop);
}

// The sea map: places projected from their real longitude and latitude, routes, ships, buildings.
function mapView(v, ctx, by, used) {
  const pts = v.nodes.map((n, i) => PLACE[n] || [-20 + (i % 6) * 6, 48 + Math.floor(i / 6) * 2]);
  const lon = pts.map((p) => p[0] * Math.cos(57 * Math.PI / 180)), lat = pts.map((p) => p[1]);
  const x0 = Math.min(...lon), x1 = Math.max(...lon), y0 = Math.min(...lat), y1 = Math.max(...lat);
  const sx = (MAP_W - 120) / (x1 - x0 || 1), sy = (MAP_H - 90) / (y1 - y0 || 1);
  const at = v.nodes.map((_, i) => [60 + (lon[i] - x0) * sx, 45 + (y1 - lat[i]) * sy]);
  const idx = new Map(v.nodes.map((n, i) => [n, i]));
  const z = mapZoom ?? 1;
  const root = svg("svg", { viewBox: `0 0 ${MAP_W} ${MAP_H}`, width: MAP_W * z, height: MAP_H * z, class: "kv-sea", role: "img", "aria-label": "the sea map" });
  root.append(svg("rect", { x: 0, y: 0, width: MAP_W, height: MAP_H, rx: 14, fill: "#bcdcf0" }));
  const routes = (v.map && v.map.routes) || [];
  for (const [a, b] of routes) {
    if (!idx.has(a) || !idx.has(b)) continue;
    const [ax, ay] = at[idx.get(a)], [bx, by2] = at[idx.get(b)];
    root.append(svg("line", { x1: ax, y1: ay, x2: bx, y2: by2, stroke: "#5b8db8", "stroke-width": 3, "stroke-dasharray": "7 5", "stroke-linecap": "round" }));
  }
  const ships = new Map();
  v.players.forEach((pl, p) => { if (!ships.has(pl.ship)) ships.set(pl.ship, []); ships.get(pl.ship).push(p); });
  v.nodes.forEach((n, i) => {
    const [x, y] = at[i];
    const kind = v.map ? v.map.kinds[i] : "location";
    const obstructed = v.map && v.map.obstructed[i];
    const stack = v.stacks[n];
    const site = v.sites[n] || [];
    const special = v.special_stacks && v.special_stacks[n];
    const tip = [n, kind === "sea" ? "open sea" : kind === "map" ? "map spot (needs the map)" : kind === "start" ? "the start harbour" : "a place",
      obstructed ? "in the yellow area: needs the map" : "", stack ? `${plural(stack.size, "tile")} to scout` : "",
      special ? `${special.size} special rune stones` : "", site.length ? `built by ${site.map((p) => name(ctx, p)).join(", ")}` : ""]
      .filter(Boolean).join(" · ");
    const g = svg("g", { class: `kv-place ${kind}`, "data-node": n },
      svg("circle", { cx: x, cy: y, r: 24, fill: "transparent", class: "kv-hit" }),
      kind === "sea" ? svg("circle", { cx: x, cy: y, r: 12, fill: "#e7f3fb", stroke: "#5b8db8", "stroke-width": 2 })
        : kind === "map" ? svg("rect", { x: x - 13, y: y - 13, width: 26, height: 26, rx: 4, fill: "#fff3bf", stroke: "#b08900", "stroke-width": 2 })
          : svg("circle", { cx: x, cy: y, r: 14, fill: obstructed ? "#fff3bf" : kind === "start" ? "#ffe8cc" : "#f8f1e0", stroke: "#6b4f2a", "stroke-width": 2 }),
      svg("text", { x, y: y + 30, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#1f3347" }, n),
      stack ? svg("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 11, fill: "#6b4f2a" }, String(stack.size)) : null);
    site.forEach((p, k) => g.append(svg("text", { x: x + 16 + k * 10, y: y - 12, "font-size": 11, fill: COLOUR[p], "font-weight": 800 }, SHAPE[p])));
    (ships.get(n) || []).forEach((p, k) => {
      const bx = x - 22 + k * 15, byy = y - 20;
      g.append(svg("path", { d: `M${bx - 7},${byy} L${bx + 7},${byy} L${bx + 4},${byy + 6} L${bx - 4},${byy + 6} Z M${bx},${byy} L${bx},${byy - 10} L${bx + 6},${byy - 4} Z`,
        fill: COLOUR[p], stroke: "#fff", "stroke-width": 1 }, svg("title", {}, `${name(ctx, p)}'s ship`)));
      g.append(svg("text", { x: bx, y: byy - 12, "text-anchor": "middle", "font-size": 9, "font-weight": 800, fill: COLOUR[p] }, String(p + 1)));
    });
    g.append(svg("title", {}, tip));
    const choice = by.get(`ship_to:${i}`) || by.get(`displace_to:${i}`);
    if (choice) {
      used.add(choice.id);
      g.classList.add("legal");
      g.setAttribute("data-action", choice.id);
      g.querySelector("title").textContent = `${choice.label} — ${tip}`;
      listen(g, "click", () => ctx.act(choice.id));
    }
    root.append(g);
  });
  const pan = el("div", { class: "kv-pan", id: "kv-map", "data-pan": "" }, root);  // the page keeps its scroll
  return el("div", { class: "kv-map-box", id: "kv-map-box" }, zoomBar(), pan);
}

// Zoom buttons for the map (a phone shows a part of it at its natural size): they resize the
// drawn map in place, no redraw; "whole map" fits it to the box's width.
function zoomBar() {
  const set = (f) => (e) => {
    const box = e.currentTarget.closest(".kv-map-box");
    const map = box.querySelector(".kv-sea");
    const fit = box.querySelector(".kv-pan").clientWidth / MAP_W;
    mapZoom = f === "fit" ? fit : Math.min(2, Math.max(Math.min(fit, 0.4), (mapZoom ?? 1) * f));
    map.setAttribute("width", MAP_W * mapZoom);
    map.setAttribute("height", MAP_H * mapZoom);
  };
  return el("div", { class: "kv-zoom" },
    el("button", { type: "button", onclick: set(1 / 1.25), title: "zoom out", "aria-label": "zoom the map out" }, "−"),
    el("button", { type: "button", onclick: set(1.25), title: "zoom in", "aria-label": "zoom the map in" }, "+"),
    el("button", { type: "button", onclick: set("fit"), title: "the whole map" }, "whole map"),
    el("span", { class: "kv-muted" }, "swipe or scroll to move the map"));
}

function warriors(war, pick) {
  const out = [];
  war.forEach((n, c) => {
    for (let i = 0; i < n; i++) {
      const chip = el("span", { class: `kv-war${c % 2 ? " hurt" : ""}`, title: `${c % 2 ? "injured" : "healthy"} warrior of strength ${(c >> 1) + 1}` },
        `${(c >> 1) + 1}${c % 2 ? "*" : ""}`);
      out.push(i === 0 && pick ? pick(chip, c) : chip);
    }
  });
  return out.length ? out : [el("span", { class: "kv-muted" }, "no warriors")];
}

// A player's board: goods, warriors, the two tracks of six spaces, ship slots, rune spots.
function board(pl, p, v, ctx, by, used) {
  const mine = p === ctx.seat;
  const pickWarrior = mine ? (chip, c) => clickable(chip, by.get(`warrior:${c}`), ctx, used) : null;
  const lane = (tiles, kind) => el("div", { class: "kv-lane", title: `${kind} track: spaces 1, 3 and 5 improve ${kind === "trade" ? "beer" : "provisions"}, 2 and 4 release buildings and more, 6 opens Francia` },
    el("span", { class: "kv-lane-name" }, kind), Array.from({ length: 6 }, (_, i) => {
      const t = tiles[i];
      const words = t !== undefined ? pl.tile_words[String(t)] || "a tile" : null;
      return el("span", { class: `kv-box${t !== undefined ? " full" : ""}`, title: words || `space ${i + 1}` }, words ? words.split(" ")[0] : String(i + 1));
    }));
  const slots = Object.entries(pl.slots).map(([slot, tiles]) => el("span", { class: `kv-slot${tiles.length ? " full" : ""}`, title: `${slot === "head" ? "figurehead" : slot} slot: ${tiles.length} tile${tiles.length === 1 ? "" : "s"}` }, slot === "head" ? "figurehead" : slot));
  const runes = pl.rune_spots.map((s, k) => {
    const spot = el("span", { class: `kv-rune${s.length ? " full" : ""}`, title: `rune spot ${k + 1}: ${s.length} stone${s.length === 1 ? "" : "s"}` }, s.length ? "◆" : "○");
    return mine ? clickable(spot, by.get(`rune_spot:${k}`), ctx, used) : spot;
  });
  return el("div", {
    class: `kv-player${p === v.to_move ? " to-move" : ""}${p === ctx.seat ? " me" : ""}`, "data-player": p, style: `--c:${COLOUR[p]}`,
  },
    el("div", {}, el("span", { class: "kv-who" }, SHAPE[p]), el("strong", {}, name(ctx, p)), ` · ${plural(pl.points, "point")}`,
      v.over ? el("span", { class: "kv-place" }, ` place ${ctx.ranking ? ctx.ranking[p] : ""}`) : null),
    el("div", { class: "kv-goods" },
      el("span", { class: "kv-good fur", title: "fur" }, `fur ${pl.fur}`), el("span", { class: "kv-good silver", title: "silver" }, `silver ${pl.silver}`),
      el("span", { class: "kv-good gold", title: "gold" }, `gold ${pl.gold}`),
      el("span", { class: "kv-good", title: "provisions (at most 6)" }, `provisions ${pl.provisions}`),
      el("span", { class: "kv-good", title: "upgrade cards in hand" }, `cards ${Object.values(pl.hand_backs).reduce((a, b) => a + b, 0)}`),
      el("span", { class: "kv-good", title: "towers and trading posts in the supply, ready to build" }, `towers ${pl.towers.supply} · posts ${pl.posts.supply}`)),
    el("div", {}, `strength ${pl.strength} `, warriors(pl.warriors, pickWarrior)),
    lane(pl.trade_track, "trade"), lane(pl.raid_track, "raid"),
    pl.trade_cards.length ? el("div", { class: "kv-small" }, "trade cards: ", pl.trade_cards.map((x) => tradeCard(v, x))) : null,
    el("div", { class: "kv-small" }, "ship: ", slots, " · runes: ", runes,
      pl.beside.length ? [" · beside the board: ", ...pl.beside.map((x) => {
        const words = pl.tile_words[String(x)] || "a tile";
        return el("span", { class: "kv-tile", title: words }, words.replace(/ \(.*$/, ""));
      })] : null,
      ` · at ${pl.ship}`));
}

export function render(root, ctx) {
  const v = ctx.view;
  const by = legalIndex(ctx);
  const used = new Set();
  const track = trackView(v, ctx, by, used);
  const sea = mapView(v, ctx, by, used);
  const players = el("div", { class: "kv-players", id: "kv-players" }, v.players.map((pl, p) => board(pl, p, v, ctx, by, used)));
  const supply = supplyView(v, ctx, by, used);
  const me = ctx.seat !== null && ctx.seat !== undefined ? v.players[ctx.seat] : null;
  const mine = me && me.hand_text ? handView(me, ctx, by, used) : null;
  const rest = ctx.legal.filter((c) => !used.has(c.id));
  const choices = rest.length ? el("div", { class: "kv-choices", id: "kv-choices" },
    el("b", {}, v.decision ? "Choose:" : "Your turn:"),
    rest.map((c) => el("button", { class: "kv-choice", "data-action": c.id, title: c.label, onclick: () => ctx.act(c.id) }, c.label))) : null;
  root.replaceChildren(el("div", { class: "kv-board" },
    el("div", { class: "kv-header" }, `Round ${v.round} of ${v.rounds}`, v.over ? " · game over" : "",
      v.to_move !== null && v.to_move !== undefined ? ` · ${name(ctx, v.to_move)} to move` : ""),
    choices, track, sea, supply, players, mine));
}

// A trade card as a chip that says what it does ("+3 provisions"); its number in the tooltip.
function tradeCard(v, x) {
  const words = (v.trade_card_words && v.trade_card_words[String(x)]) || `trade card ${x + 1}`;
  const what = words.replace(/^trade card \d+ \((.*)\)$/, "$1");
  return el("span", { class: "kv-tcard", "data-trade-card": x, title: words },
    el("span", { class: "kv-tcard-no" }, `#${x + 1}`), ` ${what}`);
}

// The face-up trade cards and the three upgrade-card stacks.
function supplyView(v, ctx, by, used) {
  const TYPES = ["helmet", "beer", "ship"];
  return el("div", { class: "kv-supply", id: "kv-supply" },
    el("b", {}, "Trade cards:"),
    v.display.map((x) => clickable(tradeCard(v, x), by.get(`trade_card:${x}`), ctx, used)),
    el("span", { class: "kv-muted" }, ` (${v.trade_deck} in the deck)`),
    el("b", {}, " Upgrade cards:"),
    TYPES.map((t, i) => clickable(el("span", { class: `kv-stack ${t}`, "data-stack": t, title: `${t} cards: ${v.upgrade_decks[i].length} left` },
      `${t} ${v.upgrade_decks[i].length}`), by.get(`draw_stack:${i}`), ctx, used)));
}

// Your hand (play, discard or keep each card where it lies) and your face-down tiles.
function handView(me, ctx, by, used) {
  const act = (c, a, text) => {
    const choice = by.get(`${a}:${c}`);
    return choice ? clickable(el("button", { class: "kv-on-card" }, text), choice, ctx, used) : null;
  };
  const cards = me.hand.map((c, i) => el("div", { class: "kv-card", "data-card": c },
    el("span", {}, me.hand_text[i]), act(c, "play_card", "play"), act(c, "discard", "discard"), act(c, "keep", "keep")));
  const tiles = me.tiles_text.map((t, i) => {
    const x = me.tile_ids ? me.tile_ids[i] : null;
    return el("div", { class: "kv-card tile", "data-tile": x ?? i }, el("span", {}, t),
      x !== null ? act(x, "place_tile", "place") : null, x !== null ? act(x, "pick", "keep") : null);
  });
  return el("div", { class: "kv-mine", id: "kv-mine" },
    el("b", {}, "Your hand: "), cards.length ? cards : "—",
    el("b", {}, "Face down above your board: "), tiles);
}

export const css = `
.kv-board { display: grid; gap: .6rem; min-width: 0; }
.kv-header { font-weight: 700; padding: .35rem .7rem; border-radius: 8px; background: #e7eef7; }
.kv-row { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 1fr); gap: .6rem; }
.kv-track, .kv-stop { display: grid; gap: .25rem; align-content: start; }
.kv-track { grid-template-columns: repeat(5, minmax(0, 1fr)); column-gap: .8rem; row-gap: .7rem; list-style: none; margin: 0; padding: 0; }
.kv-track > .kv-spot { grid-row: var(--r5); grid-column: var(--c5); position: relative; }
.kv-track > .kv-spot::after { position: absolute; color: #8a5a00; font-weight: 800; font-size: .9rem; pointer-events: none; }
.kv-track > [data-next5=right]::after { content: "→"; right: -.75rem; top: 40%; }
.kv-track > [data-next5=left]::after { content: "←"; left: -.75rem; top: 40%; }
.kv-track > [data-next5=down]::after { content: "↓"; bottom: -.8rem; left: 45%; }
.kv-no { display: inline-grid; place-items: center; min-width: 1.3rem; height: 1.3rem; border-radius: 50%; background: #8a5a00; color: #fff; font-size: .7rem; }
.kv-spot { display: grid; gap: .1rem; padding: .3rem; border: 1px solid #cfd6df; border-radius: 7px; background: #fff; font-size: .8rem; min-height: 3.4rem; overflow-wrap: anywhere; }
.kv-spot.blocked { background: repeating-linear-gradient(45deg, #eee, #eee 6px, #ddd 6px, #ddd 12px); opacity: .6; }
.kv-spot.stop { background: #f6f1e6; min-height: 2.6rem; }
.kv-spot.legal { cursor: pointer; border-color: #d4a300; box-shadow: 0 0 0 3px #ffd85c; }
.kv-cost { font-weight: 700; color: #8a5a00; }
.kv-die { display: inline-grid; place-items: center; min-width: 1.6rem; height: 1.4rem; padding: 0 .15rem; border-radius: 4px; background: var(--c); color: #fff; font-weight: 800; margin-right: .15rem; font-size: .75rem; }
.kv-die.done { opacity: .55; }
.kv-pan { max-width: 100%; max-height: 70vh; overflow: auto; border-radius: 14px; }
.kv-map-box { display: grid; gap: .3rem; min-width: 0; }
.kv-zoom { display: flex; gap: .3rem; align-items: center; flex-wrap: wrap; font-size: .8rem; }
.kv-zoom button { min-width: 40px; min-height: 40px; }
.kv-tcard-no { font-size: .7rem; color: #8a7350; }
.kv-tile { display: inline-block; padding: 0 .3rem; margin-right: .15rem; border-radius: 4px; background: #f1ecdf; }
.kv-sea { display: block; }
.kv-place.legal { cursor: pointer; }
.kv-sea text { pointer-events: none; }
.kv-place.legal circle:not(.kv-hit), .kv-place.legal rect { stroke: #e67700; stroke-width: 4; }
.kv-place.legal .kv-hit { fill: rgba(255, 216, 92, .45); }
.kv-players { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 280px), 1fr)); gap: .4rem; }
.kv-player { padding: .4rem .6rem; border-left: 6px solid var(--c); border-radius: 7px; background: #fff; font-size: .85rem; display: grid; gap: .2rem; }
.kv-player.to-move { box-shadow: 0 0 0 2px #ffd85c; } .kv-player.me { background: #eef6f0; }
.kv-who { color: var(--c); margin-right: .3rem; }
.kv-goods { display: flex; gap: .3rem; flex-wrap: wrap; }
.kv-good { padding: 0 .35rem; border-radius: 4px; background: #f1ecdf; font-size: .78rem; }
.kv-good.fur { background: #f3d9c4; } .kv-good.silver { background: #e3e7ec; } .kv-good.gold { background: #ffe8a3; }
.kv-lane { display: flex; gap: .15rem; align-items: center; }
.kv-lane-name { width: 2.8rem; color: #6b7280; font-size: .75rem; }
.kv-box { min-width: 1.5rem; height: 1.5rem; padding: 0 .15rem; display: inline-grid; place-items: center; border: 1px solid #c7cdd4; border-radius: 4px; font-size: .7rem; color: #9aa3ad; }
.kv-box.full { background: var(--c); color: #fff; border-color: var(--c); }
.kv-slot, .kv-rune { display: inline-block; padding: 0 .3rem; margin-right: .15rem; border: 1px dashed #aab; border-radius: 4px; font-size: .75rem; }
.kv-slot.full, .kv-rune.full { border-style: solid; background: #f1ecdf; }
.kv-small { font-size: .78rem; color: #4b5563; }
.kv-war { display: inline-block; min-width: 1.5rem; text-align: center; border-radius: 3px; background: #1c7ed6; color: #fff; margin-right: .1rem; font-size: .75rem; }
.kv-war.hurt { background: #e03131; border: 1px dashed #fff; }
.kv-muted { color: #6b7280; } .kv-place { color: #2f6f4f; font-weight: 700; }
.kv-mine { display: grid; gap: .2rem; font-size: .8rem; } .kv-card { padding: .15rem .4rem; border-radius: 5px; background: #f3efe4; }
.kv-supply { display: flex; gap: .3rem; flex-wrap: wrap; align-items: center; font-size: .8rem; }
.kv-tcard, .kv-stack { padding: .15rem .45rem; border-radius: 5px; border: 1px solid #c9b88f; background: #fbf6ea; }
.kv-stack.helmet { background: #e8edf3; } .kv-stack.beer { background: #fff1cc; } .kv-stack.ship { background: #e3f1fb; }
.kv-card { display: flex; gap: .3rem; align-items: center; flex-wrap: wrap; }
.kv-card > span { flex: 1 1 12rem; }
.kv-on-card { padding: .1rem .5rem; border-radius: 6px; border: 1px solid #c9a227; background: #fff8dc; cursor: pointer; font-size: .78rem; }
.kv-die.legal, .kv-war.legal, .kv-rune.legal, .kv-tcard.legal, .kv-stack.legal, .kv-on-card.legal { cursor: pointer; box-shadow: 0 0 0 3px #ffd85c; }
.kv-choices { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; }
.kv-choice { white-space: normal; max-width: 100%; text-align: left; min-height: 40px; padding: .2rem .5rem; border-radius: 6px; border: 1px solid #c9a227; background: #fff8dc; cursor: pointer; font-size: .8rem; }
@media (max-width: 600px) {
  .kv-row { grid-template-columns: minmax(0, 1fr); }
  .kv-track { grid-template-columns: repeat(3, minmax(0, 1fr)); }
  .kv-track > .kv-spot { grid-row: var(--r3); grid-column: var(--c3); }
  .kv-track > [data-next5]::after { content: none; }
  .kv-track > [data-next3=right]::after { content: "→"; right: -.75rem; top: 40%; left: auto; bottom: auto; }
  .kv-track > [data-next3=left]::after { content: "←"; left: -.75rem; top: 40%; right: auto; bottom: auto; }
  .kv-track > [data-next3=down]::after { content: "↓"; bottom: -.8rem; left: 45%; top: auto; right: auto; }
  .kv-stop { grid-template-columns: repeat(3, minmax(0, 1fr)); }
  .kv-stop > b { grid-column: 1 / -1; }
  .kv-spot { min-height: 44px; }
  .kv-die.legal, .kv-war.legal, .kv-rune.legal, .kv-tcard.legal, .kv-stack.legal, .kv-on-card.legal { min-width: 40px; min-height: 40px; display: inline-grid; place-items: center; }
}
`;
