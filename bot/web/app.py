"""The site's routes and listener: ``/s/<server>``, ``/g/<game>`` (``?step=N``; its pictures
``/g/<game>/<step>.png`` and ``/g/<game>/scores.png``), ``/t/<tournament>``,
``/p/<server>.<player>``, each id signed (:mod:`bot.web.links`), and ``/static/``. Every page
is read from the database through the core's services (any process serves any page; the caches
here only save work). Started by the client beside the health listener when
``CALICO_WEB_PORT`` and ``CALICO_WEB_SECRET`` are set."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from aiohttp import web

from bot.core.kernel import Kernel
from bot.core.models import ManagerError
from bot.core.site.service import Replays
from bot.ops.health import HealthServer
from bot.web import guard, language, links, pages, pictures
from bot.web.assets import PREFIX, Assets
from bot.web.cache import Lru
from bot.web.links import Signer
from bot.web.process import READY, SiteProcess, lower_priority
from bot.words.catalogue import Text

if TYPE_CHECKING:
    from bot.settings import Settings

log = logging.getLogger("calico.web")
HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"  # served under assets.PREFIX


@dataclass(slots=True)
class Site:
    kernel: Kernel
    signer: Signer
    templates: jinja2.Environment
    pictures: pictures.Pictures
    steps: Replays
    pages: Lru[str]  # whole game pages (HTML) by their ETag


SITE_KEY = web.AppKey("calico_site", Site)


def environment(assets: Assets) -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True)
    env.globals["asset"] = assets.url  # the stylesheet's and script's lasting addresses
    return env


def _tr(request: web.Request) -> Text:
    return Text(language.pick(request.headers.get("Accept-Language")))


def _html(request: web.Request, body: str, status: int = 200,
          headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(text=body, status=status, content_type="text/html", charset="utf-8",
                        headers={"Content-Language": _tr(request).lang,
                                 "Cache-Control": "no-cache", **(headers or {})})


def _render(request: web.Request, template: str, **context: Any) -> str:
    tr = _tr(request)
    return request.app[SITE_KEY].templates.get_template(template).render(
        tr=tr, lang=tr.lang, **context)


def _page(request: web.Request, template: str, status: int = 200,
          **context: Any) -> web.Response:
    return _html(request, _render(request, template, **context), status)


def _known(request: web.Request, tag: str) -> bool:
    """Whether the browser already has the answer tagged ``tag`` (If-None-Match)."""
    return tag in {t.strip() for t in request.headers.get("If-None-Match", "").split(",")}


def error_page(request: web.Request, status: int) -> web.Response:
    return _page(request, "error.html", status=status, status_code=status)


def _ids(request: web.Request, kind: str, count: int = 1) -> tuple[int, ...]:
    found = request.app[SITE_KEY].signer.check(kind, request.match_info["token"], count)
    if found is None:
        raise web.HTTPNotFound()
    return found


def _step(request: web.Request) -> int | None:
    text = request.query.get("step", "")
    return int(text) if text.isdigit() and len(text) < 6 else None


async def game(request: web.Request) -> web.Response:
    site = request.app[SITE_KEY]
    (game_id,) = _ids(request, links.GAME)
    tr = _tr(request)
    # Who may see the game and how its people are named are read again for every request;
    # only the page built from them is kept.
    info = await pages.shown_game(site.kernel, game_id)
    if info is None:
        raise web.HTTPNotFound()
    players = await pages.people(site.kernel, site.signer, tr, info)
    token, step = request.match_info["token"], _step(request)
    # A stored version of a game never changes: with the step, the language and the names
    # (hidden or not) it is the whole page.
    tag = pictures.etag("page", token, info.version, step, tr.lang,
                        *(f"{p.name}\x1e{p.href}" for p in players))
    headers = {"ETag": tag}
    if _known(request, tag):
        return web.Response(status=304, headers={
            **headers, "Cache-Control": "no-cache", "Content-Language": tr.lang})
    body = site.pages.get(tag)
    if body is None:
        page = await pages.game_page(site.kernel, site.signer, tr, site.steps, info, players,
                                     step)
        body = _render(request, "game.html", page=page, token=token)
        site.pages.put(tag, body)
    return _html(request, body, headers=headers)


async def picture(request: web.Request) -> web.Response:
    site = request.app[SITE_KEY]
    (game_id,) = _ids(request, links.GAME)
    which = request.match_info["which"]
    if which != "scores" and not (which.isdigit() and len(which) < 6):
        raise web.HTTPNotFound()
    tr = _tr(request)
    info = await pages.shown_game(site.kernel, game_id)
    if info is None:
        raise web.HTTPNotFound()
    names = [p.name for p in await pages.people(site.kernel, site.signer, tr, info)]
    # A step is fixed once played; the score sheet once the game is over.
    tag = pictures.etag(game_id, which, tr.lang, *names)
    headers = {"ETag": tag, "Cache-Control": "public, max-age=300"}
    if _known(request, tag):
        return web.Response(status=304, headers=headers)
    png = site.pictures.cached(tag)  # drawn before: the game's steps need not be read
    if png is not None:
        return web.Response(body=png, content_type="image/png", headers=headers)
    try:
        steps = await site.steps.steps(site.kernel, info)
    except ManagerError:  # still choosing goals: no table yet
        raise web.HTTPNotFound() from None
    if which == "scores":
        if info.status.value != "over" or not steps:
            raise web.HTTPNotFound()
        draw = pictures.scores(tr, steps[-1].view, names)
    else:
        index = int(which)
        if index >= len(steps):
            raise web.HTTPNotFound()
        draw = pictures.table(tr, steps[index].view, names)
    png = await site.pictures.get(tag, draw)
    return web.Response(body=png, content_type="image/png", headers=headers)


async def tournament(request: web.Request) -> web.Response:
    site = request.app[SITE_KEY]
    (tid,) = _ids(request, links.TOURNAMENT)
    page = await pages.tournament_page(site.kernel, site.signer, _tr(request), tid)
    if page is None:
        raise web.HTTPNotFound()
    return _page(request, "tournament.html", page=page)


async def player(request: web.Request) -> web.Response:
    site = request.app[SITE_KEY]
    guild_id, user_id = _ids(request, links.PLAYER, 2)
    page = await pages.player_page(site.kernel, site.signer, _tr(request), guild_id, user_id)
    if page is None:
        raise web.HTTPNotFound()
    return _page(request, "player.html", page=page)


async def server(request: web.Request) -> web.Response:
    site = request.app[SITE_KEY]
    (guild_id,) = _ids(request, links.SERVER)
    page = await pages.server_page(site.kernel, site.signer, _tr(request), guild_id)
    if page is None:
        raise web.HTTPNotFound()
    return _page(request, "server.html", page=page)


async def _close(app: web.Application) -> None:
    app[SITE_KEY].pictures.close()


def make_app(kernel: Kernel, secret: str, *, rate_per_minute: int = 120,
             trust_proxy: bool = False,
             picture_cache_mb: int = pictures.CACHE_MB) -> web.Application:
    """The site's application for one kernel (``secret``: ``CALICO_WEB_SECRET``)."""
    limit = guard.RateLimit(rate_per_minute)
    app = web.Application(middlewares=[guard.middleware(limit, trust_proxy, error_page)])
    assets = Assets(STATIC)
    app[SITE_KEY] = Site(kernel, Signer(secret), environment(assets),
                         pictures.Pictures(cache_mb=picture_cache_mb), Replays(), Lru(256))
    routes: list[tuple[str, Callable[[web.Request], Awaitable[web.Response]]]] = [
        (f"/{links.SERVER}/{{token}}", server), (f"/{links.GAME}/{{token}}", game),
        (f"/{links.GAME}/{{token}}/{{which}}.png", picture),
        (f"/{links.TOURNAMENT}/{{token}}", tournament), (f"/{links.PLAYER}/{{token}}", player)]
    for path, handler in routes:
        app.router.add_get(path, handler)
    app.router.add_static(PREFIX, STATIC, append_version=False)
    app.on_response_prepare.append(assets.on_prepare)
    app.on_cleanup.append(_close)
    return app


