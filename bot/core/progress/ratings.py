"""Skill ratings (OpenSkill's Plackett-Luce model, :data:`MODEL`; the maths is the library's):
every finished game with more than one seat and no hints, per server and across servers
(scope 0).

Each seat is a team of one: a person is ``u:<user id>``, a computer seat ``ai:<level>`` (each
level is one rated player, so people can see where they stand against it). Places come from the
final ranking (ties share a place). A person whose seat a computer finished (they left, or
timed out into a computer) is rated as finishing last (a forfeit; several leavers share that
place), and the computer that finished it is not rated. When one level sits at a table twice,
its seats are rated as separate teams and the level's new rating is the mean of theirs (it
counts as one game). Rows are read and written inside the result's transaction, locked
(:func:`bot.core.progress.store.apply_ratings`), so concurrent games never lose an update.
The leaderboard ranks by the *ordinal* (``mu - 3 sigma``: the rating we are fairly sure the
player has), from :data:`~bot.core.progress.model.MIN_RATED_GAMES` rated games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from openskill.models import PlackettLuce

from bot.core import queries
from bot.core.game import FLAG_HINTS, LiveGame
from bot.core.kernel import Kernel
from bot.core.progress import store
from bot.core.progress.model import (
    EVERYWHERE,
    MIN_RATED_GAMES,
    PUBLIC,
    BoardEntry,
    RatingRow,
    RatingStanding,
    computer_key,
    person_key,
    user_of,
)
from bot.core.progress.store import RatingKey, RatingUpdate
from bot.core.storage import SeatRow
from engine.events import GameOver

MODEL = PlackettLuce()


def rated_players(seats: Sequence[SeatRow], places: Sequence[int]) -> list[tuple[str, int]]:
    """(rated player, place) per seat that is rated: people by their place, a person whose
    seat a computer finished last (a forfeit), computer seats by their level."""
    last = max(places, default=0) + 1
    out = []
    for s, place in zip(seats, places, strict=True):
        if s.left and s.user_id is not None:
            out.append((person_key(s.user_id), last))
        elif s.ai_level is not None:
            out.append((computer_key(s.ai_level), place))
        elif s.user_id is not None:
            out.append((person_key(s.user_id), place))
    return out


def rate(entries: Sequence[tuple[str, int]], before: Mapping[str, RatingRow | None],
         scope: int, now: int) -> list[RatingRow]:
    """New ratings of one scope after one game (``entries``: (player, place) per seat)."""
    teams = []
    for player, _ in entries:
        row = before.get(player)
        teams.append([MODEL.rating() if row is None
                      else MODEL.rating(mu=row.mu, sigma=row.sigma)])
    result = MODEL.rate(teams, ranks=[float(place) for _, place in entries])
    merged: dict[str, list[tuple[float, float]]] = {}
    for (player, _), team in zip(entries, result, strict=True):
        merged.setdefault(player, []).append((team[0].mu, team[0].sigma))
    rows = []
    for player, values in merged.items():
        mu = sum(v[0] for v in values) / len(values)
        sigma = sum(v[1] for v in values) / len(values)
        old = before.get(player)
        rows.append(RatingRow(scope, player, mu, sigma, ordinal(mu, sigma),
                              (old.games if old is not None else 0) + 1, now))
    return rows


def ordinal(mu: float, sigma: float) -> float:
    return float(MODEL.rating(mu=mu, sigma=sigma).ordinal())


def rating_update(g: LiveGame, over: GameOver, now: int) -> RatingUpdate | None:
    """The ratings a finished game changes (None: it is not rated: solo, or hints)."""
    if len(g.seats) < 2 or g.flags & FLAG_HINTS:
        return None
    entries = rated_players(g.seats, over.places)
    players = list(dict.fromkeys(p for p, _ in entries))
    if len(players) < 2:
        return None
    scopes = [g.guild_id, EVERYWHERE] if g.guild_id != EVERYWHERE else [EVERYWHERE]
    keys: list[RatingKey] = [(scope, p) for scope in scopes for p in players]

    def apply(found: dict[RatingKey, RatingRow | None]) -> list[RatingRow]:
        rows: list[RatingRow] = []
        for scope in scopes:
            before = {p: found.get((scope, p)) for p in players}
            rows += rate(entries, before, scope, now)
        return rows

    return RatingUpdate(keys, apply)


async def rating_of(kernel: Kernel, player: str, scope: int,
                    min_games: int = MIN_RATED_GAMES) -> RatingStanding:
    row = await store.rating(kernel.store, scope, player)
    rank, ranked = await store.rating_rank(kernel.store, scope, player, min_games)
    return RatingStanding(scope, row, rank, ranked)


async def rating_board(kernel: Kernel, scope: int, limit: int = 10,
                       min_games: int = MIN_RATED_GAMES) -> list[BoardEntry]:
    """The best rated players of a scope, by ordinal (ties share a rank), each person with
    their finished games, wins and average score in that scope."""
    out: list[BoardEntry] = []
    for row, name in await store.rating_board(kernel.store, scope, limit, min_games):
        rank = out[-1].rank if out and out[-1].rating.ordinal == row.ordinal else len(out) + 1
        user = user_of(row.player)
        if user is None:
            out.append(BoardEntry(rank, row.player, name, row))
            continue
        # As anyone else reads them: an open week's challenge game is left out (issue #20).
        totals = await queries.user_stats(kernel, user, scope, viewer_id=PUBLIC)
        out.append(BoardEntry(rank, row.player, name or str(user), row, totals.games,
                              totals.wins, totals.average))
    return out
