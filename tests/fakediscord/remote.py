"""Pointing discord.py in *another OS process* at a running fake Discord.

The fake listens on 127.0.0.1 and routes gateway events by what clients send over the wire, so a
bot started by a test as a subprocess (e.g. one process per shard range) talks to it exactly as
to Discord.  This module owns the hand-over: the three environment variables, and
:func:`redirect`, which sets discord.py's two class attributes that hold Discord's addresses
(``discord.http.Route.BASE`` for REST, interaction callbacks and webhooks;
``DiscordWebSocket.DEFAULT_GATEWAY`` for the gateway of a plain ``Client`` and of an
``AutoShardedClient`` given ``shard_count``; without it the latter asks ``GET /gateway/bot``,
which the fake answers with its own URL).

In the test::

    env_vars = {**os.environ, **discord_env.remote_environ()}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.fakediscord.remote", "my_bot_module", "--some-arg",
        env=env_vars,
    )

In the child, either run a module through this one (``python -m tests.fakediscord.remote
MODULE [ARGS...]`` redirects, then runs ``MODULE`` as ``__main__``), or call it yourself before
creating the client::

    from tests.fakediscord.remote import redirect, token
    redirect()                       # reads FAKEDISCORD_API / FAKEDISCORD_GATEWAY
    MyBot(...).run(token())          # FAKEDISCORD_TOKEN
"""

from __future__ import annotations

import os
import runpy
import sys

import discord.gateway
import discord.http
import yarl

ENV_API = "FAKEDISCORD_API"
ENV_GATEWAY = "FAKEDISCORD_GATEWAY"
ENV_TOKEN = "FAKEDISCORD_TOKEN"


def environ(api_base: str, gateway_url: str, token: str) -> dict[str, str]:
    """The environment variables a child process needs (see ``DiscordEnv.remote_environ``)."""
    return {ENV_API: api_base, ENV_GATEWAY: gateway_url, ENV_TOKEN: token}


def redirect(api_base: str | None = None, gateway_url: str | None = None) -> tuple[str, str]:
    """Point discord.py at the fake; arguments default to ``$FAKEDISCORD_API`` and
    ``$FAKEDISCORD_GATEWAY``.  Call before the client is created.  Returns what was set."""
    api = api_base or os.environ.get(ENV_API)
    gateway = gateway_url or os.environ.get(ENV_GATEWAY)
    if not api or not gateway:
        raise RuntimeError(
            f"no fake Discord to point at: pass api_base/gateway_url or set {ENV_API} and "
            f"{ENV_GATEWAY} (DiscordEnv.remote_environ() gives both)"
        )
    discord.http.Route.BASE = api
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    return api, gateway


def token() -> str:
    """The bot token the fake accepts (``$FAKEDISCORD_TOKEN``)."""
    value = os.environ.get(ENV_TOKEN)
    if not value:
        raise RuntimeError(f"{ENV_TOKEN} is not set")
    return value


def main(argv: list[str] | None = None) -> None:
    """``python -m tests.fakediscord.remote MODULE [ARGS...]``: redirect, then run MODULE as
    ``__main__`` with ``sys.argv = [MODULE, *ARGS]``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        raise SystemExit("usage: python -m tests.fakediscord.remote MODULE [ARGS...]")
    redirect()
    sys.argv = args
    runpy.run_module(args[0], run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
