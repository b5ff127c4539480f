"""Per-person cooldowns on interactions that cost work (see :mod:`bot.core.limits`).

``CalicoBot.admit`` asks :func:`wait_for` about every interaction before its handler runs: its
entry in :data:`bot.adapter.policy.POLICY` says whether it is counted, and by which cooldown; a
person past their allowance gets a short private answer saying when to try again (Discord's
relative timestamp, shown in their own time), or an empty suggestion list for autocomplete
(which cannot show a message), and the work never starts. For a cooldown that refused work
does not use up (starting games), the allowance is given back when the interaction is refused
(:func:`give_back`, called by :mod:`bot.adapter.ui.respond` with every private refusal).
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from typing import TYPE_CHECKING, Any

import discord

from bot.adapter import policy, telemetry
from bot.core.limits import Cooldowns
from bot.words.catalogue import Text

if TYPE_CHECKING:
    from bot.ops.metrics import Metrics

log = logging.getLogger("calico.cooldowns")

_REFUND = "calico_refund"


def wait_for(interaction: discord.Interaction[Any], cooldowns: Cooldowns) -> float:
    """0.0 when the interaction may go ahead (and it is counted), else the seconds to wait."""
    entry = policy.policy_of(telemetry.kind_of(interaction))
    rule = entry.rule if isinstance(entry, policy.Counted | policy.Privileged) else None
    if rule is None:
        return 0.0
    user = interaction.user.id
    wait = cooldowns.take(rule, user)
    if wait == 0.0 and rule in policy.REFUNDED:
        interaction.extras[_REFUND] = lambda: cooldowns.refund(rule, user)
    return wait


def give_back(interaction: discord.Interaction[Any]) -> None:
    """The interaction was refused: give back the allowance it took, when its cooldown is one
    that refusals do not use up (once)."""
    refund = interaction.extras.pop(_REFUND, None)
    if callable(refund):
        refund()


def wait_text(tr: Text, seconds: float, now: float | None = None) -> str:
    when = math.ceil((time.time() if now is None else now) + max(seconds, 1.0))
    return tr("cooldown.wait", when=f"<t:{when}:R>")


async def refuse(interaction: discord.Interaction[Any], seconds: float,
                 metrics: Metrics | None) -> None:
    """The short private answer to someone who has to wait (for autocomplete, which cannot
    show one, no suggestions)."""
    telemetry.admitted(interaction)
    with contextlib.suppress(discord.HTTPException):
        if interaction.type is discord.InteractionType.autocomplete:
            await interaction.response.autocomplete([])
        else:
            await interaction.response.send_message(
                wait_text(Text(interaction.locale), seconds), ephemeral=True)
    telemetry.answered(metrics, interaction, "refused")
    log.debug("cooldown: %s by %s waits %.1f s", telemetry.kind_of(interaction),
              interaction.user.id, seconds)
