// Where to go after logging in: a `next` is followed only if it resolves to this site's origin.
// It is parsed as a URL against the page's origin, as the browser itself would resolve it, so
// "\\", tabs, "//host", "/%5Chost" (decoded by URLSearchParams) and "javascript:" cannot lead away.
export function sameOriginPath(next, fallback = "/play", origin = location.origin) {
  if (!next) return fallback;
  let url;
  try { url = new URL(next, origin); } catch { return fallback; }
  if (url.origin !== origin || !["http:", "https:"].includes(url.protocol)) return fallback;
  return url.pathname + url.search + url.hash;
}
