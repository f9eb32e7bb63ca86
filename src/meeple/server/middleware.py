"""The ASGI middleware around every request: body size cap, public address, client cookie."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import JSONResponse

from .tables import new_secret

MAX_BODY = 16 * 1024
CLIENT_COOKIE = "meeple_client"
_CLIENT_TOKEN = re.compile(r"^[A-Za-z0-9_\-]{16,64}$")


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes (413) before anyone parses them.

    A pure ASGI middleware: the bytes are counted as they stream in, so a chunked body (no
    content-length) is cut at the limit too instead of being read whole. Bodies under the limit
    are buffered (they are small) and handed on unchanged.
    """

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await _too_large(send)
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await _too_large(send)
                return
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _too_large(send: Any) -> None:
    await JSONResponse({"error": "too_large", "detail": "request too large"}, 413)(
        {"type": "http"}, None, send
    )


class PublicURL:
    """Make every request look as if it came to the public address (scheme and host), so each
    redirect and link the app builds from the request points there, whatever Host header or
    scheme the proxy in front passed on."""

    def __init__(self, app: Any, url: str) -> None:
        self.app = app
        parts = urlsplit(url)
        self.https = parts.scheme == "https"
        self.host = parts.netloc.encode("latin-1")
        port = parts.port or (443 if self.https else 80)
        self.server = (parts.hostname or "", port)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            secure = {"http": "https", "websocket": "wss"}[scope["type"]]
            plain = {"http": "http", "websocket": "ws"}[scope["type"]]
            headers = [(k, v) for k, v in scope.get("headers", []) if k != b"host"]
            scope = {
                **scope,
                "scheme": secure if self.https else plain,
                "server": self.server,
                "headers": [(b"host", self.host), *headers],
            }
        await self.app(scope, receive, send)


class ClientCookie:
    """Give each browser a random client token (an HttpOnly cookie) on its first response.

    It tells the server "the same browser" (one open seat per browser and table); it is no
    secret of any seat. ``Secure`` when the public address is https.
    """

    def __init__(self, app: Any, secure: bool = False) -> None:
        self.app = app
        self.secure = secure

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or client_token(Request(scope)):
            await self.app(scope, receive, send)
            return
        cookie = (
            f"{CLIENT_COOKIE}={new_secret()}; Path=/; Max-Age=31536000; HttpOnly; "
            f"SameSite=Lax{'; Secure' if self.secure else ''}"
        )

        async def with_cookie(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (b"set-cookie", cookie.encode())],
                }
            await send(message)

        await self.app(scope, receive, with_cookie)


def client_token(request: Request) -> str | None:
    token = request.cookies.get(CLIENT_COOKIE)
    return token if token and _CLIENT_TOKEN.match(token) else None
