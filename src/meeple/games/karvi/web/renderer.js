// Karvi in the browser: the action track with the dice, the stop area, the sea map with ships
// and buildings, every tableau, your hand, and every legal choice clickable on the board (track
// spots and map spots where they apply, a button for the rest). Follows src/meeple/web/renderer.js.

const COLOUR = ["#2f9e44", "#1c7ed6", "#f08c00", "#9c36b5"];

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined && k !== false) e.append(k instanceof Node ? k : String(k));
  return e;
}
const name = (ctx, p) => (ctx.seats && ctx.seats[p] && ctx.seats[p].name) || `Seat ${p + 1}`;

function part(steps) {
  return steps.map((s) => (s[0] === "action" ? s[1] : s.length > 1 ? `${s[0].replace("_", " ")} ${s[1]}` : s[0])).join(" + ");
}
const spotText = (sp) => sp.parts.map(part).join(` ${sp.join} `);

function die(d) {
  return el("span", { class: `kv-die${d.done ? " done" : ""}`, style: `--c:${COLOUR[d.player]}`, title: `beer ${d.beer}` }, String(d.beer));
}

function warriors(war) {
  const out = [];
  war.forEach((n, c) => { for (let i = 0; i < n; i++) out.push(el("span", { class: `kv-war${c % 2 ? " hurt" : ""}` }, String((c >> 1) + 1))); });
  return out.length ? out : [el("span", { class: "kv-muted" }, "no warriors")];
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
  node.title = choice.label;
  node.addEventListener("click", () => ctx.act(choice.id));
  return node;
}

// "part 1" / "box 0" name the option printed on the spot or card being resolved.
function label(c, v) {
  const j = c.json || {};
  const opts = v.decision && v.decision.options;
  if (opts && (j.a === "part" || j.a === "box") && opts[j.x]) return part(opts[j.x]);
  if ((j.a === "die" || j.a === "gold_beer") && v.dice[j.x]) {
    const d = v.dice[j.x];
    const where = d.pos >= v.track.length ? "stop area" : `spot ${d.pos}`;
    return `${j.a === "gold_beer" ? "1 gold → +1 beer on " : ""}die ${j.x} (${d.beer} beer, ${where})`;
  }
  return c.label;
}

export function render(root, ctx) {
  const v = ctx.view;
  const by = legalIndex(ctx);
  const used = new Set();
  const diceAt = new Map();
  v.dice.forEach((d) => { if (!diceAt.has(d.pos)) diceAt.set(d.pos, []); diceAt.get(d.pos).push(d); });

  const track = el("div", { class: "kv-track" }, v.track.map((sp, i) => clickable(
    el("div", { class: `kv-spot${sp.blocked ? " blocked" : ""}`, "data-spot": i },
      el("span", { class: "kv-cost" }, `${sp.cost} beer`), el("span", { class: "kv-label" }, spotText(sp)),
      el("span", { class: "kv-dice" }, (diceAt.get(i) || []).map(die))),
    by.get(`move_die:${i}`) || by.get(`spot:${i}`), ctx, used)));
  const T = v.track.length;
  const stop = el("div", { class: "kv-stop" }, el("b", {}, `Stop area (${v.stop_tiles_left} tiles left)`),
    v.stop_area.map((sp, k) => clickable(
      el("div", { class: "kv-spot stop", "data-spot": T + k },
        el("span", { class: "kv-cost" }, `${k + 1}`), el("span", { class: "kv-label" }, spotText(sp)),
        el("span", { class: "kv-dice" }, (diceAt.get(T + k) || []).map(die))),
      by.get(`move_die:${T + k}`) || by.get(`spot:${T + k}`), ctx, used)));

  const ships = new Map();
  v.players.forEach((pl, p) => { if (!ships.has(pl.ship)) ships.set(pl.ship, []); ships.get(pl.ship).push(p); });
  const sea = el("div", { class: "kv-map" }, v.nodes.map((n, i) => {
    const stack = v.stacks[n];
    const site = v.sites[n];
    const node = el("div", { class: "kv-node", "data-node": n },
      el("b", {}, n),
      stack ? el("span", { class: "kv-muted" }, ` ${stack.size} tiles`) : null,
      site && site.length ? el("span", {}, " built:", site.map((p) => el("span", { class: "kv-dot", style: `background:${COLOUR[p]}` }))) : null,
      (ships.get(n) || []).map((p) => el("span", { class: "kv-ship", style: `--c:${COLOUR[p]}` }, "▲")));
    return clickable(node, by.get(`ship_to:${i}`) || by.get(`displace_to:${i}`), ctx, used);
  }));

  const players = el("div", { class: "kv-players" }, v.players.map((pl, p) => el("div", {
    class: `kv-player${p === v.to_move ? " to-move" : ""}${p === ctx.seat ? " me" : ""}`, "data-player": p, style: `--c:${COLOUR[p]}`,
  },
    el("div", {}, el("strong", {}, name(ctx, p)), ` · ${pl.points} pts`, v.over ? el("span", { class: "kv-place" }, ` place ${ctx.ranking ? ctx.ranking[p] : ""}`) : null),
    el("div", { class: "kv-muted" }, `fur ${pl.fur} · silver ${pl.silver} · gold ${pl.gold} · provisions ${pl.provisions} · ship at ${pl.ship}`),
    el("div", {}, "strength ", el("b", {}, String(pl.strength)), " ", warriors(pl.warriors)),
    el("div", { class: "kv-muted" }, `trade ${pl.trade_track.length}/6 · raid ${pl.raid_track.length}/6 · tiles beside ${pl.beside.length} · cards ${Object.values(pl.hand_backs).reduce((a, b) => a + b, 0)}`))));

  const rest = ctx.legal.filter((c) => !used.has(c.id));
  const choices = rest.length ? el("div", { class: "kv-choices" },
    el("b", {}, v.decision ? `Choose (${v.decision.kind.replace("_", " ")}):` : "Your turn:"),
    rest.map((c) => el("button", { class: "kv-choice", "data-action": c.id, onclick: () => ctx.act(c.id) }, label(c, v)))) : null;

  const me = ctx.seat !== null && ctx.seat !== undefined ? v.players[ctx.seat] : null;
  const mine = me && me.hand_text ? el("div", { class: "kv-mine" },
    el("b", {}, "Your hand: "), me.hand_text.length ? me.hand_text.map((t) => el("div", { class: "kv-card" }, t)) : "—",
    el("b", {}, "Face down above your tableau: "), me.tiles_text.map((t) => el("div", { class: "kv-card" }, t))) : null;

  root.replaceChildren(el("div", { class: "kv-board" },
    el("div", { class: "kv-header" }, `Round ${v.round} of ${v.rounds}`, v.over ? " · game over" : "",
      v.to_move !== null && v.to_move !== undefined ? ` · ${name(ctx, v.to_move)} to move` : ""),
    choices, el("div", { class: "kv-row" }, track, stop), sea, players, mine));
}

