"""Defects found while getting ready to host, each with the test that failed before its fix:
computer players' names in the reader's language with their level once; a seat a computer took
over is never credited to the person; the offline demo previews the move it then plays."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from bot.adapter.delivery import NoticeRenderer
from bot.adapter.ui import messages
from bot.core import lobby, queries
from bot.core.clock import FakeClock
from bot.core.manager import Manager
from bot.core.models import GameStatus, UserRef
from bot.core.notices import NoticeKind
from bot.demo import DemoLocales, run_demo
from bot.words import posts, terms
from bot.words.catalogue import Text
from tests.core.conftest import ANN, CHANNEL, GUILD, THREAD, opts, play_out

SAM = UserRef(1009, "sam")


async def test_computer_names_come_from_the_catalogue_with_the_level_once(
        manager: Manager) -> None:
    g = await lobby.create_game(manager.kernel,
                                ANN, GUILD, CHANNEL, opts(players=3), computers=["easy"])
    g = await lobby.add_computer(manager.kernel, g.id, ANN.id, "strong")
    for lang, word, easy, strong in (("en", "Computer", "easy", "strong"),
                                     ("fr", "Ordinateur", "facile", "fort"),
                                     ("pl", "Komputer", "łatwy", "mocny")):
        tr = Text(lang)
        post = messages.lobby_message(tr, g)
        lines = [line for line in post.content.split("\n") if "🤖" in line]
        assert lines == [f"2. 🤖 {word} ({easy})", f"3. 🤖 {word} ({strong})"], lines
        if lang != "en":
            assert "Computer" not in post.content
        # The host's "remove a computer" menu and every other name say the same.
        assert terms.seat_names(g, tr)[1:] == [f"{word} ({easy})", f"{word} ({strong})"]
        assert post.view is not None
        labels = [o.label for child in post.view.children
                  for o in getattr(getattr(child, "item", child), "options", [])]
        assert any(f"{word} ({easy})" in label for label in labels), labels
    g = await lobby.start(manager.kernel, g.id, ANN.id)
    tr = Text("fr")
    assert "Computer" not in posts.started_text(tr, g, 1)
    assert terms.who(g.seats[1], tr) == "🤖 Ordinateur (facile)"


async def test_a_seat_handed_to_a_computer_is_not_credited_to_the_person(
        manager: Manager, clock: FakeClock) -> None:
    """sam's time runs out on his first turn (timeout "computer"): the computer plays all of
    his 22 turns, and the end of the game names the seat as the computer's, not sam's."""
    g = await lobby.create_game(manager.kernel, ANN, GUILD, CHANNEL, opts(
        players=2, setup="beginner", turn_hours=1.0, timeout_action="computer",
        ai_level="normal"))
    g = await lobby.attach_thread(manager.kernel, g.id, THREAD, 9000)
    g = await lobby.join(manager.kernel, g.id, SAM)
    g = await lobby.start(manager.kernel, g.id, ANN.id)
    if g.current_user_id == ANN.id:  # ann plays her first turn: sam is next
        g = await play_one(manager, g, ANN.id)
    assert g.current_user_id == SAM.id
    clock.advance(timedelta(hours=2))
    report = await manager.sweep()
    assert report.converted == 1
    g = await queries.game(manager.kernel, g.id)
    sam_seat = next(s for s in g.seats if s.user_id == SAM.id)
    assert sam_seat.ai_level == "normal" and sam_seat.left
    g = await play_out(manager, g)
    assert g.status is GameStatus.OVER
    moves = await queries.moves(manager.kernel, g.id)
    assert sum(m.played_by == "computer" for m in moves if m.seat == sam_seat.seat) == 22

    tr = Text("en")
    names = terms.seat_names(g, tr)
    assert names[sam_seat.seat] == "Computer (normal) for sam"
    [over] = [n for n in await manager.store.notices(g.id) if n.kind == NoticeKind.GAME_OVER]
    renderer = NoticeRenderer(manager.kernel, DemoLocales({}))
    out = await renderer.build(over, g)
    assert out is not None
    assert not re.search(r"\*\*sam\*\*", out.content)  # never crowned (nor tied) as a person
    standings = [line for line in out.content.split("\n") if "sam" in line]
    assert standings and all("Computer (normal) for sam" in line for line in standings)
    scores = out.descriptions.get("scores.png", "")
    assert "Computer (normal) for sam" in scores  # the score sheet's words name it too
    # Results: the seat is not counted for sam.
    stats = await queries.user_stats(manager.kernel, SAM.id, GUILD)
    assert stats.games == 0


async def play_one(manager: Manager, g: object, user_id: int) -> object:
    from tests.core.conftest import step

    return await step(manager, g, user_id)  # type: ignore[arg-type]


async def test_the_demo_previews_the_move_it_plays(tmp_path: Path) -> None:
    path = await run_demo(tmp_path / "demo", players=2, seed=7, preview_turns=3)
    text = path.read_text(encoding="utf-8")
    blocks = re.split(r"^### ", text, flags=re.M)
    checked = 0
    for k, block in enumerate(blocks):
        if "after choosing a cell" not in block.split("\n", 1)[0]:
            continue
        previewed = re.search(r"\bon \**([A-E][1-5])\b", block)
        assert previewed, block[:300]
        # The next thread post narrates the move played: on the same cell.
        narration = next(b for b in blocks[k + 1:] if "Thread — table" in b.split("\n", 1)[0])
        played = re.search(r"\bon \**([A-E][1-5])\b", narration)
        assert played and played[1] == previewed[1], (previewed[1], narration[:300])
        checked += 1
    assert checked == 3
