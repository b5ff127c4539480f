"""Queued notices drawn as messages (:class:`bot.adapter.ui.notices.NoticeRenderer`), from a
small real game's outbox: a thread post reads in the server's language, else the host's, and a
DM in its reader's; a prompt or reminder that no longer applies draws nothing; and the score
sheet carries what the features add (achievements' buttons, a tournament's line)."""

from __future__ import annotations

from dataclasses import replace

from bot.adapter.locales import LocaleSource
from bot.adapter.ui import custom_ids as ids
from bot.adapter.ui import messages
from bot.adapter.ui.notices import NoticeRenderer
from bot.core import lobby, queries, servers, turns
from bot.core.manager import Manager
from bot.core.models import UserRef
from bot.core.notices import GameOver, Notice, NoticeKind, encode
from bot.core.progress.model import Progress
from bot.core.tournament.model import ScoreSheetLine
from bot.words import tournament as tournament_words
from bot.words.catalogue import Text
from engine.rules import legal_moves
from tests.core.conftest import CHANNEL, GUILD, any_move, opts, to_last_move

ANA = UserRef(2001, "Ana", "pl")
BEA = UserRef(2002, "Béa", "fr")


async def last(m: Manager, game_id: int, kind: str) -> Notice:
    return [n for n in await m.store.notices(game_id) if n.kind == kind][-1]


async def started_game(m: Manager, **options: object) -> int:
    g = await lobby.create_game(m.kernel, ANA, GUILD, CHANNEL, opts(players=2, **options))
    await lobby.attach_thread(m.kernel, g.id, 700 + g.id, 900 + g.id)
    await lobby.join(m.kernel, g.id, BEA)
    return (await lobby.start(m.kernel, g.id, ANA.id)).id


async def test_posts_read_in_the_servers_language_else_the_hosts_and_dms_in_the_readers(
        manager: Manager) -> None:
    k = manager.kernel
    renderer = NoticeRenderer(k, LocaleSource(k))
    game_id = await started_game(manager, setup="beginner")
    game = await queries.game(k, game_id)
    first = game.state.first_seat if game.state is not None else 0
    started = await last(manager, game_id, NoticeKind.STARTED)

    async def in_(lang: str) -> str:
        return (await messages.started_message(Text(lang), game, first)).content

    assert await in_("pl") != await in_("fr")
    assert (await renderer.build(started, game)).content == await in_("pl")  # type: ignore[union-attr]
    await servers.update(k, GUILD, {"language": "fr"})
    assert (await renderer.build(started, game)).content == await in_("fr")  # type: ignore[union-attr]
    prompt = await last(manager, game_id, NoticeKind.TURN_PROMPT)
    reader = {ANA.id: "pl", BEA.id: "fr"}[prompt.user_id or 0]
    dm = await renderer.build(prompt, game)
    assert dm is not None
    assert dm.content == (await messages.turn_panel(Text(reader), game,
                                                    prompt.user_id or 0)).content


async def test_a_prompt_or_reminder_that_no_longer_applies_draws_nothing(
        manager: Manager) -> None:
    k = manager.kernel
    renderer = NoticeRenderer(k, LocaleSource(k))
    game_id = await started_game(manager)  # the goal draft first
    draft = await last(manager, game_id, NoticeKind.DRAFT_PROMPT)
    who = draft.user_id or 0
    game = await queries.game(k, game_id)
    assert await renderer.build(draft, game) is not None
    seat = game.seat_of(who)
    reminder = replace(draft, kind=NoticeKind.REMINDER, payload=(
        f'{{"seat":{seat},"deadline_at":null,"final":false,"action":"autopilot",'
        '"phase":"draft"}'))
    assert await renderer.build(reminder, game) is not None
    await turns.choose_goals(k, game_id, who, game.ply, any_move(game, who)[6:].split(","))
    game = await queries.game(k, game_id, fresh=True)
    assert await renderer.build(draft, game) is None  # chosen meanwhile
    assert await renderer.build(reminder, game) is None


async def test_the_score_sheet_carries_what_the_features_add(manager: Manager) -> None:
    k = manager.kernel
    renderer = NoticeRenderer(k, LocaleSource(k))
    game_id = await started_game(manager, setup="beginner")
    g = await to_last_move(manager, await queries.game(k, game_id))
    seat = g.current_seat
    assert g.state is not None and seat is not None
    await turns.play_turn(k, g.id, g.seats[seat].user_id or 0, g.ply,
                          legal_moves(g.state, seat)[0].text())
    over = await queries.game(k, game_id)
    sheet = await last(manager, game_id, NoticeKind.GAME_OVER)
    out = await renderer.build(sheet, over)
    assert out is not None
    pressed = [ids.parse(c.item.custom_id) for c in out.view.children]  # type: ignore[union-attr]
    assert {ids.ReviewId(game_id), ids.ReplayId(game_id), ids.RematchId(game_id)} <= set(pressed)
    # A tournament table's sheet says which tournament and round it was.
    body = sheet.body
    assert isinstance(body, GameOver) and body.part(Progress) is not None
    line = ScoreSheetLine(id=3, name="Spring cup", round=2, rounds=4)
    cup = replace(sheet, payload=encode(replace(body, parts=(*body.parts, line))))
    said = tournament_words.score_sheet_line(await renderer.thread_text(over), "Spring cup", 2, 4)
    with_line, plain = await renderer.build(cup, over), await renderer.build(sheet, over)
    assert with_line is not None and plain is not None
    assert said in with_line.content and said not in plain.content
