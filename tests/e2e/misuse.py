"""A small world to misbehave in, shared by the refusal sweep (``test_bot_refusals.py``) and the
fuzz (``test_bot_fuzz.py``): a lobby, a table in play and a finished solo game on one server,
another server next door, people without any rights, and the readers those tests check with
(what everyone can see, every game as stored, the ERROR lines of the log).

Clicks here may carry any custom id (:func:`press`): Discord only sends ids that sit on a
message, but old messages, other games' messages and hand-made clients mean a handler must
never trust one.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from bot.adapter import policy
from bot.adapter.client import CalicoBot
from bot.adapter.ui import custom_ids as ids
from bot.core import queries, servers
from bot.core.models import GameStatus
from bot.core.tournament import records
from tests.adapter.harness import bot, settle
from tests.core.conftest import play_out, snapshot
from tests.e2e.test_bot_commands import open_lobby, started_table
from tests.fakediscord import DiscordEnv, FakeChannel, FakeMessage, InteractionType, perm_bits
from tests.fakediscord.state import FakeGuild, FakeUser

# Longest a refusal may be: a sentence or two (a panel or a list is not a refusal).
SHORT = 300


@dataclass
class World:
    """Who and what the misuse tests act on."""

    lobby: int  # alice's lobby, bob not in it
    lobby_thread: int
    table: int  # alice and bob, in play (beginner: no draft)
    table_thread: int
    finished: int  # alice's solo game, played to the end
    cup: int  # a tournament in sign-up, organised by mod, alice signed up
    elsewhere: FakeGuild  # another server: eve is there, none of our games are
    elsewhere_channel: FakeChannel
    zofia: FakeUser  # a member with no rights and no game, reading Polish
    eve: FakeUser  # only on the other server, reading French

    @property
    def games(self) -> tuple[int, int, int]:
        return self.lobby, self.table, self.finished

    def __repr__(self) -> str:  # hypothesis prints a dataclass field by field, guilds and all
        return f"World(games {self.games}, cup {self.cup})"


def populate(env: DiscordEnv) -> tuple[FakeGuild, FakeChannel, FakeUser, FakeUser]:
    """People and places, before the client starts (a guild added later is not cached): mod
    may manage the server (and reads Polish)."""
    zofia = env.add_user("zofia", locale="pl")
    env.add_user("mod", locale="pl")
    env.add_member("mod", roles=[env.add_role("Mods", perm_bits("manage_guild"))])
    other = env.add_guild("Elsewhere")
    lounge = env.add_text_channel("lounge", guild=other)
    eve = env.add_user("eve", locale="fr", guild=other)
    return other, lounge, zofia, eve


async def build(env: DiscordEnv, other: FakeGuild, lounge: FakeChannel, zofia: FakeUser,
                eve: FakeUser) -> World:
    """The games (the client is running)."""
    lobby, lobby_thread = await open_lobby(env)
    table, table_thread = await started_table(env)
    inter = await env.slash("alice", "calico", "solo", options={"setup": "beginner"})
    await inter.wait_response()
    await inter.wait_followups(1, timeout=15)
    await settle(env)
    manager = bot(env).manager
    solo = await queries.game_for_thread(manager.kernel, env.threads(env.channel)[-1].id)
    assert solo is not None
    done = await play_out(manager, solo)
    assert done.status is GameStatus.OVER
    inter = await env.slash("mod", "calico", "tournament create", options={"name": "Cup"})
    await inter.wait_response()
    await inter.wait_followups(1)
    await settle(env)
    [cup] = await records.listed(manager.kernel, env.guild.id)
    signup = next(m for m in env.messages(env.channel)
                  if f"calico:tj:{cup.id}" in [c.custom_id for c in m.walk_components()])
    await (await env.click("alice", signup, custom_id=f"calico:tj:{cup.id}")).wait_response()
    await settle(env)
    return World(lobby, lobby_thread, table, table_thread, done.id, cup.id, other, lounge, zofia,
                 eve)


def no_cooldowns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every cooldown off for the bot started next (a sweep reads each refusal's own words;
    the cooldowns have their tests)."""
    for setting in policy.PACE_SETTINGS.values():
        monkeypatch.setenv(f"CALICO_{setting.upper()}", "0")


# --------------------------------------------------------------------------- acting


