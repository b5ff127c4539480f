"""What a server's settings (``/calico admin``, :mod:`bot.core.servers`) change for players:
where and by whom games may be started, the defaults of ``/calico start``, and how the settings
read back to the admins.

Used by the lobby cog (the checks and defaults), the admin cog (the summary) and the delivery
and click handlers (the lobby message's role ping).
"""

from __future__ import annotations

from typing import Any, Final

import discord

from bot.core.models import TimeoutAction
from bot.core.servers import ServerSettings
from bot.words import markup
from bot.words.catalogue import Text

DEFAULT_TURN_HOURS: Final = 24
DEFAULT_TIMEOUT: Final = TimeoutAction.AUTOPILOT.value
LANGUAGE_NAMES: Final = {"en": "English", "fr": "Français", "pl": "Polski"}


def may_manage(interaction: discord.Interaction[Any]) -> bool:
    """Whether the user may manage the server where they used the command."""
    if interaction.guild is None:
        return False
    perms = interaction.permissions
    return bool(perms.manage_guild or perms.administrator)


def has_role(user: object, role_id: int) -> bool:
    roles = getattr(user, "roles", None) or []
    return any(getattr(r, "id", None) == role_id for r in roles)


# What the bot needs in the channel to run a game there, in the order we report them.
NEEDED: Final = ("view_channel", "send_messages", "attach_files", "create_public_threads",
                 "send_messages_in_threads")
# What the person starting a game needs there: the bot opens a public thread and posts in the
# channel on their behalf, so someone who may not do that may not make the bot do it.
MEMBER_NEEDED: Final = ("view_channel", "send_messages", "create_public_threads")


def missing_permissions(perms: discord.Permissions,
                        needed: tuple[str, ...] = NEEDED) -> list[str]:
    return [name for name in needed if not getattr(perms, name)]


def permission_refusal(tr: Text, interaction: discord.Interaction[Any]) -> str | None:
    """Why a game may not be opened from this channel (or thread: its parent's permissions)
    for this person: the bot lacks a permission it needs, or the person lacks one of those
    the bot would use on their behalf (None: neither)."""
    missing = missing_permissions(interaction.app_permissions)
    if missing:
        return tr("perm.missing", perms=", ".join(tr(f"perm.{m}") for m in missing))
    missing = missing_permissions(interaction.permissions, MEMBER_NEEDED)
    if missing:
        return tr("perm.member_missing", perms=", ".join(tr(f"perm.{m}") for m in missing))
    return None


def start_refusal(tr: Text, interaction: discord.Interaction[Any], server: ServerSettings,
                  channel_id: int | None = None) -> str | None:
    """Why this person may not start a game here (None: they may): the server opens games in
    one channel only, or lets only a role start them (people who may manage the server always
    may). ``channel_id``: where the game's thread would open (default: this channel; a
    rematch opens where the finished game was)."""
    channel = interaction.channel
    where = channel_id if channel_id is not None else (channel.id if channel else None)
    if server.games_channel_id is not None and where != server.games_channel_id:
        return tr("hosting.wrong_channel", channel=markup.channel_mention(server.games_channel_id))
    if server.starter_role_id is not None and not may_manage(interaction) \
            and not has_role(interaction.user, server.starter_role_id):
        return tr("hosting.need_role", role=markup.role_mention(server.starter_role_id))
    return None


def start_defaults(server: ServerSettings, turn_hours: int | None,
                   timeout: str | None) -> tuple[int, str]:
    """The time per turn and the timeout action of a new table: as given, else the server's
    defaults, else the bot's."""
    hours = turn_hours if turn_hours is not None else (server.turn_hours or DEFAULT_TURN_HOURS)
    action = timeout if timeout is not None else (
        server.timeout_action.value if server.timeout_action is not None else DEFAULT_TIMEOUT)
    return hours, action


def settings_text(tr: Text, server: ServerSettings) -> str:
    """The server's settings, one line each, as ``/calico admin`` shows them."""
    def channel(cid: int | None, unset: str) -> str:
        return markup.channel_mention(cid) if cid is not None else tr(unset)

    def role(rid: int | None, unset: str) -> str:
        return markup.role_mention(rid) if rid is not None else tr(unset)

    hours = server.turn_hours or DEFAULT_TURN_HOURS
    action = server.timeout_action.value if server.timeout_action else DEFAULT_TIMEOUT
    language = LANGUAGE_NAMES.get(server.language or "", "") or tr("hosting.show.host_language")
    lines = [
        tr("hosting.show.title"),
        tr("hosting.show.games_channel", value=channel(server.games_channel_id,
                                                       "hosting.show.any_channel")),
        tr("hosting.show.starter_role", value=role(server.starter_role_id,
                                                   "hosting.show.everyone")),
        tr("hosting.show.turn_hours", value=tr("choice.hours", count=hours)),
        tr("hosting.show.timeout", value=tr(f"timeout.{action}")),
        tr("hosting.show.ping_role", value=role(server.ping_role_id, "hosting.show.nobody")),
        tr("hosting.show.language", value=language),
        tr("hosting.show.challenge_channel", value=channel(server.challenge_channel_id,
                                                           "hosting.show.not_set")),
        "",
        tr("hosting.show.help"),
    ]
    return markup.clip("\n".join(lines), 2000)


def unreadable_channels(interaction: discord.Interaction[Any], server: ServerSettings,
                        noted: list[int]) -> list[int]:
    """The channels of this server where the bot cannot read message history, as
    ``/calico admin`` names them: those the delivery found so (``noted``, this process's
    :class:`~bot.adapter.postmarks.Unreadable`) and the games and challenge channels and this
    one, checked now (a channel this process does not hold is named as it was found)."""
    guild = interaction.guild
    me = getattr(guild, "me", None)
    if guild is None or me is None:
        return noted
    wanted = [server.games_channel_id, server.challenge_channel_id, interaction.channel_id,
              *noted]
    out: list[int] = []
    for cid in dict.fromkeys(c for c in wanted if c is not None):
        channel = guild.get_channel_or_thread(cid)
        if channel is None:
            lacking = cid in noted
        else:
            lacking = not channel.permissions_for(me).read_message_history
        if lacking:
            out.append(cid)
    return out

