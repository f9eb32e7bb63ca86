// Log in, register, change password.
import { api } from "./common.js";
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
