"""From Discord to the site, through the real client and the stand-in: ``/calico admin``
turns the pages on (off by default), ``/calico settings`` hides a name, and the score sheet and
``/calico stats`` carry a Link button to the page, which the bot itself serves."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from bot.core.site import service as site
from bot.web import links
from bot.words.catalogue import Text
from tests.fakediscord import DiscordEnv
from tests.web.bots import BASE_URL, SECRET, Served, admin, four_player_game, started

EN = Text("en")
SIGNER = links.Signer(SECRET)


def link_urls(msg: object) -> list[str]:
    return [c.url for c in msg.walk_components()  # type: ignore[attr-defined]
            if c.style == 5 and c.url]


async def test_the_score_sheet_links_to_the_game_page_once_the_server_turns_it_on(
        discord_env: DiscordEnv, tmp_path: Path) -> None:
    env = discord_env
    async with started(env, tmp_path) as served:
        await links_from_discord(env, served)


async def links_from_discord(env: DiscordEnv, served: Served) -> None:
    k = served.bot.manager.kernel
    shown = await admin(env)
    assert EN("web.hosting.off") in shown  # off by default
    off = await four_player_game(served, seed=3)
    sheet = [m for m in env.messages(off.thread_id) if "/g/" in "".join(link_urls(m))]
    assert sheet == []  # no link while the server has the site off
    async with aiohttp.ClientSession() as http:
        gone = await http.get(served.url + SIGNER.path(links.GAME, off.id))
        assert gone.status == 404

        shown = await admin(env, web_pages="on")
        assert EN("hosting.saved") in shown and EN("web.hosting.on") in shown
        assert await site.enabled(k, env.guild.id)
        g = await four_player_game(served, seed=4)
        urls = [u for m in env.messages(g.thread_id) for u in link_urls(m)]
        assert urls == [BASE_URL + SIGNER.path(links.GAME, g.id)]
        page = await http.get(served.url + urls[0].removeprefix(BASE_URL))
        body = await page.text()
        assert page.status == 200 and "Final scores" in body
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "<script>alert" not in body

        inter = await env.slash("alice", "calico", "stats")
        await inter.wait_response()
        answer = (await inter.wait_followups(1))[0]
        alice = env.user("alice").id
        assert link_urls(answer) == [BASE_URL + SIGNER.path(links.PLAYER, env.guild.id, alice)]
        player = await http.get(served.url + SIGNER.path(links.PLAYER, env.guild.id, alice))
        assert player.status == 200 and "<h1>alice</h1>" in await player.text()

        inter = await env.slash("alice", "calico", "leaderboard")
        await inter.wait_response()
        board = (await inter.wait_followups(1))[0]
        assert link_urls(board) == [BASE_URL + SIGNER.path(links.SERVER, env.guild.id)]

        # alice hides her name: "Player 1" on the game page, and no link to her own page.
        inter = await env.slash("alice", "calico", "settings", options={"hide_name": "on"})
        await inter.wait_response()
        assert EN("web.settings.hidden") in (await inter.wait_followups(1))[0].content
        body = await (await http.get(served.url + SIGNER.path(links.GAME, g.id))).text()
        assert "Player 1" in body and ">alice<" not in body
        inter = await env.slash("alice", "calico", "stats")
        await inter.wait_response()
        assert link_urls((await inter.wait_followups(1))[0]) == []
        hidden = await http.get(served.url + SIGNER.path(links.PLAYER, env.guild.id, alice))
        assert hidden.status == 404
