// Savage Bowl in the browser: the players with their tricks toward the exact target, the Yellow
// Card and the Runaway Champ cards, the trick (Chameleon plays show the colour they copied), the
// Game Progress Sheet (discards face down, your own face up) and your hand. Legal cards are
// clickable; a "Chameleon" toggle switches your clicks to "play with the Chameleon".
// Follows the interface in src/meeple/web/renderer.js.
import { h as el } from "/static/common.js";

// Each colour has a symbol too, so colour-blind players can tell the cards apart.
const COLOUR = {
  red: { fill: "#d94f3d", ink: "#fff", name: "Red", sym: "●" },
  blue: { fill: "#2f7de1", ink: "#fff", name: "Blue", sym: "★" },
  green: { fill: "#2faa5e", ink: "#fff", name: "Green", sym: "◆" },
  purple: { fill: "#8e44c9", ink: "#fff", name: "Purple", sym: "♥" },
  trump: { fill: "#222", ink: "#ffd43b", name: "Trump", sym: "♛" },
};
const colourOf = (c) => COLOUR[c] || { fill: "#888", ink: "#fff", name: c, sym: "" };

const name = (ctx, p) => (ctx.seats && ctx.seats[p] && ctx.seats[p].name) || `Seat ${p + 1}`;

function card(c, opts = {}) {
  const k = colourOf(opts.as || c.colour);
  const classes = ["sb-card"];
  if (opts.legal) classes.push("legal");
  if (opts.dim) classes.push("dim");
  if (c.colour === "trump") classes.push("trump");
  return el("div", {
    class: classes.join(" "), "data-card": c.code, "data-action": opts.action, onclick: opts.onclick,
    style: `--fill:${colourOf(c.colour).fill};--ink:${colourOf(c.colour).ink}`,
    title: `${colourOf(c.colour).name} ${c.number}${opts.as && opts.as !== c.colour ? ` played as ${k.name}` : ""}`,
  },
    el("span", { class: "sb-corner" }, String(c.number)),
    el("span", { class: "sb-number" }, String(c.number)),
    el("span", { class: "sb-colour" }, `${colourOf(c.colour).sym} ${colourOf(c.colour).name}`),
    opts.cham !== undefined ? el("button", {
      class: "sb-cham", "data-action": opts.cham, title: `play ${colourOf(c.colour).name} ${c.number} with your Chameleon (it takes the colour of the card before)`,
      "aria-label": `play ${colourOf(c.colour).name} ${c.number} with the Chameleon`,
      onclick: (e) => { e.stopPropagation(); opts.onCham(); },
    }, "C") : null,
    opts.as ? el("span", { class: "sb-as", style: `--as:${k.fill};--asink:${k.ink}` }, `as ${k.name}`) : null);
}

function back(label) {
  return el("div", { class: "sb-card back", title: label }, el("span", { class: "sb-colour" }, label));
}

function players(v, ctx) {
  return el("div", { class: "sb-players" }, v.points.map((pts, p) => {
    const tags = [];
    if (v.eliminated[p]) tags.push(el("span", { class: "sb-tag out", title: "won one trick too many: out of this round, 0 points" }, "✖ eliminated"));
    if (v.yellow_card === p) tags.push(el("span", { class: "sb-tag yellow", title: "played the strongest card: discards face down and sits out the next trick" }, "▮ Yellow Card"));
    if (v.sitting_out === p) tags.push(el("span", { class: "sb-tag", title: "holds the Yellow Card: plays no card in this trick" }, "sits out this trick"));
    if (v.options.chameleons && v.chameleon_unused[p]) tags.push(el("span", { class: "sb-tag cham" }, "Chameleon"));
    for (const ch of v.runaway_champ) if (ch.player === p) tags.push(el("span", { class: "sb-tag champ" }, `Champ +${ch.value}`));
    const won = v.tricks_won[p];
    return el("div", {
      class: `sb-player${p === v.to_move ? " to-move" : ""}${p === ctx.seat ? " me" : ""}${v.eliminated[p] ? " ejected" : ""}`,
      "data-player": p,
    },
      el("strong", {}, name(ctx, p)),
      el("span", { class: "sb-pts" }, `${pts} pt${pts === 1 ? "" : "s"}`),
      el("span", { class: `sb-tricks${won === v.target ? " exact" : won > v.target ? " over" : ""}`, title: `tricks won against the target of exactly ${v.target}` },
        Array.from({ length: Math.max(v.target, won) }, (_, i) => el("span", { class: `sb-pip${i < won ? " won" : ""}${i >= v.target ? " extra" : ""}` })), ` ${won}/${v.target}`),
      el("span", { class: "sb-muted" }, `${v.hand_sizes[p]} card${v.hand_sizes[p] === 1 ? "" : "s"}`),
      ...tags,
      v.over ? el("span", { class: "sb-place" }, `place ${v.ranking[p]}`) : null);
  }));
}

