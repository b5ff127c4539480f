"""What achievements and ratings add to the core's flow (:mod:`bot.core.hooks`): at a game's
end, the achievements each person earned and the ratings the result moves, stored with the
result (steps of :mod:`bot.core.progress.store`), and the score sheet's part saying so."""

from __future__ import annotations

from bot.core.game import Tx
from bot.core.hooks import Ending, Feature
from bot.core.kernel import Kernel
from bot.core.progress import achievements, ratings, store
from bot.core.progress.model import AchievementRow, Progress


async def game_over(kernel: Kernel, tx: Tx, ending: Ending) -> Progress:
    g = tx.g
    autopilot = [m.seat for m in await kernel.store.moves(g.id) if m.played_by == "autopilot"]
    if tx.move is not None and tx.move.played_by == "autopilot":
        autopilot.append(tx.move.seat)
    computer = achievements.computer_seats(g.seats, autopilot)
    held: dict[int, list[str]] = {}
    for s in g.seats:
        if s.user_id is not None and s.ai_level is None:
            held[s.seat] = [a.achievement for a in await store.achievements(kernel.store,
                                                                             s.user_id)]
    earned = achievements.evaluate_game(kernel, g, ending.events, held, computer=computer)
    rows = [AchievementRow(e.user_id, a, g.id, g.guild_id, tx.now)
            for e in earned for a in e.ids]
    if rows:
        tx.steps.append(store.add_achievements(rows))
    update = ratings.rating_update(g, ending.over, tx.now)
    if update is not None:
        tx.steps.append(store.apply_ratings(update))
    return Progress(earned=tuple(earned), rated=update is not None)


FEATURE: Feature[Kernel] = Feature("progress", game_over=game_over)
