"""What the web site adds to a game's end (:mod:`bot.core.hooks`): the ratings the game moved,
kept as points of each player's rating history, in the game's own transaction after the
ratings themselves (this feature is registered after progress)."""

from __future__ import annotations

from bot.core.game import Tx
from bot.core.hooks import Ending, Feature
from bot.core.kernel import Kernel
from bot.core.progress import ratings
from bot.core.site import store


async def game_over(kernel: Kernel, tx: Tx, ending: Ending) -> None:
    update = ratings.rating_update(tx.g, ending.over, tx.now)
    if update is not None:
        tx.steps.append(store.keep_ratings(update.keys, tx.now))


FEATURE: Feature[Kernel] = Feature("site", game_over=game_over)
