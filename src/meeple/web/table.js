// The table page: one WebSocket, the game drawn by its renderer, the generic choices panel,
// seats, log, clock, end screen and rematch. Everything is drawn from the last state message and
// the page is patched to match (patch.js), so focus, scroll and log lines stay put.
import { api, h, myName, ordinal, save, saved, seatName, setMyName } from "./common.js";
import { patch } from "./patch.js";
import { choicesPanel, loadRenderer, logLine } from "./renderer.js";
import { navbar } from "./account.js";
import { tell } from "./notify.js";
import { scoringTable, tableRatings } from "./scoring.js";
import { clockTags, clockText, noteServerTime, seatClock, tickClocks, untilDeadline, voteButton, voteText } from "./clocks.js";

const tableId = location.pathname.split("/").pop();
const $ = (id) => document.getElementById(id);
let games = [];
let game = null;
let renderer = null;
let last = null;        // the last state message
let log = [];           // the log as this seat saw it
let ws = null;
// The next reconnect's delay; 0 after a live connection: the first reconnect comes after a
// random 0.1-0.3 s (a server that died closes all its sockets at once: their players arrive
// at the next server spread out, not together), then 0.5 s doubling up to 5 s while
// connections fail.
let retry = 0;
let sending = false;    // a move is in flight: ignore further clicks until the next state
let seenUpTo = 0;       // log lines this seat had seen when it last had the turn ("new" after it)
let myTurnBefore = false;
let info = null;        // the table (game, options, seats) from /api/tables/<id>
// Refusals of this seat's secret in a row. One refusal never makes the page forget the secret
// (another server may not have heard of the join yet, or the host may have reopened the seat):
// it is tried again on each reconnect, and after three refusals the page watches instead,
// still keeping the secret.
let refusals = 0;
let account = null;     // the logged-in player, if any: a seat of theirs opens without a secret
let chat = [];
let wasMyTurn = false;
let wasStatus = null;    // the status at the last draw (null: none yet; no sound on arrival)
let friends = [];        // the account's friends' usernames (the host may invite them by name)

// An invite link carries its seat and secret in the fragment (#seat=2&invite=...).
const frag = new URLSearchParams(location.hash.slice(1));
if (frag.get("invite")) {
  save(tableId, { invite: { seat: Number(frag.get("seat")), secret: frag.get("invite") } });
  history.replaceState(null, "", location.pathname);
}

function me() { return saved(tableId); }