function sheet(v) {
  const slots = [];
  for (let t = 1; t <= 5; t++) {
    const d = v.progress_sheet.find((x) => x.trick === t);
    slots.push(el("div", { class: "sb-slot", "data-slot": t },
      el("span", { class: "sb-muted" }, `#${t}`),
      d ? (d.card ? card({ code: d.card, colour: d.card.replace(/\d+$/, ""), number: Number(d.card.match(/\d+$/)[0]) })
        : back("face down")) : el("div", { class: "sb-card empty" })));
  }
  return el("div", { class: "sb-sheet", "aria-label": "game progress sheet" }, el("h4", {}, "Progress sheet"), el("div", { class: "sb-slots" }, slots));
}

export function render(root, ctx) {
  const v = ctx.view;
  const plays = new Map();
  const chams = new Map();
  const discards = new Map();
  for (const c of ctx.legal) {
    const j = c.json || {};
    if (j.discard) discards.set(j.discard, c.id);
    else if (j.play && j.chameleon) chams.set(j.play, c.id);
    else if (j.play) plays.set(j.play, c.id);
  }
  const discarding = discards.size > 0;
  const pick = discarding ? discards : plays;

  const header = el("div", { class: `sb-header ${v.half}` },
    el("span", {}, `Round ${v.round} of ${v.rounds}`),
    el("span", {}, `Trick ${v.trick_number} of ${v.tricks_per_round}`),
    el("span", { class: "sb-half" }, v.half === "first" ? "First half: the 2nd strongest wins, the strongest is carded" : "Second half: the strongest wins"),
    el("span", {}, `Target: exactly ${v.target}`),
    v.lead_colour ? el("span", {}, `Lead: ${colourOf(v.lead_colour).name}`) : null);

  // The trick being played; between tricks, the one just finished (until the next card).
  const played = (t) => el("div", { class: "sb-played", "data-played": t.player },
    card(t, { as: t.chameleon ? t.as : null }), el("span", {}, name(ctx, t.player)));
  const last = v.last_trick;
  const waiting = v.over ? "Game over"
    : v.phase === "discard" ? `${name(ctx, v.to_move)} got the Yellow Card and discards` : "No card played yet";
  const trick = v.trick.length ? el("div", { class: "sb-trick" }, v.trick.map(played))
    : last ? el("div", { class: "sb-trick last", "data-last-trick": "" },
      el("div", { class: "sb-last-title" }, `Last trick: ${name(ctx, last.winner)} took it`, v.phase === "discard" && !v.over ? ` · ${waiting}` : ""),
      last.cards.map((t) => el("div", { class: `sb-played${t.player === last.winner ? " winner" : ""}`, "data-last": t.player },
        card(t, { as: t.chameleon ? t.as : null }), el("span", {}, name(ctx, t.player)))))
      : el("div", { class: "sb-trick" }, el("div", { class: "sb-empty" }, waiting));

  const myTurn = ctx.legal.length > 0;
  let hand = null;
  if (v.hand) {
    hand = el("div", { class: "sb-hand", "aria-label": "your hand" }, v.hand.map((c) => {
      const id = pick.get(c.code);
      const legal = id !== undefined;
      const cham = discarding ? undefined : chams.get(c.code);
      return card(c, {
        legal: legal || cham !== undefined, dim: myTurn && !legal && cham === undefined, action: legal ? id : null,
        onclick: legal ? () => ctx.act(id) : null, cham, onCham: () => ctx.act(cham),
      });
    }));
  }
  const toggle = chams.size && !discarding ? el("p", { class: "sb-muted" }, "The green C on a card plays it with your Chameleon (it takes the colour of the card played before it).") : null;

  const title = v.set_aside ? "Your hand (set aside: you are ejected this round)"
    : discarding ? "Yellow Card: discard a card face down" : myTurn ? "Your hand: pick a card" : "Your hand";
  root.replaceChildren(el("div", { class: "sb-board" },
    header, players(v, ctx),
    el("div", { class: "sb-table" }, el("div", { class: "sb-felt" }, trick), sheet(v)),
    hand ? el("div", { class: "sb-hand-box" }, el("h4", {}, title), toggle, hand)
      : el("p", { class: "sb-muted" }, ctx.seat === null || ctx.seat === undefined ? "Watching: hands, discards and won tricks are hidden." : "")));
}

