// The end of a game, explained: per player (best place first) how the score was made, line by
// line as the game's Python wrote it (view.final_scoring), the total, and for a rated table the
// account's rating before and after. Shared by the table page's end panel and the replay page.
import { api, h, ordinal, seatName } from "./common.js";

const fmt = (x) => (Number.isInteger(x) ? String(x) : String(Math.round(x * 100) / 100));

// ratings: the answer of /api/tables/<id>/ratings, or null while it is not there yet.
export function scoringTable({ view, seats, ranking, scores, seat, ratings }) {
  const lines = view && view.final_scoring;
  if (!lines || !ranking || !scores) return null;
  const bySeat = new Map(((ratings && ratings.rated) ? ratings.results : []).map((r) => [r.seat, r]));
  const order = scores.map((_, p) => p).sort((a, b) => ranking[a] - ranking[b] || a - b);
  return h("div.final-scoring", { "data-final-scoring": "" }, order.map((p) => {
    const r = bySeat.get(p);
    return h(`table.fs-player${p === seat ? ".mine" : ""}`, { "data-player": p, "data-place": ranking[p], "data-score": scores[p] },
      h("caption", {},
        h("strong", {}, `${ordinal(ranking[p])} `), seatName(seats, p),
        p === seat ? h("span.tag", {}, "you") : null,
        r && r.after !== null ? h("div.fs-rating", { "data-rating-before": r.before, "data-rating-after": r.after },
          `rating ${r.before} → ${r.after} (${r.delta >= 0 ? "+" : ""}${r.delta})`) : null),
      h("tbody", {}, lines[p].map(([label, pts]) => h("tr.fs-line", { "data-points": pts },
        h("td", {}, label), h("td.pts", {}, fmt(pts))))),
      h("tfoot", {}, h("tr", {}, h("th", {}, "Score"), h("th.pts.fs-total", {}, fmt(scores[p])))));
  }));
}

// The ratings a finished table changed: asked again for a few seconds while the server is
// still writing them (they are written just after the last move).
export async function tableRatings(tableId, tries = 8) {
  for (let i = 0; i < tries; i++) {
    let r = null;
    try { r = await api(`/api/tables/${tableId}/ratings`); } catch { return null; }
    if (r.rated === false || (r.rated && r.done)) return r;
    await new Promise((res) => setTimeout(res, 800));
  }
  return null;
}
