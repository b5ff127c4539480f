"""Typed notices (:mod:`bot.core.notices`): every declared kind (the features' too) is written
and read back equal; a score sheet's parts are stored under their keys; what is already stored
in databases (the payloads written before the notices were typed) keeps reading; a key nobody
knows is ignored; and a payload that no longer reads becomes :class:`Unreadable`, never an
exception."""

from __future__ import annotations

import importlib
import json
import pkgutil
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bot.core
from bot.core.challenge.model import Over, Summary
from bot.core.notices import (
    Autoplayed,
    Body,
    DmFallback,
    DraftPrompt,
    Ended,
    Events,
    GameOver,
    Lobby,
    Notice,
    OpenThread,
    Reminder,
    SeatChanged,
    SetupFailed,
    Started,
    Table,
    TurnPrompt,
    Unreadable,
    decode,
    encode,
    kinds,
)
from bot.core.progress.model import Earned, Progress
from bot.core.tournament.model import Post, PostKind, ScoreSheetLine
from engine.events import TilePlaced

# Every module of the core imported: a kind declared anywhere is declared by now.
for _module in pkgutil.walk_packages(bot.core.__path__, "bot.core."):
    importlib.import_module(_module.name)

PLACED = Events(json.dumps([{"kind": "tile_placed", "seat": 1, "cell": "C3", "color": "blue",
                             "pattern": "dots", "from_market": False, "number": 4}],
                           separators=(",", ":")))
PROGRESS = Progress(earned=(
    Earned(seat=0, user_id=1001, ids=("normal-60",), choices=("normal-60", "normal-55"),
           reason="earned", points=3, title=1),
    Earned(seat=1, user_id=1002, ids=(), choices=(), reason="not_winner", points=0,
           title=None)), rated=True)
LINE = ScoreSheetLine(id=3, name="Spring cup", round=2, rounds=4)

#: One value of every kind, each field away from its default.
SAMPLES: dict[str, Body] = {
    "open_thread": OpenThread(),
    "lobby": Lobby(),
    "started": Started(first_seat=2, phase="draft", players=3),
    "draft_prompt": DraftPrompt(seat=1, deadline_at="2026-01-02T12:00:00+00:00"),
    "turn_prompt": TurnPrompt(seat=3, deadline_at="2026-01-02T12:00:00+00:00"),
    "table": Table(seat=1, move="h0@C3>m2", by="autopilot", autoplayed=True, next_seat=2,
                   events=PLACED),
    "autoplayed": Autoplayed(seat=1, move="h0@C3>m2", events=PLACED),
    "reminder": Reminder(seat=1, deadline_at="2026-01-02T12:00:00+00:00", final=True,
                         action="remind", phase="draft", waiting=(7, 9), overdue=True,
                         next_at="2026-01-02T18:00:00+00:00", idle_days=12.5, user_id=1002,
                         in_thread=True),
    "seat_changed": SeatChanged(seat=2, reason="member_left", level="strong"),
    "game_over": GameOver(totals=(61, 48), places=(1, 2), winners=(0,), decided_by="buttons",
                          events=Events('[{"kind":"game_over"}]'), parts=(PROGRESS, LINE)),
    "ended": Ended(reason="idle"),
    "dm_fallback": DmFallback(user_id=1002, seat=1),
    "setup_failed": SetupFailed(reason="Missing Access"),
    "challenge_over": Over(week="2026-W48", score=55, recorded=False, late=True, hints=True,
                           events=PLACED),
    "challenge_summary": Summary(week="2026-W48", guild_id=500, entrants=2, language="fr",
                                 top=((1, 1001, "Ann", 70), (2, 1002, "Bob", 61)),
                                 everywhere=5, best=74),
    "tournament": Post(tournament=3, what=PostKind.STANDINGS, guild_id=500, round=2),
}


def test_every_declared_kind_has_a_sample() -> None:
    """A new kind needs its sample here (and so its round trip below)."""
    assert set(SAMPLES) == set(kinds())
    assert all(type(body) is kinds()[kind] for kind, body in SAMPLES.items())


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_every_kind_reads_back_equal(kind: str) -> None:
    body = SAMPLES[kind]
    text = encode(body)
    assert isinstance(json.loads(text), dict)
    assert decode(kind, text) == body
    assert body.kind == kind


