// Log in, register, change password; the Play now bot preference and API tokens.
import { api, h } from "./common.js";
import { navbar } from "./account.js";
import { sameOriginPath } from "./next_url.js";

const $ = (id) => document.getElementById(id);
const me = await navbar();
const next = new URLSearchParams(location.search).get("next");
const go = () => { location.href = sameOriginPath(next); };
if (me) {
  $("out-box").hidden = true; $("in-box").hidden = false;
  $("hello").textContent = `Logged in as ${me.username}`;
}
async function send(path) {
  $("error").textContent = "";
  try { await api(path, { username: $("username").value.trim(), password: $("password").value }); go(); }
  catch (e) { $("error").textContent = e.message; }
}
$("auth").addEventListener("submit", (e) => { e.preventDefault(); send("/api/login"); });
$("register").addEventListener("click", () => { if ($("auth").reportValidity()) send("/api/register"); });
$("change").addEventListener("submit", async (e) => {
  e.preventDefault();
  try { await api("/api/password", { old: $("old").value, new: $("new").value }); $("error").textContent = "Password changed."; }
  catch (err) { $("error").textContent = err.message; }
});

// API tokens (shown once at creation, listed by their first characters) and no_bots.
async function drawTokens() {
  const { tokens } = await api("/api/tokens");
  $("tokens").replaceChildren(...tokens.map((t) => h("li", { "data-token": t.id },
    h("strong", {}, t.name), `: ${t.prefix}… (${t.scopes.join(", ")}), made ${t.created_at.slice(0, 10)} `,
    h("button", { "aria-label": `Revoke the token ${t.name} (${t.prefix}…)`, onclick: () => revoke(t) }, "Revoke"))));
  if (!tokens.length) $("tokens").replaceChildren(h("li.muted", {}, "No token."));
}
async function revoke(t) {
  // A program using it stops at once and the token cannot be brought back: ask first.
  if (!confirm(`Revoke the token "${t.name}" (${t.prefix}…)? Programs using it stop at once.`)) return;
  try { await api(`/api/tokens/${t.id}/revoke`, {}); } catch (err) { $("error").textContent = err.message; }
  drawTokens();
}
function showNew(t) {
  const secret = h("input", { id: "token-secret", readonly: true, value: t.token, size: 50,
    "aria-label": "your new token", onfocus: (e) => e.target.select() });
  const said = h("span.muted", { id: "token-copied", role: "status" });
  const copy = h("button", { id: "token-copy", type: "button", onclick: async () => {
    try { await navigator.clipboard.writeText(t.token); said.textContent = "Copied."; }
    catch { secret.select(); said.textContent = "Select it and copy (Ctrl+C)."; }
  } }, "Copy");
  const example = `curl -X POST -H "Authorization: Bearer <the token>" ${location.origin}/api/bot/account/upgrade`;
  $("token-new").replaceChildren(
    h("p", {}, h("strong", {}, `Your new token "${t.name}"`), ": copy it now, it is not shown again."),
    h("p.token-secret", {}, secret, " ", copy, " ", said),
    me.bot || !t.scopes.includes("bot:play") ? null
      : h("p.muted", {}, "To make this account a bot account, for good: ", h("code", {}, example)));
}
if (me) {
  $("bot-state").hidden = !me.bot;
  $("no-bots").checked = Boolean(me.no_bots);
  $("no-bots").addEventListener("change", () => api("/api/me/no_bots", { no_bots: $("no-bots").checked }));
  $("token-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    $("error").textContent = "";
    const scopes = [...document.querySelectorAll('#token-form input[name="scope"]:checked')].map((i) => i.value);
    if (!scopes.length) { $("error").textContent = "Choose at least one thing the token may do."; return; }
    try {
      showNew(await api("/api/tokens", { name: $("token-name").value.trim(), scopes }));
      drawTokens();
    } catch (err) { $("error").textContent = err.message; }
  });
  drawTokens();
}
