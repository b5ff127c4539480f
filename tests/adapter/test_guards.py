"""The checks every slash command passes before it runs (:mod:`bot.adapter.guards`): a
server-only subcommand used in DMs (Discord does not stop it: only a top-level command's
``guild_only`` reaches Discord) and a value outside an option's declared choices (a hand-made
client may send one) are refused in the asker's language; anything else goes through."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord
from discord import app_commands

from bot.adapter import guards
from bot.words.catalogue import Text


@app_commands.command(name="board")
@app_commands.choices(scope=[app_commands.Choice(name="Here", value="server"),
                             app_commands.Choice(name="All", value="everywhere")])
@app_commands.guild_only()
async def board(interaction: discord.Interaction[Any], scope: str = "server") -> None:
    """A server-only command with choices."""


@app_commands.command(name="games")
async def games(interaction: discord.Interaction[Any], game: int | None = None) -> None:
    """Anywhere, no choices."""


cup = app_commands.Group(name="cup", description="A server-only group", guild_only=True)


@cup.command(name="list")
async def cup_list(interaction: discord.Interaction[Any]) -> None:
    """In a server-only group (Discord does not stop it in DMs either)."""


def ask(command: Any, *, guild: int | None = 1, locale: str = "pl",
        kind: discord.InteractionType = discord.InteractionType.application_command,
        **options: Any) -> Any:
    namespace = SimpleNamespace(**options)
    return SimpleNamespace(type=kind, command=command, guild_id=guild,
                           locale=discord.Locale(locale), namespace=namespace)


def test_a_server_only_subcommand_in_dms_is_refused() -> None:
    assert guards.refusal(ask(board, guild=None)) == Text("pl")("error.server_only")
    assert guards.refusal(ask(board, guild=None, locale="fr")) == Text("fr")("error.server_only")
    assert guards.refusal(ask(board)) is None
    assert guards.refusal(ask(games, guild=None)) is None
    assert guards.refusal(ask(cup_list, guild=None)) == Text("pl")("error.server_only")
    assert guards.refusal(ask(cup_list)) is None


def test_a_value_outside_the_choices_is_refused() -> None:
    assert guards.refusal(ask(board, scope="galaxy")) == Text("pl")("start.bad_option",
                                                                     option="scope")
    assert guards.refusal(ask(board, scope="everywhere")) is None
    assert guards.refusal(ask(board, scope=None)) is None  # not given: the default
    assert guards.refusal(ask(games, game=-5)) is None  # no choices: the command judges


def test_clicks_and_autocomplete_are_not_judged_here() -> None:
    for kind in (discord.InteractionType.component, discord.InteractionType.autocomplete):
        assert guards.refusal(ask(board, guild=None, kind=kind, scope="galaxy")) is None
