"""Ratings per game with openskill's Plackett-Luce model (3-7 players and ties), applied once
per rated table at its end, whatever server sees the end first.

A table is *rated* when play starts with every seat a person with an account (distinct
accounts), or every seat a bot account (bot accounts are rated among themselves, on a
leaderboard of their own: a game between people and bot accounts moves nobody's rating), and
stays rated: a player who leaves (their seat still played by a bot at the end),
times out or is replaced by a bot ranks last for ratings (`clocks.places`). The shown
number is conservative, like BGA's: ``40 * (mu - 3 sigma)``, 0 for a newcomer, floored at 0,
and marked provisional until `PROVISIONAL_GAMES` rated games. Every finished table with
account seats leaves a result per account (place, and for rated ones the rating and change),
which the profile and the leaderboard read.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter
from openskill.models import PlackettLuce
from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError

import meeple

from . import clocks
from .accounts import PROVISIONAL_GAMES
from .schema_players import rated_tables_t, ratings_t, results_t, users_t
from .storage import Storage, seats_t, tables_t
from .tables import LiveTable, TableError

log = logging.getLogger("meeple.server")
MODEL = PlackettLuce()
SCALE = 40.0


def display(mu: float, sigma: float) -> int:
    """The number people see: conservative (3 sigma below the estimate), scaled, never negative."""
    return max(0, round(SCALE * (mu - 3.0 * sigma)))


def rate(players: list[tuple[float, float]], places: list[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) for each player from their places (1 best, ties share a place)."""
    teams = [[MODEL.create_rating([mu, sigma])] for mu, sigma in players]
    out = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [(team[0].mu, team[0].sigma) for team in out]


def _now() -> datetime:
    return datetime.now(UTC)


