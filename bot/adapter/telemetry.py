"""Interactions as the metrics and logs see them: what kind each one is, when it arrived, and
how it was answered.

:func:`admitted` stamps an interaction when the bot lets it in (and binds its id, the user and
the server to every log line of its task); :func:`answered` records its outcome and latency in
the bot's :class:`~bot.ops.metrics.Metrics`, once. Both cost a few microseconds.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import discord

from bot.ops.logs import bind_context
from bot.ops.metrics import Outcome

if TYPE_CHECKING:
    from bot.ops.metrics import Metrics

_STARTED = "calico_started"
_RECORDED = "calico_recorded"


def kind_of(interaction: discord.Interaction[Any]) -> str:
    """``slash:<command>``, ``button:<template>``, ``select:<template>``, or the type name."""
    data: Any = interaction.data or {}
    if interaction.type is discord.InteractionType.application_command:
        command = interaction.command
        name = command.qualified_name if command is not None else data.get("name", "?")
        return f"slash:{name}"
    if interaction.type is discord.InteractionType.component:
        custom_id = str(data.get("custom_id", ""))
        parts = custom_id.split(":")
        template = parts[1] if len(parts) > 1 and parts[0] == "calico" else "other"
        kind = "select" if data.get("component_type") == 3 else "button"
        return f"{kind}:{template}"
    if interaction.type is discord.InteractionType.autocomplete:
        return "autocomplete"
    return interaction.type.name


def admitted(interaction: discord.Interaction[Any]) -> None:
    interaction.extras[_STARTED] = time.perf_counter()
    bind_context(interaction=interaction.id, user=interaction.user.id,
                 guild=interaction.guild_id)


def answered(metrics: Metrics | None, interaction: discord.Interaction[Any],
             outcome: Outcome) -> None:
    """Record how ``interaction`` was answered (the first call counts)."""
    if metrics is None or interaction.extras.get(_RECORDED):
        return
    interaction.extras[_RECORDED] = True
    started = interaction.extras.get(_STARTED)
    seconds = time.perf_counter() - started if isinstance(started, float) else 0.0
    metrics.record_interaction(kind_of(interaction), outcome, seconds)