export const css = `
.kv-board { display: grid; gap: .6rem; }
.kv-header { font-weight: 700; padding: .35rem .7rem; border-radius: 8px; background: #e7eef7; }
.kv-row { display: grid; grid-template-columns: 3fr 1fr; gap: .6rem; }
.kv-track, .kv-stop { display: grid; gap: .25rem; align-content: start; }
.kv-track { grid-template-columns: repeat(5, 1fr); }
.kv-spot { display: grid; gap: .1rem; padding: .3rem; border: 1px solid #cfd6df; border-radius: 7px; background: #fff; font-size: .8rem; min-height: 3.4rem; }
.kv-spot.blocked { background: repeating-linear-gradient(45deg, #eee, #eee 6px, #ddd 6px, #ddd 12px); opacity: .6; }
.kv-spot.stop { background: #f6f1e6; min-height: 2.4rem; }
.kv-spot.legal, .kv-node.legal { cursor: pointer; border-color: #d4a300; box-shadow: 0 0 0 2px #ffd85c; }
.kv-cost { font-weight: 700; color: #8a5a00; }
.kv-die { display: inline-grid; place-items: center; width: 1.3rem; height: 1.3rem; border-radius: 4px; background: var(--c); color: #fff; font-weight: 800; margin-right: .15rem; }
.kv-die.done { opacity: .55; }
.kv-map { display: flex; flex-wrap: wrap; gap: .3rem; padding: .5rem; border-radius: 10px; background: #d0e6f5; }
.kv-node { padding: .2rem .45rem; border-radius: 6px; background: #fff; font-size: .8rem; border: 1px solid #a9c6dd; }
.kv-ship { color: var(--c); margin-left: .15rem; } .kv-dot { display: inline-block; width: .6rem; height: .6rem; border-radius: 50%; margin-left: .1rem; }
.kv-players { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: .4rem; }
.kv-player { padding: .4rem .6rem; border-left: 5px solid var(--c); border-radius: 7px; background: #fff; font-size: .85rem; }
.kv-player.to-move { box-shadow: 0 0 0 2px #ffd85c; } .kv-player.me { background: #eef6f0; }
.kv-war { display: inline-block; min-width: 1.1rem; text-align: center; border-radius: 3px; background: #1c7ed6; color: #fff; margin-right: .1rem; font-size: .75rem; }
.kv-war.hurt { background: #e03131; }
.kv-muted { color: #6b7280; } .kv-place { color: #2f6f4f; font-weight: 700; }
.kv-mine { display: grid; gap: .2rem; font-size: .8rem; } .kv-card { padding: .15rem .4rem; border-radius: 5px; background: #f3efe4; }
.kv-choices { display: flex; flex-wrap: wrap; gap: .3rem; align-items: center; }
.kv-choice { padding: .2rem .5rem; border-radius: 6px; border: 1px solid #c9a227; background: #fff8dc; cursor: pointer; font-size: .8rem; }
`;
