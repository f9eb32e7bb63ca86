// Patching instead of redrawing: a part of the page is drawn afresh into a detached copy and
// the live part is changed to match it (morphdom), so the nodes that stay the same stay the same
// objects. Keyboard focus, a screen reader's place, scroll positions and log lines survive a move.
//
// A reused node keeps its own event listeners, which would call the old choices, so listeners
// are added through listen() (h() and svg() do), which records them: a patch swaps a reused
// node's recorded listeners for the new drawing's.
import morphdom from "./morphdom.js";

const ON = Symbol("meeple listeners");

export function listen(el, type, fn, opts) {
  el.addEventListener(type, fn, opts);
  (el[ON] ||= []).push([type, fn, opts]);
  return el;
}

function swapListeners(from, to) {
  for (const [type, fn, opts] of from[ON] || []) from.removeEventListener(type, fn, opts);
  from[ON] = to[ON] || [];
  for (const [type, fn, opts] of from[ON]) from.addEventListener(type, fn, opts);
}

// Make target's children those given (nodes, strings, nested arrays; null skipped).
export function patch(target, ...children) {
  const next = target.cloneNode(false);
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    next.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  patchFrom(target, next);
}

// Make target's children those of next (a detached element of the same kind).
export function patchFrom(target, next) {
  morphdom(target, next, {
    childrenOnly: true,
    onBeforeElUpdated(from, to) { swapListeners(from, to); return true; },
  });
}
