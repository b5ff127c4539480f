"""Per-person cooldowns on interactions that cost work (see :mod:`bot.core.limits`).

``CalicoBot.admit`` asks :func:`wait_for` about every interaction before its handler runs: the
kind of interaction (:func:`bot.adapter.telemetry.kind_of`) picks a cooldown, if any; a person
past their allowance gets a short private answer saying when to try again (Discord's relative
timestamp, shown in their own time) and the work never starts. Starting games and anything that
draws a picture count; playing a move, joining a table and looking at text never do.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from typing import TYPE_CHECKING, Any, Final

import discord

from bot.adapter import telemetry
from bot.core.limits import Cooldowns, Rule
from bot.words.catalogue import Text

if TYPE_CHECKING:
    from bot.ops.metrics import Metrics
    from bot.settings import Settings

log = logging.getLogger("calico.cooldowns")

START: Final = "start"
PICTURE: Final = "picture"
START_BURST: Final = 3
PICTURE_BURST: Final = 20

# Interaction kinds (telemetry.kind_of) that cost work, by cooldown.
KINDS: Final[dict[str, str]] = {
    "slash:calico start": START,
    "slash:calico solo": START,
    "slash:calico board": PICTURE,
    "slash:calico hand": PICTURE,
    "slash:calico status": PICTURE,
    "slash:calico replay": PICTURE,
    "select:c": PICTURE,  # a cell chosen: the preview picture
    "button:u": PICTURE,  # undo: the turn picture again
    "select:g": PICTURE,  # a goal arrangement chosen: the draft picture
    "button:gb": PICTURE,
    "button:hand": PICTURE,  # "Show my hand"
}


def cooldowns_from(settings: Settings) -> Cooldowns:
    return Cooldowns({START: Rule(START_BURST, settings.start_cooldown),
                      PICTURE: Rule(PICTURE_BURST, settings.picture_cooldown)})


def wait_for(interaction: discord.Interaction[Any], cooldowns: Cooldowns) -> float:
    """0.0 when the interaction may go ahead (and it is counted), else the seconds to wait."""
    kind = KINDS.get(telemetry.kind_of(interaction))
    if kind is None:
        return 0.0
    return cooldowns.take(kind, interaction.user.id)


def wait_text(tr: Text, seconds: float, now: float | None = None) -> str:
    when = math.ceil((time.time() if now is None else now) + max(seconds, 1.0))
    return tr("cooldown.wait", when=f"<t:{when}:R>")


async def refuse(interaction: discord.Interaction[Any], seconds: float,
                 metrics: Metrics | None) -> None:
    """The short private answer to someone who has to wait."""
    telemetry.admitted(interaction)
    with contextlib.suppress(discord.HTTPException):
        await interaction.response.send_message(
            wait_text(Text(interaction.locale), seconds), ephemeral=True)
    telemetry.answered(metrics, interaction, "refused")
    log.debug("cooldown: %s by %s waits %.1f s", telemetry.kind_of(interaction),
              interaction.user.id, seconds)