function connect() {
  ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/tables/${tableId}`);
  ws.onopen = () => {
    const m = me();
    chat = [];
    const mine = m.secret && refusals < 3;
    const own = account && !mine && last ? last.seats.find((s) => s.account && s.name === account.username) : null;
    ws.send(JSON.stringify(mine ? { type: "hello", seat: m.seat, secret: m.secret }
      : own || accountSeat !== null ? { type: "hello", seat: own ? own.seat : accountSeat } : { type: "hello" }));
    $("conn").textContent = "live";
    $("conn").className = "conn ok";
    retry = 0;
  };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    $("conn").textContent = "reconnecting…";
    $("conn").className = "conn bad";
    sending = false;
    setTimeout(connect, retry || 100 + Math.random() * 200);
    retry = retry ? Math.min(retry * 2, 5000) : 500;
  };
}

function onMessage(msg) {
  if (msg.type === "error") {
    sending = false;
    document.body.classList.remove("sending");
    $("error").textContent = msg.message;
    if ((msg.code === "forbidden" || msg.code === "seat_lost") && me().secret) refusals += 1;
    if (msg.code === "stale" || msg.code === "illegal") setTimeout(() => ($("error").textContent = ""), 3000);
    return;
  }
  if (msg.type === "reconnect") { retry = 100; return; }  // a server draining: the next one is near
  if (msg.type === "chat") { chat = chat.concat(msg.messages); drawChat(); return; }
  if (msg.type === "vote") { $("error").textContent = voteText(msg); return; }
  if (msg.type === "seats") {  // someone arrived or left: only the seats changed
    if (last) { noteServerTime(msg); last = { ...last, seats: msg.seats }; draw(); }
    return;
  }
  if (msg.type !== "state") return;
  noteServerTime(msg);
  if (msg.log_start === 0) log = [];
  log = log.slice(0, msg.log_start).concat(msg.log);
  last = msg;
  if (msg.seat !== null && msg.seat === me().seat) refusals = 0;
  sending = false;
  draw();
}

function act(id) {
  if (!last || sending || !last.legal.some((c) => c.id === id)) return;
  sending = true;
  $("error").textContent = "";
  document.body.classList.add("sending");
  ws.send(JSON.stringify({ type: "move", action: id, move: last.move }));
}

// Undo within a turn: the server says whether this seat may take steps back (`can_undo`) and
// how far (`undo_start`, the first step of the turn that may be taken back).
function undo(to) {
  if (!last || sending || !last.can_undo) return;
  sending = true;
  $("error").textContent = "";
  document.body.classList.add("sending");
  ws.send(JSON.stringify(to === undefined ? { type: "undo", move: last.move } : { type: "undo", move: last.move, to }));
}

function drawUndo() {
  const box = $("undo");
  if (!last.can_undo) { patch(box); return; }
  const steps = last.move - last.undo_start;
  patch(box,
    h("button", { id: "undo-step", title: "take back your last step (Ctrl+Z)", onclick: () => undo() }, "Undo"),
    steps > 1 ? h("button", { id: "undo-turn", title: `take back all ${steps} steps of this turn`, onclick: () => undo(last.undo_start) }, "Undo the whole turn") : null,
    h("span.hint", {}, "Your turn is confirmed when it ends or when something new comes to light."));
}

document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === "z"
      && !["INPUT", "TEXTAREA"].includes(document.activeElement?.tagName) && last?.can_undo) {
    e.preventDefault();
    undo();
  }
});

function ctx() {
  return {
    view: last.view, seat: last.seat, legal: last.legal, seats: last.seats, act,
    over: last.status === "over", ranking: last.ranking, scores: last.scores, replay: false,
  };
}

function drawSeats() {
  const m = me();
  patch($("seats"), last.seats.map((s) => h(
    `div.seat${s.seat === last.to_move && last.status === "running" ? ".to-move" : ""}${s.seat === last.seat ? ".mine" : ""}`,
    { "data-seat": s.seat },
    h("span.dot", { class: `dot ${s.kind === "bot" || s.zombie ? "bot" : s.connected ? "on" : "off"}` }),
    h("span.tag.player-no", { title: "the log calls this seat so" }, `Player ${s.seat + 1}`),
    h("strong", {}, seatName(last.seats, s.seat)),
    s.seat === last.seat ? h("span.tag", {}, "you") : null,
    s.kind === "bot" ? h("span.tag", {}, "bot") : null,
    s.zombie ? h("span.tag.warn", {}, "bot plays for them") : null,
    s.kind === "open" ? h("span.tag", {}, "open") : null,
    s.kind === "invited" ? h("span.tag", {}, "invited") : null,
    s.kind === "human" && !s.connected && last.status === "running" && s.away ? h("span.tag.warn", {}, `away ${Math.round(s.away / 60)} min`) : null,
    seatClock(last, s), clockTags(last, s),
    voteButton(last, s, (m) => ws.send(JSON.stringify(m))),
    m.host && (s.kind === "open" || s.kind === "invited") && last.status === "open" ? hostControls(s.seat) : null,
    m.host ? hostSeatActions(s) : null,
  )));
}

// The host's say over seats: before the start, remove whoever holds a seat (or an unused
// invite); during the game, hand the seat of a player who has gone away to a bot.
function hostSeatActions(s) {
  const post = (path, body) => async () => {
    try {
      await api(`/api/tables/${tableId}/${path}`, { host: me().host, seat: s.seat, ...body });
      const invites = { ...(me().invites || {}) };
      delete invites[s.seat];  // a reopened seat's old invite link opens nothing any more
      save(tableId, { invites });
    } catch (e) { $("error").textContent = e.message; }
  };
  if (last.status === "open" && s.kind !== "open" && s.seat !== last.seat) {
    return h("button", { "data-reopen": s.seat, title: "open this seat to anyone again", onclick: post("reopen", {}) },
      s.kind === "invited" ? "Cancel invite" : "Remove");
  }
  if (last.status === "running" && s.kind === "human" && !s.connected && s.seat !== last.seat) {
    return h("button", { "data-replace": s.seat, title: "a bot plays this seat for the rest of the game", onclick: post("replace", {}) }, "Hand to a bot");
  }
  return null;
}

function hostControls(seat) {
  const links = me().invites || {};
  const level = h("select", { "aria-label": "bot level" }, (game ? game.bots : ["random"]).map((l) => h("option", { value: l }, l)));
  return h("span.host-controls", {},
    level,
    h("button", { "data-fill-bot": seat, onclick: async () => {
      try { await api(`/api/tables/${tableId}/bot`, { host: me().host, seat, level: level.value }); } catch (e) { $("error").textContent = e.message; }
    } }, "Fill with bot"),
    links[seat] ? h("input.invite-link", { readonly: true, value: links[seat], size: 44, title: "send this link to a friend", onclick: (e) => e.target.select() })
      : h("button", { "data-invite": seat, onclick: async () => {
        try {
          const res = await api(`/api/tables/${tableId}/invite`, { host: me().host, seat });
          const link = res.link.startsWith("/") ? `${location.origin}${res.link}` : res.link;
          save(tableId, { invites: { ...(me().invites || {}), [seat]: link } });
          navigator.clipboard?.writeText(link).catch(() => {});
          if (last) draw();
        } catch (e) { $("error").textContent = e.message; }
      } }, "Invite link"),
    friends.length ? h("select", { "data-invite-friend": seat, "aria-label": "invite a friend", onchange: async (e) => {
      try { await api(`/api/tables/${tableId}/invite_friend`, { seat, username: e.target.value, host: me().host }); } catch (err) { $("error").textContent = err.message; }
    } }, h("option", { value: "" }, "invite a friend…"), friends.map((f) => h("option", { value: f }, f))) : null);
}

function drawSit() {
  const m = me();
  const box = $("sit");
  const open = last.seats.filter((s) => s.kind === "open");
  const invite = m.invite && last.seats[m.invite.seat] && last.seats[m.invite.seat].kind === "invited" ? m.invite : null;
  if (last.seat !== null || last.status !== "open" || (!open.length && !invite)) { box.replaceChildren(); return; }
  const name = h("input", { id: "sit-name", maxlength: 40, placeholder: "your name", value: myName(), hidden: !!account });
  const sit = async (seat, secret) => {
    const n = account ? account.username : name.value.trim();
    if (!n) { name.focus(); return; }
    if (!account) setMyName(n);
    try {
      const res = await api(`/api/tables/${tableId}/join`, { seat, name: n, secret: secret || null });
      if (account) { accountSeat = res.seat; save(tableId, { invite: null }); }  // the account holds it
      else save(tableId, { seat: res.seat, secret: res.secret, invite: null });
      refusals = 0;
      ws.close();
    } catch (e) { $("error").textContent = e.message; }
  };
  box.replaceChildren(h("span", {}, account ? `Take a seat as ${account.username} ` : "Take a seat as "), name,
    invite ? h("button.primary", { "data-sit": invite.seat, onclick: () => sit(invite.seat, invite.secret) }, `Accept the invitation (seat ${invite.seat + 1})`)
      : open.map((s) => h("button.primary", { "data-sit": s.seat, onclick: () => sit(s.seat) }, `Sit at seat ${s.seat + 1}`)));
}

function drawStatus() {
  const title = game ? game.title : last.game;
  $("title").textContent = `${title} · table #${tableId}`;
  document.title = `meeple — ${title}`;
  let status;
  if (last.status === "open") status = "Waiting for players";
  else if (last.status === "over") status = "Game over";
  else if (last.legal.length) status = "Your turn";
  else status = `${seatName(last.seats, last.to_move)} to move`;
  $("status").textContent = status;
  $("status").className = `status ${last.legal.length ? "yours" : ""}`;
  document.body.classList.toggle("my-turn", last.legal.length > 0);
  document.title = last.legal.length ? `(your turn) ${title} — meeple` : `meeple — ${title}`;
  if (wasStatus !== null && last.legal.length && !wasMyTurn) tell("meeple: your turn", `${title} · table #${tableId}`, location.pathname);
  if (wasStatus === "running" && last.status === "over" && last.seat !== null) tell("meeple: game over", `${title} · table #${tableId}`, location.pathname);
  wasMyTurn = last.legal.length > 0;
  wasStatus = last.status;
  document.body.classList.remove("sending");
  document.body.dataset.move = last.move;      // for people's tools and the browser tests
  document.body.dataset.status = last.status;
}