async def start_site(kernel: Kernel, secret: str, *, port: int, host: str = "127.0.0.1",
                     rate_per_minute: int = 120, trust_proxy: bool = False,
                     picture_cache_mb: int = pictures.CACHE_MB) -> HealthServer:
    """Build and start the site on its own listener (what the client's ``setup_hook`` calls)."""
    server = HealthServer(make_app(kernel, secret, rate_per_minute=rate_per_minute,
                                   trust_proxy=trust_proxy, picture_cache_mb=picture_cache_mb),
                          name="web site")
    await server.start(host, port)
    return server


async def start_configured(kernel: Kernel, st: Settings) -> HealthServer | SiteProcess | None:
    """The site when ``CALICO_WEB_PORT`` and ``CALICO_WEB_SECRET`` are set, else None: in a
    child process the bot watches (``CALICO_WEB_PROCESS=apart``, the default:
    :mod:`bot.web.process`) or on this process's own event loop (``inline``)."""
    if not st.web_on or st.web_port is None:
        return None
    if st.web_process == "apart":
        child = SiteProcess({
            "CALICO_DB": st.db_path, "CALICO_WEB_PORT": str(st.web_port),
            "CALICO_WEB_HOST": st.web_host, "CALICO_WEB_SECRET": st.web_secret.get_secret_value(),
            "CALICO_WEB_BASE_URL": st.web_base_url,
            "CALICO_WEB_RATE_PER_MINUTE": str(st.web_rate_per_minute),
            "CALICO_WEB_TRUST_PROXY": str(st.web_trust_proxy).lower(),
            "CALICO_WEB_PICTURE_CACHE_MB": str(st.web_picture_cache_mb),
            "CALICO_LOG_LEVEL": st.log_level, "CALICO_LOG_JSON": str(st.log_json).lower()})
        await child.start()
        log.info("web site listening on %s (process %s)", child.url, child.pid)
        return child
    return await start_site(kernel, st.web_secret.get_secret_value(), port=st.web_port,
                            host=st.web_host, rate_per_minute=st.web_rate_per_minute,
                            trust_proxy=st.web_trust_proxy,
                            picture_cache_mb=st.web_picture_cache_mb)


