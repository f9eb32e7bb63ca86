// The lobby: every game with its options, create a table, join/watch/replay tables. Logged in,
// your tables (Play, your turn, Rematch), your friends and their invitations come from your
// account on any browser; a guest's seats live in this browser's storage.
import { api, h, myName, optionField, optionValues, save, saved, setMyName, seatName } from "./common.js";
import { navbar } from "./account.js";
import { enableNotifications, tell } from "./notify.js";

const $ = (id) => document.getElementById(id);
const me = await navbar();
const nameInput = $("my-name");
if (me) {
  nameInput.closest("label").replaceWith(h("span.name-field.muted", { id: "playing-as" }, `Playing as ${me.username}`));
} else {
  nameInput.value = myName();
  nameInput.addEventListener("change", () => setMyName(nameInput.value.trim()));
}

let games = [];
let friendNames = [];
let mineById = new Map();   // table id -> {seat, my_turn, status} of the account's (or this browser's) seats
let turnsBefore = null;     // tables where it was my turn at the last look (null: not looked yet)
let invitesBefore = null;

// meeple.bots.DEFAULT_LEVEL: the level a new table seats unless the host picks another.
const DEFAULT_LEVEL = "hard";
const defaultLevel = (game) => (game.bots.includes(DEFAULT_LEVEL) ? DEFAULT_LEVEL : game.bots[0]);

