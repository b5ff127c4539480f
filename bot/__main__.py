"""calico-bot: run the bot, sync its commands, look after its database, or play the demo.

- ``calico-bot`` with no token: explains how to get one, then plays the offline demo.
- ``calico-bot`` or ``calico-bot run`` with ``DISCORD_TOKEN`` set (environment or ``.env``):
  runs until SIGTERM or SIGINT, then shuts down cleanly (exit status 0). ``run`` (or ``sync``)
  with no token says a token is needed and exits 2.
- ``calico-bot sync``: pushes the slash commands to Discord now, then exits.
- ``calico-bot demo [--out DIR] [--players 1-4] [--seed S]``: a whole game between computer
  players through the real manager, written as a transcript with pictures. No token needed.
- ``calico-bot check``: the database's full integrity check (works while the bot runs).
- ``calico-bot backup FILE``: a consistent copy of the live SQLite database, checked.
- ``calico-bot migrate-db FROM TO``: copy every row from one database to another (SQLite to
  PostgreSQL, or back), checking row counts.

``check``, ``backup`` and ``migrate-db`` refuse a missing (or empty) SQLite database with
``no database at PATH`` and what is not a database file at all (a folder, ``/dev/null``, an
empty ``CALICO_DB``) with ``PATH is not a calico-bot database``, and exit 2, creating nothing;
``migrate-db`` also refuses a SQLite database a running bot holds (its ``.lock``). A bad setting
stops every command with one line per setting naming its environment variable (exit 2). A
database password is never shown. Discord out of reach at start (no network, DNS) is one plain
line and exit 1, as is a token Discord refuses.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import aiohttp
import discord
from pydantic import ValidationError

from bot.ops import logs
from bot.settings import Settings, bad_settings

log = logging.getLogger("calico")

SHARDING_REQUIRED = 4011

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
"""

PLAYING_THE_DEMO = """\
Meanwhile, here is the bot playing a game offline: `calico-bot demo` writes what players
would see in Discord (thread posts, DMs and pictures) into a folder.
"""

MIN_PLAYERS, MAX_PLAYERS = 1, 4


def _players(text: str) -> int:
    """``--players``: a whole number from 1 to 4 (argparse refuses anything else)."""
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(
            f"{count} players: Calico is played by {MIN_PLAYERS} to {MAX_PLAYERS}")
    return count


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="calico-bot", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the bot (needs DISCORD_TOKEN)")
    sub.add_parser("sync", help="push the slash commands to Discord now and exit")
    web = sub.add_parser("web", help="serve only the web site (CALICO_WEB_*), beside the bot")
    web.add_argument("--parent", action="store_true", help=argparse.SUPPRESS)  # bot.web.process
    demo = sub.add_parser("demo", help="play an offline demo game into a folder")
    demo.add_argument("--out", default="calico-demo", help="folder for the transcript and PNGs")
    demo.add_argument("--players", type=_players, default=2,
                      help=f"{MIN_PLAYERS} to {MAX_PLAYERS} players")
    demo.add_argument("--seed", type=int, default=None, help="the same seed, the same game")
    check = sub.add_parser("check", help="run the database's full integrity check")
    check.add_argument("db", nargs="?", help="the database (default: CALICO_DB)")
    backup = sub.add_parser("backup", help="copy the live SQLite database to FILE, checked")
    backup.add_argument("file", help="where to write the copy (must not exist)")
    migrate = sub.add_parser("migrate-db", help="copy a database into another (SQLite <-> "
                                                "PostgreSQL), checking row counts")
    migrate.add_argument("source", help="a SQLite path or a postgresql:// URL")
    migrate.add_argument("target", help="an empty database: a new SQLite path or URL")
    return parser


async def _run(settings: Settings, *, sync_only: bool = False) -> None:
    from bot.adapter.client import CalicoBot

    members = True
    shard_count = settings.shard_count
    while True:
        current = settings if shard_count == settings.shard_count else \
            settings.model_copy(update={"shard_count": shard_count, "shard_ids": None})
        bot = CalicoBot(current, sync="always" if sync_only else "auto",
                        members_intent=members, background=not sync_only)
        loop = asyncio.get_running_loop()
        stop = _on_signals(loop, bot)
        try:
            async with bot:
                token = settings.token.get_secret_value()
                if sync_only:
                    await bot.login(token)  # runs setup_hook, which syncs
                    return
                await bot.start(token)
                return
        except discord.PrivilegedIntentsRequired:
            if not members:
                raise
            log.warning("the Server Members Intent is off in the developer portal: running "
                        "without it (players who leave a server are not noticed)")
            members = False
        except discord.ConnectionClosed as e:
            if e.code != SHARDING_REQUIRED or shard_count is None:
                raise
            # Too many servers for the shards asked for: restarting into the same refusal
            # would crash-loop; Discord's own recommendation always fits.
            log.error("Discord requires more shards than CALICO_SHARD_COUNT=%s (code 4011): "
                      "starting again with Discord's recommended shard count; raise the "
                      "setting (or unset it) to stop seeing this", shard_count)
            shard_count = None
        finally:
            stop()


