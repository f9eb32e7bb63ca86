// Post-game analysis panel (replay page): "Analyse my game", its progress, the curve of expected
// place over the game and the mistakes, each of which jumps the replay to that move.
import { api, h, ordinal, seatName, svg } from "./common.js";

// The seat's expected final place after each of its decisions: first place at the top, a red
// dot on each mistake (click: jump there).
export function curve(result, steps, jump) {
  const W = 280, H = 100, L = 30, R = 8, T = 8, B = 14;
  const n = result.players;
  const x = (i) => L + (W - L - R) * i / Math.max(1, steps);
  const y = (p) => T + (H - T - B) * (p - 1) / Math.max(1, n - 1);
  const pts = result.curve.map(([i, p]) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(" ");
  const mistakes = result.decisions.filter((d) => d.mistake);
  return svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "analysis-curve",
    role: "img", "aria-label": `expected place over the game; ${mistakes.length} mistakes marked` },
  svg("line", { x1: L, y1: y(1), x2: W - R, y2: y(1), stroke: "#ddd6c6" }),
  svg("line", { x1: L, y1: y(n), x2: W - R, y2: y(n), stroke: "#ddd6c6" }),
  svg("text", { x: 2, y: y(1) + 4, "font-size": 10, fill: "#7a7466" }, ordinal(1)),
  svg("text", { x: 2, y: y(n) + 4, "font-size": 10, fill: "#7a7466" }, ordinal(n)),
  svg("text", { x: L, y: H - 2, "font-size": 9, fill: "#7a7466" }, "move 1"),
  svg("text", { x: W - R, y: H - 2, "font-size": 9, fill: "#7a7466", "text-anchor": "end" }, `move ${steps}`),
  svg("polyline", { points: pts, fill: "none", stroke: "#2f6f4f", "stroke-width": 1.5 }),
  ...mistakes.map((d) => {
    return svg("circle", { cx: x(d.index), cy: y(d.place), r: 4, fill: "#b5542a",
      class: "mistake-dot", "data-index": d.index, tabindex: 0, onclick: () => jump(d.index) },
    svg("title", {}, `move ${d.index + 1}: ${d.chosen_label}`));
  }));
}

function mistakeText(d) {
  const cost = d.kind === "points" ? `${(d.score_loss || 0).toFixed(1)} points` : `${d.loss.toFixed(2)} of a place`;
  return [h("strong", {}, `Move ${d.index + 1}: `), `${d.chosen_label}; better: `,
    h("em", {}, d.best_label), ` (about ${cost})`];
}

// box: an element to fill; seats: the table's seats; steps: moves in the game; getSeat(): the
// seat the replay shows (null: a spectator); jump(step): show the replay before that move.
export function mountAnalysis(box, { tableId, seats, steps, getSeat, jump, auto = false }) {
  const pick = h("select", { id: "analysis-seat" }, ...seats.map((s) =>
    h("option", { value: s.seat }, `Player ${s.seat + 1} · ${seatName(seats, s.seat)}`)));
  const depth = h("select", { id: "analysis-depth" }, h("option", { value: "quick" }, "quick"),
    h("option", { value: "deep" }, "deep"));
  const button = h("button.primary", { id: "analyse" }, "Analyse my game");
  const progress = h("progress", { id: "analysis-progress", max: 1, value: 0, hidden: true });
  const status = h("p.muted", { id: "analysis-status" });
  const out = h("div", { id: "analysis-result" });
  box.replaceChildren(h("h3", {}, "Analysis"), h("div.analysis-controls", {}, pick, depth, button),
    progress, status, out);
  const syncSeat = () => { const s = getSeat(); if (s !== null) pick.value = String(s); };
  syncSeat();
  let polling = 0;

  function show(result) {
    const list = result.decisions.filter((d) => d.mistake);
    out.replaceChildren(h("p.analysis-summary", {}, result.summary),
      curve(result, steps, jump),
      list.length ? h("ol.log.mistakes", {}, ...list.map((d) =>
        h("li.mistake", { "data-index": d.index, onclick: () => jump(d.index) }, ...mistakeText(d)))) : null,
      h("p.muted", {}, `${result.depth}: ${result.budget.worlds} worlds × ${result.budget.rollouts} rollouts `
        + `by the ${result.policy} bots, from Player ${result.seat + 1}'s information only.`));
  }

  function report(r) {
    // A stored analysis made by an older method is still shown, said to be out of date, and
    // the button offers to analyse again (which replaces it).
    const old = r.status === "done" && r.outdated;
    progress.hidden = !(r.status === "running" || r.status === "stale");
    progress.max = Math.max(1, r.total); progress.value = r.done;
    status.textContent = r.status === "running" ? `Analysing… ${r.done} of ${r.total} decisions`
      : r.status === "failed" ? "The analysis failed; try again." : r.status === "stale" ? "The analysis stopped; press again."
        : old ? "This analysis was made with an older method: press Analyse again for the current one." : "";
    button.textContent = old ? "Analyse again" : "Analyse my game";
    if (r.status === "done") show(r.result);
  }

  async function follow() {
    const me = ++polling;
    const url = `/api/tables/${tableId}/analysis?seat=${pick.value}&depth=${depth.value}`;
    for (;;) {
      let r;
      try { r = await api(url); } catch (e) { status.textContent = e.message; return; }
      if (me !== polling) return;
      report(r);
      if (r.status !== "running") return;
      await new Promise((res) => setTimeout(res, 1000));
    }
  }

  async function start() {
    out.replaceChildren();
    try {
      report(await api(`/api/tables/${tableId}/analysis`, { seat: Number(pick.value), depth: depth.value }));
    } catch (e) { status.textContent = e.message; return; }
    follow();
  }

  button.onclick = start;
  pick.onchange = () => { out.replaceChildren(); button.textContent = "Analyse my game"; follow(); };
  depth.onchange = pick.onchange;
  if (auto) start(); else follow();  // a stored analysis shows at once
  return { syncSeat };
}
