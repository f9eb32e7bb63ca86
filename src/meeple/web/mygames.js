// Every table where my account has a seat; mine to move first. The tab title counts them and a
// browser notification says "your turn" when a new one comes.
import { api, h } from "./common.js";
import { navbar } from "./account.js";

const $ = (id) => document.getElementById(id);
const me = await navbar();
if (!me) location.href = "/account?next=/my";
let known = new Set();
$("notify").addEventListener("click", () => { if ("Notification" in window) Notification.requestPermission(); });
async function refresh() {
  try {
    const { tables } = await api("/api/my/tables");
    const turns = tables.filter((t) => t.my_turn);
    document.title = turns.length ? `(${turns.length}) your turn — meeple` : "meeple — my games";
    for (const t of turns) {
      if (!known.has(t.id) && document.hidden && "Notification" in window && Notification.permission === "granted") {
        new Notification("meeple: your turn", { body: `${t.game} · table #${t.id}` });
      }
    }
    known = new Set(turns.map((t) => t.id));
    $("tables").replaceChildren(...(tables.length ? tables.map((t) => h("div.table-row", { "data-table": t.id },
      h("strong", {}, t.game), h("span.muted", {}, `#${t.id}`),
      t.my_turn ? h("span.status.yours", {}, "your turn") : h("span.muted", {}, t.status),
      h("a.button", { href: `/table/${t.id}` }, "Open"))) : [h("p.muted", {}, "no tables; try Play now")]));
  } catch (e) { $("error").textContent = e.message; }
}
if (me) {  // a guest is on the way to the log-in page: no call that would answer 401
  await refresh();
  setInterval(refresh, 10000);
}
