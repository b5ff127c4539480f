"""What tournaments add to the core's flow (:mod:`bot.core.hooks`): a line on a table's score
sheet, the rounds the sweep starts and ends, and what Discord's life does to them (a channel
lost, the bot removed, a member leaving: :mod:`bot.core.tournament.life`)."""

from __future__ import annotations

from bot.core.hooks import Feature
from bot.core.kernel import Kernel
from bot.core.tournament import life, rounds, tables

FEATURE: Feature[Kernel] = Feature("tournament", game_over=tables.game_over, sweep=rounds.tick,
                                   life=life.life)
