// Who is logged in, and the header links every page shows (Play now, My games, leaderboards).
import { api, h } from "./common.js";

let meCache;
export async function whoami() {
  if (meCache === undefined) {
    const res = await fetch("/api/session");  // 200 for a guest too (/api/me answers 401)
    meCache = res.ok ? (await res.json()).user : null;
  }
  return meCache;
}

export async function navbar() {
  const header = document.querySelector("header.top");
  if (!header) return null;
  const me = await whoami();
  const links = h("nav.account-nav", {},
    h("a", { href: "/play" }, "Play now"), h("a", { href: "/my" }, "My games"),
    h("a", { href: "/leaderboard/trickarus" }, "Leaderboards"),
    me ? h("a", { href: `/player/${encodeURIComponent(me.username)}`, id: "nav-me" }, me.username)
      : h("a", { href: "/account", id: "nav-login" }, "Log in"),
    me ? h("button", { id: "nav-logout", onclick: async () => { await api("/api/logout", {}); location.reload(); } }, "Log out") : null);
  header.append(links);
  return me;
}

// A rating as shown: the number, a "?" while provisional, and the change of the last game.
export function ratingText(r) { return `${r.rating}${r.provisional ? "?" : ""}`; }