function drawSeatActions() {
  const mine = last.seat !== null ? last.seats[last.seat] : null;
  const box = $("seat-actions");
  if (!mine || last.status === "over") { patch(box); return; }
  patch(box, mine.zombie
    ? h("button.primary", { id: "reclaim", onclick: () => ws.send(JSON.stringify({ type: "reclaim" })) }, "Take my seat back")
    : h("button", { id: "leave", onclick: () => ws.send(JSON.stringify({ type: "leave" })) }, "Leave (a bot plays for me)"));
}

// The log as the game wrote it for this seat; lines since this seat's last turn are marked new.
function drawLog() {
  const c = ctx();
  if (!last.legal.length && myTurnBefore) seenUpTo = log.length;  // my turn just ended
  myTurnBefore = last.legal.length > 0;
  const box = $("log");
  const grew = log.length > box.children.length;
  patch(box, log.map((ev, i) => h(`li${i >= seenUpTo && seenUpTo > 0 ? ".new" : ""}`, {}, logLine(ev, c))));
  if (grew) box.scrollTop = box.scrollHeight;
}

// The last move, visible: the drawn things (cards, spots, places, players, cells) that look
// different after a redraw are marked "changed" (a glow that fades unless animations are off).
const MARKS = ["data-card", "data-spot", "data-node", "data-player", "data-cell", "data-played", "data-token", "data-colour", "data-seat", "data-slot", "data-pyramid"];
function snapshot(root) {
  const out = new Map();
  for (const a of MARKS) for (const e of root.querySelectorAll(`[${a}]`)) out.set(`${a}=${e.getAttribute(a)}`, strip(e));
  return out;
}
function strip(e) { return e.innerHTML.replace(/ (data-action|class|title|tabindex|role|aria-label)="[^"]*"/g, ""); }
function markChanged(root, before) {
  if (!before.size) return;
  for (const a of MARKS) {
    for (const e of root.querySelectorAll(`[${a}]`)) {
      const was = before.get(`${a}=${e.getAttribute(a)}`);
      if (was === undefined || was !== strip(e)) e.classList.add("changed");
    }
  }
}

// Cards and pieces move: a card, token, pyramid or die that is drawn somewhere else after a
// move slides there from where it was (FLIP: first, last, invert, play). Off with animations.
const MOVERS = ["data-card", "data-token", "data-pyramid", "data-die"];
function positions(root) {
  const out = new Map();
  for (const a of MOVERS) for (const e of root.querySelectorAll(`[${a}]`)) out.set(`${a}=${e.getAttribute(a)}`, e.getBoundingClientRect());
  return out;
}
function slide(root, was) {
  if (document.body.classList.contains("no-anim") || !was.size) return;
  for (const a of MOVERS) {
    for (const e of root.querySelectorAll(`[${a}]`)) {
      const r0 = was.get(`${a}=${e.getAttribute(a)}`);
      if (!r0) continue;
      const r1 = e.getBoundingClientRect();
      const dx = r0.left - r1.left, dy = r0.top - r1.top;
      if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
      e.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: 350, easing: "ease-out" });
    }
  }
}