class Ratings:
    """A TableManager hook: decides whether a table is rated, and rates it at its end."""

    def __init__(self, storage: Storage) -> None:
        self.engine = storage.engine
        self._locks: dict[str, asyncio.Lock] = {}
        self.pending: set[asyncio.Task[None]] = set()
        # what was last recorded for each live table: a move that changes neither its seats
        # nor its end has nothing to record (a transaction per move cost more than the move)
        self._recorded: weakref.WeakKeyDictionary[LiveTable, Any] = weakref.WeakKeyDictionary()

    # ----- the hook ---------------------------------------------------------------------------
    def on_change(self, t: LiveTable) -> None:
        if t.rec.status not in ("running", "over"):
            return
        seats = [(s.kind, s.user_id, s.zombie) for s in t.rec.seats]
        # people and bot accounts at one table: nobody's rating moves (two separate pools)
        mixed = any(s.account_bot for s in t.rec.seats) and any(
            s.kind == "human" and not s.account_bot for s in t.rec.seats)
        ranking = t.state.ranking() if t.state.is_over() else None
        key = (tuple(seats), ranking is not None)
        if self._recorded.get(t) == key:
            return
        self._recorded[t] = key
        task = asyncio.get_running_loop().create_task(
            self._on_change(t.rec.id, t.rec.game, seats, ranking, t, mixed))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def on_message(self, message: dict[str, Any]) -> None:
        return None

    async def _on_change(self, table_id: str, game: str, seats: list[Any],
                         ranking: list[int] | None, t: LiveTable | None = None,
                         mixed: bool = False) -> None:
        lock = self._locks.setdefault(table_id, asyncio.Lock())
        try:
            async with lock:
                await asyncio.to_thread(self.update, table_id, game, seats, ranking, mixed)
        except Exception:
            log.exception("ratings of table %s", table_id)
            if t is not None:
                self._recorded.pop(t, None)  # the next change tries again
        finally:
            if not lock.locked() and self._locks.get(table_id) is lock:
                del self._locks[table_id]

    def update(self, table_id: str, game: str, seats: list[tuple[str, int | None, bool]],
               ranking: list[int] | None, mixed: bool = False) -> None:
        """Record the decision when play starts, and at the end rate exactly once. ``mixed``:
        people and bot accounts share the table (not rated: they are rated apart)."""
        users = [u for _, u, _ in seats]
        eligible = (len(seats) > 1 and all(k == "human" and u is not None and not z
                                           for k, u, z in seats) and len(set(users)) == len(users)
                    and not mixed)
        with self.engine.begin() as conn:
            row = conn.execute(select(rated_tables_t).where(
                rated_tables_t.c.table_id == table_id)).mappings().first()
            if row is None:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(rated_tables_t).values(
                            table_id=table_id, rated=eligible, done=False))
                except IntegrityError:  # another server decided first: the same answer
                    pass
                rated = eligible
            else:
                rated = bool(row["rated"])
        if ranking is not None:
            self._finish(table_id, game, seats, ranking, rated)

    def _finish(self, table_id: str, game: str, seats: list[Any], ranking: list[int],
                rated: bool) -> None:
        with self.engine.begin() as conn:
            claimed = conn.execute(
                update(rated_tables_t)
                .where(rated_tables_t.c.table_id == table_id, rated_tables_t.c.done.is_(False))
                .values(done=True)).rowcount == 1
            if not claimed:
                return  # results already written (by this server or another)
            now = _now()
            gone = clocks.penalized(conn, table_id, seats, now.timestamp())
            ranking = clocks.places(ranking, set(gone))
            people = sorted({(n, u) for n, (k, u, _) in enumerate(seats) if k == "human"
                             and u is not None} | {(n, u) for n, u in gone.items() if u is not None})
            new: dict[int, tuple[float, float, int]] = {}
            if rated:
                old = {}
                for _, u in people:
                    r = conn.execute(select(ratings_t).where(
                        ratings_t.c.user_id == u, ratings_t.c.game == game)).mappings().first()
                    old[u] = (r["mu"], r["sigma"], r["display"], r["games"], r["wins"]) if r else \
                        (MODEL.mu, MODEL.sigma, display(MODEL.mu, MODEL.sigma), 0, 0)
                after = rate([old[u][:2] for _, u in people], [ranking[n] for n, _ in people])
                for (n, u), (mu, sigma) in zip(people, after, strict=True):
                    shown = display(mu, sigma)
                    new[u] = (mu, sigma, shown - old[u][2])
                    games, wins = old[u][3] + 1, old[u][4] + (ranking[n] == 1)
                    values = {"mu": mu, "sigma": sigma, "display": shown, "games": games,
                              "wins": wins, "updated_at": now}
                    if old[u][3] == 0 and not conn.execute(select(ratings_t.c.user_id).where(
                            ratings_t.c.user_id == u, ratings_t.c.game == game)).first():
                        conn.execute(insert(ratings_t).values(user_id=u, game=game, **values))
                    else:
                        conn.execute(update(ratings_t).where(
                            ratings_t.c.user_id == u, ratings_t.c.game == game).values(**values))
            for n, u in people:
                mu_sigma_delta = new.get(u)
                conn.execute(insert(results_t).values(
                    table_id=table_id, user_id=u, game=game, players=len(seats),
                    place=ranking[n], rated=rated,
                    rating=display(*mu_sigma_delta[:2]) if mu_sigma_delta else None,
                    delta=mu_sigma_delta[2] if mu_sigma_delta else None, at=now))

    def is_rated(self, table_id: str) -> bool | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(rated_tables_t.c.rated).where(
                rated_tables_t.c.table_id == table_id)).first()
        return None if row is None else bool(row[0])

    def table_results(self, table_id: str) -> dict[str, Any]:
        """What a finished table did to its players' ratings, for its end panel: whether it is
        rated (None: not decided yet), whether the results are written yet, and per account seat
        its place and, for a rated table, the shown rating before and after."""
        with self.engine.connect() as conn:
            decided = conn.execute(select(rated_tables_t).where(
                rated_tables_t.c.table_id == table_id)).mappings().first()
            rows = conn.execute(
                select(results_t, users_t.c.username, seats_t.c.seat)
                .join(users_t, users_t.c.id == results_t.c.user_id)
                .join(seats_t, (seats_t.c.table_id == results_t.c.table_id)
                      & (seats_t.c.user_id == results_t.c.user_id))
                .where(results_t.c.table_id == table_id)
                .order_by(seats_t.c.seat)).mappings().all()
        return {
            "rated": None if decided is None else bool(decided["rated"]),
            "done": bool(decided and decided["done"]),
            "results": [{
                "seat": r["seat"], "username": r["username"], "place": r["place"],
                "before": r["rating"] - r["delta"] if r["rated"] and r["rating"] is not None else None,
                "after": r["rating"] if r["rated"] else None,
                "delta": r["delta"] if r["rated"] else None,
            } for r in rows],
        }

    def rating_of(self, user_id: int, game: str) -> float:
        """The shown rating (0 for a newcomer): what matchmaking compares."""
        with self.engine.connect() as conn:
            row = conn.execute(select(ratings_t.c.display).where(
                ratings_t.c.user_id == user_id, ratings_t.c.game == game)).first()
        return float(row[0]) if row else 0.0

    # ----- reading ----------------------------------------------------------------------------
    def leaderboard(self, game: str, limit: int = 100, bots: bool = False) -> list[dict[str, Any]]:
        """Best first: by the conservative estimate (mu - 3 sigma), then games played. People
        and bot accounts have a leaderboard each (``bots``)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(users_t.c.username, ratings_t)
                .join(users_t, users_t.c.id == ratings_t.c.user_id)
                .where(ratings_t.c.game == game, users_t.c.disabled.is_(False),
                       users_t.c.is_bot.is_(bots))
                .order_by((ratings_t.c.mu - 3 * ratings_t.c.sigma).desc(), ratings_t.c.games.desc())
                .limit(limit)).mappings().all()
        return [{"rank": i + 1, "username": r["username"], "rating": r["display"],
                 "games": r["games"], "wins": r["wins"],
                 "provisional": r["games"] < PROVISIONAL_GAMES} for i, r in enumerate(rows)]

    def profile(self, username: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            user = conn.execute(select(users_t).where(
                users_t.c.username_key == username.casefold())).mappings().first()
            if user is None or user["disabled"]:
                return None
            uid = user["id"]
            ratings = conn.execute(select(ratings_t).where(ratings_t.c.user_id == uid)
                                   .order_by(ratings_t.c.game)).mappings().all()
            history = conn.execute(
                select(results_t).where(results_t.c.user_id == uid, results_t.c.rated.is_(True))
                .order_by(results_t.c.at)).mappings().all()
            played, won = conn.execute(
                select(func.count(), func.count().filter(results_t.c.place == 1))
                .where(results_t.c.user_id == uid)).one()
            recent = conn.execute(
                select(results_t).where(results_t.c.user_id == uid)
                .order_by(results_t.c.at.desc()).limit(20)).mappings().all()
            reliability = clocks.reliability(conn, uid)
            running = conn.execute(
                select(tables_t.c.id, tables_t.c.game, tables_t.c.status)
                .join(seats_t, seats_t.c.table_id == tables_t.c.id)
                .where(seats_t.c.user_id == uid, tables_t.c.status.in_(("open", "running")))
                .order_by(tables_t.c.updated_at.desc()).limit(20)).mappings().all()
        titles = {g["id"]: g["title"] for g in meeple.games()}
        return {
            "username": user["username"], "bot": bool(user["is_bot"]),
            "since": user["created_at"].isoformat(),
            "games_played": played, "games_won": won, **reliability,
            "ratings": [{
                "game": r["game"], "title": titles.get(r["game"], r["game"]),
                "rating": r["display"], "games": r["games"], "wins": r["wins"],
                "provisional": r["games"] < PROVISIONAL_GAMES,
                "history": [{"table": h["table_id"], "at": h["at"].isoformat(), "rating": h["rating"],
                             "delta": h["delta"], "place": h["place"], "players": h["players"]}
                            for h in history if h["game"] == r["game"]],
            } for r in ratings],
            "recent": [{"table": g["table_id"], "game": g["game"], "place": g["place"],
                        "players": g["players"], "rated": g["rated"], "rating": g["rating"],
                        "delta": g["delta"], "at": g["at"].isoformat(),
                        "replay": f"/replay/{g['table_id']}"} for g in recent],
            "playing": [{"table": r["id"], "game": r["game"], "status": r["status"]}
                        for r in running],
        }


def router(ratings: Ratings) -> APIRouter:
    api = APIRouter()
    games = {g["id"] for g in meeple.games()}

    @api.get("/api/leaderboard/{game}")
    async def leaderboard(game: str, bots: bool = False) -> list[dict[str, Any]]:
        """People's leaderboard; ``?bots=1`` the bot accounts' own."""
        if game not in games:
            raise TableError("no_game", "no such game")
        return await asyncio.to_thread(ratings.leaderboard, game, 100, bots)

    @api.get("/api/tables/{table_id}/ratings")
    async def table_ratings(table_id: str) -> dict[str, Any]:
        """The end panel's ratings: before and after, per account seat (see `table_results`)."""
        return await asyncio.to_thread(ratings.table_results, table_id[:32])

    @api.get("/api/players/{username}")
    async def player(username: str) -> dict[str, Any]:
        prof = await asyncio.to_thread(ratings.profile, username[:40])
        if prof is None:
            raise TableError("no_player", "no such player")
        return prof

    return api
