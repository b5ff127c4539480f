"""What each page shows, read from the core through the features' service modules with the
kernel (as the adapter does) and turned into plain values for the templates. Names are the
players' display names as they are (the templates escape them); a person who hid their name
from the site is "Player N" and gets no page of their own.

Every reader answers None for "no such page" (the handler answers 404): an unknown id, a
server without the site, a hidden player, a weekly challenge game of a week still open.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.core import queries
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, GameStatus, ManagerError
from bot.core.progress import achievements, ratings
from bot.core.progress.model import person_key
from bot.core.site import service as site
from bot.core.site.model import Step
from bot.core.tournament import records
from bot.core.tournament.model import Status
from bot.web import links
from bot.web.links import Signer
from bot.web.plot import Plot, rating_plot
from bot.words import narration
from bot.words import progress as progress_words
from bot.words import tournament as tournament_words
from bot.words.catalogue import Text
from data import load_catalog
from engine.scoring import rank

_LEAD = re.compile(r"^[^\w\x00(\"'«„<]+")  # symbols before a line's first word
_NAME = "\x00"  # where a name goes in a narrated line (the template escapes the real one)


@dataclass(frozen=True, slots=True)
class Person:
    name: str
    href: str | None  # their page (None: a computer, or a hidden name)


@dataclass(frozen=True, slots=True)
class GameLine:
    game_id: int
    href: str
    when: str
    players: tuple[Person, ...]
    status: str


@dataclass(slots=True)
class GamePage:
    game: GameInfo
    players: tuple[Person, ...]
    steps: list[Step]
    index: int
    text: list[str]
    over: bool
    final: list[tuple[int, Person, int]] = field(default_factory=list)  # place, who, total
    server_href: str = ""


def seat_name(tr: Text, game: GameInfo, seat: int, hidden: set[int]) -> str:
    s = game.seats[seat]
    if s.user_id is not None and s.user_id in hidden:
        return tr("web.player_n", n=seat + 1)
    return s.name


def _user_ids(games: list[GameInfo]) -> list[int]:
    return [s.user_id for g in games for s in g.seats if s.user_id is not None]


async def people(k: Kernel, signer: Signer, tr: Text, game: GameInfo,
                 hidden: set[int] | None = None) -> tuple[Person, ...]:
    """A game's people as the site names them (``hidden``: who hid their name, when already
    read for a list of games; else read here)."""
    if hidden is None:
        hidden = await site.hidden(k, _user_ids([game]))
    out = []
    for s in game.seats:
        name = seat_name(tr, game, s.seat, hidden)
        person = s.user_id is not None and (s.ai_level is None or s.left)
        href = signer.path(links.PLAYER, game.guild_id, s.user_id) \
            if person and s.user_id is not None and s.user_id not in hidden else None
        out.append(Person(name, href))
    return tuple(out)


async def shown_game(k: Kernel, game_id: int) -> GameInfo | None:
    try:
        # As stored now: another process (the bot, when the site runs apart) moves it on.
        game = await queries.game(k, game_id, fresh=True)
    except ManagerError:
        return None
    return game if await site.shown(k, game) else None


async def game_page(k: Kernel, signer: Signer, tr: Text, cache: site.Replays, game: GameInfo,
                    players: tuple[Person, ...], step: int | None) -> GamePage:
    """The page of a game already read and allowed (:func:`shown_game`) with its people."""
    try:
        steps = [] if game.status is GameStatus.DRAFT else await cache.steps(k, game)
    except ManagerError:
        steps = []
    last = len(steps) - 1
    index = last if step is None else max(0, min(last, step))
    text: list[str] = []
    if steps and steps[index].seat is not None:
        seat = steps[index].seat
        assert seat is not None
        line = narration.narrate_turn(tr, _NAME, steps[index].events)
        # The thread's words, without Discord's bold marks (the page styles nothing inside).
        # and without the leading emoji (a browser without an emoji font shows a box).
        text = [_LEAD.sub("", x).replace("**", "").replace(_NAME, players[seat].name)
                for x in line.split("\n") if x]
    elif steps:
        text = [tr("web.game.start")]
    page = GamePage(game, players, steps, index, text, game.status is GameStatus.OVER,
                    server_href=signer.path(links.SERVER, game.guild_id))
    if page.over and steps:
        scores = [dict(s.score) for s in steps[-1].view.seats]
        places, _winners, _decided = rank(scores)
        page.final = sorted(((places[i], players[i], int(scores[i]["total"]))
                             for i in range(len(scores))), key=lambda r: (r[0], r[1].name))
    return page


async def game_lines(k: Kernel, signer: Signer, tr: Text,
                     games: list[GameInfo]) -> list[GameLine]:
    """A list of games, who hid their name read once for all of them."""
    hidden = await site.hidden(k, _user_ids(games))
    return [GameLine(g.id, signer.path(links.GAME, g.id), g.updated_at.strftime("%Y-%m-%d"),
                     await people(k, signer, tr, g, hidden), tr(f"web.status.{g.status.value}"))
            for g in games]


@dataclass(slots=True)
class TournamentPage:
    name: str
    rules: list[str]
    status: str
    headings: list[str]
    rows: list[tuple[list[str], Person]]
    rounds: list[tuple[int, list[tuple[int, list[Person], str | None, str]]]]
    server_href: str


async def tournament_page(k: Kernel, signer: Signer, tr: Text,
                          tournament_id: int) -> TournamentPage | None:
    try:
        t = await records.get(k, tournament_id)
    except ManagerError:
        return None
    if not await site.enabled(k, t.guild_id):
        return None
    hidden = await site.hidden(k, [e.user_id for e in t.entrants])
    order = {e.user_id: i for i, e in enumerate(t.entrants)}

    def who(user_id: int) -> Person:
        if user_id in hidden:
            return Person(tr("web.player_n", n=order.get(user_id, 0) + 1), None)
        return Person(t.name_of(user_id), signer.path(links.PLAYER, t.guild_id, user_id))

    rows = []
    for s in await records.standings(k, tournament_id):
        cells = tournament_words.standing_cells(tr, t, s)
        rows.append((cells, who(s.user_id)))
    by_round: dict[int, list[tuple[int, list[Person], str | None, str]]] = {}
    for table in await records.tables(k, tournament_id):
        href = None if table.game_id is None else signer.path(links.GAME, table.game_id)
        result = "" if table.points is None else " · ".join(
            tournament_words.points(p) for p in table.points)
        by_round.setdefault(table.round, []).append(
            (table.table_no, [who(u) for u in table.players], href, result))
    rules = [tournament_words.summary(tr, t)]
    return TournamentPage(t.name, rules, tournament_words.status_text(tr, t),
                          tournament_words.headings(tr, t), rows, sorted(by_round.items()),
                          signer.path(links.SERVER, t.guild_id))


@dataclass(slots=True)
class PlayerPage:
    name: str
    title_lines: list[str]
    earned: list[str]
    rating: str | None
    plot: Plot | None
    games: list[GameLine]
    server_href: str


async def player_page(k: Kernel, signer: Signer, tr: Text, guild_id: int,
                      user_id: int) -> PlayerPage | None:
    if not await site.enabled(k, guild_id) or await site.name_hidden(k, user_id):
        return None
    # As stored now (a copy this process cached may be behind another process's moves).
    mine = [g for g in await queries.games_for_user(k, user_id, active_only=False, limit=40,
                                                    fresh=True)
            if g.guild_id == guild_id]
    mine = [g for g in mine if g.status.started or g.status is GameStatus.OVER]
    if not mine:
        return None
    name = next(s.name for s in mine[0].seats if s.user_id == user_id)
    shown = [g for g in mine if g.status is GameStatus.OVER and await site.shown(k, g)][:20]
    got = await achievements.achievements_of(k, user_id)
    catalog = load_catalog()
    standing = await ratings.rating_of(k, person_key(user_id), guild_id)
    history = await site.rating_history(k, guild_id, user_id)
    rating = None if standing.row is None else f"{standing.row.ordinal:.1f}"
    return PlayerPage(
        name, progress_words.position_lines(tr, catalog, got.position),
        [progress_words.achievement_name(tr, a) for a in got.ids], rating,
        rating_plot([p.ordinal for p in history]),
        await game_lines(k, signer, tr, shown), signer.path(links.SERVER, guild_id))


@dataclass(slots=True)
class ServerPage:
    board: list[tuple[int, Person, int, int, str, int]]  # rank, who, games, wins, avg, best
    tournaments: list[tuple[str, str, str]]  # name, href, status
    games: list[GameLine]
    playing: list[GameLine]


async def server_page(k: Kernel, signer: Signer, tr: Text, guild_id: int) -> ServerPage | None:
    if not await site.enabled(k, guild_id):
        return None
    board = await queries.leaderboard(k, guild_id, limit=25)
    hidden = await site.hidden(k, [e.user_id for e in board])
    rows = []
    for i, e in enumerate(board, 1):
        who = Person(tr("web.player_n", n=i), None) if e.user_id in hidden else Person(
            e.name, signer.path(links.PLAYER, guild_id, e.user_id))
        rows.append((i, who, e.games, e.wins, f"{e.average:.1f}", e.best))
    tournaments = [(t.name, signer.path(links.TOURNAMENT, t.id),
                    tournament_words.status_text(tr, t))
                   for t in await records.listed(k, guild_id, 20)
                   if not Status(t.status).ended]
    games = await game_lines(k, signer, tr, await site.recent_games(k, guild_id))
    playing = await game_lines(k, signer, tr,
                               await site.recent_games(k, guild_id, 20, GameStatus.PLAY))
    return ServerPage(rows, tournaments, games, playing)
