// A player's profile: ratings per game with a history chart, games played and won, recent games.
// A bot account's profile says so and, for a logged-in person, offers a Challenge.
import { api, h, optionField, optionValues, ordinal, plural, save } from "./common.js";
import { navbar, ratingText } from "./account.js";

const $ = (id) => document.getElementById(id);
const me = await navbar();
const username = decodeURIComponent(location.pathname.split("/").pop());
const SVG = "http://www.w3.org/2000/svg";
function chart(history) {
  const w = 320, hgt = 80, pts = [0, ...history.map((x) => x.rating)];
  const max = Math.max(...pts, 1);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`); svg.setAttribute("class", "rating-chart");
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", pts.map((p, i) => `${(i / Math.max(1, pts.length - 1)) * (w - 10) + 5},${hgt - 5 - (p / max) * (hgt - 10)}`).join(" "));
  svg.append(line);
  return svg;
}
try {
  const p = await api(`/api/players/${encodeURIComponent(username)}`);
  document.title = `meeple — ${p.username}`;
  $("name").replaceChildren(p.username, p.bot ? h("span.tag", { title: "a program plays this account" }, "bot") : null);
  if (p.bot && me && !me.bot) $("challenge").replaceChildren(await challengeForm(p.username));
  $("summary").textContent = `${plural(p.games_played, "game")} played, ${p.games_won} won · since ${p.since.slice(0, 10)}`
    + ` · ${p.abandoned ?? 0} abandoned, ${p.timed_out ?? 0} timed out`;
  $("ratings").replaceChildren(...(p.ratings.length ? p.ratings.map((r) => h("div.rating-card", { "data-game": r.game },
    h("strong", {}, r.title), " ", h("span.rating", {}, ratingText(r)),
    h("span.muted", {}, ` · ${r.games} rated games, ${r.wins} won${r.provisional ? " · provisional" : ""}`),
    h("a", { href: `/leaderboard/${r.game}` }, " leaderboard"), chart(r.history))) : [h("p.muted", {}, "no rated games yet")]));
  $("recent").replaceChildren(...p.recent.map((g) => h("div.table-row", {},
    h("strong", {}, g.game), h("span", {}, `${ordinal(g.place)} of ${g.players}`),
    g.rated ? h("span.muted", {}, `${g.rating} (${g.delta >= 0 ? "+" : ""}${g.delta})`) : h("span.muted", {}, "unrated"),
    h("a.button", { href: g.replay }, "Replay"))));
} catch (e) { $("error").textContent = e.message; }

// Challenge a bot account: a new table where I sit at seat 1 and the bot account is invited to
// seat 2 (the game's own bots take any other seat); it answers through the Bot API.
async function challengeForm(username) {
  const games = await api("/api/games");
  const game = h("select", { name: "game" }, games.map((g) => h("option", { value: g.id }, g.title)));
  const players = h("select", { name: "players" });
  const options = h("div.options");
  const error = h("p.error");
  const pick = () => {
    const g = games.find((x) => x.id === game.value);
    players.replaceChildren(...g.players.map((n) => h("option", { value: n }, String(n))));
    options.replaceChildren(...g.options.map(optionField));
  };
  game.addEventListener("change", pick);
  pick();
  const form = h("form.create", {
    onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      const g = games.find((x) => x.id === game.value);
      try {
        const res = await api(`/api/players/${encodeURIComponent(username)}/challenge`,
          { game: g.id, players: Number(players.value), options: optionValues(form, g) });
        save(res.id, { host: res.host });
        location.href = `/table/${res.id}`;
      } catch (err) { error.textContent = err.message; }
    },
  }, h("label.field", {}, "Game ", game), h("label.field", {}, "Players ", players), options,
  h("button", { type: "submit", "data-challenge": username }, "Challenge"), error);
  return form;
}
