"""What a finished game leaves behind besides its result (issue #12): achievements, skill
ratings and the weekly challenge's score, all stored in the transaction that stores the
result (so a crash never keeps one without the other, and nothing is counted twice).

Pure policy plus one hook, :func:`game_over`, which the facade calls from its
``Kernel.game_over`` (the flow calls it while it prepares the last move's commit). Nothing here
imports discord.

**Achievements** (the rulebook's chart, :mod:`engine.achievements`), tracked per person across
every server (a row per person and achievement, the first game that earned it):

- scenario games: every person who passes earns the scenario, solo or multi-player;
- normal games and rule restrictions: the winner (every winner of a shared victory) of a
  multi-player game. *Multi-player* here means another person at the table, or a computer
  opponent of the ``normal`` or ``strong`` level (they average 64-67 points solo, above people's
  58, so beating one is no shortcut; ``easy`` computers do not make a game multi-player);
- a normal game fills at most one row: the rarest not yet earned (the chart's
  ``normal_rarity``); the score sheet says which other rows the win fit;
- nothing for a seat a computer moved for (handed to a computer after its player left or
  timed out, or one move of it played on autopilot) or a seat that took a hint; only that
  seat: the others at the table earn as usual (the rulebook lets every player who passes a
  scenario fill their circle). Computer seats never earn.

**Ratings** (OpenSkill's Plackett-Luce model, :data:`MODEL`; the maths is the library's): every
finished game with more than one seat and no hints, per server and across servers (scope 0).
Each seat is a team of one: a person is ``u:<user id>``, a computer seat ``ai:<level>`` (each
level is one rated player, so people can see where they stand against it). Places come from the
final ranking (ties share a place). A person whose seat a computer finished (they left, or
timed out into a computer) is rated as finishing last (a forfeit; several leavers share that
place), and the computer that finished it is not rated. When one level sits at a table twice,
its seats are rated as separate teams and the level's new rating is the mean of theirs (it
counts as one game). Rows are read and written inside the result's transaction, locked
(:class:`~bot.core.storage.base.RatingUpdate`), so concurrent games never lose an update.
The leaderboard ranks by the *ordinal* (``mu - 3 sigma``: the rating we are fairly sure the
player has), from :data:`MIN_RATED_GAMES` rated games.

**Weekly challenge**: the score of a challenge game (:mod:`bot.core.challenge`) is recorded on
its entry, unless the week closed before the game ended or hints were used.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from bot.core import challenge, lobby, queries
from bot.core.game import FLAG_HINTS, LiveGame, Tx, hinted_seats
from bot.core.kernel import Kernel
from bot.core.models import ErrorCode, GameInfo, GameStatus, ManagerError, UserRef
from bot.core.storage.base import AchievementRow, RatingKey, RatingRow, RatingUpdate, SeatRow
from engine.achievements import FinishedGame, TrackPosition, evaluate, progress
from engine.events import Event, GameOver

log = logging.getLogger("calico.progress")

MODEL = PlackettLuce()
MIN_RATED_GAMES = 3  # rated games before a player appears on the rating leaderboard
EVERYWHERE = 0  # the scope of ratings across every server
PUBLIC = 0  # the reader of a public board: nobody in particular (no user has id 0)
# Computer levels that make a game multi-player for the normal-game and restriction rows.
COUNTING_LEVELS = frozenset({"normal", "strong"})


def person_key(user_id: int) -> str:
    return f"u:{user_id}"


def computer_key(level: str) -> str:
    return f"ai:{level}"


def user_of(player: str) -> int | None:
    """The user id of a ``u:<id>`` rated player (None for a computer level)."""
    if player.startswith("u:") and player[2:].isdigit():
        return int(player[2:])
    return None


def level_of(player: str) -> str | None:
    return player[3:] if player.startswith("ai:") else None


# --------------------------------------------------------------------------- achievements


def computer_seats(seats: Sequence[SeatRow], autopilot_seats: Iterable[int]) -> frozenset[int]:
    """The seats a computer moved for while a person held them: one it took over (its player
    left, or timed out into a computer), or one that got an autopilot move."""
    return frozenset(s.seat for s in seats if s.left) | frozenset(autopilot_seats)


def multiplayer(seats: Sequence[SeatRow]) -> bool:
    """Another person at the table, or a computer opponent strong enough to count."""
    people = sum(1 for s in seats if s.ai_level is None or s.left)
    strong = any(s.ai_level in COUNTING_LEVELS and not s.left for s in seats)
    return people >= 2 or strong


@dataclass(frozen=True, slots=True)
class Earned:
    """What one person earned from one game, for the score sheet."""

    seat: int
    user_id: int
    ids: tuple[str, ...]  # stored now (0 or 1)
    choices: tuple[str, ...]  # a normal game: every new row the win fit, rarest first
    reason: str
    points: int  # achievement points after this game
    title: int | None  # a title reached with this game (index in the chart's track), else None

    def payload(self) -> dict[str, Any]:
        return {"seat": self.seat, "user_id": self.user_id, "ids": list(self.ids),
                "choices": list(self.choices), "reason": self.reason, "points": self.points,
                "title": self.title}


def evaluate_game(kernel: Kernel, g: LiveGame, events: Sequence[Event],
                  held: Mapping[int, Iterable[str]], *,
                  computer: Collection[int] = ()) -> list[Earned]:
    """Each person's evaluation (``held``: seat -> ids that person had before). Only the seats
    concerned lose their achievements: ``computer`` (a computer moved for them) and the seats
    that took a hint; the others at the table earn as usual."""
    assert g.state is not None
    chart = kernel.catalog.achievements
    finished = FinishedGame.from_events(g.state.config, events)
    many = multiplayer(g.seats)
    hinted = hinted_seats(g.flags, len(g.seats))
    out = []
    for seat, owned in held.items():
        row = g.seats[seat]
        assert row.user_id is not None
        before = set(owned)
        ev = evaluate(chart, finished, seat, already=before, multiplayer=many,
                      computer_played=seat in computer, hints_used=seat in hinted)
        after = before | set(ev.earned)
        was, now = progress(chart, before), progress(chart, after)
        reached = now.title if now.title is not None and now.title != was.title else None
        out.append(Earned(seat, row.user_id, ev.earned, ev.choices, ev.reason.value,
                          now.points, reached))
    return out


# --------------------------------------------------------------------------- ratings


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


# --------------------------------------------------------------------------- the hook


async def game_over(kernel: Kernel, tx: Tx, events: Sequence[Event],
                    over: GameOver) -> dict[str, Any]:
    """Add the game's achievements, ratings and challenge score to ``tx`` (the last move's
    commit); returns what the score sheet says about them (the ``game_over`` notice's
    ``progress`` entry). A failure here is logged and never stops the game from ending."""
    g = tx.g
    try:
        return await _game_over(kernel, tx, g, events, over)
    except Exception:
        log.exception("achievements, ratings or challenge score of game %s failed", g.id)
        tx.achievements, tx.ratings, tx.challenge_score = [], None, None
        return {}


async def _game_over(kernel: Kernel, tx: Tx, g: LiveGame, events: Sequence[Event],
                     over: GameOver) -> dict[str, Any]:
    store = kernel.store
    autopilot = [m.seat for m in await store.moves(g.id) if m.played_by == "autopilot"]
    if tx.move is not None and tx.move.played_by == "autopilot":
        autopilot.append(tx.move.seat)
    computer = computer_seats(g.seats, autopilot)
    held: dict[int, list[str]] = {}
    for s in g.seats:
        if s.user_id is not None and s.ai_level is None:
            held[s.seat] = [a.achievement for a in await store.achievements(s.user_id)]
    earned = evaluate_game(kernel, g, events, held, computer=computer)
    tx.achievements = [AchievementRow(e.user_id, a, g.id, g.guild_id, tx.now)
                       for e in earned for a in e.ids]
    tx.ratings = rating_update(g, over, tx.now)
    info: dict[str, Any] = {"earned": [e.payload() for e in earned],
                            "rated": tx.ratings is not None}
    if g.challenge_week is not None:
        info["challenge"] = await challenge.game_over(kernel, tx, g, events, over)
    return {"progress": info}



# --------------------------------------------------------------------------- queries


@dataclass(frozen=True, slots=True)
class PlayerAchievements:
    rows: tuple[AchievementRow, ...]  # oldest first
    position: TrackPosition

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(r.achievement for r in self.rows)


async def achievements_of(kernel: Kernel, user_id: int) -> PlayerAchievements:
    rows = tuple(await kernel.store.achievements(user_id))
    chart = kernel.catalog.achievements
    return PlayerAchievements(rows, progress(chart, [r.achievement for r in rows]))


@dataclass(frozen=True, slots=True)
class RatingStanding:
    """A player's rating in one scope (a server, or 0: every server)."""

    scope: int
    row: RatingRow | None  # None: never rated there
    rank: int | None  # on the leaderboard (None: fewer than MIN_RATED_GAMES rated games)
    ranked: int  # players on that leaderboard


