// Scarvus (Knizia's Icarus) in the browser: the colours still in play with their decks, discards
// and your card; the bid marker; every player's feathers or Lives, revealed cards and Flight
// cards; a bid grid and buttons for your legal choices. Interface: src/meeple/web/renderer.js.
import { h, plural, seatName } from "/static/common.js";

const COLOUR = {
  red: "#d94f3d", orange: "#f08c1a", yellow: "#e8b923", green: "#2faa5e",
  blue: "#2f7de1", indigo: "#4b3fa8", violet: "#9b51e0",
};
const FLIGHT = {
  updraft: "Updraft", scout: "Scouting Flight", sun_flare: "Sun Flare", counsel: "Daedalus' Counsel",
  sharp_eyes: "Sharp Eyes", tailwind: "Tailwind", wax_repair: "Wax Repair",
};

// A symbol per colour as well as the colour itself, for colour-blind players.
const SYMBOL = { red: "●", orange: "▲", yellow: "■", green: "◆", blue: "★", indigo: "✚", violet: "♥" };
const chip = (colour, text, extra = "") => h(`span.sc-chip${extra}`, { style: `--c:${COLOUR[colour]}`, title: colour }, text);

// A legal choice drawn as a button on the board (the browser tests click [data-action]).
function choice(ctx, a, text, cls = "") {
  return h(`button.sc-act${cls}`, { "data-action": a.id, title: a.label, onclick: () => ctx.act(a.id) }, text ?? a.label);
}

function discards(pile) {
  if (pile && typeof pile === "object" && !Array.isArray(pile)) {  // The Daedalus Challenge
    return pile.top === null ? "—" : `${pile.top} (${pile.count - 1} under)`;
  }
  return pile.length ? pile.join(" ") : "—";
}

function colours(view, ctx, byJson) {
  return h("div.sc-colours", {}, view.in_play.map((c) => {
    const mine = view.hand ? view.hand[c] : undefined;
    const swap = byJson(`{"swap":"${c}"}`);
    const reveal = byJson(`{"reveal":"${c}"}`);
    const flights = ["scout", "sun_flare", "counsel"].map((f) => byJson(`{"flight":"${f}","colour":"${c}"}`)).filter(Boolean);
    const revealedMine = view.player !== null && view.revealed[view.player] && c in view.revealed[view.player];
    return h("div.sc-colour", { style: `--c:${COLOUR[c]}`, "data-colour": c },
      h("div.sc-name", {}, `${SYMBOL[c]} ${c}`),
      h("div.sc-deck", {}, `deck ${view.decks[c]}`),
      h("div.sc-discards", { title: "discard pile" }, discards(view.discards[c])),
      mine === undefined ? h("div.sc-card.hidden", {}, "?")
        : h(`div.sc-card${revealedMine ? ".revealed" : ""}`, { "data-card": `${c}-${mine}` }, String(mine)),
      swap ? choice(ctx, swap, "swap", ".small") : null,
      reveal ? choice(ctx, reveal, "reveal", ".small") : null,
      flights.map((a) => choice(ctx, a, FLIGHT[a.json.flight], ".small.flight")));
  }));
}

