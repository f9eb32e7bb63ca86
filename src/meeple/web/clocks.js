// Each seat's clock, and the vote on a player who ran out of time or is away: drawn into the
// seats panel by table.js and counted down here between state messages. The server's clocks
// decide; the page only shows them (its own clock corrected by the server's `server_now`).
import { h } from "./common.js";

let offset = 0;    // the server's clock minus this browser's, in seconds
let received = 0;  // this browser's clock when the last state message came

const local = () => Date.now() / 1000;

export function noteServerTime(msg) {
  received = local();
  if (typeof msg.server_now === "number") offset = msg.server_now - received;
}

export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s >= 86400) return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// Seconds until the seat to move runs out, by the server's clock.
export function untilDeadline(last) { return last.deadline - (local() + offset); }

function timeLeft(last, seat) {
  if (last.status === "running" && seat === last.to_move && last.deadline) return untilDeadline(last);
  return last.clocks ? last.clocks[seat] : null;
}

function clockLabel(last, seat) {
  const sp = last.speed;
  if (!sp) return null;
  if (sp.mode === "realtime" && last.clocks) return clockText(timeLeft(last, seat));
  if (sp.mode === "turn" && last.deadline && seat === last.to_move && last.status === "running") {
    const by = new Date((last.deadline - offset) * 1000);
    return `move by ${by.toLocaleString([], { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" })}`;
  }
  return null;
}

// The clock tag of a seat (real time: every seat's bank; turn-based: the mover's deadline).
export function seatClock(last, s) {
  const text = clockLabel(last, s.seat);
  if (text === null) return null;
  const low = last.speed.mode === "realtime" && s.seat === last.to_move && timeLeft(last, s.seat) < 10;
  return h(`span.tag.seat-clock${low ? ".warn" : ""}`, { "data-clock": s.seat, title: "time left on this seat's clock" }, text);
}

// What the seat's clock did: a bot plays this one turn, or the others may vote.
export function clockTags(last, s) {
  return [
    last.skipping === s.seat ? h("span.tag.warn", { "data-skipped": s.seat }, "out of time: a bot plays this turn; the seat stays theirs") : null,
    (last.timed_out || []).includes(s.seat) ? h("span.tag.warn", {}, "out of time") : null,
  ];
}

// "Vote to replace by a bot": for the other people at the table, once a player's clock ran out
// (under the vote rule) or they have been away longer than the table allows.
export function voteButton(last, s, send) {
  if (last.status !== "running" || last.seat === null || s.seat === last.seat || s.kind !== "human") return null;
  const me = last.seats[last.seat];
  if (!me || me.kind !== "human" || me.zombie) return null;
  const out = (last.timed_out || []).includes(s.seat);
  if (!out && (s.connected || typeof s.away !== "number")) return null;
  const at = out ? 0 : received + (last.speed.absent - s.away);
  const votes = (last.votes || {})[s.seat] || 0;
  const why = out ? "out of time" : "away";
  return h("button.vote", {
    "data-vote": s.seat, "data-at": at, hidden: local() < at,
    title: "a majority of the players here replaces them by a bot for the rest of the game",
    onclick: () => send({ type: "vote", seat: s.seat }),
  }, votes ? `Vote to replace by a bot (${votes} so far)` : `${why[0].toUpperCase()}${why.slice(1)}: vote to replace by a bot`);
}

export function voteText(msg) {
  return msg.replaced ? "Replaced by a bot." : `Your vote counts: ${msg.votes} of ${msg.needed} needed.`;
}

// Twice a second: the running clock counts down, and a vote opens when its time comes.
export function tickClocks(last) {
  if (!last) return;
  for (const el of document.querySelectorAll("[data-clock]")) {
    const text = clockLabel(last, Number(el.dataset.clock));
    if (text !== null && el.textContent !== text) el.textContent = text;
  }
  for (const el of document.querySelectorAll("[data-vote]")) el.hidden = local() < Number(el.dataset.at);
}
