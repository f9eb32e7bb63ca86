"""Rate limits that hold across servers: the `limits` library, on Redis when the servers share
one (``MEEPLE_REDIS_URL``), in memory for a lone server. A moving window per (rule, key)."""

from __future__ import annotations

import logging

from limits import parse_many
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from .tables import TableError

log = logging.getLogger("meeple.server")

# rule -> "N/period;M/period" (limits' notation). Keys are an address, a username or an account.
RULES: dict[str, str] = {
    "login_fail_user": "5/minute;30/hour",   # failed logins per username (known or not)
    "login_fail_addr": "20/minute;200/hour",  # failed logins per client address
    "register": "30/hour",                    # accounts created per client address
    "create_table": "30/minute",              # tables created per client address
    "chat": "5/10second;120/hour",            # messages per speaker
    "play": "30/minute",                      # matchmaking requests per account
}


class RateLimits:
    """``await hit(rule, key)`` counts one and raises 429 ``rate_limited`` when over;
    ``await over(rule, key)`` only looks (failed logins are counted after they fail)."""

    def __init__(self, redis_url: str | None, enabled: bool = True) -> None:
        self.enabled = enabled
        if redis_url:
            self.storage = storage_from_string(f"async+{redis_url}", implementation="redispy",
                                               key_prefix="meeple:limits")
        else:
            self.storage = storage_from_string("async+memory://")
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.rules = {name: parse_many(spec) for name, spec in RULES.items()}

    async def over(self, rule: str, key: str) -> bool:
        if not self.enabled:
            return False
        for item in self.rules[rule]:
            if not await self.limiter.test(item, rule, key):
                return True
        return False

    async def count(self, rule: str, key: str) -> bool:
        """Count one; False when that went over a limit."""
        if not self.enabled:
            return True
        ok = True
        for item in self.rules[rule]:
            ok = await self.limiter.hit(item, rule, key) and ok
        return ok

    async def hit(self, rule: str, key: str) -> None:
        if not await self.count(rule, key):
            raise TableError("rate_limited", "too many requests; wait a little and try again")
