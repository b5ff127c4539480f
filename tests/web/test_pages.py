"""The companion site's pages as a visitor gets them (the real aiohttp server on 127.0.0.1,
the real core on SQLite): what each page shows, what it never shows, and who gets a 404."""

from __future__ import annotations

import re

from bot.core import queries
from bot.core.site import service as site
from bot.core.site.model import SITE_KEY
from bot.web import links
from engine.views import private_view, public_view
from render import render_table, render_turn
from tests.core.conftest import ANN, BOB, DAN, GUILD
from tests.web.conftest import EVIL, SCRIPT, World

LINK = re.compile(r'href="(/[gtsp]/[^"]+)"')


async def get(world: World, path: str, **headers: str) -> tuple[int, str]:
    resp = await world.client.get(path, headers=headers)
    return resp.status, await resp.text()


async def test_a_finished_game_shows_its_players_each_move_and_the_score_sheet(
        world: World) -> None:
    g = world.finished
    status, body = await get(world, world.path(links.GAME, g.id))
    assert status == 200
    assert f"Game #{g.id}" in body and "finished" in body
    for name in ("Ann", "Bob", "Cat"):
        assert f">{name}</a>" in body  # each links to the player's page
    assert world.path(links.PLAYER, GUILD, ANN.id) in body
    # The stepper: the last placement by default, 22 per player after the start.
    assert 'max="88"' in body and 'value="88"' in body and "Move 88 of 88" in body
    assert "Final scores" in body and "/scores.png" in body
    totals = [int(t) for t in re.findall(r"<td>(\d+)</td></tr>", body)]
    assert len(totals) == 4 and totals == sorted(totals, reverse=True)


async def test_the_stepper_walks_the_moves_with_plain_links(world: World) -> None:
    path = world.path(links.GAME, world.finished.id)
    status, first = await get(world, path + "?step=0")
    assert status == 200 and "Move 0 of 88" in first and "Play begins" in first
    assert 'id="next" rel="next" href="?step=1"' in first
    _, third = await get(world, path + "?step=3")
    assert "Move 3 of 88" in third and 'href="?step=2"' in third and 'href="?step=4"' in third
    assert re.search(r'class="move">.+ (sewed|placed) ', third) or "sewed" in third
    _, past = await get(world, path + "?step=999")
    assert "Move 88 of 88" in past  # past the end: the end
    _, junk = await get(world, path + "?step=abc")
    assert "Move 88 of 88" in junk


async def test_each_step_has_its_own_picture_of_the_table(world: World) -> None:
    path = world.path(links.GAME, world.finished.id)
    a = await world.client.get(path + "/0.png")
    b = await world.client.get(path + "/1.png")
    assert a.status == b.status == 200 and a.content_type == "image/png"
    png_a, png_b = await a.read(), await b.read()
    assert png_a[:8] == b"\x89PNG\r\n\x1a\n" and png_a != png_b
    assert (await world.client.get(path + "/89.png")).status == 404


async def test_a_game_in_progress_shows_what_its_thread_shows_and_no_hand(
        world: World) -> None:
    g = await queries.game(world.m.kernel, world.running.id)
    assert g.state is not None and g.status.value == "play"
    path = world.path(links.GAME, g.id)
    status, body = await get(world, path)
    assert status == 200 and "still being played" in body and "/scores.png" not in body
    last = int(re.search(r'max="(\d+)"', body)[1])  # type: ignore[index]
    resp = await world.client.get(f"{path}/{last}.png")
    png = await resp.read()
    names = [s.name for s in g.seats]
    # Byte for byte the thread's table picture; not the turn picture with a hand in it.
    from bot.web.pictures import labels
    from bot.words.catalogue import Text

    assert png == render_table(public_view(g.state), names, labels=labels(Text("en")))
    seat = g.state.current_seat
    assert seat is not None
    assert png != render_turn(private_view(g.state, seat), name=names[seat])
    assert (await world.client.get(f"{path}/{last + 1}.png")).status == 404
    assert (await world.client.get(f"{path}/scores.png")).status == 404


async def test_a_server_without_the_site_answers_404_everywhere(world: World) -> None:
    k = world.m.kernel
    pages = [world.path(links.GAME, world.finished.id),
             world.path(links.GAME, world.finished.id) + "/3.png",
             world.path(links.SERVER, GUILD), world.path(links.PLAYER, GUILD, ANN.id)]
    for p in pages:
        assert (await world.client.get(p)).status == 200, p
    await site.set_enabled(k, GUILD, False)
    for p in pages:
        status, body = await get(world, p)
        assert status == 404 and "Page not found" in body, p
    # Another server's pages never existed: off is the default.
    assert not await site.enabled(k, GUILD + 1)
    assert (await world.client.get(world.path(links.SERVER, GUILD + 1))).status == 404


