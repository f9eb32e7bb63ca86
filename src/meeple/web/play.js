// Play now: queue for a game and go to the table the matcher forms (long-polled).
import { api, h } from "./common.js";
import { navbar } from "./account.js";

const $ = (id) => document.getElementById(id);
const me = await navbar();
if (!me) location.href = "/account?next=/play";
const games = await api("/api/games");
$("game").replaceChildren(...games.map((g) => h("option", { value: g.id }, g.title)));
function counts() {
  const g = games.find((x) => x.id === $("game").value);
  $("counts").replaceChildren(h("legend", {}, "Player counts I accept"),
    ...g.players.map((n, i) => h("label", {}, h("input", { type: "checkbox", value: n, checked: i === 0, "data-count": n }), ` ${n} `)));
}
$("game").addEventListener("change", counts);
counts();
let waiting = false;
async function poll() {
  while (waiting) {
    const { entries } = await api("/api/play?wait=25");
    const seated = entries.find((e) => e.status === "seated" && e.table);
    if (seated && waiting) { location.href = `/table/${seated.table}`; return; }
    if (!entries.some((e) => e.status === "waiting")) { waiting = false; }
  }
}
$("play").addEventListener("submit", async (e) => {
  e.preventDefault();
  $("error").textContent = "";
  const players = [...document.querySelectorAll("[data-count]")].filter((c) => c.checked).map((c) => Number(c.value));
  if (!players.length) { $("error").textContent = "Choose at least one player count."; return; }
  try {
    const res = await api("/api/play", { game: $("game").value, players,
      bot_after: $("bots").value ? Number($("bots").value) : null, time_limit: $("time").value ? Number($("time").value) : null });
    $("waiting").textContent = `Waiting for players near your rating (${res.rating})…`;
    $("cancel").hidden = false;
    waiting = true;
    poll().catch((err) => { $("error").textContent = err.message; });
  } catch (err) { $("error").textContent = err.message; }
});
$("cancel").addEventListener("click", async () => {
  waiting = false; await api("/api/play/cancel", {}); $("waiting").textContent = "Stopped."; $("cancel").hidden = true;
});