// The bid ladder, upright like the printed bid track: a row per number (lowest legal first), a
// column per colour still in play, so it fits a phone's width and scrolls within its own box.
function bidGrid(view, ctx) {
  const bids = ctx.legal.filter((a) => a.json && "bid" in a.json);
  if (!bids.length) return null;
  const numbers = [...new Set(bids.map((a) => a.json.bid))].sort((x, y) => x - y);
  const at = new Map(bids.map((a) => [`${a.json.bid}:${a.json.colour}`, a]));
  return h("div.sc-bids", { "data-choices-here": "Bids" },  // the ladder is the one place for bids
    h("div.sc-bids-title", {}, "Bid: the players' cards of a colour add up to at least…"),
    h("div.sc-ladder", { role: "grid", "aria-label": "bid ladder" },
      h("table.sc-grid", {},
        h("thead", {}, h("tr", {}, h("th", {}, ""), view.in_play.map((c) => h("th", {}, chip(c, SYMBOL[c], ".sym"))))),
        h("tbody", {}, numbers.map((n) => h("tr", {},
          h("th.sc-n", {}, String(n)),
          view.in_play.map((c) => {
            const a = at.get(`${n}:${c}`);
            return h("td", {}, a ? h("button.sc-bid", {
              "data-action": a.id, title: a.label, "aria-label": a.label, style: `--c:${COLOUR[c]}`, onclick: () => ctx.act(a.id),
            }, `${n}${SYMBOL[c]}`) : null);
          })))))));
}

function players(view, ctx) {
  return h("div.sc-players", {}, Array.from({ length: view.players }, (_, p) => {
    const f = view.feathers[p];
    const status = view.lives
      ? (view.alive[p] ? `${"♥".repeat(view.lives[p])} ${plural(view.lives[p], "life", "lives")}` : "out")
      : [...Array.from({ length: f.singed }, () => h("span.sc-feather.singed", { title: "singed feather" }, "−2")),
        ...Array.from({ length: f.burnt }, () => h("span.sc-feather.burnt", { title: "burnt feather" }, "−5")),
        ` score ${view.scores[p]}`];
    const rev = Object.entries(view.revealed[p] || {}).map(([c, v]) => chip(c, `${c} ${v}`));
    const cls = [p === view.to_move ? ".to-move" : "", view.bid && view.bid.bidder === p ? ".bidder" : "",
      view.alive[p] ? "" : ".out"].join("");
    return h(`div.sc-player${cls}`, { "data-seat": p },
      h("b", {}, seatName(ctx.seats, p), p === ctx.seat ? " (you)" : ""),
      h("span.sc-status", {}, status),
      rev.length ? h("span", {}, " revealed: ", rev) : null,
      view.flight.hand_sizes[p] ? h("span.muted", {}, ` · ${view.flight.hand_sizes[p]} Flight`) : null);
  }));
}

export function render(root, ctx) {
  const view = ctx.view;
  const byJson = (text) => ctx.legal.find((a) => JSON.stringify(a.json) === text);
  const bid = view.bid;
  const others = ctx.legal.filter((a) => a.json && !("bid" in a.json) && !("swap" in a.json) && !("reveal" in a.json)
    && !(a.json.flight && a.json.colour));
  const last = view.last_challenge;
  root.replaceChildren(h("div.sc-table", {},
    h("div.sc-head", {},
      h("span", {}, `Match ${view.match} · Round ${view.round} · ${view.phase}`),
      h("span.sc-marker", {}, bid ? ["Bid ", h("b", {}, String(bid.number)), " ", chip(bid.colour, bid.colour),
        ` by ${seatName(ctx.seats, bid.bidder)}`] : "No bid yet"),
      view.to_move !== null ? h("span.muted", {}, `${seatName(ctx.seats, view.to_move)} to move`) : null),
    colours(view, ctx, byJson),
    view.hand ? null : h("p.muted", {}, "Spectating: hands are hidden."),
    others.length ? h("div.sc-actions", {}, others.map((a) => choice(ctx, a))) : null,
    bidGrid(view, ctx),
    players(view, ctx),
    view.flight_hand && view.flight_hand.length
      ? h("div.sc-flight", {}, "Your Flight cards: ", view.flight_hand.map((f) => h("span.sc-fcard", {}, FLIGHT[f]))) : null,
    (view.seen || []).length ? h("div.sc-seen", {}, "You saw: ", view.seen.map((s) =>
      chip(s.colour, `${s.owner === "daedalus" ? "Daedalus" : seatName(ctx.seats, s.owner)} ${s.colour} ${s.value}`))) : null,
    view.scouted ? h("div.sc-seen", {}, "Scouted: ", chip(view.scouted.colour, `${view.scouted.colour} ${view.scouted.value}`)) : null,
    last ? h("div.sc-last", {}, `Last challenge: ${seatName(ctx.seats, last.challenger)} on ${last.number} ${last.colour}: `
      + `cards ${last.cards.join("+")} = ${last.total}, ${last.safe ? "safe" : "unsafe"}; ${seatName(ctx.seats, last.loser)} lost.`) : null,
    view.flight.deck || view.flight.discard.length
      ? h("div.muted", {}, `Flight deck ${view.flight.deck}; used: ${view.flight.discard.map((f) => FLIGHT[f]).join(", ") || "—"}`) : null));
}

