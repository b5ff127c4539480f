"""One person floods a real bot process with hundreds of commands and clicks (pictures, new
games) while two others play: the cooldowns answer the flood at once, in private, and the
players' clicks stay fast (``tests/e2e/flood.py``; ``benchmarks/bench_flood.py`` prints the
same figures with the cooldowns on and off)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.flood import run_flood
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(fail_on_violations=False, interaction_deadline=3.0)


async def test_a_flood_from_one_person_leaves_another_game_fast(discord_env: DiscordEnv,
                                                                tmp_path: Path) -> None:
    report = await run_flood(discord_env, tmp_path, turns=6, interval=0.02, limit=400)
    print(report.summary())
    assert len(report.flood) >= 200, report.summary()
    # Every interaction of the flood was answered (none left for Discord to call failed) ...
    assert report.unanswered == 0, report.summary()
    # ... most of them by the cooldown's short private answer, which costs nothing.
    assert report.by_answer.get("cooldown", 0) >= len(report.flood) // 2, report.summary()
    # The limits held: her solo game, at most 3 more at once (start cooldown), none beyond.
    assert report.mallory_games <= 1 + 3, report.summary()
    # The players' clicks: every one within the answer budget (no defer needed), most quick.
    clicks = sorted(report.clicks)
    assert len(clicks) >= 2 * 2 * 6
    assert clicks[-1] < 1.5, report.summary()
    assert clicks[len(clicks) // 2] < 0.5, report.summary()
