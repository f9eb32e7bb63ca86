// Being told: a short sound, the tab title, and a browser notification while the tab is hidden
// (once the player allowed it by a click: never asked on page load). `enableNotifications()`
// (from a click) also subscribes this browser to Web Push when the server has VAPID keys, so
// the player is told with no tab open.
import { api } from "./common.js";

let audio = null;
export function chime() {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const t = audio.currentTime;
    for (const [i, f] of [660, 880].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.0001, t + i * 0.15);
      gain.gain.exponentialRampToValueAtTime(0.2, t + i * 0.15 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + i * 0.15 + 0.14);
      osc.connect(gain).connect(audio.destination);
      osc.start(t + i * 0.15);
      osc.stop(t + i * 0.15 + 0.15);
    }
  } catch { /* no sound here: the title and the notification still tell */ }
  document.body.dataset.chimes = String(Number(document.body.dataset.chimes || 0) + 1);
}

// Sound, and a browser notification when the tab is hidden and the player allowed it.
export function tell(title, body, url) {
  chime();
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    const n = new Notification(title, { body, tag: url || title });
    if (url) n.onclick = () => { window.focus(); location.href = url; };
  }
}

function keyBytes(b64) {
  const s = atob(b64.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

// From a click only. Returns a sentence saying what is now on.
export async function enableNotifications() {
  if (!("Notification" in window)) return "This browser shows no notifications.";
  const permission = await Notification.requestPermission();
  if (permission !== "granted") return "Notifications are blocked for this site.";
  let settings = null;
  try { settings = await api("/api/notify"); } catch { return "Notifications on while this tab is open."; }
  if (!settings.push_key || !("serviceWorker" in navigator) || !("PushManager" in window)) {
    return "Notifications on while a meeple tab is open.";
  }
  try {
    const reg = await navigator.serviceWorker.register("/static/sw.js");
    await navigator.serviceWorker.ready;
    const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(settings.push_key) });
    await api("/api/notify/push", sub.toJSON());
    return "Notifications on, also with no meeple tab open.";
  } catch (e) {
    return `Notifications on while a meeple tab is open (push: ${e.message}).`;
  }
}

export async function disablePush() {
  if (!("serviceWorker" in navigator)) return;
  const reg = await navigator.serviceWorker.getRegistration("/static/");
  const sub = reg && await reg.pushManager.getSubscription();
  if (sub) {
    await api("/api/notify/push/remove", { endpoint: sub.endpoint });
    await sub.unsubscribe();
  }
}