async def test_links_cannot_be_guessed_or_tampered_with(world: World) -> None:
    g = world.finished.id
    good = world.path(links.GAME, g)
    assert (await world.client.get(good)).status == 200
    token = good.rsplit("/", 1)[1]
    ident, sig = token.split("-", 1)
    flipped = sig[:-1] + ("A" if sig[-1] != "A" else "B")
    bad = [f"/g/{ident}-{flipped}",  # one character changed
           f"/g/{g + 1}-{sig}",  # the next game with this game's signature
           f"/g/{g}",  # no signature
           f"/g/{world.path(links.SERVER, g).rsplit('/', 1)[1]}",  # signed for another kind
           f"/g/{ident}-{sig}x", "/g/-", f"/p/{GUILD}.{ANN.id}-{sig}"]
    for path in bad:
        assert (await world.client.get(path)).status == 404, path
    # Consecutive games have unrelated signatures.
    a = world.signer.sign(links.GAME, g).split("-")[1]
    b = world.signer.sign(links.GAME, g + 1).split("-")[1]
    assert a != b and len(a) == 32 and sum(x == y for x, y in zip(a, b, strict=False)) < 8


async def test_a_name_with_html_in_it_is_shown_as_text(world: World) -> None:
    for path in (world.path(links.GAME, world.finished.id), world.path(links.SERVER, GUILD),
                 world.path(links.PLAYER, GUILD, EVIL.id)):
        status, body = await get(world, path)
        assert status == 200, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body, path
        assert SCRIPT not in body, path


async def test_a_player_who_hid_their_name_is_player_n_without_a_page(world: World) -> None:
    k = world.m.kernel
    assert not await site.name_hidden(k, EVIL.id)
    await site.hide_name(k, EVIL.id, True)
    status, body = await get(world, world.path(links.GAME, world.finished.id))
    assert status == 200
    assert "Player 4" in body and "alert(1)" not in body
    assert world.path(links.PLAYER, GUILD, EVIL.id) not in body
    _, server = await get(world, world.path(links.SERVER, GUILD))
    assert "alert(1)" not in server
    assert (await world.client.get(world.path(links.PLAYER, GUILD, EVIL.id))).status == 404
    await site.hide_name(k, EVIL.id, False)
    _, again = await get(world, world.path(links.GAME, world.finished.id))
    assert "alert(1)" in again and "Player 4" not in again


async def test_the_player_page_plots_the_rating_and_lists_the_games(world: World) -> None:
    status, body = await get(world, world.path(links.PLAYER, GUILD, BOB.id))
    assert status == 200 and "<h1>Bob</h1>" in body
    assert re.search(r'<polyline class="line" points="[\d., ]+"', body)
    assert body.count('class="dot"') == 1  # one rated game so far
    assert "Rating now:" in body and "achievement points" in body
    assert world.path(links.GAME, world.finished.id) in body
    # Someone who never played here has no page.
    assert (await world.client.get(world.path(links.PLAYER, GUILD, 424242))).status == 404
    # The person in the running game only: no finished game, no rating yet, still a page.
    status, dan = await get(world, world.path(links.PLAYER, GUILD, DAN.id))
    assert status == 200 and "No rated game yet" in dan and "<polyline" not in dan


async def test_the_server_page_has_the_leaderboard_and_recent_games(world: World) -> None:
    status, body = await get(world, world.path(links.SERVER, GUILD))
    assert status == 200 and "Leaderboard" in body and "Recent games" in body
    assert world.path(links.GAME, world.finished.id) in body
    # The running game is listed apart, under the games being played.
    finished_part, playing_part = body.split("Being played", 1)
    assert world.path(links.GAME, world.running.id) not in finished_part
    assert world.path(links.GAME, world.running.id) in playing_part
    for found in LINK.findall(body):
        assert (await world.client.get(found)).status == 200, found


async def test_pages_speak_the_browsers_language(world: World) -> None:
    path = world.path(links.GAME, world.finished.id)
    _, fr = await get(world, path, **{"Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5"})
    assert '<html lang="fr">' in fr and "Partie n°" in fr and "Scores finaux" in fr
    _, pl = await get(world, path, **{"Accept-Language": "de, pl;q=0.8"})
    assert '<html lang="pl">' in pl and "Partia nr" in pl
    _, en = await get(world, path, **{"Accept-Language": "de"})
    assert '<html lang="en">' in en


async def test_the_toggle_is_kept_with_the_other_server_settings(world: World) -> None:
    from bot.core import servers

    k = world.m.kernel
    await servers.update(k, GUILD, {"language": "fr"})
    assert await site.enabled(k, GUILD)
    await servers.update(k, GUILD, {}, ("all",))  # /calico admin reset all: not the site
    settings = await servers.settings(k, GUILD)
    assert settings.language is None and (settings.model_extra or {}).get(SITE_KEY) is True


async def test_a_game_still_choosing_goals_has_no_table_yet(world: World) -> None:
    from tests.core.conftest import CAT, new_game

    g = await new_game(world.m, DAN, people=(CAT,))
    assert g.status.value == "draft"
    path = world.path(links.GAME, g.id)
    status, body = await get(world, path)
    assert status == 200 and "still choosing their goals" in body and "<img" not in body
    assert (await world.client.get(path + "/0.png")).status == 404
