// Shared browser helpers: API calls, stored seat secrets, small DOM builder. No build step.
import { listen } from "./patch.js";

// A POST carries an Idempotency-Key: if its answer is lost on the way (a network error, a
// server restarting), it is sent again with the same key and gets the first answer, never a
// second table or seat.
export async function api(path, body) {
  let res;
  if (body === undefined) res = await fetch(path);
  else {
    const key = crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const init = {
      method: "POST", body: JSON.stringify(body),
      headers: { "content-type": "application/json", "idempotency-key": key },
    };
    for (let attempt = 0; ; attempt++) {
      try {
        res = await fetch(path, init);
        if (res.status !== 503 && !(res.status === 409 && attempt < 5 && (await res.clone().json().catch(() => ({}))).error === "in_progress")) break;
      } catch (e) { if (attempt >= 3) throw e; }
      if (attempt >= 5) break;
      await new Promise((r) => setTimeout(r, 300 * (attempt + 1)));
    }
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const detail = typeof data.detail === "string" ? data.detail
      : Array.isArray(data.detail) ? data.detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`).join("; ")
      : res.statusText;
    throw new Error(detail);
  }
  return data;
}

// Seat secrets live in this browser only (localStorage), never in a URL the server logs.
export function saved(tableId) {
  try { return JSON.parse(localStorage.getItem(`meeple:table:${tableId}`)) || {}; } catch { return {}; }
}
export function save(tableId, patch) {
  const value = { ...saved(tableId), ...patch };
  localStorage.setItem(`meeple:table:${tableId}`, JSON.stringify(value));
  return value;
}
export function myName() { return localStorage.getItem("meeple:name") || ""; }
export function setMyName(name) { localStorage.setItem("meeple:name", name); }

// h("div.card.legal", {onclick}, child, "text") -> element
export function h(tag, attrs, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) listen(el, k.slice(2), v);  // recorded, so a patch can swap it
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// svg("circle", {r: 4, onclick}, child) -> an SVG element (attributes as given, no class syntax)
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k.startsWith("on")) listen(el, k.slice(2), v); else el.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c instanceof Node ? c : String(c));
  return el;
}

export function seatName(seats, n) {
  const s = seats && seats[n];
  if (!s) return `Seat ${n + 1}`;
  if (s.name && s.bot_account) return `${s.name} (bot)`;  // a bot account: a program plays it
  return s.name || (s.kind === "invited" ? "(invited)" : `Seat ${n + 1}`);
}

// An option in players' words: its description reads "Title: what it does"; values read as
// words ("yes", "by number", "standard" for the game's own default of null).
export const valueWords = (c) => (c === null ? "standard" : c === true ? "yes" : c === false ? "no" : String(c).replace(/_/g, " "));
export function optionField(opt) {
  const sel = h("select", { name: `opt-${opt.name}`, "data-option": opt.name },
    opt.choices.map((c, i) => h("option", { value: i, selected: JSON.stringify(c) === JSON.stringify(opt.default) }, valueWords(c))));
  const [title, ...rest] = opt.description.split(": ");
  return h("label.field", { title: opt.name }, rest.length ? title : opt.name.replace(/_/g, " "), sel,
    h("small.muted", {}, rest.length ? rest.join(": ") : opt.description));
}

// The options picked in ``form``'s option fields, as the game's values.
export function optionValues(form, game) {
  const options = {};
  for (const sel of form.querySelectorAll("[data-option]")) {
    const opt = game.options.find((o) => o.name === sel.dataset.option);
    options[opt.name] = opt.choices[Number(sel.value)];
  }
  return options;
}

// "1 card", "2 cards"; `many` for a plural that is not word + "s".
export function plural(n, one, many = `${one}s`) { return `${n} ${n === 1 ? one : many}`; }

export function ordinal(n) { return n + (["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) ? 0 : n % 10] || "th"); }
