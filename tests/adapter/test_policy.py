"""The one table of who may do what (``bot/adapter/policy.py``): every slash command of the real
command tree, every custom-id kind and autocomplete is in it exactly once, and nothing else;
each counted rule has its setting. (Privileged entries are driven through the stand-in in
``tests/e2e/test_bot_abuse.py``.)"""

from __future__ import annotations

from pathlib import Path

from discord import app_commands

from bot.adapter import policy
from bot.adapter.client import CalicoBot
from bot.adapter.commands import cog_modules
from bot.adapter.ui import custom_ids as ids
from bot.core.clock import FakeClock
from bot.core.limits import Cooldowns
from bot.core.manager import Manager
from bot.settings import Settings


async def command_kinds(tmp_path: Path) -> set[str]:
    """``slash:<name>`` of every leaf of the bot's command tree, as the bot loads it."""
    manager = await Manager.open(tmp_path / "t.sqlite3", clock=FakeClock())
    bot = CalicoBot(Settings(token="fake", db_path=str(tmp_path / "t.sqlite3")),
                    manager=manager, sync="never", background=False)
    try:
        for name in cog_modules():
            await bot.load_extension(name)
        return {f"slash:{c.qualified_name}" for c in bot.tree.walk_commands()
                if isinstance(c, app_commands.Command)}
    finally:
        for name in list(bot.extensions):
            await bot.unload_extension(name)
        await manager.close()


async def test_every_command_button_and_select_is_classified_once(tmp_path: Path) -> None:
    commands = await command_kinds(tmp_path)
    assert "slash:calico start" in commands and "slash:calico admin" in commands
    components = {policy.component(k.cls) for k in ids.KINDS}
    assert len(components) == len(ids.KINDS)  # one kind per custom-id class
    everything = commands | components | {"autocomplete"}
    missing = everything - policy.POLICY.keys()
    assert not missing, f"classify these in bot/adapter/policy.py: {sorted(missing)}"
    stale = policy.POLICY.keys() - everything
    assert not stale, f"no longer exist, remove from bot/adapter/policy.py: {sorted(stale)}"


def test_each_counted_rule_has_a_burst_and_a_setting() -> None:
    fields = Settings.model_fields
    for kind, entry in policy.POLICY.items():
        assert isinstance(entry, policy.Free | policy.Counted | policy.Privileged), kind
        if isinstance(entry, policy.Counted):
            assert entry.rule in policy.BURSTS, kind
        if isinstance(entry, policy.Privileged):
            assert entry.needs, kind
    assert policy.BURSTS.keys() == policy.PACE_SETTINGS.keys()
    assert all(name in fields for name in policy.PACE_SETTINGS.values())
    cooldowns = policy.cooldowns_from(Settings(token="fake", review_cooldown=3.5))
    assert isinstance(cooldowns, Cooldowns)
    assert cooldowns.rules[policy.REVIEW].every == 3.5
    assert cooldowns.rules[policy.REVIEW].burst == policy.BURSTS[policy.REVIEW]
    # The costly work of issue #20 is counted (and a refused start gives back its share).
    for kind in ("slash:calico review", "button:rv", "button:replay", "slash:calico replay",
                 "slash:calico achievements", "autocomplete", "button:rematch", "button:l"):
        assert isinstance(policy.POLICY[kind], policy.Counted), kind
    assert policy.POLICY["button:rematch"] == policy.Counted(policy.START)
    assert policy.START in policy.REFUNDED
