"""``python -m engine score FILE`` and ``python -m engine play ...`` (contracts in design.md)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from data import load_catalog
from engine.config import GameOptions, Setup
from engine.errors import EngineError
from engine.quilt_record import score_record


def _score(path: str) -> int:
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()  # noqa: SIM115
    except OSError as e:
        print(f"cannot read {path}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"not JSON: {e.msg} at line {e.lineno}", file=sys.stderr)
        return 2
    catalog = load_catalog()
    try:
        if isinstance(data, list):
            out: Any = []
            for i, rec in enumerate(data):
                try:
                    out.append(score_record(catalog, rec))
                except EngineError as e:
                    raise EngineError(f"record {i}: {e.message}") from e
        else:
            out = score_record(catalog, data)
    except EngineError as e:
        print(e.message, file=sys.stderr)
        return 2
    # one write of the C encoder's output: json.dump would write ~170 pieces per record
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


def _table(summary: dict[str, Any]) -> str:
    lines = [f"game seed {summary['seed']}",
             f"{'seat':>4} {'ai':<8} {'place':>5} {'goals':>5} {'cats':>5} {'buttons':>7} "
             f"{'total':>5}"]
    for p in summary["players"]:
        s = p["score"]
        lines.append(f"{p['seat']:>4} {p['ai']:<8} {p['place']:>5} {s['goal_points']:>5} "
                     f"{s['cat_points']:>5} {s['button_points']:>7} {s['total']:>5}")
    return "\n".join(lines)


def _play(args: argparse.Namespace) -> int:
    # imported here so that ``score`` does not pay for loading the computer players
    from engine.ai import LEVELS
    from engine.play import game_summary, play_game

    levels = args.ai.split(",")
    if len(levels) == 1:
        levels = levels * args.players
    if len(levels) != args.players:
        print("give one level for all seats or one per seat", file=sys.stderr)
        return 2
    for lv in levels:
        if lv not in LEVELS:
            print(f"unknown level {lv!r}: choose from {', '.join(LEVELS)}", file=sys.stderr)
            return 2
    try:
        options = GameOptions(players=args.players, setup=Setup(args.setup),
                              scenario=args.scenario)
    except ValueError as e:
        print(f"bad options: {e.errors()[0]['msg'] if hasattr(e, 'errors') else e}",
              file=sys.stderr)
        return 2
    catalog = load_catalog()
    for g in range(args.games):
        try:
            game = play_game(catalog, options, args.seed + g, tuple(levels))
        except EngineError as e:
            print(e.message, file=sys.stderr)
            return 2
        summary = game_summary(game)
        print(json.dumps(summary) if args.json else _table(summary), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description="Calico rules engine")
    sub = parser.add_subparsers(dest="command", required=True)
    sc = sub.add_parser("score", help="score a quilt record (or a JSON array of them)")
    sc.add_argument("file", help="a JSON file, or - for standard input")
    pl = sub.add_parser("play", help="play whole games between computer players")
    pl.add_argument("--players", type=int, default=2)
    pl.add_argument("--ai", default="random", help="LEVEL or LEVEL,LEVEL,... one per seat")
    pl.add_argument("--setup", choices=[s.value for s in Setup], default="standard")
    pl.add_argument("--scenario", type=int, default=None)
    pl.add_argument("--seed", type=int, default=1)
    pl.add_argument("--games", type=int, default=1)
    pl.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "score":
        return _score(args.file)
    return _play(args)
