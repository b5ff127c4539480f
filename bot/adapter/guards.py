"""What every slash command's input must be before the command runs (issue 20).

Discord applies a command's declared shape only partly: a subcommand's ``guild_only`` is not
sent to Discord at all (only a top-level command's is, and ``/calico`` as a whole works in DMs),
and a hand-made client may send a value outside an option's declared choices. Both are refused
here, once for every command, with a short private answer, before any work or cooldown:

- a server-only command (``@app_commands.guild_only()``, or in a group made with
  ``guild_only=True``) used outside a server;
- an option value that is not one of the option's declared choices.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.words.catalogue import Text


def refusal(interaction: discord.Interaction[Any]) -> str | None:
    """The private answer for a slash command whose input does not fit its declaration, or
    None when it fits (also for anything that is not a slash command)."""
    if interaction.type is not discord.InteractionType.application_command:
        return None
    command = interaction.command
    if not isinstance(command, app_commands.Command):
        return None
    tr = Text(interaction.locale)
    if interaction.guild_id is None and _server_only(command):
        return tr("error.server_only")
    namespace = interaction.namespace
    for param in command.parameters:
        if not param.choices:
            continue
        value = getattr(namespace, param.name, None)  # None: not given
        if value is not None and value not in {c.value for c in param.choices}:
            return tr("start.bad_option", option=param.name)
    return None


def _server_only(command: app_commands.Command[Any, ..., Any]) -> bool:
    """The command, or a group it is in, is declared for servers only."""
    node: app_commands.Command[Any, ..., Any] | app_commands.Group | None = command
    while node is not None:
        if node.guild_only:
            return True
        node = node.parent
    return False
