"""What tournaments add to the core's flow (:mod:`bot.core.hooks`): a line on a table's score
sheet, and the rounds the sweep starts and ends."""

from __future__ import annotations

from bot.core.hooks import Feature
from bot.core.kernel import Kernel
from bot.core.tournament import rounds, tables

FEATURE: Feature[Kernel] = Feature("tournament", game_over=tables.game_over, sweep=rounds.tick)