def test_score_sheet_parts_are_stored_under_their_keys() -> None:
    sheet = SAMPLES["game_over"]
    stored = json.loads(encode(sheet))
    assert stored["progress"] == {"earned": [
        {"seat": 0, "user_id": 1001, "ids": ["normal-60"], "choices": ["normal-60", "normal-55"],
         "reason": "earned", "points": 3, "title": 1},
        {"seat": 1, "user_id": 1002, "ids": [], "choices": [], "reason": "not_winner",
         "points": 0, "title": None}], "rated": True}
    assert stored["tournament"] == {"id": 3, "name": "Spring cup", "round": 2, "rounds": 4}
    assert "parts" not in stored
    back = decode("game_over", json.dumps(stored))
    assert isinstance(back, GameOver)
    assert back.part(Progress) == PROGRESS and back.part(ScoreSheetLine) == LINE
    alone = decode("game_over", encode(GameOver(totals=(5,), places=(1,), winners=(0,))))
    assert isinstance(alone, GameOver) and alone.part(Progress) is None


#: (kind, a payload as the bot stored it before the notices were typed, what it reads as).
STORED: list[tuple[str, str, Body]] = [
    ("table", '{"seat":1,"move":"h0@C3>m2","by":"user","autoplayed":false,"next_seat":0,'
              '"events":[]}',
     Table(seat=1, move="h0@C3>m2", by="user", autoplayed=False, next_seat=0)),
    ("table", '{"seat":0,"move":"m1@A2","by":"computer","autoplayed":false,"next_seat":null,'
              '"events":' + PLACED.json + '}',
     Table(seat=0, move="m1@A2", by="computer", next_seat=None, events=PLACED)),
    ("autoplayed", '{"seat":0,"move":"h1@A2>m0","events":' + PLACED.json + '}',
     Autoplayed(seat=0, move="h1@A2>m0", events=PLACED)),
    ("started", '{"first_seat":0,"phase":"play","players":2}',
     Started(first_seat=0, phase="play", players=2)),
    ("turn_prompt", '{"seat":0,"deadline_at":"2025-01-02T00:00:00+00:00"}',
     TurnPrompt(seat=0, deadline_at="2025-01-02T00:00:00+00:00")),
    ("draft_prompt", '{"seat":1,"deadline_at":null}', DraftPrompt(seat=1)),
    ("reminder", '{"seat":1,"deadline_at":"2025-01-02T00:00:00+00:00","final":false,'
                 '"action":"autopilot","phase":"play","waiting":[7,9],"overdue":false,'
                 '"next_at":"2025-01-01T18:00:00+00:00","idle_days":30.0}',
     Reminder(seat=1, deadline_at="2025-01-02T00:00:00+00:00", final=False, action="autopilot",
              phase="play", waiting=(7, 9), next_at="2025-01-01T18:00:00+00:00")),
    ("reminder", '{"user_id":1002,"in_thread":true,"seat":1,"deadline_at":null,"final":true,'
                 '"action":"remind","phase":"draft","waiting":[],"overdue":true,'
                 '"next_at":null,"idle_days":30}',
     Reminder(seat=1, deadline_at=None, final=True, action="remind", phase="draft",
              overdue=True, user_id=1002, in_thread=True)),
    ("seat_changed", '{"seat":1,"reason":"left","level":"normal"}',
     SeatChanged(seat=1, reason="left", level="normal")),
    ("game_over", '{"totals":[61,48],"places":[1,2],"winners":[0],"decided_by":"score",'
                  '"events":[],"progress":{"earned":[{"seat":0,"user_id":1001,'
                  '"ids":["normal-60"],"choices":["normal-60"],"reason":"earned","points":1,'
                  '"title":null}],"rated":true},'
                  '"tournament":{"id":3,"name":"Spring cup","round":2,"rounds":4}}',
     GameOver(totals=(61, 48), places=(1, 2), winners=(0,), decided_by="score", parts=(
         Progress(earned=(Earned(seat=0, user_id=1001, ids=("normal-60",),
                                 choices=("normal-60",), reason="earned", points=1,
                                 title=None),), rated=True), LINE))),
    ("ended", '{"reason":"cancelled"}', Ended(reason="cancelled")),
    ("lobby", "{}", Lobby()),
    ("open_thread", "{}", OpenThread()),
    ("dm_fallback", '{"user_id":1002,"seat":1}', DmFallback(user_id=1002, seat=1)),
    ("setup_failed", '{"reason":"Missing Access"}', SetupFailed(reason="Missing Access")),
    ("challenge_over", '{"events":[],"week":"2026-W48","score":55,"recorded":true,'
                       '"late":false,"hints":false}',
     Over(week="2026-W48", score=55, recorded=True, late=False, hints=False)),
    ("challenge_summary", '{"week": "2026-W48", "guild_id": 500, "entrants": 2, '
                          '"language": null, "top": [[1, 1001, "Ann", 70], '
                          '[2, 1002, "Bob", 61]], "everywhere": 5, "best": 74}',
     Summary(week="2026-W48", guild_id=500, entrants=2, language=None,
             top=((1, 1001, "Ann", 70), (2, 1002, "Bob", 61)), everywhere=5, best=74)),
    ("tournament", '{"tournament":3,"what":"signup","guild_id":500}',
     Post(tournament=3, what=PostKind.SIGNUP, guild_id=500)),
    ("tournament", '{"tournament":3,"what":"round","guild_id":500,"round":2}',
     Post(tournament=3, what=PostKind.ROUND, guild_id=500, round=2)),
]


