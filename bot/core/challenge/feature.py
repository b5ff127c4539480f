"""What the weekly challenge adds to the core's flow (:mod:`bot.core.hooks`): at the end of a
challenge game its score (stored with the result) and the player's DM; in the sweep, the
weeks to close."""

from __future__ import annotations

from bot.core.challenge import closing, play
from bot.core.hooks import Feature
from bot.core.kernel import Kernel

FEATURE: Feature[Kernel] = Feature("challenge", game_over=play.game_over,
                                   sweep=closing.close_due)
