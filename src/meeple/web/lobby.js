// The lobby: every game with its options, create a table, join/watch/replay tables.
import { api, h, myName, save, saved, setMyName, seatName } from "./common.js";
import { navbar } from "./account.js";

navbar();

const nameInput = document.getElementById("my-name");
nameInput.value = myName();
nameInput.addEventListener("change", () => setMyName(nameInput.value.trim()));

let games = [];

function optionField(opt) {
  const sel = h("select", { name: `opt-${opt.name}`, "data-option": opt.name },
    opt.choices.map((c, i) => h("option", { value: i, selected: JSON.stringify(c) === JSON.stringify(opt.default) },
      c === null ? "default" : String(c))));
  return h("label.field", { title: opt.description }, opt.name.replace(/_/g, " "), sel,
    h("small.muted", {}, opt.description));
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

// A table's speed (server/clocks.py): a real-time clock per player (a bank plus an increment
// each turn) or a turn-based deadline per move; without a clock, how long a player may be away
// before the others can vote them out follows the mode (5 minutes or 3 days by default).
const SPEEDS = {
  casual: { label: "real time, no clock", speed: { mode: "realtime" } },
  fast: { label: "real time: 3 min + 10 s a turn", speed: { mode: "realtime", bank: 180, increment: 10 } },
  normal: { label: "real time: 10 min + 30 s a turn", speed: { mode: "realtime", bank: 600, increment: 30 } },
  day: { label: "turn-based: 24 h a move", speed: { mode: "turn", per_move: 86400 } },
  days: { label: "turn-based: 72 h a move", speed: { mode: "turn", per_move: 259200 } },
  slow: { label: "turn-based, no deadline", speed: { mode: "turn" } },
};

function gameCard(game) {
  const players = h("select", { name: "players" }, game.players.map((n) =>
    h("option", { value: n, selected: n === (game.players.includes(3) ? 3 : game.players[0]) }, `${n} players`)));
  const seats = h("div.seats-config");
  const speed = h("select", { name: "speed" }, Object.entries(SPEEDS).map(([k, v]) => h("option", { value: k }, v.label)));
  const rule = h("select", { name: "on_timeout" },
    h("option", { value: "skip" }, "skip that turn (a bot plays it)"),
    h("option", { value: "vote" }, "the others may vote to replace the player"));
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
          name: name || null, speed: { ...SPEEDS[speed.value].speed, on_timeout: rule.value },
        });
        save(res.id, { host: res.host, seat: res.seat ?? null, secret: res.secret ?? null });
        location.href = `/table/${res.id}`;
      } catch (err) { error.textContent = err.message; }
    },
  },
    h("label.field", {}, "Players", players),
    game.options.map(optionField),
    seats,
    h("label.field", {}, "Speed", speed),
    h("label.field", { title: "what happens when a player's clock runs out" }, "When a clock runs out", rule),
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