export const css = `
.sb-cham { position: absolute; top: 2px; right: 2px; width: 28px; height: 28px; padding: 0; border-radius: 50%; border: 2px solid #2faa5e; background: #efffed; color: #1b7a3c; font-weight: 800; font-size: 14px; cursor: pointer; }
.sb-pip { display: inline-block; width: .7rem; height: .7rem; border-radius: 50%; border: 2px solid #2f6f4f; margin-right: 2px; vertical-align: middle; }
.sb-pip.won { background: #2f6f4f; } .sb-pip.extra { border-color: #c92a2a; background: #c92a2a; }
.sb-board { display: grid; grid-template-columns: minmax(0, 1fr); gap: .7rem; }
.sb-header { display: flex; gap: 1rem; flex-wrap: wrap; align-items: center; font-weight: 600; padding: .4rem .8rem; border-radius: 8px; }
.sb-header.first { background: #fff3bf; color: #5c4400; } .sb-header.second { background: #ffe3e3; color: #6b1010; }
.sb-half { font-weight: 400; font-style: italic; }
.sb-players { display: flex; gap: .5rem; flex-wrap: wrap; }
.sb-player { display: flex; gap: .4rem; align-items: center; flex-wrap: wrap; padding: .25rem .6rem; border: 1px solid #ddd6c6; border-radius: 8px; background: #fff; }
.sb-player.to-move { box-shadow: 0 0 0 2px #ffd85c; border-color: #d4a300; }
.sb-player.me { background: #e8f2ec; } .sb-player.ejected { opacity: .6; }
.sb-pts { font-weight: 700; } .sb-muted { color: #7a7466; font-size: .85rem; }
.sb-tricks.exact { color: #2f6f4f; font-weight: 700; } .sb-tricks.over { color: #c92a2a; font-weight: 700; }
.sb-tag { font-size: .75rem; padding: 0 .35rem; border-radius: 4px; background: #eee; }
.sb-tag.yellow { background: #ffd43b; } .sb-tag.out { background: #c92a2a; color: #fff; } .sb-tag.champ { background: #74c0fc; } .sb-tag.cham { background: #d3f9d8; }
.sb-place { font-weight: 700; color: #2f6f4f; }
.sb-table { display: grid; grid-template-columns: 1fr auto; gap: .7rem; }
.sb-felt { border-radius: 14px; min-height: 150px; display: grid; place-items: center; padding: .8rem; background: radial-gradient(circle at 50% 30%, #5a9a3c, #2f5e1e); }
.sb-trick { display: flex; gap: 1rem; flex-wrap: wrap; justify-content: center; }
.sb-played { display: grid; justify-items: center; gap: .25rem; color: #fff; font-size: .85rem; }
.sb-empty { color: #e3efe8; font-style: italic; }
.sb-trick.last .sb-last-title { flex-basis: 100%; text-align: center; color: #e3efe8; font-style: italic; }
.sb-trick.last .sb-played { opacity: .8; }
.sb-trick.last .sb-played.winner { opacity: 1; } .sb-trick.last .sb-played.winner .sb-card { box-shadow: 0 0 0 3px #ffd43b; }
.sb-sheet h4 { margin: 0 0 .3rem; } .sb-slots { display: grid; grid-template-columns: repeat(5, auto); gap: .3rem; }
.sb-slot { display: grid; justify-items: center; gap: .15rem; }
.sb-slot .sb-card { transform: scale(.7); margin: -14px -10px; }
.sb-hand-box h4 { margin: .2rem 0 .4rem; }
.sb-hand { display: flex; flex-wrap: wrap; gap: .45rem; margin-top: .4rem; }
.sb-cham-toggle { padding: .25rem .7rem; border-radius: 6px; border: 1px solid #2b8a3e; background: #fff; cursor: pointer; }
.sb-cham-toggle.on { background: #2b8a3e; color: #fff; }
.sb-card { position: relative; width: 58px; height: 88px; border-radius: 9px; background: var(--fill); color: var(--ink); border: 2px solid rgba(0,0,0,.25);
  display: grid; place-items: center; box-shadow: 0 2px 4px rgba(0,0,0,.25); user-select: none; transition: transform .08s; }
.sb-card.trump { border-color: #ffd43b; }
.sb-card .sb-corner { position: absolute; top: 3px; left: 6px; font-weight: 800; font-size: .85rem; }
.sb-card .sb-number { font-size: 1.7rem; font-weight: 800; }
.sb-card .sb-colour { position: absolute; bottom: 4px; font-size: .65rem; }
.sb-card .sb-as { position: absolute; top: -10px; right: -10px; font-size: .65rem; padding: 0 .25rem; border-radius: 4px; background: var(--as); color: var(--asink); border: 1px solid #fff; }
.sb-card.back { background: repeating-linear-gradient(45deg, #6b4f2a, #6b4f2a 6px, #82643a 6px, #82643a 12px); color: #fff; }
.sb-card.empty { background: transparent; border: 2px dashed #bbb; box-shadow: none; }
.sb-card.legal { cursor: pointer; transform: translateY(-6px); border-color: #d4a300; box-shadow: 0 0 0 3px #ffd85c, 0 4px 8px rgba(0,0,0,.3); }
.sb-card.legal:hover { transform: translateY(-10px); }
.sb-card.dim { opacity: .45; }
/* Phones: the board is one column no wider than the screen (a grid column would otherwise grow to
   its widest content and push the hand's last card off the edge), the progress sheet goes under
   the trick, and the hand keeps room on its right for the Chameleon buttons that stick out. */
@media (max-width: 600px) { .sb-cham { width: 40px; height: 40px; top: -8px; right: -8px; } .sb-card { margin: 6px 4px 0 0; }
  .sb-table { grid-template-columns: minmax(0, 1fr); } .sb-hand { padding-right: 10px; } }
`;
