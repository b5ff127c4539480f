"""``calico-bot``: run the bot, sync its commands, or play the offline demo.

- ``calico-bot`` with no token: explains how to get one, then plays the offline demo.
- ``calico-bot`` or ``calico-bot run`` with ``DISCORD_TOKEN`` set (environment or ``.env``): runs.
- ``calico-bot sync``: pushes the slash commands to Discord (to ``CALICO_DEV_GUILD``
  when set, instantly; globally otherwise), then exits. ``run`` also syncs, but only when the
  command tree changed since the last sync.
- ``calico-bot demo [--out DIR] [--players N] [--seed S]``: a whole game between computer
  players through the real manager, written as a transcript with pictures. No token needed.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence

import discord

from bot.settings import Settings, configure_logging

log = logging.getLogger("calico")

HOW_TO_GET_A_TOKEN = """\
calico-bot needs a Discord bot token to go online. To get one:

  1. Open https://discord.com/developers/applications and press "New Application".
  2. In "Bot", press "Reset Token" and copy it. Keep it secret. While there, you may enable
     "Server Members Intent" (lets the bot notice players leaving a server; optional).
  3. In "OAuth2" -> "URL Generator", tick the scopes "bot" and "applications.commands", and
     the permissions View Channels, Send Messages, Send Messages in Threads, Create Public
     Threads, Attach Files and Read Message History. Open the generated link to invite the
     bot to your server.
  4. Put the token in the environment or in a .env file next to where you run the bot:
         DISCORD_TOKEN=your-token-here
     (see .env.example; CALICO_DEV_GUILD=<server id> makes commands appear instantly there).
  5. Run `calico-bot` again (or `calico-bot run`).

Meanwhile, here is the bot playing a game offline: `calico-bot demo` writes what players
would see in Discord (thread posts, DMs and pictures) into a folder.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="calico-bot", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the bot (needs DISCORD_TOKEN)")
    sub.add_parser("sync", help="push the slash commands to Discord now and exit")
    demo = sub.add_parser("demo", help="play an offline demo game into a folder")
    demo.add_argument("--out", default="calico-demo", help="folder for the transcript and PNGs")
    demo.add_argument("--players", type=int, default=2, help="1 to 4 players")
    demo.add_argument("--seed", type=int, default=None, help="the same seed, the same game")
    return parser


async def _run(settings: Settings, *, sync_only: bool = False) -> None:
    from bot.adapter.client import CalicoBot

    members = True
    while True:
        bot = CalicoBot(settings, sync="always" if sync_only else "auto",
                        members_intent=members, background=not sync_only)
        try:
            async with bot:
                if sync_only:
                    await bot.login(settings.token)  # runs setup_hook, which syncs
                    return
                await bot.start(settings.token)
                return
        except discord.PrivilegedIntentsRequired:
            if not members:
                raise
            log.warning("the Server Members Intent is off in the developer portal: running "
                        "without it (players who leave a server are not noticed)")
            members = False


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    settings = Settings.from_env()
    configure_logging(settings)
    command = args.command
    if command == "demo":
        from bot.demo import main as demo_main

        demo_main(args.out, args.players, args.seed)
        return 0
    if not settings.has_token:
        print(HOW_TO_GET_A_TOKEN)
        if command is None:
            from bot.demo import main as demo_main

            demo_main()
            return 0
        return 2
    try:
        asyncio.run(_run(settings, sync_only=command == "sync"))
    except discord.LoginFailure:
        print("Discord refused the token: check DISCORD_TOKEN (reset it in the developer "
              "portal if needed).", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
