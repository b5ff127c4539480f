"""Command line: draw a quilt record, or a gallery of sample images from seeded games.

    python -m render quilt FILE OUT.png   # FILE: a quilt record (JSON; "-" for stdin)
    python -m render gallery DIR          # sample quilts, turns, tables, score sheets, drafts,
                                          # the /calico rules pictures, an achievements
                                          # chart and a replay GIF (of a strong players' game)
    python -m render strong-game          # play that game again (20 s) and store its record
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from data import load_catalog
from engine.config import GameConfig, GameOptions, Restriction
from engine.errors import BadRecordError
from engine.play import play_game
from engine.quilt_record import replay_quilt
from engine.scoring import breakdown
from engine.serialize import replay_views
from engine.state import SeatState
from engine.views import SeatView, private_view, public_view
from render import (
    RULES_TOPICS,
    render_achievements,
    render_draft,
    render_quilt,
    render_replay,
    render_rules,
    render_scoresheet,
    render_table,
    render_turn,
)
from render.samples import best_preview, play_until, strong_record, write_strong_record

NAMES = ("Marguerite", "Zbigniew Łukaszewicz", "Amélie", "Tomasz")
POLISH = {
    "hand": "Ręka", "market": "Targ", "to_play": "Teraz gra",
    "master_quilter": "Mistrzyni kołder", "goals": "Cele", "cats": "Koty",
    "buttons": "Guziki", "total": "Suma", "final_scores": "Wyniki końcowe",
    "tiebreak_cats": "Remis punktowy: wygrywa więcej kotów",
    "tiebreak_buttons": "Remis w punktach i kotach: wygrywa więcej guzików",
    "tiebreak_shared": "Pełny remis: zwycięstwo dzielone",
    "choose_goals": "Wybierz 3 cele", "one_way": "jeden sposób", "both_ways": "oba sposoby",
}
FRENCH = {
    "hand": "Main", "market": "Marché", "to_play": "À jouer",
    "master_quilter": "Maître quilteur", "goals": "Objectifs", "cats": "Chats",
    "buttons": "Boutons", "total": "Total", "final_scores": "Scores finaux",
    "choose_goals": "Choisissez 3 objectifs", "one_way": "un critère",
    "both_ways": "deux critères",
}


def seat_view_of(config: GameConfig, seat: SeatState, index: int = 0) -> SeatView:
    """The view of a seat rebuilt from a quilt record (nothing in it is secret)."""
    return SeatView(index, seat.board, seat.quilt, seat.goals, bool(seat.goal_offer),
                    seat.placed, seat.buttons, seat.cats, seat.rainbow, len(seat.hand),
                    breakdown(config, seat))


def draw_record(rec: dict[str, Any], out: Path) -> None:
    config, seat = replay_quilt(load_catalog(), rec)
    view = seat_view_of(config, seat)
    out.write_bytes(render_quilt(view, config, highlight=None))


def gallery(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(name: str, data: bytes) -> None:
        path = out / name
        path.write_bytes(data)
        written.append(path)

    def names(n: int) -> list[str]:
        return list(NAMES[:n])

    # Two players, standard: the draft, a turn with a preview, the table, the end.
    opts = GameOptions(players=2)
    start = play_until(opts, 11, 0)
    pv = private_view(start, 0)
    save("draft.png", render_draft(pv.goal_offer, start.config,
                                   seat=pv.public.seats[0]))
    mid = play_until(opts, 11, 2 + 25)
    seat = mid.current_seat
    assert seat is not None
    prev, legal, source = best_preview(mid)
    view = private_view(mid, seat)
    last = view.public.seats[seat].placed[-1] if view.public.seats[seat].placed else None
    save("turn.png", render_turn(view, name=NAMES[seat], highlight=last, preview=prev,
                                 legal=legal, selected=source))
    save("table_2p.png", render_table(public_view(mid), names(2)))
    end = play_game(load_catalog(), opts, 11, ("random",) * 2).state
    pub = public_view(end)
    save("quilt_final.png", render_quilt(pub.seats[0], end.config, name=NAMES[0]))
    save("scoresheet_2p.png", render_scoresheet(pub, names(2)))

    # Four players: a crowded table and a Polish score sheet.
    opts4 = GameOptions(players=4)
    mid4 = play_until(opts4, 5, 4 + 40)
    save("table_4p.png", render_table(public_view(mid4), names(4), labels=POLISH))
    end4 = play_game(load_catalog(), opts4, 5, ("random",) * 4).state
    save("scoresheet_4p_pl.png", render_scoresheet(public_view(end4), names(4),
                                                   labels=POLISH))

    # Solo scenario, beginner setup, and a same-colour restriction in French.
    solo = play_until(GameOptions(players=1, scenario=3), 2, 1 + 10)
    save("table_solo.png", render_table(public_view(solo), names(1)))
    rest = play_until(GameOptions(players=2, restriction=Restriction.SAME_COLOR), 7, 2 + 16)
    seat = rest.current_seat
    assert seat is not None
    prev, legal, source = best_preview(rest)
    save("turn_restricted_fr.png", render_turn(private_view(rest, seat), name=NAMES[seat],
                                               legal=legal, selected=source, labels=FRENCH))

    # Family variant: goals lie face down.
    fam = play_until(GameOptions(players=3, family=True), 3, 3 * 12)
    fpub = public_view(fam)
    save("quilt_family.png", render_quilt(fpub.seats[0], fam.config, name=NAMES[0]))
    save("table_3p_family.png", render_table(fpub, names(3)))

    # The /calico rules pictures.
    for topic in RULES_TOPICS:
        save(f"rules_{topic}.png", render_rules(topic))

    # Achievements: a chart part-way up the track; the replay of a 4-player game.
    chart = load_catalog().achievements
    some = {"scenario-1", "scenario-2", "scenario-3", "scenario-5", "normal-60", "normal-65",
            "normal-rainbow", "normal-no-cats", "restriction-no-hand", "restriction-adjacent",
            "scenario-4", "normal-70"}
    save("achievements.png", render_achievements(chart, some, name=NAMES[0]))
    # The replay: a real game, the engine's strong players against each other (stored).
    record = strong_record()
    save("replay_4p.gif", render_replay(replay_views(load_catalog(), record), names(4)))
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m render", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    q = sub.add_parser("quilt", help="draw a quilt record as a finished quilt")
    q.add_argument("file", help="quilt record JSON, or - for standard input")
    q.add_argument("out", type=Path, help="PNG file to write")
    g = sub.add_parser("gallery", help="write sample images of seeded games")
    g.add_argument("dir", type=Path)
    sub.add_parser("strong-game", help="replay the strong players' sample game and store it")
    args = parser.parse_args(argv)
    if args.command == "strong-game":
        print(write_strong_record())
        return 0
    if args.command == "quilt":
        try:
            text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text("utf-8")
            rec = json.loads(text)
            draw_record(rec, args.out)
        except (OSError, json.JSONDecodeError, BadRecordError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        return 0
    for path in gallery(args.dir):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
