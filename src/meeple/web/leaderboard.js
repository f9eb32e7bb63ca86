// One game's leaderboard, best first.
import { api, h } from "./common.js";
import { navbar, ratingText } from "./account.js";

const $ = (id) => document.getElementById(id);
await navbar();
const game = location.pathname.split("/").pop();
const games = await api("/api/games");
$("game").replaceChildren(...games.map((g) => h("option", { value: g.id, selected: g.id === game }, g.title)));
$("game").addEventListener("change", () => { location.href = `/leaderboard/${$("game").value}`; });
try {
  const rows = await api(`/api/leaderboard/${game}`);
  $("rows").replaceChildren(...rows.map((r) => h("tr", { "data-user": r.username }, h("td", {}, r.rank),
    h("td", {}, h("a", { href: `/player/${encodeURIComponent(r.username)}` }, r.username)),
    h("td", {}, ratingText(r)), h("td", {}, r.games), h("td", {}, r.wins))));
} catch (e) { $("error").textContent = e.message; }