def _on_signals(loop: asyncio.AbstractEventLoop, bot: discord.Client) -> Callable[[], None]:
    """SIGTERM and SIGINT close the bot cleanly (hosts send SIGTERM and wait 30 s)."""
    def close() -> None:
        log.info("signal received: shutting down")
        loop.create_task(bot.close())

    installed = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        # Not every loop can take signal handlers (Windows' loops, a loop outside the main
        # thread): there the default handling stays, which still stops the process.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, close)
            installed.append(sig)

    def remove() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return remove



# What "Discord is out of reach" looks like at start: aiohttp's connection errors (refused,
# DNS, TLS), a time-out, no gateway address.
UNREACHABLE = (aiohttp.ClientError, discord.GatewayNotFound, ConnectionError, TimeoutError)


def unreachable_reason(error: BaseException) -> str:
    """A short reason for a connection failure (the innermost OS error says it best)."""
    inner: BaseException = error
    while inner.__cause__ is not None:
        inner = inner.__cause__
    text = str(inner) or type(inner).__name__
    return text.splitlines()[0][:200]


FROM_SETTINGS = "set CALICO_DB, or run from the bot's folder"


def _no_database(location: str, hint: str = FROM_SETTINGS) -> str | None:
    """Why ``location`` holds no database to read (a missing or empty SQLite file), or None.
    The commands that read a database refuse such a path rather than create a file there."""
    from bot.core.storage import is_postgres

    if is_postgres(location):
        return None
    if not location.strip():
        return "no database: CALICO_DB is empty (a SQLite file or a postgresql:// URL)"
    path = Path(location)
    if not path.exists():
        return f"no database at {path.resolve()} ({hint})"
    if not path.is_file():
        # A folder, /dev/null, a pipe: SQLite would read nothing there and call it fine.
        kind = "a folder" if path.is_dir() else "not a regular file"
        return f"{path.resolve()} is not a calico-bot database ({kind})"
    if path.stat().st_size == 0:
        return f"no database at {path.resolve()} (the file is empty)"
    return None


async def _check(location: str, hint: str = FROM_SETTINGS) -> int:
    import sqlite3

    from bot.core.storage import StorageError, is_postgres, open_store
    from bot.core.storage.secrets import redact, scrub

    missing = _no_database(location, hint)
    if missing:
        print(f"check: {missing}", file=sys.stderr)
        return 2
    try:
        if is_postgres(location):
            store = await open_store(location)
            try:
                problems = await store.integrity_check()
            finally:
                await store.close()
        else:
            from bot.core.storage.sqlite.db import check

            problems = await check(location)
    except (StorageError, sqlite3.DatabaseError) as e:
        # Too damaged for the check to run at all (or not a calico-bot database): said plainly.
        problems = [f"{type(e).__name__}: {e}"]
    shown = redact(location)
    if problems:
        print(f"{shown}: {len(problems)} problem(s) found:")
        for line in problems[:20]:
            print(f"  {scrub(line, location)}")
        return 1
    print(f"{shown}: ok")
    return 0


async def _backup(location: str, target: str) -> int:
    from bot.core.storage import is_postgres
    from bot.core.storage.sqlite.db import backup

    if is_postgres(location):
        print("PostgreSQL databases are backed up with PostgreSQL's own tools: "
              "pg_dump --format=custom --file=calico.dump <database> (restore with pg_restore).",
              file=sys.stderr)
        return 2
    from bot.core.storage import StorageError

    missing = _no_database(location)
    if missing:
        print(f"backup: {missing}", file=sys.stderr)
        return 2
    folder = Path(target).parent
    if not folder.is_dir():
        try:
            folder.mkdir(parents=True)
        except OSError as e:
            print(f"backup: cannot create the folder {folder}: {e}", file=sys.stderr)
            return 1
        print(f"created the folder {folder}")
    try:
        problems = await backup(location, target)
    except StorageError as e:
        print(f"backup: {e}", file=sys.stderr)
        return 1
    if problems:
        print(f"the copy in {target} failed its integrity check: {problems[:3]}",
              file=sys.stderr)
        return 1
    print(f"backed up {location} to {target}: integrity check ok")
    return 0


