"""Security headers on every HTTP answer: a Content-Security-Policy the pages keep (scripts only
from this site's files, no inline script, no eval; styles may be inline because the renderers
set CSS variables and inject their stylesheet), and no framing by any other page
(``frame-ancestors 'none'``, and ``X-Frame-Options: DENY`` for older browsers).

The shipped proxy files (deploy/nginx.conf, deploy/Caddyfile) send the same, so a page served
by the proxy from a cache or an error page keeps them too.
"""

from __future__ import annotations

from typing import Any

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
]


class SecurityHeaders:
    """A pure ASGI middleware adding `HEADERS` to each HTTP response that lacks them."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in HEADERS if k not in have]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)
