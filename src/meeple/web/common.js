// Shared browser helpers: API calls, stored seat secrets, small DOM builder. No build step.

export async function api(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
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
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function seatName(seats, n) {
  const s = seats && seats[n];
  if (!s) return `Seat ${n + 1}`;
  return s.name || (s.kind === "invited" ? "(invited)" : `Seat ${n + 1}`);
}

export function ordinal(n) { return n + (["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) ? 0 : n % 10] || "th"); }
