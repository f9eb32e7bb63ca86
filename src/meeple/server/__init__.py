"""The web platform: lobby, tables, WebSocket play, storage, pub/sub. See docs/web.md."""

from .app import create_app
from .config import Settings

__all__ = ["Settings", "create_app"]
