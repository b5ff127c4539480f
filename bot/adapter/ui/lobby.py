"""The lobby post (``/calico start``'s table, edited in place by the outbox): with the server's
lobby role pinged, and, for a rematch, the previous game's players invited; and the score
sheet's Rematch button, which opens such a lobby in the finished game's channel."""

from __future__ import annotations

from typing import Any

import discord

from bot.adapter import hosting
from bot.adapter.context import app_of, user_ref
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import messages, respond
from bot.adapter.ui.outgoing import Outgoing
from bot.core import lobby, queries, servers
from bot.core.kernel import Kernel
from bot.core.models import GameInfo, GameStatus, ManagerError
from bot.words import markup
from bot.words.catalogue import Text
from bot.words.replies import reply_for


async def lobby_message(tr: Text, kernel: Kernel, game: GameInfo) -> Outgoing:
    """The lobby post; a rematch's lobby also invites (and, when first posted, pings) the
    previous game's players who have not joined yet; the server's lobby role is pinged too."""
    server = await servers.settings(kernel, game.guild_id)
    out = messages.lobby_message(tr, game, ping_role=server.ping_role_id)
    if game.rematch_of is None or game.status is not GameStatus.LOBBY:
        return out
    try:
        before = await queries.game(kernel, game.rematch_of)
    except ManagerError:
        return out
    invite = [u for u in lobby.previous_people(before)
              if all(s.user_id != u for s in game.seats)]
    if invite:
        mentions = ", ".join(markup.mention(u) for u in invite)
        out.content = markup.clip(out.content + "\n\n" + tr("progress.rematch.line", game=before.id,
                                                        mentions=mentions), 2000)
        out.ping = invite
    return out

def thread_opened(game: GameInfo) -> bool:
    """The game's thread exists (or never will: the game ended, e.g. no permission)."""
    return game.thread_id is not None or not game.status.active


async def wait_for_thread(kernel: Kernel, game_id: int, timeout: float = 5.0) -> GameInfo:
    """The game once the outbox opened its thread (this process or another), or as it stands
    after ``timeout`` seconds (the answer then says the table is on its way)."""
    return await queries.wait_for(kernel, game_id, thread_opened, timeout)


async def rematch_refusal(tr: Text, kernel: Kernel, interaction: discord.Interaction[Any],
                          game_id: int) -> str | None:
    """Why this click may not open a rematch (None: it may). A rematch opens a public thread
    in the finished game's channel, pinging people, exactly as ``/calico start`` would there:
    the same checks (the bot's and the person's permissions, the server's games channel and
    starter role)."""
    try:
        game = await queries.game(kernel, game_id)
    except ManagerError as e:
        return reply_for(tr, e)
    if interaction.guild_id is None or interaction.guild_id != game.guild_id:
        return tr("start.text_channel_only")
    refusal = hosting.permission_refusal(tr, interaction)
    if refusal is None:
        server = await servers.settings(kernel, game.guild_id)
        refusal = hosting.start_refusal(tr, interaction, server, channel_id=game.channel_id)
    return refusal

async def rematch_click(interaction: discord.Interaction[Any], cid: ids.RematchId) -> None:
    bot = app_of(interaction)
    tr = Text(interaction.locale)
    me = user_ref(interaction)
    refusal = await rematch_refusal(tr, bot.kernel, interaction, cid.game)
    if refusal is not None:
        await respond.refuse_text(interaction, refusal)  # the start allowance is given back
        return
    bot.locales.remember(me.id, me.locale)

    async def work() -> Outgoing:
        table, created = await lobby.rematch(bot.kernel, cid.game, me)
        table = await wait_for_thread(bot.kernel, table.id)
        if table.thread_id is None:
            return Outgoing(tr("progress.rematch.opening", game=table.id))
        key = "progress.rematch.opened" if created else "progress.rematch.exists"
        return Outgoing(tr(key, game=table.id, thread=markup.channel_mention(table.thread_id)))

    await respond.reply(interaction, work(), ephemeral=True)