def old_post(env: DiscordEnv, channel_id: int, custom_id: str,
             values: list[str] | None = None) -> FakeMessage:
    """A message of the bot's in ``channel_id`` showing one component with ``custom_id`` (a
    select offering ``values`` when given): an old post, or one of another game's, whose
    buttons still reach the bot however stale (discord.py only routes a click whose component
    sits on its message)."""
    state = env.state
    if values is None:
        widget: dict[str, Any] = {"type": 2, "style": 2, "label": "x", "custom_id": custom_id}
    else:
        widget = {"type": 3, "custom_id": custom_id, "min_values": 1, "max_values": 1,
                  "options": [{"label": v[:100] or "-", "value": v} for v in values] or
                  [{"label": "-", "value": "-"}]}
    channel = state.channels[channel_id]
    message = FakeMessage(id=state.next_id(), channel_id=channel_id, guild_id=channel.guild_id,
                          author=state.bot_user, content="",
                          components=[{"type": 1, "components": [widget]}],
                          created_at=state.clock())
    return state.add_message(message)


async def press(env: DiscordEnv, user: str | FakeUser, message: FakeMessage, custom_id: str,
                values: list[str] | None = None) -> Any:
    """A click on ``message``'s component ``custom_id`` (a select's, picking ``values``, when
    given; unchecked against the options)."""
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
    if values is not None:
        data.update(component_type=3, values=values)
    return await env.send_interaction(user, message.channel_id,
                                      InteractionType.MESSAGE_COMPONENT, data, message=message)


def is_select(kind: ids.Kind) -> bool:
    return isinstance(kind.widget, ids.Select)


async def raw_slash(env: DiscordEnv, user: str | FakeUser, sub: str,
                    options: Mapping[str, tuple[int, Any]], channel: Any = None) -> Any:
    """``/calico sub`` (``"group sub"`` for a group's) with options sent as given (``name:
    (type, value)``), unchecked: what a hand-made client could send, past the stand-in's checks
    of choices and bounds."""
    leaf = [{"name": k, "type": t, "value": v} for k, (t, v) in options.items()]
    *group, name = sub.split(" ")
    top: list[dict[str, Any]] = [{"type": 1, "name": name, "options": leaf}]
    if group:
        top = [{"type": 2, "name": group[0], "options": top}]
    data = {"id": str(env.state.next_id()), "name": "calico", "type": 1, "options": top}
    return await env.send_interaction(user, channel, InteractionType.APPLICATION_COMMAND, data)


# --------------------------------------------------------------------------- reading


def leaf_commands(client: CalicoBot) -> dict[str, Any]:
    """Every command a person can run, by its name under ``/calico`` (``admin`` or
    ``group sub``), from the bot's real command tree."""
    from discord import app_commands

    return {c.qualified_name.removeprefix("calico "): c
            for c in client.calico_group.walk_commands()
            if isinstance(c, app_commands.Command)}


def public_view(env: DiscordEnv) -> dict[int, tuple[Any, ...]]:
    """What everyone (and every DM) shows that is not an ephemeral answer: id -> look."""
    return {m.id: (m.content, tuple(m.embeds and [str(e) for e in m.embeds]),
                   tuple(str(c) for c in m.components), len(m.attachments))
            for m in env.state.messages.values()
            if not m.deleted and not m.ephemeral and not m.loading}


async def stored(env: DiscordEnv, world: World) -> list[Any]:
    """Everything stored about the world's games and tournament, plus zofia's and the server's
    settings."""
    manager = bot(env).manager
    out: list[Any] = [await snapshot(manager, g) for g in world.games]
    out.append(await records.get(manager.kernel, world.cup))
    out.append(await queries.get_settings(manager.kernel, env.user("zofia").id))
    out.append(await servers.settings(manager.kernel, env.guild.id))
    return out


class Errors(logging.Handler):
    """Every ERROR (or worse) logged anywhere while installed."""

    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def lines(self) -> list[str]:
        out = []
        for r in self.records:
            text = f"[{r.name}] {r.getMessage()}"
            if r.exc_info and r.exc_info[1] is not None:
                text += f": {type(r.exc_info[1]).__name__}: {r.exc_info[1]}"
            out.append(text)
        return out

    def take(self) -> list[str]:
        lines = self.lines()
        self.records.clear()
        return lines


@contextmanager
def logged_errors() -> Iterator[Errors]:
    handler = Errors()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


def answers(inter: Any) -> list[FakeMessage]:
    """Every message the bot produced for this interaction (deleted ones included)."""
    out = list(inter.followups)
    if inter.original_message_id is not None and inter.original_message_id != inter.message_id:
        out.insert(0, inter.world.messages[inter.original_message_id])
    return out
