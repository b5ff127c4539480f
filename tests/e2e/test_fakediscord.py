"""Tests of the fake Discord itself, driving a tiny discord.py bot defined here."""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import discord
import discord.gateway
import discord.http
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from tests.fakediscord import ActorError, CallbackType, DiscordEnv, limits


def make_png(n: int) -> bytes:
    img = Image.new("RGB", (32, 24), ((n * 40) % 256, 100, 200))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


def png_file(n: int) -> discord.File:
    return discord.File(io.BytesIO(make_png(n)), "board.png")


class CounterButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"demo:(?P<n>\d+)"):
    def __init__(self, n: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Count {n}", style=discord.ButtonStyle.primary, custom_id=f"demo:{n}"
            )
        )
        self.n = n

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> CounterButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = interaction.client
        assert isinstance(bot, DemoBot)
        bot.clicks.append(self.n)
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(self.n + 1))
        await interaction.response.edit_message(
            content=f"count {self.n + 1}", attachments=[png_file(self.n + 1)], view=view
        )


class PickView(discord.ui.View):
    @discord.ui.select(
        custom_id="demo:pick",
        placeholder="Choose a cell",
        options=[discord.SelectOption(label=f"Cell {i}", value=f"c{i}") for i in range(22)],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.edit_message(
            content=f"picked {', '.join(select.values)}", view=None
        )


class NameModal(discord.ui.Modal, title="Who are you?"):
    name: discord.ui.TextInput[Any] = discord.ui.TextInput(
        label="Name", custom_id="name_input", max_length=20
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"hello {self.name.value}", ephemeral=True)


def demo_bot(interaction: discord.Interaction) -> DemoBot:
    bot = interaction.client
    assert isinstance(bot, DemoBot)
    return bot


class DemoGroup(app_commands.Group, name="demo", description="fake Discord demo"):
    admin = app_commands.Group(name="admin", description="nested group")

    @admin.command(description="a subcommand in a subcommand group")
    async def kick(
        self, interaction: discord.Interaction, member: discord.Member, reason: str = "none"
    ) -> None:
        await interaction.response.send_message(f"kick {member.name} ({reason})", ephemeral=True)

    @app_commands.command(description="edits and deletes through the interaction token")
    async def edits(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("v1", file=png_file(1))
        original = await interaction.original_response()
        await interaction.edit_original_response(
            content="v2", attachments=[*original.attachments, png_file(2)]
        )
        note = await interaction.followup.send("note", wait=True)
        await note.edit(content="note (edited)")
        extra = await interaction.followup.send("temporary", wait=True)
        await extra.delete()

    @app_commands.command(description="defer, then a PNG and a counter button")
    async def start(self, interaction: discord.Interaction, n: int = 1) -> None:
        await interaction.response.defer(thinking=True)
        view = discord.ui.View(timeout=None)
        view.add_item(CounterButton(n))
        await interaction.followup.send(f"count {n}", file=png_file(n), view=view)

    @app_commands.command(description="DM the caller")
    async def dm(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            await interaction.user.send("your hand: two tiles")
        except discord.Forbidden as exc:
            demo_bot(interaction).failures.append(("dm", exc.code))
            await interaction.followup.send(
                "I cannot DM you, please open your DMs.", ephemeral=True
            )
            return
        await interaction.followup.send("sent you a DM", ephemeral=True)

    @app_commands.command(description="create a thread and post in it")
    @app_commands.choices(
        mode=[app_commands.Choice(name=m, value=m) for m in ("public", "private", "message")]
    )
    async def thread(
        self, interaction: discord.Interaction, name: str, mode: str = "public"
    ) -> None:
        await interaction.response.defer(thinking=True)
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        if mode == "message":
            anchor = await channel.send(f"table {name}")
            thread = await anchor.create_thread(name=name)
        elif mode == "private":
            thread = await channel.create_thread(
                name=name, type=discord.ChannelType.private_thread, invitable=False
            )
            await thread.add_user(interaction.user)
        else:
            thread = await channel.create_thread(name=name, type=discord.ChannelType.public_thread)
        await thread.send("welcome to the game")
        await interaction.followup.send(f"created {thread.mention}")

    @app_commands.command(description="post in a channel or thread by id")
    async def post(self, interaction: discord.Interaction, target: str, text: str) -> None:
        await interaction.response.defer(ephemeral=True)
        await interaction.client.get_partial_messageable(int(target)).send(text)
        await interaction.followup.send("posted", ephemeral=True)

    @app_commands.command(description="announce in a channel")
    async def announce(
        self, interaction: discord.Interaction, channel: discord.TextChannel, text: str
    ) -> None:
        bot = demo_bot(interaction)
        guild = interaction.guild
        assert guild is not None and guild.me is not None
        bot.seen_permissions.append(
            (
                interaction.app_permissions.send_messages,
                channel.permissions_for(guild.me).send_messages,
            )
        )
        await interaction.response.defer(ephemeral=True)
        try:
            await channel.send(text)
        except discord.Forbidden as exc:
            bot.failures.append(("announce", exc.code))
            await interaction.followup.send("I am missing permissions there.", ephemeral=True)
            return
        await interaction.followup.send("announced", ephemeral=True)

    @app_commands.command(description="a select menu")
    async def pick(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pick a cell", view=PickView())

    @app_commands.command(description="a modal")
    async def ask(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NameModal())

    @app_commands.command(description="answers too late")
    async def slow(self, interaction: discord.Interaction, seconds: float) -> None:
        await asyncio.sleep(seconds)
        try:
            await interaction.response.send_message("finally")
        except discord.NotFound as exc:
            demo_bot(interaction).failures.append(("slow", exc.code))

    @app_commands.command(description="answers twice")
    async def twice(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        # Simulate a second code path answering the same interaction (bypasses discord.py's guard).
        interaction.response._response_type = None
        try:
            await interaction.response.send_message("two")
        except discord.HTTPException as exc:
            demo_bot(interaction).failures.append(("twice", exc.code))

    @app_commands.command(description="breaks component limits")
    async def big(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View()
        view.add_item(discord.ui.Button(label="x" * 81, custom_id="demo:big"))
        try:
            await interaction.response.send_message("too long label", view=view)
        except discord.HTTPException as exc:
            demo_bot(interaction).failures.append(("big", exc.code))

    @app_commands.command(description="locale echo")
    async def hello(self, interaction: discord.Interaction) -> None:
        demo_bot(interaction).locales.append(interaction.locale)
        await interaction.response.send_message(
            f"locale {interaction.locale.value}", ephemeral=True
        )

    @app_commands.command(description="waits for the test, then follows up")
    async def later(self, interaction: discord.Interaction) -> None:
        bot = demo_bot(interaction)
        await interaction.response.defer()
        await bot.gate.wait()
        try:
            await interaction.followup.send("much later")
        except discord.HTTPException as exc:
            bot.failures.append(("later", exc.code))

    @app_commands.command(description="autocomplete")
    async def choose(self, interaction: discord.Interaction, cell: str) -> None:
        await interaction.response.send_message(f"chose {cell}")

    @choose.autocomplete("cell")
    async def choose_cell(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        names = [f"c{i}" for i in range(40) if current in f"c{i}"]
        return [app_commands.Choice(name=f"Cell {n}", value=n) for n in names][:25]


class DemoBot(commands.Bot):
    def __init__(self, *, sync: bool = False, intents: discord.Intents | None = None) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned, intents=intents or discord.Intents.default()
        )
        self.sync_on_start = sync
        self.clicks: list[int] = []
        self.failures: list[tuple[str, int]] = []
        self.locales: list[discord.Locale] = []
        self.seen_permissions: list[tuple[bool, bool]] = []
        self.removed_guilds: list[int] = []
        self.joined_guilds: list[int] = []
        self.new_threads: list[int] = []
        self.gate = asyncio.Event()
        self.tree.add_command(DemoGroup())

    async def setup_hook(self) -> None:
        self.add_dynamic_items(CounterButton)
        if self.sync_on_start:
            await self.tree.sync()

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        self.removed_guilds.append(guild.id)

    async def on_guild_join(self, guild: discord.Guild) -> None:
        self.joined_guilds.append(guild.id)

    async def on_thread_create(self, thread: discord.Thread) -> None:
        self.new_threads.append(thread.id)


# ------------------------------------------------------------------------------------------------


async def test_login_reaches_ready_with_guild_cache(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot) as bot:
        assert bot.is_ready()
        assert bot.user is not None and bot.user.id == env.bot_user.id
        guild = bot.get_guild(env.guild.id)
        assert guild is not None and guild.me is not None
        channel = guild.get_channel(env.channel.id)
        assert isinstance(channel, discord.TextChannel)
        perms = channel.permissions_for(guild.me)
        assert perms.send_messages and perms.attach_files and perms.create_public_threads
        assert env.sync_count(True) == 0
    bot2 = await env.start_client(lambda: DemoBot(sync=True))
    assert bot2.is_ready()
    assert env.sync_count() == 1
    assert "demo" in env.state.global_commands and env.state.global_commands["demo"]["id"]
    assert env.server.identify_count == 2


async def test_slash_defer_followup_with_png_and_button(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot):
        ix = await env.slash("alice", "demo", "start", options={"n": 3})
        response = await ix.wait_response()
        assert response.type == CallbackType.DEFERRED_CHANNEL_MESSAGE
        msg = await ix.wait_followup()
        assert msg.content == "count 3" and not msg.ephemeral and not msg.loading
        assert msg.id == ix.original_message_id  # the first followup fills the deferred message
        image = msg.attachment("board.png").image()
        assert image.size == (32, 24)
        [row] = msg.rows
        assert [(b.label, b.custom_id, b.disabled) for b in row] == [("Count 3", "demo:3", False)]
        assert env.messages() == [msg]


async def test_click_edits_message_with_replacement_attachment(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot) as bot:
        ix = await env.slash("alice", "demo", "start", options={"n": 1})
        msg = await ix.wait_followup()
        old_png = msg.attachment("board.png").data
        click = await env.click("bob", msg, label="Count 1")
        assert (await click.wait_response()).type == CallbackType.UPDATE_MESSAGE
        assert bot.clicks == [1]
        assert msg.content == "count 2"
        assert [a.filename for a in msg.attachments] == ["board.png"]
        assert msg.attachment("board.png").data != old_png
        assert msg.button("Count 2").custom_id == "demo:2"
        assert len(msg.history) == 1 and msg.history[0].attachments[0].data == old_png


async def test_restart_old_dynamic_button_still_works(discord_env: DiscordEnv) -> None:
    env = discord_env
    first = await env.start_client(DemoBot)
    ix = await env.slash("alice", "demo", "start", options={"n": 7})
    msg = await ix.wait_followup()
    second = await env.restart_client(DemoBot)
    assert second is not first and second.is_ready()
    click = await env.click("carol", msg, custom_id="demo:7")
    await click.wait_response()
    assert second.clicks == [7] and first.clicks == []
    assert msg.content == "count 8"


async def test_dm_to_closed_dms_gets_50007_and_ephemeral_fallback(discord_env: DiscordEnv) -> None:
    env = discord_env
    env.set_dms_open("bob", False)
    async with env.run_client(DemoBot) as bot:
        ok = await env.slash("alice", "demo", "dm")
        assert (await ok.wait_followup()).content == "sent you a DM"
        assert [m.content for m in env.dm_messages("alice")] == ["your hand: two tiles"]
        closed = await env.slash("bob", "demo", "dm")
        reply = await closed.wait_followup()
        assert reply.ephemeral and "open your DMs" in reply.content
        assert bot.failures == [("dm", 50007)]
        assert env.dm_messages("bob") == []
        assert any(e.status == 403 and e.code == 50007 for e in env.errors)
        with pytest.raises(ActorError):
            await env.click("alice", reply, label="anything")


async def test_missing_permission_gives_50013_and_shows_in_app_permissions(
    discord_env: DiscordEnv,
) -> None:
    env = discord_env
    games = env.get_channel("games")
    async with env.run_client(DemoBot) as bot:
        await env.deny_bot(games, "send_messages")

        def bot_can_send() -> bool:
            guild = bot.get_guild(env.guild.id)
            channel = bot.get_channel(games.id)
            assert guild is not None and guild.me is not None
            assert isinstance(channel, discord.TextChannel)
            return channel.permissions_for(guild.me).send_messages

        await env.wait_for(lambda: not bot_can_send())
        ix = await env.slash(
            "alice", "demo", "announce", options={"channel": games, "text": "hi"}, channel=games
        )
        reply = await ix.wait_followup()
        assert reply.content == "I am missing permissions there."
        assert bot.failures == [("announce", 50013)]
        assert bot.seen_permissions == [(False, False)]
        assert env.messages(games) == []


async def test_rate_limited_once_then_succeeds(discord_env: DiscordEnv) -> None:
    env = discord_env
    env.rate_limit_next("/channels/*/messages", method="POST", retry_after=0.05)
    async with env.run_client(DemoBot):
        ix = await env.slash(
            "alice", "demo", "announce", options={"channel": env.channel, "text": "hi"}
        )
        assert (await ix.wait_followup()).content == "announced"
        attempts = env.requests_to("POST", "/channels/*/messages")
        assert [r.status for r in attempts] == [429, 200]
        assert [m.content for m in env.messages()] == ["hi"]


async def test_server_error_once_then_succeeds(discord_env: DiscordEnv) -> None:
    env = discord_env
    env.server_error_next("/channels/*/messages", method="POST")
    async with env.run_client(DemoBot):
        ix = await env.slash(
            "alice", "demo", "announce", options={"channel": env.channel, "text": "hi"}
        )
        assert (await ix.wait_followup(timeout=5)).content == "announced"
        assert [r.status for r in env.requests_to("POST", "/channels/*/messages")] == [500, 200]


@pytest.mark.fakediscord(interaction_deadline=0.2)
async def test_late_first_response_is_unknown_interaction(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot) as bot:
        ix = await env.slash("alice", "demo", "slow", options={"seconds": 0.3})
        rejection = await ix.wait_rejection()
        assert (rejection.status, rejection.code) == (404, 10062)
        await env.wait_for(lambda: bot.failures)
        assert bot.failures == [("slow", 10062)]
        assert ix.failed and not ix.acknowledged
        [violation] = env.pop_violations("late_response")
        assert violation.interaction_id == ix.id


async def test_double_initial_response_is_40060(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot) as bot:
        ix = await env.slash("alice", "demo", "twice")
        await env.wait_for(lambda: bot.failures)
        assert bot.failures == [("twice", 40060)]
        assert [m.content for m in ix.messages] == ["one"]
        assert len(env.pop_violations("already_acknowledged")) == 1


async def test_component_limit_violation_is_recorded(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot) as bot:
        await env.slash("alice", "demo", "big")
        await env.wait_for(lambda: bot.failures)
        assert bot.failures == [("big", 50035)]
        assert any("invalid_form_body" in p for p in env.problems())  # would fail teardown
        [violation] = env.pop_violations("invalid_form_body")
        assert "components.0.components.0.label" in str(violation.detail)


async def test_thread_archive_then_post_revives_it(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot) as bot:
        ix = await env.slash("alice", "demo", "thread", options={"name": "Game 1"})
        reply = await ix.wait_followup()
        [thread] = env.threads()
        assert reply.content == f"created <#{thread.id}>"
        assert [m.content for m in env.messages(thread)] == ["welcome to the game"]
        guild = bot.get_guild(env.guild.id)
        assert guild is not None
        await env.wait_for(lambda: guild.get_thread(thread.id))
        await env.archive_thread(thread)
        await env.wait_for(lambda: guild.get_thread(thread.id) is None)
        post = await env.slash(
            "alice", "demo", "post", options={"target": str(thread.id), "text": "your turn"}
        )
        await post.wait_followup()
        assert not thread.archived
        assert [m.content for m in env.messages(thread)] == ["welcome to the game", "your turn"]
        await env.wait_for(lambda: guild.get_thread(thread.id))


async def test_locale_is_passed_through(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot) as bot:
        ix = await env.slash("bob", "demo", "hello")
        response = await ix.wait_response()
        assert response.type == CallbackType.CHANNEL_MESSAGE and response.ephemeral
        assert ix.message is not None and ix.message.content == "locale fr"
        assert bot.locales == [discord.Locale.french]


async def test_select_menu(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot):
        ix = await env.slash("alice", "demo", "pick")
        await ix.wait_response()
        msg = ix.message
        assert msg is not None and len(msg.select("demo:pick").options) == 22
        with pytest.raises(ActorError):
            await env.select("alice", msg, "demo:pick", ["nope"])
        pick = await env.select("alice", msg, "demo:pick", ["c5"])
        assert (await pick.wait_response()).type == CallbackType.UPDATE_MESSAGE
        assert msg.content == "picked c5" and msg.components == []


async def test_modal_submit(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot):
        ix = await env.slash("alice", "demo", "ask")
        assert (await ix.wait_response()).type == CallbackType.MODAL
        assert ix.modal is not None and ix.modal["title"] == "Who are you?"
        with pytest.raises(ActorError):
            await env.submit_modal("alice", ix, {"name_input": "x" * 21})
        submit = await env.submit_modal("alice", ix, {"name_input": "Alice"})
        reply = await submit.wait_followup()
        assert reply.content == "hello Alice" and reply.ephemeral


async def test_autocomplete(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot):
        ix = await env.autocomplete(
            "alice", "demo", "choose", focused="cell", options={"cell": "c1"}
        )
        assert (await ix.wait_response()).type == CallbackType.AUTOCOMPLETE_RESULT
        assert ix.choices is not None
        assert [c["value"] for c in ix.choices][:3] == ["c1", "c10", "c11"]
        assert len(ix.choices) == 11


async def test_followup_after_token_expiry_is_rejected(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot) as bot:
        ix = await env.slash("alice", "demo", "later")
        await ix.wait_response()
        env.advance_time(16 * 60)
        bot.gate.set()
        await env.wait_for(lambda: bot.failures)
        assert bot.failures == [("later", 50027)]
        assert len(env.pop_violations("token_expired")) == 1


@pytest.mark.fakediscord(attachment_size_limit=64, fail_on_client_errors=False)
async def test_attachment_over_size_limit(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot):
        ix = await env.slash("alice", "demo", "start")
        await ix.wait_response()
        await env.wait_for(lambda: env.violations)
        [violation] = env.pop_violations("attachment_too_large")
        assert violation.status == 413 and violation.detail["limit"] == 64
        await env.wait_for(lambda: env.client_errors)
        assert env.pop_client_errors()


async def test_gateway_events_on_demand(discord_env: DiscordEnv) -> None:
    env = discord_env
    games = env.get_channel("games")
    async with env.run_client(DemoBot) as bot:
        assert bot.get_channel(games.id) is not None
        await env.delete_channel(games)
        await env.wait_for(lambda: bot.get_channel(games.id) is None)
        # members intent is off → Discord would not deliver GUILD_MEMBER_REMOVE
        assert (
            await env.dispatch(
                "GUILD_MEMBER_REMOVE",
                {"guild_id": str(env.guild.id), "user": env.user("carol").payload()},
            )
            == 0
        )
        await env.remove_bot_from_guild()
        await env.wait_for(lambda: bot.removed_guilds)
        assert bot.removed_guilds == [env.guild.id] and bot.get_guild(env.guild.id) is None


async def test_subcommand_group_with_member_option(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot):
        ix = await env.slash("alice", "demo", "admin kick", options={"member": env.user("carol")})
        assert (await ix.wait_followup()).content == "kick carol (none)"
        [group] = ix.data["options"]
        assert (group["type"], group["name"]) == (2, "admin")
        assert group["options"][0]["options"] == [
            {"name": "member", "type": 6, "value": str(env.user("carol").id)}
        ]
        with pytest.raises(ActorError):
            await env.slash("alice", "demo", "admin kick")  # required option missing
        with pytest.raises(ActorError):
            await env.slash("alice", "demo", "nope")


async def test_edits_keep_and_append_attachments_and_deletions(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot):
        ix = await env.slash("alice", "demo", "edits")
        await ix.wait_until(lambda i: [e.kind for e in i.events][-1:] == ["delete_followup"])
        kinds = [e.kind for e in ix.events]
        assert kinds == [
            "callback",
            "edit_original",
            "followup",
            "edit_followup",
            "followup",
            "delete_followup",
        ]
        original = ix.message
        assert original is not None and original.content == "v2"
        assert [a.data for a in original.attachments] == [make_png(1), make_png(2)]
        assert [v.content for v in original.versions] == ["v1", "v2"]
        assert [m.content for m in ix.messages] == ["v2", "note (edited)"]
        assert [m.content for m in env.messages()] == ["v2", "note (edited)"]
        assert [m.content for m in env.deleted_messages] == ["temporary"]


async def test_unsupported_route_is_a_violation(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot) as bot:
        with pytest.raises(discord.NotFound):
            await bot.http.request(discord.http.Route("GET", "/voice/regions"))
        [violation] = env.pop_violations("unsupported_route")
        assert violation.path == "/voice/regions"


async def test_user_thread_and_guild_join_events(discord_env: DiscordEnv) -> None:
    env = discord_env
    other = env.add_guild("Second Guild")
    other.bot_present = False
    async with env.run_client(DemoBot) as bot:
        thread = await env.create_thread("alice", "games", "Alice's table")
        await env.wait_for(lambda: bot.new_threads)
        assert bot.new_threads == [thread.id]
        await env.add_bot_to_guild(other)
        await env.wait_for(lambda: bot.joined_guilds)
        assert bot.get_guild(other.id) is not None


async def test_private_thread_and_thread_from_message(discord_env: DiscordEnv) -> None:
    env = discord_env
    async with env.run_client(DemoBot):
        ix = await env.slash("alice", "demo", "thread", options={"name": "T1", "mode": "message"})
        await ix.wait_followup()
        anchor = next(m for m in env.messages() if m.content.startswith("table"))
        [thread] = env.threads()
        assert (
            anchor.content == "table T1"
            and thread.id == anchor.id
            and anchor.thread_id == thread.id
        )
        ix = await env.slash("alice", "demo", "thread", options={"name": "Hand", "mode": "private"})
        await ix.wait_followup()
        private = next(t for t in env.threads() if t.name == "Hand")
        assert private.type == 12 and env.user("alice").id in private.member_ids
        assert [m.content for m in env.messages(private)] == ["welcome to the game"]
        seen = await env.slash("alice", "demo", "hello", channel=private)  # alice sees it
        await seen.wait_response()
        with pytest.raises(ActorError):
            await env.slash("bob", "demo", "hello", channel=private)  # bob does not
        with pytest.raises(ActorError):
            await env.slash("alice", "demo", "thread", options={"name": "x", "mode": "secret"})


async def test_env_restores_patches_without_fixture() -> None:
    original_base = discord.http.Route.BASE
    original_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    async with DiscordEnv() as env:
        assert env.server.api_base == discord.http.Route.BASE
        assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == env.server.gateway_url
    assert original_base == discord.http.Route.BASE
    assert original_gateway == discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY


def test_limit_rules() -> None:
    def row(*items: dict[str, Any]) -> dict[str, Any]:
        return {"type": 1, "components": list(items)}

    def button(i: int, label: str = "ok") -> dict[str, Any]:
        return {"type": 2, "style": 1, "label": label, "custom_id": f"b{i}"}

    def errors(body: dict[str, Any]) -> list[str]:
        return [str(e) for e in limits.check_message(body, creating=True, file_count=0)]

    assert errors({"content": "x" * 2000, "components": [row(button(1))]}) == []
    assert errors({"content": "x" * 2001}) == ["content: Must be 2000 or fewer in length."]
    assert errors({"components": [row(button(i)) for i in range(6)]})
    assert errors({"components": [row(*(button(i) for i in range(6)))]})
    assert errors({"components": [row(button(1, "y" * 81))]})
    long_id = {"type": 2, "style": 1, "label": "a", "custom_id": "c" * 101}
    assert errors({"components": [row(long_id)]})
    options = [{"label": str(i), "value": str(i)} for i in range(26)]
    assert errors({"components": [row({"type": 3, "custom_id": "s", "options": options})]})
    assert (
        errors({"components": [row({"type": 3, "custom_id": "s", "options": options[:25]})]}) == []
    )
    assert errors({"components": [row(button(1), button(1))]})  # duplicate custom_id
    v2 = {"flags": 1 << 15, "content": "no", "components": [{"type": 10, "content": "hi"}]}
    assert errors(v2)
    body = limits.form_body_error(
        limits.check_message({"content": "x" * 2001}, creating=True, file_count=0)
    )
    assert body["code"] == 50035 and body["errors"]["content"]["_errors"][0]["code"]
