// The lobby: every game with its options, create a table, join/watch/replay tables.
import { api, h, myName, save, saved, setMyName, seatName } from "./common.js";
import { navbar } from "./account.js";

navbar();

const nameInput = document.getElementById("my-name");
nameInput.value = myName();
nameInput.addEventListener("change", () => setMyName(nameInput.value.trim()));

let games = [];

// An option in players' words: its description reads "Title: what it does"; values read as
// words ("yes", "by number", "standard" for the game's own default of null).
const valueWords = (c) => (c === null ? "standard" : c === true ? "yes" : c === false ? "no" : String(c).replace(/_/g, " "));
function optionField(opt) {
  const sel = h("select", { name: `opt-${opt.name}`, "data-option": opt.name },
    opt.choices.map((c, i) => h("option", { value: i, selected: JSON.stringify(c) === JSON.stringify(opt.default) }, valueWords(c))));
  const [title, ...rest] = opt.description.split(": ");
  return h("label.field", { title: opt.name }, rest.length ? title : opt.name.replace(/_/g, " "), sel,
    h("small.muted", {}, rest.length ? rest.join(": ") : opt.description));
}

// meeple.bots.DEFAULT_LEVEL: the level a new table seats unless the host picks another.
const DEFAULT_LEVEL = "hard";
const defaultLevel = (game) => (game.bots.includes(DEFAULT_LEVEL) ? DEFAULT_LEVEL : game.bots[0]);

function seatRows(game, players, box) {
  box.replaceChildren(...Array.from({ length: players }, (_, i) => {
    const sel = h("select", { name: `seat-${i}`, "data-seat": i },
      i === 0 ? h("option", { value: "me" }, "me") : null,
      h("option", { value: "open" }, "open (a friend)"),
      game.bots.map((lvl) => h("option", { value: `bot:${lvl}`, selected: i > 0 && lvl === defaultLevel(game) }, `bot: ${lvl}`)));
    return h("label.field.seat-field", {}, `Seat ${i + 1}`, sel);
  }));
}

function gameCard(game) {
  const players = h("select", { name: "players" }, game.players.map((n) =>
    h("option", { value: n, selected: n === (game.players.includes(3) ? 3 : game.players[0]) }, `${n} players`)));
  const seats = h("div.seats-config");
  const timeLimit = h("select", { name: "time_limit" },
    h("option", { value: "" }, "no time limit"), h("option", { value: "30" }, "30 s a move"),
    h("option", { value: "120" }, "2 min a move"), h("option", { value: "86400" }, "1 day a move"));
  const error = h("p.error");
  const form = h("form.create", {
    onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      const name = nameInput.value.trim();
      const options = {};
      for (const sel of form.querySelectorAll("[data-option]")) {
        const opt = game.options.find((o) => o.name === sel.dataset.option);
        options[opt.name] = opt.choices[Number(sel.value)];
      }
      const seatSpecs = [...form.querySelectorAll("[data-seat]")].map((sel) =>
        sel.value.startsWith("bot:") ? { kind: "bot", level: sel.value.slice(4) } : { kind: sel.value });
      if (seatSpecs.some((s) => s.kind === "me") && !name) { error.textContent = "Type your name first (top right)."; nameInput.focus(); return; }
      setMyName(name);
      try {
        const res = await api("/api/tables", {
          game: game.id, players: Number(players.value), options, seats: seatSpecs,
          name: name || null, time_limit: timeLimit.value ? Number(timeLimit.value) : null,
        });
        save(res.id, { host: res.host, seat: res.seat ?? null, secret: res.secret ?? null });
        location.href = `/table/${res.id}`;
      } catch (err) { error.textContent = err.message; }
    },
  },
    h("label.field", {}, "Players", players),
    game.options.map(optionField),
    seats,
    h("label.field", {}, "Time", timeLimit),
    h("button.primary", { type: "submit" }, `Create a ${game.title} table`),
    error);
  players.addEventListener("change", () => seatRows(game, Number(players.value), seats));
  seatRows(game, Number(players.value), seats);
  return h("article.game-card", { "data-game": game.id },
    h("h3", {}, game.title),
    h("p", {}, game.description),
    h("p.muted", {}, `${game.players.join(", ")} players · bots: ${game.bots.join(", ")}`),
    h("details", {}, h("summary", {}, "New table"), form));
}

function tableRow(t) {
  const title = (games.find((g) => g.id === t.game) || { title: t.game }).title;
  const seats = t.seats.map((s) => s.kind === "open" ? "open seat" : seatName(t.seats, s.seat)).join(", ");
  const link = t.status === "over" ? h("a.button", { href: `/replay/${t.id}` }, "Replay")
    : h("a.button", { href: `/table/${t.id}` },
      saved(t.id).secret ? "Continue" : t.status === "open" ? "Join" : "Watch");
  return h("div.table-row", { "data-table": t.id }, h("strong", {}, title), h("span.muted", {}, `#${t.id}`),
    h("span", {}, seats), link);
}

// Tables where this browser holds a seat: leave a turn-based game and come back to it later.
function mine(data) {
  return [...data.open, ...data.running].filter((t) => saved(t.id).secret);
}

async function refreshTables() {
  try {
    const data = await api("/api/tables");
    const my = mine(data);
    document.getElementById("my-section").hidden = !my.length;
    document.getElementById("my-tables").replaceChildren(...my.map(tableRow));
    for (const kind of ["open", "running", "over"]) {
      const box = document.getElementById(`${kind}-tables`);
      box.replaceChildren(...(data[kind].length ? data[kind].map(tableRow) : [h("p.muted", {}, "none")]));
    }
  } catch (err) { console.error(err); }
}

games = await api("/api/games");
document.getElementById("games").replaceChildren(...games.map(gameCard));
await refreshTables();
setInterval(refreshTables, 5000);