function seatRows(game, players, box) {
  box.replaceChildren(...Array.from({ length: players }, (_, i) => {
    const sel = h("select", { name: `seat-${i}`, "data-seat": i },
      i === 0 ? h("option", { value: "me" }, me ? `me (${me.username})` : "me") : null,
      h("option", { value: "open" }, "open (a friend)"),
      i > 0 ? friendNames.map((f) => h("option", { value: `friend:${f}` }, `invite ${f}`)) : null,
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
  const friendsOnly = me ? h("input", { type: "checkbox", name: "friends_only" }) : null;
  const error = h("p.error");
  const form = h("form.create", {
    onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = "";
      const name = me ? me.username : nameInput.value.trim();
      const options = optionValues(form, game);
      const picks = [...form.querySelectorAll("[data-seat]")].map((sel) => sel.value);
      const seatSpecs = picks.map((v) =>
        v.startsWith("bot:") ? { kind: "bot", level: v.slice(4) } : { kind: v.startsWith("friend:") ? "open" : v });
      if (seatSpecs.some((s) => s.kind === "me") && !name) { error.textContent = "Type your name first (top right)."; nameInput.focus(); return; }
      if (!me) setMyName(name);
      try {
        const res = await api("/api/tables", {
          game: game.id, players: Number(players.value), options, seats: seatSpecs,
          name: me ? null : name || null, speed: { ...SPEEDS[speed.value].speed, on_timeout: rule.value },
          friends_only: friendsOnly ? friendsOnly.checked : false,
        });
        // an account's seat comes back from the server on any browser: only the host secret stays here
        save(res.id, me ? { host: res.host } : { host: res.host, seat: res.seat ?? null, secret: res.secret ?? null });
        for (const [seat, v] of picks.entries()) {
          if (v.startsWith("friend:")) await api(`/api/tables/${res.id}/invite_friend`, { seat, username: v.slice(7), host: res.host });
        }
        location.href = `/table/${res.id}`;
      } catch (err) { error.textContent = err.message; }
    },
  },
    h("label.field", {}, "Players", players),
    game.options.map(optionField),
    seats,
    h("label.field", {}, "Speed", speed),
    h("label.field", { title: "what happens when a player's clock runs out" }, "When a clock runs out", rule),
    friendsOnly ? h("label.field", {}, friendsOnly, " open to my friends only") : null,
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

const title = (id) => (games.find((g) => g.id === id) || { title: id }).title;

async function rematch(t, seat) {
  try {
    const res = await api(`/api/tables/${t.id}/rematch`, { seat });
    if (!me) save(res.id, { host: res.host || null, seat: res.seat ?? null, secret: res.secret || null });
    location.href = `/table/${res.id}`;
  } catch (e) { $("friend-error").textContent = e.message; }
}

function tableRow(t) {
  const own = mineById.get(t.id) || (saved(t.id).secret ? { seat: saved(t.id).seat } : null);
  const seats = t.seats.map((s) => s.kind === "open" ? "open seat" : seatName(t.seats, s.seat)).join(", ");
  let links;
  if (t.status === "over") {
    links = [own && me && !t.rematch ? h("button", { "data-rematch": t.id, onclick: () => rematch(t, own.seat) }, "Rematch") : null,
      own && t.rematch ? h("a.button", { href: `/table/${t.rematch}` }, "Rematch table") : null,
      h("a.button", { href: `/replay/${t.id}` }, "Replay")];
  } else {
    links = [h("a.button", { href: `/table/${t.id}` }, own ? "Play" : t.status === "open" ? "Join" : "Watch")];
  }
  return h("div.table-row", { "data-table": t.id }, h("strong", {}, title(t.game)), h("span.muted", {}, `#${t.id}`),
    h("span", {}, seats), own && own.my_turn ? h("span.status.yours", {}, "your turn") : null, h("span.row-links", {}, links));
}

async function myTables(data) {
  if (!me) {  // a guest: the seats this browser holds
    mineById = new Map();
    return [...data.open, ...data.running].filter((t) => saved(t.id).secret);
  }
  const [{ tables: live }, { tables: done }] = await Promise.all([api("/api/my/tables"), api("/api/my/finished")]);
  mineById = new Map([...live, ...done].map((t) => [t.id, t]));
  const turns = live.filter((t) => t.my_turn).map((t) => t.id);
  if (turnsBefore !== null && turns.some((id) => !turnsBefore.has(id))) {
    tell("meeple: your turn", "It is your turn at one of your tables.", "/my");
  }
  turnsBefore = new Set(turns);
  document.title = turns.length ? `(${turns.length}) your turn — meeple` : "meeple — lobby";
  return [...live, ...done.slice(0, 5)];
}

async function refreshTables() {
  try {
    const data = await api("/api/tables");
    const my = await myTables(data);
    $("my-section").hidden = !my.length && !me;
    $("my-tables").replaceChildren(...(my.length ? my.map(tableRow) : [h("p.muted", {}, "none yet")]));
    for (const kind of ["open", "running", "over"]) {
      const box = $(`${kind}-tables`);
      box.replaceChildren(...(data[kind].length ? data[kind].map(tableRow) : [h("p.muted", {}, "none")]));
    }
  } catch (err) { console.error(err); }
}

// ----- friends --------------------------------------------------------------------------------
async function friendAction(body) {
  $("friend-error").textContent = "";
  try { drawFriends(await api("/api/friends", body)); } catch (e) { $("friend-error").textContent = e.message; }
}

async function answer(inv, accept) {
  try {
    const res = await api(`/api/tables/${inv.table}/invitation/${inv.seat}`, { accept });
    if (accept) location.href = `/table/${res.id}`; else refreshFriends();
  } catch (e) { $("friend-error").textContent = e.message; }
}

function drawFriends(data) {
  const names = data.friends.map((f) => f.username);
  if (names.join() !== friendNames.join()) {
    friendNames = names;
    for (const card of document.querySelectorAll(".game-card")) {
      const game = games.find((g) => g.id === card.dataset.game);
      seatRows(game, Number(card.querySelector("[name=players]").value), card.querySelector(".seats-config"));
    }
  }
  const ids = data.invites.map((i) => `${i.table}:${i.seat}`);
  if (invitesBefore !== null && ids.some((id) => !invitesBefore.has(id))) tell("meeple: an invitation", "A friend invites you to a table.", "/");
  invitesBefore = new Set(ids);
  $("invites").replaceChildren(...data.invites.map((i) => h("div.table-row.invite", { "data-invite": `${i.table}:${i.seat}` },
    h("strong", {}, `${i.from} invites you to ${title(i.game)}`), h("span.muted", {}, `#${i.table} · seat ${i.seat + 1}`),
    h("span.row-links", {}, h("button.primary", { "data-accept": i.table, onclick: () => answer(i, true) }, "Accept"),
      h("button", { onclick: () => answer(i, false) }, "Decline")))));
  $("friends").replaceChildren(...(data.friends.length ? data.friends.map((f) => h("div.table-row.friend", { "data-friend": f.username },
    h("span", { class: `dot ${f.online ? "on" : "off"}`, title: f.online ? "online" : "offline" }),
    h("a", { href: `/player/${encodeURIComponent(f.username)}` }, f.username),
    h("span.muted", {}, f.online ? (f.table ? `at ${title(f.table.game)} #${f.table.id}` : "online") : "offline"),
    h("span.row-links", {}, f.table ? h("a.button", { href: `/table/${f.table.id}` }, mineById.has(f.table.id) ? "Play" : "Watch") : null,
      h("button", { "data-unfriend": f.username, onclick: () => friendAction({ username: f.username, add: false }) }, "Remove"))))
    : [h("p.muted", {}, "no friends yet: add one by username")]));
  $("friend-requests").replaceChildren(...[
    data.received.length ? h("span", {}, "Asked you: ", data.received.map((n) => h("button", { "data-add-back": n, onclick: () => friendAction({ username: n }) }, `add ${n}`))) : null,
    data.sent.length ? h("span", {}, ` Waiting for: ${data.sent.join(", ")}`) : null].filter(Boolean));
}

async function refreshFriends() {
  try { drawFriends(await api("/api/friends")); } catch (err) { console.error(err); }
}

games = await api("/api/games");
$("games").replaceChildren(...games.map(gameCard));
if (me) {
  $("friends-section").hidden = false;
  $("friend-form").addEventListener("submit", (e) => {
    e.preventDefault();
    friendAction({ username: $("friend-name").value.trim() }).then(() => { $("friend-name").value = ""; });
  });
  $("notify-me").hidden = false;
  $("notify-me").addEventListener("click", async () => { $("notify-state").textContent = await enableNotifications(); });
  await refreshFriends();
  setInterval(refreshFriends, 10000);
}
await refreshTables();
setInterval(refreshTables, 5000);
