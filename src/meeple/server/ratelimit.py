"""Rate limits that hold across servers: the `limits` library, on Redis when the servers share
one (``MEEPLE_REDIS_URL``), in memory for a lone server. A moving window per (rule, key).

Every request is counted *before* its work is done (``hit``): the library's hit is atomic on
both storages (a Lua script on Redis), so N concurrent attempts cost N and a burst cannot slip
through between a look and a count. A refusal says how long to wait (``Retry-After``), worked
out from the window itself, so it is true.
"""

from __future__ import annotations

import logging
import math
import os
import time

from limits import parse_many
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from .tables import TableError

log = logging.getLogger("meeple.server")

# rule -> "N/period;M/period" (limits' notation); ``MEEPLE_LIMIT_<RULE>`` (upper case) replaces
# a rule's default. Keys are an address, a username, a device or an account.
RULES: dict[str, str] = {
    "login_user": "5/minute;30/hour",         # logins per username from clients it does not know
    "login_addr": "20/minute;200/hour",       # logins per address from clients it does not know
    "login_device": "10/minute;100/hour",     # logins per known device (its own allowance)
    "password_change": "5/minute;30/hour",    # password changes per account
    "register": "30/hour",                    # accounts created per client address
    "create_table": "30/minute",              # tables created per client address
    "chat": "5/10second;120/hour",            # messages per speaker
    "play": "30/minute",                      # matchmaking requests per account
    "bot": "20/second;3000/minute",           # Bot API requests per token
}


def rule_spec(name: str) -> str:
    return os.environ.get(f"MEEPLE_LIMIT_{name.upper()}") or RULES[name]


class RateLimited(TableError):
    """429 ``rate_limited`` with the seconds to wait (the app sends them as ``Retry-After``)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__("rate_limited", message)
        self.retry_after = retry_after


def wait_words(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    return f"{math.ceil(seconds / 60)} minutes"


class RateLimits:
    """``await hit(rule, key)`` counts one and raises `RateLimited` when over; ``await
    attempt(rule, key)`` counts one and returns the seconds to wait (0 when allowed)."""

    def __init__(self, redis_url: str | None, enabled: bool = True) -> None:
        self.enabled = enabled
        if redis_url:
            self.storage = storage_from_string(f"async+{redis_url}", implementation="redispy",
                                               key_prefix="meeple:limits")
        else:
            self.storage = storage_from_string("async+memory://")
        self.limiter = MovingWindowRateLimiter(self.storage)
        self.rules = {name: parse_many(rule_spec(name)) for name in RULES}

    async def attempt(self, rule: str, key: str) -> int:
        """Count one attempt (atomically); 0 if it is allowed, else the whole seconds until
        the fullest window lets one more through."""
        if not self.enabled:
            return 0
        for item in self.rules[rule]:
            if not await self.limiter.hit(item, rule, key):
                stats = await self.limiter.get_window_stats(item, rule, key)
                # a refused attempt is not counted in the longer windows either
                return max(1, math.ceil(stats.reset_time - time.time()))
        return 0

    async def count(self, rule: str, key: str) -> bool:
        """Count one; False when that went over a limit."""
        return await self.attempt(rule, key) == 0

    async def hit(self, rule: str, key: str, message: str = "too many requests") -> None:
        wait = await self.attempt(rule, key)
        if wait:
            raise RateLimited(f"{message}; try again in {wait_words(wait)}", wait)
