"""The rulebook's achievements chart (:mod:`engine.achievements`), tracked per person across
every server (a row per person and achievement, the first game that earned it):

- scenario games: every person who passes earns the scenario, solo or multi-player;
- normal games and rule restrictions: the winner (every winner of a shared victory) of a
  multi-player game. *Multi-player* here means another person at the table, or a computer
  opponent of the ``normal`` or ``strong`` level (they average 64-67 points solo, above people's
  58, so beating one is no shortcut; ``easy`` computers do not make a game multi-player);
- a normal game fills at most one row: the rarest not yet earned (the chart's
  ``normal_rarity``); the score sheet says which other rows the win fit, and the winner may
  :func:`pick` another of them;
- nothing for a seat a computer moved for (handed to a computer after its player left or
  timed out, or one move of it played on autopilot) or a seat that took a hint; only that
  seat: the others at the table earn as usual (the rulebook lets every player who passes a
  scenario fill their circle). Computer seats never earn.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from bot.core.game import LiveGame, hinted_seats
from bot.core.kernel import Kernel
from bot.core.models import ErrorCode, GameStatus, ManagerError
from bot.core.progress import store
from bot.core.progress.model import COUNTING_LEVELS, Earned, PlayerAchievements
from bot.core.storage import SeatRow
from engine.achievements import FinishedGame, evaluate, progress
from engine.events import Event


def computer_seats(seats: Sequence[SeatRow], autopilot_seats: Iterable[int]) -> frozenset[int]:
    """The seats a computer moved for while a person held them: one it took over (its player
    left, or timed out into a computer), or one that got an autopilot move."""
    return frozenset(s.seat for s in seats if s.left) | frozenset(autopilot_seats)


def multiplayer(seats: Sequence[SeatRow]) -> bool:
    """Another person at the table, or a computer opponent strong enough to count."""
    people = sum(1 for s in seats if s.ai_level is None or s.left)
    strong = any(s.ai_level in COUNTING_LEVELS and not s.left for s in seats)
    return people >= 2 or strong


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


async def achievements_of(kernel: Kernel, user_id: int) -> PlayerAchievements:
    rows = tuple(await store.achievements(kernel.store, user_id))
    chart = kernel.catalog.achievements
    return PlayerAchievements(rows, progress(chart, [r.achievement for r in rows]))


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
    rows = await store.achievements(kernel.store, user_id)
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
    if not await store.swap_achievement(kernel.store, user_id, game_id, old, achievement,
                                        kernel.now_ms()):
        raise ManagerError(ErrorCode.STALE, "changed meanwhile")
    return old
