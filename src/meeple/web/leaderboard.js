// One game's leaderboard, best first: people's, or with ?bots=1 the bot accounts' own.
import { api, h } from "./common.js";
import { navbar, ratingText } from "./account.js";

const $ = (id) => document.getElementById(id);
await navbar();
const game = location.pathname.split("/").pop();
const bots = new URLSearchParams(location.search).get("bots") === "1";
$("pool").replaceChildren(h("a", { href: bots ? `/leaderboard/${game}` : `/leaderboard/${game}?bots=1` },
  bots ? "People" : "Bot accounts"));
const games = await api("/api/games");
$("game").replaceChildren(...games.map((g) => h("option", { value: g.id, selected: g.id === game }, g.title)));
$("game").addEventListener("change", () => { location.href = `/leaderboard/${$("game").value}${bots ? "?bots=1" : ""}`; });
try {
  const rows = await api(`/api/leaderboard/${game}${bots ? "?bots=1" : ""}`);
  $("rows").replaceChildren(...rows.map((r) => h("tr", { "data-user": r.username }, h("td", {}, r.rank),
    h("td", {}, h("a", { href: `/player/${encodeURIComponent(r.username)}` }, r.username)),
    h("td", {}, ratingText(r)), h("td", {}, r.games), h("td", {}, r.wins))));
} catch (e) { $("error").textContent = e.message; }
