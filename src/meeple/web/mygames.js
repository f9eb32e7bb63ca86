// Every table where my account has a seat, mine to move first, then the ones just finished
// (Rematch). The tab title counts my turns; a sound and a browser notification say "your turn"
// when a new one comes.
import { api, h } from "./common.js";
import { navbar } from "./account.js";
import { enableNotifications, tell } from "./notify.js";

const $ = (id) => document.getElementById(id);
const me = await navbar();
if (!me) location.href = "/account?next=/my";
let known = null;
$("notify").addEventListener("click", async () => { $("notify-state").textContent = await enableNotifications(); });

async function rematch(t) {
  try { location.href = `/table/${(await api(`/api/tables/${t.id}/rematch`, { seat: t.seat })).id}`; } catch (e) { $("error").textContent = e.message; }
}

async function refresh() {
  try {
    const [{ tables }, { tables: done }] = await Promise.all([api("/api/my/tables"), api("/api/my/finished")]);
    const turns = tables.filter((t) => t.my_turn);
    document.title = turns.length ? `(${turns.length}) your turn — meeple` : "meeple — my games";
    if (known !== null && turns.some((t) => !known.has(t.id))) tell("meeple: your turn", "It is your turn at one of your tables.", "/my");
    known = new Set(turns.map((t) => t.id));
    $("tables").replaceChildren(...(tables.length ? tables.map((t) => h("div.table-row", { "data-table": t.id },
      h("strong", {}, t.game), h("span.muted", {}, `#${t.id}`),
      t.my_turn ? h("span.status.yours", {}, "your turn") : h("span.muted", {}, t.status),
      h("a.button", { href: `/table/${t.id}` }, "Play"))) : [h("p.muted", {}, "no tables; try Play now")]));
    $("finished").replaceChildren(...done.map((t) => h("div.table-row", { "data-table": t.id },
      h("strong", {}, t.game), h("span.muted", {}, `#${t.id}`),
      h("span.row-links", {}, t.rematch ? h("a.button", { href: `/table/${t.rematch}` }, "Rematch table")
        : h("button", { "data-rematch": t.id, onclick: () => rematch(t) }, "Rematch"),
      h("a.button", { href: `/replay/${t.id}` }, "Replay")))));
  } catch (e) { $("error").textContent = e.message; }
}
if (me) {  // a guest is on the way to the log-in page: no call that would answer 401
  await refresh();
  setInterval(refresh, 10000);
}
