// The service worker: shows what the server pushes (your turn, an invitation, a game's end)
// and opens its page when the notification is clicked.
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch { data = { title: "meeple", body: event.data.text() }; }
  event.waitUntil(self.registration.showNotification(data.title || "meeple", {
    body: data.body || "", tag: data.tag, data: { url: data.url || "/" },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(self.clients.matchAll({ type: "window" }).then((wins) => {
    for (const w of wins) if (w.url === url && "focus" in w) return w.focus();
    return self.clients.openWindow(url);
  }));
});