// Choices on the drawing work from the keyboard too: Tab to a highlighted spot, Enter or Space.
// Hovering a choice says what it would do (the game's own label), in SVG drawings too.
function keyboardChoices(root) {
  const labels = new Map(last.legal.map((c) => [String(c.id), c.label]));
  for (const node of root.querySelectorAll("[data-action]")) {
    const label = labels.get(node.getAttribute("data-action"));
    if (label) {
      node.setAttribute("aria-label", label);
      if (node instanceof SVGElement) {
        let t = node.querySelector(":scope > title");
        if (!t) { t = document.createElementNS("http://www.w3.org/2000/svg", "title"); node.prepend(t); }
        if (!t.textContent.startsWith(label)) t.textContent = t.textContent ? `${label} — ${t.textContent}` : label;
      } else if (!node.getAttribute("title")) {
        node.setAttribute("title", label);
      }
    }
    if (node.tagName === "BUTTON") continue;
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
  }
}
$("board").addEventListener("keydown", (e) => {  // one listener for every drawn choice
  const node = e.target.closest?.("[data-action]");
  if (!node || node.tagName === "BUTTON" || (e.key !== "Enter" && e.key !== " ")) return;
  e.preventDefault();
  node.dispatchEvent(new MouseEvent("click", { bubbles: true }));
});