async def serve(db_path: str, secret: str, *, port: int, host: str = "127.0.0.1",
                rate_per_minute: int = 120, trust_proxy: bool = False,
                picture_cache_mb: int = pictures.CACHE_MB, parent: bool = False) -> None:
    """``calico-bot web``: the site alone, in a process of its own beside the bot (it only
    reads the database: SQLite in WAL mode or PostgreSQL), until SIGTERM or SIGINT. Page views
    then take no CPU time from the process answering the players' clicks. ``parent``: started
    by the bot (:mod:`bot.web.process`): say where it listens on standard output, and stop
    when standard input closes (the bot stopped or died)."""
    from bot.core.manager import Manager

    if parent:
        # Before the database's thread starts: it keeps the priority and the CPUs it starts
        # with. Page views wait behind the players' clicks (its pictures' worker too,
        # bot.web.pictures).
        lower_priority()
    manager = await Manager.open(db_path, exclusive=False)
    try:
        server = await start_site(manager.kernel, secret, port=port, host=host,
                                  rate_per_minute=rate_per_minute, trust_proxy=trust_proxy,
                                  picture_cache_mb=picture_cache_mb)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        watch = None
        if parent:
            print(READY + server.url, flush=True)
            watch = asyncio.create_task(_until_closed(sys.stdin, stop))
        try:
            await stop.wait()
        finally:
            if watch is not None:
                watch.cancel()
            await server.stop()
    finally:
        await manager.close()


async def _until_closed(stream: Any, stop: asyncio.Event) -> None:
    """Set ``stop`` when ``stream`` (the bot's end of a pipe) reaches its end."""
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), stream)
    while await reader.read(4096):
        pass
    stop.set()