async def rating_of(kernel: Kernel, player: str, scope: int,
                    min_games: int = MIN_RATED_GAMES) -> RatingStanding:
    row = await kernel.store.rating(scope, player)
    rank, ranked = await kernel.store.rating_rank(scope, player, min_games)
    return RatingStanding(scope, row, rank, ranked)


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """One line of the rating leaderboard: the rating, and for a person their results."""

    rank: int
    player: str
    name: str
    rating: RatingRow
    games: int | None = None  # finished games (people only; from the results totals)
    wins: int | None = None
    average: float | None = None


async def rating_board(kernel: Kernel, scope: int, limit: int = 10,
                       min_games: int = MIN_RATED_GAMES) -> list[BoardEntry]:
    """The best rated players of a scope, by ordinal (ties share a rank), each person with
    their finished games, wins and average score in that scope."""
    store = kernel.store
    out: list[BoardEntry] = []
    for row, name in await store.rating_board(scope, limit, min_games):
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


# --------------------------------------------------------------------------- rematch


async def rematch(kernel: Kernel, game_id: int, user: UserRef) -> tuple[GameInfo, bool]:
    """A new lobby for a finished game, opened by one of its players: same options, the same
    computer seats, in a new thread of the same channel (``rematch_of`` set; the lobby message
    pings the previous players). If a rematch lobby of this game is still open, that one is
    returned instead (``False``): two players pressing Rematch get one table."""
    async with kernel.lock(game_id):
        g = await kernel.reload(game_id)
        if g.status is not GameStatus.OVER:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "only a finished game has a rematch")
        if g.challenge_week is not None:
            raise ManagerError(ErrorCode.NOT_ALLOWED, "a challenge is played once a week")
        if not any(s.user_id == user.id for s in g.seats):
            raise ManagerError(ErrorCode.NOT_A_PLAYER, "only its players ask for a rematch")
        for other in await kernel.store.rematches(game_id):
            info = await kernel.get_game(other, fresh=True)
            if info.status is GameStatus.LOBBY:
                return info, False
        computers = [s.ai_level for s in g.seats if s.ai_level is not None and not s.left]
        # The same options; whom the old lobby's host removed is that lobby's matter.
        options = g.options.model_copy(update={"barred": ()})
        info = await lobby.create_game(kernel, user, g.guild_id, g.channel_id, options,
                                       computers=computers, open_thread=True,
                                       rematch_of=game_id)
        return info, True