@pytest.mark.parametrize(("kind", "text", "body"), STORED, ids=[f"{k}-{i}" for i, (k, _, _)
                                                                in enumerate(STORED)])
def test_payloads_already_stored_keep_reading(kind: str, text: str, body: Body) -> None:
    assert decode(kind, text) == body
    # ... and the bot writes the same keys with the same values (a field may be added).
    old, new = json.loads(text), json.loads(encode(body))
    assert {k: new.get(k) for k in old} == old


def test_every_kind_is_pinned_to_a_payload_already_stored() -> None:
    assert {kind for kind, _, _ in STORED} == set(kinds())


def test_keys_nobody_knows_are_ignored() -> None:
    assert decode("turn_prompt", '{"seat":0,"deadline_at":null,"mood":"sleepy"}') == TurnPrompt(
        seat=0)
    sheet = decode("game_over", '{"totals":[5],"places":[1],"winners":[0],"league":{"x":1},'
                                '"progress":{"earned":[],"rated":false,"challenge":{"week":1}}}')
    assert sheet == GameOver(totals=(5,), places=(1,), winners=(0,),
                             parts=(Progress(earned=(), rated=False),))


@pytest.mark.parametrize(("kind", "text"), [
    ("turn_prompt", '{"seat":"first"}'),
    ("turn_prompt", '{"deadline_at":null}'),  # a field without default missing
    ("turn_prompt", "not json"),
    ("turn_prompt", "[1, 2]"),
    ("turn_prompt", "null"),
    ("table", '{"seat":0,"move":"h0@C3>m2","by":"user","events":{"kind":"x"}}'),
    ("table", '{"seat":0,"move":"h0@C3>m2","by":"user","events":"[{]"}'),
    ("table", '{"seat":0,"move":"h0@C3>m2","by":"user","events":"{}"}'),  # JSON, not a list
    ("game_over", '{"totals":[5],"places":[1],"winners":[0],"progress":{"earned":5}}'),
    ("game_over", '{"totals":[5],"places":[1],"winners":[0],"tournament":[]}'),
    ("tournament", '{"tournament":3,"what":"brunch","guild_id":500}'),
    ("no_such_kind", "{}"),
])
def test_a_payload_that_no_longer_reads_is_unreadable(kind: str, text: str) -> None:
    body = decode(kind, text)
    assert isinstance(body, Unreadable) and body.stored_kind == kind
    assert Notice(1, 2, kind, None, 0, text, "k", 0, None, 0, 0, None).body == body  # type: ignore[arg-type]


def test_why_a_payload_does_not_read_is_kept_short() -> None:
    text = json.dumps({"seat": "x" * 300, "move": ["y"] * 300, "by": {"z": 1}, "events": 5})
    body = decode("table", text)
    assert isinstance(body, Unreadable)
    assert 100 < len(body.problem) <= 200  # what failed, not the whole payload again


def test_only_the_notices_a_person_waits_on_jump_their_lane() -> None:
    # The thread's opening and the lobby answer a command just typed; the rest keep their turn.
    assert {kind for kind, cls in kinds().items() if cls.express} == {"open_thread", "lobby"}


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10**12) | st.floats()
                    | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
FIELDS = sorted({f for body in SAMPLES.values() for f in json.loads(encode(body))})


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(sorted(SAMPLES)),
       payload=st.dictionaries(st.sampled_from(FIELDS), JSON, max_size=8) | JSON)
def test_decoding_never_raises(kind: str, payload: Any) -> None:
    body = decode(kind, json.dumps(payload))
    assert isinstance(body, kinds()[kind] | Unreadable)
    for value in vars_of(body):
        if isinstance(value, Events):
            value.decoded()  # what the delivery reads of it


def vars_of(body: Body) -> list[Any]:
    return [getattr(body, name) for name in getattr(body, "__dataclass_fields__", {})]


def test_a_move_events_are_read_as_engine_events() -> None:
    [placed] = PLACED.decoded()
    assert placed == TilePlaced(seat=1, cell="C3", color="blue", pattern="dots",
                                from_market=False, number=4)
    mixed = Events('[{"kind":"no_such_event"},' + PLACED.json[1:])
    assert mixed.decoded() == [placed]  # an entry that no longer reads is left out
