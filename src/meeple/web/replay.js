// Replays: step through a finished game from any seat's view (or the spectator's).
import { api, h, seatName } from "./common.js";
import { loadRenderer, logLine } from "./renderer.js";
import { navbar } from "./account.js";
import { scoringTable, tableRatings } from "./scoring.js";
import { mountAnalysis } from "./analysis.js";

navbar();
let chat = [];

const tableId = location.pathname.split("/").pop();
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
let seat = params.has("seat") ? Number(params.get("seat")) : null;
let step = 0;
let renderer = null;
let data = null;

async function show(n) {
  try {
    data = await api(`/api/tables/${tableId}/replay?step=${n}${seat !== null ? `&seat=${seat}` : ""}`);
  } catch (err) { $("error").textContent = err.message; return; }
  step = data.step;
  $("step").max = data.steps;
  $("step").value = step;
  $("where").textContent = `move ${step} of ${data.steps}`;
  const ctx = { view: data.view, seat, legal: [], seats: data.seats, act: () => {},
    over: step === data.steps, ranking: data.ranking, scores: data.scores, replay: true };
  renderer.render($("board"), ctx);
  // at the last step: how each score was made, and what the game did to ratings
  const scoring = step === data.steps ? scoringTable({ ...ctx, ratings }) : null;
  $("final").hidden = !scoring;
  $("final-scoring").replaceChildren(...(scoring ? [scoring] : []));
  $("log").replaceChildren(...data.log.map((ev) => h("li", {}, logLine(ev, ctx))));
  $("moves").replaceChildren(...data.moves.map((m, i) => h(`li${i === step - 1 ? ".current" : ""}`,
    { onclick: () => show(i + 1) }, `${seatName(data.seats, m.seat)}: ${m.label}`)));
  $("chat").replaceChildren(...chat.filter((m) => m.move <= step).map((m) =>
    h("li", {}, h("span.who", {}, m.name), m.text)));
  const cur = $("moves").querySelector(".current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

const info = await api(`/api/tables/${tableId}`);
const games = await api("/api/games");
const game = games.find((g) => g.id === info.game) || { id: info.game, title: info.game };
$("title").textContent = `Replay · ${game.title} · table #${tableId}`;
renderer = await loadRenderer(game);
chat = await api(`/api/tables/${tableId}/chat`).catch(() => []);
const ratings = await tableRatings(tableId, 1);
$("seat").replaceChildren(h("option", { value: "" }, "spectator"),
  ...info.seats.map((s) => h("option", { value: s.seat, selected: s.seat === seat }, `Player ${s.seat + 1} · ${seatName(info.seats, s.seat)}`)));
const steps = (await api(`/api/tables/${tableId}/replay?step=0`)).steps;
const analysis = mountAnalysis($("analysis"), { tableId, seats: info.seats, steps, getSeat: () => seat,
  jump: show, auto: params.has("analyse") });
$("seat").addEventListener("change", () => { seat = $("seat").value === "" ? null : Number($("seat").value); analysis.syncSeat(); show(step); });
$("first").onclick = () => show(0);
$("prev").onclick = () => show(Math.max(0, step - 1));
$("next").onclick = () => show(Math.min(data.steps, step + 1));
$("lastbtn").onclick = () => show(data.steps);
$("step").addEventListener("input", () => show(Number($("step").value)));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") $("next").click();
  if (e.key === "ArrowLeft") $("prev").click();
});
await show(0);