// The rules panel: the game's summary (web/rules.json), the player-count differences, this
// table's options and where the rulings are written down.
async function drawRules() {
  const body = $("rules-body");
  let r = null;
  try { r = await api(`/games/${game.id}/web/rules.json`); } catch { r = null; }
  const opts = (game.options || []).map((o) => {
    const v = info && info.options && o.name in info.options ? info.options[o.name] : o.default;
    const [title, ...rest] = o.description.split(": ");
    return h("li", {}, h("b", {}, `${title}: `), v === null ? "standard" : v === true ? "on" : v === false ? "off" : String(v).replace(/_/g, " "),
      rest.length ? h("span.muted", {}, ` — ${rest.join(": ")}`) : null);
  });
  body.replaceChildren(...[
    r ? h("ul.rules-summary", {}, r.summary.map((x) => h("li", {}, x))) : h("p", {}, game.description || ""),
    r && r.players ? [h("h4", {}, `Player counts (this table: ${info ? info.players : "?"})`), h("ul", {}, r.players.map((x) => h("li", {}, x)))] : null,
    opts.length ? [h("h4", {}, "Options at this table"), h("ul.rules-options", {}, opts)] : h("p.muted", {}, "This game has no options."),
    h("p", {}, h("a", { href: `/rulings/${encodeURIComponent(game.id)}`, target: "_blank", rel: "noopener" }, "Rulings"),
      h("span.muted", {}, " — how meeple reads the rulebook where it is unclear, and which components are reconstructed.")),
  ].flat().filter(Boolean));
}

// Animations can be turned off (and are off when the system asks for reduced motion).
function setupAnimations() {
  const box = $("anim");
  const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  const stored = localStorage.getItem("meeple:animations");
  box.checked = stored === null ? !reduced : stored === "on";
  const apply = () => document.body.classList.toggle("no-anim", !box.checked);
  box.addEventListener("change", () => { localStorage.setItem("meeple:animations", box.checked ? "on" : "off"); apply(); });
  apply();
}

let ratings = null;      // what this finished table did to ratings (asked once it is over)
let ratingsAsked = false;
function drawEnd() {
  const end = $("end");
  if (last.status !== "over") { end.hidden = true; return; }
  if (!ratingsAsked) {
    ratingsAsked = true;
    tableRatings(tableId).then((r) => { ratings = r; if (r && r.rated && last) drawEnd(); });
  }
  const scoring = scoringTable({ view: last.view, seats: last.seats, ranking: last.ranking, scores: last.scores, seat: last.seat, ratings });
  const order = last.seats.map((s) => s.seat).sort((a, b) => last.ranking[a] - last.ranking[b]);
  const m = me();
  const rematch = async () => {
    try {
      // an account's seat needs no secret: the server knows whose it is
      const res = await api(`/api/tables/${tableId}/rematch`, m.secret ? { seat: m.seat, secret: m.secret }
        : account && last.seat !== null ? { seat: last.seat } : { secret: m.host });
      save(res.id, account && res.seat !== undefined ? { host: res.host || null } : { host: res.host || null, seat: res.seat ?? null, secret: res.secret || null });
      location.href = `/table/${res.id}`;
    } catch (e) { $("error").textContent = e.message; }
  };
  end.hidden = false;
  end.replaceChildren(h("h2", {}, "Game over"),
    scoring || h("ol.places", {}, order.map((p) => h("li", { "data-place": last.ranking[p] },
      h("strong", {}, `${ordinal(last.ranking[p])} `), seatName(last.seats, p),
      h("span.muted", {}, ` — score ${last.scores[p]}`), p === last.seat ? h("span.tag", {}, "you") : null))),
    h("div.end-actions", {},
      (m.secret || m.host || (account && last.seat !== null)) ? h("button.primary", { id: "rematch", onclick: rematch }, last.rematch ? "Join the rematch" : "Rematch") : null,
      last.rematch && !(m.secret || m.host || (account && last.seat !== null)) ? h("a.button", { href: `/table/${last.rematch}` }, "Watch the rematch") : null,
      h("a.button", { href: `/replay/${tableId}${last.seat !== null ? `?seat=${last.seat}` : ""}` }, "Replay"),
      last.seat !== null ? h("a.button", { id: "analyse-link", href: `/replay/${tableId}?seat=${last.seat}&analyse=1` }, "Analyse my game") : null,
      h("a.button", { href: "/" }, "Lobby"),
      h("button", { id: "hide-end", onclick: () => { end.hidden = true; } }, "Look at the table")));
}

