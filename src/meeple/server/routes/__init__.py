"""The app's own routes, one `APIRouter` per area; each takes what it needs with ``Depends``
(`meeple.server.deps`). Accounts, ratings, friends, Play now, notifications, analysis and the
Bot API keep their routers beside their logic (``<module>.router``)."""
