"""The seats no person plays: bots, and players who left or ran out of time (zombies).

Their moves are chosen in a pool of worker processes (or threads), so the event loop keeps
serving everyone else while a bot thinks. A bot is rebuilt for each move from a seed fixed by
(table, seat, move number), so its choices do not depend on which worker or which server
process runs it, restarts included. Only the server holding a table's lease schedules its bots
and its clock's time-outs. `TableManager` owns one `BotSeats` (``manager.bots``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle
import random
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import meeple
from meeple.bots import levels, make_bot
from meeple.core import State

from . import clocks
from .workers import bot_process_pool

if TYPE_CHECKING:
    from .tables import LiveTable, TableManager

log = logging.getLogger("meeple.server")


def zombie_level(game: str) -> str:
    """The bot that stands in for a player who left: the best named level of the game."""
    info = meeple.game_info(game)
    return "heuristic" if "heuristic" in info.bots else levels(info)[0]


def bot_choose(
    game: str, level: str, seed: int, state: State, max_seconds: float | None = None
) -> int:
    """Run in a worker: a fresh bot of ``level`` picks a move (top level, so it pickles).

    ``max_seconds`` cuts a search bot's think time, whatever budget its level names: a safety
    net only (levels are work budgets), so a move it cuts is logged.
    """
    bot = make_bot(level, meeple.game_info(game), seed)
    if max_seconds is not None and hasattr(bot, "max_seconds"):
        current = getattr(bot, "max_seconds", None)
        bot.max_seconds = max_seconds if current is None else min(current, max_seconds)
    action = bot.choose(state)
    last = getattr(bot, "last", None)
    if getattr(last, "capped", False):
        log.warning(
            "bot %s in %s hit the %.3g s cap after %d iterations",
            level,
            game,
            max_seconds,
            getattr(last, "iterations", 0),
        )
    return action


class BotSeats:
    """Schedules each driven table's next bot move (or its clock's time-out) and runs bots in
    the worker pool, tables taking turns (`fairshare.FairPool`)."""

    def __init__(self, manager: TableManager) -> None:
        self.manager = manager
        self.settings = manager.settings
        self.storage = manager.storage
        self.waiting = 0  # bot moves waiting for (or in) the pool
        # turns in the bot pool and who created which table (fairshare.py; set by the app)
        self.fair: Any = None
        self.visitors: Any = None
        workers = max(1, self.settings.bot_workers)
        self.threads = ThreadPoolExecutor(workers, thread_name_prefix="meeple-bot")
        self.pool: Executor = self.threads
        if self.settings.bot_processes:
            self.pool = bot_process_pool(workers)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.threads.shutdown(wait=False, cancel_futures=True)

    def stop(self, t: LiveTable) -> None:
        """Stop driving the table here: its bot's move and its clock's timer are dropped."""
        if t.bot_task is not None:
            t.bot_task.cancel()
            t.bot_task = None
        if t.timer is not None:
            t.timer.cancel()
            t.timer = None

    def schedule(self, t: LiveTable) -> None:
        """After any change: start the bot whose turn it is, or arm the mover's time-out (on
        the server holding the table's lease only)."""
        if t.timer is not None:
            t.timer.cancel()
            t.timer = None
        seat = t.state.to_move
        if t.rec.status != "running" or seat is None or t.rec.id not in self.manager.leases.mine:
            return  # another server drives this table (or nobody needs to)
        if t.bot_plays(seat):
            if t.bot_task is None or t.bot_task.done():
                t.bot_task = asyncio.get_running_loop().create_task(self._turn(t))
        elif t.rec.time_limit and t.deadline is not None and seat not in clocks.timed_out(t.rec):
            delay = max(0.0, t.deadline - self.storage.clock.now())
            n = len(t.state.history)
            t.timer = asyncio.get_running_loop().call_later(
                delay, lambda: asyncio.get_running_loop().create_task(self._timeout(t, seat, n))
            )

    async def _turn(self, t: LiveTable) -> None:
        from .tables import TableError  # here, not at the top: tables.py imports this module

        manager = self.manager
        try:
            while True:
                seat, n = t.state.to_move, len(t.state.history)
                if (
                    t.rec.status != "running"
                    or seat is None
                    or not t.bot_plays(seat)
                    or t.rec.id not in manager.leases.mine
                ):
                    return
                if self.settings.bot_delay:
                    await asyncio.sleep(self.settings.bot_delay)
                    if len(t.state.history) != n or not t.bot_plays(seat):
                        continue  # the table moved on (or the seat was handed back) meanwhile
                s = t.seat(seat)
                level = s.level if s.kind == "bot" and s.level else zombie_level(t.rec.game)
                seed = (t.rec.seed * 1_000_003 + seat * 7919 + n) & 0x7FFFFFFF
                snapshot = t.state.clone()
                cap = self.settings.bot_max_seconds
                self.waiting += 1
                try:
                    action = await self._think(t, level, seed, snapshot, cap)
                finally:
                    self.waiting -= 1
                try:
                    await manager.move(t, seat, action, n, by_bot=True)
                except TableError as exc:
                    if exc.code == "not_driver":
                        log.info("table %s: taken over by another server; not driving it", t.rec.id)
                        return
                    if exc.code != "stale":
                        log.warning("bot move refused on %s: %s", t.rec.id, exc)
                        return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot failed on table %s", t.rec.id)

    async def _think(
        self, t: LiveTable, level: str, seed: int, snapshot: State, cap: float | None
    ) -> int:
        """The bot's move; a random legal one if the bot fails, so that a table never freezes
        on a bot's bug (the failure is logged with its traceback, no state in it)."""
        loop = asyncio.get_running_loop()
        game = t.rec.game
        turn = (
            self.fair.turn(self.visitors.visitor_of(t.rec.id), t.rec.id)
            if self.fair is not None
            else contextlib.nullcontext()
        )
        try:
            async with turn:  # tables take turns in the pool (fairshare.FairPool)
                try:
                    action = await loop.run_in_executor(
                        self.pool, bot_choose, game, level, seed, snapshot, cap
                    )
                except (pickle.PicklingError, TypeError, AttributeError):
                    if self.pool is self.threads:
                        raise
                    # a state that cannot cross to another process thinks in a thread instead
                    action = await loop.run_in_executor(
                        self.threads, bot_choose, game, level, seed, snapshot, cap
                    )
            if snapshot.is_legal(action):
                return action
            log.error(
                "bot %s chose an illegal move on table %s; it plays a random legal move",
                level,
                t.rec.id,
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception(
                "bot %s failed on table %s; it plays a random legal move", level, t.rec.id
            )
        return random.Random(seed).choice(snapshot.legal_actions())

    async def _timeout(self, t: LiveTable, seat: int, n: int) -> None:
        if (
            t.state.to_move == seat
            and t.rec.status == "running"
            and not t.bot_plays(seat)
            and len(t.state.history) == n
        ):
            if t.deadline is not None and self.storage.clock.now() >= t.deadline - 0.01:
                if not await clocks.time_out(self.manager, t, seat, n):
                    # the stored deadline (or driver) differs: re-read
                    await self.manager.refresh(t)
                    self.schedule(t)  # and wait for the stored deadline, if still ours