def previous_people(game: GameInfo) -> list[int]:
    """The people who played ``game`` (for a rematch's invitation), in seat order."""
    return [s.user_id for s in game.seats if s.user_id is not None]


# --------------------------------------------------------------------------- picking a row


async def pick(kernel: Kernel, game_id: int, user_id: int, achievement: str) -> str | None:
    """A normal-game winner fills ``achievement`` instead of the row stored for this game (any
    other row the win fit that they do not hold). Returns the row it replaces (None: it was
    already the one filled). ManagerError ``not_a_player`` for anyone but that winner,
    ``already_held`` for a row another game of theirs filled, ``stale`` for a row that is not
    (or no longer) a choice."""
    game = await kernel.get_game(game_id)
    seat = game.seat_of(user_id)
    if seat is None:
        raise ManagerError(ErrorCode.NOT_A_PLAYER, "only the winner picks")
    if game.status is not GameStatus.OVER or game.state is None:
        raise ManagerError(ErrorCode.STALE, "the game is not over")
    chart = kernel.catalog.achievements
    normal = {a.id for a in chart.of_mode("normal")}
    rows = await kernel.store.achievements(user_id)
    mine = [r.achievement for r in rows if r.game_id == game_id and r.achievement in normal]
    if not mine:
        raise ManagerError(ErrorCode.STALE, "this game filled no normal-game row for you")
    old = mine[0]
    if achievement == old:
        return None
    others = {r.achievement for r in rows} - {old}
    if achievement in others:
        raise ManagerError(ErrorCode.ALREADY_HELD, f"{achievement!r} is filled by another game")
    try:
        evaluate(chart, FinishedGame.from_state(game.state), seat, already=others,
                 multiplayer=True, prefer=achievement)
    except ValueError:
        raise ManagerError(ErrorCode.STALE, f"{achievement!r} is not a choice") from None
    if not await kernel.store.swap_achievement(user_id, game_id, old, achievement,
                                                kernel.now_ms()):
        raise ManagerError(ErrorCode.STALE, "changed meanwhile")
    return old