function tick() {
  if (!last || !last.deadline || last.status !== "running") { $("clock").textContent = ""; return; }
  $("clock").textContent = clockText(untilDeadline(last));
}

// Chat lines go in as text (textContent through h()), never as HTML. Mutes: an account's are
// applied by the server; a guest's live in this browser, by name.
function mutedNames() { try { return JSON.parse(localStorage.getItem("meeple:muted")) || []; } catch { return []; } }
function drawChat() {
  const muted = new Set([...mutedNames(), ...((account && account.mutes) || [])]);
  const box = $("chat");
  box.replaceChildren(...chat.filter((m) => !muted.has(m.name)).map((m) => h("li", { "data-chat": m.id },
    h("span.who", {}, m.name), m.text,
    (!last || m.seat !== last.seat || m.seat === null) && m.name !== (account && account.username)
      ? h("button.mute", { title: `mute ${m.name}`, onclick: () => mute(m) }, "mute") : null)));
  box.scrollTop = box.scrollHeight;
}
async function mute(m) {
  if (account && m.account) {
    try { account.mutes = (await api("/api/mutes", { username: m.name })).mutes; } catch (e) { $("error").textContent = e.message; }
  } else {
    localStorage.setItem("meeple:muted", JSON.stringify([...mutedNames(), m.name]));
  }
  drawChat();
}
$("chat-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("chat-text").value.trim();
  if (!text || !ws || ws.readyState !== 1) return;
  ws.send(JSON.stringify({ type: "chat", text }));
  $("chat-text").value = "";
});

// Focus stays on what had it; if that is gone (a played card), it goes to the part of the page
// it was in rather than to the page's body, so the keyboard and a screen reader keep their place.
const PARTS = ["board", "choices", "undo", "seats", "seat-actions"];
function keepFocus(drawAll) {
  const had = document.activeElement;
  const part = had && PARTS.find((id) => $(id).contains(had));
  drawAll();
  if (part && !had.isConnected) {  // (an emptied part is hidden: then the board)
    for (const id of [part, "board"]) {
      $(id).setAttribute("tabindex", "-1");
      $(id).focus({ preventScroll: true });
      if (document.activeElement === $(id)) break;
    }
  }
}

function draw() { keepFocus(drawAll); }

function drawAll() {
  const c = ctx();
  drawStatus();
  drawSeats();
  drawSit();
  const before = snapshot($("board"));
  const places = positions($("board"));
  try { renderer.render($("board"), c); } catch (err) { console.error(err); }
  markChanged($("board"), before);
  slide($("board"), places);
  keyboardChoices($("board"));
  drawUndo();
  choicesPanel($("choices"), c);
  drawSeatActions();
  drawLog();
  drawEnd();
  tick();
}

games = await api("/api/games");
let accountSeat = null;
try {
  account = await navbar();
  info = await api(`/api/tables/${tableId}`);
  const own = account ? info.seats.find((s) => s.account && s.name === account.username) : null;
  if (own && !me().secret) accountSeat = own.seat;
  if (account && me().host) friends = (await api("/api/friends")).friends.map((f) => f.username);
  game = games.find((g) => g.id === info.game) || { id: info.game, title: info.game, bots: ["random"] };
  renderer = await loadRenderer(game);
  setupAnimations();
  drawRules();
  connect();
  setInterval(() => { tick(); tickClocks(last); }, 500);
} catch (err) {
  $("error").textContent = err.message;
  $("conn").textContent = "";
}
