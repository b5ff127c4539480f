"""Every refusal is private (issue 20, closing the class): each ``/calico`` command of the bot's
real command tree, and each kind of button or select, met with bad input through the real client
and the fake Discord. Each answer must be private, short, in the asker's language and the one the
case expects; nothing new may appear anywhere others can see, nothing stored may change, and
nothing may be logged as an ERROR.

A command or custom-id kind with no case here fails the test: a new one needs its bad input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.adapter.ui import custom_ids as ids
from bot.core.clock import FakeClock
from bot.words.catalogue import Text
from tests.adapter.harness import bot, bot_factory, game_of, settle
from tests.e2e import misuse
from tests.e2e.misuse import World
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(interaction_deadline=3.0)

NOWHERE = 99_999  # a game number that does not exist


# What a refusal must read: a catalogue key, or (key, its values, which may be keys too);
# None for an answer that is not a refusal (still private, short and harmless).
Key = str | tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class Ask:
    """``/calico <command>`` by ``who`` in ``where`` with ``options``, refused with ``key``.

    ``where``: ``general``, ``dm``, ``lounge`` (the other server), ``table`` or ``lobby`` (the
    game's thread). Options may name the world's games: ``"@table"``, ``"@lobby"``,
    ``"@finished"``. ``raw`` sends them unchecked, as ``name: (type, value)``: values outside
    the declared choices or bounds, as a hand-made client could."""

    who: str
    key: Key | None
    options: dict[str, Any] = field(default_factory=dict)
    where: str = "general"
    raw: bool = False


def bad(option: str) -> Key:
    return ("start.bad_option", {"option": option})


CASES: dict[str, tuple[Ask, ...]] = {
    "abandon": (Ask("zofia", "error.manage_guild", {"game": "@table"}),
                Ask("zofia", "error.unknown_game", {"game": NOWHERE}),
                Ask("eve", "error.unknown_game", {"game": "@table"}, "lounge")),
    "challenge": (Ask("zofia", "error.server_only", where="dm"),),
    "board": (Ask("zofia", "error.unknown_game", {"game": NOWHERE}),
              Ask("eve", "error.unknown_game", {"game": "@table"}, "lounge"),
              Ask("zofia", "error.no_such_player", {"player": "²"}, "table"),
              Ask("zofia", "error.not_a_player", {}, "lobby")),
    "status": (Ask("eve", "error.unknown_game", {"game": "@lobby"}, "lounge"),
               Ask("zofia", "error.no_game_here")),
    "games": (Ask("zofia", "games.none", where="dm"),),
    "rules": (Ask("zofia", bad("topic"), {"topic": (3, "nope")}, raw=True),),
    "stats": (Ask("eve", None, {"user": "@bot"}, "lounge"),),
    "leaderboard": (Ask("zofia", "error.server_only", where="dm"),
                    Ask("zofia", bad("scope"), {"scope": (3, "galaxy")}, raw=True)),
    "start": (Ask("zofia", "start.text_channel_only", where="table"),
              Ask("zofia", ("start.bad_options", {"reason": bad("players")}),
                  {"players": (4, 9)}, raw=True),
              Ask("zofia", bad("turn_hours"), {"turn_hours": (4, 5)}, raw=True),
              Ask("zofia", "error.server_only", where="dm")),
    "solo": (Ask("jan", "error.server_only", where="dm"),
             Ask("jan", bad("scenario"), {"scenario": (4, 11)}, raw=True)),
    "hand": (Ask("zofia", "error.not_a_player", {"game": "@table"}),
             Ask("eve", "error.unknown_game", {"game": "@finished"}, "lounge")),
    "leave": (Ask("zofia", "error.not_a_player", {"game": "@table"}),
              Ask("zofia", "error.game_over", {"game": "@finished"})),
    "settings": (Ask("zofia", bad("reminders"), {"reminders": (3, "maybe")}, raw=True),),
    "achievements": (Ask("eve", None, {"user": "@bot"}, "lounge"),),
    "replay": (Ask("zofia", "error.not_finished", {"game": "@table"}),
               Ask("eve", "error.unknown_game", {"game": "@finished"}, "lounge")),
    "record": (Ask("zofia", "error.unknown_game", {"game": NOWHERE}),
               Ask("zofia", "error.not_finished", {"game": "@lobby"})),
    "review": (Ask("zofia", "error.not_a_player", {"game": "@finished"}),
               Ask("zofia", "error.not_a_player", {"game": "@table"})),
    "admin": (Ask("zofia", "hosting.manage_only", {"reset": "all"}),
              Ask("mod", bad("turn_hours"), {"turn_hours": (4, 5)}, raw=True),
              Ask("mod", bad("language"), {"language": (3, "xx")}, raw=True),
              Ask("mod", "error.server_only", where="dm")),
    "tournament create": (Ask("zofia", "tournament.create_refused", {"name": "Mine"}),
                          Ask("mod", bad("format"), {"name": (3, "Ko"), "format": (3, "ko")},
                              raw=True),
                          # Out of the range Discord's client keeps to (issue #28): named.
                          *(Ask("mod", ("error.tournament_option",
                                        {"option": option, "low": low, "high": high}),
                                {"name": (3, "Cup"), option: (4, value)}, raw=True)
                            for option, value, low, high in (
                                ("rounds", 99, 1, 20), ("rounds", 0, 1, 20),
                                ("table_size", 5, 2, 4), ("signup_hours", 0, 1, 720),
                                ("round_hours", 721, 1, 720), ("start_hours", 1441, 48, 1440))),
                          Ask("mod", "error.server_only", {"name": "Cup"}, "dm")),
    "tournament list": (Ask("zofia", "error.server_only", where="dm"),),
    "tournament standings": (Ask("eve", "error.tournament_unknown", {"tournament": "@cup"},
                                 "lounge"),
                             Ask("zofia", "error.tournament_unknown",
                                 {"tournament": NOWHERE})),
    "tournament leave": (Ask("zofia", "error.tournament_not_in"),),
    # Without ``tournament:``: the caller's own (zofia organises none); named: the organiser's.
    "tournament close": (Ask("zofia", "error.tournament_none_of_yours"),
                         Ask("zofia", "error.tournament_organiser_only",
                             {"tournament": "@cup"})),
    "tournament remove": (Ask("zofia", "error.tournament_none_of_yours", {"user": "alice"}),
                          Ask("zofia", "error.tournament_organiser_only",
                              {"user": "alice", "tournament": "@cup"})),
    "tournament pause": (Ask("zofia", "error.tournament_none_of_yours"),),
    "tournament cancel": (Ask("zofia", "error.tournament_organiser_only",
                              {"tournament": "@cup"}),),
}


def text_of(tr: Text, key: Key) -> str:
    if isinstance(key, str):
        return tr(key)
    name, extras = key
    return tr(name, **{k: text_of(tr, v) if isinstance(v, tuple) else v
                       for k, v in extras.items()})


def _value(env: DiscordEnv, world: World, value: Any) -> Any:
    if value == "@bot":
        return env.bot_user
    if isinstance(value, str) and value.startswith("@"):
        return getattr(world, value[1:])
    if isinstance(value, tuple):
        return value[0], _value(env, world, value[1])
    return value


def _channel(env: DiscordEnv, world: World, who: str, where: str) -> Any:
    return {"general": env.channel, "dm": env.state.dm_channel(env.user(who)),
            "lounge": world.elsewhere_channel, "table": world.table_thread,
            "lobby": world.lobby_thread}[where]


async def _check(env: DiscordEnv, world: World, errors: misuse.Errors, what: str, inter: Any,
                 who: str, key: Key | None, seen: dict[int, Any], kept: list[Any]) -> list[str]:
    """What is wrong with the answer to ``inter`` (nothing: an empty list)."""
    problems: list[str] = []
    try:
        response = await inter.wait_response(timeout=3)
    except TimeoutError:
        return [f"{what}: no answer within 3 s"] + [f"{what}: logged {x}" for x in errors.take()]
    if response.type not in (4, 5):  # a message (or "thinking"), not an edit of the clicked one
        await settle(env)
        return [f"{what}: answered with callback {response.type}, not a message"]
    try:
        await inter.wait_until(lambda ix: ix.messages or None, timeout=5)
    except TimeoutError:
        return [f"{what}: deferred and never answered"]
    await settle(env)
    tr = Text(env.user(who).locale)
    texts = [m.content for m in inter.messages]
    if len(texts) != 1:
        problems.append(f"{what}: {len(texts)} answers {texts}")
    if not all(m.ephemeral for m in misuse.answers(inter)) or not inter.ephemeral:
        problems.append(f"{what}: not private: {texts}")
    text = texts[0] if texts else ""
    if key is not None and text != text_of(tr, key):
        problems.append(f"{what}: answered {text!r}, expected {key}")
    if len(text) > misuse.SHORT:
        problems.append(f"{what}: {len(text)} characters")
    if misuse.public_view(env) != seen:
        problems.append(f"{what}: something public changed")
    if await misuse.stored(env, world) != kept:
        problems.append(f"{what}: something stored changed")
    problems += [f"{what}: logged {line}" for line in errors.take()]
    return problems


async def test_every_command_refuses_privately(discord_env: DiscordEnv, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    env = discord_env
    misuse.no_cooldowns(monkeypatch)
    place = misuse.populate(env)
    env.add_user("jan", locale="pl")
    client = await env.start_client(bot_factory(tmp_path / "refuse.sqlite3", FakeClock()))
    assert set(CASES) == set(misuse.leaf_commands(client)), "a command without its bad input"
    world = await misuse.build(env, *place)
    problems: list[str] = []
    with misuse.logged_errors() as errors:
        for name, asks in CASES.items():
            for ask in asks:
                seen, kept = misuse.public_view(env), await misuse.stored(env, world)
                where = _channel(env, world, ask.who, ask.where)
                options = {k: _value(env, world, v) for k, v in ask.options.items()}
                if ask.raw:
                    inter = await misuse.raw_slash(env, ask.who, name, options, where)
                else:
                    inter = await env.slash(ask.who, "calico", name, options=options,
                                            channel=where)
                problems += await _check(env, world, errors, f"/calico {name} {ask}", inter,
                                         ask.who, ask.key, seen, kept)
    assert problems == [], "\n".join(problems)


# --------------------------------------------------------------------------- clicks


@dataclass(frozen=True)
class Click:
    """``who`` clicks a component with id ``cid`` (``{lobby}``, ``{table}``, ``{finished}``
    and ``{ply}``, the table's ply, filled in) on a message of ``on`` (``table``: the table's
    first thread post; ``dm``: their own DM with the bot, which exists for players;
    ``lounge``: the other server's channel)."""

    who: str
    cid: str
    key: Key
    values: tuple[str, ...] | None = None
    on: str = "table"


CLICKS: dict[str, tuple[Click, ...]] = {
    "l": (Click("zofia", "calico:l:start:{lobby}", "error.host_only"),
          Click("zofia", "calico:l:cancel:{lobby}", "error.host_only"),
          Click("zofia", "calico:l:leave:{lobby}", "error.not_a_player"),
          Click("zofia", "calico:l:cpu:{lobby}", "error.host_only"),
          Click("zofia", "calico:l:pet:{lobby}", "error.not_allowed"),
          Click("zofia", "calico:l:join:{table}", "error.lobby_only"),
          Click("zofia", "calico:l:join:99999", "error.unknown_game")),
    "lr": (Click("zofia", "calico:lr:{lobby}", "error.host_only", ("1",)),
           Click("alice", "calico:lr:{lobby}", "error.not_allowed", ("7",)),
           Click("zofia", "calico:lr:99999", "error.unknown_game", ("1",))),
    "g": (Click("bob", "calico:g:{table}:{ply}", "error.stale", ("012",)),
          Click("zofia", "calico:g:99999:0", "error.unknown_game", ("012",))),
    "gc": (Click("bob", "calico:gc:{table}:{ply}:012", "error.stale"),
           Click("zofia", "calico:gc:99999:0:012", "error.unknown_game")),
    "gb": (Click("bob", "calico:gb:{table}:{ply}", "error.stale"),
           Click("zofia", "calico:gb:99999:0", "error.unknown_game")),
    "c": (Click("zofia", "calico:c:{table}:{ply}:h0", "error.not_a_player", ("C3",)),
          Click("alice", "calico:c:{table}:{oldply}:h0", "error.stale", ("C3",), "dm"),
          Click("zofia", "calico:c:99999:0:h0", "error.unknown_game", ("C3",))),
    "t": (Click("zofia", "calico:t:{table}:{ply}:h0:C3:0", "error.not_a_player"),
          Click("alice", "calico:t:{table}:{oldply}:h0:C3:0", "error.stale", on="dm"),
          Click("zofia", "calico:t:99999:0:h0:C3:0", "error.unknown_game")),
    "u": (Click("zofia", "calico:u:{table}:{ply}", "error.not_a_player"),
          Click("alice", "calico:u:{table}:{oldply}", "error.stale", on="dm"),
          Click("zofia", "calico:u:99999:0", "error.unknown_game")),
    "hand": (Click("zofia", "calico:hand:{table}", "error.not_a_player"),
             Click("zofia", "calico:hand:99999", "error.unknown_game")),
    "replay": (Click("zofia", "calico:replay:{table}", "error.not_finished"),
               Click("zofia", "calico:replay:99999", "error.unknown_game")),
    "rematch": (Click("zofia", "calico:rematch:{finished}", "error.not_a_player"),
                Click("zofia", "calico:rematch:{table}", "error.not_allowed"),
                Click("zofia", "calico:rematch:99999", "error.unknown_game")),
    "pick": (Click("zofia", "calico:pick:{finished}:0", "error.not_a_player", ("1",)),
             Click("zofia", "calico:pick:99999:0", "error.unknown_game", ("1",))),
    "hint": (Click("zofia", "calico:hint:{table}:{ply}", "error.not_a_player"),
             Click("alice", "calico:hint:{table}:{ply}", "error.hints_off", on="dm"),
             Click("zofia", "calico:hint:99999:0:y", "error.unknown_game")),
    "tj": (Click("zofia", "calico:tj:99999", "error.tournament_unknown"),
           Click("zofia", "calico:tj:99999999999999999999", "error.tournament_unknown"),
           Click("alice", "calico:tj:{cup}", "error.tournament_already_in"),
           # From another server (only a hand-made client sends it): not that server's.
           Click("eve", "calico:tj:{cup}", "error.tournament_unknown", on="lounge")),
    "tl": (Click("zofia", "calico:tl:{cup}", "error.tournament_not_in"),
           Click("zofia", "calico:tl:99999", "error.tournament_unknown")),
    "rv": (Click("zofia", "calico:rv:{finished}", "error.not_a_player"),
           Click("zofia", "calico:rv:{table}", "error.not_a_player"),
           Click("zofia", "calico:rv:99999", "error.unknown_game")),
}


async def test_every_button_and_select_refuses_privately(
        discord_env: DiscordEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = discord_env
    misuse.no_cooldowns(monkeypatch)
    place = misuse.populate(env)
    await env.start_client(bot_factory(tmp_path / "clicks.sqlite3", FakeClock()))
    assert set(CLICKS) == {k.tag for k in ids.KINDS}, "a custom-id kind without its bad click"
    world = await misuse.build(env, *place)
    table = await game_of(env, world.table)
    dm = env.state.dm_channel(env.user("alice")).id
    fields = {"lobby": world.lobby, "table": world.table, "finished": world.finished,
              "cup": world.cup,
              "ply": table.ply, "oldply": table.ply - 1 if table.ply else table.ply + 1}
    problems: list[str] = []
    with misuse.logged_errors() as errors:
        for tag, clicks in CLICKS.items():
            for click in clicks:
                cid = click.cid.format(**fields)
                kind = next(k for k in ids.KINDS if k.tag == tag)
                assert kind.rx.fullmatch(cid), cid
                values = None if click.values is None else list(click.values)
                where = {"dm": dm, "lounge": world.elsewhere_channel.id}.get(
                    click.on, world.table_thread)
                post = misuse.old_post(env, where, cid, values)
                seen, kept = misuse.public_view(env), await misuse.stored(env, world)
                inter = await misuse.press(env, click.who, post, cid, values)
                problems += await _check(env, world, errors, f"{cid} by {click.who}", inter,
                                         click.who, click.key, seen, kept)
    assert problems == [], "\n".join(problems)
    assert bot(env).manager is not None
