"""A PostgreSQL password in ``CALICO_DB`` never reaches the bot's log (issue 20, item 13): the
real bot started on a URL carrying a password both in its userinfo and as ``?password=`` (the
throwaway server trusts local connections, so both are accepted and ignored), run until it is
online, stopped: the start line names the database, without either password."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.e2e.procs import BotProcess
from tests.fakediscord import DiscordEnv

pytestmark = pytest.mark.fakediscord(fail_on_violations=False, interaction_deadline=3.0)

SECRETS = ("UserSecret42", "QuerySecret42")


async def test_the_database_password_is_never_logged(discord_env: DiscordEnv, tmp_path: Path,
                                                     pg_db: str) -> None:
    parts = urlsplit(pg_db)
    if parts.password is not None or parts.query:
        pytest.skip("the test server's URL carries its own password or query")
    netloc = parts.netloc.replace("@", ":UserSecret42@", 1) if "@" in parts.netloc else \
        f"calico:UserSecret42@{parts.netloc}"
    url = parts._replace(netloc=netloc, query="password=QuerySecret42").geturl()
    bot = await BotProcess(discord_env, url, tmp_path, "secret").start()
    try:
        try:
            await discord_env.wait_for_shards(0, timeout=40)
        except TimeoutError:
            raise AssertionError(bot.log()[-3000:]) from None
    finally:
        await bot.stop()
    log = bot.log()
    assert "database: postgresql://" in log, log[-3000:]
    assert "password=***" in log, log[-3000:]
    assert not [s for s in SECRETS if s in log], log[-3000:]