async def _migrate(source: str, target: str) -> int:
    from bot.core.storage import is_postgres
    from bot.core.storage.copy import copy_database
    from bot.core.storage.sqlite.db import SecondProcessError

    missing = _no_database(source, "check the path")
    if missing:
        print(f"migrate-db: {missing}; nothing copied", file=sys.stderr)
        return 2
    if not is_postgres(target) and not Path(target).parent.is_dir():
        print(f"migrate-db: no folder {Path(target).parent.resolve()} for {target}",
              file=sys.stderr)
        return 2
    holding: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if not is_postgres(source):
        from bot.core.storage.sqlite.db import held_apart

        holding = held_apart(Path(source))
    try:
        with holding:
            report = await copy_database(source, target)
    except SecondProcessError:
        print(f"migrate-db: {Path(source).resolve()} is in use by a running calico-bot: stop "
              "it first (a copy of a database that is changing would miss what changes); "
              "nothing copied", file=sys.stderr)
        return 2
    for table, (copied, counted) in report.items():
        print(f"  {table}: {copied} rows copied, {counted} in the target")
    print("done: every table's row count matches")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings.from_env()
    except ValidationError as e:
        for line in bad_settings(e):
            print(f"calico-bot: {line}", file=sys.stderr)
        return 2
    from bot.core.storage.secrets import url_secrets

    logs.configure(settings.log_level, json=settings.log_json,
                   secret=[settings.token.get_secret_value(), *url_secrets(settings.db_path)])
    command = args.command
    if command == "demo":
        from bot.demo import main as demo_main

        demo_main(args.out, args.players, args.seed)
        return 0
    if command == "web":
        if not settings.web_on or settings.web_port is None:
            print("calico-bot web needs CALICO_WEB_PORT and CALICO_WEB_SECRET.", file=sys.stderr)
            return 2
        from bot.web.app import serve
        from bot.web.giveway import loop_giving_way

        # The bot's own child: its loop offers the CPU to the bot's threads while it works.
        factory = loop_giving_way if args.parent else None
        with contextlib.suppress(KeyboardInterrupt), asyncio.Runner(
                loop_factory=factory) as runner:
            runner.run(serve(settings.db_path, settings.web_secret.get_secret_value(),
                             port=settings.web_port, host=settings.web_host,
                             rate_per_minute=settings.web_rate_per_minute,
                             trust_proxy=settings.web_trust_proxy,
                             picture_cache_mb=settings.web_picture_cache_mb,
                             parent=args.parent))
        return 0
    if command == "check":
        if args.db:
            return asyncio.run(_check(args.db, "check the path"))
        return asyncio.run(_check(settings.db_path))
    if command == "backup":
        return asyncio.run(_backup(settings.db_path, args.file))
    if command == "migrate-db":
        from bot.core.storage import StorageError

        try:
            return asyncio.run(_migrate(args.source, args.target))
        except StorageError as e:
            from bot.core.storage.secrets import scrub

            print(f"migrate-db: {scrub(str(e), args.source, args.target)}", file=sys.stderr)
            return 1
    if not settings.has_token:
        if command is None:
            print(HOW_TO_GET_A_TOKEN)
            print(PLAYING_THE_DEMO)
            from bot.demo import main as demo_main

            demo_main()
            return 0
        print(f"calico-bot {command} needs a Discord bot token: DISCORD_TOKEN is not set (in "
              "the environment or a .env file here). Nothing was started.\n", file=sys.stderr)
        print(HOW_TO_GET_A_TOKEN, file=sys.stderr)
        return 2
    from bot.core.storage import StorageError

    try:
        asyncio.run(_run(settings, sync_only=command == "sync"))
    except StorageError as e:
        from bot.core.storage.secrets import scrub

        print(f"calico-bot: {scrub(str(e), settings.db_path)}", file=sys.stderr)
        return 1
    except discord.LoginFailure:
        print("Discord refused the token: check DISCORD_TOKEN (reset it in the developer "
              "portal if needed).", file=sys.stderr)
        return 1
    except UNREACHABLE as e:
        # No network, no DNS, a firewall: a host needs the one line, not aiohttp's stack.
        print(f"calico-bot: cannot reach Discord ({unreachable_reason(e)}): check the network "
              "and start the bot again.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
