"""The Discord client: wires the game manager, the cogs, the buttons and the background tasks.

``CalicoBot`` is an ``AutoShardedBot``: Discord requires shards past 2,500 servers, and one
process may run all shards or a share of them (``CALICO_SHARD_IDS``, or a cluster slot it
claims on PostgreSQL, ``CALICO_CLUSTER_SLOTS``). DMs and DM clicks arrive on shard 0, a
server's events on its shard; any process answers any click it receives (answers go over
HTTP, and every game lives in the shared database), and any process's dispatcher delivers any
game's notices.

``setup_hook`` (runs once, after login, before the gateway connects):

1. claims a cluster slot when configured (waiting as a standby while every slot is held);
2. opens the manager on ``CALICO_DB`` (unless a test injected one, with its fake clock), with
   computer players in worker processes;
3. loads the cogs (``/calico ...`` lives in one app-command group shared by them) and registers
   every ``DynamicItem`` template, so buttons on old messages keep working;
4. starts the outbox dispatcher (posts committed notices) and the sweep loop (reminders,
   deadlines, computer turns left over, the weekly challenge);
5. syncs the command tree once per deployment: only when its hash changed since the last sync
   recorded in the database for this application, by one process at a time.

Shutting down (:meth:`CalicoBot.close`, on SIGTERM or SIGINT): new interactions get a short
"restarting" answer, those in flight finish (bounded), the dispatcher stops after the notice it
is sending, then the gateway and the database close.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

import discord
from discord import app_commands
from discord.ext import commands
from discord.ui.dynamic import DynamicItem

from bot.adapter import commands as commands_sync
from bot.adapter import cooldowns, pacing, policy, postmarks, telemetry
from bot.adapter import shards as sharding
from bot.adapter.context import Host
from bot.adapter.delivery import DiscordDelivery
from bot.adapter.locales import LocaleSource
from bot.adapter.ui import flows, images, weblinks
from bot.adapter.ui.items import ALL_ITEMS
from bot.core import servers
from bot.core.clock import Clock
from bot.core.computers import ComputerPool
from bot.core.kernel import Kernel
from bot.core.manager import Manager, ManagerConfig
from bot.core.models import GameInfo
from bot.core.outbox import Dispatcher
from bot.core.timers import SweepLoop
from bot.ops import memory
from bot.ops.health import HealthServer, HealthThresholds, start_listener
from bot.ops.metrics import MeteredSweeper, Metrics
from bot.ops.sources import CoreHealthSource, core_scrape_sources, gateway_status
from bot.settings import Settings
from bot.words import markup
from bot.words.catalogue import Text

if TYPE_CHECKING:
    from bot.web.process import SiteProcess
log = logging.getLogger("calico.client")

SyncMode = Literal["auto", "always", "never"]


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("calico-bot")
    except metadata.PackageNotFoundError:
        return "unknown"


def intents(members: bool = True) -> discord.Intents:
    """Guild events for threads and channels; members only to notice players leaving."""
    value = discord.Intents.default()
    value.members = members
    value.message_content = False
    value.presences = False
    return value


class CalicoBot(commands.AutoShardedBot):
    def __init__(
        self,
        settings: Settings,
        *,
        manager: Manager | None = None,
        clock: Clock | None = None,
        sync: SyncMode = "auto",
        sweep_interval: float | None = None,
        dispatch_poll: float = 2.0,
        members_intent: bool = True,
        background: bool = True,
        **options: Any,
    ) -> None:
        shards: dict[str, Any] = {}
        if settings.shard_count is not None:
            shards["shard_count"] = settings.shard_count
            if settings.shard_ids:
                shards["shard_ids"] = settings.shard_ids
        shards.update(options)
        # Never in voice: no warning asking hosts to install voice libraries nothing uses.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        # No message cache (discord.py keeps the last 1,000 messages by default, with their
        # components and attachments): the bot never reads it (clicks carry their message,
        # posts are edited by id), and on a busy bot it was memory held for nothing.
        # Discord's rate limits, read from every answer (bot.adapter.pacing); the global limit
        # is the bot's, shared by its processes. A wait past 30 s (the least discord.py takes)
        # raises instead of holding the request, and the outbox tries the lane later.
        self.pacer = pacing.Pacer(
            global_per_second=pacing.GLOBAL_PER_SECOND / max(1, settings.cluster_slots))
        shards.setdefault("http_trace", self.pacer.trace())
        shards.setdefault("max_ratelimit_timeout", 30.0)
        # ...but a request with a token left is never refused ahead for its window's end (a
        # thread budget's five minutes): the pacer already put off what would wait.
        pacing.refuse_ahead_only_what_would_wait()
        super().__init__(command_prefix=commands.when_mentioned, tree_cls=commands_sync.CalicoTree,
                         intents=intents(members_intent), help_command=None,
                         max_messages=None, **shards)
        self.settings = settings
        self._manager = manager
        self._owns_manager = manager is None
        self.clock = clock
        self.sync_mode: SyncMode = sync
        self.sweep_interval = settings.sweep_seconds if sweep_interval is None \
            else sweep_interval
        self.dispatch_poll = dispatch_poll
        self.background = background  # False: no outbox or sweep (``calico-bot sync``)
        self.calico_group = app_commands.Group(
            name="calico",
            description=app_commands.locale_str("Play Calico, the quilt and cats game",
                                                key="cmd.group"),
        )
        self.tree.add_command(self.calico_group)
        self.dispatcher: Dispatcher | None = None
        self.warming: asyncio.Task[None] | None = None  # the start-up pictures (images.warm_up)
        self.sweeper: SweepLoop | None = None
        self.computers: ComputerPool | None = None
        self._tasks: list[asyncio.Task[None]] = []  # the work: delivering, sweeping
        self._side_tasks: list[asyncio.Task[None]] = []  # reports: stopped at once
        self._locales: LocaleSource | None = None
        self.synced: bool = False
        self.inflight: set[asyncio.Task[Any]] = set()
        self._accepting = True
        self._closing = False
        self._stopping = asyncio.Event()  # set as the shutdown begins
        self._shutdown: asyncio.Future[None] | None = None
        self.identify = sharding.IdentifyPacer()
        self._slot: Any = None  # the connection holding this process's cluster slot
        self.cluster_slot: int | None = None
        self.metrics = Metrics(version=_version())
        self.health: HealthServer | None = None
        self.site: HealthServer | SiteProcess | None = None  # the companion web site (bot/web)
        self.cooldowns = policy.cooldowns_from(settings)  # per person, per kind of work
        self.unreadable = postmarks.Unreadable(on_new=self.metrics.history_unreadable.inc)
        self.pacer.on_rate_limited = self.metrics.record_rate_limited
        self.pacer.on_invalid = self.metrics.record_invalid_request

    # ------------------------------------------------------------------ plumbing

    @property
    def manager(self) -> Manager:
        if self._manager is None:
            raise RuntimeError("the manager opens in setup_hook")
        return self._manager

    @property
    def kernel(self) -> Kernel:
        """The core's handle, passed to each feature's service functions."""
        return self.manager.kernel

    @property
    def locales(self) -> LocaleSource:
        if self._locales is None:
            self._locales = LocaleSource(self.kernel)
        return self._locales

    def now(self) -> datetime:
        """The time on the core's clock (a test's fake clock too)."""
        return self.manager.now()

    @property
    def accepting(self) -> bool:
        return self._accepting

    async def thread_text(self, game: GameInfo) -> Text:
        """The language of a game's thread posts: the server's choice, else its host's."""
        chosen = (await servers.settings(self.kernel, game.guild_id)).language
        return Text(chosen) if chosen else await self.locales.text_for(game.host_id)

    async def admit(self, interaction: discord.Interaction[Any]) -> bool:
        """Every interaction passes here first: while shutting down it gets a short "restarting"
        answer, and someone past a cooldown (:data:`bot.adapter.policy.POLICY`: starting games,
        pictures, reviews...) a short "try again <when>"; otherwise it is counted as in flight
        until its handler returns."""
        if not self._accepting:
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.send_message(
                    Text(interaction.locale)("error.restarting"), ephemeral=True)
            return False
        wait = cooldowns.wait_for(interaction, self.cooldowns)
        if wait > 0:
            await cooldowns.refuse(interaction, wait, self.metrics)
            return False
        task = asyncio.current_task()
        if task is not None:
            self.inflight.add(task)
            task.add_done_callback(self.inflight.discard)
        telemetry.admitted(interaction)
        return True

    async def on_click(self, item: DynamicItem[Any],
                       interaction: discord.Interaction[Any]) -> None:
        await flows.route(item, interaction)

    # ------------------------------------------------------------------ start

    async def setup_hook(self) -> None:
        images.set_render_threads(self.settings.render_threads)
        if self._manager is None:
            kwargs: dict[str, Any] = {} if self.clock is None else {"clock": self.clock}
            workers = self.settings.ai_workers
            if workers != 0:
                self.computers = ComputerPool(workers,
                                              on_move=self.metrics.observe_computer_move)
                kwargs["computers"] = self.computers
            lease = timedelta(seconds=self.settings.lease_seconds)
            kwargs["config"] = ManagerConfig(
                outbox_keep=timedelta(days=self.settings.retention_days), timer_lease=lease,
                max_lobbies=self.settings.max_lobbies,
                max_active_games=self.settings.max_active_games,
                new_lobbies_per_hour=self.settings.lobbies_per_hour or None)
            self._manager = await Manager.open(self.settings.db_path, **kwargs)
            log.info("database: %s (%s)", *self._manager.storage_info())
        await self._plan_shards()  # after the database: the cluster's shard count is kept there
        await self.tree.set_translator(commands_sync.CatalogueTranslator())
        for name in commands_sync.cog_modules():
            await self.load_extension(name)
        self.add_dynamic_items(*ALL_ITEMS)
        self.tree.error(self.on_app_command_error)
        self.dispatcher = self.manager.dispatcher(DiscordDelivery(self),
                                                  poll_interval=self.dispatch_poll,
                                                  lease=self.settings.lease_seconds,
                                                  nonce_window=self.settings.nonce_window_seconds)
        self.sweeper = SweepLoop(MeteredSweeper(self.manager, self.metrics),
                                 interval=self.sweep_interval)
        self.metrics.set_sources(core_scrape_sources(
            self.manager, gateway=lambda: gateway_status(self),
            dispatcher=self.dispatcher, games_by_status=self.manager.active_games))
        if self.settings.health_port is not None:
            thresholds = HealthThresholds(max_sweep_age=self.settings.health_max_sweep_age,
                                          max_outbox_age=self.settings.health_max_outbox_age)
            self.health = await start_listener(
                CoreHealthSource(self.manager, lambda: gateway_status(self)), self.metrics,
                port=self.settings.health_port, host=self.settings.health_host,
                version=_version(), thresholds=thresholds)
            log.info("health and metrics on http://%s:%d/", self.settings.health_host,
                     self.health.port)
        await self._start_site()
        if self.background:
            self._tasks.append(asyncio.create_task(self._run_dispatcher(), name="calico-outbox"))
            self._tasks.append(asyncio.create_task(self.sweeper.run_forever(),
                                                   name="calico-sweep"))
            self._side_tasks.append(asyncio.create_task(self._report_shards(),
                                                        name="calico-shards"))
            self._side_tasks.append(asyncio.create_task(memory.release_periodically(),
                                                        name="calico-memory"))
            self.warming = asyncio.create_task(self._warm_pictures(),
                                               name="calico-warm-pictures")
            self._side_tasks.append(self.warming)
        if self.computers is not None:
            self._side_tasks.append(asyncio.create_task(self._warm_computers(),
                                                        name="calico-warm"))
        if self.sync_mode != "never":
            await self.sync_commands(force=self.sync_mode == "always")

    async def sync_commands(self, *, force: bool = False) -> bool:
        """Sync the command tree unless this exact tree was synced already
        (:func:`bot.adapter.commands.sync`)."""
        self.synced = await commands_sync.sync(self.tree, self.manager, self.application_id,
                                               self.settings.dev_guild, force=force)
        return self.synced

    async def _plan_shards(self) -> None:
        """Which shards this process runs (:func:`bot.adapter.shards.plan`), and how many may
        identify at once (Discord's ``max_concurrency``)."""
        recommended: int | None = None
        try:
            recommended, _, limits = await self.http.get_bot_gateway()
            self.identify.concurrency = max(1, int(limits.get("max_concurrency", 1)))
        except discord.HTTPException as e:
            log.warning("could not read Discord's gateway recommendation: %s", e)
        chosen = await sharding.plan(self.settings, self.manager, self.application_id,
                                   recommended, self.shard_count)
        if chosen.shard_count is not None:
            self.shard_count = chosen.shard_count
        self.shard_ids = chosen.shard_ids
        self.cluster_slot, self._slot = chosen.slot, chosen.holder
        if self.shard_ids is not None and not self.shard_ids:
            raise RuntimeError("this process has no shard to run")

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        await self.identify.wait(shard_id)

    async def _report_shards(self, every: float = 300.0) -> None:
        """Each shard's latency in the log every few minutes (connections are logged as they
        happen, by the events cog)."""
        await self.wait_until_ready()
        while not self.is_closed():
            parts = [f"{sid}: {lat * 1000:.0f} ms" for sid, lat in self.latencies
                     if lat == lat]  # NaN before the first heartbeat
            log.info("shards latency %s", ", ".join(parts) or "unknown")
            await asyncio.sleep(every)

    async def _run_dispatcher(self) -> None:
        # Posting needs the HTTP session (and, for thread posts, benefits from the guild
        # caches): start once the gateway is ready, unless the bot is stopped before that
        # (SIGTERM while connecting, the members intent refused): then there is nothing to
        # wait for, and the shutdown must not sit out its grace.
        ready = asyncio.ensure_future(self.wait_until_ready())
        stopping = asyncio.ensure_future(self._stopping.wait())
        try:
            await asyncio.wait({ready, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ready.cancel()
            stopping.cancel()
        if self._stopping.is_set():
            return
        assert self.dispatcher is not None
        await self.dispatcher.run_forever(grace=self.settings.shutdown_grace / 2)

    async def _warm_pictures(self) -> None:
        try:
            await images.warm_up()
        except Exception:  # a broken sample must not stop the bot; real pictures will tell
            log.exception("drawing the sample pictures at start failed")

    async def _warm_computers(self) -> None:
        assert self.computers is not None
        try:
            await self.computers.warm_up()
        except Exception:
            log.exception("starting the computer players' processes failed")

    async def _start_site(self) -> None:
        """The companion web site (bot/web) when configured, and the Link buttons under posts
        (they need only the address and the key: the site may be served elsewhere)."""
        st = self.settings
        weblinks.configure(st.web_base_url, st.web_secret.get_secret_value())
        if st.web_on:
            from bot.web.app import start_configured  # jinja2 loaded only when the site is on

            self.site = await start_configured(self.kernel, st)

    # ------------------------------------------------------------------ stop

    async def close(self) -> None:
        """Shut down once (see the module docstring); every caller waits for that one
        shutdown to finish (a signal handler and ``async with`` both call this)."""
        if self._shutdown is None:
            self._shutdown = asyncio.ensure_future(self._close())
        await asyncio.shield(self._shutdown)

    async def __aexit__(self, *exc: object) -> None:
        # discord.py skips close() here once the gateway is closed; our shutdown may still be
        # closing the database: wait for it.
        await self.close()

    async def _close(self) -> None:
        self._closing = True
        self._stopping.set()
        started = time.monotonic()
        grace = self.settings.shutdown_grace
        self._accepting = False
        pending = {t for t in self.inflight if not t.done() and t is not asyncio.current_task()}
        if pending:
            log.info("shutting down: letting %d interactions finish", len(pending))
            await asyncio.wait(pending, timeout=grace / 2)
        if self.dispatcher is not None:
            self.dispatcher.stop()
        if self.sweeper is not None:
            self.sweeper.stop()
        for task in self._tasks:
            if task.get_name() in ("calico-shards", "calico-warm"):
                task.cancel()  # no work in flight there: nothing to wait for
        remaining = max(0.5, grace - (time.monotonic() - started))
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(task), timeout=remaining)
        for task in [*self._tasks, *self._side_tasks]:
            task.cancel()
        self._tasks.clear()
        self._side_tasks.clear()
        await super().close()
        if self.site is not None:
            await self.site.stop()
        if self.health is not None:
            await self.health.stop()
        if self._manager is not None:
            # Before the pool closes: the computer turns still queued are left to their timers
            # (played at the next start), none is cut off mid-commit by the pool going away.
            await self._manager.stop_computers()
        if self.computers is not None:
            self.computers.close()
        if self._owns_manager and self._manager is not None:
            await self._manager.close()
            self._manager = None
        if self._slot is not None:
            with contextlib.suppress(Exception):
                await self._slot.close()
        log.info("shut down in %.1f s", time.monotonic() - started)

    async def on_app_command_error(self, interaction: discord.Interaction[Any],
                                   error: app_commands.AppCommandError) -> None:
        """Anything a command did not handle: a short private apology, and a log line."""
        if isinstance(error, app_commands.CheckFailure):
            return  # answered by the check itself (restarting, cooldown...)
        if isinstance(error, app_commands.TransformerError):
            # A value the command does not accept (a client may send anything): say which.
            value = markup.clip(str(error.value), 50)
            text = Text(interaction.locale)("error.bad_value", value=value)
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.send_message(text, ephemeral=True)
            return
        log.error("command %s failed", interaction.command and interaction.command.name,
                  exc_info=error)
        # A refusal from Discord itself (an answer it would not take) counts as its error.
        self.metrics.record_http_exception(getattr(error, "original", error))
        text = Text(interaction.locale)("error.generic")
        with contextlib.suppress(discord.HTTPException):
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)

def as_host(bot: CalicoBot) -> Host:
    """The client as the cogs take it: type checking proves here that ``CalicoBot`` meets the
    :class:`~bot.adapter.context.Host` protocol the cogs are written against (they never
    import this module, so there is no import circle)."""
    return bot