export const css = `
.sc-table { font: 14px system-ui, sans-serif; display: grid; gap: 10px; }
.sc-head { display: flex; gap: 16px; align-items: center; flex-wrap: wrap; }
.sc-marker { padding: 2px 10px; border-radius: 12px; background: #fff3c4; }
.sc-colours { display: flex; gap: 8px; flex-wrap: wrap; }
.sc-colour { border: 3px solid var(--c); border-radius: 10px; padding: 6px; width: 96px; display: grid; gap: 4px; justify-items: center; }
.sc-name { font-weight: 700; color: var(--c); text-transform: capitalize; }
.sc-deck, .sc-discards { font-size: 12px; color: #555; }
.sc-card { width: 44px; height: 60px; border-radius: 6px; background: var(--c); color: #fff; font: 700 26px system-ui; display: grid; place-items: center; }
.sc-card.hidden { background: #ccc; }
.sc-card.revealed { outline: 3px dashed #222; }
.sc-act { margin: 2px; padding: 4px 10px; border-radius: 6px; border: 1px solid #888; background: #fff; cursor: pointer; }
.sc-act:hover, .sc-bid:hover { background: #ffe08a; }
.sc-act.small { font-size: 11px; padding: 2px 6px; }
.sc-act.flight { border-color: #9b51e0; }
.sc-ladder { max-height: 360px; overflow-y: auto; max-width: 100%; border: 1px solid #ddd; border-radius: 8px; }
.sc-grid { border-collapse: collapse; }
.sc-grid thead th { position: sticky; top: 0; background: #fff; z-index: 1; }
.sc-grid td, .sc-grid th { padding: 1px; }
.sc-grid th.sc-n { font-weight: 700; color: #555; min-width: 24px; text-align: right; padding-right: 4px; }
.sc-bid { width: 42px; height: 40px; padding: 0; font-size: 13px; border: 2px solid var(--c); border-radius: 6px; background: #fff; color: var(--c); font-weight: 700; cursor: pointer; }
.sc-chip.sym { font-size: 14px; min-width: 34px; text-align: center; }
.sc-act.small { min-height: 40px; min-width: 40px; }
@media (max-width: 600px) { .sc-colour { width: 80px; } .sc-bid { width: 40px; } .sc-grid td, .sc-grid th { padding: 0; } }
.sc-feather { display: inline-block; padding: 0 5px; margin-right: 2px; border-radius: 8px; font-size: 11px; color: #fff; }
.sc-feather.singed { background: #e0902b; }
.sc-feather.burnt { background: #8c1c13; }
.sc-chip { display: inline-block; padding: 0 6px; margin: 0 2px; border-radius: 8px; background: var(--c); color: #fff; font-size: 12px; }
.sc-players { display: grid; gap: 4px; }
.sc-player { padding: 4px 8px; border-radius: 6px; background: #f4f4f8; display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.sc-player.to-move { outline: 2px solid #2f7de1; }
.sc-player.bidder { background: #fff3c4; }
.sc-player.out { opacity: 0.5; }
.sc-fcard { display: inline-block; padding: 2px 8px; margin: 0 3px; border-radius: 6px; background: #efe3fb; }
`;
