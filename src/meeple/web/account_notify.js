// The account page's notifications: an email address (confirmed by a mailed link, on or off)
// and this browser's notifications (Web Push when the server has keys).
import { api } from "./common.js";
import { whoami } from "./account.js";
import { disablePush, enableNotifications } from "./notify.js";

const $ = (id) => document.getElementById(id);

function draw(s) {
  $("email").value = s.email || "";
  $("email-state").textContent = !s.mail ? "This server sends no mail."
    : !s.email ? "No address: no mail." : !s.confirmed ? "Waiting for you to click the link mailed to this address."
      : s.email_on ? "Confirmed: you get mail." : "Confirmed, but mail is off (unsubscribed).";
  $("email-toggle").hidden = !(s.email && s.confirmed);
  $("email-toggle").textContent = s.email_on ? "Stop mail" : "Mail me again";
  $("email-toggle").onclick = async () => draw(await api("/api/notify/email_on", { on: !s.email_on }));
  $("push-off").hidden = !s.push_subscriptions;
  $("push-state").textContent = s.push_subscriptions ? `${s.push_subscriptions} browser(s) notified` : "";
}

if (await whoami()) {
  draw(await api("/api/notify"));
  $("email-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try { draw(await api("/api/notify/email", { email: $("email").value.trim() || null })); } catch (err) { $("email-state").textContent = err.message; }
  });
  $("push-on").addEventListener("click", async () => {
    const said = await enableNotifications();
    draw(await api("/api/notify"));
    $("push-state").textContent = said;
  });
  $("push-off").addEventListener("click", async () => { await disablePush(); draw(await api("/api/notify")); });
}
