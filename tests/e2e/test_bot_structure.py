"""Structure and languages: the command tree, the cogs, the ids and limits, French and Polish."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image

from bot.adapter.commands import cog_modules, command_payload
from bot.adapter.ui import custom_ids as ids
from bot.core.clock import FakeClock
from bot.words import answers
from bot.words.catalogue import Text
from tests.adapter.harness import answer_text, bot, bot_factory, custom_ids
from tests.fakediscord import DiscordEnv

EXPECTED = {"start", "solo", "hand", "board", "status", "games", "leave", "abandon", "rules",
            "settings", "stats", "leaderboard", "admin", "achievements", "replay", "record",
            "challenge", "review", "tournament"}


async def test_command_tree_and_cogs(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """One /calico group with unique subcommands; every cog loaded; commands synced only when
    the tree changed."""
    env = discord_env
    client = await env.start_client(bot_factory(tmp_path / "c.sqlite3", FakeClock(),
                                                sync="auto"))
    top = client.tree.get_commands()
    assert [c.name for c in top] == ["calico"]
    names = [c.name for c in client.calico_group.commands]
    assert len(names) == len(set(names))
    assert set(names) == EXPECTED
    assert {type(c).__module__ for c in client.cogs.values()} == set(cog_modules())
    assert env.sync_count(True) == 1
    await env.restart_client(bot_factory(tmp_path / "c.sqlite3", FakeClock(), sync="auto"))
    assert env.sync_count(True) == 1  # same tree: no second sync
    translated = await command_payload(bot(env).tree, None)
    assert translated[0]["description_localizations"]["fr"].startswith("Jouer")


async def test_ids_and_limits_in_a_real_game(discord_env: DiscordEnv, tmp_path: Path) -> None:
    """Every component the bot sent parses back and fits Discord's limits (the fake checks
    the limits on every message; violations fail the test at teardown)."""
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "i.sqlite3", FakeClock()))
    inter = await env.slash("alice", "calico", "solo")
    await inter.wait_response()
    await inter.wait_followup()
    await env.wait_for_dm("alice", lambda m: bool(m.selects))
    seen = [cid for m in env.dm_messages("alice") for cid in custom_ids(m)]
    for thread in env.threads(env.channel):
        seen += [cid for m in env.messages(thread.id) for cid in custom_ids(m)]
    assert seen
    for cid in seen:
        assert len(cid) <= 100 and ids.parse(cid) is not None, cid


@pytest.mark.parametrize("locale", ["fr", "pl"])
async def test_french_and_polish(discord_env: DiscordEnv, tmp_path: Path, locale: str) -> None:
    """Replies, the lobby and the DMs read in the player's language, with the game's own
    terms from that language's rulebook."""
    env = discord_env
    env.set_locale("alice", locale)
    tr = Text(locale)
    await env.start_client(bot_factory(tmp_path / "l.sqlite3", FakeClock()))
    rules = await env.slash("alice", "calico", "rules", options={"topic": "end"})
    await rules.wait_response()
    assert await answer_text(rules) == tr("rules.end")
    assert {"fr": "Maître Couturier", "pl": "szycia kołder"}[locale] in tr("rules.end")
    inter = await env.slash("alice", "calico", "start", options={"players": 2})
    await inter.wait_response()
    await inter.wait_followup()
    thread = env.threads(env.channel)[-1]
    lobby = await env.wait_for_message(thread.id)
    assert tr("lobby.help") in lobby.content
    assert lobby.button(tr("lobby.join"))
    await (await env.click("alice", lobby, label=tr("lobby.cpu"))).wait_response()
    await (await env.click("alice", env.get_message(lobby.id),
                           label=tr("lobby.start"))).wait_response()
    dm = await env.wait_for_dm("alice", lambda m: bool(m.selects))
    assert tr("draft.placeholder") == dm.selects[0].placeholder
    assert tr("term.goals").split()[0].lower() in dm.content.lower()


async def test_autocomplete_lists_my_games(discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    await env.start_client(bot_factory(tmp_path / "a.sqlite3", FakeClock()))
    for _ in range(2):
        inter = await env.slash("alice", "calico", "start", options={"players": 2})
        await inter.wait_response()
        await inter.wait_followup()
    ac = await env.autocomplete("alice", "calico", "status", focused="game")
    await ac.wait_response()
    assert ac.choices is not None and len(ac.choices) == 2
    status = await env.slash("alice", "calico", "status", channel=env.channel)
    await status.wait_response()
    assert await answer_text(status) == Text("en-US")("error.pick_game")


@pytest.mark.parametrize(("topic", "locale"), [("cats", "en-US"), ("goals", "fr"),
                                               ("buttons", "pl")])
async def test_rules_come_with_a_picture(discord_env: DiscordEnv, tmp_path: Path, topic: str,
                                         locale: str) -> None:
    """``/calico rules cats|goals|buttons``: deferred, then the rules text with its picture (a
    PNG that decodes), in the reader's language; a text-only topic has no picture."""
    env = discord_env
    env.set_locale("alice", locale)
    tr = Text(locale)
    await env.start_client(bot_factory(tmp_path / "r.sqlite3", FakeClock()))
    rules = await env.slash("alice", "calico", "rules", options={"topic": topic})
    await rules.wait_response()
    assert rules.deferred
    reply = await rules.wait_followup()
    assert reply.ephemeral and reply.content == answers.rules_text(tr, topic)
    png = reply.attachment(f"rules-{topic}.png").data
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    img = Image.open(BytesIO(png))
    img.load()
    assert img.width == 800 and img.height > 300
    plain = await env.slash("alice", "calico", "rules", options={"topic": "turn"})
    await plain.wait_response()
    [answer] = await plain.wait_followups(1)
    assert not answer.attachments
