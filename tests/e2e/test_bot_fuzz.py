"""Fuzzing what players can send (issue 20, closing the class): hypothesis draws slash commands
with any option values Discord would pass on, autocomplete keystrokes, and clicks on every
custom-id kind (valid-looking ids with random fields, ids of other games, plies and seats,
near-misses), and sends them through the fake Discord to one running bot (one bot and one fake
for the whole module: starting them takes seconds). Whatever arrives, the bot must answer within
Discord's 3 seconds, never say a refusal in public, break no rule of Discord's API, and log no
ERROR.

What Discord would send: the values of an option with declared choices are among them, numbers
lie within declared bounds (else anywhere in Discord's ±2^53), strings are at most 6,000
characters, users, roles and channels exist; a click carries an id shown on its message. The
refusal sweep (``test_bot_refusals.py``) covers what a hand-made client could add.

Examples: ``CALICO_FUZZ_EXAMPLES`` per test (default 100: about 25 s for the module on two
shared cores at load 8; raise it to hunt). Under CI the examples are the same on every run
(tests/conftest.py's ``ci`` profile derandomizes).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import review as review_ui
from bot.core.clock import FakeClock
from bot.words.catalogue import lang_of, load
from tests.adapter.harness import bot, bot_factory, game_of, settle
from tests.e2e import misuse
from tests.e2e.misuse import World
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLES = int(os.environ.get("CALICO_FUZZ_EXAMPLES", "100"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])
DEADLINE = 3.0  # Discord's answer window, from the interaction's creation
MAX_STRING = 6000  # Discord's longest string option value
NUMBER = 2**53  # Discord's integer options: -2^53 .. 2^53

# Strings a player might type: digits str.isdigit() likes and int() does not, names, Markdown,
# mentions, seat numbers with spaces, nothing, huge numbers.
ODD_TEXT = ["²", "٣", "①", "-1", "0", "1", "2", " 2 ", "4", "99999999999999999999", "1e3",
            "[Free Nitro](https://ev.il)", "**bold** _it_ `code`", "<@1>", "@everyone", "alice",
            "Alice", "\u200b", "\x00", "🐱", "ａ", "C3", "h0@C3>m2", ""]
text = st.one_of(st.sampled_from(ODD_TEXT), st.text(max_size=40),
                 st.builds(lambda s, n: (s * n)[:MAX_STRING], st.text(min_size=1, max_size=5),
                           st.integers(1, MAX_STRING)))


class Arena:
    """The running bot's world (a plain class: hypothesis would print a dataclass's every
    field, the whole fake Discord included, with each failing example)."""

    def __init__(self, env: DiscordEnv, world: World, errors: misuse.Errors,
                 definitions: dict[str, list[dict[str, Any]]]) -> None:
        self.env = env
        self.world = world
        self.errors = errors
        self.definitions = definitions  # command -> its options, as Discord has them

    def __repr__(self) -> str:
        return "arena"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def arena(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Arena]:
    env = DiscordEnv(interaction_deadline=DEADLINE)
    await env.start()
    try:
        place = misuse.populate(env)
        path: Path = tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite3"
        client = await env.start_client(bot_factory(path, FakeClock()))
        world = await misuse.build(env, *place)
        # Reviews thinner than the default: a first review takes seconds of two shared cores
        # (what a review costs is measured by its benchmark; here only the answers matter).
        review_ui.service_of(client).samples = 2
        tree = env.local_command("calico", env.guild.id, 1)
        assert tree is not None
        definitions = leaves(tree[0]["options"])
        assert set(definitions) == set(misuse.leaf_commands(client))
        with misuse.logged_errors() as errors:
            yield Arena(env, world, errors, definitions)
    finally:
        await env.close()


def leaves(options: list[dict[str, Any]], prefix: str = "") -> dict[str, list[dict[str, Any]]]:
    """Each subcommand (``"group sub"`` inside a group) and its options, from the tree as
    Discord has it."""
    out: dict[str, list[dict[str, Any]]] = {}
    for sub in options:
        if sub["type"] == 2:
            out.update(leaves(sub.get("options") or [], f"{prefix}{sub['name']} "))
        elif sub["type"] == 1:
            out[prefix + sub["name"]] = list(sub.get("options") or [])
    return out


# --------------------------------------------------------------------------- drawing


def where(draw: st.DrawFn, arena: Arena) -> tuple[str, Any]:
    """Someone, and a place they can act in."""
    env, world = arena.env, arena.world
    who = draw(st.sampled_from(["alice", "bob", "carol", "zofia", "mod", "eve"]))
    if who == "eve":
        places = [world.elsewhere_channel.id]
    else:
        places = [env.channel.id, world.table_thread, world.lobby_thread]
    places.append(env.state.dm_channel(env.user(who)).id)
    return who, draw(st.sampled_from(places))


def place_name(arena: Arena, channel: int) -> str:
    world = arena.world
    names = {arena.env.channel.id: "#general", world.table_thread: "the table's thread",
             world.lobby_thread: "the lobby's thread", world.elsewhere_channel.id: "#lounge"}
    return names.get(channel, "their DMs")


def game_number(world: World) -> st.SearchStrategy[int]:
    known = [*world.games, world.cup, 0, -1, NUMBER, -NUMBER, 99_999]
    return st.one_of(st.sampled_from(known), st.integers(-NUMBER, NUMBER))


def option_value(draw: st.DrawFn, arena: Arena, option: dict[str, Any], guild: Any) -> Any:
    env, kind = arena.env, int(option["type"])
    if option.get("choices"):
        return draw(st.sampled_from([c["value"] for c in option["choices"]]))
    if kind == 4:
        low, high = option.get("min_value"), option.get("max_value")
        if low is not None or high is not None:
            return draw(st.integers(-NUMBER if low is None else low,
                                    NUMBER if high is None else high))
        return draw(game_number(arena.world))
    if kind == 3:  # within the declared length, as Discord checks it
        value = draw(text)[: option.get("max_length", MAX_STRING)]
        return value + "x" * (option.get("min_length", 0) - len(value))
    if kind == 5:
        return draw(st.booleans())
    if kind == 6:  # anyone Discord can show: members, the bot, a stranger
        return draw(st.sampled_from(["alice", "bob", "zofia", "eve", env.bot_user]))
    target = guild or env.guild
    if kind == 7:
        text_channels = [c for c in env.state.channels.values()
                         if c.guild_id == target.id and c.type == 0 and not c.deleted]
        return draw(st.sampled_from(text_channels))
    if kind == 8:
        return draw(st.sampled_from(list(target.roles.values())))
    raise AssertionError(f"no values drawn for option type {kind}")


@st.composite
def slash(draw: st.DrawFn, arena: Arena) -> tuple[str, Any, str, dict[str, Any], str | None]:
    """(who, channel, command, options, focused option or None)."""
    env = arena.env
    who, channel = where(draw, arena)
    name = draw(st.sampled_from(sorted(arena.definitions)))
    defs = arena.definitions[name]
    guild = env.state.guild_of(env.state.channels[channel])
    options = {d["name"]: option_value(draw, arena, d, guild)
               for d in defs if d.get("required") or draw(st.booleans())}
    typing = [d["name"] for d in defs if d.get("autocomplete")]
    focused = draw(st.sampled_from([None, *typing])) if typing else None
    if focused is not None:
        options[focused] = draw(text)
        for d in defs:  # a number still being typed arrives as text (see actors.py)
            if d["name"] in options and d["type"] == 4 and draw(st.booleans()):
                options[d["name"]] = draw(text)
    return who, channel, name, options, focused


def field_text(draw: st.DrawFn, part: ids.Part, world: World, ply: int) -> str | None:
    """One field of an id: about our games when it can be, else random (None: a flag off)."""
    if part.flag:
        return part.pattern if draw(st.booleans()) else None
    if part.attr in ("game", "tournament"):
        return str(draw(st.one_of(st.sampled_from([*world.games, world.cup, 0, 99_999]),
                                  st.from_regex(f"\\A{part.pattern}\\Z"))))
    if part is ids.PLY:
        return str(draw(st.one_of(st.integers(max(0, ply - 2), ply + 2),
                                  st.from_regex(f"\\A{part.pattern}\\Z"))))
    return str(draw(st.from_regex(f"\\A(?:{part.pattern})\\Z")))


@st.composite
def custom_id(draw: st.DrawFn, arena: Arena, ply: int) -> str:
    kind = draw(st.sampled_from(ids.KINDS))
    fields = [field_text(draw, p, arena.world, ply) for p in kind.parts]
    cid = ":".join([ids.PREFIX, kind.tag, *(f for f in fields if f is not None)])
    return cid[: ids.MAX_LEN]


def near_misses(cid: str) -> list[str | None]:
    """Ids next to ``cid`` (None: ``calico:`` and any text)."""
    head, _, last = cid.rpartition(":")
    return [cid + ":1", head, f"{head}:-{last}", f"{head}:٣", f"{head}:{last}{'0' * 25}",
            cid.upper(), f" {cid}", None]


def select_values(draw: st.DrawFn, kind: ids.Kind) -> list[str]:
    likely = {"lr": ["0", "1", "2", "3"], "g": ["012", "210", "001", "999"],
              "c": ["A1", "C3", "E5", "B3", "F9"], "pick": ["scenario-1", "win-2", "x"]}
    odd = [t for t in ODD_TEXT if t]
    return [draw(st.one_of(st.sampled_from(likely.get(kind.tag, ["0"])), st.sampled_from(odd),
                           st.text(min_size=1, max_size=100)))]


# --------------------------------------------------------------------------- judging


def refusals(locale: str) -> list[str]:
    """How every refusal the asker could read begins (their language), to spot one said in
    public."""
    out = []
    for key, entry in load(lang_of(locale)).items():
        if key.startswith(("error.", "cooldown.")) or key in (
                "start.text_channel_only", "hosting.manage_only", "start.bad_options"):
            form = entry if isinstance(entry, str) else next(iter(entry.values()))
            out.append(form.split("{")[0][:40])
    return [r for r in out if len(r) >= 8]


async def judge(arena: Arena, inter: Any, what: str, *, autocomplete: bool = False) -> None:
    env = arena.env
    response = await inter.wait_response(timeout=DEADLINE + 1)
    assert response.at - inter.dispatched_at <= DEADLINE, f"{what}: answered late"
    if autocomplete:
        assert response.type == 8, f"{what}: answered an autocomplete with {response.type}"
    else:
        if response.deferred:
            # Discord waits 15 minutes for what follows "thinking"; a first review under load
            # takes seconds (worker processes starting)
            await inter.wait_until(lambda ix: ix.messages or ix.events[-1].kind != "callback"
                                   or None, timeout=60)
        await settle(env)
        said = refusals(inter.locale)
        for message in misuse.answers(inter):
            if not message.ephemeral and not message.deleted:
                assert not any(message.content.startswith(r) for r in said if r), \
                    f"{what}: refused in public: {message.content!r}"
    # What the bot made of it, in --hypothesis-show-statistics: a lot of refusals is expected,
    # but not only refusals.
    shown = misuse.answers(inter)
    event("choices" if autocomplete else "edited in place" if response.type in (6, 7)
          else "public" if any(not m.ephemeral for m in shown) else "private")
    problems = env.problems() + [f"logged {line}" for line in arena.errors.take()]
    env.pop_violations()
    env.pop_client_errors()
    assert problems == [], f"{what}: {problems}"


# --------------------------------------------------------------------------- the properties


@FUZZ
@given(data=st.data())
async def test_any_command_is_answered_in_time_and_refused_privately(arena: Arena,
                                                                     data: st.DataObject) -> None:
    env = arena.env
    who, channel, name, options, focused = data.draw(slash(arena))
    what = f"/calico {name} {options} by {who} in {place_name(arena, channel)} (typing {focused})"
    if focused is not None:
        inter = await env.autocomplete(who, "calico", name, focused=focused, options=options,
                                       channel=channel)
    else:
        inter = await env.slash(who, "calico", name, options=options, channel=channel)
    await judge(arena, inter, what, autocomplete=focused is not None)


@FUZZ
@given(data=st.data())
async def test_any_click_is_answered_in_time_and_refused_privately(arena: Arena,
                                                                   data: st.DataObject) -> None:
    env, world = arena.env, arena.world
    table = await game_of(env, world.table)
    who, channel = where(data.draw, arena)
    cid = data.draw(st.one_of(custom_id(arena, table.ply), st.sampled_from(ids.KINDS).flatmap(
        lambda k: st.from_regex(k.rx, fullmatch=True))))
    cid = data.draw(st.sampled_from([cid] * 16 + near_misses(cid)).flatmap(
        lambda c: st.text(max_size=ids.MAX_LEN - 7).map("calico:".__add__) if c is None
        else st.just(c)))[: ids.MAX_LEN]
    kind = next((k for k in ids.KINDS if k.rx.fullmatch(cid)), None)
    values = select_values(data.draw, kind) if kind is not None and misuse.is_select(kind) \
        else None
    post = misuse.old_post(env, channel, cid, values)
    inter = await misuse.press(env, who, post, cid, values)
    what = f"{cid!r} {values} by {who} in {place_name(arena, channel)}"
    if kind is None:
        # An id none of ours matches: the bot never posts one (the wire formats never change),
        # and discord.py routes it nowhere. Nothing may break or appear.
        await settle(env)
        assert not inter.messages and env.problems() == [] and arena.errors.take() == [], what
        return
    await judge(arena, inter, what)
    assert bot(env).manager is not None
