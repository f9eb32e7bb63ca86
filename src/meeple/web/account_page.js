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
    `${t.name}: ${t.prefix}… (${t.scopes.join(", ")}) `,
    h("button", { onclick: async () => { await api(`/api/tokens/${t.id}/revoke`, {}); drawTokens(); } }, "Revoke"))));
}
if (me) {
  $("no-bots").checked = Boolean(me.no_bots);
  $("no-bots").addEventListener("change", () => api("/api/me/no_bots", { no_bots: $("no-bots").checked }));
  $("token-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const t = await api("/api/tokens", { name: $("token-name").value.trim() });
      $("token-new").textContent = `Your new token (copy it now, it is not shown again): ${t.token}`;
      drawTokens();
    } catch (err) { $("error").textContent = err.message; }
  });
  drawTokens();
}
